import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.ops.pooling import pool_first, pool_first_last, pool_last, pool_max, pool_mean, segment_starts

# Three tokens: two pieces, zero pieces, three pieces.
ROWS = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 0.0], [6.0, -3.0], [3.0, 9.0]], dtype=np.float32)
LENGTHS = np.array([2, 0, 3])


def test_segment_starts():
    assert segment_starts(np.array([2, 0, 3])).tolist() == [0, 2, 2]
    assert segment_starts(np.array([], dtype=int)).tolist() == []


def test_pool_mean_hand_computed():
    expected = np.array([[2.0, 1.0], [0.0, 0.0], [3.0, 2.0]], dtype=np.float32)
    np.testing.assert_allclose(pool_mean(ROWS, LENGTHS), expected)


def test_pool_first_last_max_hand_computed():
    np.testing.assert_array_equal(pool_first(ROWS, LENGTHS), [[1, 2], [0, 0], [0, 0]])
    np.testing.assert_array_equal(pool_last(ROWS, LENGTHS), [[3, 0], [0, 0], [3, 9]])
    np.testing.assert_array_equal(pool_max(ROWS, LENGTHS), [[3, 2], [0, 0], [6, 9]])
    np.testing.assert_array_equal(pool_first_last(ROWS, LENGTHS), [[1, 2, 3, 0], [0, 0, 0, 0], [0, 0, 3, 9]])


@pytest.mark.parametrize("pool", [pool_mean, pool_first, pool_last, pool_max])
def test_zero_pieces_everywhere_gives_zeros(pool):
    out = pool(np.zeros((0, 4), dtype=np.float32), np.array([0, 0]))
    assert out.shape == (2, 4)
    assert not out.any()


def test_leading_and_trailing_empty_tokens():
    rows = np.array([[2.0], [4.0]], dtype=np.float32)
    out = pool_mean(rows, np.array([0, 2, 0]))
    np.testing.assert_array_equal(out, [[0.0], [3.0], [0.0]])
    np.testing.assert_array_equal(pool_last(rows, np.array([0, 2, 0])), [[0.0], [4.0], [0.0]])


def test_lengths_that_do_not_match_rows_raise_coded_error():
    with pytest.raises(CtxvecError, match=r"\[CTX-E007\]"):
        pool_mean(ROWS, np.array([1, 1]))


def test_pool_mean_keeps_float16():
    rows = ROWS.astype(np.float16)
    assert pool_mean(rows, LENGTHS).dtype == np.float16


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 6), max_size=40),
    scale=st.sampled_from([1e-3, 1.0, 1e4]),
    seed=st.integers(0, 2**16),
)
def test_pool_mean_is_each_tokens_float64_mean(lengths, scale, seed):
    """The vectorised mean equals, bit for bit, each token's rows summed in float64 in order
    and divided by its count (single-piece tokens keep their row; zero-piece tokens get zeros)."""
    counts = np.asarray(lengths, dtype=np.int64)
    rows = (np.random.default_rng(seed).normal(size=(int(counts.sum()), 5)) * scale).astype(np.float32)
    expected = np.zeros((len(counts), 5), dtype=np.float32)
    start = 0
    for i, n in enumerate(counts):
        if n:
            total = np.zeros(5, dtype=np.float64)
            for row in rows[start : start + n]:
                total += row
            expected[i] = total / n
        start += n
    assert np.array_equal(pool_mean(rows, counts), expected)
