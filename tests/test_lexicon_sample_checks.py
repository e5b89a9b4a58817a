"""lexicon.sample_checks: the checks of a sample's parts."""

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.sample_checks import check_finite, header_settings, sorted_within_types


def bad(problem):
    return CtxvecError(problem)


def test_check_finite_names_the_first_row_that_is_not():
    check_finite(np.ones((3, 2), dtype=np.float16))
    rows = np.ones((3, 2), dtype=np.float16)
    rows[2, 1] = np.inf
    with pytest.raises(CtxvecError, match=r"E260.*context row 2 holds NaN or infinite"):
        check_finite(rows, "context")


def test_rows_are_checked_for_priority_order_within_each_type_only():
    offsets = np.array([0, 2, 4])
    assert sorted_within_types(offsets, np.array([1, 5, 0, 3], dtype=np.uint64))  # a new type may start lower
    assert not sorted_within_types(offsets, np.array([5, 1, 0, 3], dtype=np.uint64))
    assert sorted_within_types(np.array([0, 1]), np.array([7], dtype=np.uint64))


def test_header_settings_default_absent_flags_to_false_and_refuse_bad_values():
    settings = header_settings({"k": 4, "width": 8}, "sample.json", bad, has_contexts=False)
    assert settings == {"k": 4, "width": 8, "contexts": False, "by_passage": False, "distinct_snippets": False}
    with pytest.raises(CtxvecError, match="no positive integer 'k'"):
        header_settings({"k": True, "width": 8}, "sample.json", bad, has_contexts=False)
    with pytest.raises(CtxvecError, match="non-boolean 'distinct_snippets'"):
        header_settings({"k": 4, "width": 8, "distinct_snippets": 1}, "sample.json", bad, has_contexts=False)
    with pytest.raises(CtxvecError, match="says contexts is true, but contexts.npy is missing"):
        header_settings({"k": 4, "width": 8, "contexts": True}, "sample.json", bad, has_contexts=False)
