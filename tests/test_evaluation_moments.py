import numpy as np

from spacy_ctxvec.evaluation.moments import Moments


def test_moments_match_numpy_and_merge():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(200, 2, 4)) @ rng.normal(size=(4, 4)) + 3.0
    first, second = Moments.empty(2, 4), Moments.empty(2, 4)
    first.add(rows[:50])
    first.add(rows[50:120])
    second.add(rows[120:])
    merged = first.merge(second)
    assert merged.count == 200
    np.testing.assert_allclose(merged.mean(), rows.mean(axis=0))
    for view in range(2):
        np.testing.assert_allclose(merged.covariance()[view], np.cov(rows[:, view].T, bias=True), atol=1e-10)


def test_whitening_gives_identity_covariance_and_drops_top_directions():
    rng = np.random.default_rng(1)
    rows = (rng.normal(size=(500, 1, 3)) * np.array([10.0, 1.0, 0.1])) + 5.0
    moments = Moments.empty(1, 3)
    moments.add(rows)
    white = (rows[:, 0] - moments.mean()[0]) @ moments.whitening()[0]
    np.testing.assert_allclose(np.cov(white.T, bias=True), np.eye(3), atol=1e-4)
    dropped = (rows[:, 0] - moments.mean()[0]) @ moments.whitening(n_drop=1)[0]
    # Eigenvalues ascend, so the last column is the dominant (first) axis: zeroed out,
    # and what is left does not follow that axis.
    np.testing.assert_allclose(dropped[:, -1], 0.0)
    for column in range(2):
        assert abs(np.corrcoef(dropped[:, column], rows[:, 0, 0])[0, 1]) < 0.05


def test_empty_moments_have_zero_mean():
    assert np.all(Moments.empty(2, 3).mean() == 0)
