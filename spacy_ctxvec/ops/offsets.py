"""Align Docs' tokens to wordpieces from character offsets, on arrays.

The same alignment as spacy-transformers' ``get_alignment_via_offset_mapping``
(each token covers its characters plus the one after it, a later token taking
that character when it starts there; a wordpiece belongs to every token whose
characters it covers), computed with numpy for a whole batch of Docs from their
token offsets, instead of one Python ``Token`` object per token and span.
"""

from typing import List, Sequence, Tuple

import numpy as np

Alignment = Tuple[np.ndarray, np.ndarray]


def align_offsets(
    token_starts: np.ndarray,
    token_lengths: np.ndarray,
    span_bounds: np.ndarray,
    offsets: np.ndarray,
    wordpiece_lengths: np.ndarray,
) -> Alignment:
    """(flat, lengths) int32 for one Doc: for token t, the sorted wordpiece rows
    ``flat[sum(lengths[:t]) : sum(lengths[:t + 1])]`` of its flattened
    (n_spans * width) output.

    token_starts, token_lengths: (n_tokens,) character offset and length of each token.
    span_bounds: (n_spans, 2) first and end token of each span, in order.
    offsets: (n_spans, width, 2) each span's wordpiece character offsets, relative to
    the span's first character; wordpiece_lengths: (n_spans,) real wordpieces per span."""
    wordpiece_lengths = np.asarray(wordpiece_lengths, dtype=np.int64)
    real = np.arange(offsets.shape[1])[None, :] < wordpiece_lengths[:, None]
    flat_offsets = np.asarray(offsets).reshape(-1, 2)[real.ravel()]
    return align_batch([token_starts], [token_lengths], [span_bounds], [wordpiece_lengths], flat_offsets)[0]


def align_batch(
    token_starts: Sequence[np.ndarray],
    token_lengths: Sequence[np.ndarray],
    span_bounds: Sequence[np.ndarray],
    wordpiece_lengths: Sequence[np.ndarray],
    offsets: np.ndarray,
) -> List[Alignment]:
    """align_offsets for each Doc d of a batch, computed at once: token_starts[d],
    token_lengths[d], span_bounds[d] and wordpiece_lengths[d] as there; ``offsets``
    (n_wordpieces, 2) the real wordpieces of every span, spans end to end in Doc
    order. Rows index each Doc's (n_spans_d * max(wordpiece_lengths[d])) output."""
    n_docs = len(token_starts)
    n_tokens = np.array([len(starts) for starts in token_starts], dtype=np.int64)
    if n_docs == 0:
        return []
    token_shift = np.cumsum(n_tokens) - n_tokens
    # Global character positions: each Doc's characters after the previous Doc's.
    doc_ends = [int(s[-1]) + int(n[-1]) if len(s) else 0 for s, n in zip(token_starts, token_lengths)]
    char_shift = np.cumsum(np.array(doc_ends, dtype=np.int64) + 2) - (np.array(doc_ends, dtype=np.int64) + 2)
    starts = np.concatenate([np.asarray(s, dtype=np.int64) for s in token_starts] + [np.zeros(0, np.int64)])
    ends = starts + np.concatenate([np.asarray(n, dtype=np.int64) for n in token_lengths] + [np.zeros(0, np.int64)])
    starts += np.repeat(char_shift, n_tokens)
    ends += np.repeat(char_shift, n_tokens)
    n_spans = np.array([len(b) for b in wordpiece_lengths], dtype=np.int64)
    span_lengths = np.concatenate([np.asarray(b, dtype=np.int64) for b in wordpiece_lengths] + [np.zeros(0, np.int64)])
    bounds = np.concatenate([np.asarray(b, dtype=np.int64).reshape(-1, 2) for b in span_bounds] + [np.zeros((0, 2))])
    bounds = bounds.astype(np.int64) + np.repeat(token_shift, n_spans)[:, None]
    widths = np.array([int(np.max(b)) if len(b) else 0 for b in wordpiece_lengths], dtype=np.int64)
    span_in_doc = np.arange(len(span_lengths)) - np.repeat(np.cumsum(n_spans) - n_spans, n_spans)
    row_base = span_in_doc * np.repeat(widths, n_spans)
    flat, lengths = _align(starts, ends, bounds, row_base, span_lengths, np.asarray(offsets, dtype=np.int64))
    cum = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()
    return [(flat[cum[t] : cum[t + n]], lengths[t : t + n]) for t, n in zip(token_shift.tolist(), n_tokens.tolist())]


def _align(
    starts: np.ndarray,
    ends: np.ndarray,
    bounds: np.ndarray,
    row_base: np.ndarray,
    span_lengths: np.ndarray,
    offsets: np.ndarray,
) -> Alignment:
    """(flat rows, lengths per token) over global tokens and spans."""
    n_tokens = len(starts)
    span_of = np.repeat(np.arange(len(span_lengths)), span_lengths)
    column = np.arange(len(span_of)) - np.repeat(np.cumsum(span_lengths) - span_lengths, span_lengths)
    keep = bounds[span_of, 1] > bounds[span_of, 0]
    span_of, column, offsets = span_of[keep], column[keep], offsets[keep]
    if len(span_of) == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(n_tokens, dtype=np.int32)
    first, last = bounds[span_of, 0], bounds[span_of, 1] - 1
    span_start = starts[first]
    # Characters [start, end) of each wordpiece, within its span's text and the one after.
    stop = np.minimum(offsets[:, 1], ends[last] + 1 - span_start)
    sizes = np.clip(stop - offsets[:, 0], 0, None)
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(n_tokens, dtype=np.int32)
    within = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    char = np.repeat(offsets[:, 0] + span_start, sizes) + within
    # The last token of the span starting at or before the character owns it, if it reaches it.
    owner = np.minimum(np.searchsorted(starts, char, side="right") - 1, np.repeat(last, sizes))
    covered = char <= ends[owner]
    row = np.repeat(row_base[span_of] + column, sizes)
    n_rows = int(row.max()) + 1
    keys = np.unique(owner[covered] * n_rows + row[covered])
    flat = (keys % n_rows).astype(np.int32)
    return flat, np.bincount(keys // n_rows, minlength=n_tokens).astype(np.int32)
