"""Metrics and small classifiers for the evaluations (pure numpy + scipy, no spaCy).

Everything is NaN-free: an undefined correlation (fewer than two pairs or a constant
input) is 0.0, and a zero vector has cosine 0.0 with anything.
"""
from dataclasses import dataclass
from typing import Tuple

import numpy as np
from scipy.stats import rankdata


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation; 0.0 when undefined."""
    x = np.asarray(x, dtype=np.float64) - np.mean(x)
    y = np.asarray(y, dtype=np.float64) - np.mean(y)
    denominator = float(np.sqrt((x @ x) * (y @ y)))
    return float(x @ y / denominator) if len(x) > 1 and denominator > 0 else 0.0


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho (Pearson of average ranks, ties handled); 0.0 when undefined."""
    if len(x) < 2:
        return 0.0
    return pearson(rankdata(x), rankdata(y))


def _residuals(values: np.ndarray, control: np.ndarray) -> np.ndarray:
    design = np.column_stack([np.ones_like(control), control])
    coefficients, *_ = np.linalg.lstsq(design, values, rcond=None)
    residuals = values - design @ coefficients
    # Constant values, or round-off left when control explains them fully: no variation left.
    scale = np.linalg.norm(values - values.mean())
    if scale == 0 or np.linalg.norm(residuals) <= 1e-9 * scale:
        return np.zeros_like(residuals)
    return residuals


def partial_spearman(x: np.ndarray, y: np.ndarray, control: np.ndarray) -> float:
    """Spearman of x and y with ``control`` partialled out: rank all three, regress
    the ranks of x and of y on the ranks of control, correlate the residuals."""
    if len(x) < 3:
        return 0.0
    rank_control = rankdata(control)
    return pearson(_residuals(rankdata(x), rank_control), _residuals(rankdata(y), rank_control))


def accuracy(predicted: np.ndarray, labels: np.ndarray) -> float:
    return float(np.mean(np.asarray(predicted, dtype=bool) == np.asarray(labels, dtype=bool))) if len(labels) else 0.0


def fit_threshold(scores: np.ndarray, labels: np.ndarray) -> Tuple[float, float]:
    """The threshold t maximising the accuracy of ``scores > t`` against ``labels``,
    and that accuracy. t is the midpoint between two neighbouring distinct scores
    (ties stay on one side); among equally good cuts the middle one wins."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=bool)
    order = np.argsort(scores, kind="stable")
    sorted_scores, sorted_labels = scores[order], labels[order]
    n = len(scores)
    # Cut k predicts False for sorted rows [0, k) and True for [k, n).
    negatives_below = np.concatenate([[0], np.cumsum(~sorted_labels)])
    positives_above = int(sorted_labels.sum()) - np.concatenate([[0], np.cumsum(sorted_labels)])
    correct = negatives_below + positives_above
    valid = np.ones(n + 1, dtype=bool)
    valid[1:n] = sorted_scores[1:] > sorted_scores[:-1]
    correct = np.where(valid, correct, -1)
    best_cuts = np.flatnonzero(correct == correct.max())
    cut = int(best_cuts[len(best_cuts) // 2])
    if cut == 0:
        threshold = sorted_scores[0] - 1.0
    elif cut == n:
        threshold = sorted_scores[-1]
    else:
        threshold = (sorted_scores[cut - 1] + sorted_scores[cut]) / 2
    return float(threshold), float(correct[cut] / n)


@dataclass
class LogisticRegression:
    """L2-regularised logistic regression on standardised features."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def decision(self, features: np.ndarray) -> np.ndarray:
        return ((features - self.mean) / self.scale) @ self.weights + self.bias

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.decision(features) > 0


def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = 1.0, n_iter: int = 50) -> LogisticRegression:
    """Newton's method (IRLS) on the penalised log-likelihood; the bias is not penalised.
    Few features, so each step solves a small dense system; converges in ~10 steps."""
    features = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.column_stack([(features - mean) / scale, np.ones(len(features))])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    theta = np.zeros(design.shape[1])
    for _ in range(n_iter):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -30, 30)))
        gradient = design.T @ (p - y) + penalty * theta
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty) + 1e-9 * np.eye(len(theta))
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return LogisticRegression(mean=mean, scale=scale, weights=theta[:-1], bias=float(theta[-1]))


def group_folds(groups: np.ndarray, n_folds: int, seed: int = 0) -> np.ndarray:
    """A fold number per row such that rows of one group share a fold (so that
    cross-validation never sees a test word in training)."""
    _, group_ids = np.unique(np.asarray(groups), return_inverse=True)
    n_groups = int(group_ids.max()) + 1 if len(group_ids) else 0
    group_fold = np.random.default_rng(seed).permutation(n_groups) % n_folds
    return group_fold[group_ids]
