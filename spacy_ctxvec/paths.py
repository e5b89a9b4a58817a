"""Reading text files: UTF-8 lines with coded errors naming the file and line (where
commands write is spacy_ctxvec.outputs).

A low module (errors and types only), so every layer can use it."""

import io
import unicodedata
from pathlib import Path
from typing import BinaryIO, Dict, Iterator, List, Optional, Sequence, Tuple

from .errors import CtxvecError, Errors
from .types import PathLike

LINE_END_HEAD_BYTES = 65536  # the first bytes of a text file its line ends are judged on


def ends_lines_with_returns(head: bytes) -> bool:
    """Whether a text file whose first bytes are ``head`` ends its lines with lone carriage
    returns (classic Mac line ends): it holds more of them than line feeds."""
    return head.count(b"\r") - head.count(b"\r\n") > head.count(b"\n")


def text_lines(path: PathLike, compose: bool = True) -> Iterator[Tuple[int, str]]:
    """(1-based line number, line without its line end) of a UTF-8 text file, ``composed``
    (byte order marks dropped, NFC) unless ``compose`` is False (for readers that split a
    line into tokens first: ``composed_tokens``). Lines end with line feeds (a CR LF pair
    too), or, where ``ends_lines_with_returns``, at any line end: CR LF, CR or LF. Bytes
    that are not UTF-8 raise a coded error naming the file and the line."""
    path = Path(path)
    with path.open("rb") as file:
        returns = ends_lines_with_returns(file.read(LINE_END_HEAD_BYTES))
        file.seek(0)
        for number, raw in enumerate(_split_at_any_line_end(file) if returns else file, start=1):
            line = decode_line(raw, path, number).rstrip("\r\n")
            yield number, composed(line) if compose else line


def _split_at_any_line_end(file: BinaryIO) -> Iterator[bytes]:
    """The lines of ``file`` ending at CR LF, CR or LF, as bytes: Latin-1 gives each byte
    one character and back, so Python's universal-newline reader splits them undecoded."""
    reader = io.TextIOWrapper(file, encoding="latin-1", newline=None)
    try:
        for line in reader:
            yield line.encode("latin-1")
    finally:
        reader.detach()  # ``file`` stays its opener's to close (a wrapper left to the collector warned)


# Invisible characters inside words that no reader of the text needs: byte-order marks (files
# joined with cat keep theirs mid-file), zero-width spaces, soft hyphens, word joiners and the
# emoji/text presentation selectors (spaCy glues one to the next word: "\u2665\ufe0fbank" gives
# "\u2665" and "\ufe0fbank"). BERT's tokenizers drop them (the selectors only uncased ones, as
# MiniLM's), so "zero\u200bwidth" is "zerowidth" to the model; kept, they made look-alike keys.
# So is NUL (past a corpus file's first bytes, where it is E234): "bank\x00" was a type of its own.
_DROPPED = str.maketrans("", "", "\x00\ufeff\u200b\u00ad\u2060\ufe0e\ufe0f")


def composed(text: str) -> str:
    """``text`` as every text input is read: without the invisible characters of _DROPPED
    and in Unicode normal form NFC (a word typed with combining accents is its composed
    form, "a" + U+0308 -> "ä")."""
    if text.isascii():
        return text.replace("\x00", "") if "\x00" in text else text
    return unicodedata.normalize("NFC", text.translate(_DROPPED))


def composed_keys(key_to_row: Dict[str, int]) -> Dict[str, int]:
    """Each key of ``key_to_row`` that reads otherwise (``composed``: a vectors file written in
    NFD, "e" + U+0301), under its composed form where no key is that already; the key of the
    lowest row (the first in the file) wins."""
    found: Dict[str, int] = {}
    for key, row in key_to_row.items():
        if not key.isascii() and (read_as := composed(key)) != key and read_as not in key_to_row:
            found[read_as] = min(row, found.get(read_as, row))
    return found


