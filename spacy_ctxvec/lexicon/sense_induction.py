"""Sense induction over a lexicon (``induce_inventory``): from the lexicon's occurrence
sample (``Lexicon.sample``: up to K contextual vectors per type, chosen by a content
hash) to a ``SenseInventory``, with one ``ops.senses.SenseInductionSettings``:

1. fit one sense space for the whole corpus (``ops.senses``: centre, remove the top
   principal directions), each sampled row weighted by count / sampled rows of its
   type so that the sample stands for the corpus (``fit_corpus_sense_space``);
2. induce the senses of every type seen at least ``min_count`` times that has a
   sample (with ``words_only``, the default, only types holding a letter:
   ``ops.senses.is_word``) (``ops.senses.induce_senses``: one sense unless the sample's spread exceeds
   a threshold, by default calibrated on these types' own spreads by sample size
   (``ops.senses.calibrate_split_thresholds``), or unless a polysemy probe that fits
   the lexicon says so (``probe_split_decisions``); else average-linkage clustering
   on cosine distance). The clusters are made on each occurrence's token row joined to
   its context row (``ops.senses.sense_features``; the context vectors of the sample,
   in a context space fitted the same way) when the sample keeps context vectors and
   ``context_weight`` > 0; the split decision uses the token rows alone;
   With ``split_by_evidence``, ``ops.sense_evidence.induce_senses_by_evidence`` decides
   instead, on the clustered rows; where the sample knows passages (``by_passage``) only
   the first occurrence of the type in each passage is judged, once per snippet
   (``independent_rows``: occurrences that share a passage share its context, and a
   repeated line is one piece of evidence), the others join their nearest sense;
3. keep per sense its centroid, static vector, share, up to ``N_EXAMPLES`` example
   snippets (the members nearest the centroid, first occurrences of a passage first) and
   a label of ``N_LABEL_WORDS`` context words (``ops.sense_labels.labels_by_sense`` over
   its sampled snippets, one per passage where the sample knows passages, the word itself
   left out; for a word with several senses, words of one snippet ranked by their
   direction in this lexicon, ``word_affinity``); per type its ``corpus_polysemy``
   (``ops.sense_evidence.corpus_evidence`` on the clustered rows, whatever decided the
   split, through ``ops.sense_evidence.corpus_polysemy_of`` where the evidence did not
   decide; of the independent rows; None with fewer than 2 x ``min_support`` of them) and
   the margin scale of its senses (``ops.sense_evidence.margin_scale``, for token
   confidences).

Pure numpy (+ scipy through ops); no spaCy. Deterministic.
"""

import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors
from ..ops.cosine import normalise_rows
from ..ops.sense_evidence import (
    SenseEvidence,
    corpus_polysemy_of,
    induce_senses_by_evidence,
    margin_scale,
    self_similarity_score,
)
from ..ops.sense_labels import ENGLISH, Affinity, LabelLanguage, labels_by_sense, vector_affinity
from ..ops.senses import (
    CONTEXT_WINDOW,
    N_REMOVED_DIRECTIONS,
    SPLIT_THRESHOLDS,
    SenseInductionSettings,
    SenseModel,
    SenseSpace,
    calibrate_split_thresholds,
    check_min_count,
    induce_senses,
    is_word,
    sense_features,
    spread,
    sums_by_label,
    to_sense_space,
    voting_rows,
)
from ..ops.split_significance import one_blas_thread, stored_rows_have_spread
from .induction_checks import induction_warnings
from .polysemy_probe import PolysemyProbe
from .sense_inventory import SenseInventory
from .statistics import Lexicon

N_EXAMPLES = 3  # example snippets kept per sense
_FIT_CHUNK_ROWS = 4096  # rows per chunk when fitting the sense space (bounded memory)


def check_directions_fit(n_directions: int, width: int) -> None:
    """E603 where ``n_directions`` is over half the vectors' ``width``: removing more would
    remove most of the space the senses are told apart in."""
    if n_directions * 2 > width:
        requirement = f"at most half the vectors' width ({width // 2} of {width}; default {N_REMOVED_DIRECTIONS})"
        raise CtxvecError(Errors.E603.format(setting="n_directions", requirement=requirement, value=n_directions))


