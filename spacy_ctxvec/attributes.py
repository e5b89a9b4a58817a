"""Every extension attribute of spacy-ctxvec, installed in one place.

Each kind of vector is one Doc-level array (n_tokens, width) plus a per-token
array saying which rows are real; Token, Span and Doc attributes are getters over it.
"""

from typing import Any, Dict, Optional, Tuple, cast

import numpy as np
from spacy.tokens import Doc, Span, Token

from .errors import CtxvecError, Errors

# Doc-level storage (kept in doc.user_data, so it survives to_bytes and DocBin).
CONTEXT_ARRAY = "ctxvec_context"
CONTEXT_MASK = "ctxvec_context_mask"
STATIC_ARRAY = "ctxvec_static"
STATIC_KEYS = "ctxvec_static_keys"
POLYSEMY_ARRAY = "ctxvec_polysemy"
SENSE_ARRAY = "ctxvec_sense"
SENSE_VECTORS = "ctxvec_sense_vec"
SENSE_LABELS = "ctxvec_sense_label"
# Factory and default component names the commands look for.
CONTEXT_COMPONENT = "ctxvec_context"
POLYSEMY_FACTORY = "ctxvec_polysemy"

# Codes stored in STATIC_KEYS: which lookup produced a token's static vector.
STATIC_KEY_NAMES = ("none", "exact", "lower", "norm", "subwords")

# One record per token in POLYSEMY_ARRAY: the type's score and count, this occurrence's
# shift from the type centroid, and whether score / shift are defined.
POLYSEMY_DTYPE = np.dtype([("score", "f8"), ("count", "i8"), ("shift", "f8"), ("has_score", "?"), ("has_shift", "?")])

# One record per token in SENSE_ARRAY: this occurrence's sense within its type (-1:
# none), the type's number of induced senses (0: none), the confidence of the sense in
# [0, 1] and the type's corpus_polysemy, and whether those two are defined (0.0 where
# not: no NaN, so records compare equal). SENSE_VECTORS holds the sense's
# static vector per token (zeros where sense is -1); SENSE_LABELS its label per token
# (a list of strings, "" where sense is -1). Docs saved before "score" and
# "corpus_polysemy" existed read None for them.
SENSE_DTYPE = np.dtype(
    [
        ("sense", "i4"),
        ("n_senses", "i4"),
        ("score", "f4"),
        ("corpus_polysemy", "f4"),
        ("has_score", "?"),
        ("has_corpus_polysemy", "?"),
    ]
)


def _rows(doc: Doc, array_attr: str) -> Optional[np.ndarray]:
    return doc._.get(array_attr)


def stored_array(doc: Doc, array_attr: str) -> Optional[np.ndarray]:
    """doc._.<array_attr> read straight from doc.user_data, where spaCy keeps it: works
    before install_extensions() too (e.g. in vector hooks of an unpickled Doc)."""
    # spaCy's stub types user_data as Dict[str, Any]; extension values sit under tuple keys
    user_data = cast(Dict[Tuple[str, str, None, None], Any], doc.user_data)
    return user_data.get(("._.", array_attr, None, None))


def masked_mean(array: Optional[np.ndarray], mask: Optional[np.ndarray], start: int, end: int) -> Optional[np.ndarray]:
    """Mean of the rows start:end that the mask keeps (zeros if none; None without an
    array or its mask)."""
    if array is None or mask is None:
        return None
    rows = array[start:end][mask[start:end]]
    if len(rows) == 0:
        return np.zeros(array.shape[1], dtype=array.dtype)
    return rows.mean(axis=0, dtype=np.float64).astype(array.dtype)


# Contextual vectors
def token_context_vec(token: Token) -> Optional[np.ndarray]:
    array = _rows(token.doc, CONTEXT_ARRAY)
    return None if array is None else array[token.i]


def token_has_context_vec(token: Token) -> bool:
    mask = token.doc._.get(CONTEXT_MASK)
    return bool(mask is not None and mask[token.i])


def span_context_vec(span: Span) -> Optional[np.ndarray]:
    doc = span.doc
    return masked_mean(doc._.get(CONTEXT_ARRAY), doc._.get(CONTEXT_MASK), span.start, span.end)


def doc_context_vec(doc: Doc) -> Optional[np.ndarray]:
    return masked_mean(doc._.get(CONTEXT_ARRAY), doc._.get(CONTEXT_MASK), 0, len(doc))


# Static vectors
def _static_mask(doc: Doc) -> Optional[np.ndarray]:
    keys = doc._.get(STATIC_KEYS)
    return None if keys is None else keys > 0


def token_static_vec(token: Token) -> Optional[np.ndarray]:
    array = _rows(token.doc, STATIC_ARRAY)
    return None if array is None else array[token.i]


def token_has_static_vec(token: Token) -> bool:
    keys = token.doc._.get(STATIC_KEYS)
    return bool(keys is not None and keys[token.i] > 0)


def token_static_vec_key(token: Token) -> Optional[str]:
    keys = token.doc._.get(STATIC_KEYS)
    return None if keys is None else STATIC_KEY_NAMES[int(keys[token.i])]


def span_static_vec(span: Span) -> Optional[np.ndarray]:
    doc = span.doc
    return masked_mean(doc._.get(STATIC_ARRAY), _static_mask(doc), span.start, span.end)


def doc_static_vec(doc: Doc) -> Optional[np.ndarray]:
    return masked_mean(doc._.get(STATIC_ARRAY), _static_mask(doc), 0, len(doc))


