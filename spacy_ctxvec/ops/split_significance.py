"""How clearly do some rows fall into two groups? The split statistic of
``ops.sense_evidence`` (issue 21): a z against one-Gaussian data of the same size and
covariance, after SigClust (Liu et al. 2008, "Statistical significance of clustering for
high-dimension, low-sample-size data"). numpy only; deterministic.

1. the rows (n, d) are centred and projected on their top ``n_components`` principal
   directions;
2. the best two-way split there (2-means, started from the sign of the first principal
   component) leaves a share ``W / T`` of the total sum of squares within the two groups;
3. the same is done for ``n_null`` data sets of the same size drawn from ONE Gaussian with
   the projected rows' own covariance (their top sample eigenvalues: same n, same
   spread, one group);
4. the z is how many null standard deviations the observed share lies below the null
   mean: higher where the rows fall into groups more clearly.

Rows without measurable spread (their largest principal standard deviation at most
``SPREAD_RESOLUTION`` of their root mean square norm: the same point at float16 storage
precision) give no z (None): the z is scale-free, so rounding noise around one point
would look like groups.
"""

import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator, List, Optional, Tuple

import numpy as np
from threadpoolctl import ThreadpoolController

N_COMPONENTS = 8  # principal directions the split is judged in
N_NULL = 48  # one-Gaussian data sets per test
LLOYD_ITERATIONS = 8
SEED = 0
_EPS = 1e-12
# Float16's spacing at 1 (2^-10): the occurrence sample stores rows in float16, which
# moves a unit row by up to 2^-11; spread at most this share of the rows' norm is
# storage noise, not uses (real words' row sets: top principal SD 0.2 or more of unit
# rows, SENSE_EVIDENCE.md "Rows without measurable spread").
SPREAD_RESOLUTION = float(np.finfo(np.float16).eps)