def fit_corpus_sense_space(vectors: np.ndarray, weights: np.ndarray, *, n_directions: int) -> SenseSpace:
    """``ops.senses.fit_sense_space`` in bounded memory: the weighted mean and the top
    ``n_directions`` eigenvectors of the weighted covariance, accumulated over chunks of
    rows (the same directions as the SVD, up to sign). Non-finite rows and rows with
    weight <= 0 take no part. On one BLAS thread: the same directions whatever the
    machine's thread count, and on busy cores the threaded width x width eigendecomposition
    waited 0.6 to 1.2 s against 0.03 to 0.05 s (benchmarks/speed/LEXICON_INDUCTION.md)."""
    with one_blas_thread():
        return _fit_sense_space_in_chunks(vectors, weights, n_directions)


def _fit_sense_space_in_chunks(vectors: np.ndarray, weights: np.ndarray, n_directions: int) -> SenseSpace:
    n, width = vectors.shape
    weights = np.asarray(weights, dtype=np.float64)
    total, weighted_sum, n_used = 0.0, np.zeros(width), 0
    chunks = [(start, min(n, start + _FIT_CHUNK_ROWS)) for start in range(0, n, _FIT_CHUNK_ROWS)]

    def chunk(start: int, end: int) -> Tuple[np.ndarray, np.ndarray]:
        x = np.asarray(vectors[start:end], dtype=np.float64)
        finite = np.isfinite(x).all(axis=1)
        w = np.where(finite & (weights[start:end] > 0), weights[start:end], 0.0)
        return (x if finite.all() else np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)), w

    for start, end in chunks:
        x, w = chunk(start, end)
        total += float(w.sum())
        weighted_sum += w @ x
        n_used += int((w > 0).sum())
    if total <= 0:
        return SenseSpace(np.zeros(width), np.zeros((0, width)))
    mean = weighted_sum / total
    m = int(min(n_directions, max(n_used - 1, 0), width))
    if m == 0:
        return SenseSpace(mean, np.zeros((0, width)))
    covariance = np.zeros((width, width))
    for start, end in chunks:
        x, w = chunk(start, end)
        centred = (x - mean) * np.sqrt(w / total)[:, None]
        covariance += centred.T @ centred
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    directions = eigenvectors[:, ::-1][:, :m].T
    signs = np.sign(directions[np.arange(m), np.argmax(np.abs(directions), axis=1)])
    return SenseSpace(mean, directions * signs[:, None])


