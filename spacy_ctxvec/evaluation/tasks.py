"""The evaluations end to end: read the data, collect vectors with a pipeline
(vectors.py) and score them (wic.py, similarity.py). Load pipelines with
spacy_ctxvec.pipelines.load_pipeline."""

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, cast

import numpy as np
from spacy.language import Language

from ..attributes import CONTEXT_ARRAY, CONTEXT_MASK, check_same_tokens, context_segments, install_extensions
from ..building.shard import polysemy_components
from ..errors import CtxvecError, Errors, warn_at_user_line
from ..lexicon.polysemy_probe import (
    FITTED_HALF,
    PROBE,
    english_probe_warning,
    in_fitted_half,
    lower_case_halves,
    type_polysemy_scores,
)
from ..lexicon.sense_descriptions import describe_split_thresholds
from ..lexicon.sense_induction import induce_type_senses, probe_split_decisions
from ..lexicon.sense_inventory import SenseInventory
from ..lexicon.statistics import Lexicon
from ..ops.context_windows import window_context_means
from ..ops.sense_evidence import grouped_anisotropy_baseline, self_similarity_score
from ..ops.senses import (
    CONTEXT_WEIGHT,
    CONTEXT_WINDOW,
    N_REMOVED_DIRECTIONS,
    SPLIT_THRESHOLDS,
    SenseInductionSettings,
    SenseSpace,
    fit_sense_space,
    sense_features,
    to_sense_space,
)
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
from .sense_scores import SenseReport, baseline_labels, clustering_scores
from .sense_sentences import SenseSentences
from .token_vectors import (
    TargetVectors,
    doc_from_words,
    missing_component,
    missing_context_vectors,
    static_token_vectors,
    target_vectors,
)

if TYPE_CHECKING:  # the component module imports spaCy's pipeline machinery
    from ..components.polysemy import Polysemy
from .wic import (
    ALL_FAMILIES,
    PairVectors,
    WicReport,
    cosine_families,
    evaluate_wic_features,
)

# token._.static_vec of each SCWS pair's first and second target, and whether both have one.
StaticTargets = Tuple[np.ndarray, np.ndarray, np.ndarray]


def wic_pair_vectors(
    nlp: Language, data: WicData, batch_size: Optional[int] = None
) -> Tuple[PairVectors, Moments, Sequence[str], int]:
    """Per-view vectors of a WiC split, the corpus moments of its sentences, the view
    names, and how many targets had no wordpiece (zero vectors, cosine 0)."""
    first = target_vectors(nlp, data.words1, data.index1, batch_size)
    second = target_vectors(nlp, data.words2, data.index2, batch_size)
    lemmas = unique_words(data.targets)
    types = target_vectors(nlp, [[lemma] for lemma in lemmas], np.zeros(len(lemmas), dtype=np.int64), batch_size)
    pairs = PairVectors(
        target1=first.views,
        target2=second.views,
        context1=first.context_means,
        context2=second.context_means,
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
        cosine_families(train_pairs, moments),
        train.labels,
        train.targets,
        cosine_families(eval_pairs, moments),
        evaluated.labels,
        view_names=view_names,
        split=split,
        family_names=families,
    )
    return report, missing_train + missing_eval


def evaluate_word_sim(nlp: Language, pairs: WordPairs, name: str = "word-sim") -> CorrelationReport:
    """Spearman of token._.static_vec cosines with human scores (read_word_pairs); a
    pair is covered when both words get a static vector."""
    vocabulary = unique_words(pairs.words1, pairs.words2)
    vectors, found = static_token_vectors(nlp, vocabulary)
    covered = rows_for(pairs.words1, vocabulary, found) & rows_for(pairs.words2, vocabulary, found)
    return similarity_report(
        name,
        rows_for(pairs.words1, vocabulary, vectors),
        rows_for(pairs.words2, vocabulary, vectors),
        covered,
        pairs.scores,
    )


