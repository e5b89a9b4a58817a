"""What a Doc-level array set by hand (doc._.ctxvec_context = ...) must hold, by kind:
"vectors" (2-D, finite numbers), "mask" (1-D booleans), "codes" (1-D whole numbers naming
one of ``codes``), "labels" (a list of strings), "records" (a 1-D structured array, finite
in its number fields: ctxvec_polysemy's and ctxvec_sense's); one row per token either way. What is
stored is a read-only copy (``stored_copy``; labels as a tuple): the caller's array stays the caller's."""

from typing import Any, Optional, Sequence

import numpy as np


def expected_value(kind: str, codes: Sequence[str] = ()) -> str:
    """What an array of ``kind`` must be, as E030 says it."""
    return {
        "vectors": "a 2-D array of finite numbers",
        "mask": "a 1-D boolean array",
        "codes": f"a 1-D array of whole numbers 0 to {len(codes) - 1} ({', '.join(codes)})",
        "labels": 'a list of strings ("" for a token without a sense)',
        "records": "a 1-D structured array of the component's records (another Doc's only for the same tokens)",
    }[kind]


def wrong_value(n_tokens: int, kind: str, value: Any, codes: Sequence[str] = ()) -> Optional[str]:
    """What is wrong with ``value`` as an array of ``kind`` for ``n_tokens`` tokens (None: nothing)."""
    if kind == "labels":
        if not isinstance(value, (list, tuple)):
            return type(value).__name__
        if len(value) != n_tokens:
            return f"{len(value)} items"
        bad = next((item for item in value if not isinstance(item, str)), "")
        return None if bad == "" else f"an item of type {type(bad).__name__}"
    if kind == "records":
        return _wrong_records(n_tokens, value)
    array = np.asarray(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    if array is None:
        return type(value).__name__
    if array.ndim != (2 if kind == "vectors" else 1) or len(array) != n_tokens:
        return f"shape {array.shape}"
    if kind == "mask":
        return None if array.dtype == bool else f"dtype {array.dtype}"
    if kind == "codes":
        if not np.issubdtype(array.dtype, np.integer):
            return f"dtype {array.dtype}"
        outside = array[(array < 0) | (array >= len(codes))]
        return f"the code {int(outside[0])}" if len(outside) else None
    if not np.issubdtype(array.dtype, np.number):
        return f"dtype {array.dtype}"
    return None if np.isfinite(array).all() else "NaN or infinite values"


def _wrong_records(n_tokens: int, value: Any) -> Optional[str]:
    if not isinstance(value, np.ndarray) or value.dtype.names is None:
        return f"dtype {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__
    if value.ndim != 1 or len(value) != n_tokens:
        return f"shape {value.shape}"
    numbers = [name for name in value.dtype.names if value.dtype[name].kind == "f"]
    return None if all(np.isfinite(value[name]).all() for name in numbers) else "NaN or infinite values"


def stored_copy(kind: str, value: Any) -> Any:
    """The copy of a checked ``value`` that a Doc stores: vectors as float16 or float32 (the
    components' dtypes; other numbers as float32), arrays read-only, labels a tuple."""
    if kind == "labels":
        return tuple(value)
    array = np.asarray(value)
    as_float32 = kind == "vectors" and array.dtype not in (np.float16, np.float32)
    with np.errstate(over="ignore"):  # float64 values beyond float32 become inf: E030 after
        stored = np.array(array, dtype=np.float32 if as_float32 else array.dtype, copy=True)
    stored.flags.writeable = False
    return stored
