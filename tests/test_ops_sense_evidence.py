"""Corpus evidence for senses (ops.sense_evidence): split decisions calibrated for n."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.sense_evidence import (
    MAX_PRIOR_SHIFT,
    NO_SPREAD_Z,
    check_evidence_settings,
    combined_polysemy,
    corpus_evidence,
    corpus_polysemy_of,
    feature_spread,
    grouped_anisotropy_baseline,
    induce_senses_by_evidence,
    margin_scale,
    nearest_centroid_groups,
    one_use_reference,
    probe_prior_shift,
    reported_split_z,
    self_similarity_score,
    sense_margins,
    sense_scores,
    split_z_for,
    usable_rows,
)
from spacy_ctxvec.ops.sense_evidence_tables import ONE_USE_TABLE, SPLIT_Z_TABLE


def unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def groups(sizes, width=96, separation=1.0, noise=0.15, seed=0):
    """Unit rows around len(sizes) random directions; (rows, true group)."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.standard_normal((len(sizes), width))) * separation
    truth = np.repeat(np.arange(len(sizes)), sizes)
    rows = centres[truth] + noise * rng.standard_normal((len(truth), width)) / np.sqrt(width) * 4
    return unit(rows), truth


def one_group(n, width=96, seed=0):
    """Unit rows of one group: scattered evenly around a common direction."""
    rng = np.random.default_rng(seed)
    return unit(2.0 + rng.standard_normal((n, width)))


