"""Cosine similarity that is 0.0, not NaN, for zero vectors."""
from typing import Optional

import numpy as np

from .polysemy import normalise_rows


def cosine(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> float:
    if a is None or b is None:
        return 0.0
    a64 = np.asarray(a, dtype=np.float64).ravel()
    b64 = np.asarray(b, dtype=np.float64).ravel()
    norm = float(np.linalg.norm(a64) * np.linalg.norm(b64))
    return float(np.clip(a64 @ b64 / norm, -1.0, 1.0)) if norm > 0 else 0.0


def pairwise_cosine(vectors: np.ndarray) -> np.ndarray:
    """(n, n) cosine matrix; rows of zeros give 0 similarity."""
    unit = normalise_rows(vectors)
    return np.clip(unit @ unit.T, -1.0, 1.0)
