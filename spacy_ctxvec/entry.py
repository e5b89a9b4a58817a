"""The ``spacy-ctxvec`` console script. Loading the command line imports spaCy and torch
(seconds): Ctrl-C or SIGTERM then ends the command quietly with status 130, as it does later,
instead of a traceback of whichever import it stopped (Ctrl-C) or status 143 (SIGTERM)."""

import codecs
import sys

from .errors import INTERRUPTED
from .interrupts import termination_as_interrupt
from .paths import displayable

# A file name that is not UTF-8 reaches Python as lone surrogates (U+DC80-U+DCFF, one per
# byte); printed, each becomes U+FFFD, as in the files and pictures commands write, so that
# output stays UTF-8 (JSON on stdout too). A run holding any other lone surrogate (the first
# half of an emoji cut in two) is written escaped (\ud83d).
OUTPUT_ERRORS = "spacy_ctxvec_replace"


def _replace_surrogates(err: UnicodeError) -> tuple:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    chunk = err.object[err.start : err.end]
    if all("\udc80" <= char <= "\udcff" for char in chunk):
        return displayable(chunk).encode(err.encoding), err.end  # bytes: a str must be ASCII here
    return codecs.backslashreplace_errors(err)


def main() -> None:
    """Load the command line, then run it (spacy_ctxvec.cli.main)."""
    configure_output_streams()
    try:
        with termination_as_interrupt():  # SIGTERM during the imports too: 130, as later
            from .cli import main as run_command_line
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED)
    run_command_line()


def configure_output_streams() -> None:
    """stdout and stderr write UTF-8, file names that are not UTF-8 with U+FFFD (OUTPUT_ERRORS)."""
    codecs.register_error(OUTPUT_ERRORS, _replace_surrogates)
    for stream in (sys.stdout, sys.stderr):
        # Windows writes a redirected stream in its code page (cp1252): a Greek or Chinese word,
        # or an emoji, was a UnicodeEncodeError traceback. Output is UTF-8 (JSON's own encoding).
        if not hasattr(stream, "reconfigure"):  # None (pythonw, a closed stream) or no text stream
            continue
        try:
            encoding = codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name
        except LookupError:
            encoding = "unknown"
        if encoding != "utf-8" or getattr(stream, "errors", None) != OUTPUT_ERRORS:
            stream.reconfigure(encoding="utf-8", errors=OUTPUT_ERRORS)
