"""spacy_ctxvec.ops.cosine: NaN-free cosine helpers."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from spacy_ctxvec.ops.cosine import cosine, cosine_shift, normalise_rows, pairwise_cosine, rowwise_cosine


def test_cosine_shift():
    shift, defined = cosine_shift(
        np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    )
    np.testing.assert_allclose(shift, [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(defined, [True, True, False])


def test_rowwise_cosine_by_hand_and_zero_rows():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[0.0, 2.0], [2.0, 2.0], [1.0, 0.0]])
    np.testing.assert_allclose(rowwise_cosine(a, b), [0.0, 1.0, 0.0])
    stacked = rowwise_cosine(a[:, None, :].repeat(3, 1), b[:, None, :].repeat(3, 1))
    assert stacked.shape == (3, 3)


def test_cosine_and_pairwise_of_zero_vectors_are_zero():
    from spacy_ctxvec.ops.cosine import cosine, normalise_rows, pairwise_cosine

    assert cosine(np.array([3.0, 4.0]), np.array([6.0, 8.0])) == pytest.approx(1.0)
    assert cosine(np.zeros(2), np.array([1.0, 0.0])) == 0.0 and cosine(None, np.ones(2)) == 0.0
    np.testing.assert_allclose(normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0]])), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(
        pairwise_cosine(np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])), [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    )


def test_mean_cosine_between_groups_is_the_mean_over_pairs_of_different_groups():
    from spacy_ctxvec.ops.cosine import mean_cosine_between_groups, normalise_rows, pairwise_cosine

    rng = np.random.default_rng(0)
    rows = rng.normal(size=(9, 4)) + 0.5
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    sums = np.stack([normalise_rows(rows[groups == g]).sum(axis=0) for g in range(3)])
    different = groups[:, None] != groups[None, :]
    expected = pairwise_cosine(rows)[different].mean()
    assert mean_cosine_between_groups(sums, np.bincount(groups)) == pytest.approx(expected, abs=1e-12)
    assert mean_cosine_between_groups(sums[:1], np.array([3])) == 0.0  # one group: no pairs


@settings(max_examples=200, deadline=None)
@given(arrays(np.float32, 384, elements=st.floats(-10, 10, width=32)))
@example(vector=np.full(384, 4.1875, dtype=np.float32))  # 0.9999999999999998 before, in some memory layouts
def test_a_vector_has_cosine_exactly_one_with_itself(vector):
    if np.any(vector):
        assert cosine(vector, vector.copy()) == 1.0
        assert rowwise_cosine(np.stack([vector, -vector]), np.stack([vector.copy(), vector])).tolist()[0] == 1.0


def test_huge_and_tiny_rows_keep_their_direction():
    """Values near 1e200 overflowed the squared norm (NaN), values near 1e-200 underflowed to a zero row."""
    rows = np.array([[1e200, 2e200], [1e-200, 2e-200], [1.0, 2.0]])
    with np.errstate(all="raise"):
        units = normalise_rows(rows)
        assert np.allclose(units, [1, 2] / np.sqrt(5.0))
        assert np.allclose(rowwise_cosine(rows, rows[::-1]), 1.0)
        assert cosine(rows[0], np.array([-2e200, 1e200])) == pytest.approx(0.0)
        assert np.allclose(pairwise_cosine(rows), 1.0)


def test_rows_with_inf_or_nan_are_zero_rows_not_nan():
    units = normalise_rows(np.array([[np.inf, 1.0], [np.nan, 1.0], [3.0, 4.0]]))
    assert np.isfinite(units).all() and not units[:2].any() and np.allclose(units[2], [0.6, 0.8])
