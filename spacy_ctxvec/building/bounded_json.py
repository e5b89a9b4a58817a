"""JSON read from user files, within bounds: every JSON line the package reads from a
user's file (corpus .jsonl rows, sense-labelled sentences) is parsed by ``loads_bounded``.

A value nested deeper than ``MAX_JSON_DEPTH`` levels is refused before it is parsed (no
RecursionError, however deep), and numbers must be finite: ``NaN``, ``Infinity`` and
floats beyond float64's range (``1e400``) are refused. Every refusal is a ValueError
with a short reason; callers turn it into a coded error naming file and line.
No spaCy here, so the evaluation readers can use it too."""

import json
import math
import re
from typing import Any

import numpy as np

MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """The deepest nesting of [ ] and { } in ``text``, brackets inside strings ignored."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)).encode("ascii")
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is beyond float64's range")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def loads_bounded(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` with nesting and numbers bounded; ValueError (reason in its
    message) for invalid JSON, nesting deeper than ``max_depth``, or a non-finite number."""
    if text.count("[") + text.count("{") > max_depth and nesting_depth(text) > max_depth:
        raise ValueError(f"nested deeper than {max_depth} levels")
    try:
        return json.loads(text, parse_float=_finite_float, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"{err.msg} at column {err.colno}") from None
    except RecursionError:  # only reachable with a max_depth above Python's recursion limit
        raise ValueError("nested too deeply") from None
