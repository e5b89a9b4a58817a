"""workflows/lexicon_build: build-lexicon as a library function, and what it leaves
when things stop (issue 22, section 4): Ctrl-C keeps the checkpoint and says how to
resume (exit 130 in the command), a build that fails before its first document leaves
no checkpoint directory, and a mistyped corpus is reported before the model loads."""

import dataclasses
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.workflows.lexicon_build import BuildStopped, LexiconBuildRequest, build_lexicon_pipeline

LINES = ["the bank of the river", "we took out a loan at the bank", "i have an apple", "the bank", "play the pen"]
# Runs the command in a fresh interpreter that knows the test's slow component. While the
# file named by CTXVEC_TEST_HOLD exists, the component holds every document after the 8th,
# so a build is still running when the test interrupts it, however fast or loaded the machine.
SLOW_CLI = (
    "import os, pathlib, sys, time\n"
    "from spacy.language import Language\n"
    "HOLD = pathlib.Path(os.environ.get('CTXVEC_TEST_HOLD', '/nonexistent/hold'))\n"
    "SEEN = [0]\n"
    "@Language.component('test_slow')\n"
    "def slow(doc):\n"
    "    SEEN[0] += 1\n"
    "    while SEEN[0] > 8 and HOLD.exists():\n"
    "        time.sleep(0.05)\n"
    "    return doc\n"
    "from spacy_ctxvec.cli import app\n"
    "app(prog_name='spacy-ctxvec')\n"
)


class StopAt:
    """Raises KeyboardInterrupt (as Ctrl-C does) on the ``at``-th document it sees."""

    def __init__(self, at: int) -> None:
        self.at, self.seen = at, 0

    def __call__(self, doc):
        self.seen += 1
        if self.seen >= self.at:
            raise KeyboardInterrupt
        return doc


@Language.factory("test_stop_at", default_config={"at": 1})
def make_stop_at(nlp, name, at: int):
    return StopAt(at)


class TermAt(StopAt):
    """Sends this process SIGTERM (as `kill` does) on the ``at``-th document it sees."""

    def __call__(self, doc):
        self.seen += 1
        if self.seen == self.at:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)  # the handler runs here
        return doc


@Language.factory("test_term_at", default_config={"at": 1})
def make_term_at(nlp, name, at: int):
    return TermAt(at)


@Language.component("test_fails")
def fails(doc):
    raise ValueError("a component of the user's pipeline failed")


@Language.component("test_slow")
def slow(doc):
    time.sleep(0.05)
    return doc


def write_corpus(path: Path, n_docs: int) -> Path:
    path.write_text("\n".join(LINES[i % len(LINES)] for i in range(n_docs)) + "\n", encoding="utf8")
    return path


def pipeline_with(tiny_pipeline_dir: Path, path: Path, component: str, **config) -> Path:
    nlp = spacy.load(tiny_pipeline_dir)
    nlp.add_pipe(
        component, config=config, before="ctxvec_context"
    )  # build-lexicon runs what comes before ctxvec_polysemy
    nlp.to_disk(path)
    return path


def request(pipeline: Path, corpus: Path, output: Path, **options) -> LexiconBuildRequest:
    settings = {"batch_size": 1, "checkpoint_every": 5, "progress": False, "min_count": 2, "layer": None}
    return LexiconBuildRequest(pipeline, corpus, output, **{**settings, **options})


def test_a_build_gives_a_pipeline_and_leaves_no_checkpoint(tiny_pipeline_dir, tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out"))
    assert build.result.n_docs == 12 and build.n_valid > 0 and build.score.startswith("polysemy_score")
    # the tiny model has no shipped probe: the note names the models that have one
    assert "self-similarity" in build.score and "all-MiniLM-L6-v2 (layer 5 of 6, pooled by pool_mean)" in build.score
    assert "fine-tuned copy is another model" in build.score
    assert spacy.load(tmp_path / "out")("the bank")[1]._.polysemy_count == 8  # lines 0, 1 and 3 of 12
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "out"]


def test_a_build_lists_and_checks_its_corpus_once(tiny_pipeline_dir, tmp_path, files_looked_into):
    # The request's check lists the corpus and looks into each .txt/.jsonl for NUL bytes;
    # the engine reads that listing instead of listing (and looking into) it again.
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        write_corpus(folder / name, 4)
    looked_into = files_looked_into
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, folder, tmp_path / "out"))
    assert build.result.n_docs == 12 and looked_into == ["a.txt", "b.txt", "c.txt"]


