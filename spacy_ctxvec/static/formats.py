"""Static vector files -> StaticVectorTable: word2vec text and binary, GloVe, Facebook
fastText .bin, .npy + vocab, and gensim native files (a pickle, refused by default).

No count in a header is trusted for allocation: memory grows with the rows actually
read (a header that claims 10^9 rows over three lines costs three rows and a coded
error), and a fastText header is checked against the file's size before gensim reads
it. Every problem is a CtxvecError naming the file, and the line where there is one.
A word that occurs twice keeps its first vector (warning W001)."""

import codecs
import gzip
import os
import pickle
import re
import struct
import warnings
import zlib
from pathlib import Path
from typing import IO, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..errors import CtxvecError, Errors, Warnings
from ..paths import does_not_exist, ends_inside_a_character
from ..types import PathLike
from .npy_format import first_wins, read_npy_vectors
from .table import StaticVectorTable, check_finite
from .text_vectors import (
    CUT_WORD_FIX,
    FORMATS,
    TEXT_SAMPLE_BYTES,
    UTF8_BOM,
    GrowingRows,
    header_of,
    looks_like_text,
    open_vectors_file,
    read_error,
    read_text_vectors,
    row_count_error,
)

FASTTEXT_MAGIC = 793712314  # first int32 of a Facebook fastText .bin file
FASTTEXT_VERSION = 12
PICKLE_SUFFIXES = {".model", ".kv", ".pkl", ".pickle"}
CHUNK_BYTES = 1 << 20
MAX_WORD_BYTES = 1 << 16  # a longer "word" in a binary file means the file is damaged
# E133's fixes for a binary file: the words of a file not in UTF-8 (iconv would convert its floats too)
BINARY_NOT_UTF8_FIX = (
    "Read it with gensim (KeyedVectors.load_word2vec_format(FILE, binary=True, encoding=...)) and save it "
    "again (save_word2vec_format: UTF-8), or write it again in UTF-8."
)
# past the first row: bytes read as a word are often a row's floats, because an earlier word held a
# space or the header's dimension is not the rows'
MISALIGNED = (
    "The rows are misaligned: a word before it holds a space (the row before reads '{word}'), which "
    "word2vec binary cannot hold, or the rows are not the header's {dim} float32 values long; write "
    "the file again (gensim: words without spaces) or fix its header."
)
NOT_BINARY_FIX = "The file is not word2vec binary, or is damaged: write it again."
CHUNK_ROWS = 1 << 16  # rows checked at a time (a copy of their absolute values)
# no vector holds a value this large; four letters read as a little-endian float32 mostly give 1e19-1e38
TEXT_AS_FLOAT = 1e18
# no word2vec binary word holds these: a word read with one is a row's floats (misaligned rows)
_CONTROL_BYTES = re.compile(b"[\x00-\x1f\x7f]")


def file_problem(path: Path) -> str:
    """Why ``path`` is not a vectors file (E101)."""
    return "is a directory, not a file: give the vectors file in it" if path.is_dir() else does_not_exist(path)


def load_static_vectors(path: PathLike, *, format: str = "auto", allow_pickle: bool = False) -> StaticVectorTable:
    """Load a static vector file into a StaticVectorTable.

    Formats: "word2vec" (text with a "N DIM" header line), "word2vec-binary",
    "glove" (text without header), "fasttext" (Facebook .bin, with subword n-grams),
    "npy" (a (rows, dim) .npy matrix plus a vocab file ``<stem>.vocab.txt`` or
    ``vocab.txt`` beside it, UTF-8, one word per line, line i naming row i),
    "gensim" (native .model/.kv: a pickle, refused unless allow_pickle=True),
    "auto" (pick by suffix and the file's first bytes). .gz files work too.
    """
    path = Path(path)
    if not path.is_file():
        raise CtxvecError(Errors.E101.format(path=path, problem=file_problem(path)))
    if format not in FORMATS:
        raise CtxvecError(Errors.E102.format(format=format, path=path, formats=", ".join(FORMATS)))
    given = format
    if format == "auto":
        format = detect_format(path)
    if format == "gensim" and not allow_pickle:
        raise CtxvecError(Errors.E105.format(path=path))
    try:
        table = _LOADERS[format](path)
    except CtxvecError as err:
        raise _with_format_hint(err, path, given) from None
    except (
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        EOFError,
        OSError,
        UnicodeDecodeError,
        struct.error,
        zlib.error,
        AssertionError,
        RuntimeError,
        OverflowError,
        MemoryError,
        ZeroDivisionError,
        NotImplementedError,
    ) as err:
        raise read_error(path, format, err) from err
    if len(table) == 0:
        raise CtxvecError(Errors.E137.format(path=path))
    check_finite(table, path)
    _warn_of_zero_rows(table, path)
    return table


