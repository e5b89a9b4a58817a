"""Text vector files (word2vec text with its "N DIM" header, GloVe without one), and what
the binary reader shares with them: opening (.gz too), the header line, rows that grow
with what is read, and the coded read errors."""

import gzip
import re
import warnings
from pathlib import Path
from typing import IO, List, Optional, Sequence, Tuple, cast

import numpy as np

from ..errors import CtxvecError, Errors, Warnings
from ..paths import CONVERT_TO_UTF8_FIX, decode_line
from .npy_format import first_wins
from .table import StaticVectorTable

FORMATS = ("auto", "word2vec", "word2vec-binary", "glove", "fasttext", "npy", "gensim")
INITIAL_ROWS = 1024
INITIAL_BYTES = 64 * 2**20  # a first block of at most this many bytes, however wide a row claims to be
# The widest vectors read: real ones have up to a few thousand dimensions; a wider header or row
# (a file of 10^7 zeros on one line) is refused before its values are split or stored.
MAX_DIM = 65_536
MAX_LINE_BYTES = MAX_DIM * 32 + 4096  # a row of MAX_DIM values, each at most 31 characters, and its word
UTF8_BOM = b"\xef\xbb\xbf"  # may precede a text file's first line; never part of it
TEXT_SAMPLE_BYTES = 65536  # read to tell text from binary: the first row of a 5,000-d text file fits


def read_error(path: Path, format: str, err: BaseException) -> CtxvecError:
    """E103: the file could not be read as ``format``, with the error raised."""
    error = f"{type(err).__name__}: {err}"
    return CtxvecError(Errors.E103.format(path=path, format=format, error=error, formats=", ".join(FORMATS[1:])))


