"""spacy_ctxvec.entry: the console script; Ctrl-C while the command line loads is quiet."""

import importlib.abc
import subprocess
import sys

import pytest

from spacy_ctxvec import entry


class InterruptedImport(importlib.abc.MetaPathFinder):
    """Ctrl-C arriving while spacy_ctxvec.cli is imported."""

    def find_spec(self, name, path=None, target=None):
        if name == "spacy_ctxvec.cli":
            raise KeyboardInterrupt
        return None


def test_ctrl_c_while_the_command_line_loads_exits_130_without_a_traceback(monkeypatch, capsys):
    monkeypatch.delitem(sys.modules, "spacy_ctxvec.cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [InterruptedImport(), *sys.meta_path])
    with pytest.raises(SystemExit) as stopped:
        entry.main()
    assert stopped.value.code == entry.INTERRUPTED == 130
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err


def test_python_dash_m_runs_the_command_line_through_this_entry(tmp_path):
    command = [sys.executable, "-m", "spacy_ctxvec", "--help"]
    runner = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert runner.returncode == 0 and "build-lexicon" in runner.stdout
