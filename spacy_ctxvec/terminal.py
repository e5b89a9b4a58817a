"""How lines for a person look: wasabi's marked lines ("ℹ", "⚠", "✘") for stderr, coloured only on
a terminal and where NO_COLOR (no-color.org) is not set. A low module, so that the command line and
the library's progress lines (train-static's epochs) colour alike."""

import os
import sys
from typing import Any

from wasabi import Printer


def colour_on(stream: Any) -> bool:
    """Whether to colour what goes to ``stream``: a terminal, and NO_COLOR not set."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def stderr_printer() -> Printer:
    """Formats lines as msg.fail / msg.warn / msg.info do, for stderr: coloured only where
    ``colour_on`` it."""
    printer = Printer(no_print=True)
    printer.show_color = printer.show_color and colour_on(sys.stderr)
    return printer