# Polysemy
def token_polysemy_score(token: Token) -> Optional[float]:
    records = token.doc._.get(POLYSEMY_ARRAY)
    if records is None or not records["has_score"][token.i]:
        return None
    return float(records["score"][token.i])


def token_polysemy_count(token: Token) -> int:
    records = token.doc._.get(POLYSEMY_ARRAY)
    return 0 if records is None else int(records["count"][token.i])


def token_context_shift(token: Token) -> Optional[float]:
    records = token.doc._.get(POLYSEMY_ARRAY)
    if records is None or not records["has_shift"][token.i]:
        return None
    return float(records["shift"][token.i])


# Senses
def _sense_mask(doc: Doc) -> Optional[np.ndarray]:
    records = doc._.get(SENSE_ARRAY)
    return None if records is None else records["sense"] >= 0


def token_sense(token: Token) -> Optional[int]:
    records = token.doc._.get(SENSE_ARRAY)
    if records is None or records["sense"][token.i] < 0:
        return None
    return int(records["sense"][token.i])


def token_n_senses(token: Token) -> int:
    records = token.doc._.get(SENSE_ARRAY)
    return 0 if records is None else int(records["n_senses"][token.i])


def _sense_field(token: Token, name: str) -> Optional[float]:
    """A float field of the token's sense record; None where not defined (or the record,
    saved before the field existed, lacks it)."""
    records = token.doc._.get(SENSE_ARRAY)
    if records is None or f"has_{name}" not in (records.dtype.names or ()) or not records[f"has_{name}"][token.i]:
        return None
    return float(records[name][token.i])


def token_sense_score(token: Token) -> Optional[float]:
    return _sense_field(token, "score")


def token_corpus_polysemy(token: Token) -> Optional[float]:
    return _sense_field(token, "corpus_polysemy")


def token_sense_label(token: Token) -> Optional[str]:
    labels = token.doc._.get(SENSE_LABELS)
    if labels is None or token_sense(token) is None:
        return None
    return str(labels[token.i])


def token_sense_vec(token: Token) -> Optional[np.ndarray]:
    array = _rows(token.doc, SENSE_VECTORS)
    if array is None or token_sense(token) is None:
        return None
    return array[token.i]


def span_sense_vec(span: Span) -> Optional[np.ndarray]:
    doc = span.doc
    return masked_mean(doc._.get(SENSE_VECTORS), _sense_mask(doc), span.start, span.end)


def doc_sense_vec(doc: Doc) -> Optional[np.ndarray]:
    return masked_mean(doc._.get(SENSE_VECTORS), _sense_mask(doc), 0, len(doc))


def _same_function(a, b) -> bool:
    # By module and name, so that a reloaded spacy_ctxvec still counts as ours.
    return a is b or (
        a is not None
        and b is not None
        and getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None)
    )


def _owner(default, getter) -> str:
    if getter is not None:
        return f"the getter {getattr(getter, '__module__', '?')}.{getattr(getter, '__qualname__', repr(getter))}"
    return f"another package (a plain attribute with default {default!r})"


def _set(cls, name: str, default=None, getter=None) -> None:
    """Register cls._.name, or check that the registered one is ours (E022)."""
    if not cls.has_extension(name):
        if getter is None:
            cls.set_extension(name, default=default)
        else:
            cls.set_extension(name, getter=getter)
        return
    old_default, method, old_getter, setter = cls.get_extension(name)
    ours = (
        _same_function(old_getter, getter)
        if getter is not None
        else (old_getter is None and method is None and setter is None and old_default is default)
    )
    if not ours:
        raise CtxvecError(Errors.E022.format(cls=cls.__name__, attr=name, owner=_owner(old_default, old_getter)))


def install_extensions() -> None:
    """Register every attribute once; safe to call repeatedly. Raises E022 if another
    package registered one of these names first. Call it (or load a ctxvec pipeline)
    before reading ._ attributes of Docs from a DocBin or a pickle in a new process."""
    doc_arrays = (CONTEXT_ARRAY, CONTEXT_MASK, STATIC_ARRAY, STATIC_KEYS, POLYSEMY_ARRAY, SENSE_ARRAY, SENSE_VECTORS)
    for name in (*doc_arrays, SENSE_LABELS):
        _set(Doc, name, default=None)
    _set(Token, "context_vec", getter=token_context_vec)
    _set(Token, "has_context_vec", getter=token_has_context_vec)
    _set(Span, "context_vec", getter=span_context_vec)
    _set(Doc, "context_vec", getter=doc_context_vec)
    _set(Token, "static_vec", getter=token_static_vec)
    _set(Token, "has_static_vec", getter=token_has_static_vec)
    _set(Token, "static_vec_key", getter=token_static_vec_key)
    _set(Span, "static_vec", getter=span_static_vec)
    _set(Doc, "static_vec", getter=doc_static_vec)
    _set(Token, "polysemy_score", getter=token_polysemy_score)
    _set(Token, "polysemy_count", getter=token_polysemy_count)
    _set(Token, "context_shift", getter=token_context_shift)
    _set(Token, "sense", getter=token_sense)
    _set(Token, "n_senses", getter=token_n_senses)
    _set(Token, "sense_vec", getter=token_sense_vec)
    _set(Token, "sense_score", getter=token_sense_score)
    _set(Token, "sense_label", getter=token_sense_label)
    _set(Token, "corpus_polysemy", getter=token_corpus_polysemy)
    _set(Span, "sense_vec", getter=span_sense_vec)
    _set(Doc, "sense_vec", getter=doc_sense_vec)
