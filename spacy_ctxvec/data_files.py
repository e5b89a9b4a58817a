"""Data files written where they are given: .npy arrays and word2vec tables (numpy, gensim's
writer), each replacing a file only once it is whole; and .npy arrays read back, any damage a
ValueError. The outputs' rules (where a command may write, what --overwrite replaces) are
spacy_ctxvec.outputs'."""

import os
from pathlib import Path
from tokenize import TokenError
from typing import Any

import numpy as np

from .errors import CtxvecError, Errors
from .staging import staged_file_name, unique_token
from .types import PathLike


def save_npy(path: PathLike, array: Any) -> None:
    """``array`` as ``path`` (.npy, no pickles), written beside it and renamed onto it: a
    pipeline loaded from a folder maps its .npy files, and saving it back into that folder
    wrote into the file it was reading (np.save truncates first), leaving it cut short."""
    path = Path(path)
    temporary = path.with_name(staged_file_name(path.with_suffix(".npy"), unique_token()))
    try:
        np.save(temporary, np.ascontiguousarray(array), allow_pickle=False)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def save_word2vec(table: Any, path: PathLike, *, binary: bool = False, what: str = "vectors file") -> None:
    """gensim's ``table.save_word2vec_format`` into ``path`` as given (its missing folders made):
    gensim's smart_open reads a path beginning with "~" as the home folder, which a path here
    never is (it is passed absolute). A directory there is E703; other OSErrors go to the caller
    (``write_file`` names the output, not its temporary)."""
    path = Path(path)
    if path.is_dir():
        raise CtxvecError(Errors.E703.format(what=what, path=path, reason="it is a directory"))
    path.parent.mkdir(parents=True, exist_ok=True)
    table.save_word2vec_format(str(path.absolute()), binary=binary)


NPY_MAGIC = b"\x93NUMPY"


def read_npy(path: PathLike, *, mmap: bool = True) -> np.ndarray:
    """An .npy array without pickles, memory-mapped (read-only) or in memory. It is
    mapped first either way, so a header that claims more than the file holds costs
    nothing; any unreadable file (a damaged header too) raises ValueError."""
    try:
        with open(path, "rb") as file:
            # numpy reads a file without its magic bytes as a pickle ("load it unsafely using allow_pickle")
            if file.read(len(NPY_MAGIC)) != NPY_MAGIC:
                raise ValueError("it is not an .npy file (it does not start with numpy's magic bytes \\x93NUMPY)")
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError, SyntaxError, TokenError, OverflowError, TypeError) as err:
        raise ValueError(str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}") from None
    return array if mmap else np.array(array)
