"""terminal: marked lines coloured only on a terminal and where NO_COLOR is not set (through a real
pseudo-terminal: tests/test_cli_structure.py::test_colours_on_a_terminal_unless_no_color_is_set)."""

import io
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from spacy_ctxvec.terminal import GuardedStdout, StdoutUnwritable, colour_on, stderr_printer


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colours_only_on_a_terminal_and_not_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_on(Terminal()) and not colour_on(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_on(Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no-color.org counts it as unset
    assert colour_on(Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not colour_on(Terminal())
    monkeypatch.setenv("TERM", "xterm")
    closed = Terminal()
    closed.close()
    assert not colour_on(None) and not colour_on(closed)  # started with >&-: no AttributeError


def test_the_stderr_printer_marks_lines_and_colours_them_as_stderr_allows(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    plain = stderr_printer().warn("careful")
    assert plain == "⚠ careful"
    monkeypatch.setattr(sys, "stderr", Terminal())
    monkeypatch.setattr("wasabi.printer.supports_ansi", lambda: True)  # as on a terminal that shows colour
    assert "\x1b[" in stderr_printer().warn("careful")
    monkeypatch.setenv("NO_COLOR", "1")
    assert stderr_printer().warn("careful") == "⚠ careful"


class FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


class GonePipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_guarded_stdout_tells_an_unwritable_stdout_from_a_closed_pipe():
    with pytest.raises(StdoutUnwritable, match="No space left"):
        GuardedStdout(FullDisk()).write("x")
    with pytest.raises(BrokenPipeError):  # the reader left: exit 141, handled apart
        GuardedStdout(GonePipe()).write("x")
    kept = io.StringIO()
    GuardedStdout(kept).write("fine")
    assert kept.getvalue() == "fine" and GuardedStdout(kept).getvalue() == "fine"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_standard_output_full_or_closed_is_a_coded_line_not_a_traceback():
    """`--version > /dev/full` and `compare ... >&-` ended in tracebacks (OSError, and
    AttributeError: 'NoneType' object has no attribute 'isatty')."""
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "spacy_ctxvec", "--version"], stdout=full, stderr=subprocess.PIPE)
    assert run.returncode == 1 and b"[CTX-E422]" in run.stderr and b"Traceback" not in run.stderr
    closed = f"{shlex.quote(sys.executable)} -m spacy_ctxvec compare '' 'a pen' >&-"
    run = subprocess.run(["bash", "-c", closed], stderr=subprocess.PIPE, timeout=120)
    assert run.returncode == 1 and b"[CTX-E422]" in run.stderr and b"Traceback" not in run.stderr  # before E413


def test_a_command_started_with_a_closed_stdout_stops_before_any_work():
    """`rank ... >&-` printed its results nowhere and exited 0; a command that writes a file
    would do all its work, then fail on its first line (and the first file it opened took
    descriptor 1): it stops at once, writing nothing."""
    closed = f"{shlex.quote(sys.executable)} -m spacy_ctxvec train-static corpus.txt out.txt --min-count 1 >&-"
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "corpus.txt").write_text("the bank of the river\n" * 5, encoding="utf8")
        run = subprocess.run(["bash", "-c", closed], stderr=subprocess.PIPE, timeout=120, cwd=folder)
        message = b" ".join(run.stderr.split())
        assert run.returncode == 1 and b"[CTX-E422]" in message and b"standard output is closed" in message
        assert b"Traceback" not in run.stderr and b"Exception ignored" not in run.stderr
        assert sorted(p.name for p in Path(folder).iterdir()) == ["corpus.txt"]


def test_a_file_name_that_is_not_utf8_shows_its_bytes_as_u_fffd_in_marked_lines():
    """wasabi wrote each such byte as "?": "Wrote ... to out_?.txt" named a file that does not
    exist, where files and JSON show U+FFFD."""
    from spacy_ctxvec.terminal import DisplayablePrinter, msg

    name = os.fsdecode(b"out_\xe9.txt")
    for printer in (DisplayablePrinter(no_print=True), stderr_printer()):
        line = printer.good(f"Wrote 6 vectors to {name}", f"more about {name}")
        assert "out_\ufffd.txt" in line and "?" not in line and line.count("\ufffd") == 2
    assert isinstance(msg, DisplayablePrinter)


def test_lines_for_a_person_write_out_what_a_terminal_would_act_on():
    """A path or word holding ESC or U+202E reached the terminal raw in an error or a
    "Wrote" line (click strips escapes only when output is piped)."""
    from spacy_ctxvec.terminal import shown_line

    line = stderr_printer().fail("Figure 'evil\x1b[31mred.html' already exists: ab\u202ecd")
    assert "\x1b[31m" not in line and "\\x1b[31mred" in line and "ab\\u202ecd" in line
    assert shown_line("two\nlines\tand a tab") == "two\nlines\tand a tab"
