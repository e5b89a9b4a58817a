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


TERMINATED_WHILE_LOADING = """
import importlib.abc, os, signal, sys
class TerminatedImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "spacy_ctxvec.cli":
            os.kill(os.getpid(), signal.SIGTERM)
        return None
sys.meta_path.insert(0, TerminatedImport())
from spacy_ctxvec import entry
entry.main()
"""


def test_sigterm_while_the_command_line_loads_exits_130_as_later(tmp_path):
    """SIGTERM (plain `kill`, `timeout`) in a command's first ~2.5 s, its imports, ended it with status 143;
    later it is 130."""
    runner = subprocess.run(
        [sys.executable, "-c", TERMINATED_WHILE_LOADING], capture_output=True, text=True, cwd=tmp_path
    )
    assert runner.returncode == 130 and "Traceback" not in runner.stderr, (runner.returncode, runner.stderr[-2000:])


def test_python_dash_m_runs_the_command_line_through_this_entry(tmp_path):
    command = [sys.executable, "-m", "spacy_ctxvec", "--help"]
    runner = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert runner.returncode == 0 and "build-lexicon" in runner.stdout


def test_output_redirected_in_a_code_page_is_utf8_not_a_traceback(tiny_pipeline_dir, tmp_path):
    """Windows writes a redirected stdout in its code page (cp1252 for Python 3.10-3.12): a
    Greek word in compare's table was a UnicodeEncodeError traceback, exit status 1. (Escaping
    such characters instead made invalid JSON of an emoji.)"""
    import os

    command = [sys.executable, "-m", "spacy_ctxvec", "compare", "το κείμενο", "άλλο κείμενο", "--word", "κείμενο"]
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "HF_HUB_OFFLINE": "1"}
    runner = subprocess.run(
        [*command, "--pipeline", str(tiny_pipeline_dir)], capture_output=True, cwd=tmp_path, env=env, timeout=300
    )
    assert runner.returncode == 0, runner.stderr.decode("cp1252", "replace")[-2000:]
    assert "κείμενο".encode("utf8") in runner.stdout


def test_a_file_name_that_is_not_utf8_is_printed_with_a_replacement_character(tiny_pipeline_dir, tmp_path):
    """Under a UTF-8 locale Python's stdout refuses the lone surrogates a latin-1 file name
    becomes: plot word wrote its figure, then ended in UnicodeEncodeError printing its name.
    Printed, the byte is U+FFFD, as in files the commands write: the output stays UTF-8."""
    import os

    sentences = tmp_path / os.fsdecode(b"bank\xe9.txt")
    sentences.write_text("the bank of the river\nthe bank lent money\n", encoding="utf8")
    figure = os.fsdecode(b"bank\xe9.png")
    command = [sys.executable, "-m", "spacy_ctxvec", "plot", "word", "bank", "--sentences", sentences.name]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "HF_HUB_OFFLINE": "1"}
    runner = subprocess.run(
        [*command, "-p", str(tiny_pipeline_dir), "-o", figure], capture_output=True, cwd=tmp_path, env=env, timeout=300
    )
    assert runner.returncode == 0, runner.stderr.decode("utf8", "replace")[-2000:]
    assert "Wrote bank\ufffd.png (2 occurrences".encode("utf8") in runner.stdout
    assert (tmp_path / figure).read_bytes().startswith(b"\x89PNG")


def test_output_streams_that_are_none_or_not_text_streams_are_left_alone(monkeypatch):
    """pythonw, or a closed stdout (>&-): the stream is None, and reading its errors failed."""
    import io

    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # no reconfigure
    entry.configure_output_streams()
    assert sys.stdout is None and sys.stderr.getvalue() == ""


def test_lone_surrogates_print_as_replacement_characters_or_escapes():
    """A file name's bytes become U+FFFD; half an emoji from a JSON corpus is escaped, not an error."""
    import codecs

    codecs.register_error(entry.OUTPUT_ERRORS, entry._replace_surrogates)
    assert "caf\udce9\udce9 \ud83d".encode("utf8", entry.OUTPUT_ERRORS) == "caf\ufffd\ufffd \\ud83d".encode("utf8")


@pytest.mark.parametrize("args", [["--version"], ["rank", "--help"]])
def test_version_and_help_into_a_closed_pipe_exit_141_as_commands_do(tmp_path, args):
    """`spacy-ctxvec --version | true` exited 1 (Click's status for a broken pipe), commands 141."""
    process = subprocess.Popen(
        [sys.executable, "-m", "spacy_ctxvec", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
    )
    process.stdout.close()  # the reader leaves before the command has printed (it starts in seconds)
    stderr = process.stderr.read().decode("utf8", "replace")
    assert process.wait(timeout=120) == 141 and "Traceback" not in stderr, stderr[-2000:]


def test_a_coded_error_with_its_reader_gone_still_exits_1(tmp_path):
    """141 says the reader left and nothing went wrong: a refusal keeps its status 1."""
    command = [sys.executable, "-m", "spacy_ctxvec", "rank", str(tmp_path / "no-such-lexicon")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    process.stdout.close()
    stderr = process.stderr.read().decode("utf8", "replace")
    assert process.wait(timeout=120) == 1 and "[CTX-E225]" in stderr, stderr[-2000:]
