"""What each command's output file starts with, so that --overwrite replaces only a file of
that kind (one a spacy-ctxvec command could have written), never a corpus or another file
named as OUTPUT by mistake. Each check reads the file's first bytes only, except the JSON
report's, which reads the file whole. A low module (no spaCy), used by
``outputs.check_output``'s ``replaceable``."""

import json
import re
from pathlib import Path
from typing import Callable, Dict, Optional

from .errors import CtxvecError, Errors

HEAD_BYTES = 512
PDF_TAIL_BYTES = 2**20  # a PDF's info dictionary (its Producer) lies before its cross-reference table
MAX_REPORT_BYTES = 64 * 2**20  # evaluate's reports are kilobytes; a larger JSON file is data
_VECTORS_HEADER = re.compile(rb"\d+ \d+\s*\n")  # word2vec text and binary: "ROWS DIM"
LABELS_HEADER = "key\tword\tsense\tshare\tlabel\tcorpus_polysemy"


def _head(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(HEAD_BYTES)


def vectors_file(path: Path) -> bool:
    """A word2vec text or binary file: its first line is "ROWS DIM" (export-static, train-static)."""
    return _VECTORS_HEADER.match(_head(path)) is not None


def figure(path: Path) -> bool:
    """A PNG or SVG picture (PNG's signature, or XML/SVG markup), or a PDF that matplotlib wrote (its
    Producer, near the end: another PDF, a paper or a thesis, is no figure of ours)."""
    head = _head(path)
    if head.startswith(b"%PDF-"):
        with path.open("rb") as file:
            file.seek(max(0, path.stat().st_size - PDF_TAIL_BYTES))
            return b"/Producer (Matplotlib pdf backend" in file.read()
    return head.startswith(b"\x89PNG\r\n\x1a\n") or (head.lstrip().startswith(b"<") and b"<svg" in head)


def html_page(path: Path) -> bool:
    """An HTML page (senses --html)."""
    return _head(path).lstrip().lower().startswith((b"<!doctype html", b"<html"))


def json_file(path: Path) -> bool:
    """An evaluation report as evaluate --output writes it: a JSON object whose "pipeline" is the
    record of what was measured (``evaluation.provenance``), or, for word-sim, one such report per
    pairs file. Another JSON file, such as a model's config.json or a JSON-lines corpus, is no
    report; nor is a file too large to be one."""
    if path.stat().st_size > MAX_REPORT_BYTES or not _head(path).lstrip().startswith(b"{"):
        return False
    try:
        report = json.loads(path.read_bytes().decode("utf8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nested deeper than any report
        return False
    if not isinstance(report, dict) or not report:
        return False
    return _has_record(report) or all(isinstance(each, dict) and _has_record(each) for each in report.values())


def _has_record(report: dict) -> bool:
    """Whether ``report`` holds a record of what was measured (word-sim: one per pairs file)."""
    record = report.get("pipeline")
    return isinstance(record, dict) and {"pipeline", "model"} <= record.keys()


def labels_file(path: Path) -> bool:
    """The labels beside export-static --senses vectors: its header row."""
    return _head(path).startswith(LABELS_HEADER.encode("utf8"))


# the kind of file each command writes, by the name E423 gives it
VECTORS_FILE, FIGURE_FILE, HTML_PAGE = "a word2vec vectors file", "a PNG, SVG or PDF figure", "an HTML page"
JSON_FILE, LABELS_FILE = "a JSON report of evaluate", "a labels file (key, word, sense, share, label, corpus_polysemy)"
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
