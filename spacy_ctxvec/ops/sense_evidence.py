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

A word splits where ``corpus_polysemy`` exceeds ``split_z_for(n)`` (a dictionary probe may
shift that threshold by at most ``MAX_PRIOR_SHIFT``, see ``probe_prior_shift``: it never
overrides clear corpus evidence).

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
``min_support`` occurrences, and there are fewer than ``max_senses`` groups.
``sense_scores`` gives each occurrence a confidence in [0, 1].

Occurrences without measurable spread (all one point at float16 storage precision, e.g.
one line repeated through a corpus) have no split z (``split_evidence``: None): they never
split, ``combined_polysemy`` is their differing uses alone (very low: their spread is
about 0), and where ``corpus_polysemy`` is the split z itself it is ``NO_SPREAD_Z``.
"""

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors
from .cosine import mean_cosine_between_groups, normalise_rows
from .senses import MAX_SENSES, SenseModel, finite_or_zero, spread, sums_by_label
from .split_significance import N_COMPONENTS, N_NULL, SEED, one_blas_thread, split_evidence

# What SPLIT_Z_TABLE and ONE_USE_TABLE were measured on: all-MiniLM-L6-v2 (the
# embedding_fingerprint of its input embeddings) layer 5 of 6, mean pooling. On other
# vectors their scale shifts (ctxvec_polysemy warns, W033).
TABLES_MODEL = "97d6177f612cc2be"
TABLES_VECTORS = "layer 5 of 6, pooled by pool_mean"
# Tuned on the md5-even pseudo-words of benchmarks/quality (SENSE_EVIDENCE.md).
# (n, split_z): at each n, the larger of two 80th percentiles of corpus_polysemy of
# one-use words (md5-even words only; MiniLM layer 5, context weight 1; SENSE_EVIDENCE.md):
# - pseudo-words of one use (benchmarks/quality/pseudowords.py, two runs pooled: 48 words
#   up to n = 28, 43 at 40, 14-16 at 48-64; 48 and 56 averaged to keep the table monotone);
# - WordNet-monosemous Gutenberg words, 40 lines each (57 words, n = 10, 20, 40; 28
#   interpolated), which score higher from n = 20 on.
# Linear in n in between, constant beyond the ends.
SPLIT_Z_TABLE: Tuple[Tuple[int, float], ...] = (
    (6, -1.95),
    (8, -1.86),
    (10, -2.07),
    (14, -2.05),
    (20, -1.52),
    (28, -1.28),
    (40, -0.92),
    (48, -0.80),
    (56, -0.80),
    (64, -0.22),
)
# (n, self-similarity score mean, standard deviation, split z mean, standard deviation,
# feature spread mean, standard deviation, standard deviation of self-similarity + split z
# (each standardised), threshold of combined_polysemy): at every n, md5-even WordNet-
# monosemous Gutenberg words (their first n lines) in a corpus of their lines, the WordNet
# targets of benchmarks/quality/wordnet_coarse.py and 1,500 WordNet example sentences
# (MiniLM layer 5): up to n = 40, 57 words with 40 lines; from 41, 62 words with 64 lines
# (more frequent words: their self-similarity score is higher, as in a real sample, where
# only frequent words reach 64 rows). Every n has its row because the split z has its own
# offset at each n (its null draws are fixed per n: at n = 9 one-use words score -3.07,
# against -2.03 at 8 and -2.30 at 10; interpolating between 8 and 10 left words seen 9
# times about 2 standard deviations low). The threshold: the 80th percentile of their
# combined_polysemy at n (pooling the sizes within 2 of n was tried and dropped on these
# words: SENSE_EVIDENCE.md). `python benchmarks/quality/wordnet_coarse.py table CACHE`
# (and `--sizes 41,...,64` on the 64-line cache). Constant beyond the ends.
ONE_USE_TABLE: Tuple[Tuple[int, float, float, float, float, float, float, float, float], ...] = (
    (6, 0.1646, 0.0854, -2.0939, 0.1967, 0.5450, 0.0619, 1.4027, 0.7203),
    (7, 0.1650, 0.0809, -2.6939, 0.3700, 0.5435, 0.0565, 1.4556, 1.0264),
    (8, 0.1623, 0.0786, -2.0288, 0.2596, 0.5418, 0.0573, 1.4763, 0.9020),
    (9, 0.1626, 0.0803, -3.0660, 0.6047, 0.5406, 0.0572, 1.5251, 1.0714),
    (10, 0.1639, 0.0800, -2.2980, 0.4305, 0.5416, 0.0561, 1.3259, 1.0702),
    (11, 0.1649, 0.0805, -2.4740, 0.4481, 0.5423, 0.0570, 1.3449, 1.0247),
    (12, 0.1649, 0.0822, -2.3982, 0.4292, 0.5422, 0.0596, 1.3200, 1.3270),
    (13, 0.1668, 0.0850, -2.0156, 0.4609, 0.5426, 0.0603, 1.2374, 1.1218),
    (14, 0.1677, 0.0843, -2.3039, 0.5582, 0.5428, 0.0598, 1.2775, 1.1457),
    (15, 0.1681, 0.0839, -2.4430, 0.6901, 0.5424, 0.0599, 1.3626, 1.1742),
    (16, 0.1688, 0.0838, -1.9449, 0.5808, 0.5423, 0.0598, 1.3713, 1.0943),
    (17, 0.1699, 0.0848, -1.9804, 0.7143, 0.5433, 0.0602, 1.3975, 1.1401),
    (18, 0.1702, 0.0843, -1.9897, 0.7212, 0.5437, 0.0605, 1.4311, 1.2886),
    (19, 0.1704, 0.0842, -1.4860, 0.5181, 0.5436, 0.0611, 1.4605, 1.1845),
    (20, 0.1703, 0.0839, -1.7603, 0.6567, 0.5441, 0.0608, 1.4338, 1.2704),
    (21, 0.1708, 0.0839, -1.9170, 0.7025, 0.5447, 0.0601, 1.3808, 1.1923),
    (22, 0.1708, 0.0841, -1.7840, 0.7795, 0.5447, 0.0600, 1.3808, 1.2168),
    (23, 0.1704, 0.0835, -1.5352, 0.7092, 0.5442, 0.0598, 1.4090, 1.0779),
    (24, 0.1708, 0.0833, -1.8294, 0.8596, 0.5448, 0.0597, 1.4123, 1.0769),
    (25, 0.1703, 0.0833, -1.8890, 0.9510, 0.5442, 0.0596, 1.3923, 1.1473),
    (26, 0.1703, 0.0837, -1.8510, 0.8761, 0.5442, 0.0597, 1.4250, 1.1854),
    (27, 0.1710, 0.0849, -1.7635, 0.9749, 0.5448, 0.0603, 1.4518, 1.1469),
    (28, 0.1716, 0.0851, -1.8110, 0.9754, 0.5451, 0.0601, 1.4272, 1.0988),
    (29, 0.1714, 0.0850, -1.5023, 0.8212, 0.5453, 0.0605, 1.4209, 1.0696),
    (30, 0.1711, 0.0842, -1.6758, 0.9611, 0.5450, 0.0597, 1.4222, 1.0673),
    (31, 0.1725, 0.0856, -1.4186, 0.8545, 0.5459, 0.0609, 1.4153, 1.0685),
    (32, 0.1724, 0.0856, -1.2133, 0.7900, 0.5457, 0.0608, 1.3500, 1.0645),
    (33, 0.1730, 0.0860, -1.5315, 1.0553, 0.5460, 0.0612, 1.3942, 1.1137),
    (34, 0.1732, 0.0859, -1.1912, 0.8587, 0.5456, 0.0609, 1.3936, 1.1353),
    (35, 0.1736, 0.0859, -1.3384, 0.9716, 0.5458, 0.0610, 1.3835, 1.1506),
    (36, 0.1732, 0.0856, -1.3651, 0.9754, 0.5457, 0.0608, 1.3737, 1.1614),
    (37, 0.1731, 0.0855, -1.4628, 1.0917, 0.5457, 0.0605, 1.3841, 1.1809),
    (38, 0.1732, 0.0861, -1.1022, 0.9308, 0.5461, 0.0609, 1.3509, 1.1247),
    (39, 0.1732, 0.0857, -1.1090, 0.9981, 0.5460, 0.0606, 1.3416, 1.1249),
    (40, 0.1728, 0.0855, -1.3780, 1.0965, 0.5459, 0.0605, 1.3634, 1.1865),
    (41, 0.1936, 0.0887, -1.2389, 0.8096, 0.5567, 0.0628, 1.4943, 1.1329),
    (42, 0.1936, 0.0886, -1.5636, 1.0594, 0.5567, 0.0627, 1.4843, 1.2287),
    (43, 0.1937, 0.0891, -1.1188, 0.7897, 0.5567, 0.0632, 1.4195, 1.1620),
    (44, 0.1935, 0.0892, -1.2307, 0.8503, 0.5567, 0.0630, 1.3943, 1.2128),
    (45, 0.1937, 0.0897, -1.1517, 0.7916, 0.5568, 0.0632, 1.4608, 1.0785),
    (46, 0.1942, 0.0905, -1.1900, 0.8180, 0.5572, 0.0636, 1.4776, 1.0962),
    (47, 0.1946, 0.0906, -1.0728, 0.8119, 0.5577, 0.0634, 1.4331, 1.2518),
    (48, 0.1948, 0.0909, -0.9502, 0.7243, 0.5579, 0.0637, 1.4090, 1.2302),
    (49, 0.1950, 0.0910, -1.1019, 0.8020, 0.5577, 0.0641, 1.4220, 1.2673),
    (50, 0.1950, 0.0908, -0.9112, 0.7836, 0.5579, 0.0638, 1.4349, 1.2197),
    (51, 0.1949, 0.0908, -0.9896, 0.7994, 0.5579, 0.0639, 1.4268, 1.2248),
    (52, 0.1949, 0.0908, -1.0428, 0.9176, 0.5580, 0.0639, 1.4097, 1.2262),
    (53, 0.1948, 0.0909, -1.0025, 0.8653, 0.5579, 0.0638, 1.4186, 1.2777),
    (54, 0.1947, 0.0908, -0.9459, 0.9578, 0.5579, 0.0636, 1.4373, 1.2252),
    (55, 0.1950, 0.0911, -0.9444, 0.9666, 0.5579, 0.0638, 1.4136, 1.2414),
    (56, 0.1949, 0.0912, -1.0259, 0.9252, 0.5578, 0.0638, 1.4087, 1.2389),
    (57, 0.1949, 0.0916, -0.8016, 0.9019, 0.5579, 0.0641, 1.4125, 1.1789),
    (58, 0.1951, 0.0919, -0.9173, 1.0334, 0.5579, 0.0643, 1.4365, 1.1130),
    (59, 0.1950, 0.0917, -0.8197, 0.9722, 0.5579, 0.0641, 1.4324, 1.1326),
    (60, 0.1950, 0.0916, -1.2121, 1.0995, 0.5577, 0.0642, 1.4499, 1.1466),
    (61, 0.1950, 0.0917, -0.8538, 0.9914, 0.5576, 0.0642, 1.4326, 1.1794),
    (62, 0.1950, 0.0918, -0.9668, 1.0201, 0.5576, 0.0643, 1.4324, 1.1318),
    (63, 0.1954, 0.0920, -1.0400, 1.1434, 0.5577, 0.0646, 1.4583, 1.1035),
    (64, 0.1953, 0.0920, -0.7530, 0.8467, 0.5576, 0.0647, 1.4533, 1.1857),
)
RESPLIT_Z: Optional[float] = 0.0  # evidence needed to split a group again (None: as for the first split)
MIN_SUPPORT = 3  # occurrences a sense needs at least
MAX_PRIOR_SHIFT = 1.0  # most a prior (e.g. the polysemy probe) may move split_z, either way
# corpus_polysemy on the split z scale (split_z given, or no self_similarity) of rows
# without measurable spread: finite (it is stored as JSON) and below every threshold of
# SPLIT_Z_TABLE and every one-use mean of ONE_USE_TABLE by more than 5 of their sds.
NO_SPREAD_Z = -10.0
_EPS = 1e-12


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
    ``Lexicon.anisotropy_baseline`` for rows that are not in a lexicon; 0.0 without such pairs."""
    rows = np.asarray(raw_rows, dtype=np.float64)
    sums = np.stack([normalise_rows(rows[list(group)]).sum(axis=0) for group in groups])
    return mean_cosine_between_groups(sums, np.array([len(group) for group in groups]))


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


