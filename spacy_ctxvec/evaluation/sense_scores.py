"""Induced senses against gold senses (numpy and scikit-learn, no spaCy).

For every lemma, the sentences' induced labels are compared with the gold sense
labels over all pairs of the lemma's sentences: a pair is "same sense" in the gold
data and/or in the induction. Pairwise precision, recall and F1 add the pair counts
of all lemmas (micro average); the adjusted Rand index (scikit-learn) is averaged
over lemmas. Two baselines bracket every method: one sense per lemma (recall 1) and
one cluster per sentence (precision undefined, recall 0).

The two measures of the sense-induction target are kept apart by the gold labels of
the evaluated sentences: the mean ARI over the lemmas whose sentences carry at least
2 gold senses, and the fraction of the lemmas whose sentences carry one gold sense
that are given one sense. (For a lemma with one gold sense the ARI is 1 or 0, one
sense or not, so the all-lemma mean mixes the two.)
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.cluster import pair_confusion_matrix

ONE_SENSE = "one_sense"
ONE_PER_SENTENCE = "one_per_sentence"


# One lemma's labels, one per sentence: a list or a numpy array.
Labels = Union[Sequence[Any], np.ndarray]


def _codes(labels: Labels) -> np.ndarray:
    return np.unique(np.asarray(list(labels), dtype=object).astype(str), return_inverse=True)[1]


def pair_counts(gold: Labels, predicted: Labels) -> np.ndarray:
    """(same in both, same only in ``predicted``, same only in ``gold``) over the
    unordered pairs of one lemma's sentences, int64."""
    gold_codes, predicted_codes = _codes(gold), _codes(predicted)
    if len(gold_codes) != len(predicted_codes):
        raise ValueError(f"{len(gold_codes)} gold labels but {len(predicted_codes)} predicted labels")
    if len(gold_codes) < 2:
        return np.zeros(3, dtype=np.int64)
    # scikit-learn counts ordered pairs: [[different in both, gold only], [predicted only, same in both]]
    matrix = pair_confusion_matrix(gold_codes, predicted_codes) // 2
    return np.array([matrix[1, 1], matrix[0, 1], matrix[1, 0]], dtype=np.int64)


@dataclass
class ClusteringScores:
    """Pairwise precision/recall/F1 (micro over lemmas), mean ARI per lemma and the
    fraction of lemmas given one sense; ``polysemous_ari`` is the mean ARI over the
    ``n_polysemous`` lemmas with >= 2 gold senses, ``monosemous_one_sense`` the
    fraction of the ``n_monosemous`` lemmas with one gold sense that are given one
    sense. ``precision`` is None when no pair was put in one sense (nothing to be
    precise about), and the two split measures are None when no lemma is of their
    kind; F1 = 2 tp / (2 tp + fp + fn). Over no lemma at all every measure is None (0.0 would
    read as a result)."""

    precision: Optional[float]
    recall: Optional[float]
    f1: Optional[float]
    mean_ari: Optional[float]
    one_sense_fraction: Optional[float]
    mean_senses: Optional[float]
    n_lemmas: int
    polysemous_ari: Optional[float] = None
    n_polysemous: int = 0
    monosemous_one_sense: Optional[float] = None
    n_monosemous: int = 0

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


def clustering_scores(gold: Sequence[Labels], predicted: Sequence[Labels]) -> ClusteringScores:
    """Scores of ``predicted`` label lists against ``gold`` label lists (one list per
    lemma, one label per sentence; labels are compared for equality only)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold lemmas but {len(predicted)} predicted lemmas")
    if not gold:
        return ClusteringScores(None, None, None, None, None, None, 0)
    counts = np.array([pair_counts(g, p) for g, p in zip(gold, predicted)], dtype=np.int64).reshape(-1, 3)
    both, predicted_only, gold_only = (int(v) for v in counts.sum(axis=0))
    predicted_same, gold_same = both + predicted_only, both + gold_only
    precision = both / predicted_same if predicted_same else None
    recall = both / gold_same if gold_same else 0.0
    f1 = 2 * both / (predicted_same + gold_same) if predicted_same + gold_same else 0.0
    aris = np.array([adjusted_rand_score(_codes(g), _codes(p)) for g, p in zip(gold, predicted)], dtype=np.float64)
    n_senses = np.array([len(set(map(str, p))) for p in predicted], dtype=np.float64)
    polysemous = np.array([len(set(map(str, g))) >= 2 for g in gold], dtype=bool)
    return ClusteringScores(
        precision=None if precision is None else float(precision),
        recall=float(recall),
        f1=float(f1),
        mean_ari=float(aris.mean()),
        one_sense_fraction=float(np.mean(n_senses == 1)),
        mean_senses=float(n_senses.mean()),
        n_lemmas=len(gold),
        polysemous_ari=float(aris[polysemous].mean()) if polysemous.any() else None,
        n_polysemous=int(polysemous.sum()),
        monosemous_one_sense=float(np.mean(n_senses[~polysemous] == 1)) if (~polysemous).any() else None,
        n_monosemous=int((~polysemous).sum()),
    )


def baseline_labels(gold: Sequence[Labels]) -> Dict[str, List[np.ndarray]]:
    """The two baselines' labels: one sense per lemma, one cluster per sentence."""
    return {
        ONE_SENSE: [np.zeros(len(g), dtype=np.int64) for g in gold],
        ONE_PER_SENTENCE: [np.arange(len(g), dtype=np.int64) for g in gold],
    }


@dataclass
class SenseReport:
    """``evaluate senses``: scores per method (``induced``: induction on each lemma's
    own sentences; ``assigned``: the pipeline's token._.sense, where its inventory has
    senses for the lemma) beside the baselines, each on the lemmas it covers."""

    n_sentences: int
    n_lemmas: int
    methods: Dict[str, ClusteringScores]
    baselines: Dict[str, ClusteringScores]
    details: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "n_sentences": self.n_sentences,
            "n_lemmas": self.n_lemmas,
            "methods": {name: scores.to_dict() for name, scores in self.methods.items()},
            "baselines": {name: scores.to_dict() for name, scores in self.baselines.items()},
            "details": self.details,
        }