def induce_inventory(
    lexicon: Lexicon,
    settings: SenseInductionSettings = SenseInductionSettings(),
    *,
    min_count: int,
    probe: Optional[PolysemyProbe] = None,
    inputs: Optional[np.ndarray] = None,
    name: str = "ctxvec_polysemy",
    language: LabelLanguage = ENGLISH,
    warn: bool = True,
) -> SenseInventory:
    """Induce the senses of every type of ``lexicon`` seen at least ``min_count`` times
    that has sampled occurrences and, with ``words_only``, holds a letter (E602 if the
    lexicon has no sample). With ``split_by_evidence`` (the default) the corpus's evidence
    decides which types split and into how many senses (``ops.sense_evidence``), and the
    rest of this paragraph is the rule without it. The split thresholds per sample size are ``split_threshold``
    for every n when it is a number, else calibrated on these types' own samples (``split_percentile``; see
    ``ops.senses.calibrate_split_thresholds``), else (``split_percentile`` None) the
    shipped ``SPLIT_THRESHOLDS``; the table used is saved in ``settings``. Clusters
    are made on token and context joined when the sample keeps context vectors and
    ``context_weight`` > 0, else on the token rows. With ``split_by_probe`` and a
    ``probe`` that fits the lexicon and has a ``split_senses`` cut, the probe decides
    which types split (its estimate above the cut) instead of the spread thresholds
    (``inputs``: the lexicon types' input embeddings, for a probe that reads them).
    ``language``: the labels' (stop words, how snippets split into words; ``ops.sense_labels``). ``warn``:
    warn what ``induction_checks.induction_warnings`` finds (W033, W060, W061).
    Deterministic: the same lexicon gives a bitwise equal inventory."""
    check_min_count(min_count)
    if not isinstance(settings, SenseInductionSettings):  # e.g. a dict: an AttributeError further on
        requirement = "a SenseInductionSettings (spacy_ctxvec.ops.senses), e.g. SenseInductionSettings(max_senses=3)"
        raise CtxvecError(Errors.E228.format(setting="settings", requirement=requirement, value=repr(settings)[:80]))
    sample = lexicon.sample
    if sample is None:
        raise CtxvecError(Errors.E602.format(name=name))
    for message in induction_warnings(settings, lexicon, name) if warn else []:
        warnings.warn(message, stacklevel=2)
    split_threshold, split_percentile = settings.split_threshold, settings.split_percentile
    n_directions, context_weight = settings.n_directions, settings.context_weight
    record: Dict[str, Any] = {  # the inventory's settings: what was used, as it was before the settings object
        "min_count": int(min_count),
        "split_threshold": None if split_threshold is None else float(split_threshold),
        "split_percentile": None if split_percentile is None else float(split_percentile),
        "cut_distance": float(settings.cut_distance),
        "max_senses": settings.max_senses,
        "min_tokens": settings.min_tokens,
        "min_share": float(settings.min_share),
        "min_support": settings.min_support,
        "n_directions": n_directions,
        "sample_k": sample.k,
        "key": lexicon.meta.get("key"),
        "words_only": settings.words_only,
    }
    sample_contexts = sample.contexts if context_weight > 0 else None
    with_contexts = sample_contexts is not None
    record.update(
        context_weight=float(context_weight) if with_contexts else 0.0,
        context_window=CONTEXT_WINDOW if with_contexts else 0,
    )
    counts = _type_counts(lexicon, sample.keys)
    rows_per_type = sample.counts()
    weights = np.repeat(counts / np.maximum(rows_per_type, 1), rows_per_type)
    check_directions_fit(n_directions, sample.vectors.shape[1])
    space = fit_corpus_sense_space(sample.vectors, weights, n_directions=n_directions)
    context_space = (
        None if sample_contexts is None else fit_corpus_sense_space(sample_contexts, weights, n_directions=n_directions)
    )
    induced = np.flatnonzero(counts >= min_count)
    if settings.words_only:
        induced = np.array([i for i in induced if is_word(sample.keys[i])], dtype=np.int64)
    decisions = (
        probe_split_decisions(lexicon, probe, min_count, sample.keys, inputs)
        if settings.split_by_probe and not settings.split_by_evidence
        else None
    )
    record.update(
        split_rule="evidence" if settings.split_by_evidence else "probe" if decisions is not None else "spread",
        split_senses=probe.split_senses if decisions is not None and probe is not None else None,
    )

    def units_of(i: int) -> Tuple[np.ndarray, np.ndarray]:
        raw = sample.vectors[int(sample.offsets[i]) : int(sample.offsets[i + 1])].astype(np.float64)
        return raw, to_sense_space(raw, space)

    # Per type, small matrices: one BLAS thread (threaded, they waited on busy cores; the
    # inventory is bitwise the same).
    thresholds, n_calibrated = SPLIT_THRESHOLDS, 0
    # The spread thresholds are calibrated only for the rules that read them (not the evidence rule).
    if split_threshold is None and split_percentile is not None and not settings.split_by_evidence:
        row_counts, spreads = np.zeros(len(induced), dtype=np.int64), np.zeros(len(induced))
        with one_blas_thread():
            for j, i in enumerate(induced):  # one type at a time: bounded memory
                units = units_of(int(i))[1]
                voting = units[voting_rows(units)]
                row_counts[j], spreads[j] = len(voting), spread(voting)
        thresholds, n_calibrated = calibrate_split_thresholds(row_counts, spreads, split_percentile)
    record["split_thresholds"] = None if split_threshold is not None else [[n, t] for n, t in thresholds]
    record["split_calibrated_sizes"] = n_calibrated
    keys: List[str] = []
    sizes: List[int] = []
    centroids: List[np.ndarray] = []
    vectors: List[np.ndarray] = []
    shares: List[np.ndarray] = []
    examples: List[List[str]] = []
    labels: List[List[str]] = []
    polysemy: List[float] = []
    scales: List[float] = []
    judged: List[int] = []
    split_thresholds: List[float] = []
    baseline = lexicon.anisotropy_baseline()
    with one_blas_thread():
        for i in induced:
            start, end = int(sample.offsets[i]), int(sample.offsets[i + 1])
            raw, units = units_of(int(i))
            features = None
            if context_space is not None and sample_contexts is not None:
                contexts = sample_contexts[start:end].astype(np.float64)
                features = sense_features(units, to_sense_space(contexts, context_space), context_weight)
            independent = sample.independent_rows(start, end)
            stored_zero = ~raw.any(axis=1)  # a vector float16 stored as 0 takes no part (centred, it was -mean)
            if not stored_rows_have_spread(raw[independent & ~stored_zero]):  # one point as stored: nothing to split
                units, features = one_point(units), None if features is None else one_point(features)
            units[stored_zero] = 0.0
            if features is not None:
                features[stored_zero] = 0.0
            clustered = units if features is None else features
            similarity = self_similarity_score(raw[independent], baseline)
            model, evidence = induce_type_senses(
                units,
                settings,
                self_similarity=similarity,
                cluster_rows=features,
                thresholds=thresholds,
                split=None if decisions is None else decisions[i],
                independent=independent,
            )
            corpus_polysemy = (
                evidence.corpus_polysemy
                if evidence is not None
                else corpus_polysemy_of(
                    clustered[independent], min_support=settings.min_support, self_similarity=similarity
                )
            )
            if model.n_senses == 0:
                continue
            polysemy.append(np.nan if corpus_polysemy is None else corpus_polysemy)
            judged.append(int(independent.sum()))
            # no corpus_polysemy (too few judged rows): no threshold it was compared with
            split_thresholds.append(np.nan if evidence is None or corpus_polysemy is None else evidence.threshold)
            scales.append(margin_scale(clustered, model.centroids))
            keys.append(sample.keys[i])
            sizes.append(model.n_senses)
            centroids.append(model.centroids)
            shares.append(model.shares)
            vectors.append(_means_by_label(raw, model.labels, model.n_senses))
            closeness = np.einsum("ij,ij->i", clustered, model.centroids[model.labels])
            snippets = sample.snippets[start:end]
            labels += labels_by_sense(
                snippets,
                _label_rows(model.labels, independent),
                exclude=[sample.keys[i]],
                affinity=word_affinity(lexicon, vectors[-1]) if model.n_senses > 1 else None,
                language=language,
            )
            for sense in range(model.n_senses):
                members = np.flatnonzero(model.labels == sense)
                # nearest the centroid, the first occurrence of each passage before the others
                nearest = members[np.lexsort((-closeness[members], ~independent[members]))]
                examples.append(list(dict.fromkeys(snippets[j] for j in nearest))[:N_EXAMPLES])  # no snippet twice
    width = lexicon.width
    return SenseInventory(
        space,
        keys,
        np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64),
        np.concatenate(centroids) if centroids else np.zeros((0, width * (1 if context_space is None else 2))),
        np.concatenate(vectors) if vectors else np.zeros((0, width)),
        np.concatenate(shares) if shares else np.zeros(0),
        examples,
        record,
        context_space,
        labels=labels,
        corpus_polysemy=np.array(polysemy, dtype=np.float64),
        margin_scales=np.array(scales, dtype=np.float64),
        judged=np.array(judged, dtype=np.int64),
        split_thresholds=np.array(split_thresholds, dtype=np.float64),
    )


