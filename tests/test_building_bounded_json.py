"""loads_bounded: the one JSON reader for user files (corpus rows, sense sentences)."""

import json

import pytest

from spacy_ctxvec.building.bounded_json import MAX_JSON_DEPTH, loads_bounded, nesting_depth


def test_bounded_json_depth_limit_ignores_brackets_inside_strings():
    assert loads_bounded("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    assert loads_bounded(json.dumps({"text": "[{" * 10_000})) == {"text": "[{" * 10_000}
    assert nesting_depth(json.loads('{"a": "\\"}", "b": [[1]]}')) == 3 and nesting_depth("x") == 0
    deep_but_valid = "[" * 500 + "]" * 500  # below Python's recursion limit: measured after decoding
    wide = "[[]," * 100_000 + "[]" + "]" * 100_000
    for deep in ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), deep_but_valid, wide, "[" * 10**6):
        with pytest.raises(ValueError, match="nested deeper than"):
            loads_bounded(deep)
    with pytest.raises(ValueError, match="Expecting"):
        loads_bounded("[1, ")


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e400", "[-1e999]"])
def test_non_finite_numbers_are_refused(text):
    with pytest.raises(ValueError, match="finite|range"):
        loads_bounded(text)


def test_valid_json_reads_as_json_loads():
    for value in [{"text": "a [b] {c}", "n": 1.5e300, "k": [1, [2, [3]]]}, [], "x", 12345678901234567890]:
        assert loads_bounded(json.dumps(value)) == value


def test_huge_integers_are_a_value_error():
    with pytest.raises(ValueError):
        loads_bounded("1" * 5000)


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"text": "a\tbank"}', "a raw control character (U+0009) inside a string at column 12: write it as \\t"),
        ('{"text": "a\x01"}', "a raw control character (U+0001) inside a string at column 12: write it as \\u0001"),
        ('{"text": "a', "Unterminated string starting at column 10"),  # not "starting at at"
        ('{"text": "a\r\n', "Unterminated string starting at column 10"),  # as read, line ending on: not U+000A
        ('{"text": "a"} x', "Extra data at column 15"),
    ],
)
def test_invalid_json_says_why_once(text, reason):
    with pytest.raises(ValueError) as caught:
        loads_bounded(text)
    assert str(caught.value) == reason
