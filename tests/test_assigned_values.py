"""What a Doc-level array set by hand must hold, kind by kind."""

import numpy as np
import pytest

from spacy_ctxvec.assigned_values import expected_value, wrong_value

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