def _warn_of_zero_rows(table: StaticVectorTable, path: Path) -> None:
    """W087 where some words' vectors are all zeros (a padding row, a damaged export)."""
    zero_rows: np.ndarray = ~np.any(table.vectors, axis=1)
    zero_keys = np.flatnonzero(zero_rows[table.rows])
    if len(zero_keys):
        n_words = "1 word has" if len(zero_keys) == 1 else f"{len(zero_keys)} words have"
        warnings.warn(Warnings.W087.format(path=path, n_words=n_words, word=table.keys[zero_keys[0]]), stacklevel=3)


def _with_format_hint(err: CtxvecError, path: Path, given: str) -> CtxvecError:
    """``err``, saying also which format the file looks like where one was given and it looks like another
    (a good word2vec text file read as "word2vec-binary" or "fasttext" was E130: "fix the header")."""
    try:
        detected = detect_format(path) if given != "auto" else given
    except CtxvecError:
        detected = given
    if detected == given:
        return err
    hint = f'Or the format is wrong: the file looks like {detected}, not {given} (format = "auto" reads it so).'
    if detected == "gensim":  # which "auto" refuses (E105): a pickle
        hint = (
            f"Or the format is wrong: the file looks like gensim's native .model/.kv (a pickle), not {given}: "
            'save it as word2vec (E105 says how: format = "gensim" to see it), or, if you trust it, read it '
            'with format = "gensim" and allow_pickle = true.'
        )
    return CtxvecError(f"{err} {hint}")


def detect_format(path: PathLike) -> str:
    """Guess the format of a vectors file from its suffix and first bytes."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        with open_vectors_file(path) as file:
            head = file.read(TEXT_SAMPLE_BYTES)
    except (OSError, EOFError, zlib.error) as err:
        raise read_error(path, "auto", err) from err
    if suffix == ".npy" or head.startswith(b"\x93NUMPY"):
        return "npy"
    if suffix in PICKLE_SUFFIXES or head[:1] == b"\x80":
        return "gensim"
    if len(head) >= 4 and struct.unpack("<i", head[:4])[0] == FASTTEXT_MAGIC:
        return "fasttext"
    if not head.strip():
        raise CtxvecError(Errors.E137.format(path=path))
    first_line = head.removeprefix(UTF8_BOM).partition(b"\n")[0]
    fields = first_line.split()
    if len(fields) == 2 and all(field.isdigit() for field in fields):
        # a few low-dimensional rows of floats may hold no control byte: a .bin file that is not UTF-8 is binary
        binary = suffix == ".bin" and not _utf8_so_far(head)
        return "word2vec" if looks_like_text(head, has_header=True) and not binary else "word2vec-binary"
    return "glove"


def _utf8_so_far(head: bytes) -> bool:
    """Whether ``head`` is UTF-8 (a character cut at its end aside)."""
    try:
        codecs.getincrementaldecoder("utf8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return True


class _ByteReader:
    """Sequential reads from a binary file that never ask for more than CHUNK_BYTES at
    a time, so memory follows the bytes really there, not the sizes a header claims."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.buffer = bytearray()
        self.pos = 0
        self.offset = 0  # bytes consumed so far

    def _fill(self, n: int) -> bool:
        while len(self.buffer) - self.pos < n:
            chunk = self.file.read(CHUNK_BYTES)
            if not chunk:
                return False
            if self.pos:
                del self.buffer[: self.pos]
                self.pos = 0
            self.buffer += chunk
        return True

    def read(self, n: int) -> Optional[bytes]:
        """Exactly n bytes, or None at the end of the file."""
        if not self._fill(n):
            return None
        out = bytes(self.buffer[self.pos : self.pos + n])
        self.pos += n
        self.offset += n
        return out

    def unpack(self, fmt: str) -> Optional[Tuple]:
        data = self.read(struct.calcsize(fmt))
        return None if data is None else struct.unpack(fmt, data)

    def read_until(self, delimiter: bytes, limit: int = MAX_WORD_BYTES) -> Optional[bytes]:
        """The bytes before the next ``delimiter`` (which is consumed), or None if it is
        not within ``limit`` bytes or before the end of the file."""
        searched = 0
        while True:
            index = self.buffer.find(delimiter, self.pos + searched)
            if index >= 0:
                out = bytes(self.buffer[self.pos : index])
                self.offset += index + 1 - self.pos
                self.pos = index + 1
                return out
            searched = len(self.buffer) - self.pos
            if searched > limit or not self._fill(searched + 1):
                return None

    def skip(self, chars: bytes) -> None:
        while self._fill(1) and self.buffer[self.pos] in chars:
            self.pos += 1
            self.offset += 1

    def at_end(self) -> bool:
        return not self._fill(1)

    def seek(self, offset: int) -> None:
        """Continue reading at byte ``offset`` of the file."""
        self.file.seek(offset)
        self.buffer = bytearray()
        self.pos = 0
        self.offset = offset