def evaluate_scws(
    nlp: Language, pairs: ContextPairs, name: str = "scws", batch_size: Optional[int] = None
) -> CorrelationReport:
    """Spearman of the cosine of the two targets' contextual vectors (token._.context_vec,
    the pipeline's own setting) with the average rating (read_scws); per layer in
    ``details``, and on the subset whose two words are the same."""
    first = target_vectors(nlp, pairs.words1, pairs.index1, batch_size)
    second = target_vectors(nlp, pairs.words2, pairs.index2, batch_size)
    if first.pipeline is None or second.pipeline is None:
        raise missing_context_vectors(nlp)
    covered = first.has_vector & second.has_vector
    report = similarity_report(name, first.pipeline, second.pipeline, covered, pairs.scores)
    report.details = layer_similarity_reports(
        report.name, first.views, second.views, first.view_names, covered, pairs.scores
    )
    same_word = np.array(
        [a[i].lower() == b[j].lower() for a, i, b, j in zip(pairs.words1, pairs.index1, pairs.words2, pairs.index2)],
        dtype=bool,
    )
    report.details["same_word_pairs"] = int(same_word.sum())  # counts are ints in JSON
    report.details["same_word_spearman"] = similarity_report(
        report.name, first.pipeline, second.pipeline, covered & same_word, pairs.scores
    ).spearman
    static = _static_target_vectors(nlp, pairs)
    report.details.update(_static_rows(static, pairs.scores))
    report.details.update(_sense_rows(first, second, covered, pairs.scores, static))
    return report


def _static_target_vectors(nlp: Language, pairs: ContextPairs) -> Optional[StaticTargets]:
    """token._.static_vec of each pair's two target words (one vector per word type) and
    whether both have one, where the pipeline has ctxvec_static; else None."""
    if not any(nlp.get_pipe_meta(name).factory == "ctxvec_static" for name in nlp.pipe_names):
        return None
    targets1 = [words[i] for words, i in zip(pairs.words1, pairs.index1)]
    targets2 = [words[i] for words, i in zip(pairs.words2, pairs.index2)]
    vocabulary = unique_words(targets1, targets2)
    vectors, found = static_token_vectors(nlp, vocabulary)
    both = rows_for(targets1, vocabulary, found) & rows_for(targets2, vocabulary, found)
    return rows_for(targets1, vocabulary, vectors), rows_for(targets2, vocabulary, vectors), both


def _static_rows(static: Optional[StaticTargets], scores: np.ndarray) -> Dict[str, Optional[float]]:
    """Spearman of the two target words' static_vec cosines, with its coverage."""
    if static is None:
        return {}
    first, second, both = static
    report = similarity_report("static", first, second, both, scores)
    return {"static_vec": report.spearman, "static_vec_covered": report.n_covered}


def _sense_rows(
    first: TargetVectors,
    second: TargetVectors,
    covered: np.ndarray,
    scores: np.ndarray,
    static: Optional[StaticTargets] = None,
) -> Dict[str, Optional[float]]:
    """Spearman of the cosine of the two targets' token._.sense_vec (where the pipeline
    has senses), on the pairs whose two targets both have a sense; and on the same pairs
    the contextual vectors' Spearman and (with ctxvec_static) the static vectors', the
    fair baselines for a sense-aware static table."""
    if first.sense_vectors is None or second.sense_vectors is None:
        return {}
    # set together with the sense vectors; evaluate_scws raised before without contextual vectors
    assert first.has_sense is not None and second.has_sense is not None
    assert first.pipeline is not None and second.pipeline is not None
    both = first.has_sense & second.has_sense
    rows = {
        "sense_vec": similarity_report("sense_vec", first.sense_vectors, second.sense_vectors, both, scores).spearman,
        "sense_vec_covered": int(both.sum()),
        "sense_vec_coverage": float(both.mean()) if len(both) else 0.0,
        "context_vec_on_sense_covered": similarity_report(
            "context_vec", first.pipeline, second.pipeline, both & covered, scores
        ).spearman,
    }
    if static is not None:
        static_first, static_second, static_both = static
        on_sense = similarity_report("static", static_first, static_second, both & static_both, scores)
        rows["static_vec_on_sense_covered"] = on_sense.spearman
    return rows


def polysemy_component(nlp: Language) -> "Polysemy":
    """The pipeline's ctxvec_polysemy component (found by its factory)."""
    names = polysemy_components(nlp)
    if names:
        return cast("Polysemy", nlp.get_pipe(names[0]))
    hint = "Build one with `spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT` (it adds the component) and give OUTPUT."
    raise missing_component(nlp, "ctxvec_polysemy", "polysemy_score", hint)


def polysemy_lexicon(nlp: Language, component: "Polysemy", purpose: str) -> Lexicon:
    """The polysemy component's lexicon; E330 when it has none or an empty one, saying that
    ``purpose`` ("evaluating polysemy_score") needs one."""
    lexicon = component.lexicon
    if lexicon is None or len(lexicon) == 0:
        what = "no lexicon yet" if lexicon is None else "an empty lexicon"
        pipeline = shlex.quote(str(nlp.path)) if nlp.path else "PIPELINE"  # spacy.load's directory, if any
        raise CtxvecError(Errors.E330.format(name=component.name, what=what, purpose=purpose, pipeline=pipeline))
    return lexicon


