"""Every extension attribute of spacy-ctxvec, installed in one place.

Each kind of vector is one Doc-level array (n_tokens, width) plus a per-token
array saying which rows are real; Token, Span and Doc attributes are getters over it.
Each component's arrays are stored with the character bounds of the tokens they were
set for, so that after doc.retokenize() a value follows its token (a token that spans
other characters than any token then, e.g. a merged one, has none), as doc.tensor does;
they are stored anchored at a character (doc_storage), so that Span.as_doc(copy_user_data=True)
and Doc.from_docs carry every token's values to the new Doc.
"""

from typing import Any, Dict, List, Mapping, Optional

import numpy as np
from spacy.tokens import Doc, Span, Token

from .assigned_values import expected_value, stored_copy, wrong_value
from .doc_storage import (
    NOT_DIRECT,
    anchored,
    direct,
    direct_rows,
    direct_rows_between,
    gathered,
    key,
    read_value,
    read_values,
    token_bounds,
    token_row,
    write_array_for_tokens,
    write_arrays,
    write_value,
)
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
# (n_tokens + 1, 2) int64 (token_bounds): each token's start character and length when a
# component set its arrays; one per component, since a Doc may be retokenized between them.
CONTEXT_BOUNDS = "ctxvec_context_bounds"
STATIC_BOUNDS = "ctxvec_static_bounds"
POLYSEMY_BOUNDS = "ctxvec_polysemy_bounds"
BOUNDS_OF = {
    CONTEXT_ARRAY: CONTEXT_BOUNDS,
    CONTEXT_MASK: CONTEXT_BOUNDS,
    STATIC_ARRAY: STATIC_BOUNDS,
    STATIC_KEYS: STATIC_BOUNDS,
    POLYSEMY_ARRAY: POLYSEMY_BOUNDS,
    SENSE_ARRAY: POLYSEMY_BOUNDS,
    SENSE_VECTORS: POLYSEMY_BOUNDS,
    SENSE_LABELS: POLYSEMY_BOUNDS,
}
# How ctxvec_context made the Doc's vectors, e.g. "layer 5 of 6, pooled by pool_mean"
# (choices.vectors_label); a lexicon records the same of the Docs it counted, and
# ctxvec_polysemy refuses Docs whose vectors were made otherwise (E043).
CONTEXT_SOURCE = "ctxvec_context_source"
# The fingerprint of the transformer weights that made doc._.trf_data (set by
# ctxvec_transformer; None from other transformer components): ctxvec_context names the
# model in CONTEXT_SOURCE with it, so that a lexicon refuses another model's vectors, or
# vectors of weights that training has changed since.
TRANSFORMER_MODEL = "ctxvec_transformer_model"
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


# What a token without a row reads in the arrays doc._.<name> gathers for a Doc made by
# Span.as_doc or Doc.from_docs (zeros elsewhere): no sense, no label.
EMPTY_ROW: Dict[str, Any] = {
    SENSE_ARRAY: np.array((-1, 0, 0.0, 0.0, False, False), dtype=SENSE_DTYPE),
    SENSE_LABELS: "",
}
BOUNDS_NAMES = sorted(set(BOUNDS_OF.values()))
DOC_VALUES = (CONTEXT_SOURCE, TRANSFORMER_MODEL)
# The arrays a Doc-level value goes with: a Doc joined from parts reads the parts its tokens read.
VALUE_BOUNDS = {CONTEXT_SOURCE: CONTEXT_BOUNDS}


