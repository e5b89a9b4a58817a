"""Each token's context: the mean contextual vector of its neighbours in a window,
within its sentence or paragraph where those are given (numpy; no spaCy)."""

from typing import Optional

import numpy as np

from .senses import CONTEXT_WINDOW


def window_context_means(
    vectors: np.ndarray, valid: np.ndarray, window: int = CONTEXT_WINDOW, segments: Optional[np.ndarray] = None
) -> np.ndarray:
    """(n, d) float32: for each of the n tokens of one document, the mean of the
    ``valid`` rows of ``vectors`` (n, d) among the ``window`` tokens either side, the
    token itself left out, and only those of its own segment where ``segments`` (n,)
    numbers each token's (its sentence or paragraph); zero rows where there are none.
    ``window`` 0: all zeros."""
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2:
        x = x.reshape(len(x), -1)
    n, width = x.shape
    if n == 0 or window <= 0:
        return np.zeros((n, width), dtype=np.float32)
    valid = np.asarray(valid, dtype=bool).reshape(-1) & np.isfinite(x).all(axis=1)
    # 2 x window shifted adds of a zero-padded copy: about 5x faster than a cumulative
    # sum at document sizes (numpy's cumsum is not vectorised)
    padded = np.zeros((n + 2 * window, width), dtype=np.float32)
    padded[window : window + n][valid] = x[valid]
    present = np.zeros(n + 2 * window, dtype=np.float32)
    present[window : window + n] = valid
    if segments is not None:
        part = np.full(n + 2 * window, -1, dtype=np.int64)
        part[window : window + n] = np.asarray(segments, dtype=np.int64).reshape(-1)
    total = np.zeros((n, width), dtype=np.float32)
    number = np.zeros(n, dtype=np.float32)
    for offset in range(-window, window + 1):
        if offset:
            shifted, counted = (
                padded[window + offset : window + offset + n],
                present[window + offset : window + offset + n],
            )
            if segments is not None:
                same = part[window + offset : window + offset + n] == part[window : window + n]
                shifted, counted = shifted * same[:, None], counted * same
            total += shifted
            number += counted
    means = np.zeros((n, width), dtype=np.float32)
    has = number > 0
    means[has] = total[has] / number[has, None]
    return means