_BLAS_LIBRARIES: List[ThreadpoolController] = []
_LIMITED = threading.local()  # .depth: one_blas_thread contexts this thread is inside
_CACHED_DRAWS = 48 * 64 * 8  # most standard normals kept per cached null draw (n_null x n x rank)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A context in which BLAS runs one thread; the loaded BLAS libraries are found once
    per process (``threadpool_limits`` looks for them on every call: a third of the
    induction time when called per word type), and a context inside another on the same
    thread changes nothing (entering the limit again cost 0.2 ms a word type)."""
    depth = getattr(_LIMITED, "depth", 0)
    if depth:
        _LIMITED.depth = depth + 1
        try:
            yield
        finally:
            _LIMITED.depth = depth
        return
    if not _BLAS_LIBRARIES:
        _BLAS_LIBRARIES.append(ThreadpoolController())
    with _BLAS_LIBRARIES[0].limit(limits=1, user_api="blas"):
        _LIMITED.depth = 1
        try:
            yield
        finally:
            _LIMITED.depth = 0


@lru_cache(maxsize=64)
def _cached_standard_normals(seed: int, shape: Tuple[int, int, int]) -> np.ndarray:
    draws = np.random.default_rng(seed).standard_normal(shape)
    draws.flags.writeable = False
    return draws


def standard_normals(seed: int, shape: Tuple[int, int, int]) -> np.ndarray:
    """``np.random.default_rng(seed).standard_normal(shape)``, read-only; the same draws
    for every test of the same size, so small ones (at most 48 x 64 x 8) are drawn once
    and kept (64 sizes at most: 12 MiB)."""
    if int(np.prod(shape)) <= _CACHED_DRAWS:
        return _cached_standard_normals(int(seed), tuple(int(x) for x in shape))
    return np.random.default_rng(seed).standard_normal(shape)


def _principal_scores(points: np.ndarray, n_components: int) -> Tuple[np.ndarray, np.ndarray]:
    """Batched PCA of points (..., n, d): (scores on the top ``n_components`` directions
    (..., n, p), eigenvalues of the scatter, largest first (..., min(n, d))). Through the
    smaller of the d x d scatter and the n x n Gram matrix."""
    centred = points - points.mean(axis=-2, keepdims=True)
    n, d = centred.shape[-2:]
    transposed = np.swapaxes(centred, -1, -2)
    if d <= n:
        eigenvalues, vectors = np.linalg.eigh(transposed @ centred)
        eigenvalues, vectors = eigenvalues[..., ::-1], vectors[..., ::-1]
        p = min(n_components, d)
        scores = centred @ vectors[..., :p]
    else:
        eigenvalues, vectors = np.linalg.eigh(centred @ transposed)
        eigenvalues, vectors = eigenvalues[..., ::-1], vectors[..., ::-1]
        p = min(n_components, n)
        scores = vectors[..., :p] * np.sqrt(np.clip(eigenvalues[..., None, :p], 0.0, None))
    return scores, np.clip(eigenvalues, 0.0, None)


def _two_means(scores: np.ndarray, iterations: int = LLOYD_ITERATIONS) -> Tuple[np.ndarray, np.ndarray]:
    """Batched 2-means on centred PCA scores (..., n, p) from the sign of the first
    component, at most ``iterations`` Lloyd steps: (group mask (..., n), within-group share
    of the sum of squares (...,)). Stops early where a step changes no group of the batch
    (the next steps would repeat it: the same result)."""
    n = scores.shape[-2]
    group = scores[..., 0] > 0
    squares = (scores * scores).sum(axis=-1)
    total = squares.sum(axis=-1)
    for step in range(iterations + 1):
        size_1 = group.sum(axis=-1)
        sum_1 = (group[..., None, :].astype(np.float64) @ scores)[..., 0, :]
        if step == iterations:
            break
        centre_1 = sum_1 / np.maximum(size_1, 1)[..., None]
        centre_0 = -sum_1 / np.maximum(n - size_1, 1)[..., None]  # centred: the two sums cancel
        towards_1 = (scores @ (centre_1 - centre_0)[..., :, None])[..., 0]
        midpoint = 0.5 * ((centre_1 * centre_1).sum(axis=-1) - (centre_0 * centre_0).sum(axis=-1))
        moved = towards_1 > midpoint[..., None]
        if np.array_equal(moved, group):
            break
        group = moved
    norm = (sum_1 * sum_1).sum(axis=-1)
    between = norm / np.maximum(size_1, 1) + norm / np.maximum(n - size_1, 1)
    return group, np.clip(1.0 - between / np.maximum(total, _EPS), 0.0, 1.0)


def has_spread(rows: np.ndarray, top_sd: float) -> bool:
    """Whether rows (n, d) whose largest principal standard deviation is ``top_sd`` are
    more than one point at float16 storage precision: ``top_sd`` above
    ``SPREAD_RESOLUTION`` x their root mean square norm (and above 1e-12)."""
    scale = float(np.sqrt(np.einsum("ij,ij->", rows, rows) / max(len(rows), 1)))
    return bool(top_sd > max(SPREAD_RESOLUTION * scale, _EPS))


def stored_rows_have_spread(rows: np.ndarray) -> bool:
    """``has_spread`` of a word's stored rows (n, d) themselves, before any projection: a
    projection that removes most of their norm (the sense space's top directions) magnifies
    float16 storage noise into spread, which split a word of one point in two."""
    rows = np.asarray(rows, dtype=np.float64)
    if len(rows) < 2:
        return False
    centred = rows - rows.mean(axis=0)
    total_sd = float(np.sqrt(np.einsum("ij,ij->", centred, centred) / (len(rows) - 1)))
    # the top SD lies between total_sd / sqrt(rank) and total_sd: the SVD only where that decides
    if has_spread(rows, total_sd / np.sqrt(min(len(rows) - 1, rows.shape[1]))) or not has_spread(rows, total_sd):
        return has_spread(rows, total_sd)
    return has_spread(rows, float(np.linalg.svd(centred, compute_uv=False)[0]) / np.sqrt(len(rows) - 1))


def split_evidence(
    rows: np.ndarray, *, n_components: int = N_COMPONENTS, n_null: int = N_NULL, seed: int = SEED
) -> Tuple[Optional[float], np.ndarray]:
    """(z, group mask (n,)): the best two-way split of ``rows`` (n, d), n >= 3, and how many
    standard deviations of one-Gaussian data of the same size and covariance its
    within-group share lies below theirs. Deterministic for a given ``seed``. Rows without
    measurable spread (``has_spread``): (None, no group), no evidence either way."""
    rows = np.asarray(rows, dtype=np.float64)
    n = len(rows)
    scores, eigenvalues = _principal_scores(rows, n_components)
    group, observed = _two_means(scores)
    rank = int(min(n - 1, scores.shape[1]))
    spectrum = np.sqrt(eigenvalues[:rank] / max(n - 1, 1))
    if rank < 1 or not has_spread(rows, float(spectrum[0])):
        return None, np.zeros(n, dtype=bool)
    draws = standard_normals(seed, (n_null, n, rank)) * spectrum
    null = _two_means(_principal_scores(draws, n_components)[0])[1]
    spread = max(float(null.std(ddof=1)), 1e-6)
    return float((null.mean() - observed) / spread), group