def stored_array(doc: Doc, array_attr: str) -> Optional[Any]:
    """doc._.<array_attr> read straight from doc.user_data, where spaCy keeps it: works
    before install_extensions() too (e.g. in vector hooks of an unpickled Doc). The
    array as it was stored for this Doc's text; for a Doc made by Span.as_doc or
    Doc.from_docs, one row per token gathered from the arrays of the Docs it was made
    from (EMPTY_ROW or zeros for tokens without one); the values of DOC_VALUES."""
    if array_attr in BOUNDS_OF:
        value, _ = direct(doc, array_attr, BOUNDS_OF[array_attr])
        if value is not NOT_DIRECT:
            return value
        return gathered(doc, array_attr, BOUNDS_OF[array_attr], EMPTY_ROW.get(array_attr))[0]
    if array_attr in BOUNDS_NAMES:
        names = [name for name, bounds in BOUNDS_OF.items() if bounds == array_attr]
        value, bounds = direct(doc, names[0], array_attr)
        return bounds if value is not NOT_DIRECT else token_bounds(doc) if anchored(doc, array_attr) else None
    return read_value(doc, array_attr, VALUE_BOUNDS.get(array_attr))


def stored_values(doc: Doc, name: str) -> List[Any]:
    """Every distinct value of the Doc-level ``name`` (one of DOC_VALUES) among the parts
    the Doc was made from (from_docs joins parts that may differ; stored_array is then None)."""
    return read_values(doc, name, VALUE_BOUNDS.get(name))


def set_token_arrays(doc: Doc, arrays: Mapping[str, Any]) -> None:
    """Store one component's Doc-level arrays (attributes of BOUNDS_OF) and the bounds of
    the tokens they are for."""
    bounds_name = BOUNDS_OF[next(iter(arrays))]
    write_arrays(doc, arrays, bounds_name, [name for name, bounds in BOUNDS_OF.items() if bounds == bounds_name])


def set_doc_value(doc: Doc, name: str, value: Any) -> None:
    """Set the Doc-level doc._.<name> (e.g. CONTEXT_SOURCE), carried with the arrays."""
    write_value(doc, name, value)


def span_rows(doc: Doc, array_attr: str, start: int, end: int) -> np.ndarray:
    """doc_rows(doc, array_attr)[start:end], in time of the span where the arrays were stored for
    this text (a Doc's own; gathered ones, of Docs joined or copied, cost the Doc's)."""
    value, bounds = direct(doc, array_attr, BOUNDS_OF[array_attr])
    if value is None:
        return np.full(max(end - start, 0), -1, dtype=np.int64)
    if value is not NOT_DIRECT:
        return direct_rows_between(doc, value, bounds, start, end)
    return gathered(doc, array_attr, BOUNDS_OF[array_attr], EMPTY_ROW.get(array_attr))[1][start:end]


def doc_rows(doc: Doc, array_attr: str) -> np.ndarray:
    """Each token's row in stored_array(doc, array_attr) (-1: none), computed at once."""
    value, bounds = direct(doc, array_attr, BOUNDS_OF[array_attr])
    if value is None:
        return np.full(len(doc), -1, dtype=np.int64)
    if value is not NOT_DIRECT:
        return direct_rows(doc, value, bounds)
    return gathered(doc, array_attr, BOUNDS_OF[array_attr], EMPTY_ROW.get(array_attr))[1]


def fits_tokens(doc: Doc, array_attr: str) -> bool:
    """Whether ``array_attr`` is set and stored_array gives one row per token of the Doc as
    it is now, each the token's own (no doc.retokenize() since)."""
    value, bounds = direct(doc, array_attr, BOUNDS_OF[array_attr])
    if value is None:
        return False
    if value is not NOT_DIRECT:
        if bounds is None:
            return len(value) == len(doc)
        current = token_bounds(doc, with_text=bounds.shape[1] > 2)
        return len(bounds) == len(current) and np.array_equal(bounds, current)
    array, rows = gathered(doc, array_attr, BOUNDS_OF[array_attr], EMPTY_ROW.get(array_attr))
    return array is not None and bool((rows >= 0).all())


def check_same_tokens(doc: Doc, reader: str) -> None:
    """E042 where ctxvec_context's vectors were set for other tokens than ``doc`` has now:
    ``reader`` reads them by token position."""
    if stored_array(doc, CONTEXT_ARRAY) is not None and not fits_tokens(doc, CONTEXT_ARRAY):
        raise CtxvecError(Errors.E042.format(name=reader, context=CONTEXT_COMPONENT))


