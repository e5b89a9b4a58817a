"""Which rows an ``OccurrenceSample`` keeps: per type the k lowest distinct (priority,
snippet), ties broken by vector bytes (a total order, so a merge is bitwise the same
whatever its grouping); with ``distinct_snippets``, only the lowest row of each snippet
(copies of a line the corpus repeats are one row). Pure numpy + stdlib."""

from typing import Sequence, Tuple

import numpy as np


def lowest_rows(
    type_ids: np.ndarray,
    priorities: np.ndarray,
    snippets: Sequence[str],
    vectors: np.ndarray,
    *,
    k: int,
    n_types: int,
    distinct_snippets: bool = False,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kept rows in (type, priority, snippet) order, the types present, rows kept per
    present type): per type the k lowest distinct (priority, snippet) rows; with
    ``distinct_snippets``, the k lowest rows with distinct non-empty snippets (each
    snippet's lowest row; rows without a snippet are all distinct).

    Rows are ordered by (type, priority) with numpy; only runs of rows tied on both are
    ordered further in Python, by snippet and then vector bytes, and rows equal in
    (type, priority, snippet) are kept once (the one with the smallest vector bytes).
    Keeping each snippet's lowest row keeps a merge exact: a snippet among the k lowest
    of the whole has its lowest row among the k lowest of the part that holds it.
    """
    order = np.lexsort((priorities, type_ids))
    sorted_types, sorted_priorities = type_ids[order], priorities[order]
    tied = (sorted_types[1:] == sorted_types[:-1]) & (sorted_priorities[1:] == sorted_priorities[:-1])
    keep = np.ones(len(order), dtype=bool)
    if tied.any():
        order = order.copy()
        run_starts = np.flatnonzero(tied & ~np.r_[False, tied[:-1]])
        run_ends = np.flatnonzero(tied & ~np.r_[tied[1:], False]) + 2
        for start, end in zip(run_starts, run_ends):
            run = sorted(order[start:end].tolist(), key=lambda row: (snippets[row], vectors[row].tobytes()))
            order[start:end] = run
            for position in range(start + 1, end):
                if snippets[order[position]] == snippets[order[position - 1]]:
                    keep[position] = False
    order, sorted_types = order[keep], sorted_types[keep]
    if distinct_snippets:
        first = first_of_each_snippet(sorted_types, [snippets[row] for row in order.tolist()])
        order, sorted_types = order[first], sorted_types[first]
    # rank of each row within its type; keep ranks below k
    type_starts = np.flatnonzero(np.r_[True, sorted_types[1:] != sorted_types[:-1]])
    sizes = np.diff(np.r_[type_starts, len(order)])
    ranks = np.arange(len(order)) - np.repeat(type_starts, sizes)
    kept, kept_types = order[ranks < k], sorted_types[ranks < k]
    present = np.unique(kept_types)
    return kept, present, np.bincount(kept_types, minlength=n_types)[present]


def first_of_each_snippet(type_ids: np.ndarray, snippets: Sequence[str]) -> np.ndarray:
    """Bool per row (rows in priority order within each type): the type's first row with
    its snippet, or a row without one. Rows are grouped by (type, Python hash of the
    snippet) with numpy; only groups of two or more compare their strings."""
    n = len(snippets)
    first = np.ones(n, dtype=bool)
    if n < 2:
        return first
    hashes = np.array([hash(snippet) for snippet in snippets], dtype=np.int64)
    grouped = np.lexsort((np.arange(n), hashes, type_ids))  # row order kept within a group
    same = (type_ids[grouped][1:] == type_ids[grouped][:-1]) & (hashes[grouped][1:] == hashes[grouped][:-1])
    if not same.any():
        return first
    starts = np.flatnonzero(same & ~np.r_[False, same[:-1]])
    ends = np.flatnonzero(same & ~np.r_[same[1:], False]) + 2
    for start, end in zip(starts.tolist(), ends.tolist()):
        seen = set()
        for row in grouped[start:end].tolist():  # increasing row order: the lowest row of a snippet first
            if snippets[row]:
                first[row] = snippets[row] not in seen
                seen.add(snippets[row])
    return first
