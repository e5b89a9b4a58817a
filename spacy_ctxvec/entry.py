"""The ``spacy-ctxvec`` console script. Loading the command line imports spaCy and torch
(seconds): Ctrl-C then ends the command quietly with status 130, as it does later,
instead of printing the traceback of whichever import it stopped."""

import sys

from .errors import INTERRUPTED


def main() -> None:
    """Load the command line, then run it (spacy_ctxvec.cli.main)."""
    try:
        from .cli import main as run_command_line
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED)
    run_command_line()
