"""Cosine helpers (the only ones): unit rows, cosine, pairwise, row-wise, shift and the mean
cosine between groups; a zero vector gives 0.0, never NaN."""

from typing import Optional, Tuple

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
    a_scaled, b_scaled = _scaled(a), _scaled(b)
    norms = np.linalg.norm(a_scaled, axis=-1) * np.linalg.norm(b_scaled, axis=-1)
    dots = np.einsum("...d,...d->...", a_scaled, b_scaled)
    defined = norms > 0
    cosines = np.divide(dots, norms, out=np.zeros_like(dots), where=defined)
    # A row equal to its partner has cosine 1.0 exactly, not 0.9999999999999993: rounding
    # in the sums (which depends even on where the arrays lie in memory) is not shown.
    return np.where((a == b).all(axis=-1) & defined, 1.0, cosines)


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; zero rows stay zero."""
    vectors = _scaled(np.asarray(vectors, dtype=np.float64))
    norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
    return np.divide(vectors, norms[:, None], out=np.zeros_like(vectors), where=norms[:, None] > 0)


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