def evaluate_polysemy(
    nlp: Language, sense_counts: Mapping[str, int], min_count: Optional[int] = None
) -> PolysemyReport:
    """Spearman of the pipeline's polysemy_score per lexicon type with log WordNet sense
    counts (read_sense_counts), raw and with log corpus frequency partialled out, and
    the monosemous-vs-polysemous AUC; for a probe fitted on one half of the words
    (FITTED_HALF), also on the other half alone (``held_out``). W058 where a probe fitted on
    English sense counts scores a pipeline of another language."""
    component = polysemy_component(nlp)
    lexicon = polysemy_lexicon(nlp, component, "evaluating polysemy_score")
    scores, valid, source = type_polysemy_scores(
        lexicon, component.probe, min_count or component.min_count, component.score_definition, component.type_inputs
    )
    report = polysemy_report(lexicon.keys, scores, valid, lexicon.counts, sense_counts, score=source)
    english = english_probe_warning(component.probe, source, nlp.lang, component.name)
    if english:  # W058
        warn_at_user_line(english)
    if source == PROBE and component.probe is not None and component.probe.meta.get("fitted_words") == FITTED_HALF:
        held_out = ~in_fitted_half(lexicon.keys, lower=lower_case_halves(component.probe.meta))
        report.held_out = polysemy_report(
            lexicon.keys, scores, valid, lexicon.counts, sense_counts, score=source, words=held_out
        )
    return report


# Senses
INDUCED = "induced"
ASSIGNED = "assigned"
_INDUCTION_SETTINGS = ("split_threshold", "cut_distance", "max_senses", "min_tokens", "min_share", "min_support")


def induction_record(nlp: Language) -> Tuple[Dict[str, Any], str]:
    """Without a sense inventory: the settings of the pipeline's [components.NAME.induction]
    (the defaults without a ctxvec_polysemy), as an inventory records them, and where from."""
    names = polysemy_components(nlp)
    induction = getattr(nlp.get_pipe(names[0]), "induction", None) if names else None
    if not isinstance(induction, SenseInductionSettings):
        induction, source = SenseInductionSettings(), "the default induction settings"
    else:
        source = f"the settings of [components.{names[0]}.induction]"
    # the probe rule needs the lexicon an inventory comes with: without one, the spread test
    return {**induction.to_dict(), "split_rule": "evidence" if induction.split_by_evidence else "spread"}, source


def pipeline_senses(nlp: Language) -> Optional[SenseInventory]:
    """The SenseInventory of the pipeline's ctxvec_polysemy component, or None."""
    names = polysemy_components(nlp)
    inventory = getattr(nlp.get_pipe(names[0]), "senses", None) if names else None
    return inventory if inventory is not None and len(inventory) else None


@dataclass
class SenseTargets:
    """Per sentence: the target's contextual vector (token._.context_vec; zeros where it
    has none), whether it has one, its type key (lower case) and its assigned sense
    (token._.sense, -1 for None) with that sense's vector (token._.sense_vec);
    ``contexts``: the mean contextual vector of the tokens up to ``context_window``
    either side of the target (ops.context_windows.window_context_means)."""

    vectors: np.ndarray
    has_vector: np.ndarray
    keys: List[str]
    senses: np.ndarray
    sense_vectors: Optional[np.ndarray]
    contexts: Optional[np.ndarray] = None


