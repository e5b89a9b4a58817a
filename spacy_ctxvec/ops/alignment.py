"""Map spaCy tokens to rows of the transformer output."""

from typing import Any, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors


def flatten_spans(hidden: Any) -> Any:
    """(n_spans, padded_len, width) -> (n_spans * padded_len, width), same array module."""
    return hidden.reshape(-1, hidden.shape[-1])


def check_alignment(indices: np.ndarray, n_rows: int) -> None:
    """Refuse alignment indices outside the flattened output."""
    if len(indices) and (int(indices.max()) >= n_rows or int(indices.min()) < 0):
        bad = int(indices.max()) if int(indices.max()) >= n_rows else int(indices.min())
        raise CtxvecError(Errors.E006.format(row=bad, n_rows=n_rows))


def gather_rows(hidden: Any, indices: np.ndarray) -> Any:
    """The wordpiece rows that tokens align to, in alignment order.

    ``indices`` index the flattened (n_spans * padded_len) rows; a token that lies in
    two overlapping windows lists rows of both, so pooling sees all of them.
    """
    flat = flatten_spans(hidden)
    check_alignment(indices, flat.shape[0])
    return flat[indices]


def stack_indices(indices: Sequence[np.ndarray], n_rows: Sequence[int]) -> np.ndarray:
    """Several outputs' row indices as one: each checked against its own output's
    ``n_rows`` flattened rows and shifted past the rows of the outputs before it, so that
    one gather over the outputs' flattened rows stacked in order takes all of them."""
    for doc_indices, rows in zip(indices, n_rows):
        check_alignment(doc_indices, rows)
    starts = np.concatenate([[0], np.cumsum(np.asarray(n_rows, dtype=np.int64))[:-1]]).astype(np.int64)
    shifted = [np.asarray(doc_indices, dtype=np.int64) + start for doc_indices, start in zip(indices, starts)]
    return np.concatenate(shifted) if shifted else np.zeros(0, dtype=np.int64)


def only_piece(piece_ids: np.ndarray, indices: np.ndarray, lengths: np.ndarray, piece: int) -> np.ndarray:
    """Per token, whether every wordpiece it aligns to is ``piece`` (e.g. the tokenizer's
    unknown piece, [UNK]); False for a token that aligns to none. ``piece_ids`` holds the
    ids of the (flattened) rows that ``indices`` index; ``lengths`` are the tokens' numbers
    of rows, in order (as for pooling)."""
    flat = np.asarray(piece_ids).reshape(-1)
    check_alignment(indices, flat.shape[0])
    lengths = np.asarray(lengths, dtype=np.int64)
    hits = np.concatenate([[0], np.cumsum(flat[indices] == piece, dtype=np.int64)])
    ends = np.cumsum(lengths)
    return (lengths > 0) & (hits[ends] - hits[ends - lengths] == lengths)


def rows_windows(indices: np.ndarray, padded_len: int) -> np.ndarray:
    """The window (span) of each aligned row: ``indices`` index the flattened output of
    windows ``padded_len`` rows long."""
    return np.asarray(indices, dtype=np.int64) // max(int(padded_len), 1)


def _run_starts(*keys: np.ndarray) -> np.ndarray:
    """Where any of ``keys`` (sorted together) differs from the row before: each run's first row."""
    starts = np.zeros(len(keys[0]), dtype=bool)
    starts[:1] = True
    for values in keys:
        starts[1:] |= values[1:] != values[:-1]
    return starts


def merge_window_copies(rows: np.ndarray, windows: np.ndarray, lengths: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(rows, lengths) with one row per wordpiece of each token.

    A token in two overlapping windows aligns to each of its wordpieces once per window
    (``windows``: the window of each row, in alignment order). The copies of its k-th
    wordpiece are averaged into one row, so that first / last pooling read the token's
    first / last wordpiece (in every window), not the first of one window and the last of
    another. Where no token lies in two windows, ``rows`` and ``lengths`` come back as
    they are."""
    lengths = np.asarray(lengths, dtype=np.int64)
    windows = np.asarray(windows, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    filled = np.flatnonzero(lengths > 0)
    if len(filled) == 0 or bool(
        (np.minimum.reduceat(windows, starts[filled]) == np.maximum.reduceat(windows, starts[filled])).all()
    ):
        return rows, lengths
    token = np.repeat(np.arange(len(lengths)), lengths)
    by_window = np.lexsort((np.arange(len(windows)), windows, token))  # each token's rows, window by window
    positions = np.arange(len(by_window))
    run_first = np.maximum.accumulate(np.where(_run_starts(token[by_window], windows[by_window]), positions, 0))
    piece = np.empty(len(by_window), dtype=np.int64)
    piece[by_window] = positions - run_first  # which of the token's wordpieces the row is
    order = np.lexsort((windows, piece, token))  # token by token, wordpiece by wordpiece
    firsts = np.flatnonzero(_run_starts(token[order], piece[order]))
    sums = np.add.reduceat(rows[order], firsts, axis=0, dtype=np.float64)
    counts = np.diff(np.append(firsts, len(order)))
    merged = (sums / counts[:, None]).astype(rows.dtype, copy=False)
    return merged, np.bincount(token[order][firsts], minlength=len(lengths)).astype(np.int64)
