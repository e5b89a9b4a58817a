"""What each command's output file starts with, so that --overwrite replaces only a file of
that kind (one a spacy-ctxvec command could have written), never a corpus or another file
named as OUTPUT by mistake. Each check reads the file's first bytes only. A low module
(no spaCy), used by ``outputs.check_output``'s ``replaceable``."""

import re
from pathlib import Path
from typing import Callable, Dict, Optional

from .errors import CtxvecError, Errors

HEAD_BYTES = 512
_VECTORS_HEADER = re.compile(rb"\d+ \d+\s*\n")  # word2vec text and binary: "ROWS DIM"
LABELS_HEADER = "key\tword\tsense\tshare\tlabel\tcorpus_polysemy"


def _head(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(HEAD_BYTES)


def vectors_file(path: Path) -> bool:
    """A word2vec text or binary file: its first line is "ROWS DIM" (export-static, train-static)."""
    return _VECTORS_HEADER.match(_head(path)) is not None


def figure(path: Path) -> bool:
    """A PNG or SVG picture (plot): PNG's signature, or XML/SVG markup."""
    head = _head(path)
    return head.startswith(b"\x89PNG\r\n\x1a\n") or (head.lstrip().startswith(b"<") and b"<svg" in head)


def html_page(path: Path) -> bool:
    """An HTML page (senses --html)."""
    return _head(path).lstrip().lower().startswith((b"<!doctype html", b"<html"))


def json_file(path: Path) -> bool:
    """A JSON object as evaluate --output writes it: indented, so "{" ends its line. A JSON-lines
    corpus ({"text": ...} per line) starts the same way but goes on: it is no report."""
    head = _head(path).lstrip()
    return head.startswith(b"{") and head[1:].lstrip(b" \t")[:1] in (b"\n", b"\r")


def labels_file(path: Path) -> bool:
    """The labels beside export-static --senses vectors: its header row."""
    return _head(path).startswith(LABELS_HEADER.encode("utf8"))


# the kind of file each command writes, by the name E423 gives it
VECTORS_FILE, FIGURE_FILE, HTML_PAGE = "a word2vec vectors file", "a PNG or SVG figure", "an HTML page"
JSON_FILE, LABELS_FILE = "a JSON file", "a labels file (key, word, sense, share, label, corpus_polysemy)"
KINDS: Dict[str, Callable[[Path], bool]] = {
    VECTORS_FILE: vectors_file,
    FIGURE_FILE: figure,
    HTML_PAGE: html_page,
    JSON_FILE: json_file,
    LABELS_FILE: labels_file,
}


def check_kind(path: Path, what: str, kind: Optional[str]) -> None:
    """E423 where the existing file ``path`` is not of ``kind`` (a name of KINDS; None: any);
    an empty file holds nothing to lose."""
    if kind is not None and path.stat().st_size and not KINDS[kind](path):
        start = _head(path)[:40].decode("utf8", "replace")
        raise CtxvecError(Errors.E423.format(what=what, path=path, kind=kind, start=start))