def one_point(rows: np.ndarray) -> np.ndarray:
    """Every row of ``rows`` (n, d) replaced by their unit mean (zero rows stay zero)."""
    mean = normalise_rows(rows.mean(axis=0, keepdims=True))
    return np.where(rows.any(axis=1, keepdims=True), mean, 0.0)


def induce_type_senses(
    units: np.ndarray,
    settings: SenseInductionSettings,
    *,
    self_similarity: Optional[float],
    cluster_rows: Optional[np.ndarray] = None,
    thresholds: Sequence[Tuple[int, float]] = SPLIT_THRESHOLDS,
    split: Optional[bool] = None,
    independent: Optional[np.ndarray] = None,
) -> Tuple[SenseModel, Optional[SenseEvidence]]:
    """One type's senses by the split rule ``settings`` name: this corpus's evidence
    (``split_by_evidence``, with the type's ``self_similarity``; its evidence returned too;
    ``independent``: the rows judged, one per passage, None: all), else
    ``ops.senses.induce_senses`` (``split``: the probe's decision, None: the spread test
    decides; no evidence)."""
    if settings.split_by_evidence:
        return induce_senses_by_evidence(
            units,
            cluster_rows=cluster_rows,
            max_senses=settings.max_senses,
            min_support=settings.min_support,
            self_similarity=self_similarity,
            independent=independent,
        )
    return induce_senses(units, settings, thresholds=thresholds, cluster_rows=cluster_rows, split=split), None


