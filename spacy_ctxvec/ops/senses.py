"""Word sense induction from a type's sample of contextual vectors (numpy, scipy and
scikit-learn; no spaCy). Deterministic, never NaN.

1. ``fit_sense_space``: corpus mean and the top principal directions of corpus token
   vectors ("all-but-the-top", Mu & Viswanath 2018), which carry frequency and position
   rather than meaning.
2. ``to_sense_space``: centre, remove those directions, scale rows to unit length.
3. ``sense_features``: each occurrence's context (``ops.context_windows``: the mean
   contextual vector of the tokens up to ``CONTEXT_WINDOW`` either side), taken into its
   own sense space and joined to the token's unit row with weight ``CONTEXT_WEIGHT``:
   the space senses are clustered and assigned in (the split decision uses the token's
   own row only: contexts vary for every word, whatever its senses).
4. ``induce_senses``: one sense unless the type has at least ``min_tokens`` occurrences
   whose spread (mean pairwise cosine distance) exceeds the split threshold for their
   number n (a table of (n, threshold): by default calibrated on the corpus itself by
   ``calibrate_split_thresholds``, the ``SPLIT_PERCENTILE``-th percentile of the spreads
   of the types with about n occurrences, so that most monosemous words keep one sense
   whatever the model or layer; ``SPLIT_THRESHOLDS``, measured for all-MiniLM-L6-v2
   layer 5 on Gutenberg, fills sizes with too few types); then
   average-linkage clustering on cosine distance (scipy), cut at ``cut_distance``,
   2..``max_senses`` clusters; clusters holding less than ``min_share`` of the
   occurrences or fewer than ``min_support`` are dissolved into the nearest remaining
   one; where fewer than two remain, the tree is cut into fewer clusters until two do
   (none: one sense).
5. ``assign_senses``: a new occurrence goes to the nearest sense centroid (cosine).

The defaults were chosen on WordNet example sentences and monosemous words (benchmarks/quality/SENSES.md).
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors
from .cosine import normalise_rows

# (n, threshold): 75th percentile of the spread of monosemous words (WordNet: one sense;
# the tune half by md5 parity) of build-lexicon's own whole-Gutenberg lexicon (documents =
# lines, layer 5 of all-MiniLM-L6-v2, build-lexicon's defaults), subsampled to n occurrences,
# in that lexicon's sense space; linear in between, constant beyond the ends
# (benchmarks/quality/split_thresholds.py). The spread of monosemous words grows with n (frequent
# words occur in more varied contexts), so one fixed threshold would split most frequent
# monosemous words (benchmarks/quality/SENSES.md).
SPLIT_THRESHOLDS: Tuple[Tuple[int, float], ...] = (
    (4, 0.1684),
    (5, 0.1679),
    (6, 0.1692),
    (8, 0.1709),
    (10, 0.1745),
    (12, 0.1780),
    (16, 0.1842),
    (20, 0.1895),
    (24, 0.1925),
    (32, 0.1968),
    (40, 0.2071),
    (48, 0.2086),
    (64, 0.2482),
)
# A type splits when its spread is in the top (100 - SPLIT_PERCENTILE)% of the types with about as
# many sampled occurrences (calibrate_split_thresholds): spreads grow with frequency, and their scale
# differs between models and layers. 80: the smallest of 78, 80, 82, 85 keeping 75% of md5-even
# monosemous words whole (benchmarks/quality/SENSES.md, "Held-out re-choice"; it was 82).
SPLIT_PERCENTILE = 80.0
CALIBRATION_SIZES: Tuple[int, ...] = tuple(n for n, _ in SPLIT_THRESHOLDS)
MIN_CALIBRATION_TYPES = 100  # types in a size band needed to calibrate its threshold
CUT_DISTANCE = 0.10
MAX_SENSES = 7  # best of 6 / 7 / 8 on the tune half of 433 WordNet lemmas x 10 sentences (SENSES.md)
MIN_TOKENS = 4
MIN_SHARE = 0.10
# Occurrences a sense needs at least (issue 21: on a 150-line corpus "play" got 6 senses
# from 7 occurrences); smaller clusters are dissolved like those under min_share.
MIN_SUPPORT = 3
N_REMOVED_DIRECTIONS = 3
# Context features (benchmarks/quality/SENSES.md, "Clustering with the context"): same-sense
# AUC on WiC train+dev 0.628 -> 0.684 at layer 5 with the context at weight 1 (the
# context alone: 0.689); weights 1.4-2 score 0.690-0.692 on WiC but lower on WordNet.
CONTEXT_WINDOW = 5  # tokens either side whose mean vector is an occurrence's context
CONTEXT_WEIGHT = 1.0  # weight of the unit context row beside the unit token row
# Occurrences kept per word type in the lexicon's sample, which senses are induced from
# (build-lexicon --sample-size; sample_size in [initialize.components.ctxvec_polysemy]).
# About 817 bytes per row at width 384; on the whole Gutenberg corpus (1.28M tokens) K=64
# with the default floor (min_count 5) keeps 267,555 rows = 208 MiB, K=16 109 MiB, K=128
# 264 MiB (benchmarks/quality/SENSES.md, benchmarks/speed/sample_memory.py).
DEFAULT_SAMPLE_SIZE = 64


@dataclass(frozen=True)
class SenseInductionSettings:
    """How senses are induced (``induce_senses``, ``sense_induction.induce_inventory``);
    each setting's one default is here. Out-of-range values are E603.

    - ``split_threshold``: None: a threshold per sample size (see ``split_percentile``);
      a number: that cosine-distance spread for every size;
    - ``split_percentile``: the percentile of the corpus's own spreads by sample size
      (``calibrate_split_thresholds``); None: ``SPLIT_THRESHOLDS`` (MiniLM layer 5);
    - ``cut_distance``, ``max_senses``, ``min_share``: the average-linkage cut, the most
      senses, the smallest share of a sense; ``min_tokens``: fewer rows never split;
    - ``min_support``: the fewest occurrences of a sense (smaller clusters are dissolved
      into the nearest remaining one, like those under ``min_share``);
    - ``n_directions``: top principal directions removed from the sense space;
    - ``context_weight``: weight of the context row beside the token row (0: token alone);
    - ``split_by_probe``: a polysemy probe that fits the lexicon decides which types split;
    - ``split_by_evidence`` (the default): this corpus's evidence decides which types split
      and into how many senses (``ops.sense_evidence.corpus_evidence`` with the type's
      self-similarity, at least ``min_support`` occurrences per sense); overrides
      ``split_by_probe``. On held-out real words it gave more senses where a word's uses
      differ, higher ARI against WordNet senses and more one-use words kept whole at
      20-64 occurrences than the probe rule (benchmarks/quality/SENSE_EVIDENCE.md, "Real
      words"); false: the probe (or the spread test) decides;
    - ``words_only`` (the default): types without a letter (punctuation, numbers,
      symbols) get no senses (``is_word``); false: every type seen ``min_count`` times.
    """

    split_threshold: Optional[float] = None
    split_percentile: Optional[float] = SPLIT_PERCENTILE
    cut_distance: float = CUT_DISTANCE
    max_senses: int = MAX_SENSES
    min_tokens: int = MIN_TOKENS
    min_share: float = MIN_SHARE
    min_support: int = MIN_SUPPORT
    n_directions: int = N_REMOVED_DIRECTIONS
    context_weight: float = CONTEXT_WEIGHT
    split_by_probe: bool = True
    split_by_evidence: bool = True
    words_only: bool = True

    def __post_init__(self) -> None:
        for name, requirement, ok in _SETTING_RULES:
            value = getattr(self, name)
            if not ok(value):
                raise CtxvecError(Errors.E603.format(setting=name, requirement=requirement, value=value))
            if isinstance(value, (np.integer, np.floating)):  # a Python number, as config and JSON save it
                object.__setattr__(self, name, value.item())

    def replace(self, **changes: Any) -> "SenseInductionSettings":
        """A copy with ``changes`` (validated; E608 for a name that is not a setting)."""
        names = [field.name for field in dataclasses.fields(self)]
        if set(changes) - set(names):
            unknown = ", ".join(sorted(set(changes) - set(names)))
            raise CtxvecError(Errors.E608.format(names=unknown, choices=", ".join(names)))
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "SenseInductionSettings":
        """The settings named in ``record`` (e.g. a SenseInventory's ``settings``, which
        records more), defaults for the others; a record's ``split_rule`` (an inventory's
        record, which has no ``split_by_evidence``) says whether the evidence decided."""
        named = {field.name: record[field.name] for field in dataclasses.fields(cls) if field.name in record}
        if "split_by_evidence" not in named and record.get("split_rule") is not None:
            named["split_by_evidence"] = record["split_rule"] == "evidence"
        return cls(**named)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value))


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_word(key: str) -> bool:
    """Whether a type may get senses under ``words_only``: it holds a letter ("mr.", "1st")."""
    return any(character.isalpha() for character in key)


def check_min_count(min_count: Any) -> None:
    """E603 unless ``min_count`` (the fewest occurrences of a type with senses) is an integer >= 1."""
    if not _is_int(min_count) or min_count < 1:
        raise CtxvecError(Errors.E603.format(setting="min_count", requirement="an integer >= 1", value=min_count))


_SETTING_RULES = (
    (
        "split_threshold",
        "null (calibrated by sample size) or a number in [0, 2] (cosine distance)",
        lambda v: v is None or (_is_number(v) and 0.0 <= v <= 2.0),
    ),
    (
        "split_percentile",
        "null (the thresholds calibrated for all-MiniLM-L6-v2 layer 5) or a percentile in (0, 100)",
        lambda v: v is None or (_is_number(v) and 0.0 < v < 100.0),
    ),
    ("cut_distance", "a number in (0, 2] (cosine distance)", lambda v: _is_number(v) and 0.0 < v <= 2.0),
    ("max_senses", "an integer >= 2", lambda v: _is_int(v) and v >= 2),
    ("min_tokens", "an integer >= 3", lambda v: _is_int(v) and v >= 3),
    ("min_share", "a number in [0, 0.5]", lambda v: _is_number(v) and 0.0 <= v <= 0.5),
    ("min_support", "an integer >= 1 (occurrences per sense)", lambda v: _is_int(v) and v >= 1),
    ("n_directions", "an integer >= 0", lambda v: _is_int(v) and v >= 0),
    (
        "context_weight",
        "a number in [0, 10] (0: cluster on the token vectors alone)",
        lambda v: _is_number(v) and 0.0 <= v <= 10.0,
    ),
    ("split_by_probe", "true or false", lambda v: isinstance(v, bool)),
    ("split_by_evidence", "true or false", lambda v: isinstance(v, bool)),
    ("words_only", "true or false", lambda v: isinstance(v, bool)),
)


@dataclass(frozen=True)
class SenseSpace:
    """Where senses are induced: centre by ``mean`` (d,), remove ``directions`` (m, d)."""

    mean: np.ndarray
    directions: np.ndarray

    @property
    def width(self) -> int:
        return int(self.mean.shape[0])


@dataclass(frozen=True)
class SenseModel:
    """Senses of one type: a label per occurrence (n,), unit centroids (k, d) in the
    sense space, shares (k,) summing to 1, largest sense first; ``spread`` is the
    mean pairwise cosine distance of the occurrences."""

    labels: np.ndarray
    centroids: np.ndarray
    shares: np.ndarray
    spread: float

    @property
    def n_senses(self) -> int:
        return int(self.centroids.shape[0])


def fit_sense_space(
    vectors: np.ndarray, *, n_directions: int = N_REMOVED_DIRECTIONS, weights: Optional[np.ndarray] = None
) -> SenseSpace:
    """Mean and top ``n_directions`` principal directions of corpus token vectors (n, d);
    ``weights`` (n,) make a sample stand for the corpus (e.g. count / sampled rows of its type)."""
    x = np.asarray(vectors, dtype=np.float64)
    width = x.shape[1] if x.ndim == 2 else 0
    finite = np.isfinite(x).all(axis=1) if len(x) else np.zeros(0, dtype=bool)
    x = x[finite]
    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=np.float64)[finite]
    if len(x) == 0 or w.sum() <= 0:
        return SenseSpace(np.zeros(width), np.zeros((0, width)))
    w = w / w.sum()
    mean = w @ x
    centred = (x - mean) * np.sqrt(w)[:, None]
    m = int(min(n_directions, len(x) - 1, width)) if len(x) > 1 else 0
    directions = np.linalg.svd(centred, full_matrices=False)[2][:m] if m > 0 else np.zeros((0, width))
    return SenseSpace(mean, directions)


def finite_or_zero(values: np.ndarray) -> np.ndarray:
    """``values`` with NaN and infinities as 0.0: the array itself where all are finite."""
    return values if np.isfinite(values).all() else np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0)


def to_sense_space(vectors: np.ndarray, space: SenseSpace) -> np.ndarray:
    """Rows centred, with the space's directions projected out, at unit length (zero rows stay zero)."""
    y = finite_or_zero(np.asarray(vectors, dtype=np.float64).reshape(-1, space.width) - space.mean)
    if len(space.directions):
        y = y - (y @ space.directions.T) @ space.directions
    return normalise_rows(y)


