"""JSON read from user files, within bounds: every JSON line the package reads from a
user's file (corpus .jsonl rows, sense-labelled sentences) is parsed by ``loads_bounded``.

A value nested deeper than ``MAX_JSON_DEPTH`` levels is refused (no RecursionError,
however deep: Python's decoder stops at its recursion limit, and what it returns is
measured without recursion), and numbers must be finite: ``NaN``, ``Infinity`` and
floats beyond float64's range (``1e400``) are refused. Every refusal is a ValueError
with a short reason; callers turn it into a coded error naming file and line.
No spaCy here, so the evaluation readers can use it too."""

import json
import math
from typing import Any, List, Tuple

MAX_JSON_DEPTH = 64


def nesting_depth(value: Any) -> int:
    """How deeply lists and dicts nest in a decoded JSON ``value`` (0 for a scalar),
    measured without recursion."""
    deepest = 0
    stack: List[Tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


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
    too_deep = ValueError(f"nested deeper than {max_depth} levels")
    try:
        # without its line ending: an unterminated string then says so, not "a raw control character (U+000A)"
        value = json.loads(text.rstrip("\r\n"), parse_float=_finite_float, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        reason = f"{err.msg.removesuffix(' at')} at column {err.colno}"  # some messages end in "at" already
        if err.msg.startswith("Invalid control character"):
            char = text[err.pos]
            reason = f"a raw control character (U+{ord(char):04X}) inside a string at column {err.colno}: write it as "
            reason += json.dumps(char)[1:-1]
        raise ValueError(reason) from None
    except RecursionError:
        raise too_deep from None
    # Only a text with more brackets than max_depth can nest deeper: most rows skip the walk.
    if text.count("[") + text.count("{") > max_depth and nesting_depth(value) > max_depth:
        raise too_deep
    return value
