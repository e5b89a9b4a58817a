"""What the `plot` commands draw, computed from their inputs: a word's occurrences,
per-layer self-similarity curves, and polysemy scores beside sense counts (with the
Spearman). Inputs are read and checked before the model loads."""

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import numpy as np
from spacy.language import Language

from ..building.corpus import DEFAULT_ENCODING
from ..components.choices import pooling_name
from ..components.transformer import types_read_as_unknown
from ..errors import CtxvecError, Errors, Warnings
from ..evaluation.metrics import spearman
from ..evaluation.provenance import model_name
from ..evaluation.readers import read_sense_counts
from ..evaluation.token_vectors import context_component, require_context_vectors
from ..lexicon.polysemy_probe import (
    FITTED_HALF,
    PROBE,
    in_fitted_half,
    lower_case_halves,
    small_lexicon_warning,
    type_polysemy_scores,
)
from ..ops.pooling import pool_mean
from ..ops.text import no_letter_note
from ..pipelines import load_pipeline
from ..saved_pipeline import (
    english_probe_note,
    load_lexicon,
    load_pipeline_inputs,
    load_probe,
    polysemy_setting,
    scoring_min_count,
)
from ..types import PathLike
from .comparison import WORD_ROLES, check_word, unspaced_word_hint
from .occurrences import (
    LayerCurves,
    Occurrences,
    collect_occurrences,
    layer_curves,
    layer_lexicons,
    read_texts,
    sense_counts_for,
)


def check_at_least_one(option: str, value: int) -> None:
    if value < 1:
        raise CtxvecError(Errors.E228.format(setting=option, requirement="at least 1", value=value))


PLOT_PURPOSE = WORD_ROLES["plot word"][1]


def check_one_token(nlp: Language, word: str) -> None:
    """E415 when the pipeline's tokenizer splits ``word`` ("well-known", "don't"): no
    single token of a text could match it."""
    tokens = [token.text for token in nlp.make_doc(word)]
    if len(tokens) > 1:
        units, example = "tokens to the pipeline's tokenizer", max(tokens, key=len)
        raise CtxvecError(
            Errors.E415.format(
                word=word, n=len(tokens), units=units, tokens=", ".join(tokens), purpose=PLOT_PURPOSE, example=example
            )
        )


def unread_occurrences(n: int) -> str:
    """E402's note on the occurrences found without a contextual vector ("" for none)."""
    if n == 0:
        return ""
    found = "it occurs once" if n == 1 else f"it occurs {n} times"
    return (
        f"; {found} without one: glued to a character the model cannot read, such as an "
        "emoji ([CTX-W070]; put a space between them), or cut off by a window ([CTX-W046])"
    )


def check_clusters(clusters: int, max_occurrences: int) -> None:
    """E412 for more --clusters than --max-occurrences lets the word have (the number of
    occurrences found is checked once they are read)."""
    if clusters > max_occurrences >= 1:
        raise CtxvecError(Errors.E412.format(n=f"at most --max-occurrences {max_occurrences}", k=clusters))


def word_occurrences(
    word: str,
    sentences: Optional[Path],
    corpus: Optional[Path],
    pipeline: Optional[PathLike],
    *,
    case_sensitive: bool = False,
    max_occurrences: int = 40,
    encoding: str = DEFAULT_ENCODING,
    on_error: str = "raise",
) -> Occurrences:
    """Contextual vectors of up to ``max_occurrences`` occurrences of ``word`` in the
    sentences or corpus (E402 if there is none; ``encoding`` and ``on_error`` as in
    read_texts). ``word`` is one token (E414, E415)."""
    word = check_word(word)
    check_at_least_one("--max-occurrences (-n)", max_occurrences)
    source, texts = read_texts(sentences, corpus, encoding=encoding, on_error=on_error)  # bad input: before the model
    nlp = load_pipeline(pipeline)
    require_context_vectors(nlp)
    check_one_token(nlp, word)
    if not isinstance(texts, list):  # a corpus is read lazily, .spacy files with the pipeline's vocab
        source, texts = read_texts(sentences, corpus, nlp.vocab, encoding=encoding, on_error=on_error)
    occurrences = collect_occurrences(nlp, texts, word, case_sensitive=case_sensitive, max_occurrences=max_occurrences)
    if len(occurrences.vectors) == 0:
        matching = "case-sensitively" if case_sensitive else "ignoring case"
        case_hint = ", drop --case-sensitive" if case_sensitive else ""
        script_hint = unspaced_word_hint(word, nlp.lang or "")
        raise CtxvecError(
            Errors.E402.format(
                word=word,
                source=source,
                texts_read=f"{occurrences.n_texts} text{'' if occurrences.n_texts == 1 else 's'}",
                matching=matching,
                case_hint=case_hint,
                script_hint=script_hint,
                unread=unread_occurrences(occurrences.n_without_vector),
            )
        )
    unread, unk = types_read_as_unknown(nlp, [word])
    if unread:
        warnings.warn(Warnings.W056.format(word=word, unk=unk), stacklevel=2)
    occurrences.model = model_name(nlp)
    return occurrences


# `plot layers`' defaults: words seen at least this often, at most this many texts read.
LAYERS_MIN_COUNT = 5
LAYERS_MAX_TEXTS = 2000