def test_the_build_says_which_layer_output_reads_and_that_other_layers_differ(tiny_pipeline_dir, tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt", 6)
    kept = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "kept"))
    assert kept.vectors is not None and "the last layer, pooled by" in kept.vectors
    assert "(PIPELINE's own layers (--keep-layer))" in kept.vectors
    chosen = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "chosen", layer=1))
    assert chosen.vectors is not None and "layer 1 of " in chosen.vectors and "(--layer 1)" in chosen.vectors
    assert "read the last layer" in chosen.vectors and "model" not in chosen.vectors.split("(")[0]


def test_ctrl_c_keeps_the_checkpoint_and_resume_finishes(tiny_pipeline_dir, tmp_path):
    stopping = pipeline_with(tiny_pipeline_dir, tmp_path / "stopping", "test_stop_at", at=8)
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    out, checkpoints = tmp_path / "out", tmp_path / "out.checkpoint"
    with pytest.raises(BuildStopped) as stopped:
        build_lexicon_pipeline(request(stopping, corpus, out))
    assert (stopped.value.docs_done, stopped.value.checkpoint_dir) == (5, checkpoints)
    assert (checkpoints / "LATEST").read_text(encoding="utf8") == "shard-000000000005" and not out.exists()
    build = build_lexicon_pipeline(request(stopping, corpus, out, resume=True))  # a fresh StopAt: 7 docs left
    assert build.result.resumed_from == 5 and build.result.n_docs == 12 and not checkpoints.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to oneself")
def test_a_sigterm_handler_the_caller_installed_is_left_alone(tiny_pipeline_dir, tmp_path):
    """build-lexicon turns SIGTERM into a Ctrl-C stop only where SIGTERM has its default action:
    an API caller's own handler (a server's graceful shutdown) still gets the signal, and the
    build goes on."""
    terminated = pipeline_with(tiny_pipeline_dir, tmp_path / "terminated", "test_term_at", at=8)
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    received = []

    def callers_handler(signum, frame):
        received.append(signum)

    before = signal.signal(signal.SIGTERM, callers_handler)
    try:
        build = build_lexicon_pipeline(request(terminated, corpus, tmp_path / "out"))
        assert signal.getsignal(signal.SIGTERM) is callers_handler
    finally:
        signal.signal(signal.SIGTERM, before)
    assert received == [signal.SIGTERM] and build.result.n_docs == 12 and (tmp_path / "out").is_dir()


def test_a_rerun_without_resume_keeps_the_checkpoint_unless_told_to_start_over(tiny_pipeline_dir, tmp_path):
    """The same command again, without --resume (the likeliest mistake after Ctrl-C),
    used to delete the documents counted so far and start over without a word. It now
    refuses (E250) and keeps them; --overwrite starts over."""
    stopping = pipeline_with(tiny_pipeline_dir, tmp_path / "stopping", "test_stop_at", at=8)
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    out, checkpoints = tmp_path / "out", tmp_path / "out.checkpoint"
    with pytest.raises(BuildStopped):
        build_lexicon_pipeline(request(stopping, corpus, out))
    with pytest.raises(CtxvecError, match=r"CTX-E250.*out.checkpoint' holds 5 documents.*--resume; or .*--overwrite"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    said = r"E250.*with --resume --engine local and without the Ray options \(the local engine wrote it"
    with pytest.raises(CtxvecError, match=said):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, engine="ray"))  # Ray resumes nothing (E505)
    assert (checkpoints / "LATEST").read_text(encoding="utf8") == "shard-000000000005"
    # a checkpoint an older version counted: --resume would stop with E221, so E250 does not offer it
    state_file = checkpoints / "shard-000000000005" / "state.json"
    written = state_file.read_bytes()
    state = json.loads(written)
    state_file.write_text(json.dumps({**state, "fingerprint": {**state["fingerprint"], "counting": "older"}}))
    with pytest.raises(CtxvecError) as older:
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    assert (
        "cannot continue, even with --resume: build into a new OUTPUT (and a new --checkpoint-dir); or pass --overwrite"
        in (str(older.value))
    )
    assert "Continue that build" not in str(older.value)
    state_file.write_bytes(written)  # as the build wrote it (--overwrite deletes only what it wrote)
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, overwrite=True))
    assert build.result.resumed_from == 0 and build.result.n_docs == 12 and not checkpoints.exists()


def test_a_corpus_where_the_default_checkpoints_go_names_the_default_not_the_option(tiny_pipeline_dir, tmp_path):
    """A corpus folder named OUTPUT.checkpoint: E700 blamed --checkpoint-dir, which was never given."""
    (tmp_path / "lex.checkpoint").mkdir()
    corpus = write_corpus(tmp_path / "lex.checkpoint" / "c.txt", 4).parent
    with pytest.raises(CtxvecError, match=r"E700\] The checkpoint directory OUTPUT.checkpoint \(--checkpoint-dir sets"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "lex"))
    with pytest.raises(CtxvecError, match=r"E700\] --checkpoint-dir '"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "lex", checkpoint_dir=corpus))


