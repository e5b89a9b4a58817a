"""Pool wordpiece rows into one row per token.

Every function takes ``rows`` (n_pieces, width), the wordpiece vectors of a Doc's
tokens laid end to end, and ``lengths`` (n_tokens,), how many rows belong to each
token. Tokens with zero rows get a zero vector.
"""

from typing import Tuple

import numpy as np

from ..errors import CtxvecError, Errors


def segment_starts(lengths: np.ndarray) -> np.ndarray:
    """Offsets of each token's first row in ``rows``."""
    starts = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return starts


def _check(rows: np.ndarray, lengths: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if rows.ndim != 2 or rows.shape[0] != total or (lengths < 0).any():
        raise CtxvecError(Errors.E007.format(n_rows=rows.shape[0], total=total))
    nonempty = lengths > 0
    return lengths, nonempty


def pool_mean(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    lengths, nonempty = _check(rows, lengths)
    out = np.zeros((len(lengths), rows.shape[1]), dtype=rows.dtype)
    starts = segment_starts(lengths)
    single = np.flatnonzero(lengths == 1)
    out[single] = rows[starts[single]]  # most tokens are one wordpiece: their mean is that row
    multi = np.flatnonzero(lengths > 1)
    if len(multi):
        # Sum the k-th piece of every token that has one, k = 0, 1, ..., in float64 (as
        # np.add.reduceat would, in the same order, but without its slow per-segment loop).
        multi_starts, multi_lengths = starts[multi], lengths[multi]
        sums = rows[multi_starts].astype(np.float64)
        for k in range(1, int(multi_lengths.max())):
            has_piece = np.flatnonzero(multi_lengths > k)
            sums[has_piece] += rows[multi_starts[has_piece] + k]
        out[multi] = sums / multi_lengths[:, None]
    return out


def pool_max(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    lengths, nonempty = _check(rows, lengths)
    out = np.zeros((len(lengths), rows.shape[1]), dtype=rows.dtype)
    if nonempty.any():
        out[nonempty] = np.maximum.reduceat(rows, segment_starts(lengths)[nonempty], axis=0)
    return out


def pool_first(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    lengths, nonempty = _check(rows, lengths)
    out = np.zeros((len(lengths), rows.shape[1]), dtype=rows.dtype)
    out[nonempty] = rows[segment_starts(lengths)[nonempty]]
    return out


def pool_last(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    lengths, nonempty = _check(rows, lengths)
    out = np.zeros((len(lengths), rows.shape[1]), dtype=rows.dtype)
    ends = segment_starts(lengths) + lengths - 1
    out[nonempty] = rows[ends[nonempty]]
    return out


def pool_first_last(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of the first and the last wordpiece: width doubles."""
    return np.concatenate([pool_first(rows, lengths), pool_last(rows, lengths)], axis=1)
