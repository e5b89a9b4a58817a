"""Hard-wrapped .txt corpora (a Project Gutenberg text as distributed: paragraphs broken
into lines of about 70 characters). A .txt corpus is one document per line, so in such
a file each occurrence's context stops at its line's end: warning W044 (warned by
``corpus.corpus_files``) says so and how to join the paragraphs, before any model work.
Pure Python (no spaCy)."""

import re
import shlex
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

from ..errors import Warnings
from .line_endings import file_newline

CHECKED_LINES = 500  # non-blank lines read from the start of each file
CHECKED_FILES = 20  # .txt files of a corpus checked (the first ones listed)
MIN_LINES = 20  # fewer non-blank lines: too few to tell
MID_SENTENCE_SHARE = 0.5  # at least this share of lines end without sentence-final punctuation
MAX_WRAP_WIDTH = 100  # and 95% of the lines are at most this long
FULL_LINE_SHARE = 0.5  # and at least this share fill 60% of that width or more
# Sentence ends, Latin and CJK (full stop, exclamation and question marks), then closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.!?:;…。！？；：]['\"’”)\]」』）]*$")


def hard_wrap_evidence(lines: Sequence[str]) -> Optional[Tuple[float, int]]:
    """(share of lines ending mid-sentence, the non-blank lines' 95th-percentile length)
    where ``lines`` look hard-wrapped: blank lines separate paragraphs (what W044's join
    command needs: without them it would join the whole file), most non-blank lines end
    mid-sentence and most fill a narrow width; None otherwise (also with fewer than
    MIN_LINES non-blank lines)."""
    kept = [line.strip() for line in lines if line.strip()]
    if len(kept) < MIN_LINES or len(kept) == len(lines):
        return None
    lengths = sorted(len(line) for line in kept)
    width = lengths[min(len(lengths) - 1, int(0.95 * len(lengths)))]
    mid_sentence = sum(not _SENTENCE_END.search(line) for line in kept) / len(kept)
    full = sum(length >= 0.6 * width for length in lengths) / len(lengths)
    if mid_sentence >= MID_SENTENCE_SHARE and width <= MAX_WRAP_WIDTH and full >= FULL_LINE_SHARE:
        return mid_sentence, width
    return None


def _first_lines(path: Path, encoding: str) -> List[str]:
    """The file's lines up to its CHECKED_LINES-th non-blank one (blank lines kept)."""
    lines: List[str] = []
    n_text = 0
    try:
        with path.open(encoding=encoding, errors="replace", newline=file_newline(path)) as handle:
            for line in handle:
                lines.append(line)
                n_text += bool(line.strip())
                if n_text >= CHECKED_LINES:
                    break
    except (OSError, LookupError, UnicodeError):
        return []  # the reader reports what is wrong with the file
    return lines


def hard_wrapped_files(files: Sequence[Path], encoding: str) -> Iterator[Tuple[Path, str]]:
    """Each of ``files`` (their first CHECKED_FILES .txt files) that looks hard-wrapped,
    with its W044 message, as it is read (the caller warns about the first)."""
    texts = [path for path in files if path.suffix.lower() == ".txt"][:CHECKED_FILES]
    others = " (the first such file listed; check the corpus's other files too)" if len(texts) > 1 else ""
    for path in texts:
        lines = _first_lines(path, encoding)
        evidence = hard_wrap_evidence(lines)
        if evidence is not None:
            share, width = evidence
            yield (
                path,
                Warnings.W044.format(
                    path=path,
                    share=share,
                    n_lines=sum(1 for line in lines if line.strip()),
                    width=width,
                    others=others,
                    quoted_path=shlex.quote(str(path)),
                ),
            )
