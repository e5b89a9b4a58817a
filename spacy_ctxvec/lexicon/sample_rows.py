"""Which rows an ``OccurrenceSample`` keeps: per type the k lowest distinct (priority,
snippet), ties broken by vector bytes (a total order, so a merge is bitwise the same
whatever its grouping). Pure numpy + stdlib."""

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
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kept rows in (type, priority, snippet) order, the types present, rows kept per
    present type): per type the k lowest distinct (priority, snippet) rows.

    Rows are ordered by (type, priority) with numpy; only runs of rows tied on both are
    ordered further in Python, by snippet and then vector bytes, and rows equal in
    (type, priority, snippet) are kept once (the one with the smallest vector bytes).
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
    # rank of each row within its type; keep ranks below k
    type_starts = np.flatnonzero(np.r_[True, sorted_types[1:] != sorted_types[:-1]])
    sizes = np.diff(np.r_[type_starts, len(order)])
    ranks = np.arange(len(order)) - np.repeat(type_starts, sizes)
    kept, kept_types = order[ranks < k], sorted_types[ranks < k]
    present = np.unique(kept_types)
    return kept, present, np.bincount(kept_types, minlength=n_types)[present]
