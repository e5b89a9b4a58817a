"""Cosine helpers (the only ones): unit rows, cosine, pairwise, row-wise, shift and the mean
cosine between groups; a zero vector gives 0.0, never NaN."""

from typing import Callable, Optional, Tuple

import numpy as np


def cosine(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> float:
    """Cosine of two vectors of any shape (flattened); 0.0 for None or a zero vector."""
    if a is None or b is None:
        return 0.0
    return float(np.clip(rowwise_cosine(np.ravel(a), np.ravel(b)), -1.0, 1.0))


def pairwise_cosine(vectors: np.ndarray) -> np.ndarray:
    """(n, n) cosine matrix; rows of zeros give 0 similarity."""
    unit = normalise_rows(vectors)
    return np.clip(unit @ unit.T, -1.0, 1.0)


def rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of matching rows along the last axis: (..., d), (..., d) -> (...)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    (a_safe, a_squares), (b_safe, b_squares) = (
        _rescaled_where_needed(a, _norm_squares),
        _rescaled_where_needed(b, _norm_squares),
    )
    norms = np.sqrt(a_squares) * np.sqrt(b_squares)
    dots = np.einsum("...d,...d->...", a_safe, b_safe)
    defined = norms > 0
    cosines = np.divide(dots, norms, out=np.zeros_like(dots), where=defined)
    # A row equal to its partner has cosine 1.0 exactly, not 0.9999999999999993: rounding
    # in the sums (which depends even on where the arrays lie in memory) is not shown.
    return np.where((a == b).all(axis=-1) & defined, 1.0, cosines)


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; zero rows stay zero."""
    vectors, squares = _rescaled_where_needed(np.asarray(vectors, dtype=np.float64), _einsum_squares)
    norms = np.sqrt(squares)
    return np.divide(vectors, norms[:, None], out=np.zeros_like(vectors), where=norms[:, None] > 0)


# Sums of squares outside this range may have overflowed or underflowed (values beyond about
# 1e±70): only such rows are rescaled, so ordinary rows keep their speed and their bits.
SAFE_SQUARES = (1e-140, 1e140)


def _rescaled_where_needed(
    vectors: np.ndarray, sums: Callable[[np.ndarray], np.ndarray]
) -> Tuple[np.ndarray, np.ndarray]:
    """(``vectors``, the sums of squares of their rows along the last axis, as ``sums`` adds them),
    where the rows whose sum is tiny (but not zero), huge or not finite are divided by their largest
    absolute value first (``_scaled``); the other rows as they are."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # such rows are the ones rescaled
        squares = sums(vectors)
    odd = np.array(~((squares > SAFE_SQUARES[0]) & (squares < SAFE_SQUARES[1])))  # an array also for one row
    zero = odd & (squares == 0)
    if zero.any():  # a zero row stays as it is; a row whose squares underflowed to 0 is rescaled
        odd[zero] = vectors[zero].any(axis=-1)
    if not odd.any():
        return vectors, squares
    vectors = vectors.copy()
    vectors[odd] = _scaled(vectors[odd])
    return vectors, sums(vectors)


def _einsum_squares(vectors: np.ndarray) -> np.ndarray:
    return np.einsum("...d,...d->...", vectors, vectors)


def _norm_squares(vectors: np.ndarray) -> np.ndarray:
    return np.add.reduce(vectors * vectors, axis=-1)  # as np.linalg.norm adds them


def _scaled(vectors: np.ndarray) -> np.ndarray:
    """Rows (along the last axis) divided by their largest absolute value, so that squaring them
    neither overflows (values near 1e200) nor underflows to a zero row (near 1e-200)."""
    if not vectors.size:
        return vectors
    largest = np.maximum(vectors.max(axis=-1, keepdims=True), -vectors.min(axis=-1, keepdims=True))  # no |x| copy
    with np.errstate(invalid="ignore"):  # inf / inf: a row with inf is a zero row, as NaN rows are
        return np.divide(vectors, largest, out=np.zeros_like(vectors), where=largest > 0)


def cosine_shift(vectors: np.ndarray, unit_directions: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(1 - cos(vector_i, direction_i), defined_i) row by row; undefined where either is zero."""
    units = normalise_rows(vectors)
    cos = np.einsum("ij,ij->i", units, np.asarray(unit_directions, dtype=np.float64))
    defined = (np.abs(units).sum(axis=1) > 0) & (np.abs(unit_directions).sum(axis=1) > 0)
    return np.where(defined, 1.0 - np.clip(cos, -1.0, 1.0), 0.0), defined


def mean_cosine_between_groups(unit_sums: np.ndarray, counts: np.ndarray) -> float:
    """Mean cosine between unit vectors of different groups (e.g. occurrences of different
    word types: the anisotropy baseline), from each group's sum of unit vectors (g, d) and
    its size (g,); 0.0 without such pairs."""
    sums = np.asarray(unit_sums, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    n_pairs = n.sum() ** 2 - (n**2).sum()
    if n_pairs <= 0:
        return 0.0
    total = sums.sum(axis=0)
    same_group = np.einsum("ij,ij->", sums, sums)
    return float(np.clip((total @ total - same_group) / n_pairs, -1.0, 1.0))
