import numpy as np
import pytest
from scipy.stats import spearmanr

from spacy_ctxvec.evaluation.metrics import (
    accuracy,
    fit_logistic,
    fit_threshold,
    group_folds,
    partial_spearman,
    pearson,
    spearman,
)


def test_spearman_by_hand_with_ties():
    # ranks x: 1, 2.5, 2.5, 4; ranks y: 1, 2, 3, 4 -> rho = 0.9486833
    assert spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(0.9486833, abs=1e-6)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    x, y = np.random.default_rng(0).normal(size=(2, 50))
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)


def test_undefined_correlations_are_zero_not_nan():
    assert spearman([1.0, 1.0, 1.0], [1, 2, 3]) == 0.0
    assert spearman([1.0], [2.0]) == 0.0
    assert pearson(np.zeros(4), np.arange(4)) == 0.0


def test_partial_spearman_removes_a_shared_cause():
    rng = np.random.default_rng(1)
    frequency = rng.normal(size=2000)
    x = frequency + 0.1 * rng.normal(size=2000)
    y = frequency + 0.1 * rng.normal(size=2000)
    assert spearman(x, y) > 0.9
    assert abs(partial_spearman(x, y, frequency)) < 0.1
    # With an unrelated control it stays the raw correlation, up to noise.
    assert partial_spearman(x, y, rng.normal(size=2000)) == pytest.approx(spearman(x, y), abs=0.02)


def test_partial_spearman_by_hand():
    # ranks: x 1..4, y (1,3,2,4), z (1,2,3,4): residualised on z, x -> 0 everywhere.
    assert partial_spearman([1, 2, 3, 4], [1, 3, 2, 4], [1, 2, 3, 4]) == 0.0
    x, y, z = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5], [1, 1, 2, 2, 3]
    rx, ry, rz = np.array([1, 2, 3, 4, 5.0]), np.array([2, 1, 4, 3, 5.0]), np.array([1.5, 1.5, 3.5, 3.5, 5])

    def residual(v):
        slope = np.cov(v, rz, bias=True)[0, 1] / np.var(rz)
        return v - v.mean() - slope * (rz - rz.mean())

    expected = np.corrcoef(residual(rx), residual(ry))[0, 1]
    assert partial_spearman(x, y, z) == pytest.approx(expected)


def test_fit_threshold_toy_set():
    scores = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    labels = np.array([False, False, True, False, True, True])
    threshold, train_accuracy = fit_threshold(scores, labels)
    # Cuts after 0.2 and after 0.6 both give 5/6; the middle of the best cuts is taken.
    assert train_accuracy == pytest.approx(5 / 6)
    assert accuracy(scores > threshold, labels) == pytest.approx(5 / 6)
    assert threshold in (pytest.approx(0.25), pytest.approx(0.65))


def test_fit_threshold_never_splits_ties_and_handles_one_side():
    threshold, acc = fit_threshold(np.array([0.5, 0.5, 0.5]), np.array([True, False, True]))
    assert acc == pytest.approx(2 / 3)
    assert np.all(np.array([0.5, 0.5, 0.5]) > threshold)
    threshold, acc = fit_threshold(np.array([0.1, 0.2]), np.array([False, False]))
    assert acc == 1.0 and threshold >= 0.2


def test_logistic_regression_separates_and_generalises():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(400, 3))
    labels = features[:, 0] - 2 * features[:, 2] > 0
    model = fit_logistic(features, labels, l2=0.1)
    assert accuracy(model.predict(features), labels) > 0.97
    weights = model[-1].coef_[0]
    assert weights[0] > 0 and weights[2] < 0 and abs(weights[1]) < abs(weights[2])
    constant = fit_logistic(np.ones((10, 1)), np.arange(10) < 7)
    assert np.isfinite(constant[-1].coef_).all() and constant.predict(np.ones((1, 1)))[0]


def test_group_folds_keep_groups_together():
    groups = np.array(["a", "b", "a", "c", "d", "b", "e"])
    folds = group_folds(groups, 3, seed=0)
    for group in set(groups):
        assert len(set(folds[groups == group])) == 1
    assert set(folds) <= {0, 1, 2} and len(set(folds)) == 3
    np.testing.assert_array_equal(folds, group_folds(groups, 3, seed=0))


def test_partial_spearman_of_a_constant_is_zero():
    rng = np.random.default_rng(0)
    for n in (5, 17):
        assert partial_spearman(np.full(n, 3.7), rng.normal(size=n), rng.normal(size=n)) == 0.0