def spread(unit_rows: np.ndarray) -> float:
    """Mean pairwise cosine distance of unit rows (0.0 for fewer than two)."""
    n = len(unit_rows)
    if n < 2:
        return 0.0
    total = unit_rows.sum(axis=0)
    off_diagonal = float(total @ total - np.einsum("ij,ij->", unit_rows, unit_rows))
    return float(np.clip(1.0 - off_diagonal / (n * (n - 1)), 0.0, 2.0))


def sense_features(
    unit_rows: np.ndarray, context_units: Optional[np.ndarray], weight: float = CONTEXT_WEIGHT
) -> np.ndarray:
    """Unit rows of [token row, ``weight`` x context row] (n, 2d); the token rows
    themselves when ``context_units`` is None or ``weight`` is 0. A token without a
    vector (zero row) stays a zero row."""
    rows = np.asarray(unit_rows, dtype=np.float64)
    if context_units is None or weight == 0:
        return rows
    joined = normalise_rows(np.hstack([rows, weight * np.asarray(context_units, dtype=np.float64).reshape(rows.shape)]))
    joined[np.einsum("ij,ij->i", rows, rows) == 0] = 0.0
    return joined


def voting_rows(unit_rows: np.ndarray) -> np.ndarray:
    """Mask (n,) of the rows that take part in the split decision: unit rows, not the
    zero rows of occurrences without a vector."""
    return np.einsum("ij,ij->i", unit_rows, unit_rows) > 0.25


