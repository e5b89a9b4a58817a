"""building/build_locks: one build at a time per path, for one user on one machine."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_ctxvec.building.build_locks import LOCKS_FOLDER, held_for_build, lock_path, locks_folder
from spacy_ctxvec.errors import CtxvecError

HOLD_IN_ANOTHER_PROCESS = (
    "import sys\n"
    "from pathlib import Path\n"
    "from spacy_ctxvec.building.build_locks import held_for_build\n"
    "with held_for_build({'OUTPUT': Path(sys.argv[1])}):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """The user's cache folder, here (inherited by the processes a test starts)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_path_held_by_another_process_stops_the_build_naming_it(tmp_path, cache):
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_ANOTHER_PROCESS, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert [path.parent for path in (cache / LOCKS_FOLDER).iterdir()] == [cache / LOCKS_FOLDER]
        with pytest.raises(CtxvecError, match=rf"E268.*writing OUTPUT '{out}' now.*wait for it to finish"):
            with held_for_build({"the checkpoint directory": tmp_path / "cp", "OUTPUT": out}):
                pytest.fail("the block ran while another process held the lock")
        # the lock taken before the refusal is released: another build may take it
        with held_for_build({"the checkpoint directory": tmp_path / "cp"}):
            pass
    finally:
        holder.communicate("", timeout=60)
    with held_for_build({"OUTPUT": out}):  # released when the other process ended
        pass


def test_one_lock_however_the_path_is_written(tmp_path, cache, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "data")
    folder = locks_folder()
    assert folder == cache / "spacy-ctxvec" / "locks"
    same = {lock_path(path, folder) for path in (Path("data/out"), tmp_path / "data/out", tmp_path / "link/out")}
    assert len(same) == 1 and lock_path(tmp_path / "data/out2", folder) not in same
    # a name that is not UTF-8 (latin-1 bytes, as Linux allows) has its lock too, no UnicodeEncodeError
    if os.name == "posix":
        latin = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9-out"))
        assert lock_path(latin, folder) != lock_path(tmp_path / "cafe-out", folder)
        with held_for_build({"OUTPUT": latin}):
            pass
    # two names of one path (OUTPUT given as its own checkpoint directory): one lock, not E268 against itself
    with held_for_build({"OUTPUT": Path("data/out"), "the checkpoint directory": tmp_path / "link/out"}):
        pass


def test_the_locks_are_released_when_the_block_fails(tmp_path, cache):
    with pytest.raises(ValueError):
        with held_for_build({"OUTPUT": tmp_path / "out"}):
            raise ValueError("the build failed")
    with held_for_build({"OUTPUT": tmp_path / "out"}):
        pass


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="folder owners and modes: POSIX")
def test_a_lock_folder_others_could_write_or_that_is_a_link_is_not_used(tmp_path, monkeypatch):
    """A build runs unlocked (it still runs) rather than keep its locks where someone else
    could place links or hold them: a link, a folder others may write, or no folder at all."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cases = {"link": tmp_path / "c1", "writable": tmp_path / "c2", "file": tmp_path / "c3"}
    (cases["link"] / "spacy-ctxvec").mkdir(parents=True)
    (cases["link"] / LOCKS_FOLDER).symlink_to(elsewhere)
    (cases["writable"] / LOCKS_FOLDER).mkdir(parents=True)
    (cases["writable"] / LOCKS_FOLDER).chmod(0o777)
    cases["file"].write_text("", encoding="utf8")
    for name, cache in cases.items():
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        ran = []
        with held_for_build({"OUTPUT": tmp_path / "out"}):
            with held_for_build({"OUTPUT": tmp_path / "out"}):  # unlocked: no E268 against itself
                ran.append(name)
        assert ran == [name]
    assert list(elsewhere.iterdir()) == [] and cases["file"].read_text(encoding="utf8") == ""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c4"))
    with held_for_build({"OUTPUT": tmp_path / "out"}):
        assert (os.lstat(tmp_path / "c4" / LOCKS_FOLDER).st_mode & 0o777) == 0o700  # made for this user only


@pytest.mark.skipif(os.name != "posix", reason="flock: lock files removed on release")
def test_lock_files_do_not_pile_up(tmp_path, cache):
    """One empty file per OUTPUT and checkpoint path ever built stayed in the lock folder
    (a walkthrough found 5,597); each is removed as its lock is released."""
    for name in ("a", "b", "c"):
        with held_for_build({"OUTPUT": tmp_path / name, "the checkpoint directory": tmp_path / f"{name}.cp"}):
            assert len(list((cache / LOCKS_FOLDER).iterdir())) == 2
    assert list((cache / LOCKS_FOLDER).iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="flock: lock files removed on release")
def test_a_lock_file_removed_between_its_opening_and_locking_is_taken_again(tmp_path, monkeypatch):
    """Its holder released it (removing the file) after this process opened it: the lock on the
    removed file guards nothing, so the file now at the path is opened and locked."""
    from spacy_ctxvec.building import build_locks

    file, real_open, opened = tmp_path / "x.lock", os.open, []

    def open_then_removed_and_made_again(path, flags, mode=0o777):
        handle = real_open(path, flags, mode)
        if not opened:
            os.unlink(path)
            os.close(real_open(path, flags, mode))  # a third process made it again
        opened.append(path)
        return handle

    monkeypatch.setattr(build_locks.os, "open", open_then_removed_and_made_again)
    release = build_locks._take(file)
    monkeypatch.undo()
    assert len(opened) == 2
    with pytest.raises(build_locks.Timeout):  # the file at the path is the one held
        build_locks._take(file)
    release()
    assert not file.exists()


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    """XDG_CACHE_HOME=mycache made ./mycache/spacy-ctxvec/locks in the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "mycache")
    assert locks_folder() == tmp_path / "home" / ".cache" / LOCKS_FOLDER