@pytest.mark.parametrize("n", [10, 20, 40, 64])
def test_two_uses_split_in_two_and_one_use_stays_whole(n):
    rows, truth = groups([n // 2, n - n // 2], seed=n)
    two = corpus_evidence(rows)
    one = corpus_evidence(one_group(n, seed=n))
    assert two.n_senses == 2 and two.split
    assert adjusted_rand_score(truth, two.labels) == 1.0
    assert two.corpus_polysemy > split_z_for(n) > one.corpus_polysemy
    assert one.n_senses == 1 and not one.split and (one.labels == 0).all()


def test_the_same_rows_always_give_the_same_evidence():
    rows, _ = groups([12, 12, 12], seed=3)
    first, second = corpus_evidence(rows), corpus_evidence(rows.copy())
    assert first.corpus_polysemy == second.corpus_polysemy
    assert np.array_equal(first.labels, second.labels)


def test_number_of_senses_follows_the_groups_and_max_senses_bounds_it():
    rows, truth = groups([10, 10, 10, 10], separation=1.5, seed=4)
    assert corpus_evidence(rows).n_senses == 4
    assert adjusted_rand_score(truth, corpus_evidence(rows).labels) == 1.0
    assert corpus_evidence(rows, max_senses=3).n_senses == 3
    assert corpus_evidence(rows, max_senses=1).n_senses == 1


@pytest.mark.parametrize("seed", range(8))
def test_every_sense_has_min_support_occurrences(seed):
    # 7 occurrences in 7 directions (the "play: 6 senses for 7" case): never 6 senses
    rows = np.eye(7, 32)[np.random.default_rng(seed).permutation(7)]
    evidence = corpus_evidence(rows)
    assert evidence.n_senses <= 2
    assert np.bincount(evidence.labels).min() >= 3
    mixed, _ = groups([3, 3, 4, 20], seed=seed)
    assert np.bincount(corpus_evidence(mixed, min_support=5).labels).min() >= 5


def test_too_few_rows_give_one_sense_and_no_measure():
    rows, _ = groups([3, 2], separation=2.0)
    evidence = corpus_evidence(rows)
    assert evidence.corpus_polysemy is None and evidence.n_senses == 1
    empty = corpus_evidence(np.zeros((0, 8)))
    assert empty.corpus_polysemy is None and empty.n_senses == 0 and len(empty.labels) == 0


def test_rows_without_a_vector_join_the_largest_sense_and_never_give_nan():
    rows, truth = groups([14, 8], seed=5)
    rows = np.vstack([rows, np.zeros((2, rows.shape[1])), np.full((1, rows.shape[1]), np.nan)])
    evidence = corpus_evidence(rows)
    assert evidence.n_senses == 2 and np.isfinite(evidence.corpus_polysemy)
    assert (evidence.labels[-3:] == 0).all() and np.bincount(evidence.labels[:22])[0] == 14


def test_a_prior_moves_the_threshold_by_at_most_max_prior_shift():
    rows, _ = groups([15, 15], seed=6)
    assert corpus_evidence(rows, prior_shift=100.0).threshold == split_z_for(30) - MAX_PRIOR_SHIFT
    assert corpus_evidence(rows, prior_shift=-100.0).threshold == split_z_for(30) + MAX_PRIOR_SHIFT
    # clear corpus evidence wins over the strongest negative prior; one group over the strongest positive one
    assert corpus_evidence(rows, prior_shift=-100.0).split
    assert not corpus_evidence(one_group(30), prior_shift=100.0).split


def test_probe_prior_shift_is_signed_clipped_and_zero_without_an_estimate():
    assert probe_prior_shift(6.0, 2.0) > 0 > probe_prior_shift(1.0, 2.0)
    assert probe_prior_shift(1e9, 2.0) == MAX_PRIOR_SHIFT and probe_prior_shift(1e-9, 2.0) == -MAX_PRIOR_SHIFT
    assert probe_prior_shift(None, 2.0) == 0.0 == probe_prior_shift(3.0, None) == probe_prior_shift(float("nan"), 2.0)


def test_sense_scores_lie_in_0_1_and_say_how_clearly_a_row_is_in_its_sense():
    centroids = np.eye(2, 4)
    rows = np.vstack([unit(np.array([[1.0, 0.0, 0, 0], [1.0, 0.9, 0, 0], [1.0, 1.0, 0, 0]])), np.zeros((1, 4))])
    nearest, margins = sense_margins(rows, centroids)
    assert nearest[0] == 0 and margins[0] == pytest.approx(1.0) and margins[2] == pytest.approx(0.0)
    scale = margin_scale(rows[:3], centroids)
    scores = sense_scores(rows, centroids, scale)
    assert ((scores >= 0) & (scores <= 1)).all()
    assert scores[0] > scores[1] > scores[2] == 0.0 and scores[3] == 0.0
    assert (sense_scores(rows, centroids[:1], scale) == 1.0).all()


@pytest.mark.parametrize(
    "setting, value",
    [("split_z", float("nan")), ("max_senses", 0), ("min_support", True), ("n_components", 0), ("n_null", 2)],
)
def test_a_setting_out_of_range_is_e610_naming_it(setting, value):
    settings = dict(split_z=None, max_senses=7, min_support=3)
    settings[setting] = value
    with pytest.raises(CtxvecError, match=f"E610.*{setting}"):
        check_evidence_settings(**settings)
    check_evidence_settings(split_z=-1.5, max_senses=7, min_support=3)


def test_a_group_is_split_again_only_on_stronger_evidence_with_resplit_z():
    rows, _ = groups([12, 12, 12], separation=1.5, seed=8)
    assert corpus_evidence(rows).n_senses == 3
    assert corpus_evidence(rows, resplit_z=1e9).n_senses == 2


def test_the_split_threshold_follows_the_sample_size_unless_one_is_given():
    (first_n, first_z), (last_n, last_z) = SPLIT_Z_TABLE[0], SPLIT_Z_TABLE[-1]
    assert split_z_for(1) == first_z and split_z_for(10_000) == last_z == split_z_for(last_n)
    assert split_z_for(first_n, -0.5) == -0.5
    rows, _ = groups([10, 10], seed=9)
    assert corpus_evidence(rows).threshold == split_z_for(20)
    assert corpus_evidence(rows, split_z=1e9).n_senses == 1


def test_induce_senses_by_evidence_gives_a_sense_model_as_induce_senses_does():
    rows, truth = groups([18, 10], seed=10)
    units = rows[:, :48] / np.linalg.norm(rows[:, :48], axis=1, keepdims=True)
    model, evidence = induce_senses_by_evidence(units, cluster_rows=rows)
    assert model.n_senses == evidence.n_senses == 2 and np.array_equal(model.labels, evidence.labels)
    assert adjusted_rand_score(truth, model.labels) == 1.0 and np.bincount(model.labels)[0] == 18
    assert model.shares.tolist() == [18 / 28, 10 / 28]
    assert np.allclose(np.linalg.norm(model.centroids, axis=1), 1.0) and model.centroids.shape == (2, rows.shape[1])
    assert np.argmax(rows @ model.centroids.T, axis=1).tolist() == model.labels.tolist()
    assert 0 < model.spread <= 2
    empty, _ = induce_senses_by_evidence(np.zeros((0, 8)))
    assert empty.n_senses == 0
    empty, _ = induce_senses_by_evidence(np.zeros((0, 8)), cluster_rows=np.zeros((0, 16)))  # was a ValueError
    assert empty.n_senses == 0


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 24),
    width=st.integers(1, 12),
    min_support=st.integers(1, 5),
    max_senses=st.integers(1, 7),
    seed=st.integers(0, 2**16),
)
def test_any_rows_give_finite_evidence_and_well_supported_senses(n, width, min_support, max_senses, seed):
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((n, width)) * rng.choice([0.0, 1.0, 1e-9, 1e9], size=(n, 1))
    rows[rng.random(n) < 0.1] = np.nan
    evidence = corpus_evidence(rows, min_support=min_support, max_senses=max_senses)
    assert evidence.labels.shape == (n,) and evidence.labels.dtype == np.int64
    assert evidence.corpus_polysemy is None or np.isfinite(evidence.corpus_polysemy)
    assert 0 <= evidence.n_senses <= max(max_senses, 1)
    if evidence.n_senses > 1:
        assert np.bincount(evidence.labels[usable_rows(rows)]).min() >= min_support


