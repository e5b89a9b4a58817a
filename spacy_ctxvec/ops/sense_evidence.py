"""Does this corpus use a word in more than one way? Split decisions from the word's own
sampled occurrences, calibrated for their number (issue 21). numpy only; deterministic.

The evidence: ``ops.split_significance.split_evidence`` of the word's usable occurrence
rows (unit rows of the sense space: e.g. ``ops.senses.sense_features``, the token joined to
its context), a z against one-Gaussian data of the same size and covariance:
``corpus_polysemy``, higher where the occurrences fall into groups more clearly.

The scale: standard deviations of the one-Gaussian null. That null is conservative
(sample eigenvalues overstate the top of the spectrum, so the null splits well too):
occurrences of one use score about -2 (pseudo-words of one use: -2.3 at n = 10, -2.0 at
n = 20 and 40), clearly separated groups score above 0 and up to 10 or more (synthetic
rows); hence the split thresholds of ``SPLIT_Z_TABLE`` are below 0
(benchmarks/quality/SENSE_EVIDENCE.md).

A word splits where ``corpus_polysemy`` exceeds ``split_z_for(n)``. ``probe_prior_shift``
(a dictionary probe shifting that threshold by at most ``MAX_PRIOR_SHIFT``) is for the
benchmarks only: the shipped rule (``lexicon.sense_induction``) passes no shift.

With the word's ``self_similarity`` over the same occurrences (``self_similarity_score``:
the lexicon's self-similarity polysemy score, on its raw contextual rows), ``corpus_polysemy``
is ``combined_polysemy``, the larger of two kinds of evidence, each in standard deviations
above one-use words of the same n (``ONE_USE_TABLE``: WordNet-monosemous words): groups
(that score and the split z added) and differing uses (the spread of the feature rows);
the word splits where it exceeds the table's threshold (80% of one-use words stay below
it). On real words and pseudo-words (benchmarks/quality/wordnet_coarse.py,
SENSE_EVIDENCE.md "Real words" and "Groups or differing uses") the spread ranks a corpus
where a word's uses differ above one where they agree far more often than the sum, which
is at chance there; the larger of the two keeps that ranking, and decides the first split
almost as well as the sum alone (held out it splits fewer words: a lower ARI, more
monosemous words kept whole).
How many senses: the group with the strongest evidence is split again (best first) while
the evidence for splitting it exceeds ``split_z``, both parts keep at least
``min_support`` occurrences, and there are fewer than ``max_senses`` groups; then every
row moves to its nearest group's centroid until none moves (``nearest_centroid_groups``),
so that a sampled occurrence is in the sense a token there would get.
``sense_scores`` gives each occurrence a confidence in [0, 1].

Occurrences without measurable spread (all one point at float16 storage precision, e.g. a
word seen only inside a long passage repeated through a corpus) have no split z (``split_evidence``: None): they never
split, ``combined_polysemy`` is their differing uses alone (very low: their spread is
about 0), and where ``corpus_polysemy`` is the split z itself it is ``NO_SPREAD_Z``.
"""

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors
from .cosine import mean_cosine_between_groups, normalise_rows
from .sense_evidence_tables import ONE_USE_TABLE, SPLIT_Z_TABLE
from .senses import MAX_SENSES, SenseModel, finite_or_zero, spread, sums_by_label
from .split_significance import N_COMPONENTS, N_NULL, SEED, one_blas_thread, split_evidence

RESPLIT_Z: Optional[float] = 0.0  # evidence needed to split a group again (None: as for the first split)
MIN_SUPPORT = 3  # occurrences a sense needs at least
REFINE_ROUNDS = 10  # most rounds of moving occurrences to their nearest sense after the split
MAX_PRIOR_SHIFT = 1.0  # most a prior (e.g. the polysemy probe) may move split_z, either way
# corpus_polysemy on the split z scale (split_z given, or no self_similarity) of rows
# without measurable spread: finite (it is stored as JSON) and below every threshold of
# SPLIT_Z_TABLE and every one-use mean of ONE_USE_TABLE by more than 5 of their sds.
NO_SPREAD_Z = -10.0
_EPS = 1e-12


