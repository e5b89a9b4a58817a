import json
import os

import numpy as np
import pytest
import spacy

from spacy_ctxvec.building.checkpoints import (
    CHECKPOINT_MARKER,
    LATEST_FILE,
    SAMPLE_PRIORITIES,
    Checkpoint,
    CheckpointRefused,
    build_fingerprint,
    check_checkpoint_dir,
    counting_config,
    open_checkpoint_dir,
    read_checkpoint,
    remove_checkpoint_dir,
    write_checkpoint,
)
from spacy_ctxvec.components.polysemy import ensure_polysemy_component
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.outputs import BUILD_LEXICON, made_by_command

from .test_data_files import write_npy_header

FINGERPRINT = {"key": "lower", "shard_size": 2}


def small_lexicon(seed: int = 0) -> Lexicon:
    vectors = np.random.default_rng(seed).normal(size=(5, 4))
    return Lexicon.from_occurrences(["a", "b", "a", "c", "b"], vectors)


def user_files(directory):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "notes.txt").write_text("mine", encoding="utf8")
    (directory / "shard-stuff").mkdir()
    (directory / "shard-stuff" / "keep.txt").write_text("mine too", encoding="utf8")
    (directory / "shard-000000000001").mkdir()  # named like a shard, but not made by build-lexicon
    (directory / "shard-000000000001" / "data").write_text("also mine", encoding="utf8")
    return sorted(p.relative_to(directory) for p in directory.rglob("*"))


def test_a_directory_with_user_files_is_refused_and_untouched(tmp_path):
    work = tmp_path / "work"
    before = user_files(work)
    for check in (
        lambda: check_checkpoint_dir(work),
        lambda: open_checkpoint_dir(work, resume=False),
        lambda: open_checkpoint_dir(work, resume=True),
    ):
        with pytest.raises(CtxvecError, match=r"E244.*work.*not empty"):
            check()
    assert not remove_checkpoint_dir(work)
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == before
    file = tmp_path / "file"
    file.write_text("x", encoding="utf8")
    with pytest.raises(CtxvecError, match="E247"):
        check_checkpoint_dir(file)
    (work / ".spacy-ctxvec-output").write_text("{}", encoding="utf8")  # a command's OUTPUT, e.g. a lexicon
    with pytest.raises(CtxvecError, match=r"E244.*work' is not empty and is a command's output, not a checkpoint"):
        check_checkpoint_dir(work)


def test_own_directory_is_created_marked_and_removed(tmp_path):
    directory = tmp_path / "new" / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    marker = json.loads((directory / CHECKPOINT_MARKER).read_text(encoding="utf8"))
    assert marker == {"made_by": "spacy-ctxvec build-lexicon", "created_directory": True, "created_parents": 1}
    assert marker["made_by"] == made_by_command(BUILD_LEXICON)  # as build-lexicon's OUTPUT marker has it
    write_checkpoint(directory, Checkpoint(2, small_lexicon(), 5, "abc"), FINGERPRINT)
    write_checkpoint(directory, Checkpoint(4, small_lexicon(1), 5, "def"), FINGERPRINT)
    assert sorted(p.name for p in directory.iterdir()) == [CHECKPOINT_MARKER, LATEST_FILE, "shard-000000000004"]
    assert remove_checkpoint_dir(directory)
    assert not directory.exists() and not directory.parent.exists()  # the folder made for it too
    assert tmp_path.exists()


def test_a_folder_made_for_the_checkpoints_that_holds_something_else_is_kept(tmp_path):
    directory = tmp_path / "new" / "sub" / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    (tmp_path / "new" / "notes.txt").write_text("mine", encoding="utf8")
    assert remove_checkpoint_dir(directory)
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["notes.txt"]


def test_an_empty_user_directory_is_used_but_kept(tmp_path):
    directory = tmp_path / "empty"
    directory.mkdir()
    open_checkpoint_dir(directory, resume=False)
    write_checkpoint(directory, Checkpoint(2, small_lexicon(), 5, "abc"), FINGERPRINT)
    (directory / "added-later.txt").write_text("user file written during the build", encoding="utf8")
    remove_checkpoint_dir(directory)
    assert [p.name for p in directory.iterdir()] == ["added-later.txt"]


