"""The shard function: documents in, partial Lexicon out.

Every engine (``local``, ``ray``) and the ``ctxvec_polysemy`` component's
``initialize`` run ``partial_lexicon`` on parts of a corpus and add the parts with
``Lexicon.merge``, which is exact, so the result does not depend on how the corpus was
split or in what order the parts finish.
"""
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from spacy.attrs import LEMMA, LOWER, ORTH
from spacy.language import Language
from spacy.tokens import Doc

from ..attributes import CONTEXT_ARRAY, CONTEXT_MASK, install_extensions
from ..errors import CtxvecError, Errors
from ..types import CorpusItem
from .statistics import Lexicon, merge_all

KEY_ATTRS = {"lower": LOWER, "text": ORTH, "lemma": LEMMA}
POLYSEMY_FACTORY = "ctxvec_polysemy"
CONTEXT_COMPONENT = "ctxvec_context"
MAX_BUFFERED_OCCURRENCES = 50_000


def check_key_mode(nlp: Language, key: str) -> None:
    """Raise if ``key`` is unknown, or is 'lemma' and no component sets lemmas."""
    if key not in KEY_ATTRS:
        raise CtxvecError(Errors.E216.format(key=key, choices=", ".join(KEY_ATTRS)))
    if key == "lemma":
        setters = [name for name in nlp.pipe_names if "token.lemma" in nlp.get_pipe_meta(name).assigns]
        if not setters:
            problem = f"no component of the pipeline {nlp.pipe_names} assigns token.lemma"
            raise CtxvecError(Errors.E217.format(problem=problem))


def vector_source(nlp: Language, key: str) -> Dict[str, Any]:
    """What the lexicon's vectors come from: key mode plus the ctxvec_context settings."""
    context_cfg = nlp.config["components"].get(CONTEXT_COMPONENT, {})
    return {
        "key": key,
        "layers": dict(context_cfg.get("layers", {})),
        "pooling": dict(context_cfg.get("pooling", {})),
    }


def polysemy_components(nlp: Language) -> List[str]:
    return [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory == POLYSEMY_FACTORY]


def doc_occurrences(doc: Doc, key_attr: int, pipe_names: Sequence[str] = ()) -> Tuple[np.ndarray, np.ndarray]:
    """(key ids, vectors) of the tokens of ``doc`` that have a contextual vector."""
    vectors, mask = doc._.get(CONTEXT_ARRAY), doc._.get(CONTEXT_MASK)
    if vectors is None or mask is None:
        raise CtxvecError(Errors.E218.format(pipe_names=list(pipe_names), name=POLYSEMY_FACTORY))
    ids = doc.to_array(key_attr)[mask] if len(doc) else np.zeros(0, dtype=np.uint64)
    if key_attr == LEMMA and (ids == 0).any():
        token = doc[int(np.flatnonzero(mask)[int(np.flatnonzero(ids == 0)[0])])].text
        raise CtxvecError(Errors.E229.format(token=token, pipe_names=list(pipe_names)))
    return ids, vectors[mask]


def partial_lexicon(
    nlp: Language,
    items: Iterable[CorpusItem],
    *,
    key: str = "lower",
    batch_size: int = 64,
    on_doc: Optional[Callable[[Doc], None]] = None,
) -> Lexicon:
    """Run ``nlp`` over texts or Docs and count every token that has a contextual vector.

    ``ctxvec_polysemy`` components are disabled while building (they would only read
    the lexicon being made). ``on_doc`` is called on each processed Doc (progress).
    """
    check_key_mode(nlp, key)
    if batch_size < 1:
        raise CtxvecError(Errors.E228.format(setting="batch_size", requirement="a positive integer", value=batch_size))
    install_extensions()
    key_attr, meta = KEY_ATTRS[key], vector_source(nlp, key)
    parts: List[Lexicon] = []
    buffered_ids: List[np.ndarray] = []
    buffered_vectors: List[np.ndarray] = []
    n_buffered = 0

    def flush() -> None:
        nonlocal n_buffered
        if buffered_ids:
            ids = np.concatenate(buffered_ids)
            unique_ids, inverse = np.unique(ids, return_inverse=True)
            strings = np.array([nlp.vocab.strings[int(i)] for i in unique_ids], dtype=str)
            parts.append(Lexicon.from_occurrences(strings[inverse], np.concatenate(buffered_vectors), meta=meta))
        buffered_ids.clear()
        buffered_vectors.clear()
        n_buffered = 0

    width = None
    for doc in nlp.pipe(items, batch_size=batch_size, disable=polysemy_components(nlp)):
        ids, vectors = doc_occurrences(doc, key_attr, nlp.pipe_names)
        if len(ids):
            width = vectors.shape[1]
            buffered_ids.append(ids)
            buffered_vectors.append(vectors)
            n_buffered += len(ids)
        if on_doc is not None:
            on_doc(doc)
        if n_buffered >= MAX_BUFFERED_OCCURRENCES:
            flush()
    flush()
    if not parts:
        return Lexicon.empty(context_width(nlp) if width is None else width, meta=meta)
    return merge_all(parts)


def context_width(nlp: Language) -> int:
    """The width of the pipeline's contextual vectors: ctxvec_context's stored width,
    or (before it is known) from one short probe text."""
    if CONTEXT_COMPONENT in nlp.pipe_names:
        width = getattr(nlp.get_pipe(CONTEXT_COMPONENT), "width", None)
        if width:
            return int(width)
    doc = nlp("width probe", disable=polysemy_components(nlp))
    vectors = doc._.get(CONTEXT_ARRAY)
    if vectors is None:
        raise CtxvecError(Errors.E218.format(pipe_names=nlp.pipe_names, name=POLYSEMY_FACTORY))
    return int(vectors.shape[1])
