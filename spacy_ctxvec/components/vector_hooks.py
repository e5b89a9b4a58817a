"""ctxvec_context's ``set_vector_hooks``: spaCy's .vector, .has_vector and .similarity of a
Doc, its Spans and Tokens read the contextual vectors.

Module-level functions that read doc.user_data directly, so that a pickled Doc keeps them
and they work in a new process before install_extensions(). A token without a stored row
(tokens merged after the pipeline ran, a Span.as_doc() that left the user data behind)
reads doc.tensor where it has one row per token, as spaCy does, else has spaCy's empty
vector; .vector is always an array."""

import warnings
from typing import Any, Optional, Tuple

import numpy as np
from spacy.tokens import Doc, Span, Token

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_MASK,
    span_rows,
    stored_array,
    token_context_mask,
    token_context_vec,
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
        doc.tensor = array.view()  # read-only, as doc._.ctxvec_context: an edit would change the token vectors
        doc.tensor.flags.writeable = False
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


def _tensor(doc: Doc, width: Optional[int]) -> Optional[np.ndarray]:
    """doc.tensor where it has one row per token (of ``width`` values, where given: a later
    tok2vec's tensor of another width is not the contextual vectors); None otherwise."""
    tensor: Any = getattr(doc, "tensor", None)
    if getattr(tensor, "ndim", 0) != 2 or len(tensor) != len(doc) or not tensor.shape[1]:
        return None
    return None if width is not None and tensor.shape[1] != width else np.asarray(tensor)


def _rows(doc: Doc, start: int, end: int) -> Tuple[Optional[np.ndarray], np.ndarray, Optional[int]]:
    """(the stored vectors of tokens start:end that have one the mask keeps, or None where
    the Doc has none stored; the doc.tensor rows of the tokens without a stored row that are
    not zero; the width, where known)."""
    array, mask = stored_array(doc, CONTEXT_ARRAY), stored_array(doc, CONTEXT_MASK)
    if array is None or mask is None:
        stored, missing, width = None, np.ones(max(end - start, 0), dtype=bool), None
    else:
        rows = span_rows(doc, CONTEXT_ARRAY, start, end)
        present = rows >= 0
        kept = rows[present]
        stored, missing, width = array[kept[np.asarray(mask, dtype=bool)[kept]]], ~present, array.shape[1]
    tensor = _tensor(doc, width) if missing.any() else None
    if tensor is None:
        return stored, np.zeros((0, 0)), width
    extra = tensor[start:end][missing]
    return stored, extra[extra.any(axis=1)], tensor.shape[1]


def _mean_vector(doc: Doc, start: int, end: int) -> np.ndarray:
    """Mean contextual vector of tokens start:end that have one (zeros if none have)."""
    stored, extra, width = _rows(doc, start, end)
    if stored is not None and not len(extra):  # the common case: masked_mean's own arithmetic
        if len(stored) == 0:
            return np.zeros(stored.shape[1], dtype=stored.dtype)
        return stored.mean(axis=0, dtype=np.float64).astype(stored.dtype)
    if stored is not None and len(stored):
        rows = np.concatenate([stored, extra.astype(stored.dtype)]) if len(extra) else stored
        return rows.mean(axis=0, dtype=np.float64).astype(stored.dtype)
    if len(extra):
        return extra.mean(axis=0, dtype=np.float64).astype(extra.dtype)
    return np.zeros(width, dtype=np.float32) if width else _EMPTY


def _doc_vector(doc: Doc) -> np.ndarray:
    return _mean_vector(doc, 0, len(doc))


def _span_vector(span: Span) -> np.ndarray:
    return _mean_vector(span.doc, span.start, span.end)


def _token_vector(token: Token) -> np.ndarray:
    stored = token_context_vec(token)
    if stored is not None:
        return stored
    array = stored_array(token.doc, CONTEXT_ARRAY)
    tensor = _tensor(token.doc, None if array is None else array.shape[1])
    return _EMPTY if tensor is None else tensor[token.i]


def _masked(doc: Doc, start: int, end: int) -> bool:
    stored, extra, _ = _rows(doc, start, end)
    return bool(len(extra)) or (stored is not None and len(stored) > 0)


def _doc_has_vector(doc: Doc) -> bool:
    return _masked(doc, 0, len(doc))


def _span_has_vector(span: Span) -> bool:
    return _masked(span.doc, span.start, span.end)


def _token_has_vector(token: Token) -> bool:
    kept = token_context_mask(token)
    return kept if kept is not None else bool(np.any(_token_vector(token)))


def _similarity(a: Any, b: Any) -> float:
    """Cosine of the two vectors; 0.0 with W069 where they cannot be compared (one is
    empty, or of another width: a Doc without the hooks, or of another pipeline)."""
    first, second = np.asarray(a.vector), np.asarray(b.vector)
    if first.shape != second.shape or first.size == 0:
        kinds = type(a).__name__, type(b).__name__
        warnings.warn(
            Warnings.W069.format(a=kinds[0], b=kinds[1], widths=f"{first.size} and {second.size}"), stacklevel=2
        )
        return 0.0
    return cosine(first, second)