def test_round_trip_and_mismatching_build(tmp_path):
    directory = tmp_path / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    lexicon = small_lexicon()
    write_checkpoint(directory, Checkpoint(2, lexicon, lexicon.n_occurrences, "abc"), FINGERPRINT)
    state = read_checkpoint(directory, FINGERPRINT)
    assert (state.docs_done, state.n_tokens, state.docs_sha256) == (2, 5, "abc") and state.lexicon == lexicon
    # Each differing setting with its option and both values, and what to do instead.
    expected = (
        r'E221.*other settings: key \(--key\): "lower" in the checkpoint, "text" now; '
        r"shard_size \(--checkpoint-every\): 2 in the checkpoint, 3 now\. To continue it, rerun with --resume "
        r".*start over: rerun without --resume and with --overwrite \(its 2 counted documents are deleted\)"
    )
    with pytest.raises(CheckpointRefused, match=expected):
        read_checkpoint(directory, {**FINGERPRINT, "shard_size": 3, "key": "text"})
    with pytest.raises(CtxvecError, match=r"sample_size \(--sample-size\): 0 in the checkpoint, 64 now"):
        read_checkpoint(directory, {**FINGERPRINT, "sample_size": 64})
    # a checkpoint without a sample resumed with one (the build's --sample-size, not the version):
    # rerun with its settings, and no line about how samples are drawn (review)
    sampled = {**FINGERPRINT, "sample_size": 64, "sample_contexts": True, "sample_priorities": SAMPLE_PRIORITIES}
    with pytest.raises(CtxvecError) as other_size:
        read_checkpoint(directory, sampled)
    message = " ".join(str(other_size.value).split())
    assert "To continue it, rerun with --resume and the settings" in message
    assert "sample_priorities" not in message and "sample_contexts" not in message
    open_checkpoint_dir(directory, resume=False)  # a new build starts over: own entries go
    assert read_checkpoint(directory, FINGERPRINT) is None


def damage_latest_missing(shard):
    (shard.parent / LATEST_FILE).write_text("shard-000000000099", encoding="utf8")


def damage_latest_outside(shard):
    (shard.parent / LATEST_FILE).write_text("../../etc", encoding="utf8")


def damage_state_json(shard):
    (shard / "state.json").write_text('{"docs_done": 2, "n_tok', encoding="utf8")


def damage_state_keys(shard):
    (shard / "state.json").write_text(json.dumps({"docs_done": 2}), encoding="utf8")


def damage_npy(shard):
    data = (shard / "unit_sums.npy").read_bytes()
    (shard / "unit_sums.npy").write_bytes(data[: len(data) - 8])


def damage_npy_header(shard):  # numpy let tokenize.TokenError out
    write_npy_header(shard / "counts.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (7L,), '''")


def damage_state_huge_counts(shard):  # above sys.maxsize: islice refused docs_done on --resume
    state = json.loads((shard / "state.json").read_text(encoding="utf8"))
    (shard / "state.json").write_text(json.dumps({**state, "docs_done": 10**30, "n_tokens": 10**30}), encoding="utf8")


def damage_keys_json(shard):
    (shard / "keys.json").write_text('["a", ', encoding="utf8")


def damage_lexicon_json(shard):
    (shard / "lexicon.json").write_text(json.dumps({"format_version": 1}), encoding="utf8")


@pytest.mark.parametrize(
    "damage,problem",
    [
        (damage_latest_missing, "names 'shard-000000000099', which does not exist"),
        (damage_latest_outside, "not a shard"),
        (damage_state_json, "state.json' is missing or not valid JSON"),
        (damage_state_keys, "lacks valid n_tokens, docs_sha256, fingerprint"),
        (damage_npy, "unit_sums.npy is truncated"),
        (damage_npy_header, "counts.npy is truncated or not a .npy array.*TokenError"),
        (damage_state_huge_counts, "lacks valid docs_done, n_tokens"),
        (damage_keys_json, "keys.json is not valid JSON"),
        (damage_lexicon_json, "unsupported format"),
    ],
)
def test_damaged_checkpoint_is_a_coded_error_naming_the_path(tmp_path, damage, problem):
    directory = tmp_path / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    lexicon = small_lexicon()
    write_checkpoint(directory, Checkpoint(2, lexicon, lexicon.n_occurrences, "abc"), FINGERPRINT)
    damage(directory / "shard-000000000002")
    with pytest.raises(CtxvecError, match=r"E248.*ckpt.*" + problem):
        read_checkpoint(directory, FINGERPRINT)


def test_fingerprint_ignores_min_count_but_not_the_counting_pipeline():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ensure_polysemy_component(nlp, "lower", 5)
    with_five = build_fingerprint(nlp, key="lower", batch_size=8, shard_size=10, n_process=1, max_docs=None)
    ensure_polysemy_component(nlp, "lower", 2)
    assert nlp.get_pipe("ctxvec_polysemy").min_count == 2
    assert build_fingerprint(nlp, key="lower", batch_size=8, shard_size=10, n_process=1, max_docs=None) == with_five
    before = counting_config(nlp).to_str()
    nlp.add_pipe("sentencizer", name="second", config={"punct_chars": ["|"]})
    assert counting_config(nlp).to_str() != before


def test_a_changed_pipeline_setting_is_named(tmp_path):
    """A resume after changing a pipeline setting (e.g. build-lexicon --layer) names it."""
    settings = {"key": "lower", "batch_size": 8, "shard_size": 10, "n_process": 1, "max_docs": None}
    before, after = spacy.blank("en"), spacy.blank("en")
    before.add_pipe("sentencizer", config={"punct_chars": ["."]})
    after.add_pipe("sentencizer", config={"punct_chars": ["!"]})
    saved = build_fingerprint(before, **settings)
    directory = tmp_path / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    write_checkpoint(directory, Checkpoint(2, small_lexicon(), 5, "abc"), saved)
    changed = build_fingerprint(after, **settings)
    expected = r'E221.*\[components.sentencizer\] punct_chars: \["\."\] in the checkpoint, \["!"\] now'
    with pytest.raises(CtxvecError, match=expected):
        read_checkpoint(directory, changed)
    # a checkpoint written before the config text was kept names the digest only
    older = {k: v for k, v in saved.items() if k != "pipeline_config"}
    write_checkpoint(directory, Checkpoint(2, small_lexicon(), 5, "abc"), older)
    with pytest.raises(CtxvecError, match="E221.*pipeline_config_sha256 differs"):
        read_checkpoint(directory, changed)
    assert read_checkpoint(directory, saved).docs_done == 2  # and it still resumes unchanged


