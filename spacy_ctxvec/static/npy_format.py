"""Static vectors from an .npy matrix and its vocab file, and the rule every reader shares
for a word listed twice: its first row wins (warning W001)."""

import logging
from pathlib import Path
from typing import Dict, List

import numpy as np

from ..data_files import read_npy
from ..errors import CtxvecError, Errors, Warnings
from ..ops.text import count_of
from ..paths import decode_line
from .table import StaticVectorTable

logger = logging.getLogger("spacy_ctxvec.static.formats")  # the loaders' one logger


def first_wins(path: Path, keys: List[str], vectors: np.ndarray) -> StaticVectorTable:
    """The table of keys -> rows, keeping the first row of a duplicated key (warning W001)."""
    first: Dict[str, int] = {}
    repeated: List[str] = []
    for row, key in enumerate(keys):
        if first.setdefault(key, row) != row and not repeated:
            repeated.append(key)
    if repeated:
        named = count_of(len(keys) - len(first), "duplicated key")
        logger.warning("%s: %s", path, Warnings.W001.format(n_duplicates=named, word=repeated[0]))
        rows = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        return StaticVectorTable(list(first), vectors[rows])
    return StaticVectorTable(keys, vectors)


def npy_vocab_path(path: Path) -> Path:
    """The vocab file of an .npy matrix: <stem>.vocab.txt, else vocab.txt beside it."""
    for candidate in (path.with_name(path.stem + ".vocab.txt"), path.parent / "vocab.txt"):
        if candidate.is_file():
            return candidate
    raise CtxvecError(
        Errors.E107.format(
            path=path, stem_vocab=path.with_name(path.stem + ".vocab.txt"), dir_vocab=path.parent / "vocab.txt"
        )
    )


def read_npy_vectors(path: Path) -> StaticVectorTable:
    """An .npy matrix (never unpickled) and its vocab file, one word per line."""
    matrix = read_npy(path)
    if (
        matrix.ndim != 2
        or not np.issubdtype(matrix.dtype, np.number)
        or np.issubdtype(matrix.dtype, np.complexfloating)
    ):
        raise CtxvecError(Errors.E106.format(path=path, shape=matrix.shape, dtype=matrix.dtype))
    if matrix.shape[1] < 1:
        raise CtxvecError(Errors.E132.format(path=path, what="dimension", value=matrix.shape[1]))
    vocab_path = npy_vocab_path(path)
    with open(vocab_path, "rb") as file:
        words = [decode_line(raw, vocab_path, number).rstrip("\r\n") for number, raw in enumerate(file, start=1)]
    if words:
        words[0] = words[0].removeprefix("\ufeff")  # a byte-order mark is not part of the first word
    # as the text formats read a word: spaces and tabs around it are not part of it ("a \n" is "a")
    words = [word.strip(" \t") for word in words]
    while words and not words[-1].strip():  # trailing blank lines, as in the text formats
        words.pop()
    blank = next((number for number, word in enumerate(words, start=1) if not word.strip()), None)
    if blank is not None:
        raise CtxvecError(Errors.E147.format(vocab=vocab_path, line=blank, path=path))
    if len(words) != matrix.shape[0]:
        raise CtxvecError(Errors.E108.format(vocab=vocab_path, n_words=len(words), path=path, n_rows=matrix.shape[0]))
    first = dict.fromkeys(words)
    if len(first) < len(words):  # duplicates: copy the first rows into memory
        return first_wins(vocab_path, words, matrix)
    return StaticVectorTable(words, matrix if matrix.dtype == np.float32 else np.asarray(matrix, dtype=np.float32))