def test_self_similarity_score_is_the_lexicons_polysemy_score_of_the_same_occurrences():
    rng = np.random.default_rng(11)
    word = 1.0 + rng.standard_normal((9, 24))
    others = rng.standard_normal((40, 24))
    keys = ["word"] * 9 + [f"other{i % 8}" for i in range(40)]
    lexicon = Lexicon.from_occurrences(keys, np.vstack([word, others]))
    scores, valid = lexicon.polysemy_scores(2)
    row = lexicon.keys.index("word")
    assert valid[row]
    expected = scores[row]
    assert self_similarity_score(word, lexicon.anisotropy_baseline()) == pytest.approx(expected, abs=1e-6)
    # zero and non-finite rows take no part; fewer than two usable rows: None
    padded = np.vstack([word, np.zeros((2, 24)), np.full((1, 24), np.nan)])
    assert self_similarity_score(padded, 0.1) == pytest.approx(self_similarity_score(word, 0.1))
    assert self_similarity_score(word[:1], 0.1) is None and self_similarity_score(np.zeros((0, 24))) is None


def test_combined_polysemy_is_the_larger_of_groups_and_differing_uses_in_one_use_deviations():
    for n, s_mean, s_sd, z_mean, z_sd, f_mean, f_sd, summed_sd, threshold in ONE_USE_TABLE:
        assert one_use_reference(n) == pytest.approx((s_mean, s_sd, z_mean, z_sd, f_mean, f_sd, summed_sd, threshold))
        assert combined_polysemy(s_mean, z_mean, f_mean, n) == pytest.approx(0.0, abs=1e-9)
        # groups: self-similarity and split z added, the sum in one-use standard deviations
        assert combined_polysemy(s_mean + s_sd, z_mean + z_sd, f_mean, n) == pytest.approx(2.0 / summed_sd)
        assert combined_polysemy(s_mean, z_mean + 3 * z_sd * summed_sd, f_mean, n) == pytest.approx(3.0)
        # differing uses: the spread of the feature rows
        assert combined_polysemy(s_mean, z_mean, f_mean + 2 * f_sd, n) == pytest.approx(2.0)
        # the larger of the two, whichever it is
        assert combined_polysemy(s_mean, z_mean + z_sd * summed_sd, f_mean + 2 * f_sd, n) == pytest.approx(2.0)
        assert combined_polysemy(s_mean, z_mean + 4 * z_sd * summed_sd, f_mean + 2 * f_sd, n) == pytest.approx(4.0)
        assert 0.0 < threshold < 2.0 and 1.0 < summed_sd < 2.0
    first, last = ONE_USE_TABLE[0], ONE_USE_TABLE[-1]
    assert one_use_reference(2) == one_use_reference(first[0]) and one_use_reference(500) == one_use_reference(last[0])


@pytest.mark.parametrize("seed", range(4))
def test_with_self_similarity_the_corpus_where_uses_differ_gets_more_senses(seed):
    # the same word: two uses in one corpus, one use in another, 20 occurrences each
    mixed, truth = groups([10, 10], separation=1.0, seed=seed)
    single = one_group(20, seed=seed)
    in_mixed = corpus_evidence(mixed, self_similarity=self_similarity_score(mixed))
    in_single = corpus_evidence(single, self_similarity=self_similarity_score(single))
    assert in_mixed.corpus_polysemy > in_mixed.threshold > in_single.corpus_polysemy
    assert in_mixed.threshold == pytest.approx(one_use_reference(20)[-1])
    assert in_mixed.n_senses == 2 > in_single.n_senses == 1
    assert adjusted_rand_score(truth, in_mixed.labels) == 1.0
    # the z alone is the default scale; with the self-similarity it is the combined one
    z = corpus_evidence(mixed).corpus_polysemy
    expected = combined_polysemy(self_similarity_score(mixed), z, feature_spread(mixed), 20)
    assert in_mixed.corpus_polysemy == pytest.approx(expected, abs=1e-5)
    assert corpus_polysemy_of(mixed, min_support=3, self_similarity=self_similarity_score(mixed)) == pytest.approx(
        expected, abs=1e-5
    )