def split_threshold_for(
    n: int, split_threshold: Optional[float] = None, table: Sequence[Tuple[int, float]] = SPLIT_THRESHOLDS
) -> float:
    """The spread above which ``n`` occurrences are split: ``split_threshold`` when given,
    else ``table`` interpolated linearly in n (constant beyond its ends)."""
    if split_threshold is not None:
        return float(split_threshold)
    sizes, thresholds = zip(*table)
    return float(np.interp(n, sizes, thresholds))


def calibrate_split_thresholds(
    row_counts: np.ndarray,
    spreads: np.ndarray,
    percentile: float = SPLIT_PERCENTILE,
    sizes: Sequence[int] = CALIBRATION_SIZES,
    min_types: int = MIN_CALIBRATION_TYPES,
    fallback: Sequence[Tuple[int, float]] = SPLIT_THRESHOLDS,
) -> Tuple[Tuple[Tuple[int, float], ...], int]:
    """(table of (n, threshold), number of sizes calibrated) from every type's number of
    voting rows ``row_counts`` (T,) and their ``spreads`` (T,). The threshold at n is
    the ``percentile`` of the spreads of the types with n to the next size (exclusive;
    the last size: n or more) rows, i.e. of words about as frequent, when there are at
    least ``min_types`` of them; at the other sizes, the ``fallback`` table scaled to
    agree with the nearest calibrated size. None calibrated: ``fallback`` itself, and 0."""
    row_counts = np.asarray(row_counts, dtype=np.int64).reshape(-1)
    spreads = np.asarray(spreads, dtype=np.float64).reshape(-1)
    bounds = list(sizes[1:]) + [np.iinfo(np.int64).max]
    calibrated = {}
    for n, upper in zip(sizes, bounds):
        band = spreads[(row_counts >= n) & (row_counts < upper) & np.isfinite(spreads)]
        if len(band) >= min_types:
            calibrated[int(n)] = float(np.percentile(band, percentile))
    if not calibrated:
        return tuple((int(n), float(t)) for n, t in fallback), 0
    known = np.array(sorted(calibrated))
    table = []
    for n in sizes:
        if n in calibrated:
            table.append((int(n), round(calibrated[n], 6)))
            continue
        nearest = int(known[np.argmin(np.abs(known - n))])
        scale = calibrated[nearest] / max(split_threshold_for(nearest, table=fallback), 1e-12)
        table.append((int(n), round(float(split_threshold_for(n, table=fallback) * scale), 6)))
    return tuple(table), len(calibrated)


