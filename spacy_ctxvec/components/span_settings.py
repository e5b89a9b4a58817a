"""Checks of the transformer's span getter settings (spacy-transformers.strided_spans.v1).

spacy-transformers takes any window and stride: a stride of 0 fails with a bare
ZeroDivisionError on the first text, and a stride larger than the window leaves the
tokens between two windows in none, so they get no contextual vector."""

from functools import partial
from typing import Any, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span
from spacy_transformers.span_getters import get_strided_spans

from ..errors import CtxvecError, Errors


def strided_window(get_spans: Any) -> Optional[Tuple[int, int]]:
    """(window, stride) of spacy-transformers' strided spans; None for another span getter."""
    get_spans = get_spans.get_spans if isinstance(get_spans, CheckedSpanGetter) else get_spans
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


def checked_span_getter(get_spans: Any) -> "CheckedSpanGetter":
    """``get_spans`` (checked: E047) with every result checked (E055)."""
    if isinstance(get_spans, CheckedSpanGetter):
        return get_spans
    check_span_getter(get_spans)
    return CheckedSpanGetter(get_spans)


class CheckedSpanGetter:
    """A span getter whose every result is checked (E055). Pickles where the getter does."""

    def __init__(self, get_spans: Any) -> None:
        self.get_spans = get_spans

    def __call__(self, docs: Sequence[Doc]) -> Any:
        try:
            spans = self.get_spans(docs)
        except ValueError as err:  # spaCy's E030 from doc.sents: sent_spans.v1 before any sentencizer
            if "[E030]" in str(err):
                raise CtxvecError(Errors.E059) from None
            raise
        return check_spans(docs, spans)


def check_spans(docs: Sequence[Doc], nested_spans: Any) -> Any:
    """``nested_spans``; E055 where the span getter's result cannot be read as one list of spans of each Doc,
    the first of them not empty where the Doc has tokens (such a Doc was left without the
    transformer's output, and [CTX-E001] blamed a frozen transformer)."""
    problem = None
    if not isinstance(nested_spans, (list, tuple)) or len(nested_spans) != len(docs):
        got = f"{len(nested_spans)} lists" if isinstance(nested_spans, (list, tuple)) else type(nested_spans).__name__
        problem = f"returned {got} for {len(docs)} Docs"
    else:
        for n, (doc, spans) in enumerate(zip(docs, nested_spans)):
            if not isinstance(spans, (list, tuple)):  # a Span alone iterates as Tokens
                problem = (
                    f"returned a {type(spans).__name__} for Doc {n} where a list of Spans belongs "
                    "(e.g. [[doc[:]] for doc in docs], not [doc[:] for doc in docs])"
                )
            elif not all(isinstance(span, Span) for span in spans):
                kinds = sorted({type(span).__name__ for span in spans if not isinstance(span, Span)})
                problem = f"returned {', '.join(kinds)} for Doc {n}, not spaCy Span objects"
            elif any(span.doc is not doc for span in spans):
                problem = f"returned for Doc {n} a span of another Doc"
            elif len(doc) and (len(spans) == 0 or len(spans[0]) == 0):
                problem = (
                    f"returned for Doc {n} ({len(doc)} tokens) {'no span' if not spans else 'an empty first span'}"
                )
            if problem:
                break
    if problem is not None:
        raise CtxvecError(Errors.E055.format(problem=problem))
    return nested_spans
