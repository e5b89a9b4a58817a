"""building/build_locks: one build at a time per path, on this machine."""

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from spacy_ctxvec.building.build_locks import held_for_build, lock_path
from spacy_ctxvec.errors import CtxvecError

HOLD_IN_ANOTHER_PROCESS = (
    "import sys\n"
    "from pathlib import Path\n"
    "from spacy_ctxvec.building.build_locks import held_for_build\n"
    "with held_for_build({'OUTPUT': Path(sys.argv[1])}):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


def test_a_path_held_by_another_process_stops_the_build_naming_it(tmp_path):
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_ANOTHER_PROCESS, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
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


def test_one_lock_however_the_path_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "data")
    assert lock_path(Path("data/out")) == lock_path(tmp_path / "data" / "out") == lock_path(tmp_path / "link" / "out")
    assert lock_path(tmp_path / "data" / "out") != lock_path(tmp_path / "data" / "out2")
    assert lock_path(tmp_path / "out").parent.parent == Path(tempfile.gettempdir())


def test_the_locks_are_released_when_the_block_fails(tmp_path):
    with pytest.raises(ValueError):
        with held_for_build({"OUTPUT": tmp_path / "out"}):
            raise ValueError("the build failed")
    with held_for_build({"OUTPUT": tmp_path / "out"}):
        pass


def test_where_no_lock_file_can_be_made_the_build_runs_unlocked(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("", encoding="utf8")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_folder))
    ran = []
    with held_for_build({"OUTPUT": tmp_path / "out"}):
        ran.append(True)
    assert ran == [True] and not_a_folder.read_text(encoding="utf8") == ""