def dissolve_small_clusters(unit_rows: np.ndarray, labels: np.ndarray, min_size: int) -> np.ndarray:
    """Labels after moving the members of clusters smaller than ``min_size`` to the
    nearest (cosine) centroid of the clusters kept; all zeros when at most one is kept."""
    clusters, sizes = np.unique(labels, return_counts=True)
    kept = clusters[sizes >= min_size]
    if len(kept) <= 1:
        return np.zeros(len(labels), dtype=np.int64)
    if len(kept) == len(clusters):
        return labels
    centroids = normalise_rows(np.stack([unit_rows[labels == cluster].sum(axis=0) for cluster in kept]))
    in_kept = np.isin(labels, kept)
    moved = labels.copy()
    moved[~in_kept] = kept[np.argmax(unit_rows[~in_kept] @ centroids.T, axis=1)]
    return moved


def _supported_clusters(tree: np.ndarray, labels: np.ndarray, min_size: int) -> np.ndarray:
    """``labels`` when at least two clusters hold ``min_size`` rows; else the tree cut
    into fewer clusters (one fewer at a time, down to 2) until two do (or 2 is reached):
    a cut into many small clusters (e.g. 5 of 2 rows from 10) does not lose a split that
    a coarser cut of the same tree supports."""
    from scipy.cluster.hierarchy import fcluster  # here: scipy's import costs ~0.5 s at start-up

    k = len(np.unique(labels))
    while k > 2 and int((np.unique(labels, return_counts=True)[1] >= min_size).sum()) < 2:
        k -= 1
        labels = fcluster(tree, t=k, criterion="maxclust")
    return labels


