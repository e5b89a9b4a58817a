"""staging: the hidden siblings outputs are written as, and the clean-up of those a killed
command left (POSIX: it tells a finished process by its id)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.outputs import write_directory, write_text
from spacy_ctxvec.staging import (
    remove_killed_staging,
    replaced_directory_name,
    staged_directory_name,
    staged_file_name,
    unique_token,
)

posix_only = pytest.mark.skipif(os.name != "posix", reason="process ids of the staged siblings: POSIX")


def finished_pid() -> int:
    """The id of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_names_are_hidden_siblings_with_a_token_of_this_process():
    token = unique_token()
    assert token.startswith(f"{os.getpid()}-") and len(token.split("-")[1]) == 8 and token != unique_token()
    path = Path("/data/scores.tsv")
    assert staged_file_name(path, token) == f".scores.tmp-{token}.tsv"
    assert staged_directory_name(path, token) == f".scores.tsv.new-{token}"
    assert replaced_directory_name(path, token) == f".scores.tsv.old-{token}"


@posix_only
def test_only_the_staged_siblings_of_finished_processes_are_removed(tmp_path):
    gone, out = finished_pid(), tmp_path / "out.tsv"
    killed_file = tmp_path / staged_file_name(out, f"{gone}-0bf8f5cf")
    killed_folder = tmp_path / staged_directory_name(out, f"{gone}-1b61b546")
    kept = [
        tmp_path / staged_file_name(out, f"{os.getpid()}-0bf8f5cf"),  # still writing
        tmp_path / replaced_directory_name(out, f"{gone}-0bf8f5cf"),  # may be all left of the old output
        tmp_path / staged_file_name(tmp_path / "other.tsv", f"{gone}-0bf8f5cf"),  # another output's
        tmp_path / ".out.tsv.new-notes",  # a user's
        tmp_path / staged_directory_name(out, "99999999999999999999-0bf8f5cf"),  # no such process id
    ]
    for path in [killed_file, *kept[:1], *kept[2:3]]:
        path.write_text("partial", encoding="utf8")
    for path in [killed_folder, kept[1], *kept[3:]]:
        path.mkdir()
        (path / "config.cfg").write_text("[nlp]\n", encoding="utf8")
    assert remove_killed_staging(out) == sorted([killed_file, killed_folder])
    assert not killed_file.exists() and not killed_folder.exists() and all(path.exists() for path in kept)
    assert remove_killed_staging(tmp_path / "missing" / "out") == []
    # once the output is in place, the old one a stop left half removed is no longer all there is of it
    out.write_text("the new output", encoding="utf8")
    assert remove_killed_staging(out) == [kept[1]] and not kept[1].exists()


@posix_only
def test_an_old_output_whose_swap_never_finished_is_kept_by_the_next_write(tmp_path):
    """Killed between its two renames (the old output moved aside, the new one not yet in place),
    a write leaves .old and .new; the next write, finding no OUTPUT, removed .old: the only copy."""
    gone, out = finished_pid(), tmp_path / "pipeline"
    old = tmp_path / replaced_directory_name(out, f"{gone}-0bf8f5cf")
    new = tmp_path / staged_directory_name(out, f"{gone}-0bf8f5cf")
    for folder in (old, new):
        folder.mkdir()
        (folder / "my_notes.txt").write_text("the earlier output", encoding="utf8")
    write_directory(out, lambda staged: staged.mkdir(), what="OUTPUT", made_by="build-lexicon")
    assert out.is_dir() and not new.exists() and (old / "my_notes.txt").exists()


@posix_only
def test_a_write_of_the_output_removes_what_a_killed_write_left_and_says_so(tmp_path):
    out_file, out_dir, gone = tmp_path / "scores.tsv", tmp_path / "pipeline", finished_pid()
    left_file = tmp_path / staged_file_name(out_file, f"{gone}-0bf8f5cf")
    left_file.write_text("half", encoding="utf8")
    left_dir = tmp_path / staged_directory_name(out_dir, f"{gone}-0bf8f5cf")
    left_dir.mkdir()
    with pytest.warns(UserWarning, match=rf"W063.*Removed '{left_file}': what a command left beside scores"):
        write_text(out_file, "word\tscore\n", what="scores")
    with pytest.warns(UserWarning, match=rf"W063.*Removed '{left_dir}'"):
        write_directory(out_dir, lambda new: (new.mkdir(), (new / "a.txt").write_text("a")), what="OUTPUT", made_by="t")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pipeline", "scores.tsv"]


