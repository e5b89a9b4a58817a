"""Occurrences of words in texts, and per-layer lexicons of them: the data behind
`plot word` and `plot layers`."""

import warnings
from collections import deque
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, Deque, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..attributes import CONTEXT_SOURCE, SENSE_ARRAY, STATIC_ARRAY
from ..building.bad_lines import skipped_line_warnings
from ..building.corpus import DEFAULT_ENCODING, CorpusReport, corpus_files, corpus_suffix, iter_corpus
from ..building.shard import snippet, within_max_length  # snippet: that of sampled occurrences too
from ..errors import CtxvecError, Errors
from ..lexicon.occurrence_keys import SNIPPET_WINDOW  # noqa: F401  (re-exported)
from ..lexicon.polysemy_probe import sense_counts_for  # noqa: F401  (re-exported)
from ..lexicon.statistics import Lexicon, merge
from ..paths import does_not_exist, text_lines


def check_text_source(sentences: Optional[Path], corpus: Optional[Path]) -> None:
    """E403 unless exactly one of --sentences and --corpus is given; E416 / E404 for
    --sentences that is a directory / no file (before any output is checked)."""
    if (sentences is None) == (corpus is None):
        raise CtxvecError(Errors.E403)
    sentences = None if sentences is None else Path(sentences)  # a str from Python too
    if sentences is not None and sentences.is_dir():
        raise CtxvecError(Errors.E416.format(path=sentences))
    if sentences is not None and not sentences.is_file():
        if sentences.exists():  # a device or pipe: no file to read lines from
            problem, advice = (
                "is not a regular file (a device or pipe)",
                " (write it to a file first, e.g. grep ... > sentences.txt)",
            )
        else:
            problem, advice = does_not_exist(sentences), ""
        raise CtxvecError(Errors.E404.format(path=sentences, problem=problem, advice=advice))


def read_texts(
    sentences: Optional[Path],
    corpus: Optional[Path],
    vocab: Optional[Vocab] = None,
    *,
    encoding: str = DEFAULT_ENCODING,
    on_error: str = "raise",
) -> Tuple[Path, Iterable]:
    """The input file and its texts: --sentences (one per line; a .jsonl or .spacy file is read
    as a corpus) or --corpus (any
    format of spacy_ctxvec.building.corpus; .spacy files need the pipeline's ``vocab``;
    .txt/.jsonl decoded with ``encoding``, bad lines raised or, with ``on_error="skip"``,
    skipped and named in warnings W004/W005 once reading stops)."""
    check_text_source(sentences, corpus)
    if sentences is not None and corpus_suffix(sentences) in (".jsonl", ".spacy"):
        sentences, corpus = None, sentences  # its lines are JSON or its bytes Docs: read as --corpus reads it
    if sentences is not None:
        options = [
            name
            for name, given in (("--encoding", encoding != DEFAULT_ENCODING), ("--on-error", on_error != "raise"))
            if given
        ]
        if options:
            is_txt = Path(sentences).suffix.lower() == ".txt"  # --corpus reads a .txt file one text per line
            corpus_path = sentences if is_txt else f"{sentences}.txt"
            rename = "" if is_txt else f" (copied or renamed from {sentences}: --corpus reads files by their ending)"
            raise CtxvecError(
                Errors.E417.format(
                    options=" and ".join(options), path=sentences, corpus_path=corpus_path, rename=rename
                )
            )
        texts = [line.strip() for _, line in text_lines(sentences) if line.strip()]
        if not texts:
            raise CtxvecError(Errors.E404.format(path=sentences, problem="holds no sentences", advice=""))
        return sentences, texts
    if corpus is None:  # ruled out by check_text_source; narrows the type
        raise CtxvecError(Errors.E403)
    files = corpus_files(corpus, encoding=encoding, on_error=on_error)  # a missing or unsupported corpus: now
    return corpus, _reported(corpus, vocab, files, encoding, on_error)


def _reported(corpus: Path, vocab: Optional[Vocab], files: List[Path], encoding: str, on_error: str) -> Iterator[Any]:
    """iter_corpus, then a warning for each skipped line, also when the reader stops early."""
    report = CorpusReport()
    try:
        yield from iter_corpus(corpus, vocab, files=files, encoding=encoding, on_error=on_error, report=report)
    finally:
        for warning in skipped_line_warnings(report.skipped, encoding):
            warnings.warn(warning, stacklevel=2)