def _token_value(token: Token, array_attr: str) -> Any:
    """The token's row of ``array_attr`` (None without the array or a row); a vector row
    is a read-only view, so an in-place edit cannot change what later readers (scores,
    senses, means) read from the Doc: ``.copy()`` it to modify."""
    value, row = token_row(token, array_attr, BOUNDS_OF[array_attr])
    if row is None:
        return None
    result = value[row]
    if isinstance(result, np.ndarray):
        result = result.view()
        result.flags.writeable = False
    return result


def kept_rows(doc: Doc, array_attr: str, mask: np.ndarray, start: int, end: int) -> np.ndarray:
    """The rows of ``array_attr`` of the tokens start:end that have a row the mask keeps."""
    rows = span_rows(doc, array_attr, start, end)
    rows = rows[rows >= 0]
    return rows[np.asarray(mask, dtype=bool)[rows]]


def masked_mean(doc: Doc, array_attr: str, mask: Optional[np.ndarray], start: int, end: int) -> Optional[np.ndarray]:
    """Mean of the rows of ``array_attr`` for the tokens start:end that have a row the
    mask keeps (zeros if none; None without the array or its mask)."""
    array = stored_array(doc, array_attr)
    if array is None or mask is None:
        return None
    rows = kept_rows(doc, array_attr, mask, start, end)
    if len(rows) == 0:
        return np.zeros(array.shape[1], dtype=array.dtype)
    return array[rows].mean(axis=0, dtype=np.float64).astype(array.dtype)


# Contextual vectors
def token_context_vec(token: Token) -> Optional[np.ndarray]:
    return _token_value(token, CONTEXT_ARRAY)


def token_has_context_vec(token: Token) -> bool:
    return bool(_token_value(token, CONTEXT_MASK))


def token_context_mask(token: Token) -> Optional[bool]:
    """Whether the token's stored row has a contextual vector; None where it has no row."""
    value = _token_value(token, CONTEXT_MASK)
    return None if value is None else bool(value)


def span_context_vec(span: Span) -> Optional[np.ndarray]:
    doc = span.doc
    return masked_mean(doc, CONTEXT_ARRAY, stored_array(doc, CONTEXT_MASK), span.start, span.end)


def doc_context_vec(doc: Doc) -> Optional[np.ndarray]:
    return masked_mean(doc, CONTEXT_ARRAY, stored_array(doc, CONTEXT_MASK), 0, len(doc))


# Static vectors
def _static_mask(doc: Doc) -> Optional[np.ndarray]:
    keys = stored_array(doc, STATIC_KEYS)
    return None if keys is None else keys > 0


def token_static_vec(token: Token) -> Optional[np.ndarray]:
    return _token_value(token, STATIC_ARRAY)


def token_has_static_vec(token: Token) -> bool:
    key = _token_value(token, STATIC_KEYS)
    return bool(key is not None and key > 0)


def token_static_vec_key(token: Token) -> Optional[str]:
    key = _token_value(token, STATIC_KEYS)
    return None if key is None else STATIC_KEY_NAMES[int(key)]


def span_static_vec(span: Span) -> Optional[np.ndarray]:
    doc = span.doc
    return masked_mean(doc, STATIC_ARRAY, _static_mask(doc), span.start, span.end)


def doc_static_vec(doc: Doc) -> Optional[np.ndarray]:
    return masked_mean(doc, STATIC_ARRAY, _static_mask(doc), 0, len(doc))


# Polysemy
def token_polysemy_score(token: Token) -> Optional[float]:
    record = _token_value(token, POLYSEMY_ARRAY)
    return None if record is None or not record["has_score"] else float(record["score"])


def token_polysemy_count(token: Token) -> Optional[int]:
    record = _token_value(token, POLYSEMY_ARRAY)
    return None if record is None else int(record["count"])


def token_context_shift(token: Token) -> Optional[float]:
    record = _token_value(token, POLYSEMY_ARRAY)
    return None if record is None or not record["has_shift"] else float(record["shift"])


# Senses
def _sense_mask(doc: Doc) -> Optional[np.ndarray]:
    records = stored_array(doc, SENSE_ARRAY)
    return None if records is None else records["sense"] >= 0