def test_ctrl_c_before_the_first_checkpoint_leaves_nothing(tiny_pipeline_dir, tmp_path):
    stopping = pipeline_with(tiny_pipeline_dir, tmp_path / "stopping", "test_stop_at", at=1)
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    with pytest.raises(BuildStopped) as stopped:  # not even the folders made for OUTPUT's checkpoints
        build_lexicon_pipeline(request(stopping, corpus, tmp_path / "new" / "sub" / "out"))
    assert (stopped.value.docs_done, stopped.value.checkpoint_dir) == (0, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "stopping"]


def test_the_command_prints_one_line_and_exits_130_on_ctrl_c(tiny_pipeline_dir, tmp_path):
    stopping = pipeline_with(tiny_pipeline_dir, tmp_path / "stopping", "test_stop_at", at=8)
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    args = ["build-lexicon", stopping, corpus, tmp_path / "out", "--batch-size", 1, "--checkpoint-every", 5]
    result = CliRunner().invoke(app, [str(a) for a in [*args, "--no-progress"]])
    assert result.exit_code == 130, result.output
    [line] = result.stderr.splitlines()  # on stderr, with the build's warnings
    assert result.stdout == ""
    assert line.startswith(f"Stopped after 5 documents; the checkpoint in {tmp_path / 'out.checkpoint'} is kept.")
    assert line.endswith(" --resume")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_real_sigint_or_sigterm_prints_the_exact_resume_command_which_finishes(tiny_pipeline_dir, tmp_path, signum):
    """Ctrl-C, and SIGTERM as plain `kill` sends it (which ended the build without a word)."""
    slow_pipeline = pipeline_with(tiny_pipeline_dir, tmp_path / "slow", "test_slow")
    corpus = write_corpus(tmp_path / "corpus.txt", 120)
    out = tmp_path / "out"
    args = ["build-lexicon", str(slow_pipeline), str(corpus), str(out), "--checkpoint-every", "4", "--no-progress"]
    hold = tmp_path / "hold"
    hold.touch()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "CTXVEC_TEST_HOLD": str(hold)}
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "out.checkpoint" / "LATEST").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signum)
        output, _ = process.communicate(timeout=120)
    finally:
        hold.unlink()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, output
    [line] = [line for line in output.splitlines() if line.startswith("Stopped after")]
    assert "Traceback" not in output
    command = line.split("Continue with: ", 1)[1]
    assert shlex.split(command) == ["spacy-ctxvec", *args, "--resume"]
    resumed = subprocess.run(
        [sys.executable, "-c", SLOW_CLI, *shlex.split(command)[1:]], capture_output=True, text=True, env=env
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "Resumed after" in resumed.stdout and "120 docs" in resumed.stdout
    assert not (tmp_path / "out.checkpoint").exists() and "test_slow" in spacy.load(out).pipe_names


def test_a_mistyped_corpus_is_reported_before_the_model_loads_and_leaves_nothing(tmp_path):
    broken = tmp_path / "broken-pipeline"
    broken.mkdir()
    (broken / "config.cfg").write_text("[nlp]\nlang = 'xx-no-such'\n", encoding="utf8")
    (tmp_path / "empty-folder").mkdir()
    (tmp_path / "empty-folder" / "notes.md").write_text("not a corpus", encoding="utf8")
    for corpus, problem in (
        (tmp_path / "corpsu.txt", "does not exist"),
        (tmp_path / "empty-folder", "is a directory without"),
    ):
        with pytest.raises(CtxvecError, match=rf"E210.*{problem}"):  # not the pipeline's error: no model loaded
            build_lexicon_pipeline(request(broken, corpus, tmp_path / "out"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken-pipeline", "empty-folder"]
    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    with pytest.raises(CtxvecError, match=r"E216.*'lowr'"):  # a mistyped --key: before the model loads too
        build_lexicon_pipeline(request(broken, corpus, tmp_path / "out", key="lowr"))


def test_a_corpus_without_documents_leaves_no_checkpoint_directory(tiny_pipeline_dir, tmp_path):
    blank = tmp_path / "blank.txt"
    blank.write_text("\n\n  \n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E211|E740"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, blank, tmp_path / "new" / "sub" / "out"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blank.txt"]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
@pytest.mark.parametrize("existing_output", [False, True])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_while_output_is_swapped_in_finishes_the_build(
    tiny_pipeline_dir, tmp_path, monkeypatch, existing_output, signum
):
    """A real SIGINT (or SIGTERM) as OUTPUT is renamed into place: held until the swap is done, so
    the build finishes (W052) instead of reporting 'nothing was kept' over a replaced OUTPUT."""
    # SIGTERM at its default action, as in a fresh process (an earlier test's Ray may have set a handler)
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        _swap_with_a_signal(tiny_pipeline_dir, tmp_path, monkeypatch, existing_output, signum)
    finally:
        signal.signal(signal.SIGTERM, before)


def _swap_with_a_signal(tiny_pipeline_dir, tmp_path, monkeypatch, existing_output, signum):
    corpus, out = write_corpus(tmp_path / "corpus.txt", 12), tmp_path / "out"
    if existing_output:
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    rename = os.rename

    def rename_after_ctrl_c(source, destination):
        if Path(destination) == out:
            signal.raise_signal(signum)
        rename(source, destination)

    monkeypatch.setattr(os, "rename", rename_after_ctrl_c)
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, overwrite=existing_output))
    monkeypatch.undo()
    assert any("CTX-W052" in w and f"OUTPUT '{out}' was being put in place" in w for w in build.warnings), (
        build.warnings
    )
    assert spacy.load(out)("the bank")[1]._.polysemy_count == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "out"]


def test_an_output_symlink_is_refused_before_the_build(tiny_pipeline_dir, tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "mine.txt").write_text("mine", encoding="utf8")
    (tmp_path / "to-dir").symlink_to(tmp_path / "real")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for name in ("to-dir", "dangling"):
        started = time.perf_counter()
        with pytest.raises(CtxvecError, match=rf"E702.*{name}' is a symbolic link"):
            build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / name, overwrite=True))
        assert time.perf_counter() - started < 2  # refused up front, not after the build
    assert (tmp_path / "real" / "mine.txt").read_text(encoding="utf8") == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "dangling", "real", "to-dir"]


