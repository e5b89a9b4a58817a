"""ops.context_windows: each token's context, the mean of its neighbours' vectors."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_ctxvec.ops.context_windows import window_context_means


def test_window_context_means_average_the_valid_neighbours_and_leave_the_token_out():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(9, 4))
    valid = np.array([True, True, False, True, True, True, True, False, True])
    means = window_context_means(vectors, valid, window=2)
    for i in range(9):
        around = [j for j in range(max(0, i - 2), min(9, i + 3)) if j != i and valid[j]]
        np.testing.assert_allclose(means[i], vectors[around].mean(axis=0), rtol=1e-5, atol=1e-6)
    assert means.dtype == np.float32


def test_window_context_means_without_neighbours_are_zero_not_nan():
    one = window_context_means(np.ones((1, 3)), np.array([True]), window=5)
    assert one.shape == (1, 3) and not one.any()
    none_valid = window_context_means(np.ones((4, 3)), np.zeros(4, dtype=bool), window=5)
    assert not none_valid.any() and np.isfinite(none_valid).all()
    with_nan = window_context_means(np.array([[np.nan, 0.0], [1.0, 1.0], [3.0, 3.0]]), np.ones(3, dtype=bool), window=1)
    np.testing.assert_allclose(with_nan, [[1.0, 1.0], [3.0, 3.0], [1.0, 1.0]])  # a non-finite row is no neighbour
    assert window_context_means(np.ones((3, 2)), np.ones(3, dtype=bool), window=0).sum() == 0
    assert window_context_means(np.zeros((0, 2)), np.zeros(0, dtype=bool)).shape == (0, 2)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=14), st.integers(1, 4))
def test_window_context_means_stay_in_the_tokens_segment(segment_steps, window):
    segments = np.cumsum(np.array(segment_steps) == 0)  # a new segment where the step is 0
    n = len(segments)
    vectors = np.random.default_rng(n).normal(size=(n, 3))
    valid = np.ones(n, dtype=bool)
    means = window_context_means(vectors, valid, window, segments)
    for i in range(n):
        around = [j for j in range(max(0, i - window), min(n, i + window + 1)) if j != i and segments[j] == segments[i]]
        expected = vectors[around].mean(axis=0) if around else np.zeros(3)
        np.testing.assert_allclose(means[i], expected, rtol=1e-5, atol=1e-6)
    one_segment = window_context_means(vectors, valid, window, np.zeros(n, dtype=np.int64))
    np.testing.assert_array_equal(one_segment, window_context_means(vectors, valid, window))