def reported_split_z(split_z: Optional[float]) -> float:
    """A ``split_evidence`` z as ``corpus_polysemy`` reports it on the split z scale:
    ``NO_SPREAD_Z`` for None (rows without measurable spread)."""
    return NO_SPREAD_Z if split_z is None else split_z


@dataclass(frozen=True)
class SenseEvidence:
    """One word's evidence in this corpus: ``corpus_polysemy`` (None with fewer than
    ``2 * min_support`` usable rows), the ``threshold`` it was compared with, and the
    senses it supports: ``labels`` (n,) int64, 0 = the largest sense."""

    corpus_polysemy: Optional[float]
    threshold: float
    labels: np.ndarray

    @property
    def n_senses(self) -> int:
        return int(self.labels.max()) + 1 if len(self.labels) else 0

    @property
    def split(self) -> bool:
        return self.n_senses > 1


def split_z_for(n: int, split_z: Optional[float] = None, table: Sequence[Tuple[int, float]] = SPLIT_Z_TABLE) -> float:
    """The corpus_polysemy above which ``n`` usable occurrences split: ``split_z`` when
    given, else ``table`` interpolated linearly in n (constant beyond its ends)."""
    if split_z is not None:
        return float(split_z)
    sizes, values = zip(*table)
    return float(np.interp(n, sizes, values))


def one_use_reference(n: int, table: Sequence[Sequence[float]] = ONE_USE_TABLE) -> Tuple[float, ...]:
    """(self-similarity mean, sd, split z mean, sd, feature spread mean, sd, sd of the
    standardised self-similarity + split z, combined_polysemy threshold) of one-use words
    at ``n`` occurrences: ``table`` interpolated linearly in n (constant beyond its ends)."""
    columns = np.asarray(table, dtype=np.float64)
    return tuple(float(np.interp(n, columns[:, 0], columns[:, j])) for j in range(1, columns.shape[1]))


def self_similarity_score(raw_rows: np.ndarray, baseline: float = 0.0) -> Optional[float]:
    """(1 - SelfSim) / (1 - B) of one word's occurrences: SelfSim the mean pairwise cosine
    of their raw contextual rows (n, d), B the corpus's anisotropy baseline
    (``Lexicon.anisotropy_baseline``): the lexicon's self-similarity polysemy score over
    these occurrences only. None with fewer than two usable (finite, non-zero) rows."""
    rows = np.asarray(raw_rows, dtype=np.float64)
    rows = rows.reshape(len(rows), -1) if rows.size else rows.reshape(len(rows), 0)
    finite = np.asarray(np.isfinite(rows).all(axis=1), dtype=bool)
    units = normalise_rows(np.where(finite[:, None], rows, 0.0))
    units = units[finite & (np.einsum("ij,ij->i", units, units) > 0.25)]
    if len(units) < 2 or not 1.0 - baseline > _EPS:
        return None
    return float(spread(units) / (1.0 - float(baseline)))


def grouped_anisotropy_baseline(raw_rows: np.ndarray, groups: Sequence[Sequence[int]]) -> float:
    """Mean cosine between rows of different groups (each group one word's occurrences):
    ``Lexicon.anisotropy_baseline`` for rows that are not in a lexicon; 0.0 without such pairs.
    Zero rows (targets without a vector) are left out, as the lexicon leaves them out."""
    rows = np.asarray(raw_rows, dtype=np.float64)
    usable = np.abs(rows).sum(axis=1) > 0
    sums = np.stack([normalise_rows(rows[list(group)]).sum(axis=0) for group in groups])
    return mean_cosine_between_groups(sums, np.array([int(usable[list(group)].sum()) for group in groups]))


def combined_polysemy(
    self_similarity: float,
    split_z: Optional[float],
    uses_spread: float,
    n: int,
    table: Sequence[Sequence[float]] = ONE_USE_TABLE,
) -> float:
    """The evidence of n occurrences that they hold more than one use, in standard
    deviations above one-use words at n (``ONE_USE_TABLE``): the larger of groups
    (``self_similarity``, ``self_similarity_score``, and ``split_z``, ``split_evidence``,
    each standardised, added, and the sum standardised) and differing uses
    (``uses_spread``: ``feature_spread``, the ``spread`` of their feature rows, standardised). About
    0.2-0.5 for a typical one-use word (the median of WordNet-monosemous words), the
    table's threshold (about 1) for their 80th percentile, higher where the uses differ.
    ``split_z`` None (rows without measurable spread): differing uses alone. ``table``:
    the one-use statistics (its threshold column is not read)."""
    s_mean, s_sd, z_mean, z_sd, f_mean, f_sd, summed_sd, _ = one_use_reference(n, table)
    uses = (uses_spread - f_mean) / max(f_sd, _EPS)
    if split_z is None:
        return float(uses)
    groups = (self_similarity - s_mean) / max(s_sd, _EPS) + (split_z - z_mean) / max(z_sd, _EPS)
    return float(max(groups / max(summed_sd, _EPS), uses))