def test_with_self_similarity_senses_keep_min_support_and_few_rows_give_no_measure():
    rows = np.eye(7, 32)
    evidence = corpus_evidence(rows, self_similarity=self_similarity_score(rows))
    assert evidence.n_senses <= 2 and np.bincount(evidence.labels).min() >= 3
    few = corpus_evidence(rows[:5], self_similarity=self_similarity_score(rows[:5]))
    assert few.corpus_polysemy is None and few.n_senses == 1
    # a prior still moves the threshold by at most MAX_PRIOR_SHIFT; a given split_z keeps the z scale
    shifted = corpus_evidence(rows, self_similarity=0.5, prior_shift=100.0)
    assert shifted.threshold == pytest.approx(one_use_reference(7)[-1] - MAX_PRIOR_SHIFT)
    assert corpus_evidence(rows, self_similarity=0.5, split_z=-1.0).threshold == -1.0


def test_induce_senses_by_evidence_passes_the_self_similarity_on():
    rows, _ = groups([12, 12], seed=9)
    score = self_similarity_score(rows)
    model, evidence = induce_senses_by_evidence(rows, self_similarity=score)
    direct = corpus_evidence(rows, self_similarity=score)
    assert evidence.corpus_polysemy == direct.corpus_polysemy != corpus_evidence(rows).corpus_polysemy
    assert np.array_equal(evidence.labels, direct.labels) and np.array_equal(model.labels, direct.labels)
    assert model.n_senses == evidence.n_senses == 2


@pytest.mark.parametrize("min_support", [1, 3, 5])
@pytest.mark.parametrize("n_rows", [0, 2, 5, 6, 9, 10, 40, 64])
def test_corpus_polysemy_is_bitwise_that_of_corpus_evidence(n_rows, min_support):
    """The spread and probe rules store corpus_polysemy_of (lexicon.sense_induction) (no further splits) for the
    corpus_evidence value: the same float or None, also with unusable (zero, NaN) rows."""
    rng = np.random.default_rng(n_rows * 10 + min_support)
    centres = rng.normal(size=(2, 64))
    rows = centres[rng.integers(0, 2, n_rows)] + 0.7 * rng.normal(size=(n_rows, 64))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows[::7] = 0.0
    rows[3::11] = np.nan
    expected = corpus_evidence(rows, min_support=min_support).corpus_polysemy
    assert corpus_polysemy_of(rows, min_support=min_support) == expected
    similarity = self_similarity_score(rows)
    with_similarity = corpus_evidence(rows, min_support=min_support, self_similarity=similarity).corpus_polysemy
    assert corpus_polysemy_of(rows, min_support=min_support, self_similarity=similarity) == with_similarity
    n_usable = int((np.isfinite(rows).all(axis=1) & (np.nan_to_num(rows) != 0).any(axis=1)).sum())
    assert (expected is None) == (n_usable < max(2 * min_support, 3))


def one_point(n, relative=0.0, width=384, seed=0):
    """n occurrences of one unit row (e.g. a word seen only in a long passage repeated through a corpus), each moved
    by ``relative`` noise and stored in float16 as the occurrence sample stores rows."""
    rng = np.random.default_rng(seed)
    row = rng.standard_normal(width)
    rows = np.tile(row / np.linalg.norm(row), (n, 1)) * (1.0 + relative * rng.standard_normal((n, width)))
    return rows.astype(np.float16).astype(np.float64)