def _read_word2vec_binary(path: Path) -> StaticVectorTable:
    """word2vec binary: a "N DIM" text line, then per row a word, a space and DIM
    little-endian float32 (and an optional newline)."""
    with open_vectors_file(path) as file:
        reader = _ByteReader(file)
        line = reader.read_until(b"\n", limit=256)
        if line is None:
            problem = "the file ends before its first line 'N_ROWS DIM' does: it is cut short, or not word2vec binary"
            raise read_error(path, "word2vec-binary", ValueError(problem))
        claimed, dim = header_of(path, line.removeprefix(UTF8_BOM))
        keys: List[str] = []
        rows: Optional[GrowingRows] = None
        while True:
            reader.skip(b"\n")
            if reader.at_end():
                break
            if len(keys) == claimed:
                if rows is not None:  # a last word with a space leaves its rest and the floats as more data
                    _check_no_text_read_as_floats(path, keys, rows.matrix())
                raise row_count_error(path, claimed, dim, f"more data follows row {claimed} (at byte {reader.offset})")
            word_bytes = reader.read_until(b" ")
            data = None if word_bytes is None else reader.read(4 * dim)
            if word_bytes is None or data is None:
                raise row_count_error(path, claimed, dim, f"the file ends inside row {len(keys) + 1}")
            word = _binary_word(path, word_bytes, keys, dim)
            if rows is None:
                rows = GrowingRows(dim, claimed)
            rows.append(np.frombuffer(data, dtype="<f4"))
            keys.append(word)
    if len(keys) != claimed:
        raise row_count_error(path, claimed, dim, f"the file ends after {len(keys)} rows")
    if rows is None:
        raise CtxvecError(Errors.E137.format(path=path))
    matrix = rows.matrix()
    _check_no_text_read_as_floats(path, keys, matrix)
    return first_wins(path, keys, matrix)


def _check_no_text_read_as_floats(path: Path, keys: List[str], matrix: np.ndarray) -> None:
    """E145 for the first row holding a value of TEXT_AS_FLOAT or more: a word with a space read
    short puts its rest and the floats out of step, and may realign at the next word."""
    for start in range(0, len(matrix), CHUNK_ROWS):
        largest = np.abs(matrix[start : start + CHUNK_ROWS]).max(axis=1)
        found = np.flatnonzero(largest >= TEXT_AS_FLOAT)
        if len(found):
            row = start + int(found[0])
            raise CtxvecError(
                Errors.E145.format(path=path, row=row + 1, word=keys[row], value=largest[found[0]], dim=matrix.shape[1])
            )


def _binary_word(path: Path, word_bytes: bytes, keys: List[str], dim: int) -> str:
    """The word of the next row (after ``keys``), or E133 / E144 where its bytes are no word."""
    misaligned = MISALIGNED.format(dim=dim, word=keys[-1]) if keys else ""
    control = _CONTROL_BYTES.search(word_bytes)
    if control is not None:
        raise CtxvecError(
            Errors.E144.format(
                path=path, row=len(keys) + 1, byte=control.group().hex(), fix=misaligned or NOT_BINARY_FIX
            )
        )
    try:
        return word_bytes.decode("utf8")
    except UnicodeDecodeError as err:
        if ends_inside_a_character(err):
            fix = CUT_WORD_FIX.format(options=", binary=True", not_utf8=BINARY_NOT_UTF8_FIX)
        else:
            fix = (
                f"{misaligned} Or its words are not UTF-8: {BINARY_NOT_UTF8_FIX}" if misaligned else BINARY_NOT_UTF8_FIX
            )
        where = f"word of row {len(keys) + 1}"
        raise CtxvecError(Errors.E133.format(path=path, where=where, error=err.reason, fix=fix)) from None


def _file_size(path: Path) -> int:
    """Uncompressed size in bytes (a .gz file is read through once)."""
    if path.suffix.lower() != ".gz":
        return os.path.getsize(path)
    size = 0
    with gzip.open(path, "rb") as file:
        while chunk := file.read(CHUNK_BYTES):
            size += len(chunk)
    return size


_FASTTEXT_ARGS = (
    "dim",
    "ws",
    "epoch",
    "min_count",
    "neg",
    "word_ngrams",
    "loss",
    "model",
    "bucket",
    "minn",
    "maxn",
    "lr_update_rate",
)