def sense_targets(
    nlp: Language,
    word_lists: Sequence[Sequence[str]],
    positions: np.ndarray,
    batch_size: Optional[int] = None,
    context_window: int = CONTEXT_WINDOW,
) -> SenseTargets:
    """Run the whole pipeline on Docs made of exactly these words and read the target
    token ``positions[k]`` of sentence ``k``."""
    from spacy.tokens import Token

    install_extensions()
    n = len(word_lists)
    docs = (doc_from_words(nlp, words) for words in word_lists)
    vectors: Optional[np.ndarray] = None
    contexts: Optional[np.ndarray] = None
    sense_vectors: Optional[np.ndarray] = None
    has_vector = np.zeros(n, dtype=bool)
    senses = np.full(n, -1, dtype=np.int64)
    keys: List[str] = []
    has_senses = Token.has_extension("sense") and pipeline_senses(nlp) is not None
    for k, doc in enumerate(nlp.pipe(docs, batch_size=batch_size or min(nlp.batch_size, 256))):
        check_same_tokens(doc, "evaluate")
        token = doc[int(positions[k])]
        keys.append(token.lower_)
        vector = token._.context_vec
        if vector is None:
            continue
        if vectors is None or contexts is None:
            vectors = np.zeros((n, len(vector)), dtype=np.float32)
            contexts = np.zeros((n, len(vector)), dtype=np.float32)
        vectors[k] = vector
        doc_vectors, doc_mask = doc._.get(CONTEXT_ARRAY), doc._.get(CONTEXT_MASK)
        if context_window > 0 and doc_vectors is not None and doc_mask is not None:
            segments = context_segments(doc)
            contexts[k] = window_context_means(doc_vectors, doc_mask, context_window, segments)[int(positions[k])]
        has_vector[k] = bool(token._.has_context_vec)
        sense = token._.sense if has_senses else None
        if sense is not None:
            senses[k] = int(sense)
            sense_vector = token._.sense_vec
            if sense_vector is not None:
                if sense_vectors is None:
                    sense_vectors = np.zeros((n, len(sense_vector)), dtype=np.float32)
                sense_vectors[k] = sense_vector
    if vectors is None:
        raise missing_context_vectors(nlp)
    return SenseTargets(vectors, has_vector, keys, senses, sense_vectors, contexts if context_window > 0 else None)


def induced_labels(
    vectors: np.ndarray,
    groups: Sequence[Sequence[int]],
    space: Optional[SenseSpace] = None,
    settings: Optional[Mapping[str, Any]] = None,
    contexts: Optional[np.ndarray] = None,
    context_space: Optional[SenseSpace] = None,
    split_decisions: Optional[Sequence[Optional[bool]]] = None,
) -> Tuple[List[np.ndarray], Any]:
    """Senses induced on each group's own rows of ``vectors`` in ``space`` (a SenseSpace;
    None: fitted on all rows of ``vectors``), with ops.senses.induce_senses ``settings``
    (an inventory's: its split thresholds table too). With ``contexts`` (the targets'
    context vectors) and a positive ``context_weight`` in ``settings`` (default
    CONTEXT_WEIGHT) the clusters are made on token and context joined, the contexts in
    ``context_space`` (None: fitted on the targets' contexts). As ``induce_inventory``:
    where ``settings`` record the evidence split rule (or record no rule: the default),
    each group's own evidence decides (``ops.sense_evidence.induce_senses_by_evidence``,
    the anisotropy baseline taken between the groups); else ``split_decisions``: per
    group, whether it splits (None: the spread test decides).
    Returns the labels per group and the space used."""
    settings = settings or {}
    n_directions = int(settings.get("n_directions", N_REMOVED_DIRECTIONS))
    used = np.array(sorted({row for rows in groups for row in rows}), dtype=np.int64)
    used = used[np.abs(vectors[used]).sum(axis=1) > 0]  # targets without a vector do not shape the space
    if space is None:
        space = fit_sense_space(vectors[used], n_directions=n_directions)
    weight = float(settings.get("context_weight", CONTEXT_WEIGHT))
    if contexts is not None and weight > 0 and context_space is None:
        context_space = fit_sense_space(contexts[used], n_directions=n_directions)
    induction = SenseInductionSettings.from_record(
        {name: settings[name] for name in (*_INDUCTION_SETTINGS, "split_rule") if name in settings}
    )
    table = settings.get("split_thresholds")  # the inventory's own (calibrated) thresholds
    thresholds = tuple((int(n), float(t)) for n, t in table) if table else SPLIT_THRESHOLDS
    baseline = grouped_anisotropy_baseline(vectors, groups) if induction.split_by_evidence and groups else 0.0
    labels = []
    for i, rows in enumerate(groups):
        units = to_sense_space(vectors[list(rows)], space)
        features = (
            sense_features(units, to_sense_space(contexts[list(rows)], context_space), weight)
            if contexts is not None and context_space is not None and weight > 0
            else None
        )
        similarity = self_similarity_score(vectors[list(rows)], baseline) if induction.split_by_evidence else None
        model = induce_type_senses(  # as induce_inventory decides
            units,
            induction,
            self_similarity=similarity,
            cluster_rows=features,
            thresholds=thresholds,
            split=None if split_decisions is None else split_decisions[i],
        )[0]
        labels.append(model.labels)
    return labels, space