def open_vectors_file(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed where its name ends in .gz."""
    return cast(IO[bytes], gzip.open(path, "rb")) if path.suffix.lower() == ".gz" else open(path, "rb")


# E133's fix for a word that ends inside a UTF-8 character ({not_utf8}: the fix for a file not in UTF-8)
CUT_WORD_FIX = (
    "The word ends inside a UTF-8 character. If the file is UTF-8 elsewhere, the tool that wrote it cut long "
    "words at a byte limit: remove that row, or read the file with gensim (KeyedVectors.load_word2vec_format("
    'FILE, unicode_errors="ignore"{options})) and save it again (save_word2vec_format). If it is not UTF-8, '
    "its words are not: {not_utf8}"
)


def _word_with_a_space(word: str, numbers: Sequence[bytes]) -> str:
    """ " (its word seems to hold a space: 'new york')" where the row's first value is no number."""
    try:
        float(numbers[0])
    except ValueError:
        return f"; its word seems to hold a space ('{word} {numbers[0].decode('utf8', 'replace')}'), which no row can"
    return ""


_WORD_END = re.compile(rb"[ \t]+")


def split_row(line: bytes) -> List[bytes]:
    """A text row's word and the rest: the word ends at the first space or tab, as gensim reads it
    (a vertical tab or form feed inside a word is part of it)."""
    return _WORD_END.split(line.lstrip(b" \t"), maxsplit=1)


def looks_like_text(sample: bytes, has_header: bool) -> bool:
    """Text, not binary float32 rows or UTF-16: no NUL, and no other control byte unless
    the first row reads as a word and its numbers (a key may hold a control character,
    such as a bell or an escape sequence copied from a terminal, and still be text)."""
    head = sample[:4096]
    if b"\0" in head:
        return False
    # the first row from the whole sample: a 768-d row is about 10 KB
    return not any(byte < 32 and byte not in b"\t\n\r" for byte in head) or _first_row_is_text(sample, has_header)


def _first_row_is_text(sample: bytes, has_header: bool) -> bool:
    """Whether the first row of ``sample`` (after the "N DIM" header line where there is one)
    is a word and its numbers, as many as the header says."""
    lines = sample.removeprefix(UTF8_BOM).split(b"\n", 2)  # the header, the first row, the rest
    header = lines.pop(0).split() if has_header else []
    if len(lines) < 2:  # the row must end within the sample
        return False
    fields = split_row(lines[0].rstrip(b" \t\r"))
    fields = fields[:1] + (fields[1].split() if len(fields) > 1 else [])
    if has_header and not (len(header) == 2 and header[1].isdigit() and len(fields) == int(header[1]) + 1):
        return False
    if len(fields) < 2:
        return False
    try:
        [float(field) for field in fields[1:]]
    except ValueError:
        return False
    return True


class GrowingRows:
    """A float32 (n, dim) matrix that grows with the rows appended (never sized by a header)."""

    def __init__(self, dim: int, expected: Optional[int]) -> None:
        capacity = max(1, min(INITIAL_ROWS if expected is None else expected, INITIAL_ROWS, INITIAL_BYTES // (4 * dim)))
        self.array = np.empty((capacity, dim), dtype=np.float32)
        self.n = 0

    def append(self, row: np.ndarray) -> None:
        if self.n == len(self.array):
            grown = np.empty((2 * len(self.array), self.array.shape[1]), dtype=np.float32)
            grown[: self.n] = self.array
            self.array = grown
        self.array[self.n] = row
        self.n += 1

    def matrix(self) -> np.ndarray:
        return self.array[: self.n] if self.n == len(self.array) else self.array[: self.n].copy()


def header_of(path: Path, line: bytes) -> Tuple[int, int]:
    fields = line.split()
    if len(fields) != 2 or not all(field.isdigit() for field in fields):
        raise CtxvecError(Errors.E132.format(path=path, what="the header line", value=_shown_line(line)))
    n_rows, dim = int(fields[0]), int(fields[1])
    if not 1 <= dim <= MAX_DIM:
        raise CtxvecError(Errors.E132.format(path=path, what="dimension", value=dim))
    return n_rows, dim


def _shown_line(line: bytes) -> str:
    """A first line as E132 shows it: up to 80 bytes, or 16 with "binary data" where it is not UTF-8 text
    (a gensim pickle or another binary file: its bytes say nothing to a reader)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return f"{line[:16]!r}... (binary data, not a line of text)"
    return repr(line[:80])


HEADER_LIKE = re.compile(rb"\s*-?\d+\s+-?\d+\s*")


def _check_first_glove_row(path: Path, line: bytes, number: int, n_values: int) -> None:
    """A first row of a file read without a header that is a header ("400000 300": say
    so), a broken header ("-3 16") or a word without numbers: a coded error naming it."""
    if HEADER_LIKE.fullmatch(line):
        header_of(path, line)  # E132 unless it is a well-formed header
        problem = f"its first line {line[:80].decode('utf8', 'replace')!r} is a word2vec header 'N_ROWS DIM'"
        raise read_error(path, "glove", ValueError(f"{problem}; pass format 'word2vec' or 'auto'"))
    if n_values < 1:
        got = line[:120].decode("utf8", "replace")
        expected = "a word and its numbers separated by spaces"
        raise CtxvecError(Errors.E302.format(path=path, line=number, got=got, expected=expected))


def row_count_error(path: Path, claimed: int, dim: int, problem: str) -> CtxvecError:
    return CtxvecError(
        Errors.E130.format(path=path, problem=f"the header says {claimed} rows of dimension {dim}, but {problem}")
    )


def read_text_vectors(path: Path, has_header: bool) -> StaticVectorTable:
    """word2vec text ("N DIM" header line) or GloVe (no header): one ``word v1 .. vdim``
    per line. Trailing blank lines are fine; a blank line between rows is an error; a last
    row without a line end warns W086 (a file cut short: its rows cannot tell)."""
    claimed: Optional[int] = None
    dim: Optional[int] = None
    keys: List[str] = []
    rows: Optional[GrowingRows] = None
    blank_line: Optional[int] = None
    last_row_ended = True
    options = "" if has_header else ", no_header=True"
    cut_fix = CUT_WORD_FIX.format(options=options, not_utf8=CONVERT_TO_UTF8_FIX)
    with open_vectors_file(path) as file:
        if not looks_like_text(file.read(TEXT_SAMPLE_BYTES), has_header):
            raise read_error(
                path,
                "word2vec" if has_header else "glove",
                ValueError("it holds binary data (or UTF-16), not UTF-8 text"),
            )
        file.seek(0)
        for number, raw in enumerate(iter(lambda: file.readline(MAX_LINE_BYTES), b""), start=1):
            if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):  # never held whole: its copies cost more
                raise CtxvecError(
                    Errors.E132.format(
                        path=path, what=f"a row (line {number}) longer than", value=f"{MAX_LINE_BYTES:,} bytes"
                    )
                )
            line = raw.rstrip(b"\r\n")
            if number == 1:
                line = line.removeprefix(UTF8_BOM)
            if not line.strip():
                blank_line = blank_line or number
                continue
            if blank_line is not None:
                raise CtxvecError(Errors.E131.format(path=path, line=blank_line, problem="a blank line between rows"))
            if has_header and claimed is None:
                claimed, dim = header_of(path, line)
                continue
            fields = split_row(line)  # the word, then the numbers
            word = decode_line(fields[0], path, number, cut_fix)
            limit = dim or MAX_DIM
            numbers = fields[1].split(None, limit) if len(fields) > 1 else []  # at most limit + 1 parts
            if len(numbers) > limit and dim is None:
                raise CtxvecError(
                    Errors.E132.format(path=path, what=f"a row (line {number}) of more than", value=f"{limit:,} values")
                )
            if len(numbers) > limit:
                count = len(fields[1].split())  # the line is at most MAX_LINE_BYTES
                error = f"line {number} has {count} values, expected {dim}" + _word_with_a_space(word, numbers)
                raise CtxvecError(Errors.E104.format(path=path, error=error))
            try:
                if line[:1].isspace():
                    raise ValueError("no word before the numbers")
                # each field parsed whole: np.fromstring before numpy 2.3 read "3x" as 3, silently
                with np.errstate(over="ignore"):  # beyond float32: inf, which E109 reports
                    values = np.array(numbers, dtype=np.float32)
            except ValueError:
                raise CtxvecError(
                    Errors.E302.format(
                        path=path,
                        line=number,
                        got=line[:120].decode("utf8", "replace"),
                        expected=f"a word and {dim or 'its'} numbers separated by spaces",
                    )
                ) from None
            if dim is None:  # GloVe: the first row sets the dimension
                _check_first_glove_row(path, line, number, len(values))
                dim = len(values)
            if len(values) != dim:
                raise CtxvecError(
                    Errors.E104.format(path=path, error=f"line {number} has {len(values)} values, expected {dim}")
                )
            if claimed is not None and len(keys) == claimed:
                raise row_count_error(path, claimed, dim, f"line {number} starts row {claimed + 1}")
            if rows is None:
                rows = GrowingRows(dim, claimed)
            rows.append(values)
            keys.append(word)
            last_row_ended = raw.endswith(b"\n")
    if claimed is not None and len(keys) != claimed:
        raise row_count_error(path, claimed, dim or 0, f"the file ends after {len(keys)} rows")
    if rows is None:
        raise CtxvecError(Errors.E137.format(path=path))
    if not last_row_ended:  # every writer of these formats ends each row with one
        warnings.warn(Warnings.W086.format(path=path, word=keys[-1], n_values=dim), stacklevel=3)
    return first_wins(path, keys, rows.matrix())
