"""The shard function: documents in, partial Lexicon out.

Every engine (``local``, ``ray``) and the ``ctxvec_polysemy`` component's
``initialize`` run ``partial_lexicon`` on parts of a corpus and add the parts with
``Lexicon.merge``, which is exact, so the result does not depend on how the corpus was
split or in what order the parts finish.

With ``sample_size`` K > 0 the partial lexicon also carries an OccurrenceSample: per
type the K occurrences with the lowest content-hash priority (document text hash, token
position and word; one occurrence per passage of a document before a second one,
``occurrence_keys.passage_priorities``), with a context snippet and a context vector each
(the mean vector of the ``CONTEXT_WINDOW`` tokens either side,
``ops.context_windows.window_context_means``, kept in float16 from the start). Priorities are
computed for every occurrence with numpy; snippets (Python strings) only for the rows that
can still enter the sample: the K lowest per type of each buffered chunk.
"""

from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np
from spacy.attrs import IDX, LEMMA, LENGTH, LOWER, ORTH
from spacy.language import Language
from spacy.tokens import Doc

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_MASK,
    CONTEXT_SOURCE,
    POLYSEMY_FACTORY,
    check_same_tokens,
    context_segments,
    install_extensions,
    stored_array,
)
from ..component_names import context_name
from ..errors import CtxvecError, Errors
from ..lexicon.occurrence_keys import (
    SNIPPET_WINDOW,
    passage_priorities,
    ranks_in_passage,
    snippet_from_offsets,
    text_hash,
    word_hashes,
)
from ..lexicon.sample import SAMPLE_VECTOR_DTYPE, OccurrenceSample
from ..lexicon.statistics import CONTEXT_VECTORS_META, Lexicon, merge_all
from ..ops.context_windows import window_context_means
from ..ops.senses import CONTEXT_WINDOW
from ..ops.text import has_word_character
from .corpus import CorpusItem, corpus_suffix, has_visible

KEY_ATTRS = {"lower": LOWER, "text": ORTH, "lemma": LEMMA}
MAX_BUFFERED_OCCURRENCES = 50_000


def check_key_mode(nlp: Language, key: str, docs_given: bool = False, name: Optional[str] = None) -> None:
    """Raise if ``key`` is unknown, or is 'lemma' and no component sets lemmas (E217) or
    all that do come after the ctxvec_polysemy ``name`` (default: the first; E275), unless
    ``docs_given`` (a corpus of Docs, which may carry lemmas: a Doc without them is E229)."""
    if key not in KEY_ATTRS:
        raise CtxvecError(Errors.E216.format(key=key, choices=", ".join(KEY_ATTRS)))
    if key == "lemma" and not docs_given:
        names = nlp.pipe_names
        setters = lemma_setters(nlp)
        if not setters:
            problem = f"no component of the pipeline {names} assigns token.lemma"
            raise CtxvecError(Errors.E217.format(problem=problem))
        polysemy = [name] if name in names else polysemy_components(nlp)[:1]
        if polysemy and names.index(setters[0]) > names.index(polysemy[0]):
            raise CtxvecError(Errors.E275.format(setters=setters, name=polysemy[0], pipe_names=names))


def lemma_setters(nlp: Language) -> List[str]:
    """The enabled components that declare they set token.lemma, in pipeline order."""
    return [name for name in nlp.pipe_names if "token.lemma" in nlp.get_pipe_meta(name).assigns]


def holds_docbins(files: Iterable[Any]) -> bool:
    """Whether a corpus's files include a .spacy DocBin (Docs that may carry lemmas: check_key_mode)."""
    return any(corpus_suffix(file) == ".spacy" for file in files)


def vector_source(nlp: Language, key: str) -> Dict[str, Any]:
    """What the lexicon's vectors come from: key mode plus the ctxvec_context settings."""
    context_cfg = nlp.config["components"].get(context_name(nlp), {})  # the enabled one that made the vectors
    return {
        "key": key,
        "layers": dict(context_cfg.get("layers", {})),
        "pooling": dict(context_cfg.get("pooling", {})),
    }