def _text_of(item: Union[str, Doc]) -> str:
    return item.text if isinstance(item, Doc) else item


@dataclass
class Occurrences:
    """Every occurrence of one word: its contextual vector, static vector (None unless
    every occurrence has one) and a context snippet with the word in brackets. ``senses``: each occurrence's
    token._.sense (-1 where it has none), None when the pipeline has no sense inventory;
    ``sense_labels``: each sense's token._.sense_label, where any occurrence gave one."""

    vectors: np.ndarray
    static_vectors: Optional[np.ndarray]
    snippets: List[str]
    n_texts: int
    senses: Optional[np.ndarray] = None
    sense_labels: Dict[int, str] = field(default_factory=dict)
    n_static: int = 0  # occurrences with a static vector (static_vectors is None unless all have one)
    context_source: Optional[str] = None  # doc._.ctxvec_context_source: how the vectors were made
    limit_reached: bool = False  # max_occurrences were kept and the texts hold more occurrences of the word
    model: Optional[str] = None  # the transformer's model name or folder, where the config names one
    n_without_vector: int = 0  # occurrences read that had no contextual vector (a word glued to an emoji)


def collect_occurrences(
    nlp: Language,
    texts: Iterable[Union[str, Doc]],
    word: str,
    *,
    case_sensitive: bool = False,
    max_occurrences: int = 40,
    batch_size: int = 32,
) -> Occurrences:
    """Run the pipeline on the texts that contain ``word`` and keep each token equal to
    it (case-insensitive by default) that has a contextual vector, up to
    ``max_occurrences``, with its token._.sense where the pipeline has senses. Where that many
    are kept, the rest of the texts is read without the model up to a further occurrence
    (``limit_reached``). ``word`` is one token (E414, E415), checked before any text is read."""
    from .comparison import check_word
    from .plot_data import check_one_token  # (imported here: plot_data imports this module)

    word = check_word(word)
    check_one_token(nlp, word)
    needle = word if case_sensitive else word.lower()

    def contains(text: str) -> bool:
        return needle in (text if case_sensitive else text.lower())

    def holds_the_word(item: Any) -> bool:
        doc = item if isinstance(item, Doc) else nlp.make_doc(within_max_length(nlp, item))
        return any((token.text if case_sensitive else token.lower_) == needle for token in doc)

    source = iter(texts)
    read_ahead: Deque = deque()  # texts holding the word's letters, handed to nlp.pipe and not yet back
    n_texts = 0

    def candidates() -> Iterator:
        nonlocal n_texts
        for item in source:
            n_texts += 1
            if contains(_text_of(item)):  # only a text holding the word must fit nlp.max_length
                within_max_length(nlp, item)
                read_ahead.append(item)
                yield item

    vectors: List[np.ndarray] = []
    statics: List[Optional[np.ndarray]] = []
    snippets: List[str] = []
    senses: List[int] = []
    sense_labels: Dict[int, str] = {}
    has_senses, context_source, limit_reached, n_without_vector = False, None, False, 0
    for doc in nlp.pipe(candidates(), batch_size=batch_size):
        read_ahead.popleft()
        has_senses = has_senses or doc._.get(SENSE_ARRAY) is not None
        context_source = context_source or doc._.get(CONTEXT_SOURCE)
        for token in doc:
            form = token.text if case_sensitive else token.lower_
            if form != needle:
                continue
            if not token._.has_context_vec:
                n_without_vector += 1
                continue
            vectors.append(np.asarray(token._.context_vec, dtype=np.float64))
            has_static = doc._.get(STATIC_ARRAY) is not None and token._.has_static_vec
            statics.append(np.asarray(token._.static_vec, dtype=np.float64) if has_static else None)
            snippets.append(snippet(doc, token.i))
            sense = token._.sense if doc._.get(SENSE_ARRAY) is not None else None
            senses.append(-1 if sense is None else int(sense))
            if sense is not None and token._.sense_label:
                sense_labels.setdefault(int(sense), token._.sense_label)
        if len(vectors) >= max_occurrences:
            # More: in this text, or in a later one, found by the tokenizer alone (no model runs on it).
            later = (item for item in chain(read_ahead, source) if contains(_text_of(item)))
            limit_reached = len(vectors) > max_occurrences or any(holds_the_word(item) for item in later)
            break
    vectors, statics, snippets = vectors[:max_occurrences], statics[:max_occurrences], snippets[:max_occurrences]
    present_statics = [s for s in statics if s is not None]
    has_static = len(statics) > 0 and len(present_statics) == len(statics)
    return Occurrences(
        vectors=np.vstack(vectors) if vectors else np.zeros((0, 0)),
        static_vectors=np.vstack(present_statics) if has_static else None,
        snippets=snippets,
        n_texts=n_texts,
        senses=np.array(senses[:max_occurrences], dtype=np.int64) if has_senses else None,
        sense_labels=sense_labels,
        n_static=len(present_statics),
        context_source=context_source,
        limit_reached=limit_reached,
        n_without_vector=n_without_vector,
    )


