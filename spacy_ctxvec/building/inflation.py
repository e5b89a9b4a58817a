"""How far a .spacy DocBin inflates, measured without holding it: a DocBin is zlib data that
spaCy decompresses whole before reading a Doc, so a file of a few megabytes can fill the
memory (a decompression bomb). The check streams the data and stops at the limit."""

import zlib
from pathlib import Path
from typing import Union

from ..errors import CtxvecError, Errors

# Real text compresses a few times over in a DocBin (16x for tokenised Austen), a corpus of one
# template repeated about 150x, zeros a thousand times.
MAX_INFLATION = 200
MIN_ALLOWED_BYTES = 512 * 2**20  # what any DocBin may inflate to, however small
_IN_CHUNK, _OUT_CHUNK = 2**20, 16 * 2**20


def inflates_beyond(data: bytes, limit: int) -> bool:
    """Whether zlib ``data`` decompresses to more than ``limit`` bytes (zlib.error where it is
    not zlib data), fed a piece at a time and holding at most one chunk of the output."""
    decompressor, total, view = zlib.decompressobj(), 0, memoryview(data)
    for start in range(0, len(view), _IN_CHUNK):
        pending: Union[bytes, memoryview] = view[start : start + _IN_CHUNK]
        while pending:
            total += len(decompressor.decompress(pending, _OUT_CHUNK))
            if total > limit:
                return True
            pending = decompressor.unconsumed_tail
    return False


def check_inflation(data: bytes, path: Union[str, Path]) -> None:
    """E271 where the DocBin ``data`` inflates to more than MAX_INFLATION times its size
    (and more than MIN_ALLOWED_BYTES)."""
    limit = max(MIN_ALLOWED_BYTES, MAX_INFLATION * len(data))
    if inflates_beyond(data, limit):
        raise CtxvecError(Errors.E271.format(path=path, limit=limit // 2**20, ratio=MAX_INFLATION, size=len(data)))
