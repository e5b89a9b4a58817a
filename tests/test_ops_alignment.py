import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.ops.alignment import flatten_spans, gather_rows, only_piece, stack_indices
from spacy_ctxvec.ops.pooling import pool_mean


def test_flatten_spans_row_order():
    hidden = np.arange(2 * 3 * 2).reshape(2, 3, 2)
    flat = flatten_spans(hidden)
    assert flat.shape == (6, 2)
    np.testing.assert_array_equal(flat[4], hidden[1, 1])


def test_token_in_two_overlapping_windows_pools_both():
    # Window 0 rows 0..3, window 1 rows 4..7; the token sits at row 2 and row 5.
    hidden = np.zeros((2, 4, 1), dtype=np.float32)
    hidden[0, 2, 0] = 1.0
    hidden[1, 1, 0] = 3.0
    rows = gather_rows(hidden, np.array([2, 5]))
    np.testing.assert_array_equal(pool_mean(rows, np.array([2])), [[2.0]])


def test_index_outside_output_raises():
    with pytest.raises(CtxvecError, match=r"\[CTX-E006\]"):
        gather_rows(np.zeros((1, 3, 2)), np.array([0, 3]))


def test_only_piece_flags_tokens_made_of_that_piece_alone():
    # Rows: [CLS]=1, "i"=5, [UNK]=9, "love"=6, [UNK]=9 | window 2: [UNK]=9, "x"=7, [SEP]=2.
    ids = np.array([[1, 5, 9, 6, 9], [9, 7, 2, 0, 0]])
    # Tokens: "i" (row 1), an unknown word (rows 2 and 5: two windows), "love" (3),
    # a word of one unknown and one known piece (4, 6), a token without a row.
    indices = np.array([1, 2, 5, 3, 4, 6])
    lengths = np.array([1, 2, 1, 2, 0])
    assert only_piece(ids, indices, lengths, 9).tolist() == [False, True, False, False, False]
    assert only_piece(ids, indices, lengths, 6).tolist() == [False, False, True, False, False]
    assert only_piece(ids, np.array([], dtype=np.int64), np.zeros(0, dtype=np.int64), 9).tolist() == []
    with pytest.raises(CtxvecError, match=r"\[CTX-E006\]"):
        only_piece(ids, np.array([10]), np.array([1]), 9)


def test_stacked_indices_take_each_outputs_rows_in_one_gather():
    rng = np.random.default_rng(0)
    # Three Docs' outputs: 2 windows x 4, 1 x 3, 1 x 5 rows; the middle Doc aligns to nothing.
    flats = [flatten_spans(rng.normal(size=shape)) for shape in [(2, 4, 3), (1, 3, 3), (1, 5, 3)]]
    indices = [np.array([1, 2, 5, 2]), np.zeros(0, dtype=np.int64), np.array([4, 0])]
    stacked = stack_indices(indices, [len(flat) for flat in flats])
    assert stacked.tolist() == [1, 2, 5, 2, 15, 11]  # the third output starts at row 8 + 3
    expected = np.concatenate([gather_rows(flat, i) for flat, i in zip(flats, indices)])
    np.testing.assert_array_equal(np.concatenate(flats)[stacked], expected)
    assert stack_indices([], []).shape == (0,)


def test_stacked_indices_check_each_output_against_its_own_rows():
    # Row 4 exists in the stack of both outputs, but not in the first output (4 rows).
    with pytest.raises(CtxvecError, match=r"\[CTX-E006\]"):
        stack_indices([np.array([4]), np.array([0])], [4, 4])
