"""terminal: marked lines coloured only on a terminal and where NO_COLOR is not set (through a real
pseudo-terminal: tests/test_cli_structure.py::test_colours_on_a_terminal_unless_no_color_is_set)."""

import io
import sys

from spacy_ctxvec.terminal import colour_on, stderr_printer


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colours_only_on_a_terminal_and_not_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_on(Terminal()) and not colour_on(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_on(Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no-color.org counts it as unset
    assert colour_on(Terminal())


def test_the_stderr_printer_marks_lines_and_colours_them_as_stderr_allows(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    plain = stderr_printer().warn("careful")
    assert plain == "⚠ careful"
    monkeypatch.setattr(sys, "stderr", Terminal())
    monkeypatch.setattr("wasabi.printer.supports_ansi", lambda: True)  # as on a terminal that shows colour
    assert "\x1b[" in stderr_printer().warn("careful")
    monkeypatch.setenv("NO_COLOR", "1")
    assert stderr_printer().warn("careful") == "⚠ careful"
