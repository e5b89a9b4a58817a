"""Checks of an ``OccurrenceSample``'s parts (pure numpy + stdlib): finite rows, rows in
priority order, and the settings a saved header declares."""

from typing import Any, Callable, Dict

import numpy as np

from ..errors import CtxvecError, Errors

FLAGS = ("contexts", "by_passage", "distinct_snippets")  # booleans of the header; absent: False


def check_finite(vectors: np.ndarray, what: str = "vector") -> None:
    """E260 naming the first row that is not finite (in float16: beyond +-65504 too)."""
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        problem = f"{what} row {row} holds NaN or infinite values (float16 holds up to 65504)"
        raise CtxvecError(Errors.E260.format(problem=problem))


def sorted_within_types(offsets: np.ndarray, priorities: np.ndarray) -> bool:
    """Whether the rows of each type (``offsets[i]:offsets[i + 1]``) are in priority order."""
    if len(priorities) < 2:
        return True
    same_type = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    same = same_type[1:] == same_type[:-1]
    return bool((priorities[1:][same] >= priorities[:-1][same]).all())


def header_settings(
    header: Dict[str, Any], header_file: str, bad: Callable[[str], CtxvecError], *, has_contexts: bool
) -> Dict[str, Any]:
    """``k``, ``width`` and the FLAGS of a sample's header, checked (``bad(problem)``: the
    error to raise; ``has_contexts``: whether contexts.npy came with it); a flag absent
    from an older header is False."""
    settings: Dict[str, Any] = {}
    for name in ("k", "width"):
        value = header.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise bad(f"{header_file} has no positive integer '{name}'")
        settings[name] = value
    for name in FLAGS:
        value = header.get(name, False)
        if not isinstance(value, bool):
            raise bad(f"{header_file} has a non-boolean '{name}'")
        settings[name] = value
    if settings["contexts"] != has_contexts:
        state = "missing" if settings["contexts"] else "there"
        raise bad(f"{header_file} says contexts is {str(settings['contexts']).lower()}, but contexts.npy is {state}")
    return settings
