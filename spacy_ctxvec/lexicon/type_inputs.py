"""The input embeddings of a lexicon's types: each type's row in the transformer's
input-embedding table (its wordpiece, else the mean of its wordpieces' rows), which a
polysemy probe may read (``polysemy_probe.INPUT_FEATURE``). The lexicon does not hold
them; the ctxvec_polysemy component computes them and saves them beside the lexicon
(``inputs/``: inputs.npy + inputs.json), tied to the lexicon's keys by a digest. Never
pickle; every damaged or mismatched file is E652 naming its path."""

import hashlib
from typing import Any, Dict, Optional, Sequence

import numpy as np

from ..errors import CtxvecError, Errors
from .statistics import Lexicon
from .storage import BYTES_SOURCE, ArrayWithHeader, parts_from_bytes

HEADER_FILE = "inputs.json"  # {"n_types": int, "keys_digest": str}
_ARRAY = "inputs"


def keys_digest(keys: Sequence[str]) -> str:
    """A short hash of a lexicon's keys: which lexicon a set of input embeddings belongs to."""
    return hashlib.sha256("\n".join(keys).encode("utf8")).hexdigest()[:16]


def inputs_error(source: str, problem: str) -> CtxvecError:
    return CtxvecError(Errors.E652.format(path=source, problem=f"input embeddings: {problem}"))


class TypeInputs(ArrayWithHeader):
    """``vectors`` (n_types, width), float (float16 as saved), one finite row per lexicon
    type in the order of ``lexicon.keys``; ``digest``: ``keys_digest`` of those keys
    (None only in component bytes written before the digest travelled with them)."""

    ARRAY_NAME = _ARRAY
    HEADER_FILE = HEADER_FILE
    read_error = staticmethod(inputs_error)

    def __init__(self, vectors: np.ndarray, digest: Optional[str], *, source: str = "<memory>") -> None:
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.dtype.kind != "f" or not np.isfinite(vectors).all():
            raise inputs_error(
                source, f"expected a finite 2-D float array, got shape {vectors.shape} ({vectors.dtype})"
            )
        if digest is not None and not isinstance(digest, str):
            raise inputs_error(source, f"the keys digest is {digest!r}, not a string")
        self.vectors = vectors
        self.digest = digest

    @classmethod
    def for_keys(cls, vectors: np.ndarray, keys: Sequence[str]) -> "TypeInputs":
        inputs = cls(vectors, keys_digest(keys))
        if len(inputs) != len(keys):
            raise inputs_error("<memory>", f"{len(inputs)} rows for {len(keys)} lexicon types")
        return inputs

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def width(self) -> int:
        return int(self.vectors.shape[1])

    def problem_with(self, lexicon: Lexicon) -> Optional[str]:
        """Why these are not the input embeddings of ``lexicon``'s types (None if they are)."""
        if len(self) != len(lexicon):
            return f"{len(self)} rows for {len(lexicon)} lexicon types"
        if self.digest is not None and self.digest != keys_digest(lexicon.keys):
            return "they were saved for other lexicon keys"
        return None

    def check_lexicon(self, lexicon: Lexicon, source: str) -> np.ndarray:
        """``vectors`` if they belong to ``lexicon``, else E652 naming ``source``."""
        problem = self.problem_with(lexicon)
        if problem is not None:
            raise inputs_error(source, problem)
        return self.vectors

    def _header(self) -> Dict[str, Any]:
        return {"n_types": len(self), "keys_digest": self.digest}

    def _array(self) -> np.ndarray:
        return self.vectors

    @classmethod
    def from_bytes(cls, data: bytes) -> "TypeInputs":
        documents, arrays = parts_from_bytes(
            data, (_ARRAY,), (), inputs_error, what="input embeddings", optional=("header",)
        )
        header = documents["header"]
        if header is None:  # bytes written before the header travelled with them
            return cls(arrays[_ARRAY], None, source=BYTES_SOURCE)
        return cls._from_parts(header, arrays[_ARRAY], BYTES_SOURCE)

    @classmethod
    def _from_parts(cls, header: Any, vectors: np.ndarray, source: str) -> "TypeInputs":
        if not isinstance(header, dict) or not isinstance(header.get("keys_digest"), str):
            raise inputs_error(source, f"{HEADER_FILE} has no 'keys_digest'")
        inputs = cls(vectors, header["keys_digest"], source=source)
        n_types = header.get("n_types")
        if n_types != len(inputs):
            raise inputs_error(source, f"{HEADER_FILE} declares {n_types!r} types, the array holds {len(inputs)}")
        return inputs

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TypeInputs):
            return NotImplemented
        return self.digest == other.digest and np.array_equal(self.vectors, other.vectors)

    def __repr__(self) -> str:
        return f"TypeInputs(types={len(self)}, width={self.width})"
