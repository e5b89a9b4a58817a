import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.ops.alignment import (
    flatten_spans,
    gather_rows,
    merge_window_copies,
    only_piece,
    read_with_another_as,
    stack_indices,
)
from spacy_ctxvec.ops.pooling import pool_first, pool_last, pool_max, pool_mean


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


def test_read_with_another_as_flags_tokens_sharing_an_unknown_row():
    # Rows: [CLS]=1, "i"=5, [UNK]=9 (read for "bank" and an emoji glued to it), "so"=6,
    # [UNK]=9 (an emoji alone) | window 2: the same [UNK] again, "x"=7, [SEP]=2.
    ids = np.array([[1, 5, 9, 6, 9], [9, 7, 2, 0, 0]])
    # Tokens: "i" (1), "bank" (2, and 5 in the second window), the glued emoji (2, 5),
    # "so" (3), the emoji alone (4), a token without a row, "x" (6).
    indices = np.array([1, 2, 5, 2, 5, 3, 4, 6])
    lengths = np.array([1, 2, 2, 1, 1, 0, 1])
    assert read_with_another_as(ids, indices, lengths, 9).tolist() == [False, True, True, False, False, False, False]
    # a token of two windows' copies of its own piece shares nothing
    assert not read_with_another_as(ids, np.array([2, 5]), np.array([2]), 9).any()
    # a shared known piece ("so" read for two tokens) is not flagged
    assert not read_with_another_as(ids, np.array([3, 3]), np.array([1, 1]), 9).any()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 7), max_size=3), min_size=1, max_size=6))
def test_read_with_another_as_only_flags_tokens_of_that_piece_whose_row_another_has(rows_per_token):
    ids = np.array([9, 9, 9, 5, 6, 9, 7, 9])
    indices = np.array([row for rows in rows_per_token for row in rows], dtype=np.int64)
    lengths = np.array([len(rows) for rows in rows_per_token])
    flags = read_with_another_as(ids, indices, lengths, 9)
    for k, rows in enumerate(rows_per_token):
        others = {row for j, other in enumerate(rows_per_token) if j != k for row in other}
        expected = bool(rows) and all(ids[r] == 9 for r in rows) and bool(set(rows) & others)
        assert flags[k] == expected


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