def check_evidence_settings(
    *,
    split_z: Optional[float],
    max_senses: int,
    min_support: int,
    n_components: int = N_COMPONENTS,
    n_null: int = N_NULL,
) -> None:
    """E610 for a setting out of range."""

    def number(value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value))

    def whole(value: object, low: int) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= low

    for name, value, ok, requirement in (
        ("split_z", split_z, split_z is None or number(split_z), "null (by sample size) or a finite number"),
        ("max_senses", max_senses, whole(max_senses, 1), "an integer >= 1"),
        ("min_support", min_support, whole(min_support, 1), "an integer >= 1 (occurrences per sense)"),
        ("n_components", n_components, whole(n_components, 1), "an integer >= 1"),
        ("n_null", n_null, whole(n_null, 8), "an integer >= 8 (null data sets per test)"),
    ):
        if not ok:
            raise CtxvecError(Errors.E610.format(setting=name, requirement=requirement, value=value))


def usable_rows(rows: np.ndarray) -> np.ndarray:
    """Mask (n,) of finite rows of (about) unit length: occurrences without a vector
    (zero rows) take no part; no rows, an empty mask."""
    rows = np.asarray(rows, dtype=np.float64)
    if rows.size == 0:
        return np.zeros(len(rows), dtype=bool)
    finite = np.isfinite(rows).all(axis=1)
    clean = rows if finite.all() else np.where(finite[:, None], rows, 0.0)
    return finite & (np.einsum("ij,ij->i", clean, clean) > 0.25)