def polysemy_components(nlp: Language) -> List[str]:
    return [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory == POLYSEMY_FACTORY]


@contextmanager
def enabled_before(nlp: Language, name: str) -> Iterator[None]:
    """The disabled components before ``name`` enabled while the block runs, disabled
    again after: spacy train initializes with its frozen components (a frozen transformer
    and ctxvec_context) disabled, and a lexicon built in initialize needs their output."""
    names = nlp.component_names
    before = names[: names.index(name)] if name in names else []
    enabled = [component for component in before if component in nlp.disabled]
    for component in enabled:
        nlp.enable_pipe(component)
    try:
        yield
    finally:
        for component in enabled:
            nlp.disable_pipe(component)


def not_counted(nlp: Language, stop_before: Optional[str] = None, *, key: str = "lemma") -> List[str]:
    """The components a lexicon is built without: ``stop_before`` (default: the first
    ctxvec_polysemy, which would only read the lexicon being made) and every one after
    it (a retokenizer or a task head after ctxvec_polysemy changes nothing counted) but,
    for the "lemma" ``key`` where no component before it sets lemmas (Docs of a .spacy
    corpus may carry theirs), those that set lemmas (it reads them)."""
    names = nlp.pipe_names
    polysemy = polysemy_components(nlp)
    stop = stop_before if stop_before in names else (polysemy[0] if polysemy else None)
    after = names[names.index(stop) :] if stop is not None else []
    sets_lemmas = lemma_setters(nlp)
    if key == "lemma" and stop is not None and not any(names.index(name) < names.index(stop) for name in sets_lemmas):
        after = [name for name in after if name in polysemy or name not in sets_lemmas]
    return sorted({*polysemy, *after})


def counted_mask(doc: Doc) -> np.ndarray:
    """The tokens a lexicon counts: those with a contextual vector that hold a character that
    shows. A zero-width joiner between emoji shares the emoji's [UNK] piece, and so its vector,
    but counted it would be a type no one can see or look up; so would a space token where the
    model's tokenizer gives spaces a piece of their own (SentencePiece offsets, W059)."""
    mask = np.array(doc._.get(CONTEXT_MASK), dtype=bool)
    for i in np.flatnonzero(mask).tolist():
        text = doc[i].text
        if text.isspace() if text.isascii() else not has_visible(text):
            mask[i] = False
    return mask


def doc_occurrences(doc: Doc, key_attr: int, pipe_names: Sequence[str] = ()) -> Tuple[np.ndarray, np.ndarray]:
    """(key ids, vectors) of the tokens of ``doc`` that a lexicon counts (``counted_mask``)."""
    ids, vectors, _ = counted_occurrences(doc, key_attr, pipe_names)
    return ids, vectors


