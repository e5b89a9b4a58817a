"""spacy_ctxvec.lexicon.sample_rows: the rows a sample keeps."""

import numpy as np

from spacy_ctxvec.lexicon.sample_rows import lowest_rows


def test_lowest_rows_keep_k_distinct_per_type_and_break_ties_by_snippet_then_vector_bytes():
    type_ids = np.array([1, 0, 1, 1, 1, 0, 1])
    priorities = np.array([5, 9, 2, 2, 2, 1, 7], dtype=np.uint64)
    snippets = ["e", "x", "b", "a", "a", "y", "f"]
    vectors = np.array([[0.0], [0.0], [0.0], [2.0], [1.0], [0.0], [0.0]], dtype=np.float16)
    kept, present, counts = lowest_rows(type_ids, priorities, snippets, vectors, k=3, n_types=3)
    # type 0: priorities 1, 9; type 1: (2, "a") twice (kept once: the smaller vector, row 4), (2, "b"), then 5
    assert kept.tolist() == [5, 1, 4, 2, 0] and present.tolist() == [0, 1] and counts.tolist() == [2, 3]
    reordered = np.random.default_rng(0).permutation(7)
    again = lowest_rows(
        type_ids[reordered], priorities[reordered], [snippets[i] for i in reordered], vectors[reordered], k=3, n_types=3
    )
    assert reordered[again[0]].tolist() == kept.tolist()  # the same rows whatever their order
    empty = lowest_rows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64), [], np.zeros((0, 1)), k=2, n_types=0)
    assert [part.tolist() for part in empty] == [[], [], []]
