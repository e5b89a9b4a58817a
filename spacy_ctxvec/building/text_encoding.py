"""Corpus files decoded with the wrong encoding. Latin-1 decodes every byte, so a Windows
file (cp1252, whose curly quotes are bytes 0x91-0x94) read as Latin-1 gives no error: its
words are counted with invisible C1 control characters inside ("emma\\x92s"); a UTF-8 file
read as Latin-1 or cp1252 turns "’" into "â€™". Warning W084 (warned by
``corpus.corpus_files``) says so before any model work. Pure Python (no spaCy)."""

import codecs
import re
from pathlib import Path
from typing import List, Optional, Sequence

from ..errors import Warnings

CHECKED_BYTES = 64_000  # read from the start of each .txt/.jsonl file
CHECKED_FILES = 20  # files of a corpus checked (the first ones listed)
# C1 controls (U+0080-U+009F): no written text holds them; a byte 0x80-0x9F read as Latin-1 becomes one
_C1_CONTROL = re.compile("[\x80-\x9f]")
_UTF8_BOM = b"\xef\xbb\xbf"


def file_head(path: Path, n_bytes: int) -> Optional[bytes]:
    """The first ``n_bytes`` bytes of ``path``; None where it cannot be read (its reader says why)."""
    try:
        with path.open("rb") as handle:
            return handle.read(n_bytes)
    except OSError:
        return None


def decoded_head(head: bytes, encoding: str) -> Optional[str]:
    """A file's first bytes as ``encoding`` reads them (a character cut at the end left out,
    undecodable bytes as U+FFFD); None where the codec cannot read them at all (UTF-16 without
    a byte order mark: its reader says so, E240)."""
    try:
        return codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=False)
    except (LookupError, UnicodeError):
        return None


def misdecoded_evidence(path: Path, encoding: str) -> Optional[str]:
    """Why ``path``, decoded with ``encoding``, looks like text in another encoding: a UTF-8
    byte order mark or valid UTF-8 beyond ASCII under another encoding, or C1 control characters
    in its first CHECKED_BYTES bytes; None where none (or where it cannot be read: its reader says why)."""
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:  # its reader says so (E241)
        return None
    head = file_head(path, CHECKED_BYTES)
    if head is None:
        return None
    if codec not in ("utf-8", "utf-8-sig"):
        if head.startswith(_UTF8_BOM):
            return "starts with a UTF-8 byte order mark"
        utf8 = _utf8_beyond_ascii(head)
        if utf8 is not None:  # text in another encoding is hardly ever valid UTF-8 once it leaves ASCII
            misread = utf8.encode("utf-8").decode(encoding, errors="replace")
            return f"is valid UTF-8 (its first non-ASCII character, '{utf8}', reads as '{misread}')"
    if codec in ("utf-16-le", "utf-16-be") and _byte_swapped(head, codec):
        right = "utf-16-be" if codec == "utf-16-le" else "utf-16-le"
        shown = (decoded_head(head, encoding) or "")[:12]
        return f"reads as UTF-16 in the other byte order (its start reads '{shown}'): it is {right}"
    if not _reads_bytes_as_c1(encoding):  # UTF-8 decoded them: they came from an earlier conversion, not this read
        return None
    found = _C1_CONTROL.search(decoded_head(head, encoding) or "")
    if found is None:
        return None
    return f"holds C1 control characters (the first U+{ord(found.group()):04X}), which no written text holds"


def utf16_byte_order(head: bytes) -> Optional[str]:
    """ "utf-16-le" or "utf-16-be" where ``head`` reads as text in that byte order and not in the
    other (UTF-16 without a byte order mark, of any alphabet); None otherwise."""
    shares = {order: _plain_share(head[:2000], order) for order in ("utf-16-le", "utf-16-be")}
    order, other = sorted(shares, key=shares.__getitem__, reverse=True)
    return order if len(head) >= 16 and shares[order] >= 0.9 and shares[other] < 0.5 else None


def _plain_share(head: bytes, encoding: str) -> float:
    """The share of ``head``'s characters, decoded with ``encoding``, that plain text is made of:
    letters of the alphabets before the CJK blocks (U+2E80), digits, spaces and punctuation."""
    text = head[: len(head) // 2 * 2].decode(encoding, errors="replace")
    plain = sum(char.isspace() or (char.isprintable() and ord(char) < 0x2E80) for char in text)
    return plain / len(text) if text else 0.0


def _byte_swapped(head: bytes, encoding: str) -> bool:
    """Whether ``head`` is UTF-16 in the other byte order than ``encoding`` (utf-16-le or -be) reads."""
    return utf16_byte_order(head) not in (None, encoding)


def swapped_utf16_words(words: Sequence[str]) -> bool:
    """Whether ``words`` are plain text read as UTF-16 in the wrong byte order (W084 says so: each
    looks like a run of CJK characters, which W072 would otherwise blame on the tokenizer)."""
    return utf16_byte_order("".join(words[:1000]).encode("utf-16-le")) == "utf-16-be"


def escaped_utf8(line: str, encoding: str) -> bool:
    """Whether the bytes of ``line`` (read with ``encoding`` and errors="surrogateescape") are UTF-8."""
    try:
        line.encode(encoding, errors="surrogateescape").decode("utf-8")
    except UnicodeError:
        return False
    return True


def _utf8_beyond_ascii(head: bytes) -> Optional[str]:
    """The first non-ASCII character of ``head`` where it decodes as UTF-8 (a character cut at
    the end aside); None where it is ASCII or not UTF-8."""
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return None
    return next((char for char in text if ord(char) > 0x7F), None)


def _reads_bytes_as_c1(encoding: str) -> bool:
    """Whether ``encoding`` decodes bytes 0x80-0x9F as C1 controls (Latin-1 and the other ISO 8859
    codecs do; cp1252 reads them as quotes and dashes, UTF-8 as parts of characters)."""
    return _C1_CONTROL.search(bytes(range(0x80, 0xA0)).decode(encoding, errors="replace")) is not None


def misdecoded_files(text_files: Sequence[Path], encoding: str) -> Optional[str]:
    """W084 for the first CHECKED_FILES of a corpus's .txt/.jsonl files that look decoded with
    the wrong ``encoding`` (``misdecoded_evidence``); None where none does."""
    found: List[str] = []
    for path in text_files[:CHECKED_FILES]:
        evidence = misdecoded_evidence(path, encoding)
        if evidence is not None:
            found.append(f"'{path}' {evidence}")
    if not found:
        return None
    utf8 = any("UTF-8" in evidence for evidence in found)
    windows = any("C1 control" in evidence for evidence in found)
    swapped = any("other byte order" in evidence for evidence in found)
    advice = " ".join(
        ([UTF8_ADVICE] if utf8 else []) + ([CP1252_ADVICE] if windows else []) + ([SWAPPED_ADVICE] if swapped else [])
    )
    files = "; ".join(found[:3]) + (" ..." if len(found) > 3 else "")
    return Warnings.W084.format(encoding=encoding, files=files, advice=advice)


UTF8_ADVICE = (
    "A file with a UTF-8 byte order mark, or valid UTF-8, is UTF-8: leave out --encoding (CLI) or encoding "
    "(config), UTF-8 is the default."
)
CP1252_ADVICE = 'A Windows file is cp1252: pass --encoding cp1252 (config: encoding = "cp1252").'
SWAPPED_ADVICE = (
    "Pass the byte order it names (--encoding utf-16-le or utf-16-be), or utf-16 where it has a byte order mark."
)