def _too_few_to_split(n_usable: int, min_support: int) -> bool:
    """Fewer usable rows than two senses of ``min_support`` (and 3) need: no evidence."""
    return n_usable < max(2 * max(1, int(min_support)), 3)


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
        root_z = NO_SPREAD_Z if split_z is None else split_z
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
    labels = np.zeros(n, dtype=np.int64)
    order = sorted(range(len(groups)), key=lambda g: (-len(groups[g]), int(groups[g].min())))
    for label, position in enumerate(order):
        labels[groups[position]] = label
    return labels, round(root_z, 6)


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
    return round(NO_SPREAD_Z if split_z is None else split_z, 6)


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
) -> Tuple[SenseModel, SenseEvidence]:
    """``ops.senses.induce_senses`` decided by ``corpus_evidence``: the senses of one type
    from its unit rows (n, d) in the sense space, judged and clustered on ``cluster_rows``
    (n, d'; e.g. ``sense_features``, token joined to context; None: ``unit_rows``). The
    SenseModel's centroids are unit means of ``cluster_rows`` per sense, largest sense
    first; its ``spread`` that of the usable ``unit_rows`` (``self_similarity``: see
    ``corpus_evidence``). An empty input: zero senses."""
    units = np.asarray(unit_rows, dtype=np.float64)
    units = units.reshape(len(units), -1) if units.size else units.reshape(len(units), 0)
    clustered = units if cluster_rows is None else np.asarray(cluster_rows, dtype=np.float64).reshape(len(units), -1)
    evidence = corpus_evidence(
        clustered,
        self_similarity=self_similarity,
        split_z=split_z,
        prior_shift=prior_shift,
        resplit_z=resplit_z,
        max_senses=max_senses,
        min_support=min_support,
    )
    k = evidence.n_senses
    if k == 0:
        return SenseModel(evidence.labels, np.zeros((0, clustered.shape[1])), np.zeros(0), 0.0), evidence
    sums = sums_by_label(finite_or_zero(clustered), evidence.labels, k)
    counts = np.bincount(evidence.labels, minlength=k)
    usable = usable_rows(units)
    model = SenseModel(evidence.labels, normalise_rows(sums), counts / counts.sum(), spread(units[usable]))
    return model, evidence