def check_fasttext_header(path: PathLike) -> Dict[str, int]:
    """Read a Facebook fastText .bin header, vocabulary and input-matrix header and check
    every count against the file's real size, so that nothing is allocated for data
    that is not there. Returns the header's numbers."""
    path = Path(path)
    size = _file_size(path)

    def bad(problem: str) -> CtxvecError:
        return CtxvecError(Errors.E130.format(path=path, problem=problem))

    with open_vectors_file(path) as file:
        reader = _ByteReader(file)

        def need(fmt: str, what: str) -> Tuple:
            values = reader.unpack(fmt)
            if values is None:
                raise bad(f"the file ends inside the {what} (at byte {reader.offset})")
            return values

        magic, version = need("<2i", "header")
        if magic != FASTTEXT_MAGIC or version > FASTTEXT_VERSION:
            raise bad(
                f"it does not start like a fastText .bin file of version <= {FASTTEXT_VERSION} "
                f"(magic {magic}, version {version})"
            )
        header = dict(zip(_FASTTEXT_ARGS, need("<12i", "header")))
        need("<d", "header")
        vocab_size, nwords, nlabels = need("<3i", "dictionary header")
        _, pruneidx_size = need("<2q", "dictionary header")  # ntokens, pruneidx_size
        dim, bucket = header["dim"], header["bucket"]
        if dim < 1:
            raise CtxvecError(Errors.E132.format(path=path, what="dimension", value=dim))
        if nlabels > 0:
            raise bad(f"it is a supervised model ({nlabels} labels); only unsupervised word vectors can be loaded")
        if not 0 <= nwords <= vocab_size or vocab_size * 10 > size or bucket < 0:
            raise bad(
                f"its dictionary header claims {vocab_size} entries, {nwords} words and {bucket} buckets, "
                f"which a file of {size} bytes cannot hold"
            )
        if not 0 <= header["minn"] <= header["maxn"] <= 64:
            raise bad(f"its character n-gram lengths minn={header['minn']} maxn={header['maxn']} are invalid")
        for index in range(vocab_size):
            word = reader.read_until(b"\0")
            if word is None or reader.unpack("<qb") is None:
                raise bad(f"the file ends inside dictionary entry {index + 1} of {vocab_size}")
        if pruneidx_size > 0 and (pruneidx_size * 8 > size or reader.read(8 * pruneidx_size) is None):
            raise bad(f"the file ends inside its {pruneidx_size} pruned-index entries")
        quantized = need("<?", "input matrix header")[0]
        if quantized:
            raise bad("it is a quantized model (.ftz); quantize=False models (.bin) are supported")
        n_vectors, matrix_dim = need("<2q", "input matrix header")
        if matrix_dim != dim or n_vectors != nwords + bucket:
            raise bad(
                f"its input matrix is {n_vectors} x {matrix_dim}, but the header needs "
                f"{nwords + bucket} x {dim} (words + buckets, dim)"
            )
        if n_vectors * dim * 4 > size - reader.offset:
            raise bad(f"its input matrix needs {n_vectors * dim * 4} bytes, but only {size - reader.offset} follow")
        reader.seek(reader.offset + n_vectors * dim * 4)
        output = reader.unpack("<?2q")
        if output is None or output[0] or output[1] * output[2] * 4 != size - reader.offset:
            raise bad(f"its output matrix (after byte {reader.offset}) is missing, quantized or cut short")
    return {**header, "vocab_size": vocab_size, "nwords": nwords}


def _read_fasttext(path: Path) -> StaticVectorTable:
    from gensim.models.fasttext import load_facebook_vectors

    check_fasttext_header(path)
    return StaticVectorTable.from_keyed_vectors(load_facebook_vectors(str(path)))


def _read_gensim_pickle(path: Path) -> StaticVectorTable:
    from gensim.utils import SaveLoad

    try:
        loaded = SaveLoad.load(str(path))
    except (AttributeError, ImportError, pickle.UnpicklingError) as err:  # a pickle of something else
        raise ValueError(f"not a file gensim saved ({type(err).__name__}: {err})") from None
    vectors = getattr(loaded, "wv", loaded)
    if not hasattr(vectors, "key_to_index"):
        kind = type(loaded).__name__
        raise ValueError(f"it holds a {kind}, not word vectors (gensim KeyedVectors, Word2Vec or FastText)")
    return StaticVectorTable.from_keyed_vectors(vectors)


_LOADERS: Dict[str, Callable[[Path], StaticVectorTable]] = {
    "word2vec": lambda path: read_text_vectors(path, has_header=True),
    "word2vec-binary": _read_word2vec_binary,
    "glove": lambda path: read_text_vectors(path, has_header=False),
    "fasttext": _read_fasttext,
    "npy": read_npy_vectors,
    "gensim": _read_gensim_pickle,
}
