import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from spacy.language import Language

from spacy_ctxvec.building.checkpoints import LATEST_FILE
from spacy_ctxvec.building.local import LOG_REDRAW_S, REDRAW_S, _Progress, build_lexicon_local
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon

WORDS = ["the", "bank", "river", "loan", "money", "i", "have", "an", "apple", "pen", "play", "hotel", "we", "sat", "on"]


def write_corpus(path: Path, n_docs: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    lines = [" ".join(rng.choice(WORDS, size=rng.integers(3, 10))) for _ in range(n_docs)]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return path


@Language.component("test_strip_s_lemmas", assigns=["token.lemma"])
def strip_s_lemmas(doc):
    for token in doc:
        token.lemma_ = token.lower_.rstrip("s") or token.lower_
    return doc


@Language.component("test_declares_lemmas", assigns=["token.lemma"])
def declares_lemmas(doc):
    return doc


def test_local_build_with_checkpoints_and_in_process_resume(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 60)
    full = build_lexicon_local(tiny_nlp, corpus, shard_size=20, batch_size=8, progress=False)
    assert full.n_docs == 60
    checkpoints = tmp_path / "ckpt"
    first = build_lexicon_local(
        tiny_nlp, corpus, shard_size=20, batch_size=8, progress=False, checkpoint_dir=checkpoints, max_docs=None
    )
    assert first.lexicon == full.lexicon
    # pretend the run stopped after the first shard: keep only its checkpoint
    partial = build_lexicon_local(
        tiny_nlp, corpus, shard_size=20, batch_size=8, progress=False, checkpoint_dir=tmp_path / "ckpt2", max_docs=20
    )
    state_dir = tmp_path / "ckpt2"
    latest = (state_dir / LATEST_FILE).read_text().strip()
    state = json.loads((state_dir / latest / "state.json").read_text())
    assert state["docs_done"] == 20 and partial.n_docs == 20
    with pytest.raises(CtxvecError, match="E221.*max_docs"):
        build_lexicon_local(
            tiny_nlp, corpus, shard_size=20, batch_size=8, progress=False, checkpoint_dir=state_dir, resume=True
        )
    with pytest.raises(CtxvecError, match="E221.*shard_size"):
        build_lexicon_local(
            tiny_nlp,
            corpus,
            shard_size=10,
            batch_size=8,
            progress=False,
            checkpoint_dir=state_dir,
            resume=True,
            max_docs=20,
        )


def test_empty_corpus_is_an_error(tiny_nlp, tmp_path):
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E211"):
        build_lexicon_local(tiny_nlp, tmp_path / "empty.txt", progress=False)


@pytest.mark.slow
def test_spawned_worker_processes_give_the_same_counts(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 40)
    single = build_lexicon_local(tiny_nlp, corpus, shard_size=40, batch_size=8, progress=False)
    multi = build_lexicon_local(tiny_nlp, corpus, shard_size=40, batch_size=8, progress=False, n_process=2)
    assert multi.lexicon.keys == single.lexicon.keys
    np.testing.assert_array_equal(multi.lexicon.counts, single.lexicon.counts)
    np.testing.assert_allclose(multi.lexicon.self_similarity(), single.lexicon.self_similarity(), atol=1e-6)


@pytest.mark.slow
def test_resume_after_kill_9_is_identical_to_an_uninterrupted_build(tiny_nlp, tiny_pipeline_dir, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 400, seed=1)
    output = tmp_path / "out"
    checkpoints = tmp_path / "ckpt"
    command = [
        sys.executable,
        "-m",
        "spacy_ctxvec",
        "build-lexicon",
        str(tiny_pipeline_dir),
        str(corpus),
        str(output),
        "--checkpoint-every",
        "25",
        "--batch-size",
        "16",
        "--checkpoint-dir",
        str(checkpoints),
        "--no-progress",
        "--keep-layer",
        "--sample-size",
        "4",
        "--sample-min-count",
        "3",
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (checkpoints / LATEST_FILE).exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, process.stderr.read().decode()[-2000:]
    latest = (checkpoints / LATEST_FILE).read_text().strip()
    done = json.loads((checkpoints / latest / "state.json").read_text())["docs_done"]
    assert 0 < done < 400 and not output.exists()

    resumed = subprocess.run(command + ["--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"Resumed after {done} docs" in resumed.stdout
    uninterrupted = build_lexicon_local(
        tiny_nlp, corpus, shard_size=25, batch_size=16, progress=False, sample_size=4
    ).lexicon
    result = Lexicon.from_disk(output / "ctxvec_polysemy" / "lexicon")
    assert result.n_occurrences == uninterrupted.n_occurrences
    assert result == uninterrupted.prune_sample(3)  # bitwise: keys, counts, int64 sums and the occurrence sample
    assert result.sample.n_rows > 0 and all(
        n >= 3 for n, key in zip(result.counts, result.keys) if key in result.sample
    )
    assert not checkpoints.exists()


def test_build_stopped_by_bad_input_keeps_its_checkpoint_and_resumes_once_fixed(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 30, seed=3)
    lines = corpus.read_text(encoding="utf8").splitlines()
    corpus.write_bytes(
        "\n".join(lines[:25]).encode("utf8") + b"\n\xff broken bytes\n" + "\n".join(lines[25:]).encode("utf8") + b"\n"
    )
    checkpoints = tmp_path / "ckpt"
    options = dict(shard_size=10, batch_size=8, progress=False, checkpoint_dir=checkpoints)
    with pytest.raises(CtxvecError, match=r"E240.*c\.txt, line 26"):
        build_lexicon_local(tiny_nlp, corpus, **options)
    latest = (checkpoints / LATEST_FILE).read_text().strip()
    assert json.loads((checkpoints / latest / "state.json").read_text())["docs_done"] == 20
    with pytest.raises(CtxvecError, match=r"E240.*line 26"):  # resuming the unfixed corpus stops at the same line
        build_lexicon_local(tiny_nlp, corpus, resume=True, **options)
    corpus.write_text("\n".join(lines[:25] + ["the bank fixed"] + lines[25:]) + "\n", encoding="utf8")
    resumed = build_lexicon_local(tiny_nlp, corpus, resume=True, **options)
    assert resumed.resumed_from == 20 and resumed.n_docs == 31
    uninterrupted = build_lexicon_local(tiny_nlp, corpus, shard_size=10, batch_size=8, progress=False)
    assert resumed.lexicon == uninterrupted.lexicon  # bitwise


def test_resume_refuses_when_counted_documents_changed(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 20, seed=4)
    options = dict(shard_size=10, batch_size=8, progress=False, checkpoint_dir=tmp_path / "ckpt")
    build_lexicon_local(tiny_nlp, corpus, max_docs=10, **{**options, "checkpoint_dir": tmp_path / "ckpt"})
    lines = corpus.read_text(encoding="utf8").splitlines()
    corpus.write_text("\n".join(["a changed first document"] + lines[1:]) + "\n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E221.*first 10 documents"):
        build_lexicon_local(tiny_nlp, corpus, max_docs=10, resume=True, **options)
    corpus.write_text("\n".join(lines[:5]) + "\n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E221.*now has 5 documents"):
        build_lexicon_local(tiny_nlp, corpus, max_docs=10, resume=True, **options)


def test_checkpoint_dir_with_user_files_is_refused_and_kept(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 5)
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / "thesis.tex").write_text("years of work", encoding="utf8")
    with pytest.raises(CtxvecError, match="E244"):
        build_lexicon_local(tiny_nlp, corpus, progress=False, checkpoint_dir=work)
    assert (work / "sub" / "thesis.tex").read_text(encoding="utf8") == "years of work"
    assert sorted(p.name for p in work.rglob("*")) == ["sub", "thesis.tex"]


def test_latin1_corpus_with_encoding_counts_like_its_utf8_copy(tiny_nlp, tmp_path):
    text = "the caf\u00e9 by the river bank\nwe sat on the bank\nna\u00efve loan at the bank\n"
    (tmp_path / "latin.txt").write_bytes(text.encode("latin-1"))
    (tmp_path / "utf8.txt").write_text(text, encoding="utf8")
    latin = build_lexicon_local(tiny_nlp, tmp_path / "latin.txt", progress=False, encoding="latin-1")
    assert latin.lexicon == build_lexicon_local(tiny_nlp, tmp_path / "utf8.txt", progress=False).lexicon
    skipped = build_lexicon_local(tiny_nlp, tmp_path / "latin.txt", progress=False, on_error="skip")
    assert skipped.n_docs == 1 and [(path, line) for path, line, _ in skipped.skipped_lines] == [
        (str(tmp_path / "latin.txt"), 1),
        (str(tmp_path / "latin.txt"), 3),
    ]
    assert skipped.skipped_lines[0].reason.startswith("[CTX-E240] not valid utf-8 text (byte 0xe9 at character")


# Occurrence samples (issue 11): the same sample whatever the shards, processes or resumes
def assert_same_sample(a, b) -> None:
    """Same rows chosen (keys, priorities, snippets: exact); vectors equal up to float16
    rounding of the float noise between processes with other thread counts."""
    assert (a.k, a.keys, a.snippets) == (b.k, b.keys, b.snippets)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.priorities, b.priorities)
    np.testing.assert_allclose(a.vectors.astype(np.float32), b.vectors.astype(np.float32), atol=2e-3, rtol=2e-3)
    assert a.has_contexts == b.has_contexts
    if a.has_contexts:
        np.testing.assert_allclose(a.contexts.astype(np.float32), b.contexts.astype(np.float32), atol=2e-3, rtol=2e-3)


def test_sample_is_the_same_with_other_shards_and_after_resume(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 60, seed=5)
    options = dict(batch_size=8, progress=False, sample_size=3)
    full = build_lexicon_local(tiny_nlp, corpus, shard_size=20, **options).lexicon
    assert full.sample is not None and full.sample.k == 3 and set(full.sample.keys) == set(full.keys)
    other_shards = build_lexicon_local(tiny_nlp, corpus, shard_size=8, **options).lexicon
    assert_same_sample(other_shards.sample, full.sample)
    # a build stopped by a bad line after two shards, resumed once the line is fixed
    lines = corpus.read_text(encoding="utf8").splitlines()
    corpus.write_bytes(
        "\n".join(lines[:45]).encode("utf8") + b"\n\xff broken\n" + "\n".join(lines[45:]).encode("utf8") + b"\n"
    )
    checkpoints = tmp_path / "ckpt"
    with pytest.raises(CtxvecError, match="E240"):
        build_lexicon_local(tiny_nlp, corpus, shard_size=20, checkpoint_dir=checkpoints, **options)
    corpus.write_text("\n".join(lines) + "\n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E221.*sample_size"):
        build_lexicon_local(
            tiny_nlp, corpus, shard_size=20, checkpoint_dir=checkpoints, resume=True, **{**options, "sample_size": 5}
        )
    with pytest.raises(CtxvecError, match="E221.*sample_contexts"):
        build_lexicon_local(
            tiny_nlp, corpus, shard_size=20, checkpoint_dir=checkpoints, resume=True, **options, sample_contexts=False
        )
    resumed = build_lexicon_local(tiny_nlp, corpus, shard_size=20, checkpoint_dir=checkpoints, resume=True, **options)
    assert resumed.resumed_from == 40
    assert resumed.lexicon == full  # bitwise, sample included
    assert full.sample.has_contexts
    plain = build_lexicon_local(tiny_nlp, corpus, shard_size=20, sample_contexts=False, **options).lexicon
    assert (
        not plain.sample.has_contexts and plain.sample == full.sample.without_contexts()
    )  # the same rows, no contexts
    with pytest.raises(CtxvecError, match="E228.*sample_size"):
        build_lexicon_local(tiny_nlp, corpus, progress=False, sample_size=-1)


@pytest.mark.slow
def test_spawned_worker_processes_give_the_same_sample(tiny_nlp, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", 40, seed=6)
    single = build_lexicon_local(tiny_nlp, corpus, shard_size=40, batch_size=8, progress=False, sample_size=3)
    multi = build_lexicon_local(
        tiny_nlp, corpus, shard_size=40, batch_size=8, progress=False, n_process=2, sample_size=3
    )
    assert_same_sample(multi.lexicon.sample, single.lexicon.sample)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_waits_for_the_first_batch_without_a_rate_and_shows_a_batch_whole():
    """nlp.pipe hands documents over a batch at a time: the bar said "1doc [00:41,
    41.79s/doc]" (the whole first batch's time as one document's) and kept that frame
    until the next batch. It now says it waits for the first batch, shows no rate until
    documents come, never draws the first one alone, and is redrawn while the model runs,
    so a batch's last documents show before the next batch is done."""
    out = Terminal()
    bar = _Progress(True, 0, file=out)
    try:
        time.sleep(REDRAW_S + 0.3)  # the model on its first batch: the bar keeps its clock going
        waiting = [frame for frame in out.getvalue().split("\r") if frame.strip()]
        assert len(waiting) >= 2 and all("0doc" in f and "waiting for the model's first batch" in f for f in waiting)
        assert not any("doc/s" in f or "s/doc" in f for f in waiting)
        mark = len(out.getvalue())
        for _ in range(258):  # one batch, handed over at once
            bar.update(1, 10)
        drawn = out.getvalue()[mark:]
        assert "1doc" not in drawn.replace("\r", " ").split()  # the first document is not drawn alone
        time.sleep(REDRAW_S + 0.3)
        last = out.getvalue().rsplit("\r", 1)[-1]
        assert "258doc" in last and "doc/s" in last and "waiting" not in last, last
    finally:
        bar.close()


def test_the_token_rate_drawn_is_the_current_one_not_the_last_updates():
    """The bar drew "2001doc [02:37, 12.74doc/s, tokens_per_s=1,298]" after a long wait for a
    buffer: the update drew before it computed the rate, so it showed the previous update's."""
    import re

    out = Terminal()
    bar = _Progress(True, 0, file=out)
    try:
        bar.update(10, 1000)  # a first buffer, fast
        time.sleep(1.0)  # the model on the next one: no documents
        bar.update(1, 0)
        time.sleep(0.3)
        last = out.getvalue().rsplit("\r", 1)[-1]
        rate = float(re.search(r"tokens_per_s=([\d,]+)", last).group(1).replace(",", ""))
        assert "11doc" in last and rate < 1000 / 0.9, last  # 1,000 tokens in over a second
    finally:
        bar.close()


def test_a_resumed_builds_bar_says_so_from_the_start():
    """The resume was said only at the end of the build, after the senses summary."""
    out = Terminal()
    bar = _Progress(True, 400, file=out)
    try:
        time.sleep(0.3)
        first = [frame for frame in out.getvalue().split("\r") if frame.strip()][0]
        assert first.startswith("build-lexicon (resumed after 400): 400doc")
    finally:
        bar.close()


def test_progress_off_a_terminal_is_drawn_seldom():
    """stderr sent to a log file got a frame every second while the model ran (and one per
    tqdm update): off a terminal the bar is drawn at most every LOG_REDRAW_S, and once more
    at the end with the whole count, each frame a line of its own (no carriage returns)."""
    out = io.StringIO()
    bar = _Progress(True, 0, file=out)
    try:
        time.sleep(REDRAW_S + 0.5)
        for _ in range(100):
            bar.update(1, 10)
            time.sleep(0.005)
        frames = out.getvalue().splitlines()
        assert len(frames) == 1 and "waiting" in frames[0], frames
    finally:
        bar.close()
    assert "\r" not in out.getvalue() and out.getvalue().endswith("\n")
    frames = out.getvalue().splitlines()
    assert len(frames) == 2 and "100doc" in frames[-1], frames


def test_the_ray_build_draws_its_bar_as_the_local_one(monkeypatch):
    """The Ray build's bar wrote carriage returns into a log file every 0.1 s; both bars take
    bar_output: a terminal as it is, anything else one line per LOG_REDRAW_S."""
    from spacy_ctxvec.building.local import LogLines, bar_output

    terminal = Terminal()
    assert bar_output(terminal) == {"file": terminal, "mininterval": 0.1}
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    shown = bar_output()
    assert isinstance(shown["file"], LogLines) and shown["mininterval"] == LOG_REDRAW_S
    shown["file"].write("\rbuild-lexicon (ray): 5doc   ")
    shown["file"].write("\r" + " " * 20 + "\r")  # tqdm clearing its line: nothing
    assert log.getvalue() == "build-lexicon (ray): 5doc\n"


def test_a_checkpoint_from_before_passage_priorities_or_distinct_snippets_is_refused_up_front(tiny_nlp, tmp_path):
    """Its sample (one row per occurrence priority) would not merge with the new shards'
    (E261 after the next shard): the fingerprint refuses it before any counting (E221)."""
    import json

    from spacy_ctxvec.building.checkpoints import STATE_FILE

    corpus = write_corpus(tmp_path / "c.txt", 30, seed=6)
    options = dict(batch_size=8, progress=False, sample_size=3)
    lines = corpus.read_text(encoding="utf8").splitlines()
    corpus.write_bytes("\n".join(lines[:25]).encode("utf8") + b"\n\xff broken\n")
    checkpoints = tmp_path / "ckpt"
    with pytest.raises(CtxvecError, match="E240"):
        build_lexicon_local(tiny_nlp, corpus, shard_size=10, checkpoint_dir=checkpoints, **options)
    corpus.write_text("\n".join(lines) + "\n", encoding="utf8")
    (state_file,) = checkpoints.glob(f"shard-*/{STATE_FILE}")
    state = json.loads(state_file.read_text(encoding="utf8"))
    assert state["fingerprint"]["sample_priorities"] == "passage, distinct snippets, snippets from a word"
    # before snippets began at a word (an old checkpoint's snippets merged with new ones kept
    # occurrences twice: upgrade walkthrough); before distinct snippets; before passage priorities;
    # before glued words were left out and contexts stopped at sentences (counted another way)
    current = dict(state["fingerprint"])
    older_ones = [("sample_priorities", "passage, distinct snippets"), ("sample_priorities", "passage")]
    for field, older in [*older_ones, ("sample_priorities", None), ("counting", None)]:
        state["fingerprint"] = {**current, field: older}
        if older is None:
            del state["fingerprint"][field]
        state_file.write_text(json.dumps(state), encoding="utf8")
        with pytest.raises(CtxvecError) as refused:
            build_lexicon_local(tiny_nlp, corpus, shard_size=10, checkpoint_dir=checkpoints, resume=True, **options)
        message = " ".join(str(refused.value).split())
        assert "E221" in message and f"{field} (no option: a checkpoint written by an older" in message
        # no setting of this version continues it: the message does not say to rerun with its settings
        assert "This version of spacy-ctxvec cannot continue it" in message
        assert "rerun with --resume and the settings" not in message


def test_resume_without_a_checkpoint_says_it_starts_from_the_first_document(tiny_nlp, tmp_path):
    """A mistyped OUTPUT with --resume built from scratch without a word (only a missing
    "Resumed after N docs" line at the end told)."""
    corpus = write_corpus(tmp_path / "c.txt", 12)
    with pytest.warns(UserWarning, match=r"\[CTX-W047\] --resume: there is no checkpoint in '.*nothing-here'"):
        result = build_lexicon_local(
            tiny_nlp, corpus, batch_size=8, progress=False, checkpoint_dir=tmp_path / "nothing-here", resume=True
        )
    assert result.resumed_from == 0 and result.n_docs == 12


def test_progress_with_max_docs_shows_a_total_and_ends_where_the_corpus_does():
    """With --max-docs the bar had no total, so no percentage or time left; a corpus
    shorter than --max-docs ends the bar at 100%, an interrupted build does not."""
    out = io.StringIO()
    bar = _Progress(True, 0, file=out, total=1000)
    for _ in range(300):
        bar.update(1, 10)
    bar.close(finished=True)
    assert "300/300" in out.getvalue().rsplit("\r", 1)[-1]
    out = io.StringIO()
    bar = _Progress(True, 0, file=out, total=1000)
    for _ in range(300):
        bar.update(1, 10)
    bar.close()
    last = out.getvalue().rsplit("\r", 1)[-1]
    assert "300/1000" in last and "30%" in last, last


def test_checkpoints_follow_every_shard_while_quick_and_are_spaced_out_when_slow(tiny_nlp, tmp_path, monkeypatch):
    """A checkpoint holds the whole lexicon and sample, so its write grows with the corpus: once
    writing is slow, checkpoints are spaced out; the last shard's counts are always written, and
    the lexicon is the same."""
    from spacy_ctxvec.building import local

    schedule = local.CheckpointSchedule(docs_written=0, fingerprint={})
    assert schedule.due(now=schedule.last_end)  # quick writes (none yet): after every shard
    schedule.last_write_s = 2.0
    assert not schedule.due(now=schedule.last_end + 37.9) and schedule.due(now=schedule.last_end + 38.0)

    corpus = write_corpus(tmp_path / "c.txt", 60)
    settings = dict(shard_size=10, batch_size=8, progress=False, sample_size=4)
    written = []
    real_write = local.write_checkpoint
    monkeypatch.setattr(local, "write_checkpoint", lambda d, c, f: written.append(c.docs_done) or real_write(d, c, f))
    build_lexicon_local(tiny_nlp, corpus, checkpoint_dir=tmp_path / "quick", **settings)
    assert written == [10, 20, 30, 40, 50, 60]
    written.clear()
    monkeypatch.setattr(local, "SLOW_WRITE_S", 0.0)  # every write counts as slow
    monkeypatch.setattr(local, "CHECKPOINT_RATIO", 1e9)
    spaced = build_lexicon_local(tiny_nlp, corpus, checkpoint_dir=tmp_path / "slow", **settings)
    assert written == [10, 60] and spaced.lexicon == build_lexicon_local(tiny_nlp, corpus, **settings).lexicon
    latest = (tmp_path / "slow" / LATEST_FILE).read_text().strip()
    assert json.loads((tmp_path / "slow" / latest / "state.json").read_text())["docs_done"] == 60
    lines = corpus.read_bytes().split(b"\n")
    lines[54] = b"bad \xff\xfe bytes"  # a build stopped by bad input keeps every shard it counted
    corpus.write_bytes(b"\n".join(lines))
    written.clear()
    with pytest.raises(CtxvecError, match="E240"):
        build_lexicon_local(tiny_nlp, corpus, checkpoint_dir=tmp_path / "bad", **settings)
    assert written == [10, 50]
    lines[54] = b"bank " * 30  # over max_length (E272): the same
    corpus.write_bytes(b"\n".join(lines))
    written.clear()
    monkeypatch.setattr(tiny_nlp, "max_length", 100)
    with pytest.raises(CtxvecError, match="E272.*line 55"):
        build_lexicon_local(tiny_nlp, corpus, checkpoint_dir=tmp_path / "long", **settings)
    assert written == [10, 50]


def test_shards_merged_in_groups_give_the_lexicon_merged_shard_by_shard(tiny_nlp, tmp_path, monkeypatch):
    from spacy_ctxvec.building import local

    corpus = write_corpus(tmp_path / "c.txt", 50, seed=3)
    settings = dict(shard_size=5, batch_size=4, progress=False, sample_size=3)
    monkeypatch.setattr(local, "PENDING_SHARE", 0.0)  # each shard merged at once
    one_by_one = build_lexicon_local(tiny_nlp, corpus, **settings)
    monkeypatch.setattr(local, "PENDING_SHARE", 1e9)  # all merged at the end
    grouped = build_lexicon_local(tiny_nlp, corpus, **settings)
    assert grouped.lexicon == one_by_one.lexicon and grouped.lexicon.sample is not None
    assert grouped.lexicon.n_occurrences == grouped.n_tokens
