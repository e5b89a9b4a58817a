"""The ``spacy-ctxvec`` console script. Loading the command line imports spaCy and torch
(seconds): Ctrl-C then ends the command quietly with status 130, as it does later,
instead of printing the traceback of whichever import it stopped."""

import codecs
import sys

from .errors import INTERRUPTED


def main() -> None:
    """Load the command line, then run it (spacy_ctxvec.cli.main)."""
    for stream in (sys.stdout, sys.stderr):
        # Windows writes a redirected stream in its code page (cp1252): a Greek or Chinese word,
        # or an emoji, was a UnicodeEncodeError traceback. Output is UTF-8 (JSON's own encoding).
        try:
            encoding = codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name
        except LookupError:
            encoding = "unknown"
        # A file name that is not UTF-8 reaches Python as lone surrogates: written as its own
        # bytes, as ls prints it (Python's choice in the C locale), not a UnicodeEncodeError.
        if (encoding != "utf-8" or stream.errors != "surrogateescape") and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    try:
        from .cli import main as run_command_line
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED)
    run_command_line()