@pytest.mark.parametrize("relative", [0.0, 1e-5])
@pytest.mark.parametrize("n", [6, 8, 12, 20, 40, 64])
@pytest.mark.parametrize("seed", range(3))
def test_occurrences_without_measurable_spread_keep_one_sense_and_low_corpus_polysemy(n, relative, seed):
    """Before: identical rows scored corpus_polysemy 6.2 at n = 6 and 2.7 at n = 12 (split z
    0.0 against one-use words' -2), and rows differing only at float16 precision split in
    up to 4 senses at n <= 40 and up to 7 (MAX_SENSES) at n = 64 (the scale-free z saw rounding noise as groups)."""
    rows = one_point(n, relative, seed=seed)
    similarity = self_similarity_score(rows)
    combined = corpus_evidence(rows, self_similarity=similarity)
    # groups give no evidence: differing uses alone, which is about -9 (spread about 0)
    expected = combined_polysemy(0.0, None, feature_spread(rows), n)
    assert combined.corpus_polysemy == round(expected, 6) < -5.0 < combined.threshold
    assert corpus_polysemy_of(rows, min_support=3, self_similarity=similarity) == combined.corpus_polysemy
    assert combined.n_senses == 1 and (combined.labels == 0).all()
    # on the split z scale (split_z given, or no self-similarity): NO_SPREAD_Z, never a split
    for split_z in (None, -20.0):
        plain = corpus_evidence(rows, split_z=split_z, prior_shift=MAX_PRIOR_SHIFT)
        assert plain.corpus_polysemy == NO_SPREAD_Z and plain.n_senses == 1
    assert corpus_polysemy_of(rows, min_support=3) == NO_SPREAD_Z
    model, evidence = induce_senses_by_evidence(rows, self_similarity=similarity)
    assert model.n_senses == evidence.n_senses == 1 and evidence.corpus_polysemy == combined.corpus_polysemy
    assert np.isfinite(evidence.corpus_polysemy)


def test_groups_without_spread_of_their_own_are_not_split_again():
    # two lines, each repeated 6 times: two senses, neither split further
    rows = np.vstack([one_point(6, seed=1), one_point(6, seed=2)])
    for similarity in (None, self_similarity_score(rows)):
        evidence = corpus_evidence(rows, self_similarity=similarity)
        assert evidence.n_senses == 2 and np.bincount(evidence.labels).tolist() == [6, 6]


def test_no_spread_z_is_below_every_threshold_and_one_use_word():
    assert np.isfinite(NO_SPREAD_Z)
    assert all(NO_SPREAD_Z < threshold for _, threshold in SPLIT_Z_TABLE)
    assert all(NO_SPREAD_Z < z_mean - 5 * z_sd for _, _, _, z_mean, z_sd, *_ in ONE_USE_TABLE)
    assert reported_split_z(None) == NO_SPREAD_Z and reported_split_z(-1.25) == -1.25
    # without a split z, combined_polysemy is the differing uses alone
    for n, _, _, _, _, f_mean, f_sd, _, _ in ONE_USE_TABLE:
        assert combined_polysemy(5.0, None, f_mean + 2 * f_sd, n) == pytest.approx(2.0)
        assert combined_polysemy(5.0, None, 0.0, n) < -5.0


# Occurrences that share a passage (issue 21): only independent rows are judged
def test_independent_rows_decide_and_the_others_join_their_nearest_sense():
    rows, truth = groups([12, 8], seed=3)
    everything, _ = induce_senses_by_evidence(rows)
    all_independent, evidence = induce_senses_by_evidence(rows, independent=np.ones(len(rows), dtype=bool))
    assert np.array_equal(all_independent.labels, everything.labels)
    assert np.array_equal(all_independent.centroids, everything.centroids) and evidence.n_senses == 2
    # Two passages, each holding one use ten times over: two independent rows, too few to judge
    two_passages = np.zeros(len(rows), dtype=bool)
    two_passages[[0, 12]] = True
    model, evidence = induce_senses_by_evidence(rows, independent=two_passages)
    assert model.n_senses == 1 and evidence.corpus_polysemy is None and model.shares.tolist() == [1.0]
    assert len(model.labels) == len(evidence.labels) == len(rows)
    # Every third row independent: their evidence splits, every row joins its nearest sense
    some = np.arange(len(rows)) % 3 == 0
    model, evidence = induce_senses_by_evidence(rows, independent=some)
    assert model.n_senses == 2 and adjusted_rand_score(truth, model.labels) == 1.0
    assert np.argmax(rows @ model.centroids.T, axis=1).tolist() == model.labels.tolist()
    assert model.shares.tolist() == [12 / 20, 8 / 20] and np.array_equal(evidence.labels, model.labels)
    assert evidence.corpus_polysemy == corpus_evidence(rows[some]).corpus_polysemy