def _rows_and_usable(rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``rows`` as (n, d) float64, and which of them are usable (``usable_rows``)."""
    rows = np.asarray(rows, dtype=np.float64)
    rows = rows.reshape(len(rows), -1) if rows.size else rows.reshape(len(rows), 0)
    return rows, usable_rows(rows)


def feature_spread(usable: np.ndarray) -> float:
    """``spread`` of usable feature rows, normalised first (combined_polysemy's differing uses)."""
    return spread(normalise_rows(usable))


def min_usable(min_support: int) -> int:
    """The usable rows a word needs for a corpus_polysemy: two senses of ``min_support``, and 3."""
    return max(2 * max(1, int(min_support)), 3)


def _too_few_to_split(n_usable: int, min_support: int) -> bool:
    """Fewer usable rows than min_usable: no evidence."""
    return n_usable < min_usable(min_support)


def probe_prior_shift(estimate: Optional[float], split_senses: Optional[float], weight: float = 1.0) -> float:
    """How much a dictionary prior lowers (positive) or raises (negative) ``split_z``:
    ``weight`` x log(estimate / split_senses) of the polysemy probe, clipped to
    +-MAX_PRIOR_SHIFT; 0.0 without an estimate."""
    if estimate is None or split_senses is None or not estimate > 0 or not split_senses > 0:
        return 0.0
    return float(np.clip(weight * np.log(estimate / split_senses), -MAX_PRIOR_SHIFT, MAX_PRIOR_SHIFT))


def corpus_evidence(
    rows: np.ndarray,
    *,
    self_similarity: Optional[float] = None,
    split_z: Optional[float] = None,
    prior_shift: float = 0.0,
    resplit_z: Optional[float] = RESPLIT_Z,
    max_senses: int = MAX_SENSES,
    min_support: int = MIN_SUPPORT,
    n_components: int = N_COMPONENTS,
    n_null: int = N_NULL,
    seed: int = SEED,
) -> SenseEvidence:
    """The senses a word's sampled feature rows (n, d) support in this corpus.

    The word splits where ``corpus_polysemy`` (``split_evidence`` on all usable rows)
    exceeds ``split_z_for(n usable, split_z) - prior_shift`` (the shift clipped to
    +-MAX_PRIOR_SHIFT; ``split_z`` None: ``SPLIT_Z_TABLE`` at n). With
    ``self_similarity`` (``self_similarity_score`` of the same occurrences) and
    ``split_z`` None, ``corpus_polysemy`` is ``combined_polysemy`` and the threshold
    ``ONE_USE_TABLE``'s at n (minus the shift). Each group
    is then split again, strongest evidence first, while that evidence exceeds the larger
    of that threshold and ``resplit_z`` (None: the same threshold), both parts keep
    ``min_support`` occurrences and there are fewer than ``max_senses`` groups. Unusable
    (zero) rows join the largest sense. Fewer than ``2 * min_support`` usable rows: one
    sense, ``corpus_polysemy`` None. Usable rows without measurable spread: one sense
    (see the module docstring)."""
    rows, usable = _rows_and_usable(rows)
    n = len(rows)
    shift = float(np.clip(prior_shift, -MAX_PRIOR_SHIFT, MAX_PRIOR_SHIFT))
    n_usable = int(usable.sum())
    threshold = split_z_for(n_usable, split_z) - shift
    combined = self_similarity is not None and split_z is None and bool(np.isfinite(self_similarity))
    similarity = float(self_similarity) if combined and self_similarity is not None else 0.0
    first_threshold = one_use_reference(n_usable)[-1] - shift if combined else threshold
    min_support = max(1, int(min_support))
    if _too_few_to_split(n_usable, min_support):
        return SenseEvidence(None, first_threshold, np.zeros(n, dtype=np.int64))
    # Many small eigen-decompositions: one BLAS thread each (threaded BLAS on 64 x 64
    # matrices on busy cores was 36x slower, SENSE_EVIDENCE.md)
    with one_blas_thread():
        labels, polysemy = _evidence_labels(
            rows,
            usable,
            threshold,
            resplit_z,
            max_senses,
            min_support,
            n_components,
            n_null,
            seed,
            first=(lambda z: combined_polysemy(similarity, z, feature_spread(rows[usable]), n_usable))
            if combined
            else None,
            first_threshold=first_threshold,
        )
    return SenseEvidence(polysemy, first_threshold, labels)


def _evidence_labels(
    rows: np.ndarray,
    usable: np.ndarray,
    threshold: float,
    resplit_z: Optional[float],
    max_senses: int,
    min_support: int,
    n_components: int,
    n_null: int,
    seed: int,
    first: Optional[Callable[[Optional[float]], float]] = None,
    first_threshold: Optional[float] = None,
) -> Tuple[np.ndarray, float]:
    """(labels (n,), corpus_polysemy) of ``corpus_evidence`` (enough usable rows); ``first``
    maps the root's split z (None: no measurable spread) to the corpus_polysemy the first
    split is decided on (against ``first_threshold``), None: the z itself (``NO_SPREAD_Z``
    for None) against ``threshold``. A group without measurable spread is never split."""
    n = len(rows)
    kept = np.flatnonzero(usable)
    settings = dict(n_components=n_components, n_null=n_null, seed=seed)
    split_z, root_group = split_evidence(rows[kept], **settings)
    if first is not None and first_threshold is not None:
        root_z = first(split_z)
        threshold_at_root = first_threshold
    else:
        root_z = reported_split_z(split_z)
        threshold_at_root = threshold
    groups: List[np.ndarray] = [kept]
    # candidates: (z, group mask) by position in groups; the root's is known (none
    # without measurable spread: nothing to split)
    candidates = {0: (root_z, root_group)} if split_z is not None else {}
    while len(groups) < max_senses and candidates:
        best = max(candidates, key=lambda g: candidates[g][0])
        z, mask = candidates.pop(best)
        members = groups[best]
        needed = (
            threshold_at_root if len(groups) == 1 else threshold if resplit_z is None else max(threshold, resplit_z)
        )
        if z <= needed or min(mask.sum(), (~mask).sum()) < min_support:
            if best == 0 and len(groups) == 1:
                break
            continue
        groups[best], new = members[~mask], members[mask]
        groups.append(new)
        for position in (best, len(groups) - 1):
            if len(groups[position]) >= 2 * min_support:
                part_z, part_mask = split_evidence(rows[groups[position]], **settings)
                if part_z is not None:
                    candidates[position] = (part_z, part_mask)
    groups = nearest_centroid_groups(rows, groups, min_support)
    labels = np.zeros(n, dtype=np.int64)
    order = sorted(range(len(groups)), key=lambda g: (-len(groups[g]), int(groups[g].min())))
    for label, position in enumerate(order):
        labels[groups[position]] = label
    return labels, round(root_z, 6)


def nearest_centroid_groups(
    rows: np.ndarray, groups: Sequence[np.ndarray], min_support: int, rounds: int = REFINE_ROUNDS
) -> List[np.ndarray]:
    """``groups`` (row indices into unit ``rows``) after moving every row to the group of
    its nearest unit centroid, as a token is given its sense, and again until no row moves
    (spherical k-means from the split's groups, at most ``rounds`` rounds): the split's
    borders, drawn one bisection at a time, can leave a row nearer another group's
    centroid. A round that would leave a group with fewer than ``min_support`` rows is
    not taken."""
    if len(groups) < 2:
        return list(groups)
    members = np.concatenate(groups)
    member_rows = finite_or_zero(rows[members])
    labels = np.repeat(np.arange(len(groups)), [len(group) for group in groups])
    for _ in range(rounds):
        centroids = normalise_rows(sums_by_label(member_rows, labels, len(groups)))
        nearest = np.argmax(member_rows @ centroids.T, axis=1)
        if np.array_equal(nearest, labels) or np.bincount(nearest, minlength=len(groups)).min() < min_support:
            break
        labels = nearest
    return [np.sort(members[labels == group]) for group in range(len(groups))]


def corpus_polysemy_of(
    rows: np.ndarray,
    *,
    min_support: int,
    self_similarity: Optional[float] = None,
) -> Optional[float]:
    """``corpus_evidence(rows, min_support=min_support, self_similarity=self_similarity)
    .corpus_polysemy`` (bitwise) without the further splits that function makes for its
    senses, which the spread and probe split rules do not use: the evidence for splitting
    the usable rows in two, None with fewer than ``max(2 * min_support, 3)`` of them. One
    BLAS thread, as there."""
    rows, usable = _rows_and_usable(rows)
    if _too_few_to_split(int(usable.sum()), min_support):
        return None
    with one_blas_thread():
        split_z = split_evidence(rows[np.flatnonzero(usable)], n_components=N_COMPONENTS, n_null=N_NULL, seed=SEED)[0]
    if self_similarity is not None and np.isfinite(self_similarity):
        n_usable = int(usable.sum())
        return round(combined_polysemy(float(self_similarity), split_z, feature_spread(rows[usable]), n_usable), 6)
    return round(reported_split_z(split_z), 6)


def sense_margins(rows: np.ndarray, centroids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(nearest sense (n,), cosine margin over the runner-up (n,), in [0, 2]) of unit
    ``rows`` (n, d) against unit ``centroids`` (k, d); margin 2.0 with one sense."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    centroids = np.atleast_2d(np.asarray(centroids, dtype=np.float64))
    if len(centroids) <= 1:
        return np.zeros(len(rows), dtype=np.int64), np.full(len(rows), 2.0)
    similarity = np.nan_to_num(rows @ centroids.T, nan=-1.0)
    nearest = np.argmax(similarity, axis=1)
    top_two = -np.partition(-similarity, 1, axis=1)[:, :2]
    return nearest.astype(np.int64), np.clip(top_two[:, 0] - top_two[:, 1], 0.0, 2.0)


def margin_scale(rows: np.ndarray, centroids: np.ndarray) -> float:
    """A word's typical margin: the median margin of its own sampled rows (floored at
    1e-3); 1.0 with one sense or no rows."""
    if len(np.atleast_2d(centroids)) <= 1 or len(rows) == 0:
        return 1.0
    usable = usable_rows(np.atleast_2d(rows))
    if not usable.any():
        return 1.0
    return float(max(np.median(sense_margins(np.atleast_2d(rows)[usable], centroids)[1]), 1e-3))


def sense_scores(rows: np.ndarray, centroids: np.ndarray, scale: float) -> np.ndarray:
    """Confidence (n,) in [0, 1] that each row belongs to its nearest sense rather than
    the runner-up: 1 - 2 ** (-margin / ``scale``), with ``scale`` the word's
    ``margin_scale``. 0.0: on the boundary between two senses; 0.5: as clear as the
    median sampled occurrence of the word; 0.75: twice that margin. 1.0 for every row of
    a word with one sense (nothing to confuse it with); 0.0 for an unusable (zero) row
    of a word with several."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    if len(np.atleast_2d(centroids)) <= 1:
        return np.ones(len(rows))
    margins = sense_margins(rows, centroids)[1]
    scores = 1.0 - np.exp2(-margins / max(float(scale), 1e-3))
    scores[~usable_rows(rows)] = 0.0
    return np.clip(scores, 0.0, 1.0)


def induce_senses_by_evidence(
    unit_rows: np.ndarray,
    *,
    cluster_rows: Optional[np.ndarray] = None,
    split_z: Optional[float] = None,
    prior_shift: float = 0.0,
    resplit_z: Optional[float] = RESPLIT_Z,
    max_senses: int = MAX_SENSES,
    min_support: int = MIN_SUPPORT,
    self_similarity: Optional[float] = None,
    independent: Optional[np.ndarray] = None,
) -> Tuple[SenseModel, SenseEvidence]:
    """``ops.senses.induce_senses`` decided by ``corpus_evidence``: the senses of one type
    from its unit rows (n, d) in the sense space, judged and clustered on ``cluster_rows``
    (n, d'; e.g. ``sense_features``, token joined to context; None: ``unit_rows``). The
    SenseModel's centroids are unit means of ``cluster_rows`` per sense, largest sense
    first; its ``spread`` that of the usable ``unit_rows`` (``self_similarity``: see
    ``corpus_evidence``, of the ``independent`` rows). ``independent`` (n,) bool or None
    (all): the rows that are independent evidence (one per passage); the evidence and the
    centroids are theirs, every other row joins its nearest sense and counts in the
    shares. An empty input: zero senses."""
    units = np.asarray(unit_rows, dtype=np.float64)
    units = units.reshape(len(units), -1) if units.size else units.reshape(len(units), 0)
    clustered = units if cluster_rows is None else np.asarray(cluster_rows, dtype=np.float64)
    clustered = clustered.reshape(len(units), -1) if clustered.size else clustered.reshape(len(units), 0)
    judged = np.ones(len(units), dtype=bool) if independent is None else np.asarray(independent, dtype=bool)
    if judged.shape != (len(units),):
        requirement = f"one boolean per row, shape ({len(units)},)"
        raise CtxvecError(Errors.E610.format(setting="independent", requirement=requirement, value=judged.shape))
    judged = judged if judged.any() else np.ones(len(units), dtype=bool)
    evidence = corpus_evidence(
        clustered[judged],
        self_similarity=self_similarity,
        split_z=split_z,
        prior_shift=prior_shift,
        resplit_z=resplit_z,
        max_senses=max_senses,
        min_support=min_support,
    )
    k = evidence.n_senses
    if k == 0:
        return SenseModel(np.zeros(len(units), dtype=np.int64), np.zeros((0, clustered.shape[1])), np.zeros(0), 0.0), (
            SenseEvidence(evidence.corpus_polysemy, evidence.threshold, np.zeros(len(units), dtype=np.int64))
        )
    centroids = normalise_rows(sums_by_label(finite_or_zero(clustered[judged]), evidence.labels, k))
    labels = np.zeros(len(units), dtype=np.int64)
    labels[judged] = evidence.labels
    if not judged.all():
        labels[~judged] = np.argmax(finite_or_zero(clustered[~judged]) @ centroids.T, axis=1)
        with_vector = usable_rows(clustered)
        order = np.argsort(-np.bincount(labels[with_vector], minlength=k), kind="stable")  # largest sense first again
        labels, centroids = np.argsort(order)[labels], centroids[order]
        labels[~with_vector] = 0  # unusable rows join the largest sense, as in corpus_evidence
    counts = np.bincount(labels, minlength=k)
    usable = usable_rows(units)
    model = SenseModel(labels, centroids, counts / counts.sum(), spread(units[usable]))
    return model, SenseEvidence(evidence.corpus_polysemy, evidence.threshold, labels)
