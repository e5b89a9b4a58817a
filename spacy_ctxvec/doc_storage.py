"""Where the components keep their Doc-level arrays in doc.user_data, and how a token
finds its row in them.

A component stores each array under a character-anchored key ("._.", name, 0, None) (0:
the start character of the Doc it was made for), with the bounds of the tokens it was
made for (token_bounds) under its bounds name. spaCy shifts such keys with the text:
``Span.as_doc(copy_user_data=True)`` keeps them at ``-span.start_char`` and
``Doc.from_docs`` puts each Doc's at the character where its text starts, so every
token of the new Doc finds the row of the token it was made from (its characters, shifted
by the anchor, and its text are those of a row). spaCy drops Doc-level keys (None, None)
there; Docs saved by earlier versions have those and are read as then.
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, cast
from weakref import WeakKeyDictionary

import numpy as np
from spacy.attrs import IDX, LENGTH, ORTH
from spacy.tokens import Doc, Token

# direct(): the tokens read the array only through anchored().
NOT_DIRECT = object()


def key(name: str, anchor: Optional[int]) -> Tuple[str, str, Optional[int], None]:
    """The doc.user_data key of doc._.<name> stored at ``anchor`` (None: Doc-level, as
    earlier versions stored it)."""
    return ("._.", name, anchor, None)


def _user_data(doc: Doc) -> Dict[Any, Any]:
    # spaCy's stub types user_data as Dict[str, Any]; extension values sit under tuple keys
    return cast(Dict[Any, Any], doc.user_data)


def text_length(doc: Doc) -> int:
    """len(doc.text), without joining the text."""
    return doc[-1].idx + len(doc[-1].text_with_ws) if len(doc) else 0


def _signed(orth: int) -> int:
    """A uint64 hash as the int64 stored in token_bounds."""
    return orth - (1 << 64) if orth >= (1 << 63) else orth


def token_bounds(doc: Doc, with_text: bool = True) -> np.ndarray:
    """(n_tokens + 1, 3) int64: each token's start character, length and text (its ORTH
    hash), then the text's length, -1 and 0 (earlier versions stored the first two
    columns only; without ``with_text``, only those are made)."""
    attrs = [IDX, LENGTH, ORTH] if with_text else [IDX, LENGTH]
    bounds = np.asarray(doc.to_array(attrs), dtype=np.uint64).reshape(len(doc), len(attrs)).view(np.int64)
    return np.concatenate([bounds, np.array([[text_length(doc), -1, 0][: len(attrs)]], dtype=np.int64)])


def anchored(doc: Doc, name: str) -> List[Tuple[int, Any]]:
    """(anchor, value) of every character-anchored doc._.<name> that is set: the one at 0
    first, then by anchor."""
    found = [
        (k[2], v)
        for k, v in _user_data(doc).items()
        if type(k) is tuple
        and len(k) == 4
        and k[0] == "._."
        and k[1] == name
        and k[3] is None
        and isinstance(k[2], int)
        and v is not None
    ]
    return sorted(found, key=lambda entry: (entry[0] != 0, entry[0]))


# Per Doc and bounds name, its anchored entries and which one each token reads (resolve),
# kept between token getter calls; made again when the number of user_data keys, of
# tokens or of characters changes, when an entry or row turns out to be another, and for
# Doc-level reads when the tokens' bounds differ.
Resolved = Tuple[List[Tuple[int, Any]], np.ndarray, np.ndarray]
_INDEX: "WeakKeyDictionary[Doc, Tuple[Tuple[int, int, int], Dict[str, Tuple[Resolved, bytes]]]]" = WeakKeyDictionary()


def resolve(doc: Doc, bounds_name: str, current: Optional[np.ndarray] = None) -> Resolved:
    """(anchored entries of ``bounds_name``, each token's entry (-1: none), its row there):
    the one entry with a row of the token's characters and text. Where several have one,
    none: a copy's range reaches past its part (as_doc keeps the whole source), so the
    same word of a neighbouring part can sit at the characters of that word in another
    copy, and which part the token came from is not known. Given ``current`` (the Doc's
    token_bounds without the last row), checked against the tokens' bounds."""
    cached = _while_unchanged(_INDEX, doc)
    found = cached.get(bounds_name)
    if found is not None and (current is None or found[1] == current.tobytes()):
        return found[0]
    if current is None:
        current = token_bounds(doc)[:-1]
    entries = anchored(doc, bounds_name)
    entry = np.full(len(doc), -1, dtype=np.int64)
    rows = np.full(len(doc), -1, dtype=np.int64)
    n_found = np.zeros(len(doc), dtype=np.int64)
    for e, (anchor, bounds) in enumerate(entries):
        matched = _matching_rows(bounds, current, anchor)
        hit = matched >= 0
        entry[hit], rows[hit] = e, matched[hit]
        n_found += hit
    entry[n_found > 1] = -1
    rows[n_found > 1] = -1
    cached[bounds_name] = ((entries, entry, rows), current.tobytes())
    return entries, entry, rows


def _drop(doc: Doc, names: Sequence[str]) -> None:
    """Remove every stored doc._.<name> of ``names`` (anchored anywhere, or Doc-level)."""
    user_data = _user_data(doc)
    stale = [
        k for k in user_data if type(k) is tuple and len(k) == 4 and k[0] == "._." and k[1] in names and k[3] is None
    ]
    for k in stale:
        del user_data[k]


def write_arrays(doc: Doc, arrays: Mapping[str, Any], bounds_name: str, shared: Sequence[str]) -> None:
    """Store one component's arrays and the bounds of the tokens they are for at anchor 0,
    replacing what the Doc had stored of ``shared`` (the names read with ``bounds_name``)
    anywhere: a copy made by as_doc or from_docs reads the new values, not the old."""
    user_data = _user_data(doc)
    if len(user_data):
        _drop(doc, [*shared, bounds_name])
    bounds = token_bounds(doc)
    for name, value in arrays.items():
        user_data[key(name, 0)] = value
    user_data[key(bounds_name, 0)] = bounds


def write_array_for_tokens(
    doc: Doc, name: str, value: Any, bounds_name: str, shared: Sequence[str], empty_rows: Mapping[str, Any]
) -> None:
    """Store ``value``, one row per token of ``doc`` as it is now, as doc._.<name> (set by hand).
    Where the arrays of ``shared`` were stored for other tokens (doc.retokenize() since, or a
    Doc joined from parts), they are first gathered into one row per current token (a token
    without a row gets ``empty_rows`` or zeros), so that every token reads its own rows of each."""
    user_data = _user_data(doc)
    bounds = user_data.get(key(bounds_name, 0))
    if (
        bounds is not None
        and len(anchored(doc, bounds_name)) == 1
        and np.array_equal(bounds, token_bounds(doc, with_text=bounds.shape[1] > 2))
    ):
        user_data[key(name, 0)] = value
        return
    arrays = {other: _per_token(doc, other, bounds_name, empty_rows.get(other)) for other in shared if other != name}
    write_arrays(doc, {**{k: v for k, v in arrays.items() if v is not None}, name: value}, bounds_name, shared)


def _per_token(doc: Doc, name: str, bounds_name: str, empty_row: Any) -> Any:
    """doc._.<name> as one row per current token (None where it is not set)."""
    value, bounds = direct(doc, name, bounds_name)
    if value is NOT_DIRECT:
        return gathered(doc, name, bounds_name, empty_row)[0]
    if value is None:
        return None
    rows = direct_rows(doc, value, bounds)
    result = _empty_like(value, len(doc), empty_row)
    for t in np.flatnonzero(rows >= 0).tolist():
        result[t] = value[rows[t]]
    return result


def write_value(doc: Doc, name: str, value: Any) -> None:
    """Store a Doc-level value that goes with the arrays (e.g. how they were made) at
    anchor 0, so that as_doc and from_docs carry it."""
    user_data = _user_data(doc)
    if len(user_data):
        _drop(doc, [name])
    user_data[key(name, 0)] = value


def read_value(doc: Doc, name: str, bounds_name: Optional[str] = None) -> Any:
    """A value stored by write_value: the one the Doc's parts agree on (None where they
    differ, e.g. Docs of two pipelines joined by from_docs); see read_values."""
    values = read_values(doc, name, bounds_name)
    return values[0] if len(values) == 1 else None


def read_values(doc: Doc, name: str, bounds_name: Optional[str] = None) -> List[Any]:
    """The distinct values stored by write_value of the parts this Doc was made from, in
    anchor order: with ``bounds_name`` (the arrays the value goes with), of the parts whose
    rows its tokens read where the parts differ (a Span.as_doc copy of one part reads
    that part's, though the copy keeps every part's user data); [] where none is stored."""
    stored = anchored(doc, name)
    if not stored:
        value = _user_data(doc).get(key(name, None))  # stored Doc-level by an earlier version
        return [] if value is None else [value]
    if bounds_name is not None and any(value != stored[0][1] for _, value in stored[1:]):
        entries, entry, _ = resolve(doc, bounds_name)
        read = {entries[e][0] for e in np.unique(entry[entry >= 0]).tolist()}
        by_anchor = dict(stored)
        stored = [(anchor, by_anchor.get(anchor)) for anchor in sorted(read)] or stored
    distinct: List[Any] = []
    for _, value in stored:
        if value not in distinct:
            distinct.append(value)
    return distinct


def direct(doc: Doc, name: str, bounds_name: str) -> Tuple[Any, Optional[np.ndarray]]:
    """(value, bounds) of the array stored for this very text: at anchor 0 with the bounds
    of a text as long as this one (or none), the only anchored bounds; else stored
    Doc-level by an earlier version; (NOT_DIRECT, None) where the tokens read it only
    through anchored() (a Doc joined by from_docs whose first part's source text is as long
    as the joined one: the same word at the same characters is not the same token)."""
    user_data = _user_data(doc)
    value = user_data.get(key(name, 0))
    bounds = user_data.get(key(bounds_name, 0))
    this_text = bounds is not None and bounds[-1, 0] == text_length(doc) and _sole_bounds(doc, bounds_name)
    if value is not None:
        return (value, bounds) if bounds is None or this_text else (NOT_DIRECT, None)
    value = user_data.get(key(name, None))
    if value is not None:
        bounds = user_data.get(key(bounds_name, None))
        if bounds is not None and len(bounds) == len(value):  # saved by versions whose bounds lacked the text row
            bounds = np.concatenate([bounds, token_bounds(doc, with_text=bounds.shape[1] > 2)[-1:]])
        return value, bounds
    if this_text or not resolve(doc, bounds_name)[0]:
        return None, None  # the component stored this text's arrays without this one (write_arrays drops copies)
    return NOT_DIRECT, None


# Per Doc and bounds name, whether anchor 0 holds its only anchored bounds (direct()), kept
# while the numbers of user_data keys, tokens and characters stay.
_SOLE: "WeakKeyDictionary[Doc, Tuple[Tuple[int, int, int], Dict[str, bool]]]" = WeakKeyDictionary()


def _sole_bounds(doc: Doc, bounds_name: str) -> bool:
    cached = _while_unchanged(_SOLE, doc)
    sole = cached.get(bounds_name)
    if sole is None:
        sole = cached[bounds_name] = len(anchored(doc, bounds_name)) == 1
    return sole


def _while_unchanged(
    cache: "WeakKeyDictionary[Doc, Tuple[Tuple[int, int, int], Dict[str, Any]]]", doc: Doc
) -> Dict[str, Any]:
    """``cache``'s entries for ``doc``, emptied where the numbers of its user_data keys, tokens
    or characters changed since they were kept."""
    stamp = (len(doc.user_data), len(doc), text_length(doc))
    cached = cache.get(doc)
    if cached is None or cached[0] != stamp:
        cached = cache[doc] = (stamp, {})
    return cached[1]


def _row(bounds: np.ndarray, token: Token, shift: int, same_text: bool) -> Optional[int]:
    """The row of ``bounds`` with ``token``'s start (less ``shift``) and length, and its
    text where ``same_text`` (and bounds record it: earlier versions did not), or None."""
    n, start, length, i = len(bounds) - 1, token.idx - shift, len(token), token.i
    if not (i < n and bounds[i, 0] == start and bounds[i, 1] == length):
        i = int(np.searchsorted(bounds[:n, 0], start))
        if not (i < n and bounds[i, 0] == start and bounds[i, 1] == length):
            return None
    if same_text and bounds.shape[1] > 2 and bounds[i, 2] != _signed(token.orth):
        return None
    return i


def token_row(token: Token, name: str, bounds_name: str) -> Tuple[Any, Optional[int]]:
    """(stored value, row) that ``token`` reads doc._.<name> from; (None, None) where it
    has none. For the array stored for this text: token.i while the tokens are those it
    was set for, after doc.retokenize() the row of the token that spanned the same
    characters, or None (by position while the length fits for arrays stored without
    bounds). Otherwise the first anchored array with a row for the token."""
    doc = token.doc
    value, bounds = direct(doc, name, bounds_name)
    if value is not NOT_DIRECT:
        if value is None:
            return None, None
        if bounds is None:
            return value, token.i if len(value) == len(doc) else None
        if bounds[-1, 0] != text_length(doc):
            return value, None
        return value, _row(bounds, token, 0, same_text=True)
    user_data = _user_data(doc)
    for _ in range(2):
        entries, entry, rows = resolve(doc, bounds_name)
        e = entry[token.i]
        if e < 0:
            # unchanged entries, and this token as it was resolved (a retokenize that kept the numbers
            # of tokens and characters may have given it a row since)
            if all(user_data.get(key(bounds_name, a)) is b for a, b in entries) and _as_resolved(token, bounds_name):
                return None, None
            _INDEX.pop(doc, None)  # an entry is gone or moved, or the tokens changed, since: resolve again
            continue
        anchor, bounds = entries[e]
        row = int(rows[token.i])
        if (
            user_data.get(key(bounds_name, anchor)) is bounds
            and _row(cast(np.ndarray, bounds), token, anchor, True) == row
        ):
            value = user_data.get(key(name, anchor))
            return (None, None) if value is None else (value, row)
        _INDEX.pop(doc, None)  # user_data or the tokens changed since: resolve again
    return None, None


def _as_resolved(token: Token, bounds_name: str) -> bool:
    """Whether ``token``'s start, length and text are those resolve() last read for its position."""
    cached = _INDEX.get(token.doc)
    found = None if cached is None else cached[1].get(bounds_name)
    if found is None:
        return False
    resolved = np.frombuffer(found[1], dtype=np.int64).reshape(len(token.doc), -1)
    return bool((resolved[token.i] == [token.idx, len(token), _signed(token.orth)][: resolved.shape[1]]).all())


def _matching_rows(bounds: np.ndarray, current: np.ndarray, shift: int) -> np.ndarray:
    """For each token of ``current`` (token_bounds without its last row), the row of
    ``bounds`` with its start (less ``shift``), length and text, else -1."""
    n, width = len(bounds) - 1, bounds.shape[1]
    if n <= 0 or len(current) == 0:
        return np.full(len(current), -1, dtype=np.int64)
    wanted = current[:, :width].copy()
    wanted[:, 0] -= shift
    j = np.minimum(np.searchsorted(bounds[:n, 0], wanted[:, 0]), n - 1)
    return np.where((bounds[j] == wanted).all(axis=1), j, -1)


def direct_rows(doc: Doc, value: Any, bounds: Optional[np.ndarray]) -> np.ndarray:
    """token_row of every token of ``doc`` in an array stored for this text (-1: none)."""
    if bounds is None:
        return np.arange(len(doc)) if len(value) == len(doc) else np.full(len(doc), -1, dtype=np.int64)
    current = token_bounds(doc, with_text=bounds.shape[1] > 2)
    if len(bounds) == len(current) and np.array_equal(bounds, current):
        return np.arange(len(doc))
    if len(bounds) < 2 or bounds[-1, 0] != current[-1, 0]:
        return np.full(len(doc), -1, dtype=np.int64)
    return _matching_rows(bounds, current[:-1], 0)


def direct_rows_between(doc: Doc, value: Any, bounds: Optional[np.ndarray], start: int, end: int) -> np.ndarray:
    """direct_rows of the tokens start:end only, in time of the span, not of the Doc (a span
    vector of a long Doc read every token's bounds)."""
    if bounds is None:
        return np.arange(start, end) if len(value) == len(doc) else np.full(end - start, -1, dtype=np.int64)
    if len(bounds) < 2 or bounds[-1, 0] != text_length(doc) or end <= start:
        return np.full(max(end - start, 0), -1, dtype=np.int64)
    span = doc[start:end]
    current = np.array([[t.idx, len(t), _signed(t.orth)] for t in span], dtype=np.int64)[:, : bounds.shape[1]]
    same_place = start + np.arange(end - start)
    n = len(bounds) - 1
    if end <= n and np.array_equal(bounds[start:end], current):  # the tokens the arrays were set for
        return same_place
    return _matching_rows(bounds, current, 0)


def gathered(doc: Doc, name: str, bounds_name: str, empty_row: Any) -> Tuple[Any, np.ndarray]:
    """(one row per token of ``doc`` read from the anchored arrays as resolve() says,
    rows: each token's index where it found one, else -1); tokens without a row get
    ``empty_row`` (the first anchored array's shape and type: arrays of another shape are
    left out). (None, all -1) without any anchored array."""
    user_data = _user_data(doc)
    entries, entry, rows = resolve(doc, bounds_name, token_bounds(doc)[:-1])
    found = np.full(len(doc), -1, dtype=np.int64)
    result: Any = None
    values = [user_data.get(key(name, anchor)) for anchor, _ in entries]
    for e, value in enumerate(values):
        if value is None:
            continue
        if result is None:
            result = _empty_like(value, len(doc), empty_row)
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":  # parts of float16 and float32: float32
                same = [
                    v.dtype
                    for v in values
                    if isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.shape[1:] == value.shape[1:]
                ]
                result = result.astype(np.result_type(*same))
        elif isinstance(value, np.ndarray) != isinstance(result, np.ndarray) or (
            isinstance(value, np.ndarray)
            and (
                value.shape[1:] != result.shape[1:]
                or (value.dtype != result.dtype and not value.dtype.kind == result.dtype.kind == "f")
            )
        ):
            continue
        take = np.flatnonzero(entry == e)
        if isinstance(result, np.ndarray):
            result[take] = value[rows[take]]
        else:
            for t in take:
                result[t] = value[rows[t]]
        found[take] = take
    return result, found


def _empty_like(value: Any, n: int, empty_row: Any) -> Any:
    if not isinstance(value, np.ndarray):
        return [empty_row] * n
    result = np.zeros((n, *value.shape[1:]), dtype=value.dtype)
    if empty_row is not None:
        result[:] = empty_row
    return result