def lemma_split_decisions(nlp: Language, lemmas: Sequence[str]) -> Optional[List[Optional[bool]]]:
    """Per lemma: the pipeline's polysemy probe's split decision for the lemma's type
    (None where the lexicon has no score for it); None without a probe that fits."""
    component = polysemy_component(nlp)
    if component.lexicon is None:
        return None
    keys = [lemma if component.key == "text" else lemma.lower() for lemma in lemmas]
    return probe_split_decisions(component.lexicon, component.probe, component.min_count, keys, component.type_inputs)


def evaluate_senses(
    nlp: Language, data: SenseSentences, per_lemma: Optional[int] = None, batch_size: Optional[int] = None
) -> SenseReport:
    """Induced senses against the gold senses of ``data`` (read_sense_sentences), per
    lemma with at least 2 sentences (its first ``per_lemma``): ``induced`` = senses
    induced on the lemma's own sentences in the pipeline's sense space (its
    SenseInventory's, else one fitted on all target vectors); ``assigned`` = the
    pipeline's token._.sense, on the lemmas whose every target has one (a label is
    the target's type and sense: inflections have their own senses). Where the
    inventory's types were split by the polysemy probe, a lemma is split as the probe
    decides for its type, and by the spread test where the probe has no score."""
    groups = data.by_lemma(per_lemma)
    if not groups:
        raise CtxvecError(Errors.E630.format(n_rows=len(data), n_lemmas=len(set(data.lemmas))))
    lemmas = list(groups)
    rows = sorted(row for rows in groups.values() for row in rows)
    position_of = {row: i for i, row in enumerate(rows)}
    inventory = pipeline_senses(nlp)
    settings, source = (dict(inventory.settings), "") if inventory is not None else induction_record(nlp)
    window = inventory.context_window if inventory is not None else CONTEXT_WINDOW
    targets = sense_targets(
        nlp, [data.words[row] for row in rows], data.positions[rows], batch_size, context_window=window
    )
    local_groups = [[position_of[row] for row in groups[lemma]] for lemma in lemmas]
    gold = [[data.senses[row] for row in groups[lemma]] for lemma in lemmas]
    decisions = lemma_split_decisions(nlp, lemmas) if settings.get("split_rule") == "probe" else None
    induced, space = induced_labels(
        targets.vectors,
        local_groups,
        inventory.space if inventory is not None else None,
        settings,
        contexts=targets.contexts,
        context_space=inventory.context_space if inventory is not None else None,
        split_decisions=decisions,
    )
    methods = {INDUCED: clustering_scores(gold, induced)}
    details: Dict[str, Any] = {
        "sense_space": "of the pipeline's sense inventory"
        if inventory is not None
        else "fitted on the file's target vectors",
        "split_thresholds": describe_split_thresholds(settings)
        + ("" if inventory is not None else f" (no sense inventory: {source})"),
        "n_removed_directions": int(space.directions.shape[0]),
        "context": (
            f"token joined to the mean vector of {window} tokens either side (weight "
            f"{float(settings.get('context_weight', CONTEXT_WEIGHT)):g})"
            if targets.contexts is not None and float(settings.get("context_weight", CONTEXT_WEIGHT)) > 0
            else "none (token vectors alone)"
        ),
        "targets_without_vector": int((~targets.has_vector).sum()),
        "split_by_probe_lemmas": None if decisions is None else sum(d is not None for d in decisions),
        "per_lemma": per_lemma,
        "lemmas_left_out": len(set(data.lemmas)) - len(lemmas),  # fewer than 2 sentences
        "sentences_left_out": len(data) - len(rows),  # theirs, and beyond per_lemma
    }
    baselines = {name: clustering_scores(gold, labels) for name, labels in baseline_labels(gold).items()}
    if inventory is not None:
        covered = [i for i, group in enumerate(local_groups) if (targets.senses[group] >= 0).all()]
        assigned = [[f"{targets.keys[j]}|{targets.senses[j]}" for j in local_groups[i]] for i in covered]
        covered_gold = [gold[i] for i in covered]
        methods[ASSIGNED] = clustering_scores(covered_gold, assigned)
        details["assigned_lemmas"] = len(covered)
        details["assigned_baselines"] = {
            name: clustering_scores(covered_gold, labels).to_dict()
            for name, labels in baseline_labels(covered_gold).items()
        }
    return SenseReport(
        n_sentences=len(rows), n_lemmas=len(lemmas), methods=methods, baselines=baselines, details=details
    )