def composed_tokens(tokens: Sequence[str], position: int) -> Tuple[List[str], Optional[int]]:
    """``tokens`` each ``composed``, those left empty (a token of invisible characters only,
    such as a lone U+FE0F) dropped, and the index ``position`` moved with them: None where
    the token at ``position`` is dropped. Composing a whole line first would shift a file's
    token indices."""
    kept = [(i, token) for i, token in enumerate(map(composed, tokens)) if token]
    moved = next((n for n, (i, _) in enumerate(kept) if i == position), None)
    return [token for _, token in kept], moved


def displayable(text: str) -> str:
    """``text`` with the bytes a file name that is not UTF-8 brings in (lone surrogates, which
    UTF-8 files and fonts refuse) shown as U+FFFD, as a terminal shows them."""
    if text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def distinct_displayable(names: Sequence[str]) -> Dict[str, str]:
    """Each of ``names`` as ``displayable`` shows it, or where two names would show the same
    (two file names whose different undecodable bytes both become U+FFFD) with those bytes
    written out (``\\xe9``), so that keys made of them stay apart."""
    shown = [displayable(name) for name in names]
    repeated = {text for text in shown if shown.count(text) > 1}
    return {name: _escaped(name) if text in repeated else text for name, text in zip(names, shown)}


def _escaped(name: str) -> str:
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def decode_line(raw: bytes, path: PathLike, number: int, cut_fix: str = "") -> str:
    """One line of ``path`` decoded as UTF-8 (BOM dropped on line 1), or a coded error; the
    text as it is otherwise (vector files keep their keys exactly). ``cut_fix``: E133's fix where
    ``raw`` ends inside a UTF-8 character (a vectors file's word cut at a byte limit)."""
    try:
        line = raw.decode("utf8")
    except UnicodeDecodeError as err:
        fix = cut_fix if cut_fix and ends_inside_a_character(err) else how_to_convert(raw if number == 1 else b"")
        raise CtxvecError(
            Errors.E133.format(path=path, where=f"line {number}", error=_describe(err), fix=fix)
        ) from None
    return line[1:] if number == 1 and line.startswith("\ufeff") else line


# cp1252, not latin1: Windows files are cp1252, which reads bytes 0xA0-0xFF as latin1 does, and
# 0x80-0x9F as the curly quotes and dashes they are (latin1 makes them invisible control characters)
CONVERT_TO_UTF8_FIX = "Convert the file to UTF-8, e.g. iconv -f cp1252 -t utf-8 FILE > FILE.utf8, and try again."


def ends_inside_a_character(err: UnicodeDecodeError) -> bool:
    """Whether the bytes ``err`` was raised for are UTF-8 cut inside their last character (the
    first error Python reports: the bytes before it are UTF-8)."""
    return err.reason == "unexpected end of data"


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")  # little- and big-endian


def how_to_convert(first_bytes: bytes) -> str:
    """E133's fix for a file that starts with ``first_bytes``: gzip, UTF-16 (a byte order
    mark), binary (NUL bytes), or else the conversion from Windows-1252."""
    if first_bytes.startswith(b"\x1f\x8b"):
        return "It is gzip-compressed: decompress it first (gunzip -k FILE), and give the text file."
    if first_bytes.startswith(UTF16_BOMS):
        return (
            "It starts with a UTF-16 byte order mark: convert it, e.g. iconv -f utf-16 -t utf-8 FILE > FILE.utf8, "
            "and try again."
        )
    if b"\x00" in first_bytes:
        return (
            "It holds NUL bytes: a binary file, or UTF-16 or UTF-32 text without a byte order mark. Give a text file."
        )
    return CONVERT_TO_UTF8_FIX


def _describe(err: UnicodeDecodeError) -> str:
    bad = err.object[err.start : min(err.end, err.start + 4)]
    return f"byte(s) {bad.hex(' ')} at byte {err.start + 1} of the line"


def does_not_exist(path: PathLike) -> str:
    """ "does not exist", saying why where ``path`` starts with a '~' no shell expanded (a config's
    or a Python string's path: Python reads '~' as a folder of that name)."""
    if str(path).startswith("~"):
        return "does not exist ('~' is not expanded here: write the home directory out, e.g. /home/me/...)"
    return "does not exist"