def test_dependent_rows_that_outnumber_the_judged_ones_make_the_larger_sense_first():
    rows, truth = groups([6, 14], seed=4)
    judged = np.r_[np.ones(6, dtype=bool), np.arange(14) < 6]  # 6 + 6 judged, 8 more of the second use
    model, _ = induce_senses_by_evidence(rows, independent=judged)
    assert model.n_senses == 2 and np.bincount(model.labels).tolist() == [14, 6]
    assert model.labels[6:].tolist() == [0] * 14 and model.shares.tolist() == [14 / 20, 6 / 20]
    nobody = np.zeros(len(rows), dtype=bool)  # none marked: every row is judged (never zero senses)
    assert induce_senses_by_evidence(rows, independent=nobody)[0].n_senses == 2


def test_rows_without_a_vector_join_the_largest_sense_counting_the_dependent_rows():
    """14 judged rows of one use, 8 of another, 10 more of the second that share passages,
    2 rows without a vector: the second use is the larger sense once every row counts, and
    the rows without a vector join it (before: they stayed in the judged rows' largest)."""
    rows, _ = groups([14, 18], seed=5)
    rows = np.vstack([rows, np.zeros((2, rows.shape[1]))])
    judged = np.r_[np.ones(22, dtype=bool), np.zeros(10, dtype=bool), True, False]
    model, evidence = induce_senses_by_evidence(rows, independent=judged)
    assert model.n_senses == 2 and np.bincount(model.labels).tolist() == [20, 14]
    assert model.labels[-2:].tolist() == [0, 0] and model.labels[14:32].tolist() == [0] * 18
    assert np.array_equal(evidence.labels, model.labels)


def test_independent_rows_of_the_wrong_length_are_e610():
    rows, _ = groups([6, 6], seed=6)
    with pytest.raises(CtxvecError, match="E610.*independent.*one boolean per row, shape \\(12,\\)"):
        induce_senses_by_evidence(rows, independent=np.ones(11, dtype=bool))


def test_the_grouped_baseline_leaves_out_targets_without_a_vector():
    """Two zero rows (targets without a vector) counted as cosine 0 took the baseline of
    two near-parallel rows from 0.995 to 0.249."""
    rows = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 0.0], [0.0, 0.0]])
    alone = grouped_anisotropy_baseline(rows, [[0], [1]])
    assert alone == pytest.approx(1 / np.sqrt(1.01))
    assert grouped_anisotropy_baseline(rows, [[0, 2], [1, 3]]) == pytest.approx(alone)
    assert grouped_anisotropy_baseline(rows, [[0, 1], [2, 3]]) == 0.0  # no pair of usable rows across groups


def overlapping_uses(seed, n=48, width=16, noise=0.35):
    """Unit rows of three uses whose groups overlap: (rows, true use)."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.standard_normal((3, width)))
    truth = rng.integers(0, 3, size=n)
    return unit(centres[truth] + noise * rng.standard_normal((n, width))), truth


def test_every_sampled_occurrence_is_in_the_sense_a_token_there_would_get():
    # the bisection draws one border at a time; without moving rows to their nearest sense
    # afterwards, 87 of 200 such words kept a sampled row nearer another sense's centroid
    disagreements, split = 0, 0
    for seed in range(40):
        rows, _ = overlapping_uses(seed)
        model, _ = induce_senses_by_evidence(rows)
        if model.n_senses > 1:
            split += 1
            disagreements += int((sense_margins(rows, model.centroids)[0] != model.labels).sum())
            assert np.bincount(model.labels).min() >= 3
    assert split >= 20 and disagreements == 0


def test_moving_rows_to_their_nearest_sense_keeps_min_support():
    rows = unit(np.array([[1.0, 0.0], [1.0, 0.1], [1.0, -0.1], [0.2, 1.0], [0.0, 1.0], [1.0, 0.05]]))
    # rows 0-2 and 5 lie nearer the first group's centroid: row 5 would leave the second group with 2
    kept = nearest_centroid_groups(rows, [np.array([0, 1, 2]), np.array([3, 4, 5])], min_support=3)
    assert [group.tolist() for group in kept] == [[0, 1, 2], [3, 4, 5]]
    moved = nearest_centroid_groups(rows, [np.array([0, 1, 2]), np.array([3, 4, 5])], min_support=2)
    assert [group.tolist() for group in moved] == [[0, 1, 2, 5], [3, 4]]
    assert [group.tolist() for group in nearest_centroid_groups(rows, [np.arange(6)], min_support=3)] == [
        list(range(6))
    ]