def counted_occurrences(
    doc: Doc, key_attr: int, pipe_names: Sequence[str] = ()
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``doc_occurrences`` and the ``counted_mask`` they were taken with."""
    vectors = doc._.get(CONTEXT_ARRAY)
    if vectors is None or doc._.get(CONTEXT_MASK) is None:
        raise CtxvecError(Errors.E218.format(pipe_names=list(pipe_names), name=POLYSEMY_FACTORY))
    check_same_tokens(doc, "build-lexicon")
    mask = counted_mask(doc)
    ids = doc.to_array(key_attr)[mask] if len(doc) else np.zeros(0, dtype=np.uint64)
    if key_attr == LEMMA and (ids == 0).any():
        token = doc[int(np.flatnonzero(mask)[int(np.flatnonzero(ids == 0)[0])])].text
        raise CtxvecError(Errors.E229.format(token=token, pipe_names=list(pipe_names)))
    return ids, vectors[mask], mask


def snippet(doc: Doc, i: int, window: int = SNIPPET_WINDOW) -> str:
    """Up to ``window`` tokens either side of token ``i``, which is put in brackets."""
    offsets = doc.to_array([IDX, LENGTH])
    return snippet_from_offsets(doc.text, offsets[:, 0].tolist(), offsets[:, 1].tolist(), i, window)


def lowest_per_group(groups: np.ndarray, priorities: np.ndarray, k: Union[int, np.ndarray]) -> np.ndarray:
    """Mask of the rows whose priority is among the k lowest distinct priorities of their
    group (``k``: one number, or one per group id): every row that can be among the
    group's k lowest (priority, snippet), since rows tied on priority (repeated documents)
    are all kept and decided later."""
    if len(groups) == 0:
        return np.zeros(0, dtype=bool)
    order = np.lexsort((priorities, groups))
    sorted_groups, sorted_priorities = groups[order], priorities[order]
    distinct = np.r_[
        True, (sorted_groups[1:] != sorted_groups[:-1]) | (sorted_priorities[1:] != sorted_priorities[:-1])
    ]
    sorted_groups, sorted_priorities = sorted_groups[distinct], sorted_priorities[distinct]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sizes = np.diff(np.r_[starts, len(sorted_groups)])
    n_groups = int(groups.max()) + 1
    limits = np.broadcast_to(np.asarray(k, dtype=np.int64), (n_groups,))[sorted_groups[starts]]
    last = starts + np.minimum(sizes, limits) - 1  # the k-th lowest distinct priority (or the group's highest)
    threshold = np.zeros(n_groups, dtype=np.uint64)
    threshold[sorted_groups[starts]] = sorted_priorities[last]
    return priorities <= threshold[groups]


def distinct_snippet_candidates(
    groups: np.ndarray, priorities: np.ndarray, k: int, snippet_of: Callable[[int], str]
) -> Tuple[np.ndarray, List[str]]:
    """(rows, their snippets): every row that can be among its group's k lowest rows with
    distinct snippets (``sample_rows.lowest_rows``), ``snippet_of(row)`` called once per
    row made. A group whose lowest rows repeat one snippet (a line the corpus repeats) is
    widened, 4 times as many priorities at a time, until it holds k distinct snippets or
    all its rows: a row left out has a higher priority than every row taken."""
    made: Dict[int, str] = {}
    limits = np.full(int(groups.max()) + 1 if len(groups) else 0, k, dtype=np.int64)
    sizes = np.bincount(groups, minlength=len(limits))
    while True:
        rows = np.flatnonzero(lowest_per_group(groups, priorities, limits))
        distinct: Dict[int, set] = {}
        for row, group in zip(rows.tolist(), groups[rows].tolist()):
            if row not in made:
                made[row] = snippet_of(row)
            distinct.setdefault(group, set()).add(made[row])
        taken = np.bincount(groups[rows], minlength=len(limits))
        short = [g for g, found in distinct.items() if len(found) < k and taken[g] < sizes[g]]
        if not short:
            return rows, [made[row] for row in rows.tolist()]
        limits[short] *= 4


class _SampleBuffer:
    """What a chunk needs for its sample: per occurrence the document's text hash, its
    number and the token position; per document its text and token offsets (not the Doc).
    Priorities are ``passage_priorities``: one occurrence of a type per passage first."""

    def __init__(self) -> None:
        self.text_hashes: List[np.ndarray] = []
        self.doc_numbers: List[np.ndarray] = []
        self.positions: List[np.ndarray] = []
        self.docs: List[Tuple[str, np.ndarray]] = []

    def add(self, doc: Doc, text: str, positions: np.ndarray) -> None:
        """``text`` is ``doc.text`` (which spaCy rebuilds token by token: pass the input string)."""
        self.text_hashes.append(np.full(len(positions), text_hash(text), dtype=np.uint64))
        self.doc_numbers.append(np.full(len(positions), len(self.docs), dtype=np.int64))
        self.positions.append(positions)
        self.docs.append((text, doc.to_array([IDX, LENGTH])))

    def sample(
        self, keys: np.ndarray, key_ids: np.ndarray, vectors: np.ndarray, contexts: Optional[np.ndarray], k: int
    ) -> OccurrenceSample:
        """The chunk's sample; snippets are made only for its candidate rows."""
        counted = np.flatnonzero((vectors != 0).any(axis=1))  # zero rows are not counted by the Lexicon either
        all_numbers, all_positions = np.concatenate(self.doc_numbers)[counted], np.concatenate(self.positions)[counted]
        ranks = ranks_in_passage(all_numbers, all_positions, key_ids[counted])
        words = word_hashes(keys.tolist())[key_ids[counted]]
        priorities = passage_priorities(np.concatenate(self.text_hashes)[counted], words, all_positions, ranks)
        columns: Dict[int, Tuple[List[int], List[int]]] = {}

        def snippet_of(row: int) -> str:
            number = int(all_numbers[row])
            text, offsets = self.docs[number]
            if number not in columns:
                columns[number] = (offsets[:, 0].tolist(), offsets[:, 1].tolist())
            starts, lengths = columns[number]
            return snippet_from_offsets(text, starts, lengths, int(all_positions[row]))

        chosen, snippets = distinct_snippet_candidates(key_ids[counted], priorities, k, snippet_of)
        candidates, priorities = counted[chosen], priorities[chosen]
        return OccurrenceSample.from_occurrences(
            keys[key_ids[candidates]],
            vectors[candidates],
            priorities,
            snippets,
            k=k,
            contexts=None if contexts is None else contexts[candidates],
            by_passage=True,
            distinct_snippets=True,
        )

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]


