import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from spacy_ctxvec.evaluation.sense_scores import (
    ONE_PER_SENTENCE,
    ONE_SENSE,
    baseline_labels,
    clustering_scores,
    pair_counts,
)

# Lemma 1: gold a a b b, induced 0 0 0 1. Pairs (6): (0,1) same in both; (0,2), (1,2)
# same only in the induction; (2,3) same only in gold; (0,3), (1,3) different in both.
# ARI by hand: sum C(n_ij, 2) = 1, gold rows C(2,2) + C(2,2) = 2, induced columns
# C(3,2) + C(1,2) = 3, expected 2 * 3 / 6 = 1, max (2 + 3) / 2 = 2.5: (1 - 1) / 1.5 = 0.
# Lemma 2: gold x y y, induced 5 7 7: a perfect match (ARI 1), one pair same in both.
GOLD = [["a", "a", "b", "b"], ["x", "y", "y"]]
INDUCED = [[0, 0, 0, 1], [5, 7, 7]]


def test_pair_counts_by_hand():
    assert pair_counts(GOLD[0], INDUCED[0]).tolist() == [1, 2, 1]
    assert pair_counts(GOLD[1], INDUCED[1]).tolist() == [1, 0, 0]
    assert pair_counts(["a"], [0]).tolist() == [0, 0, 0]
    with pytest.raises(ValueError):
        pair_counts(["a", "b"], [0])


def test_four_sentence_example_by_hand():
    one = clustering_scores(GOLD[:1], INDUCED[:1])
    assert one.precision == pytest.approx(1 / 3)
    assert one.recall == pytest.approx(1 / 2)
    assert one.f1 == pytest.approx(2 * 1 / (3 + 2))
    assert one.mean_ari == pytest.approx(0.0, abs=1e-12)
    assert one.mean_ari == pytest.approx(adjusted_rand_score([0, 0, 1, 1], [0, 0, 0, 1]))


def test_micro_average_over_lemmas():
    scores = clustering_scores(GOLD, INDUCED)
    # Pair counts added over lemmas: 2 same in both, 4 induced-same, 3 gold-same.
    assert scores.precision == pytest.approx(2 / 4)
    assert scores.recall == pytest.approx(2 / 3)
    assert scores.f1 == pytest.approx(2 * 2 / (4 + 3))
    assert scores.mean_ari == pytest.approx((0.0 + 1.0) / 2)
    assert (scores.n_lemmas, scores.one_sense_fraction, scores.mean_senses) == (2, 0.0, 2.0)
    # Both lemmas have two gold senses: no monosemous lemma to score.
    assert (scores.polysemous_ari, scores.n_polysemous) == (pytest.approx(0.5), 2)
    assert (scores.monosemous_one_sense, scores.n_monosemous) == (None, 0)


def test_target_measures_are_split_by_the_gold_senses():
    gold = [["a", "a", "b", "b"], ["x", "x", "x"], ["m", "m"], ["y", "z"], ["q", "q", "q"]]
    predicted = [[0, 0, 1, 1], [0, 0, 0], [3, 4], [1, 1], [2, 2, 2]]
    scores = clustering_scores(gold, predicted)
    # ARI per lemma: 1 (perfect), 1 (one gold sense, one induced), 0 (one gold sense split
    # in two), 0 (two gold senses merged), 1 (one gold sense, one induced).
    assert scores.mean_ari == pytest.approx(3 / 5)
    assert (scores.polysemous_ari, scores.n_polysemous) == (pytest.approx(1 / 2), 2)
    assert (scores.monosemous_one_sense, scores.n_monosemous) == (pytest.approx(2 / 3), 3)
    one_sense = clustering_scores(gold, baseline_labels(gold)[ONE_SENSE])
    assert (one_sense.polysemous_ari, one_sense.monosemous_one_sense) == (0.0, 1.0)
    singletons = clustering_scores(gold, baseline_labels(gold)[ONE_PER_SENTENCE])
    # ["y", "z"] as two singletons is a perfect match; ["a", "a", "b", "b"] is not.
    assert (singletons.polysemous_ari, singletons.monosemous_one_sense) == (pytest.approx(1 / 2), 0.0)


def test_baselines_exact():
    labels = baseline_labels(GOLD)
    one_sense = clustering_scores(GOLD, labels[ONE_SENSE])
    # Every pair is put in one sense: 6 + 3 pairs, of which 2 + 1 are gold-same.
    assert one_sense.precision == pytest.approx(3 / 9)
    assert one_sense.recall == 1.0
    assert one_sense.f1 == pytest.approx(2 * 3 / (9 + 3))
    assert one_sense.mean_ari == 0.0
    assert (one_sense.one_sense_fraction, one_sense.mean_senses) == (1.0, 1.0)
    singletons = clustering_scores(GOLD, labels[ONE_PER_SENTENCE])
    assert singletons.precision is None  # no pair put together: undefined, not NaN
    assert (singletons.recall, singletons.f1, singletons.mean_ari) == (0.0, 0.0, 0.0)
    assert (singletons.one_sense_fraction, singletons.mean_senses) == (0.0, 3.5)


def test_labels_compared_for_equality_only_and_never_nan():
    renamed = clustering_scores([["s1", "s1", "s2"]], [["b|1", "b|1", "a|0"]])
    assert (renamed.precision, renamed.recall, renamed.f1, renamed.mean_ari) == (1.0, 1.0, 1.0, 1.0)
    empty = clustering_scores([], [])
    assert empty.n_lemmas == 0 and empty.precision is None  # over no lemma every measure is undefined, not 0.0
    assert all(value is None for name, value in empty.to_dict().items() if not name.startswith("n_"))
    all_one_gold = clustering_scores([["a", "a", "a"]], [[0, 1, 1]])
    assert all_one_gold.precision == 1.0 and all_one_gold.recall == pytest.approx(1 / 3)
    assert np.isfinite(all_one_gold.mean_ari)