def token_sense(token: Token) -> Optional[int]:
    record = _token_value(token, SENSE_ARRAY)
    return None if record is None or record["sense"] < 0 else int(record["sense"])


def token_n_senses(token: Token) -> Optional[int]:
    """The type's number of senses; 0 where ctxvec_polysemy ran without senses, None where
    it did not annotate the Doc."""
    record = _token_value(token, SENSE_ARRAY)
    if record is None:
        return None if _token_value(token, POLYSEMY_ARRAY) is None else 0
    return int(record["n_senses"])


def _sense_field(token: Token, name: str) -> Optional[float]:
    """A float field of the token's sense record; None where not defined (or the record,
    saved before the field existed, lacks it)."""
    record = _token_value(token, SENSE_ARRAY)
    if record is None or f"has_{name}" not in (record.dtype.names or ()) or not record[f"has_{name}"]:
        return None
    return float(record[name])


def token_sense_score(token: Token) -> Optional[float]:
    return _sense_field(token, "score")


def token_corpus_polysemy(token: Token) -> Optional[float]:
    return _sense_field(token, "corpus_polysemy")


def token_sense_label(token: Token) -> Optional[str]:
    if token_sense(token) is None:
        return None
    label = _token_value(token, SENSE_LABELS)
    return None if label is None else str(label)


def token_sense_vec(token: Token) -> Optional[np.ndarray]:
    return None if token_sense(token) is None else _token_value(token, SENSE_VECTORS)


def span_sense_vec(span: Span) -> Optional[np.ndarray]:
    doc = span.doc
    return masked_mean(doc, SENSE_VECTORS, _sense_mask(doc), span.start, span.end)


def doc_sense_vec(doc: Doc) -> Optional[np.ndarray]:
    return masked_mean(doc, SENSE_VECTORS, _sense_mask(doc), 0, len(doc))


class StoredGetter:
    """doc._.<name>: stored_array(doc, name). A module-level class rather than a closure,
    so that spaCy can pickle the registered extensions to nlp.pipe(n_process=...)
    workers under the spawn and forkserver start methods."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__qualname__ = f"stored_array[{name}]"  # E022 tells ours from another package's by name

    def __call__(self, doc: Doc) -> Any:
        value = stored_array(doc, self.name)
        if isinstance(value, np.ndarray):  # read-only, as token rows: edit a .copy() and set it back (checked)
            value = value.view()
            value.flags.writeable = False
        elif isinstance(value, list):  # labels as Doc.from_bytes or n_process reads them back: a tuple, as stored
            value = tuple(value)
        return value


class StoredSetter:
    """doc._.<name> = value: stored for this Doc's text (at anchor 0), an array of BOUNDS_OF with
    one row per token for the tokens as they are now; picklable, as StoredGetter."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__qualname__ = f"store[{name}]"

    def __call__(self, doc: Doc, value: Any) -> None:
        if value is not None and self.name in CHECKED_ON_SET:
            value = _checked_copy(doc, self.name, value)
        bounds_name = BOUNDS_OF.get(self.name)
        if bounds_name is None or not hasattr(value, "__len__") or len(value) != len(doc):
            doc.user_data[key(self.name, 0)] = value  # type: ignore[index]
            return
        shared = [name for name, bounds in BOUNDS_OF.items() if bounds == bounds_name]
        write_array_for_tokens(doc, self.name, value, bounds_name, shared, EMPTY_ROW)


# The Doc-level arrays whose rows the token attributes read, with what each must hold: a
# wrong shape or a NaN set by hand would come back as another token's value, as NaN (the
# attributes never give NaN) or as an IndexError when a token reads it.
CHECKED_ON_SET = {CONTEXT_ARRAY: "vectors", STATIC_ARRAY: "vectors", SENSE_VECTORS: "vectors", CONTEXT_MASK: "mask"}
CHECKED_ON_SET.update({STATIC_KEYS: "codes", SENSE_LABELS: "labels", POLYSEMY_ARRAY: "records", SENSE_ARRAY: "records"})


