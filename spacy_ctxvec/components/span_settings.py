"""Checks of the transformer's span getter settings (spacy-transformers.strided_spans.v1).

spacy-transformers takes any window and stride: a stride of 0 fails with a bare
ZeroDivisionError on the first text, and a stride larger than the window leaves the
tokens between two windows in none, so they get no contextual vector."""

from functools import partial
from typing import Any, Optional, Tuple

from spacy_transformers.span_getters import get_strided_spans

from ..errors import CtxvecError, Errors


def strided_window(get_spans: Any) -> Optional[Tuple[int, int]]:
    """(window, stride) of spacy-transformers' strided spans; None for another span getter."""
    if not (isinstance(get_spans, partial) and get_spans.func is get_strided_spans):
        return None
    window, stride = get_spans.keywords.get("window"), get_spans.keywords.get("stride")
    if not isinstance(window, int) or not isinstance(stride, int):
        return None
    return window, stride


def check_span_getter(get_spans: Any) -> None:
    """E047 for strided spans whose window or stride is below 1, or whose stride is larger
    than the window; other span getters pass unchecked."""
    settings = strided_window(get_spans)
    if settings is None:
        return
    window, stride = settings
    if window < 1 or stride < 1:
        problem = "both must be at least 1 token"
    elif stride > window:
        problem = (
            f"each window starts {stride} tokens after the last one started, so the {stride - window} "
            "tokens between two windows are in none and get no contextual vector"
        )
    else:
        return
    raise CtxvecError(Errors.E047.format(window=window, stride=stride, problem=problem))
