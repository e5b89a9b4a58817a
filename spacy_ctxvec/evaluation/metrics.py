"""Metrics and small classifiers for the evaluations (numpy, scipy and scikit-learn, no spaCy).

Everything is NaN-free: an undefined correlation (fewer than two pairs or a constant
input) is 0.0, and a zero vector has cosine 0.0 with anything.
"""

from typing import Tuple

import numpy as np
from scipy.stats import rankdata
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler


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


def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = 1.0) -> Pipeline:
    """scikit-learn L2 logistic regression (C = 1 / l2) on standardised features."""
    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0 / l2, max_iter=1000))
    return model.fit(np.asarray(features, dtype=np.float64), np.asarray(labels, dtype=bool))


def group_folds(groups: np.ndarray, n_folds: int, seed: int = 0) -> np.ndarray:
    """A fold number per row such that rows of one group share a fold (so that
    cross-validation never sees a test word in training): scikit-learn's GroupKFold."""
    groups = np.asarray(groups)
    folds = np.zeros(len(groups), dtype=np.int64)
    splitter = GroupKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    for fold, (_, test_rows) in enumerate(splitter.split(np.zeros((len(groups), 1)), groups=groups)):
        folds[test_rows] = fold
    return folds
