"""Word similarity (static vectors), SCWS (contextual vectors) and polysemy scores
against human judgements: numbers in, numbers out (pure numpy, no spaCy).

A similarity Spearman is None ("undefined") with fewer than MIN_PAIRS covered pairs or
when one side is constant, never a made-up 0.0."""

from dataclasses import asdict, dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..lexicon.polysemy_probe import sense_counts_for
from ..ops.cosine import rowwise_cosine
from .metrics import partial_spearman, spearman

MIN_PAIRS = 3
# Why a similarity Spearman is undefined (CorrelationReport.undefined).
TOO_FEW_PAIRS, CONSTANT_SCORES, CONSTANT_COSINES = "too_few_pairs", "constant_scores", "constant_cosines"
# Why a polysemy Spearman is undefined (PolysemyReport.undefined), besides TOO_FEW_PAIRS.
CONSTANT_SENSE_COUNTS, CONSTANT_POLYSEMY_SCORES = "constant_sense_counts", "constant_polysemy_scores"


def polysemy_undefined_code(kind: str) -> str:
    """The catalogue code for an undefined polysemy Spearman of this kind
    (PolysemyReport.undefined): E326 one sense count, E327 one score, E321 otherwise."""
    return {CONSTANT_SENSE_COUNTS: "E326", CONSTANT_POLYSEMY_SCORES: "E327"}.get(kind, "E321")


def defined_spearman(x: np.ndarray, y: np.ndarray) -> Optional[float]:
    """Spearman's rho, or None where it is undefined: fewer than MIN_PAIRS pairs, or
    all values of one side equal."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return None if undefined_because(x, y) is not None else spearman(x, y)


def undefined_because(cosines: np.ndarray, scores: np.ndarray) -> Optional[Tuple[str, Optional[float]]]:
    """Why defined_spearman(cosines, scores) is None: (TOO_FEW_PAIRS, None), or
    (CONSTANT_SCORES / CONSTANT_COSINES, the one value); None where it is defined."""
    cosines, scores = np.asarray(cosines, dtype=np.float64), np.asarray(scores, dtype=np.float64)
    if len(cosines) < MIN_PAIRS:
        return TOO_FEW_PAIRS, None
    if np.ptp(scores) == 0:
        return CONSTANT_SCORES, float(scores[0])
    if np.ptp(cosines) == 0:
        return CONSTANT_COSINES, float(cosines[0])
    return None


def polysemy_undefined_because(
    polysemy_scores: np.ndarray, sense_counts: np.ndarray
) -> Optional[Tuple[str, Optional[float]]]:
    """Why the Spearman of ``polysemy_scores`` with (log) ``sense_counts`` is None:
    (TOO_FEW_PAIRS, None), (CONSTANT_SENSE_COUNTS, the one count) or
    (CONSTANT_POLYSEMY_SCORES, the one score); None where it is defined."""
    senses = np.asarray(sense_counts, dtype=np.float64)
    reason = undefined_because(polysemy_scores, np.log(senses))
    if reason is None or reason[0] == TOO_FEW_PAIRS:
        return reason
    if reason[0] == CONSTANT_SCORES:
        return CONSTANT_SENSE_COUNTS, float(senses[0])
    return CONSTANT_POLYSEMY_SCORES, reason[1]


def defined_partial_spearman(x: np.ndarray, y: np.ndarray, control: np.ndarray) -> Optional[float]:
    """partial_spearman of x and y with ``control`` partialled out, or None where the
    plain Spearman of x and y is undefined (see defined_spearman)."""
    if defined_spearman(x, y) is None:
        return None
    return partial_spearman(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64), control)


@dataclass
class CorrelationReport:
    """Spearman's rho over the covered pairs (None: undefined, see defined_spearman;
    ``undefined`` says why, see undefined_because; not in to_dict); coverage = n_covered /
    n_pairs."""

    name: str
    spearman: Optional[float]
    n_pairs: int
    n_covered: int
    details: Dict[str, Optional[float]] = field(default_factory=dict)
    undefined: Optional[Tuple[str, Optional[float]]] = None

    @property
    def coverage(self) -> float:
        return self.n_covered / self.n_pairs if self.n_pairs else 0.0

    def to_dict(self) -> Dict[str, object]:
        result = asdict(self)
        del result["undefined"]
        return {**result, "coverage": self.coverage}


def similarity_report(
    name: str, vectors1: np.ndarray, vectors2: np.ndarray, covered: np.ndarray, scores: np.ndarray
) -> CorrelationReport:
    """Spearman of row cosines with human ``scores``, over rows where ``covered`` and both
    vectors have a direction (a zero vector, W087, has no cosine)."""
    covered = np.asarray(covered, dtype=bool) & vectors1.any(axis=-1) & vectors2.any(axis=-1)
    cosines = rowwise_cosine(vectors1[covered], vectors2[covered])
    return CorrelationReport(
        name=name,
        spearman=defined_spearman(cosines, scores[covered]),
        n_pairs=len(scores),
        n_covered=int(covered.sum()),
        undefined=undefined_because(cosines, scores[covered]),
    )


def layer_similarity_reports(
    name: str,
    views1: np.ndarray,
    views2: np.ndarray,
    view_names: Sequence[str],
    covered: np.ndarray,
    scores: np.ndarray,
) -> Dict[str, Optional[float]]:
    """Spearman per view of (n, n_views, width) arrays, over covered rows (None: undefined)."""
    covered = np.asarray(covered, dtype=bool)
    cosines = rowwise_cosine(views1[covered], views2[covered])  # (n_covered, n_views)
    return {view: defined_spearman(cosines[:, i], scores[covered]) for i, view in enumerate(view_names)}


@dataclass
class PolysemyReport:
    """Spearman of polysemy scores with log sense counts, raw and with log corpus
    frequency partialled out, and the AUC of monosemous (1 sense) against polysemous
    (>= 2) types (None without both), over lexicon types with a valid score and a sense
    count. A Spearman is None (undefined) with fewer than MIN_PAIRS covered types or
    constant scores or sense counts (see defined_spearman; ``undefined`` says why, see
    polysemy_undefined_because; not in to_dict). ``score``: the definition scored;
    ``held_out``: the same on the words a probe was not fitted on, where the probe
    records them."""

    spearman: Optional[float]
    partial_spearman: Optional[float]
    frequency_spearman: Optional[float]  # of log sense counts with log frequency, for reference
    n_types: int
    n_covered: int
    auc: Optional[float] = None
    n_monosemous: int = 0
    score: str = "self_similarity"
    held_out: Optional["PolysemyReport"] = None
    undefined: Optional[Tuple[str, Optional[float]]] = None

    @property
    def coverage(self) -> float:
        return self.n_covered / self.n_types if self.n_types else 0.0

    def to_dict(self, with_held_out: bool = True) -> Dict[str, object]:
        """The fields and coverage; ``held_out`` (with_held_out) is None or the held-out
        half's own dict, which has no ``held_out`` of its own."""
        result: Dict[str, object] = {**asdict(self), "coverage": self.coverage}
        del result["held_out"], result["undefined"]
        if with_held_out:
            result["held_out"] = None if self.held_out is None else self.held_out.to_dict(with_held_out=False)
        return result