def test_overwrite_keeps_a_file_the_user_saved_inside_an_earlier_output(tiny_pipeline_dir, tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt", 6)
    out = tmp_path / "out"
    build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    (out / "my-notes.txt").write_text("keep me", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E704.*my-notes\.txt"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, overwrite=True))
    assert (out / "my-notes.txt").read_text(encoding="utf8") == "keep me"
    (out / "my-notes.txt").unlink()
    build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, overwrite=True, min_count=3))
    assert spacy.load(out).get_pipe("ctxvec_polysemy").min_count == 3


def test_types_the_model_reads_as_its_unknown_piece_alone_are_named(tiny_pipeline_dir, tmp_path):
    """Emoji read as [UNK] alone were counted, ranked (polysemy 9.8) and exported without a word."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"{line} 🍎 🏦\n" for line in LINES * 2), encoding="utf8")
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out"))
    (warning,) = [w for w in build.warnings if w.startswith("[CTX-W049]")]
    assert "'🍎'" in warning and "'🏦'" in warning and "[UNK] alone" in warning
    assert "The model reads 2 of the lexicon's types seen at least" in warning  # grammatical for 1 too
    assert "'bank'" not in warning  # a word the model reads
    plain = write_corpus(tmp_path / "plain.txt", 12)
    assert not any(
        w.startswith("[CTX-W049]")
        for w in build_lexicon_pipeline(request(tiny_pipeline_dir, plain, tmp_path / "o2")).warnings
    )


def test_an_output_written_meanwhile_is_kept_and_the_counts_too(tiny_pipeline_dir, tmp_path, monkeypatch):
    """Two builds into one OUTPUT: the one that finishes second stops (E226) instead of replacing
    the other's OUTPUT, keeps its counts and says that --resume --overwrite saves them."""
    from spacy_ctxvec.workflows import lexicon_build

    corpus, out = write_corpus(tmp_path / "corpus.txt", 12), tmp_path / "out"
    real = lexicon_build.write_directory

    def another_build_finishes_first(path, write, **options):
        real(path, lambda new: (new.mkdir(), (new / "other.txt").write_text("first")), what="OUTPUT", made_by="test")
        return real(path, write, **options)

    monkeypatch.setattr(lexicon_build, "write_directory", another_build_finishes_first)
    with pytest.raises(CtxvecError, match=r"E226.*The 12 documents counted are kept in .*--resume --overwrite"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    assert (out / "other.txt").read_text() == "first" and (tmp_path / "out.checkpoint" / "LATEST").exists()
    monkeypatch.undo()
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, resume=True, overwrite=True))
    assert build.result.resumed_from == 12 and not (out / "other.txt").exists()