def probe_split_decisions(
    lexicon: Lexicon,
    probe: Optional[PolysemyProbe],
    min_count: int,
    keys: Sequence[str],
    inputs: Optional[np.ndarray] = None,
) -> Optional[List[Optional[bool]]]:
    """Per key: whether the probe's estimate for its type exceeds the probe's
    ``split_senses`` (None where the probe does not score the type); None (no
    decisions at all) without a probe that fits the lexicon (and ``inputs``, the
    types' input embeddings, where it reads them) and has that cut."""
    if probe is None or probe.split_senses is None or probe.problem_with(lexicon, inputs=inputs) is not None:
        return None
    estimates, valid = probe.scores(lexicon, min_count, inputs)
    rows = [lexicon.index(key) for key in keys]
    return [None if row is None or not valid[row] else bool(estimates[row] > probe.split_senses) for row in rows]


def _type_counts(lexicon: Lexicon, keys: Sequence[str]) -> np.ndarray:
    """Lexicon count of each key (0 where the lexicon lacks it), int64."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    lexicon_keys = np.asarray(lexicon.keys, dtype=str)
    wanted = np.asarray(list(keys), dtype=str)
    positions = np.minimum(np.searchsorted(lexicon_keys, wanted), max(len(lexicon_keys) - 1, 0))
    found = (lexicon_keys[positions] == wanted) if len(lexicon_keys) else np.zeros(len(wanted), dtype=bool)
    return np.where(found, np.asarray(lexicon.counts)[positions] if len(lexicon_keys) else 0, 0).astype(np.int64)


def _label_rows(labels: np.ndarray, independent: np.ndarray) -> List[int]:
    """Each row's sense for its sense's label words, -1 (left out) for a row that shares its
    passage with an earlier one (words of one passage would count twice), unless that
    leaves a sense without rows (a rule that did not judge on independent rows)."""
    kept = np.where(independent, labels, -1)
    return (kept if set(kept.tolist()) >= set(labels.tolist()) else labels).tolist()


def word_affinity(lexicon: Lexicon, sense_vectors: np.ndarray) -> Affinity:
    """The label words' ``vector_affinity`` to one type's senses (their mean raw vectors):
    each context word's direction in this lexicon (its mean unit vector; none for a word
    the lexicon lacks, e.g. under another key mode)."""

    def affinity(words: Sequence[str]) -> np.ndarray:
        found = [(position, row) for position, row in enumerate(map(lexicon.index, words)) if row is not None]
        positions, rows = [p for p, _ in found], [r for _, r in found]
        directions = np.zeros((len(words), lexicon.width))
        directions[positions] = lexicon.unit_sums[rows]  # fixed point: a scale, which cosines ignore
        return vector_affinity(directions, sense_vectors)

    return affinity


def _means_by_label(raw: np.ndarray, labels: np.ndarray, n_senses: int) -> np.ndarray:
    sums = sums_by_label(raw, labels, n_senses)
    return sums / np.bincount(labels, minlength=n_senses)[:, None]
