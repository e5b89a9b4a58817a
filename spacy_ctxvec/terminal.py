"""How lines for a person look: wasabi's marked lines ("ℹ", "⚠", "✘") for stderr, coloured only on
a terminal and where NO_COLOR (no-color.org) is not set; standard output that cannot be written
(``GuardedStdout``). A low module, so that the command line and the library's progress lines
(train-static's epochs) colour alike."""

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Union

from wasabi import Printer

from .ops.text import ACTED_ON_BUT_TAB_AND_NEWLINE, printable
from .paths import displayable


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is an open terminal (None: started with >&-)."""
    return stream is not None and not getattr(stream, "closed", False) and stream.isatty()


def colour_on(stream: Any) -> bool:
    """Whether to colour what goes to ``stream``: a terminal that shows colour (TERM is not
    "dumb"), and NO_COLOR not set; never for a closed stream."""
    return is_terminal(stream) and os.environ.get("TERM") != "dumb" and not os.environ.get("NO_COLOR")


class DisplayablePrinter(Printer):
    """wasabi's Printer, showing the bytes of a file name that is not UTF-8 as U+FFFD, as files
    and JSON do (``paths.displayable``): wasabi's own escape made each such byte a "?"; and
    control characters written out (``shown_line``)."""

    def text(
        self,
        title: Any = "",
        text: Any = "",
        color: Optional[Union[str, int]] = None,
        bg_color: Optional[Union[str, int]] = None,
        icon: Optional[str] = None,
        spaced: bool = False,
        show: bool = True,
        no_print: bool = False,
        exits: Optional[int] = None,
    ) -> Any:
        shown = shown_line(str(text)) if text else text
        return super().text(shown_line(str(title)), shown, color, bg_color, icon, spaced, show, no_print, exits)


def shown_line(text: str) -> str:
    """``text`` as a line for a person: undecodable file-name bytes as U+FFFD, and what a terminal
    would act on (ESC sequences in a path or word, a right-to-left override) written out, line
    breaks and tabs kept."""
    return printable(displayable(text), ACTED_ON_BUT_TAB_AND_NEWLINE)


# The command line's lines on stdout (wasabi's msg, with file names shown as displayable).
msg = DisplayablePrinter()


def stderr_printer() -> Printer:
    """Formats lines as msg.fail / msg.warn / msg.info do, for stderr: coloured only where
    ``colour_on`` it."""
    printer = DisplayablePrinter(no_print=True)
    printer.show_color = printer.show_color and colour_on(sys.stderr)
    return printer


class StdoutUnwritable(OSError):
    """Standard output could not be written (a full disk or a failing device behind a
    redirect), as opposed to a file a command writes."""


class GuardedStdout:
    """``stream`` (sys.stdout) whose write and flush failures, other than a closed pipe
    (BrokenPipeError, exit 141), raise StdoutUnwritable; everything else is the stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with _unwritable_as_coded():
            return self._stream.write(text)

    def flush(self) -> None:
        with _unwritable_as_coded():
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def _unwritable_as_coded() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as err:
        raise StdoutUnwritable(err.errno, err.strerror) from err