def test_a_checkpoint_directory_another_build_finished_with_is_not_offered_for_resume(
    tiny_pipeline_dir, tmp_path, monkeypatch
):
    """Two builds with one checkpoint directory: the first to finish removes its marker, so the
    second's counts there cannot be resumed (E244 would refuse them): it says to delete it."""
    from spacy_ctxvec.building.checkpoints import CHECKPOINT_MARKER
    from spacy_ctxvec.workflows import lexicon_build

    corpus, out = write_corpus(tmp_path / "corpus.txt", 12), tmp_path / "out"
    real = lexicon_build.write_directory

    def another_build_finishes_first(path, write, **options):
        real(path, lambda new: (new.mkdir(), (new / "other.txt").write_text("first")), what="OUTPUT", made_by="test")
        (tmp_path / "out.checkpoint" / CHECKPOINT_MARKER).unlink()  # what its clean-up removed
        return real(path, write, **options)

    monkeypatch.setattr(lexicon_build, "write_directory", another_build_finishes_first)
    with pytest.raises(CtxvecError, match=r"E226.*Another build used the checkpoint directory .*delete it") as err:
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    assert "--resume --overwrite" not in str(err.value) and (out / "other.txt").read_text() == "first"


def test_a_second_build_of_the_same_output_or_checkpoints_stops_at_once_and_the_first_finishes(
    tiny_pipeline_dir, tmp_path, monkeypatch
):
    """A build already counting into OUTPUT (a real build-lexicon process): a second build of that
    OUTPUT, or of another OUTPUT with its checkpoint directory, stops with E268 before it loads or
    removes anything; the first then finishes with all its documents."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the locks: whatever HOME allows
    slow_pipeline = pipeline_with(tiny_pipeline_dir, tmp_path / "slow", "test_slow")
    corpus, out, checkpoints = write_corpus(tmp_path / "corpus.txt", 40), tmp_path / "out", tmp_path / "out.checkpoint"
    hold = tmp_path / "hold"
    hold.touch()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "CTXVEC_TEST_HOLD": str(hold)}
    args = ["build-lexicon", str(slow_pipeline), str(corpus), str(out), "--checkpoint-every", "4", "--no-progress"]
    first = subprocess.Popen(
        [sys.executable, "-c", SLOW_CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True
    )
    try:
        shards, deadline = None, time.monotonic() + 120
        while time.monotonic() < deadline:  # until the first build waits at the hold, its checkpoint still moves
            now = sorted(path.name for path in checkpoints.iterdir()) if (checkpoints / "LATEST").exists() else None
            if now is not None and now == shards:
                break
            shards = now
            time.sleep(1.0)
        with pytest.raises(CtxvecError, match=rf"E268.*writing OUTPUT '{out}' now"):
            build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
        other = tmp_path / "other"
        with pytest.raises(CtxvecError, match=rf"E268.*writing the checkpoint directory '{checkpoints}' now"):
            build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, other, checkpoint_dir=checkpoints))
        assert sorted(path.name for path in checkpoints.iterdir()) == shards and not other.exists()
    finally:
        hold.unlink()
        output, _ = first.communicate(timeout=120)
    assert first.returncode == 0, output
    assert "40 docs" in output and not checkpoints.exists() and "test_slow" in spacy.load(out).pipe_names


@pytest.mark.skipif(sys.platform == "win32", reason="process ids of the staging folders: POSIX")
def test_the_staging_folder_of_a_build_killed_while_saving_is_removed_by_the_next_build(tiny_pipeline_dir, tmp_path):
    """kill -9 while OUTPUT is saved leaves its staging folder (.OUTPUT.new-PID-HEX); the next build
    of that OUTPUT removes it (W063) once its process is gone, and nothing else."""
    corpus, out = write_corpus(tmp_path / "corpus.txt", 12), tmp_path / "out"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp_path / f".out.new-{int(gone.stdout)}-0bf8f5cf"
    running = tmp_path / f".out.new-{os.getpid()}-1b61b546"  # a build still saving
    mine = tmp_path / ".out.new-notes"
    huge = tmp_path / ".out.new-99999999999999999999-0bf8f5cf"  # no process id: not ours
    for folder in (killed, running, mine, huge):
        folder.mkdir()
        (folder / "config.cfg").write_text("[nlp]\n", encoding="utf8")
    with pytest.warns(UserWarning, match=rf"W063.*Removed '{killed}': what a command left beside OUTPUT '{out}'"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    assert not killed.exists() and running.exists() and mine.exists() and huge.exists() and out.is_dir()


@pytest.mark.parametrize(
    "message, is_memory",
    [
        ("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory: you tried to allocate", True),
        ("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)", True),
        ("CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", True),
        ("cuDNN error: CUDNN_STATUS_ALLOC_FAILED", True),
        ("CUDA error: device-side assert triggered", False),
        ("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", False),
    ],
)
def test_what_counts_as_running_out_of_memory(message, is_memory):
    """torch's words for memory running out (its allocators, and cuBLAS/cuDNN on the GPU), which
    E265-E267 turn into advice; any other RuntimeError stays a bug to report."""
    from spacy_ctxvec.workflows.lexicon_build import out_of_memory

    assert out_of_memory(RuntimeError(message)) is is_memory
    assert out_of_memory(MemoryError()) and not out_of_memory(ValueError("out of memory"))


def test_output_given_as_its_own_checkpoint_directory_is_e246_not_another_build(tiny_pipeline_dir, tmp_path):
    """One path under two names takes one lock: the build's own check says they are the same
    (E246), not that another build writes it (E268)."""
    corpus, out = write_corpus(tmp_path / "corpus.txt", 6), tmp_path / "out"
    with pytest.raises(CtxvecError, match=r"\[CTX-E246\]"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, checkpoint_dir=tmp_path / "x" / ".." / "out"))


def test_a_full_disk_at_a_checkpoint_is_e703_keeping_the_checkpoint_before(tiny_pipeline_dir, tmp_path, monkeypatch):
    """OSError: [Errno 28] from a checkpoint write was a traceback that left a .tmp-shard-*
    folder; now E703 names the checkpoint directory, the checkpoint before stays for
    --resume, and a failure at the first checkpoint leaves nothing."""
    from spacy_ctxvec.building import checkpoints as checkpoint_module

    written = checkpoint_module._write_shard
    calls = []

    def full_disk_at(n: int):
        def write(path, checkpoint, fingerprint):
            calls.append(path)
            written(path, checkpoint, fingerprint)
            if len(calls) == n:
                raise OSError(28, "No space left on device")

        return write

    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    out, checkpoints = tmp_path / "out", tmp_path / "out.checkpoint"
    monkeypatch.setattr(checkpoint_module, "_write_shard", full_disk_at(2))
    with pytest.raises(CtxvecError) as failed:
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    message = str(failed.value)
    assert "[CTX-E703] The checkpoint directory" in message and "No space left on device" in message
    assert "The 5 documents counted so far are kept" in message
    assert "free space there and rerun with --resume" in message
    assert sorted(p.name for p in checkpoints.iterdir() if p.name.startswith(".tmp")) == [] and not out.exists()
    monkeypatch.setattr(checkpoint_module, "_write_shard", written)
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, resume=True))
    assert build.result.resumed_from == 5 and build.result.n_docs == 12
    calls.clear()
    monkeypatch.setattr(checkpoint_module, "_write_shard", full_disk_at(1))
    with pytest.raises(CtxvecError, match=r"\[CTX-E703\]") as failed:
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "again"))
    assert "kept" not in str(failed.value) and not (tmp_path / "again.checkpoint").exists()


def test_a_full_disk_at_output_after_counting_keeps_the_counts_for_resume(tiny_pipeline_dir, tmp_path, monkeypatch):
    """E703 said "nothing was changed there" of OUTPUT, but not that the counts stayed in the
    checkpoint directory, which then refused a plain rerun (E250)."""
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    out = tmp_path / "out"
    saving = Language.to_disk

    def full_disk(self, path, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Language, "to_disk", full_disk)
    with pytest.raises(CtxvecError) as failed:
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out))
    message = str(failed.value)
    assert "[CTX-E703] OUTPUT" in message and "The 12 documents counted are kept" in message
    assert "--resume writes OUTPUT from them" in message and not out.exists()
    monkeypatch.setattr(Language, "to_disk", saving)
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, out, resume=True))
    assert build.result.resumed_from == 12 and (out / "config.cfg").exists()


def test_a_corpus_in_a_script_the_tokenizer_does_not_split_warns_w072(tiny_pipeline_dir, tmp_path):
    """Chinese under an English pipeline built a lexicon of clauses, none with senses, and
    said nothing; a few names in another script are no reason to warn."""
    from spacy_ctxvec.workflows.lexicon_build import unsplit_script_warning

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("我去银行存钱了。\n他很生气。\n河岸边的银行很美。\nthe bank\n" * 3, encoding="utf8")
    build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out"))
    (warning,) = [w for w in build.warnings if "W072" in w]
    assert "'我去银行存钱了'" in warning and "(lang 'en') does not split Chinese or Japanese" in warning
    assert 'segmenter = "jieba"' in warning
    assert unsplit_script_warning(["东京"] + [f"w{i}" for i in range(100)], "en") == []  # under 5% of the types
    assert unsplit_script_warning(["我去银行"], "zh") == []  # split by a Chinese pipeline


def test_utf16_read_in_the_wrong_byte_order_warns_w084_and_not_w072(tiny_pipeline_dir, tmp_path):
    """Plain text read as UTF-16 in the other byte order looks like runs of CJK: W072 followed W084
    and advised a Chinese tokenizer; W084 alone says what is wrong."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(("The river bank was muddy after the flood.\n" * 12).encode("utf-16-be"))
    with pytest.warns(UserWarning, match=r"CTX-W084.*it is utf-16-be"):
        build = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out", encoding="utf-16-le"))
    assert not [w for w in build.warnings if "W072" in w]