_Item = TypeVar("_Item", str, Doc, CorpusItem)


def within_max_length(nlp: Language, item: _Item) -> _Item:
    """``item``; E270 for a text longer than ``nlp.max_length`` (spaCy's ValueError E088 otherwise)."""
    if isinstance(item, str) and len(item) > nlp.max_length:
        raise CtxvecError(Errors.E270.format(n=len(item), start=item[:40], max_length=nlp.max_length))
    return item


def partial_lexicon(
    nlp: Language,
    items: Iterable[CorpusItem],
    *,
    key: str = "lower",
    batch_size: int = 64,
    on_doc: Optional[Callable[[Doc], None]] = None,
    sample_size: int = 0,
    sample_contexts: bool = True,
    stop_before: Optional[str] = None,
) -> Lexicon:
    """Run ``nlp`` over texts or Docs and count every token that has a contextual vector.

    The components ``not_counted`` are disabled while building: the first
    ``ctxvec_polysemy`` (or ``stop_before``: a component building its lexicon in
    ``initialize``, whose later components are not initialized yet) and all after it.
    ``on_doc`` is called on each processed Doc (progress).
    ``sample_size`` K > 0: the lexicon also keeps an OccurrenceSample of up to K
    occurrences per type (see spacy_ctxvec.lexicon.sample), with each occurrence's
    context vector unless ``sample_contexts`` is False (then they are never computed).
    """
    check_key_mode(nlp, key, docs_given=True)  # the callers check texts; a Doc without lemmas is E229
    if batch_size < 1:
        raise CtxvecError(Errors.E228.format(setting="batch_size", requirement="a positive integer", value=batch_size))
    if sample_size < 0:
        raise CtxvecError(
            Errors.E228.format(
                setting="sample_size", requirement="0 (no sample) or a positive integer", value=sample_size
            )
        )
    install_extensions()
    key_attr, meta = KEY_ATTRS[key], vector_source(nlp, key)
    parts: List[Lexicon] = []
    buffered_ids: List[np.ndarray] = []
    buffered_vectors: List[np.ndarray] = []
    buffered_contexts: List[np.ndarray] = []
    sample_buffer = _SampleBuffer() if sample_size > 0 else None
    n_buffered = 0

    def flush() -> None:
        nonlocal n_buffered
        if buffered_ids:
            ids, vectors = np.concatenate(buffered_ids), np.concatenate(buffered_vectors)
            unique_ids, inverse = np.unique(ids, return_inverse=True)
            strings = np.array([nlp.vocab.strings[int(i)] for i in unique_ids], dtype=str)
            lexicon = Lexicon.from_occurrences(strings[inverse], vectors, meta=meta)
            if sample_buffer is not None:
                contexts = np.concatenate(buffered_contexts) if sample_contexts else None
                lexicon = lexicon.with_sample(
                    sample_buffer.sample(strings, inverse.ravel(), vectors, contexts, sample_size)
                )
                sample_buffer.clear()
            parts.append(lexicon)
        buffered_ids.clear()
        buffered_vectors.clear()
        buffered_contexts.clear()
        n_buffered = 0

    texts: Deque[Optional[str]] = deque()  # the input strings, in order (doc.text is slow to rebuild)

    def recorded(items: Iterable[CorpusItem]) -> Iterator[CorpusItem]:
        for item in items:
            texts.append(item if isinstance(item, str) else None)
            yield within_max_length(nlp, item)

    width, n_unread = None, 0
    for doc in nlp.pipe(recorded(items), batch_size=batch_size, disable=not_counted(nlp, stop_before, key=key)):
        text = texts.popleft()
        ids, vectors, mask = counted_occurrences(doc, key_attr, nlp.pipe_names)
        n_unread += unread_words(doc)
        if len(ids):
            width = vectors.shape[1]
            made_from = stored_array(doc, CONTEXT_SOURCE)
            if made_from is not None and CONTEXT_VECTORS_META not in meta:
                meta[CONTEXT_VECTORS_META] = made_from  # before the first part is made
            buffered_ids.append(ids)
            buffered_vectors.append(vectors)
            n_buffered += len(ids)
            if sample_buffer is not None:
                sample_buffer.add(doc, doc.text if text is None else text, np.flatnonzero(mask))
                if sample_contexts:
                    with np.errstate(over="ignore"):  # beyond float16: E260 when the sample is made
                        read = np.asarray(doc._.get(CONTEXT_MASK), dtype=bool)  # as ctxvec_polysemy reads them
                        contexts = window_context_means(
                            doc._.get(CONTEXT_ARRAY), read, CONTEXT_WINDOW, context_segments(doc)
                        )[mask]
                    buffered_contexts.append(contexts.astype(SAMPLE_VECTOR_DTYPE))
        if on_doc is not None:
            on_doc(doc)
        if n_buffered >= MAX_BUFFERED_OCCURRENCES:
            flush()
    flush()
    if not parts:
        lexicon = Lexicon.empty(
            context_width(nlp, stop_before) if width is None else width, meta=meta, sample_size=sample_size
        )
    else:
        lexicon = merge_all(parts)
    lexicon.n_skipped_zero += n_unread
    return lexicon


