"""Where the lines of a corpus file end: the local reader (building.corpus) and the Ray
engine's datasource (building.ray_workers) split files the same way."""

from typing import Iterable, Iterator, Optional


def newline_of(suffix: str) -> Optional[str]:
    """The ``newline`` to open a corpus file of ``suffix`` with: a .txt line ends at a line
    feed alone, so a stray carriage return does not split a document and line numbers are
    those of grep -n (parse_line strips a CR LF ending); .jsonl: any line end."""
    return "\n" if suffix.lower() == ".txt" else None


def corpus_lines(handle: Iterable[str], suffix: str) -> Iterator[str]:
    """The lines of a corpus file opened with ``newline_of``: a .txt file with carriage
    returns and no line feed at all (classic Mac line endings) is split at them."""
    for number, line in enumerate(handle):
        if number == 0 and suffix.lower() == ".txt" and "\r" in line and not line.endswith("\n"):
            yield from line.removesuffix("\r").split("\r")  # no line feed in the whole file
            return
        yield line