def test_the_saved_pipeline_records_how_its_lexicon_was_built(tiny_pipeline_dir, tmp_path):
    """meta.json said nothing of the corpus, the versions or the settings that change a
    lexicon's last bits: a published lexicon could not be rebuilt from its own files."""
    import srsly

    from spacy_ctxvec import __version__

    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out", batch_size=4))
    record = srsly.read_json(tmp_path / "out" / "meta.json")["spacy_ctxvec_build"]
    assert record["versions"]["spacy_ctxvec"] == __version__ and record["corpus"] == str(corpus)
    assert record["documents"] == 12 and record["tokens"] > 12
    assert record["settings"]["batch_size"] == 4 and record["settings"]["engine"] == "local"
    assert spacy.load(tmp_path / "out").meta["spacy_ctxvec_build"] == record
    (tmp_path / "copy.txt").write_bytes(corpus.read_bytes())
    build_lexicon_pipeline(request(tiny_pipeline_dir, tmp_path / "copy.txt", tmp_path / "again"))
    again = srsly.read_json(tmp_path / "again" / "meta.json")["spacy_ctxvec_build"]
    assert again["documents_sha256"] == record["documents_sha256"] and len(record["documents_sha256"]) == 64
    (tmp_path / "other.txt").write_text("another text\n" + corpus.read_text(encoding="utf8"), encoding="utf8")
    build_lexicon_pipeline(request(tiny_pipeline_dir, tmp_path / "other.txt", tmp_path / "other"))
    other = srsly.read_json(tmp_path / "other" / "meta.json")["spacy_ctxvec_build"]
    assert other["documents_sha256"] != record["documents_sha256"] and other["documents"] == 13