def layer_lexicons(
    nlp: Language, texts: Iterable, *, max_texts: int, chunk_tokens: int = 8192
) -> Tuple[Dict[int, Lexicon], int]:
    """One Lexicon (lower-cased keys) per hidden layer, from the same tokens, and the
    number of texts read."""
    from ..evaluation.token_vectors import annotated_batches

    word_lists: List[List[str]] = []
    for item in texts:
        if len(word_lists) >= max_texts:
            break
        words = [
            token.text for token in (item if isinstance(item, Doc) else nlp.make_doc(within_max_length(nlp, item)))
        ]
        if words:
            word_lists.append(words)
    merged: Dict[int, Lexicon] = {}
    keys: List[str] = []
    rows: List[np.ndarray] = []

    def flush() -> None:
        if not rows:
            return
        stacked = np.concatenate(rows).transpose(1, 0, 2)  # (n_layers, n_occ, width)
        for layer, lexicon in lexicons_by_layer(keys, stacked).items():
            merged[layer] = lexicon if layer not in merged else merge(merged[layer], lexicon)
        keys.clear()
        rows.clear()

    for batch in annotated_batches(nlp, word_lists):
        for _, doc, layers in batch:
            has_vector = np.asarray(doc._.trf_data.align.lengths) > 0
            keys.extend(token.lower_ for token, keep in zip(doc, has_vector) if keep)
            rows.append(layers[has_vector])
        if len(keys) >= chunk_tokens:
            flush()
    flush()
    return merged, len(word_lists)


class LayerCurves(NamedTuple):
    """Per layer: mean self-similarity over types with n >= min_count, the anisotropy
    baseline, their anisotropy-adjusted difference and the number of types averaged."""

    layers: List[int]
    mean_self_similarity: np.ndarray
    baseline: np.ndarray
    adjusted_self_similarity: np.ndarray
    n_types: np.ndarray
    pooling: str = ""  # the pipeline's pooling function, by name (components.choices.pooling_name)
    model: Optional[str] = None  # the transformer's model name or folder, where the config names one


def layer_curves(lexicons_by_layer: Dict[int, Lexicon], min_count: int = 5) -> LayerCurves:
    """Ethayarajh-style curves from one lexicon per layer (built from the same tokens)."""
    layers = sorted(lexicons_by_layer)
    means, baselines, n_types = [], [], []
    for layer in layers:
        lexicon = lexicons_by_layer[layer]
        self_sim = lexicon.self_similarity()
        chosen = lexicon.counts >= max(min_count, 2)
        n_types.append(int(chosen.sum()))
        means.append(float(self_sim.data[chosen].mean()) if chosen.any() else 0.0)
        baselines.append(lexicon.anisotropy_baseline())
    means_array, baselines_array = np.array(means), np.array(baselines)
    return LayerCurves(layers, means_array, baselines_array, means_array - baselines_array, np.array(n_types))


def lexicons_by_layer(
    keys: Sequence[str], layer_vectors: np.ndarray, layers: Optional[Sequence[int]] = None
) -> Dict[int, Lexicon]:
    """One lexicon per layer from ``layer_vectors`` (n_layers, n_occ, width)."""
    layer_vectors = np.asarray(layer_vectors)
    layers = list(range(layer_vectors.shape[0])) if layers is None else list(layers)
    return {layer: Lexicon.from_occurrences(keys, layer_vectors[i]) for i, layer in enumerate(layers)}
