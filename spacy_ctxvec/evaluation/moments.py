"""Corpus statistics of vectors for centring and whitening (pure numpy)."""

from dataclasses import dataclass

import numpy as np


@dataclass
class Moments:
    """Running count, sum and sum of outer products of vectors, per view.

    ``sums`` is (n_views, width) and ``outer`` (n_views, width, width), both float64.
    """

    count: int
    sums: np.ndarray
    outer: np.ndarray

    @classmethod
    def empty(cls, n_views: int, width: int) -> "Moments":
        return cls(0, np.zeros((n_views, width)), np.zeros((n_views, width, width)))

    def add(self, rows: np.ndarray) -> None:
        """Add (n_rows, n_views, width) vectors."""
        rows = np.asarray(rows, dtype=np.float64)
        self.count += rows.shape[0]
        self.sums += rows.sum(axis=0)
        by_view = rows.transpose(1, 0, 2)
        self.outer += by_view.transpose(0, 2, 1) @ by_view

    def merge(self, other: "Moments") -> "Moments":
        """The moments of both sets of vectors."""
        return Moments(self.count + other.count, self.sums + other.sums, self.outer + other.outer)

    def mean(self) -> np.ndarray:
        """(n_views, width) mean vector; zeros when empty."""
        return self.sums / max(self.count, 1)

    def covariance(self) -> np.ndarray:
        mean = self.mean()
        return self.outer / max(self.count, 1) - np.einsum("vi,vj->vij", mean, mean)

    def whitening(self, n_drop: int = 0, epsilon: float = 1e-6) -> np.ndarray:
        """(n_views, width, width) matrices W so that (x - mean) @ W has identity
        covariance; the ``n_drop`` leading principal directions are removed
        (all-but-the-top, Mu & Viswanath 2018) instead of scaled up."""
        values, vectors = np.linalg.eigh(self.covariance())  # ascending eigenvalues
        scale = 1.0 / np.sqrt(np.maximum(values, 0.0) + epsilon)
        if n_drop > 0:
            scale[:, -n_drop:] = 0.0
        return np.einsum("vij,vj->vij", vectors, scale)