def test_a_document_over_max_length_is_e272_and_leaves_nothing_or_is_skipped(tiny_pipeline_dir, tmp_path):
    """A 1.3 MB line: spaCy's ValueError E088 came as a traceback, and the build left its
    empty checkpoint folder behind; then E270 named neither file nor line and stopped the
    build under --on-error skip too."""
    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    with corpus.open("a", encoding="utf8") as handle:
        handle.write("bank " * 260_000 + "\n")
    write_corpus(tmp_path / "tail.txt", 2)
    corpus.write_text(corpus.read_text(encoding="utf8") + (tmp_path / "tail.txt").read_text(encoding="utf8"))
    said = r"E272\] .*corpus.txt, line 4: a document of 1,300,000 characters, over the pipeline's nlp.max_length"
    with pytest.raises(CtxvecError, match=said + r" \(1,000,000\).*--on-error skip"):
        build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out", checkpoint_every=100))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus.txt", "tail.txt"]
    skipped = build_lexicon_pipeline(request(tiny_pipeline_dir, corpus, tmp_path / "out", on_error="skip"))
    assert skipped.result.n_docs == 5
    assert [(line.line, line.reason[:10]) for line in skipped.result.skipped_lines] == [(4, "[CTX-E272]")]


def test_any_failure_before_the_first_checkpoint_leaves_nothing(tiny_pipeline_dir, tmp_path):
    """A failure that is not spacy-ctxvec's own (a user's component raising ValueError) left the
    empty checkpoint folder behind; the docs say a build failed before its first checkpoint leaves nothing."""
    failing = pipeline_with(tiny_pipeline_dir, tmp_path / "failing", "test_fails")
    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    with pytest.raises(ValueError, match="component of the user's pipeline"):
        build_lexicon_pipeline(request(failing, corpus, tmp_path / "out"))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus.txt", "failing"]


@pytest.mark.parametrize(
    "option,setting",
    [("--n-process", {"n_process": 2}), ("--resume", {"resume": True}), ("--max-docs", {"max_docs": 5})],
)
def test_the_local_engines_options_with_ray_are_e505_before_the_model_loads(tmp_path, option, setting):
    """They were E505 only once the pipeline had loaded (seconds here, minutes for a large model)."""
    from spacy_ctxvec.workflows.lexicon_build import check_build_request

    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    no_pipeline = tmp_path / "no_such_pipeline"  # never loaded: the check comes first
    with pytest.raises(CtxvecError, match=rf"E505.*{option}"):
        check_build_request(request(no_pipeline, corpus, tmp_path / "out", engine="ray", **setting))