def test_copies_of_a_wordpiece_in_two_windows_are_averaged():
    # Windows of 4 rows; token 0 has one piece in window 0, token 1 two pieces in both
    # windows (rows 2, 3 and 4, 5), token 2 none, token 3 one piece in window 1.
    positions, lengths = np.array([1, 2, 3, 4, 5, 6]), np.array([1, 4, 0, 1])
    rows = np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32)
    ids = np.array([7, 8, 9, 8, 9, 5])
    merged, merged_lengths = merge_window_copies(rows, lengths, positions // 4, positions, ids)
    assert merged_lengths.tolist() == [1, 2, 0, 1] and merged.dtype == np.float32
    np.testing.assert_allclose(merged, [rows[0], (rows[1] + rows[3]) / 2, (rows[2] + rows[4]) / 2, rows[5]], rtol=1e-6)
    # first and last read the token's own first and last piece, in both windows
    np.testing.assert_allclose(pool_first(merged, merged_lengths)[1], (rows[1] + rows[3]) / 2, rtol=1e-6)
    np.testing.assert_allclose(pool_last(merged, merged_lengths)[1], (rows[2] + rows[4]) / 2, rtol=1e-6)
    # the alignment may list a window's rows in any order: its rows are ranked by position
    swapped = [0, 2, 1, 3, 4, 5]
    again = merge_window_copies(rows[swapped], lengths, (positions // 4)[swapped], positions[swapped], ids[swapped])
    np.testing.assert_allclose(again[0], merged, rtol=1e-6)


def test_a_token_the_windows_read_differently_keeps_every_row():
    """Cut at one window's maximum length (one piece of two), or read as other pieces (a
    SentencePiece tokenizer's '▁' before a window's first word): matching copies by their
    place would average different pieces, so the token keeps all its rows."""
    rows = np.arange(10, dtype=np.float32)[:, None] * np.ones((1, 2), dtype=np.float32)
    # token 0: window 0 holds its first piece only (cut), window 1 both; token 1: ids differ
    lengths = np.array([3, 4])
    positions = np.array([3, 4, 5, 6, 7, 8, 9])
    windows = np.array([0, 1, 1, 1, 1, 2, 2])
    ids = np.array([11, 11, 12, 20, 21, 99, 20])
    merged, merged_lengths = merge_window_copies(rows[:7], lengths, windows, positions, ids)
    assert merged_lengths.tolist() == [3, 4] and np.array_equal(merged, rows[:7])
    np.testing.assert_allclose(pool_mean(merged, merged_lengths), pool_mean(rows[:7], lengths))
    same_ids = np.array([11, 11, 12, 20, 21, 20, 21])
    assert merge_window_copies(rows[:7], lengths, windows, positions, same_ids)[1].tolist() == [3, 2]


def test_float16_copies_are_summed_without_overflow():
    rows = np.full((2, 1), 40000, dtype=np.float16)  # their sum is past float16's largest, 65504
    merged, lengths = merge_window_copies(rows, np.array([2]), np.array([0, 1]), np.array([3, 9]))
    assert lengths.tolist() == [1] and merged.dtype == np.float16 and merged[0, 0] == 40000


def test_without_a_token_in_two_windows_nothing_changes():
    rows, lengths = np.ones((3, 2), dtype=np.float32), np.array([2, 0, 1])
    merged, merged_lengths = merge_window_copies(rows, lengths, np.array([0, 0, 1]), np.arange(3))
    assert merged is rows and merged_lengths.tolist() == [2, 0, 1]
    empty = merge_window_copies(np.zeros((0, 2), dtype=np.float32), np.array([0, 0]), np.zeros(0), np.zeros(0))
    assert empty[0].shape == (0, 2) and empty[1].tolist() == [0, 0]


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(st.integers(0, 3), min_size=1, max_size=12),
    copies=st.lists(st.integers(1, 3), min_size=12, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_mean_pooling_is_unchanged_and_every_piece_kept_once(pieces, copies, seed):
    """Each token's pieces in 1-3 windows (all of them in each): the mean over its rows is
    the mean over its merged pieces, and it keeps one row per piece."""
    token_rows, windows, lengths = [], [], []
    rng = np.random.default_rng(seed)
    for token, n_pieces in enumerate(pieces):
        n_windows = copies[token] if n_pieces else 1
        for window in range(n_windows):
            token_rows.append(rng.normal(size=(n_pieces, 4)))
            windows += [token + window] * n_pieces
        lengths.append(n_pieces * n_windows)
    rows = np.concatenate(token_rows).astype(np.float32)
    order = np.arange(len(rows))
    merged, merged_lengths = merge_window_copies(rows, np.array(lengths), np.array(windows), order)
    assert merged_lengths.tolist() == pieces
    np.testing.assert_allclose(pool_mean(merged, merged_lengths), pool_mean(rows, np.array(lengths)), atol=1e-5)
    assert (pool_max(merged, merged_lengths) <= pool_max(rows, np.array(lengths)) + 1e-6).all()


def test_only_piece_passes_ignored_pieces_but_needs_the_piece_itself():
    """Token 0: a lone marker (1) and the unknown piece (0); token 1: a lone marker only;
    token 2: a known piece; token 3: no piece."""
    piece_ids = np.array([[1, 0, 1, 7]])
    indices, lengths = np.array([0, 1, 2, 3]), np.array([2, 1, 1, 0])
    assert only_piece(piece_ids, indices, lengths, 0).tolist() == [False, False, False, False]
    assert only_piece(piece_ids, indices, lengths, 0, {1}).tolist() == [True, False, False, False]
