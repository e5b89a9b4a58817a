"""Map spaCy tokens to rows of the transformer output."""

from typing import Any, Collection, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors
from .pooling import segment_starts


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
    two overlapping windows lists rows of both (``merge_window_copies`` joins them).
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


def only_piece(
    piece_ids: np.ndarray, indices: np.ndarray, lengths: np.ndarray, piece: int, ignored: Collection[int] = ()
) -> np.ndarray:
    """Per token, whether every wordpiece it aligns to is ``piece`` (e.g. the tokenizer's
    unknown piece, [UNK]) or one of ``ignored`` (e.g. SentencePiece's lone word-start marker
    "▁", which it puts before an unknown character), with at least one ``piece``; False for a
    token that aligns to none. ``piece_ids`` holds the ids of the (flattened) rows that
    ``indices`` index; ``lengths`` are the tokens' numbers of rows, in order (as for pooling)."""
    flat = np.asarray(piece_ids).reshape(-1)
    check_alignment(indices, flat.shape[0])
    lengths = np.asarray(lengths, dtype=np.int64)
    aligned = flat[indices]
    is_piece = aligned == piece
    passes = is_piece | np.isin(aligned, np.fromiter(ignored, dtype=aligned.dtype)) if ignored else is_piece
    ends = np.cumsum(lengths)
    hits = np.concatenate([[0], np.cumsum(is_piece, dtype=np.int64)])
    passed = np.concatenate([[0], np.cumsum(passes, dtype=np.int64)])
    return (lengths > 0) & (passed[ends] - passed[ends - lengths] == lengths) & (hits[ends] > hits[ends - lengths])


def read_with_another_as(piece_ids: np.ndarray, indices: np.ndarray, lengths: np.ndarray, piece: int) -> np.ndarray:
    """Per token, whether every wordpiece it aligns to is ``piece`` (the unknown piece) and
    another token aligns to one of them too: the tokenizer read the two as one unknown
    word ('bank\U0001f602' is one [UNK] to WordPiece), so that piece holds neither. Arguments as for
    ``only_piece``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    only = only_piece(piece_ids, indices, lengths, piece)
    if not only.any():
        return only
    indices = np.asarray(indices, dtype=np.int64)
    tokens = np.repeat(np.arange(len(lengths)), lengths)
    rows, first_entry = np.unique(indices, return_index=True)
    first_token = tokens[first_entry][np.searchsorted(rows, indices)]  # the first token to align to each row
    shared = np.isin(indices, indices[tokens != first_token])
    hits = np.concatenate([[0], np.cumsum(shared, dtype=np.int64)])
    ends = np.cumsum(lengths)
    return only & (hits[ends] - hits[ends - lengths] > 0)


def _run_starts(*keys: np.ndarray) -> np.ndarray:
    """Where any of ``keys`` (sorted together) differs from the row before: each run's first row."""
    starts = np.zeros(len(keys[0]), dtype=bool)
    starts[:1] = True
    for values in keys:
        starts[1:] |= values[1:] != values[:-1]
    return starts


def merge_window_copies(
    rows: np.ndarray,
    lengths: np.ndarray,
    windows: np.ndarray,
    positions: np.ndarray,
    piece_ids: Optional[np.ndarray] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """(rows, lengths) with one row per wordpiece of each token that overlapping windows
    read alike.

    A token in two overlapping windows aligns to each of its wordpieces once per window
    (``windows``: the window of each row; ``positions``: its place in the output, which
    orders a window's rows). Where every window holds the same wordpieces of the token
    (``piece_ids``, where given), the copies of its k-th wordpiece are averaged into one
    row, so that first / last pooling read the token's own first / last wordpiece (in
    every window), not the first of one window and the last of another. A token the
    windows read differently (cut at one window's maximum length, or a tokenizer that
    reads a window's first word otherwise) keeps all its rows. Mean pooling gives the
    same either way; where no token lies in two windows, ``rows`` and ``lengths`` come
    back as they are."""
    lengths = np.asarray(lengths, dtype=np.int64)
    windows, positions = np.asarray(windows, dtype=np.int64), np.asarray(positions, dtype=np.int64)
    starts = segment_starts(lengths)
    filled = np.flatnonzero(lengths > 0)
    if len(filled) == 0 or bool(
        (np.minimum.reduceat(windows, starts[filled]) == np.maximum.reduceat(windows, starts[filled])).all()
    ):
        return rows, lengths
    n_tokens = len(lengths)
    token = np.repeat(np.arange(n_tokens), lengths)
    by_window = np.lexsort((positions, windows, token))  # each token's rows, window by window, in order
    run_first = _run_starts(token[by_window], windows[by_window])
    at = np.arange(len(by_window))
    piece = np.empty(len(by_window), dtype=np.int64)
    piece[by_window] = at - np.maximum.accumulate(np.where(run_first, at, 0))  # which of its wordpieces
    n_windows = np.bincount(token[by_window][run_first], minlength=n_tokens)
    order = np.lexsort((windows, piece, token))  # token by token, wordpiece by wordpiece
    firsts = np.flatnonzero(_run_starts(token[order], piece[order]))
    counts = np.diff(np.append(firsts, len(order)))
    group_token = token[order][firsts]
    alike = counts == n_windows[group_token]
    if piece_ids is not None:
        ids = np.asarray(piece_ids)[order]
        alike &= np.minimum.reduceat(ids, firsts) == np.maximum.reduceat(ids, firsts)
    merged = np.ones(n_tokens, dtype=bool)
    merged[group_token[~alike]] = False
    kept = firsts[merged[group_token]]  # the first copy of each wordpiece of a merged token
    copies = counts[merged[group_token]]
    as_read = np.flatnonzero(~merged[token])  # the rows of the tokens the windows read differently
    out_token = np.concatenate([token[order][kept], token[as_read]])
    out_order = np.lexsort((np.concatenate([piece[order][kept], as_read]), out_token))
    places = np.empty(len(out_order), dtype=np.int64)
    places[out_order] = np.arange(len(out_order))  # where each merged piece, then each row as read, goes
    # summed in float32 at least (float16 copies overflow), one pass per copy, not per wordpiece
    out = np.empty((len(out_order), rows.shape[1]), dtype=np.promote_types(rows.dtype, np.float32))
    to_merged, to_as_read = places[: len(kept)], places[len(kept) :]
    out[to_merged] = rows[order[kept]]
    for k in range(1, int(copies.max(initial=1))):
        more = np.flatnonzero(copies > k)
        out[to_merged[more]] += rows[order[kept[more] + k]]
    several = np.flatnonzero(copies > 1)
    out[to_merged[several]] /= copies[several, None]
    out[to_as_read] = rows[as_read]
    return out.astype(rows.dtype, copy=False), np.bincount(out_token, minlength=n_tokens).astype(np.int64)