@posix_only
def test_a_command_that_writes_a_file_removes_a_killed_runs_temporary(tmp_path):
    lexicon_dir, out = tmp_path / "lexicon", tmp_path / "vectors.txt"
    Lexicon.from_occurrences(["bank", "bank", "river"], np.eye(3)).to_disk(lexicon_dir)
    left = tmp_path / staged_file_name(out, f"{finished_pid()}-0bf8f5cf")
    left.write_text("half a table", encoding="utf8")
    with pytest.warns(UserWarning, match=rf"W063.*Removed '{left}'"):
        result = CliRunner().invoke(app, ["export-static", str(lexicon_dir), str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert not left.exists() and out.is_file()


@posix_only
def test_an_output_whose_name_holds_any_text_is_cleaned_and_a_failing_clean_up_keeps_the_output(tmp_path, monkeypatch):
    """The names are matched as written ("TOKENS.json" was never cleaned: the pattern's placeholder
    was replaced inside it); a clean-up that fails after the output is in place fails nothing."""
    gone = finished_pid()
    out = tmp_path / "TOKENS.json"
    left = tmp_path / staged_file_name(out, f"{gone}-0bf8f5cf")
    left.write_text("half", encoding="utf8")
    assert remove_killed_staging(out) == [left] and not left.exists()

    from spacy_ctxvec import outputs

    def fails(path):
        raise PermissionError(13, "Permission denied", str(path.parent))

    monkeypatch.setattr(outputs, "remove_killed_staging", fails)
    write_text(tmp_path / "kept.txt", "hello", what="notes")
    assert (tmp_path / "kept.txt").read_text(encoding="utf8") == "hello"


def test_a_file_system_that_reports_no_name_limit_refuses_no_name(monkeypatch):
    """os.pathconf gives -1 where the limit is indeterminate (some network file systems): every
    output was refused, "over the limit of -1"."""
    import os
    from pathlib import Path

    from spacy_ctxvec.staging import name_too_long

    monkeypatch.setattr(os, "pathconf", lambda path, name: -1)
    assert name_too_long(Path("out.json"), Path(".")) is None and name_too_long(Path("x" * 240), Path(".")) is not None


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_pdf_on_a_full_disk_is_e703_not_matplotlibs_traceback(tmp_path):
    """matplotlib's PDF writer on a full disk raised AttributeError ('Stream' object has no attribute 'pos')
    or a zlib error while handling the OSError: `plot ... -o X.pdf` printed a traceback, where PNG was E703."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from spacy_ctxvec.analysis.plotting import save_figure
    from spacy_ctxvec.errors import CtxvecError
    from spacy_ctxvec.outputs import write_file
    from spacy_ctxvec.staging import failed_write_behind

    figure, axes = plt.subplots()  # points and words, as `plot polysemy` draws (a line alone failed plainly)
    axes.scatter(range(10), range(10))
    for i in range(10):
        axes.annotate(f"word{i}", (i, i))

    def onto_a_full_disk(staged):
        os.symlink("/dev/full", staged)  # every write: ENOSPC, as on a full disk
        return save_figure(figure, staged)

    with pytest.raises(CtxvecError, match=r"E703\] figure '.*p\.pdf' cannot be written: No space left on device"):
        write_file(tmp_path / "p.pdf", onto_a_full_disk, what="figure")
    assert list(tmp_path.iterdir()) == []
    try:
        raise OSError(28, "No space left on device")
    except OSError:
        try:
            raise AttributeError("'Stream' object has no attribute 'pos'")
        except AttributeError as over_it:
            assert isinstance(failed_write_behind(over_it), OSError)
    assert failed_write_behind(ValueError("no file")) is None
    try:  # a library's own error raised while it handled a missing file: not a failed write
        raise FileNotFoundError(2, "No such file or directory")
    except FileNotFoundError:
        try:
            raise ValueError("no cached settings")
        except ValueError as unrelated:
            assert failed_write_behind(unrelated) is None