def layer_self_similarity(
    pipeline: PathLike,
    corpus: PathLike,
    *,
    min_count: int = LAYERS_MIN_COUNT,
    max_texts: int = LAYERS_MAX_TEXTS,
    encoding: str = DEFAULT_ENCODING,
    on_error: str = "raise",
) -> LayerCurves:
    """Mean self-similarity and the anisotropy baseline per hidden layer (E208 for a
    ``min_count`` below 2, E407 for a pipeline with one layer, E408 when no type is seen
    ``min_count`` times)."""
    if min_count < 2:
        raise CtxvecError(Errors.E208.format(min_count=min_count))
    check_at_least_one("--max-texts (--max-docs)", max_texts)
    corpus = Path(corpus)
    read_texts(None, corpus, encoding=encoding, on_error=on_error)
    nlp = load_pipeline(pipeline)
    _, texts = read_texts(None, corpus, nlp.vocab, encoding=encoding, on_error=on_error)
    lexicons, n_texts = layer_lexicons(nlp, texts, max_texts=max_texts)
    if len(lexicons) < 2:
        raise CtxvecError(Errors.E407.format(name=pipeline))
    curves = layer_curves(lexicons, min_count=min_count)
    if curves.n_types.max(initial=0) == 0:
        raise CtxvecError(Errors.E408.format(min_count=min_count, n_docs=n_texts, corpus=corpus))
    if not all(lexicon.has_baseline() for lexicon in lexicons.values()):
        warnings.warn(Warnings.W075.format(corpus=corpus, n_docs=n_texts), stacklevel=2)
    context = context_component(nlp)  # the pooling annotated_batches reads the layers with
    return curves._replace(
        pooling=pooling_name(context[1].pooling if context is not None else pool_mean), model=model_name(nlp)
    )


@dataclass
class PolysemyScores:
    """The scored words of a lexicon, their sense counts (0: unknown) from the table
    ``counts_name`` and the Spearman of score with log sense count over the words with a
    count (None: fewer than 2). ``n_in_fitted_half``: for a probe fitted only on the words
    of the md5-even half (FITTED_HALF), how many of the words with a count are of that
    half (None for any other score); the others are held out from the probe whatever
    the table."""

    words: List[str]
    scores: np.ndarray
    used: str  # "probe" or "self_similarity"
    counts: Optional[np.ndarray] = None
    correlation: Optional[float] = None
    counts_name: Optional[str] = None
    n_in_fitted_half: Optional[int] = None
    warning: Optional[str] = None  # W054: probe scores of a small lexicon run high
    language_warning: Optional[str] = None  # W058: a probe fitted on English scores words of another language

    @property
    def n_known(self) -> int:
        return 0 if self.counts is None else int((self.counts > 0).sum())

    @property
    def score_label(self) -> str:
        """What the scores are, for a chart's axis; for a small lexicon (W054) the probe's
        scores rank words only."""
        if self.used == PROBE and self.warning:
            return "polysemy score (ranks words; a small lexicon's are not numbers of senses)"
        if self.used == PROBE:
            return "polysemy score (estimated number of dictionary senses)"
        return "polysemy score: (1 - self-similarity) / (1 - baseline)"


def polysemy_scores(
    source: PathLike,
    sense_counts: Optional[PathLike] = None,
    *,
    min_count: Optional[int] = None,
    words_only: bool = True,
) -> PolysemyScores:
    """polysemy_score of every type of ``source`` (a lexicon or pipeline) seen at least
    ``min_count`` times (E410 if none; None: the pipeline's min_count, 5 for a lexicon, as
    `plot polysemy`), as its pipeline scores them. ``sense_counts``: a table of sense counts
    (read_sense_counts) to correlate with. ``words_only``: only types holding a letter, as
    sense induction's default (punctuation and numbers otherwise fill the rankings: their
    vectors vary with syntax, not meaning)."""
    min_count = scoring_min_count(source, min_count)
    sense_counts = Path(sense_counts) if sense_counts is not None else None
    counts_by_word = read_sense_counts(sense_counts) if sense_counts is not None else None
    lexicon = load_lexicon(source)
    probe = load_probe(source)
    score = polysemy_setting(source, "score", "auto")  # as its pipeline scores them
    inputs = load_pipeline_inputs(source, lexicon)
    scores, valid, used = type_polysemy_scores(lexicon, probe, min_count, score, inputs, words_only)
    if not valid.any():
        no_letter = no_letter_note(lexicon.keys_seen(min_count), words_only)
        raise CtxvecError(Errors.E410.format(min_count=min_count, path=source, no_letter=no_letter))
    words = [word for word, keep in zip(lexicon.keys, valid) if keep]
    result = PolysemyScores(words, scores[valid], used, warning=small_lexicon_warning(lexicon, used))
    result.language_warning = english_probe_note(source, probe, used)
    if counts_by_word is not None and sense_counts is not None:
        result.counts, result.counts_name = sense_counts_for(words, counts_by_word), sense_counts.name
        known = result.counts > 0
        result.correlation = spearman(np.log(result.counts[known]), result.scores[known]) if known.sum() >= 2 else None
        if used == "probe" and probe is not None and probe.meta.get("fitted_words") == FITTED_HALF:
            lower = lower_case_halves(probe.meta)
            result.n_in_fitted_half = int(in_fitted_half([w for w, k in zip(words, known) if k], lower=lower).sum())
    return result
