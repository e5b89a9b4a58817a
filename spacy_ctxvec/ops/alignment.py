"""Map spaCy tokens to rows of the transformer output."""

from typing import Any, Sequence

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