def sums_by_label(rows: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """(k, d) sums of ``rows`` (n, d) by ``labels`` (n,) in 0..k-1: bitwise ``np.add.at``
    (each label's rows added in order, which ``sum`` does not promise), about 30x faster."""
    sums = np.zeros((k, rows.shape[1]))
    for label in range(k):
        members = rows[labels == label]
        if len(members):
            sums[label] += np.add.accumulate(members, axis=0)[-1]
    return sums


def _sense_model(unit_rows: np.ndarray, labels: np.ndarray, row_spread: float) -> SenseModel:
    """Centroids and shares for ``labels``, senses renumbered largest first (ties: first seen)."""
    _, first, inverse, counts = np.unique(labels, return_index=True, return_inverse=True, return_counts=True)
    order = np.lexsort((first, -counts))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    labels = rank[inverse]
    sums = sums_by_label(unit_rows, labels, len(order))
    return SenseModel(labels.astype(np.int64), normalise_rows(sums), counts[order] / counts.sum(), row_spread)


def induce_senses(
    unit_rows: np.ndarray,
    settings: SenseInductionSettings = SenseInductionSettings(),
    *,
    thresholds: Sequence[Tuple[int, float]] = SPLIT_THRESHOLDS,
    cluster_rows: Optional[np.ndarray] = None,
    split: Optional[bool] = None,
) -> SenseModel:
    """Senses of one type from its occurrences in the sense space (n, d) unit rows,
    with ``settings`` (split_threshold, cut_distance, max_senses, min_tokens, min_share).

    ``cluster_rows`` (n, d'): the rows to cluster and to take centroids in (e.g.
    ``sense_features``, the token joined to its context); None: ``unit_rows``. The
    split decision uses ``unit_rows``, unless ``split`` gives it (True: split, False:
    one sense; e.g. from a polysemy probe); fewer than ``min_tokens`` rows never split.

    ``split_threshold`` None: the ``thresholds`` table (n, threshold) at the number of
    rows (e.g. from ``calibrate_split_thresholds``); a number: that threshold for every
    n. A sense holds at least ``min_share`` of the rows and at least ``min_support`` rows
    (smaller clusters join the nearest remaining one; where fewer than two clusters are
    that large, the tree is cut coarser until two are, see ``_supported_clusters``). Zero rows
    take no part in the decision and join the largest sense. An empty input gives zero
    senses.
    """
    split_threshold, cut_distance, max_senses = settings.split_threshold, settings.cut_distance, settings.max_senses
    min_tokens, min_share = settings.min_tokens, settings.min_share
    rows = np.asarray(unit_rows, dtype=np.float64)
    if rows.ndim != 2:
        rows = rows.reshape(len(rows), -1) if rows.size else rows.reshape(0, 0)
    n = len(rows)
    if n == 0:
        return SenseModel(np.zeros(0, dtype=np.int64), np.zeros((0, rows.shape[1])), np.zeros(0), 0.0)
    nonzero = voting_rows(rows)
    voting = rows[nonzero]
    row_spread = spread(voting)
    labels = np.zeros(n, dtype=np.int64)
    clustered = rows if cluster_rows is None else np.asarray(cluster_rows, dtype=np.float64).reshape(n, -1)
    spread_says_one = split is None and row_spread <= split_threshold_for(len(voting), split_threshold, thresholds)
    if len(voting) < max(min_tokens, 3) or split is False or spread_says_one:
        return _sense_model(clustered, labels, row_spread)
    from scipy.cluster.hierarchy import fcluster, linkage  # here: scipy's import costs ~0.5 s at start-up
    from scipy.spatial.distance import squareform

    voting = clustered[nonzero]
    distances = np.clip(1.0 - voting @ voting.T, 0.0, 2.0)
    np.fill_diagonal(distances, 0.0)
    tree = linkage(squareform(distances, checks=False), method="average")
    voting_labels = fcluster(tree, t=cut_distance, criterion="distance")
    upper = min(max_senses, len(voting) - 1)
    n_clusters = len(np.unique(voting_labels))
    if n_clusters > upper or n_clusters < 2:
        voting_labels = fcluster(tree, t=int(np.clip(n_clusters, 2, upper)), criterion="maxclust")
    voting_labels = np.unique(voting_labels, return_inverse=True)[1]
    min_size = max(1, settings.min_support, int(np.ceil(min_share * len(voting) - 1e-9)))
    voting_labels = _supported_clusters(tree, voting_labels, min_size)
    voting_labels = np.unique(dissolve_small_clusters(voting, voting_labels, min_size), return_inverse=True)[1]
    labels[nonzero] = voting_labels
    labels[~nonzero] = np.bincount(voting_labels).argmax()
    return _sense_model(clustered, labels, row_spread)


def assign_senses(unit_rows: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Nearest centroid (highest cosine) per row; ties go to the larger (lower-numbered)
    sense; everything is sense 0 with at most one centroid."""
    rows = np.atleast_2d(np.asarray(unit_rows, dtype=np.float64))
    if len(centroids) <= 1:
        return np.zeros(len(rows), dtype=np.int64)
    return np.argmax(rows @ np.asarray(centroids, dtype=np.float64).T, axis=1).astype(np.int64)


def sense_entropy(shares: np.ndarray) -> float:
    """Shannon entropy (nats) of sense shares; 0.0 for one sense or none."""
    p = np.asarray(shares, dtype=np.float64)
    p = p[np.isfinite(p) & (p > 0)]
    if p.size <= 1:
        return 0.0
    p = p / p.sum()
    return float(-(p * np.log(p)).sum())
