"""ctxvec_context's ``set_vector_hooks``: spaCy's .vector, .has_vector and .similarity of a
Doc, its Spans and Tokens read the contextual vectors.

Module-level functions that read doc.user_data directly, so that a pickled Doc keeps them
and they work in a new process before install_extensions(). A token without a stored row
(tokens merged after the pipeline ran, a Span.as_doc() that left the user data behind)
reads doc.tensor where it has one row per token, as spaCy does, else has spaCy's empty
vector; .vector is always an array."""

import warnings
from typing import Any, Optional

import numpy as np
from spacy.tokens import Doc, Span, Token

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_MASK,
    kept_rows,
    masked_mean,
    span_rows,
    stored_array,
    token_context_vec,
    token_has_context_vec,
)
from ..errors import Warnings
from ..ops.cosine import cosine

_EMPTY = np.zeros(0, dtype=np.float32)  # spaCy's vector of a token that has none


def add_vector_hooks(doc: Doc) -> Doc:
    """Make .vector, .has_vector and .similarity of the Doc, its Spans and Tokens use
    the contextual vectors, and set doc.tensor to them (spaCy's own fallback for
    token.vector, which to_bytes and nlp.pipe(n_process=...) keep). spaCy does not
    serialise hooks: call this again on Docs from a DocBin, Doc.from_bytes,
    Doc.from_docs or nlp.pipe(n_process>1) to get contextual .similarity back."""
    array = stored_array(doc, CONTEXT_ARRAY)
    if array is not None and len(array) == len(doc):
        doc.tensor = array
    doc.user_hooks["vector"] = _doc_vector
    doc.user_hooks["has_vector"] = _doc_has_vector
    doc.user_hooks["similarity"] = _similarity
    doc.user_span_hooks["vector"] = _span_vector
    doc.user_span_hooks["has_vector"] = _span_has_vector
    doc.user_span_hooks["similarity"] = _similarity
    doc.user_token_hooks["vector"] = _token_vector
    doc.user_token_hooks["has_vector"] = _token_has_vector
    doc.user_token_hooks["similarity"] = _similarity
    return doc


def _tensor_row(doc: Doc, i: int) -> Optional[np.ndarray]:
    """Token ``i``'s row of doc.tensor where it has one row per token; None otherwise."""
    tensor: Any = getattr(doc, "tensor", None)
    if getattr(tensor, "ndim", 0) != 2 or len(tensor) != len(doc) or not tensor.shape[1]:
        return None
    return np.asarray(tensor[i])


def _row_vector(doc: Doc, i: int) -> Optional[np.ndarray]:
    """Token ``i``'s contextual vector: its stored row, else its doc.tensor row."""
    stored = token_context_vec(doc[i])
    return stored if stored is not None else _tensor_row(doc, i)


def _mean_vector(doc: Doc, start: int, end: int) -> np.ndarray:
    """Mean contextual vector of tokens start:end that have one (zeros if none have)."""
    if (span_rows(doc, CONTEXT_ARRAY, start, end) >= 0).all():  # every token has its stored row
        stored = masked_mean(doc, CONTEXT_ARRAY, stored_array(doc, CONTEXT_MASK), start, end)
        if stored is not None:
            return stored
    present = [(i, vector) for i in range(start, end) if (vector := _row_vector(doc, i)) is not None]
    kept = [vector for i, vector in present if _has_vector(doc, i)]
    if kept:
        return np.mean(kept, axis=0, dtype=np.float64).astype(kept[0].dtype)
    return np.zeros(len(present[0][1]), dtype=present[0][1].dtype) if present else _EMPTY


def _has_vector(doc: Doc, i: int) -> bool:
    """Token ``i`` has a contextual vector: its stored mask, else a non-zero doc.tensor row."""
    if span_rows(doc, CONTEXT_MASK, i, i + 1)[0] >= 0:
        return token_has_context_vec(doc[i])
    row = _tensor_row(doc, i)
    return row is not None and bool(np.any(row))


def _doc_vector(doc: Doc) -> np.ndarray:
    return _mean_vector(doc, 0, len(doc))


def _span_vector(span: Span) -> np.ndarray:
    return _mean_vector(span.doc, span.start, span.end)


def _token_vector(token: Token) -> np.ndarray:
    vector = _row_vector(token.doc, token.i)
    return vector if vector is not None else _EMPTY


def _masked(doc: Doc, start: int, end: int) -> bool:
    mask = stored_array(doc, CONTEXT_MASK)
    if mask is not None and (span_rows(doc, CONTEXT_MASK, start, end) >= 0).all():
        return len(kept_rows(doc, CONTEXT_MASK, mask, start, end)) > 0
    return any(_has_vector(doc, i) for i in range(start, end))


def _doc_has_vector(doc: Doc) -> bool:
    return _masked(doc, 0, len(doc))


def _span_has_vector(span: Span) -> bool:
    return _masked(span.doc, span.start, span.end)


def _token_has_vector(token: Token) -> bool:
    return _has_vector(token.doc, token.i)


def _similarity(a: Any, b: Any) -> float:
    """Cosine of the two vectors; 0.0 with W069 where they cannot be compared (one is
    empty, or of another width: a Doc without the hooks, or of another pipeline)."""
    first, second = np.asarray(a.vector), np.asarray(b.vector)
    if first.shape != second.shape or first.size == 0:
        warnings.warn(Warnings.W069.format(a=a, b=b, widths=f"{first.size} and {second.size}"), stacklevel=3)
        return 0.0
    return cosine(first, second)