def test_a_user_file_put_inside_a_shard_survives_rotation_and_cleanup(tmp_path):
    """The shard's manifest lists what build-lexicon wrote; a shard holding more is kept (W051)."""
    directory = tmp_path / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    write_checkpoint(directory, Checkpoint(2, small_lexicon(), 5, "abc"), FINGERPRINT)
    mine = directory / "shard-000000000002" / "my-notes.txt"
    mine.write_text("written by the user during the build", encoding="utf8")
    with pytest.warns(UserWarning, match=r"W051.*shard-000000000002.*files it did not write \('my-notes.txt'\)"):
        write_checkpoint(directory, Checkpoint(4, small_lexicon(1), 5, "def"), FINGERPRINT)
    assert mine.read_text(encoding="utf8") == "written by the user during the build"
    assert read_checkpoint(directory, FINGERPRINT).docs_done == 4  # the new shard is the checkpoint
    with pytest.warns(UserWarning, match="W051"):
        assert not remove_checkpoint_dir(directory)
    assert sorted(p.name for p in directory.iterdir()) == ["shard-000000000002"] and mine.is_file()


def test_a_shard_changed_by_the_user_is_kept_and_one_to_be_rewritten_is_a_coded_error(tmp_path):
    directory = tmp_path / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    write_checkpoint(directory, Checkpoint(2, small_lexicon(), 5, "abc"), FINGERPRINT)
    state = directory / "shard-000000000002" / "state.json"
    state.write_text(state.read_text(encoding="utf8") + " ", encoding="utf8")
    with pytest.warns(UserWarning, match=r"W051.*files changed since it wrote them \('state.json'\)"):
        with pytest.raises(CtxvecError, match=r"E251.*shard-000000000002.*did not write"):
            write_checkpoint(directory, Checkpoint(2, small_lexicon(1), 5, "abc"), FINGERPRINT)
    assert state.is_file() and not [p for p in directory.iterdir() if p.name.startswith(".tmp-")]
    write_checkpoint(directory, Checkpoint(4, small_lexicon(1), 5, "def"), FINGERPRINT)  # an untouched shard goes
    assert "shard-000000000004" in {p.name for p in directory.iterdir()}


def test_a_marker_nested_too_deep_is_read_as_no_marker_of_ours_not_a_recursion_error(tmp_path):
    from spacy_ctxvec.building.checkpoints import read_marker

    (tmp_path / CHECKPOINT_MARKER).write_text("[" * 100_000 + "]" * 100_000, encoding="utf8")
    assert read_marker(tmp_path, CHECKPOINT_MARKER) == {"created_directory": False}


def test_a_checkpoint_stopped_while_written_leaves_no_temporary_and_resume_clears_killed_ones(tmp_path, monkeypatch):
    """Ctrl-C or SIGTERM while a shard was written left '.tmp-shard-...-PID' (OSError alone was cleaned up), and
    --resume never removed those of killed builds: three preempted runs left 28 MB beside a 16 MB checkpoint."""
    import subprocess
    import sys

    from spacy_ctxvec.building import checkpoints

    directory = tmp_path / "ckpt"
    open_checkpoint_dir(directory, resume=False)
    lexicon = small_lexicon()
    write_checkpoint(directory, Checkpoint(2, lexicon, lexicon.n_occurrences, "abc"), FINGERPRINT)

    def interrupted(path, checkpoint, fingerprint):
        path.mkdir()
        (path / "part").write_text("half", encoding="utf8")
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoints, "_write_shard", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_checkpoint(directory, Checkpoint(4, lexicon, lexicon.n_occurrences, "abd"), FINGERPRINT)
    monkeypatch.undo()
    assert not [p.name for p in directory.iterdir() if ".tmp" in p.name]
    assert read_checkpoint(directory, FINGERPRINT).docs_done == 2  # the checkpoint before stays the latest
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = int(finished.stdout)  # a process that has ended: a killed build's temporaries
    (directory / f".tmp-shard-000000000004-{gone}").mkdir()
    (directory / f".tmp-shard-000000000004-{gone}" / "part").write_text("half", encoding="utf8")
    (directory / f".{LATEST_FILE}.tmp-{gone}").write_text("shard-000000000004", encoding="utf8")
    running = directory / f".tmp-shard-000000000006-{os.getpid()}"  # another build's, still being written
    running.mkdir()
    open_checkpoint_dir(directory, resume=True)
    assert sorted(p.name for p in directory.iterdir() if ".tmp" in p.name) == [running.name]
    assert read_checkpoint(directory, FINGERPRINT).docs_done == 2