def polysemy_report(
    keys: Sequence[str],
    scores: np.ndarray,
    valid: np.ndarray,
    counts: np.ndarray,
    sense_counts: Mapping[str, int],
    *,
    score: str = "self_similarity",
    words: Optional[np.ndarray] = None,
) -> PolysemyReport:
    """``keys``/``scores``/``valid``/``counts`` per lexicon type; a type's sense count is
    that of the same lemma, else of its lowercase form. Types without one are left out,
    and so are those outside the boolean mask ``words`` when given."""
    from sklearn.metrics import roc_auc_score

    senses = sense_counts_for(keys, sense_counts).astype(np.float64)
    covered = np.asarray(valid, dtype=bool) & (senses > 0)
    if words is not None:
        covered &= np.asarray(words, dtype=bool)
    log_senses = np.log(senses[covered])
    log_frequency = np.log(np.asarray(counts, dtype=np.float64)[covered])
    chosen = np.asarray(scores, dtype=np.float64)[covered]
    polysemous = senses[covered] >= 2
    both_classes = 0 < polysemous.sum() < len(polysemous)
    return PolysemyReport(
        spearman=defined_spearman(chosen, log_senses),
        partial_spearman=defined_partial_spearman(chosen, log_senses, log_frequency),
        frequency_spearman=defined_spearman(log_frequency, log_senses),
        n_types=int(np.count_nonzero(valid if words is None else np.asarray(valid, dtype=bool) & words)),
        n_covered=int(covered.sum()),
        auc=float(roc_auc_score(polysemous, chosen)) if both_classes else None,
        n_monosemous=int((~polysemous).sum()),
        score=score,
        undefined=polysemy_undefined_because(chosen, senses[covered]),
    )


def unique_words(*word_lists: Sequence[str]) -> List[str]:
    """Sorted distinct words of all lists."""
    return sorted(set().union(*map(set, word_lists)))


def rows_for(words: Sequence[str], vocabulary: Sequence[str], table: np.ndarray) -> np.ndarray:
    """Rows of ``table`` (one per ``vocabulary`` word) for ``words``, each in ``vocabulary`` (looked up by
    a dict: numpy string arrays are as wide as their longest word, so one 5 MB line took 16 GB)."""
    row_of = {word: row for row, word in enumerate(vocabulary)}
    return table[np.fromiter((row_of[word] for word in words), dtype=np.intp, count=len(words))]
