"""Numbers behind the pictures: 2-D PCA, cosine k-means with a silhouette choice of k and
a label-repel layout. numpy and scikit-learn, no spaCy."""

from typing import Optional, Tuple

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score

from .cosine import normalise_rows


def pca_2d(vectors: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """PCA to two dimensions by SVD of the centred rows.

    Returns (coords (n, 2), components (2, width), mean (width,), explained (2,)),
    where ``explained`` is each axis's fraction of the total variance. Fewer than two
    non-trivial directions give zero columns, never NaN. Signs are fixed (largest
    loading positive), so the same input always gives the same picture.
    """
    v = np.asarray(vectors, dtype=np.float64)
    mean = v.mean(axis=0) if len(v) else np.zeros(v.shape[1])
    centred = v - mean
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    components = np.zeros((2, v.shape[1]))
    n_axes = min(2, len(singular))
    components[:n_axes] = vt[:n_axes]
    signs = np.sign(components[np.arange(2), np.abs(components).argmax(axis=1)])
    components *= np.where(signs == 0, 1.0, signs)[:, None]
    variance = singular**2
    total = variance.sum()
    explained = np.zeros(2)
    if total > 0:
        explained[:n_axes] = variance[:n_axes] / total
    return centred @ components.T, components, mean, explained


def kmeans_cosine(vectors: np.ndarray, k: int, *, seed: int = 0, n_init: int = 8) -> np.ndarray:
    """k-means of the unit-normalised rows (scikit-learn), so that clusters are by direction.

    Returns one label in 0..k-1 per row, numbered by first appearance so that
    equal clusterings give equal labels. k is capped at the number of distinct
    directions (to 6 decimals): identical occurrences give one cluster, not
    scikit-learn's ConvergenceWarning.
    """
    unit = normalise_rows(vectors)
    n = len(unit)
    k = min(k, n, len(np.unique(np.round(unit, 6), axis=0)) if n else 0)
    if k <= 1:
        return np.zeros(n, dtype=np.int64)
    labels = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit_predict(unit)
    _, first = np.unique(labels, return_index=True)
    rank_of_cluster = np.empty(len(first), dtype=np.int64)
    rank_of_cluster[np.argsort(first)] = np.arange(len(first))
    return rank_of_cluster[np.unique(labels, return_inverse=True)[1]]


def silhouette_cosine(vectors: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette with cosine distance (scikit-learn); 0.0 for fewer than two
    clusters or when every point is alone in its cluster."""
    labels = np.asarray(labels)
    n_clusters = len(np.unique(labels))
    if n_clusters < 2 or n_clusters >= len(labels):
        return 0.0
    return float(silhouette_score(normalise_rows(vectors), labels, metric="cosine"))


def choose_clusters(vectors: np.ndarray, *, k: int = 0, max_k: int = 6, seed: int = 0) -> Tuple[np.ndarray, int, float]:
    """Cluster labels, the k used and its silhouette.

    ``k`` > 0 fixes the number of clusters. ``k`` = 0 tries 2..max_k (at most n-1)
    and keeps the k with the highest cosine silhouette; fewer than 3 rows give one
    cluster.
    """
    n = len(vectors)
    if k > 0:
        labels = kmeans_cosine(vectors, k, seed=seed)
        return labels, int(labels.max(initial=0)) + 1, silhouette_cosine(vectors, labels)
    if n < 3:
        return np.zeros(n, dtype=np.int64), 1, 0.0
    best = (np.zeros(n, dtype=np.int64), 1, -np.inf)
    for candidate in range(2, min(max_k, n - 1) + 1):
        labels = kmeans_cosine(vectors, candidate, seed=seed)
        score = silhouette_cosine(vectors, labels)
        if score > best[2] + 1e-12:
            best = (labels, int(labels.max()) + 1, score)
    return best


def repel_labels(
    anchors: np.ndarray,
    *,
    min_distance: float = 0.05,
    offset: float = 0.025,
    n_iter: int = 200,
    step: float = 0.5,
    pull: float = 0.005,
    bounds: Optional[Tuple[float, float]] = (0.02, 0.98),
) -> np.ndarray:
    """Label positions near their anchor points, pushed apart until no two labels
    (nor a label and another label's point) are closer than ``min_distance``.

    Coordinates are in axes fractions (0..1). Each label starts ``offset`` away
    from its point, away from the points' centre, then overlapping pairs are pushed
    apart, a weak spring pulls labels back to their point, and positions are kept
    inside ``bounds``.
    """
    anchors = np.asarray(anchors, dtype=np.float64)
    n = len(anchors)
    if n == 0:
        return anchors.copy()
    direction = anchors - anchors.mean(axis=0)
    norms = np.linalg.norm(direction, axis=1, keepdims=True)
    angles = np.arange(n) * 2.399963  # golden angle: distinct directions for coincident points
    fallback = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    direction = np.where(norms > 1e-9, direction / np.maximum(norms, 1e-12), fallback)
    positions = anchors + offset * direction
    # Minimum distance from each label to every label and to every point;
    # its own point only has to stay ``offset`` away.
    threshold = np.hstack([np.full((n, n), min_distance), np.full((n, n), 0.6 * min_distance)])
    threshold[np.arange(n), n + np.arange(n)] = offset
    threshold[np.arange(n), np.arange(n)] = 0.0
    for _ in range(n_iter):
        delta = positions[:, None, :] - np.vstack([positions, anchors])[None, :, :]
        distance = np.linalg.norm(delta, axis=2)
        overlap = np.clip(threshold - distance, 0.0, None)
        if not overlap.any():
            break
        unit_delta = np.where(
            distance[..., None] > 1e-9, delta / np.maximum(distance, 1e-12)[..., None], fallback[:, None, :]
        )
        push = (overlap[..., None] * unit_delta).sum(axis=1)
        positions = positions + step * push + pull * (anchors - positions)
        if bounds is not None:
            positions = np.clip(positions, bounds[0], bounds[1])
    return positions
