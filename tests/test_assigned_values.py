"""What a Doc-level array set by hand must hold, kind by kind."""

import numpy as np
import pytest

from spacy_ctxvec.assigned_values import expected_value, stored_copy, wrong_value

CODES = ("none", "exact", "lower")


@pytest.mark.parametrize(
    "kind,value,wrong",
    [
        ("vectors", np.ones((2, 3)), None),
        ("vectors", np.ones((3, 3)), "shape (3, 3)"),
        ("vectors", [[1.0, float("inf")], [0.0, 0.0]], "NaN or infinite values"),
        ("mask", np.array([True, False]), None),
        ("mask", np.array([1, 0]), "dtype int64"),
        ("codes", np.array([0, 2]), None),
        ("codes", np.array([0, -1]), "the code -1"),
        ("codes", np.array([0, 3]), "the code 3"),
        ("labels", ["", "river"], None),
        ("labels", ("", None), "an item of type NoneType"),
        ("labels", {"a": 1}, "dict"),
    ],
)
def test_wrong_value_names_what_is_wrong_for_two_tokens(kind, value, wrong):
    assert wrong_value(2, kind, value, CODES) == wrong


def test_expected_value_names_the_codes():
    assert expected_value("codes", CODES) == "a 1-D array of whole numbers 0 to 2 (none, exact, lower)"


def test_stored_copy_is_read_only_and_vectors_are_float16_or_float32():
    for given, stored in ((np.float64, np.float32), (np.int32, np.float32), (np.float16, np.float16)):
        value = np.ones((2, 3), dtype=given)
        copy = stored_copy("vectors", value)
        assert copy.dtype == stored and not copy.flags.writeable and not np.shares_memory(copy, value)
    mask = np.array([True, False])
    assert stored_copy("mask", mask).dtype == bool and not np.shares_memory(stored_copy("mask", mask), mask)
    labels = ["river", ""]
    assert stored_copy("labels", labels) == ("river", "")  # a tuple: the stored labels cannot be changed in place