def test_a_sense_setting_refused_after_counting_says_the_counts_are_kept_for_resume(tiny_pipeline_dir, tmp_path):
    """n_directions over half the width is E603 once the lexicon is counted: the message said nothing
    of the checkpoint the build kept, which --resume continues once the setting is fixed."""
    nlp = spacy.load(tiny_pipeline_dir)
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "induction": {"n_directions": 30}})
    nlp.to_disk(tmp_path / "wide")
    corpus = write_corpus(tmp_path / "corpus.txt", 12)
    with pytest.raises(CtxvecError, match=r"E603.*n_directions.*documents counted are kept in .*rerun with --resume"):
        build_lexicon_pipeline(request(tmp_path / "wide", corpus, tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_resume_with_ray_on_a_finished_output_is_e505_not_e224(tmp_path):
    """E224 ("nothing to resume: --overwrite rebuilds") came first, and the rerun it asked
    for with --overwrite was then E505: Ray resumes nothing, whatever OUTPUT holds."""
    from spacy_ctxvec.outputs import BUILD_LEXICON, write_manifest
    from spacy_ctxvec.workflows.lexicon_build import check_build_request

    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    finished = tmp_path / "out"
    finished.mkdir()
    write_manifest(finished, BUILD_LEXICON)
    with pytest.raises(CtxvecError, match=r"E224"):  # the local engine: nothing to resume
        check_build_request(request(tmp_path / "no_such_pipeline", corpus, finished, resume=True))
    with pytest.raises(CtxvecError, match=r"E505.*--resume"):
        check_build_request(request(tmp_path / "no_such_pipeline", corpus, finished, engine="ray", resume=True))


def test_a_local_ray_pool_larger_than_the_machine_is_e503_before_the_model_loads(tmp_path, monkeypatch):
    """E503 came once the pipeline had loaded (minutes for a large model) and Ray was starting."""
    from spacy_ctxvec.workflows.lexicon_build import check_build_request

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    too_many = request(tmp_path / "no_such_pipeline", corpus, tmp_path / "out", engine="ray")
    with pytest.raises(CtxvecError, match=r"E503.*--num-workers 2 or fewer"):
        check_build_request(dataclasses.replace(too_many, ray={"num_workers": 3}))
    joining = dataclasses.replace(too_many, ray={"num_workers": 3, "address": "auto"})
    check_build_request(joining)  # a cluster's CPUs are counted once joined (E504)


def test_gpu_workers_on_a_machine_without_gpus_are_e504_before_the_model_loads(tmp_path, monkeypatch):
    """--gpus-per-worker without a GPU was E504 only once the pipeline had loaded and Ray had started."""
    import torch

    from spacy_ctxvec.workflows.lexicon_build import check_build_request

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    corpus = write_corpus(tmp_path / "corpus.txt", 3)
    on_ray = request(tmp_path / "no_such_pipeline", corpus, tmp_path / "out", engine="ray")
    with pytest.raises(
        CtxvecError,
        match=r"E504\] A local Ray on this machine \(its GPUs as torch sees them\) has 0 GPUs, but 1 worker with 1 GPU "
        r"needs 1\. Use --gpus-per-worker 0 \(workers on CPUs\)",
    ):
        check_build_request(dataclasses.replace(on_ray, ray={"num_workers": 1, "num_gpus_per_worker": 1.0}))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(
        CtxvecError,
        match=r"E504\] .* has 2 GPUs, but 2 workers with 1\.5 GPUs each need 3\. Use fewer GPUs per worker or fewer",
    ):
        check_build_request(dataclasses.replace(on_ray, ray={"num_workers": 2, "num_gpus_per_worker": 1.5}))
    check_build_request(dataclasses.replace(on_ray, ray={"num_workers": 2, "num_gpus_per_worker": 1.0}))
    joining = dataclasses.replace(on_ray, ray={"num_workers": 1, "num_gpus_per_worker": 4.0, "address": "auto"})
    check_build_request(joining)  # a cluster's GPUs are counted once joined (E504, W080)


def test_a_ray_builds_record_holds_its_gpus_per_worker(tmp_path):
    """A GPU's last bits differ from a CPU's: the record of a Ray build said nothing of them."""
    from spacy_ctxvec.building.engines import BuildResult
    from spacy_ctxvec.lexicon.statistics import Lexicon
    from spacy_ctxvec.workflows.lexicon_build import build_record

    result = BuildResult(Lexicon.empty(3), 1, 1, 0.0)
    on_ray = request(tmp_path / "p", tmp_path / "c.txt", tmp_path / "o", engine="ray")
    on_ray = dataclasses.replace(on_ray, ray={"num_gpus_per_worker": 0.5, "num_workers": 4})
    settings = build_record(on_ray, result)["settings"]
    assert settings["num_gpus_per_worker"] == 0.5 and "num_workers" not in settings
    assert settings["n_process"] is None  # the local engine's setting (it said 1 for a Ray build)
    local = build_record(request(tmp_path / "p", tmp_path / "c.txt", tmp_path / "o"), result)["settings"]
    assert "num_gpus_per_worker" not in local and local["engine"] == "local" and local["n_process"] == 1