def _checked_copy(doc: Doc, name: str, value: Any) -> Any:
    """The read-only copy of ``value`` to store (assigned_values.stored_copy); E030 unless it
    has one row per token and what CHECKED_ON_SET says it holds (finite also as stored)."""
    kind = CHECKED_ON_SET[name]
    got = wrong_value(len(doc), kind, value, STATIC_KEY_NAMES)
    stored = stored_copy(kind, value) if got is None else None
    got = got or wrong_value(len(doc), kind, stored, STATIC_KEY_NAMES)
    if got is not None:
        expected = expected_value(kind, STATIC_KEY_NAMES)
        raise CtxvecError(Errors.E030.format(name=name, expected=expected, n_tokens=len(doc), got=got))
    return stored


class ReadOnly:
    """The setter of a computed attribute: E026 instead of spaCy's default, which stores
    the value under a key no getter reads (silently lost). Picklable, as StoredGetter."""

    def __init__(self, cls_name: str, attr: str) -> None:
        self.cls_name, self.attr = cls_name, attr
        self.__qualname__ = f"read_only[{cls_name}.{attr}]"

    def __call__(self, obj: Any, value: Any) -> None:
        copy = f"{self.cls_name.lower()}._.{self.attr}.copy()" if "vec" in self.attr else "it is a plain number or text"
        raise CtxvecError(Errors.E026.format(cls=self.cls_name, attr=self.attr, copy=copy))


def _same_function(a: Any, b: Any) -> bool:
    # By module and name, so that a reloaded spacy_ctxvec still counts as ours.
    return a is b or (
        a is not None
        and b is not None
        and getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None)
    )


def _owner(default: Any, getter: Any) -> str:
    if getter is not None:
        return f"the getter {getattr(getter, '__module__', '?')}.{getattr(getter, '__qualname__', repr(getter))}"
    return f"another package (a plain attribute with default {default!r})"


def _set(cls: Any, name: str, default: Any = None, getter: Any = None, setter: Any = None) -> None:
    """Register cls._.name, or check that the registered one is ours (E022). A getter
    without ``setter`` is read-only (E026 on assignment)."""
    if not cls.has_extension(name):
        if getter is None:
            cls.set_extension(name, default=default)
        else:
            cls.set_extension(name, getter=getter, setter=setter or ReadOnly(cls.__name__, name))
        return
    old_default, method, old_getter, old_setter = cls.get_extension(name)
    ours = (
        _same_function(old_getter, getter)
        if getter is not None
        else (old_getter is None and method is None and old_setter is None and old_default is default)
    )
    if not ours:
        raise CtxvecError(Errors.E022.format(cls=cls.__name__, attr=name, owner=_owner(old_default, old_getter)))
    if getter is not None and setter is None and old_setter is None:  # ours from before E026: read-only now
        cls.set_extension(name, getter=getter, setter=ReadOnly(cls.__name__, name), force=True)


def context_segments(doc: Doc) -> Optional[np.ndarray]:
    """Per token, the number of its sentence (where the Doc's sentence boundaries are set:
    a parser, senter or sentencizer ran) and paragraph (a run of whitespace holding two
    line breaks starts one), which bound a token's context window; None where the Doc
    has neither (one segment)."""
    starts = np.zeros(len(doc), dtype=bool)
    if doc.has_annotation("SENT_START"):
        starts |= doc.to_array("SENT_START") == 1
    spaces = np.flatnonzero(doc.to_array("IS_SPACE"))
    starts[[int(i) for i in spaces if doc[int(i)].text.count("\n") >= 2]] = True
    starts[:1] = False
    return np.cumsum(starts) if starts.any() else None


def install_extensions() -> None:
    """Register every attribute once; safe to call repeatedly. Raises E022 if another
    package registered one of these names first. Call it (or load a ctxvec pipeline)
    before reading ._ attributes of Docs from a DocBin or a pickle in a new process."""
    for name in (*BOUNDS_OF, *BOUNDS_NAMES, *DOC_VALUES):
        _set(Doc, name, getter=StoredGetter(name), setter=StoredSetter(name))
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
