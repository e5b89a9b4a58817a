"""The evaluations end to end: read the data, collect vectors with a pipeline
(vectors.py) and score them (wic.py, similarity.py). Load pipelines with
spacy_ctxvec.pipelines.load_pipeline."""
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language

from ..errors import CtxvecError, Errors
from ..lexicon.shard import polysemy_components
from .correlation import (
    CorrelationReport,
    PolysemyReport,
    layer_similarity_reports,
    polysemy_report,
    rows_for,
    similarity_report,
    unique_words,
)
from .moments import Moments
from .readers import ContextPairs, WicData, WordPairs
from .token_vectors import static_token_vectors, target_vectors
from .wic import (
    ALL_FAMILIES,
    PairVectors,
    WicReport,
    cosine_families,
    evaluate_wic_features,
)


def wic_pair_vectors(nlp: Language, data, batch_size: Optional[int] = None) -> Tuple[PairVectors, Moments, Sequence[str], int]:
    """Per-view vectors of a WiC split, the corpus moments of its sentences, the view
    names, and how many targets had no wordpiece (zero vectors, cosine 0)."""
    first = target_vectors(nlp, data.words1, data.index1, batch_size)
    second = target_vectors(nlp, data.words2, data.index2, batch_size)
    lemmas = unique_words(data.targets)
    types = target_vectors(nlp, [[lemma] for lemma in lemmas], np.zeros(len(lemmas), dtype=np.int64), batch_size)
    pairs = PairVectors(
        target1=first.views, target2=second.views,
        context1=first.context_means, context2=second.context_means,
        type_vectors=rows_for(data.targets, lemmas, types.views),
    )
    n_missing = int((~first.has_vector).sum() + (~second.has_vector).sum())
    return pairs, first.moments.merge(second.moments), first.view_names, n_missing


def evaluate_wic(
    nlp: Language,
    train: WicData,
    evaluated: WicData,
    split: str = "dev",
    families: Sequence[str] = ALL_FAMILIES,
    batch_size: Optional[int] = None,
) -> Tuple[WicReport, int]:
    """WiC accuracy on ``evaluated`` (read_wic(DIR, split)), every decision fitted on
    ``train`` (read_wic(DIR, "train")). Returns the report and the number of targets
    without a wordpiece (zero vectors)."""
    train_pairs, moments, view_names, missing_train = wic_pair_vectors(nlp, train, batch_size)
    eval_pairs, _, _, missing_eval = wic_pair_vectors(nlp, evaluated, batch_size)
    report = evaluate_wic_features(
        cosine_families(train_pairs, moments), train.labels, train.targets,
        cosine_families(eval_pairs, moments), evaluated.labels,
        view_names=view_names, split=split, family_names=families,
    )
    return report, missing_train + missing_eval


def evaluate_word_sim(nlp: Language, pairs: WordPairs, name: str = "word-sim") -> CorrelationReport:
    """Spearman of token._.static_vec cosines with human scores (read_word_pairs); a
    pair is covered when both words get a static vector."""
    vocabulary = unique_words(pairs.words1, pairs.words2)
    vectors, found = static_token_vectors(nlp, vocabulary)
    covered = rows_for(pairs.words1, vocabulary, found) & rows_for(pairs.words2, vocabulary, found)
    return similarity_report(name, rows_for(pairs.words1, vocabulary, vectors),
                             rows_for(pairs.words2, vocabulary, vectors), covered, pairs.scores)


def evaluate_scws(nlp: Language, pairs: ContextPairs, name: str = "scws", batch_size: Optional[int] = None) -> CorrelationReport:
    """Spearman of the cosine of the two targets' contextual vectors (token._.context_vec,
    the pipeline's own setting) with the average rating (read_scws); per layer in
    ``details``, and on the subset whose two words are the same."""
    first = target_vectors(nlp, pairs.words1, pairs.index1, batch_size)
    second = target_vectors(nlp, pairs.words2, pairs.index2, batch_size)
    if first.pipeline is None:
        raise CtxvecError(Errors.E307.format(
            pipe_names=nlp.pipe_names, component="ctxvec_context", attribute="token._.context_vec",
            hint="Add it after the transformer: nlp.add_pipe('ctxvec_context')."))
    covered = first.has_vector & second.has_vector
    report = similarity_report(name, first.pipeline, second.pipeline, covered, pairs.scores)
    report.details = layer_similarity_reports(report.name, first.views, second.views, first.view_names, covered, pairs.scores)
    same_word = np.array([a[i].lower() == b[j].lower() for a, i, b, j in
                          zip(pairs.words1, pairs.index1, pairs.words2, pairs.index2)], dtype=bool)
    report.details["same_word_pairs"] = float(same_word.sum())
    report.details["same_word_spearman"] = similarity_report(
        report.name, first.pipeline, second.pipeline, covered & same_word, pairs.scores).spearman
    return report


def polysemy_component(nlp: Language):
    """The pipeline's ctxvec_polysemy component (found by its factory)."""
    names = polysemy_components(nlp)
    if names:
        return nlp.get_pipe(names[0])
    raise CtxvecError(Errors.E307.format(
        pipe_names=nlp.pipe_names, component="ctxvec_polysemy", attribute="polysemy_score",
        hint="Build a lexicon (spacy-ctxvec build-lexicon) and add the ctxvec_polysemy component with it."))


def evaluate_polysemy(nlp: Language, sense_counts: Mapping[str, int], min_count: Optional[int] = None) -> PolysemyReport:
    """Spearman of the pipeline lexicon's polysemy scores with log WordNet sense counts
    (read_sense_counts), raw and with log corpus frequency partialled out."""
    component = polysemy_component(nlp)
    lexicon = component.lexicon
    if lexicon is None or len(lexicon) == 0:
        raise CtxvecError(Errors.E307.format(
            pipe_names=nlp.pipe_names, component="ctxvec_polysemy (with a lexicon)", attribute="polysemy_score",
            hint="Its lexicon is empty: initialise the component with a lexicon built from a corpus."))
    scores, valid = lexicon.polysemy_scores(min_count or component.min_count)
    return polysemy_report(lexicon.keys, scores, valid, lexicon.counts, sense_counts)