def words_without_vector(doc: Doc, mask: np.ndarray) -> List[int]:
    """Indices of ``doc``'s tokens without a vector (``mask`` False) that hold a letter or digit."""
    return [int(i) for i in np.flatnonzero(~np.asarray(mask, dtype=bool)) if has_word_character(doc[int(i)].text)]


def unread_words(doc: Doc) -> int:
    """How many tokens of ``doc`` hold a letter or digit but have no contextual vector (a word
    glued to a character the model cannot read, CTX-W070; one cut off by a window, CTX-W046)."""
    mask = doc._.get(CONTEXT_MASK)
    return 0 if mask is None else len(words_without_vector(doc, mask))


def context_width(nlp: Language, before: Optional[str] = None) -> int:
    """The width of the contextual vectors of the pipeline (of those component ``before`` reads):
    the ctxvec_context's stored width, or (before it is known) from one short probe text run
    through the components up to it but ctxvec_polysemy (none after it runs: they need not be
    initialized yet)."""
    context = context_name(nlp, before)
    if context in nlp.component_names:  # disabled too (frozen in spacy train's initialize)
        width = getattr(nlp.get_pipe(context), "width", None)
        if width:
            return int(width)
    names = nlp.pipe_names
    after = names[names.index(context) + 1 :] if context in names else not_counted(nlp)
    doc = nlp("width probe", disable=sorted({*after, *polysemy_components(nlp)}))
    vectors = doc._.get(CONTEXT_ARRAY)
    if vectors is None:
        raise CtxvecError(Errors.E218.format(pipe_names=nlp.pipe_names, name=POLYSEMY_FACTORY))
    return int(vectors.shape[1])
