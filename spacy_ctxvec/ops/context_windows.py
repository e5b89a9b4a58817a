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
    numbers each token's (its sentence or paragraph: a run of equal numbers is one
    segment); zero rows where there are none. ``window`` 0: all zeros."""
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2:
        x = x.reshape(len(x), -1)
    n, width = x.shape
    if n == 0 or window <= 0:
        return np.zeros((n, width), dtype=np.float32)
    valid = np.asarray(valid, dtype=bool).reshape(-1) & np.isfinite(x).all(axis=1)
    # Each token's place in a zero-padded copy, ``window`` empty rows between segments, so
    # that no window reaches into another segment; then 2 x window shifted adds: about 5x
    # faster than a cumulative sum at document sizes (numpy's cumsum is not vectorised).
    places = np.arange(n) + window
    if segments is not None:
        parts = np.asarray(segments).reshape(-1)
        places += window * np.concatenate([[0], np.cumsum(parts[1:] != parts[:-1])])
    size = int(places[-1]) + window + 1
    padded = np.zeros((size, width), dtype=np.float32)
    padded[places[valid]] = x[valid]
    present = np.zeros(size, dtype=np.float32)
    present[places] = valid
    inner = size - 2 * window
    total = np.zeros((inner, width), dtype=np.float32)
    number = np.zeros(inner, dtype=np.float32)
    for offset in range(-window, window + 1):
        if offset:
            total += padded[window + offset : window + offset + inner]
            number += present[window + offset : window + offset + inner]
    total, number = total[places - window], number[places - window]
    means = np.zeros((n, width), dtype=np.float32)
    has = number > 0
    means[has] = total[has] / number[has, None]
    return means
