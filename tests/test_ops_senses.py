"""spacy_ctxvec.ops.senses: sense space, induction with a one-sense answer, assignment."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from spacy_ctxvec.ops.cosine import normalise_rows
from spacy_ctxvec.ops.senses import (
    CALIBRATION_SIZES,
    CONTEXT_WEIGHT,
    CUT_DISTANCE,
    MAX_SENSES,
    MIN_CALIBRATION_TYPES,
    MIN_SHARE,
    MIN_TOKENS,
    N_REMOVED_DIRECTIONS,
    SPLIT_PERCENTILE,
    SPLIT_THRESHOLDS,
    SenseInductionSettings,
    SenseSpace,
    assign_senses,
    calibrate_split_thresholds,
    dissolve_small_clusters,
    fit_sense_space,
    induce_senses,
    sense_entropy,
    split_threshold_for,
    spread,
    sums_by_label,
    to_sense_space,
)


def blobs(centres: np.ndarray, n_each: int, noise: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.repeat(centres, n_each, axis=0) + noise * rng.normal(size=(len(centres) * n_each, centres.shape[1]))


def test_two_separated_meanings_give_two_senses_with_shares():
    centres = np.eye(16)[:2]
    rows = to_sense_space(blobs(centres, 10, 0.05), SenseSpace(np.zeros(16), np.zeros((0, 16))))
    model = induce_senses(rows)
    assert model.n_senses == 2
    assert adjusted_rand_score(np.repeat([0, 1], 10), model.labels) == 1.0
    np.testing.assert_allclose(model.shares, [0.5, 0.5])
    np.testing.assert_allclose(np.linalg.norm(model.centroids, axis=1), 1.0)


def test_one_tight_meaning_is_one_sense():
    rows = to_sense_space(blobs(np.eye(16)[:1], 30, 0.05), SenseSpace(np.zeros(16), np.zeros((0, 16))))
    model = induce_senses(rows)
    assert model.n_senses == 1 and model.shares.tolist() == [1.0] and (model.labels == 0).all()


def test_largest_sense_first_and_assignment_to_nearest_centroid():
    centres = np.eye(8)[:2]
    rows = np.vstack([blobs(centres[:1], 4, 0.02, 1), blobs(centres[1:], 12, 0.02, 2)])
    model = induce_senses(normalise(rows))
    assert model.n_senses == 2 and model.shares[0] == pytest.approx(0.75)
    assert (model.labels[4:] == 0).all() and (model.labels[:4] == 1).all()
    np.testing.assert_array_equal(assign_senses(normalise(centres), model.centroids), [1, 0])


def normalise(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_small_empty_and_zero_inputs_never_nan():
    empty = induce_senses(np.zeros((0, 4)))
    assert empty.n_senses == 0
    zeros = induce_senses(np.zeros((5, 4)))
    assert zeros.n_senses == 1 and np.isfinite(zeros.centroids).all()
    few = induce_senses(normalise(np.eye(4)[:3]))  # below min_tokens
    assert few.n_senses == 1
    assert spread(np.zeros((0, 3))) == 0.0 and sense_entropy(np.array([1.0])) == 0.0
    assert sense_entropy(np.array([0.5, 0.5])) == pytest.approx(np.log(2))


def test_sense_space_removes_the_common_direction():
    rng = np.random.default_rng(3)
    common = np.zeros(10)
    common[0] = 1.0
    vectors = 5.0 * rng.normal(size=(200, 1)) * common + 0.1 * rng.normal(size=(200, 10))
    space = fit_sense_space(vectors, n_directions=1)
    assert abs(space.directions[0] @ common) > 0.99
    moved = to_sense_space(vectors, space)
    assert np.abs(moved @ space.directions[0]).max() < 1e-9 and np.abs(moved @ common).max() < 0.01
    weighted = fit_sense_space(np.array([[0.0, 0.0], [2.0, 2.0]]), n_directions=0, weights=np.array([3.0, 1.0]))
    np.testing.assert_allclose(weighted.mean, [0.5, 0.5])


def test_split_threshold_grows_with_the_sample_and_a_number_overrides_it():
    assert split_threshold_for(10) == pytest.approx(0.1745)
    assert split_threshold_for(14) == pytest.approx((0.1780 + 0.1842) / 2)  # linear between 12 and 16
    assert split_threshold_for(2) == SPLIT_THRESHOLDS[0][1] and split_threshold_for(500) == SPLIT_THRESHOLDS[-1][1]
    assert split_threshold_for(64) > split_threshold_for(10)
    assert split_threshold_for(64, 0.25) == 0.25


def test_same_spread_splits_a_small_sample_but_not_a_large_one():
    """One spread between the thresholds for 10 and for 64 rows: 10 rows split, 64 do not
    (noise rows: the clusters are small, so the support floor is lifted to see the split)."""
    rng = np.random.default_rng(3)

    def rows_with_spread(n: int) -> np.ndarray:
        common = np.eye(64)[0]
        return normalise(common + 0.5 * rng.normal(size=(n, 64)) / np.sqrt(64))

    small, large = rows_with_spread(10), rows_with_spread(64)
    assert split_threshold_for(10) < spread(small) < split_threshold_for(64)
    assert split_threshold_for(10) < spread(large) < split_threshold_for(64)
    no_floor = SenseInductionSettings(min_support=1)
    assert induce_senses(small, no_floor).n_senses >= 2
    assert induce_senses(large, no_floor).n_senses == 1


def test_small_clusters_move_to_the_nearest_kept_cluster():
    rows = normalise(np.array([[1, 0, 0], [1, 0.1, 0], [0, 1, 0], [0, 1, 0.1], [0.2, 1, 0]], dtype=float))
    labels = np.array([0, 0, 1, 1, 2])
    np.testing.assert_array_equal(dissolve_small_clusters(rows, labels, 2), [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(dissolve_small_clusters(rows, labels, 1), labels)
    np.testing.assert_array_equal(dissolve_small_clusters(rows, labels, 3), [0, 0, 0, 0, 0])  # none kept


def test_a_large_sample_gets_its_real_senses_not_eight_tiny_ones():
    """64 rows: two meanings of 30 rows each plus 4 scattered outliers. The distance cut
    alone makes up to 8 clusters of outliers; senses under 10% of the rows are dissolved."""
    centres = np.eye(32)[:2]
    rng = np.random.default_rng(0)
    rows = normalise(np.vstack([blobs(centres, 30, 0.15), rng.normal(size=(4, 32))]))
    model = induce_senses(rows)
    assert model.n_senses == 2 and model.shares.min() >= 0.1
    assert adjusted_rand_score(np.repeat([0, 1], 30), model.labels[:60]) == 1.0
    cut_only = induce_senses(rows, SenseInductionSettings(min_share=0.0, min_support=1))
    assert cut_only.n_senses > 2 and cut_only.shares.min() < 0.05


def test_ten_rows_keep_one_occurrence_senses():
    """At n = 10, 10% is one row: a sense of one occurrence survives min_share, but not
    the default min_support (3 occurrences); with min_support 1 it does."""
    centres = np.eye(16)[:3]
    rows = normalise(np.vstack([blobs(centres[:2], 5, 0.01)[:9], centres[2:]]))
    model = induce_senses(rows, SenseInductionSettings(split_threshold=0.1, min_support=1))
    assert model.n_senses == 3 and model.shares.min() == pytest.approx(0.1)
    floored = induce_senses(rows, SenseInductionSettings(split_threshold=0.1))
    assert floored.n_senses == 2 and np.bincount(floored.labels).min() >= 3


def word_spreads(n_types: int, scale: float, seed: int = 0):
    """Unit rows of ``n_types`` one-meaning words whose noise levels vary from word to
    word (as real words' spreads do); ``scale`` stands for another model, whose
    vectors spread more or less overall."""
    rng = np.random.default_rng(seed)
    words = []
    for noise in rng.uniform(0.3, 0.6, size=n_types) * scale:
        centre = rng.normal(size=24)
        words.append(
            to_sense_space(
                centre + noise * rng.normal(size=(16, 24)) * np.linalg.norm(centre) / 5,
                SenseSpace(np.zeros(24), np.zeros((0, 24))),
            )
        )
    return words


def calibrate(words, **options):
    return calibrate_split_thresholds(
        np.array([len(w) for w in words]), np.array([spread(w) for w in words]), **options
    )


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])
def test_calibrated_thresholds_split_the_same_share_of_words_whatever_the_scale(scale):
    words = word_spreads(200, scale)  # 16 rows each: the band n = 16 .. 19
    table, n_calibrated = calibrate(words, percentile=80.0)
    assert n_calibrated == 1 and [n for n, _ in table] == list(CALIBRATION_SIZES)
    over = np.mean([spread(w) > split_threshold_for(16, table=table) for w in words])
    assert over == pytest.approx(0.20, abs=0.01)  # 100 - 80 percent pass the split test, at every scale
    assert np.mean([induce_senses(w, thresholds=table).n_senses == 1 for w in words]) >= 0.80
    shipped_over = np.mean([spread(w) > split_threshold_for(16) for w in words])
    if scale != 1.0:  # one fixed table lets nearly none or nearly all pass
        assert shipped_over < 0.05 or shipped_over > 0.95
    # the other sizes: the shipped table's shape, scaled to agree at n = 16
    for n in (4, 10, 64):
        assert split_threshold_for(n, table=table) / split_threshold_for(16, table=table) == pytest.approx(
            split_threshold_for(n) / split_threshold_for(16), rel=1e-4
        )  # table rounded to 6 places


def test_each_size_is_calibrated_on_types_about_that_frequent():
    rng = np.random.default_rng(1)
    row_counts = np.concatenate([np.full(150, 10), np.full(150, 11), np.full(150, 64), np.full(20, 32)])
    spreads = np.concatenate([rng.uniform(0.1, 0.2, 300), rng.uniform(0.3, 0.4, 150), np.full(20, 0.9)])
    table, n_calibrated = calibrate_split_thresholds(row_counts, spreads, percentile=50.0)
    thresholds = dict(table)
    assert n_calibrated == 2  # n = 10 (rows 10 and 11) and n = 64; 20 types at 32 are too few
    assert thresholds[10] == pytest.approx(np.percentile(spreads[:300], 50.0), abs=1e-6)
    assert thresholds[64] == pytest.approx(np.percentile(spreads[300:450], 50.0), abs=1e-6)
    for n, nearest in ((12, 10), (32, 10), (48, 64)):  # the shipped shape, scaled at the nearest band
        expected = thresholds[nearest] * split_threshold_for(n) / split_threshold_for(nearest)
        assert thresholds[n] == pytest.approx(expected, abs=1e-6)


def test_too_few_types_fall_back_to_the_shipped_thresholds():
    table, n_calibrated = calibrate(word_spreads(MIN_CALIBRATION_TYPES - 1, 1.0))
    assert n_calibrated == 0 and table == SPLIT_THRESHOLDS
    assert calibrate_split_thresholds(np.zeros(0), np.zeros(0)) == (SPLIT_THRESHOLDS, 0)


def test_sense_features_join_token_and_weighted_context_at_unit_length():
    from spacy_ctxvec.ops.senses import sense_features

    token = np.array([[1.0, 0.0], [0.0, 0.0]])
    context = np.array([[0.0, 1.0], [1.0, 0.0]])
    joined = sense_features(token, context, weight=1.0)
    np.testing.assert_allclose(joined[0], [1, 0, 0, 1] / np.sqrt(2))
    assert not joined[1].any()  # no token vector: no features, whatever the context
    np.testing.assert_allclose(sense_features(token, context, weight=3.0)[0], [1, 0, 0, 3] / np.sqrt(10))
    assert sense_features(token, None) is not None and sense_features(token, None).shape == (2, 2)
    assert sense_features(token, context, weight=0).shape == (2, 2)


def test_contexts_separate_meanings_the_token_rows_blur():
    """Two meanings whose token rows overlap but whose contexts differ: clustering on
    token + context recovers them, on the token rows alone it does not."""
    from spacy_ctxvec.ops.senses import sense_features

    rng = np.random.default_rng(0)
    space = SenseSpace(np.zeros(16), np.zeros((0, 16)))
    token = to_sense_space(np.eye(16)[0] + 0.6 * rng.normal(size=(20, 16)), space)
    context = to_sense_space(blobs(np.eye(16)[[5, 9]], 10, 0.05, seed=1), space)
    truth = np.repeat([0, 1], 10)
    two_at_most = SenseInductionSettings(split_threshold=0.0, max_senses=2)
    alone = induce_senses(token, two_at_most)
    joined = induce_senses(token, two_at_most, cluster_rows=sense_features(token, context))
    assert adjusted_rand_score(truth, joined.labels) == 1.0
    assert adjusted_rand_score(truth, alone.labels) < 0.5
    assert joined.centroids.shape == (2, 32) and joined.spread == alone.spread  # the split test reads the token rows


def test_the_split_decision_reads_the_token_rows_not_the_contexts():
    from spacy_ctxvec.ops.senses import sense_features

    space = SenseSpace(np.zeros(16), np.zeros((0, 16)))
    token = to_sense_space(blobs(np.eye(16)[:1], 20, 0.01), space)  # one tight meaning
    context = to_sense_space(np.random.default_rng(2).normal(size=(20, 16)), space)  # contexts all over
    model = induce_senses(token, cluster_rows=sense_features(token, context))
    assert model.n_senses == 1 and model.centroids.shape == (1, 32)


def test_a_given_split_decision_overrides_the_spread_test_but_not_min_tokens():
    space = SenseSpace(np.zeros(16), np.zeros((0, 16)))
    two = to_sense_space(blobs(np.eye(16)[:2], 10, 0.05), space)
    tight = to_sense_space(blobs(np.eye(16)[:1], 20, 0.05, seed=3), space)
    assert induce_senses(two).n_senses == 2 and induce_senses(two, split=False).n_senses == 1
    forced = induce_senses(
        tight, SenseInductionSettings(split_threshold=0.0)
    )  # what a split of one tight meaning gives
    assert induce_senses(tight).n_senses == 1
    np.testing.assert_array_equal(induce_senses(tight, split=True).labels, forced.labels)
    loose = to_sense_space(blobs(np.eye(16)[:1], 20, 0.3, seed=3), space)
    assert (
        induce_senses(loose, SenseInductionSettings(split_threshold=2.0)).n_senses == 1
        and induce_senses(loose, split=True).n_senses >= 2
    )
    assert (
        induce_senses(two[:3], SenseInductionSettings(min_tokens=4), split=True).n_senses == 1
    )  # too few rows to split


# The sense-induction settings object (issue 20): one default per setting, validated once
def test_settings_defaults_are_the_documented_constants_and_the_object_is_frozen():
    settings = SenseInductionSettings()
    assert settings.to_dict() == {
        "split_threshold": None,
        "split_percentile": SPLIT_PERCENTILE,
        "cut_distance": CUT_DISTANCE,
        "max_senses": MAX_SENSES,
        "min_tokens": MIN_TOKENS,
        "min_share": MIN_SHARE,
        "min_support": 3,
        "n_directions": N_REMOVED_DIRECTIONS,
        "context_weight": CONTEXT_WEIGHT,
        "split_by_probe": True,
        "split_by_evidence": True,
        "words_only": True,
    }
    with pytest.raises(AttributeError):
        settings.cut_distance = 0.3  # frozen
    changed = settings.replace(cut_distance=0.3)
    assert changed.cut_distance == 0.3 and settings.cut_distance == CUT_DISTANCE
    assert (
        SenseInductionSettings.from_record({"cut_distance": 0.3, "sample_k": 64, "split_rule": "evidence"}) == changed
    )
    # an inventory recorded under the spread or probe rule: the evidence did not decide
    spread_record = {"cut_distance": 0.3, "split_rule": "spread"}
    assert SenseInductionSettings.from_record(spread_record) == changed.replace(split_by_evidence=False)


@pytest.mark.parametrize(
    "setting,value",
    [
        ("split_threshold", 2.5),
        ("split_threshold", float("nan")),
        ("split_percentile", 0.0),
        ("split_percentile", 100.0),
        ("split_percentile", True),
        ("cut_distance", 0.0),
        ("max_senses", 1),
        ("max_senses", 2.5),
        ("min_tokens", 2),
        ("min_share", 0.6),
        ("min_support", 0),
        ("min_support", 2.5),
        ("n_directions", -1),
        ("context_weight", 11.0),
        ("context_weight", True),
        ("split_by_probe", "yes"),
        ("split_by_evidence", 1),
    ],
)
def test_settings_out_of_range_are_e603_naming_the_setting(setting, value):
    from spacy_ctxvec.errors import CtxvecError

    with pytest.raises(CtxvecError, match=f"E603.*{setting}"):
        SenseInductionSettings(**{setting: value})
    with pytest.raises(CtxvecError, match=f"E603.*{setting}"):
        SenseInductionSettings().replace(**{setting: value})


def test_a_misspelt_setting_is_e608_listing_the_settings():
    from spacy_ctxvec.errors import CtxvecError

    with pytest.raises(CtxvecError, match=r"E608\] Unknown sense setting\(s\) max_sense\. The settings are: .*min_"):
        SenseInductionSettings().replace(max_sense=4)
    assert SenseInductionSettings().replace(max_senses=4).max_senses == 4


def test_induce_senses_reads_the_settings_it_is_given():
    rows = normalise(blobs(np.eye(16)[:3], 10, 0.05))
    assert induce_senses(rows).n_senses == 3
    assert induce_senses(rows, SenseInductionSettings(max_senses=2)).n_senses == 2
    assert induce_senses(rows, SenseInductionSettings(split_threshold=2.0)).n_senses == 1


# Minimum support per sense (issue 21): 7 occurrences never make 6 senses
def test_no_sense_has_fewer_than_min_support_occurrences():
    rows = normalise_rows(np.random.default_rng(0).normal(size=(7, 16)))  # 7 scattered occurrences, forced to split
    model = induce_senses(rows, split=True)
    assert model.n_senses <= 2 and np.bincount(model.labels).min() >= 3
    loose = induce_senses(rows, SenseInductionSettings(min_support=1, min_share=0.0), split=True)
    assert loose.n_senses == 6  # without the floor the same rows make 6 senses


@hypothesis_settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=30),
    seed=st.integers(min_value=0, max_value=10_000),
    min_support=st.integers(min_value=1, max_value=6),
)
def test_every_sense_keeps_min_support_rows_whatever_the_rows(n, seed, min_support):
    rows = normalise_rows(np.random.default_rng(seed).normal(size=(n, 8)))
    model = induce_senses(rows, SenseInductionSettings(min_support=min_support, min_share=0.0), split=True)
    sizes = np.bincount(model.labels, minlength=model.n_senses)
    assert model.n_senses == 1 or sizes.min() >= min_support


@hypothesis_settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 70), width=st.integers(1, 40), k=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_sums_by_label_are_bitwise_those_of_add_at(n, width, k, seed):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(n, width)) * rng.choice([1.0, 1e-8, 1e8, -0.0], size=(n, 1))
    labels = rng.integers(0, k, n)
    expected = np.zeros((k, width))
    np.add.at(expected, labels, rows)
    assert sums_by_label(rows, labels, k).tobytes() == expected.tobytes()


@pytest.mark.parametrize("sizes", [(9, 5, 4), (4, 5, 9), (5, 9, 4), (4, 9, 5)])
def test_zero_rows_join_the_largest_sense_wherever_its_cluster_lies(sizes):
    """Zero rows (occurrences without a vector) take no part in the clustering and join the
    largest sense, as documented, wherever it lies in the rows; not the cluster scipy numbers last."""
    rng = np.random.default_rng(0)
    clusters = [np.tile(np.eye(3)[i], (n, 1)) + rng.normal(0, 0.01, (n, 3)) for i, n in enumerate(sizes)]
    rows = np.vstack([np.zeros((1, 3)), normalise(np.vstack(clusters)), np.zeros((1, 3))])
    model = induce_senses(rows, SenseInductionSettings(split_threshold=0.0))
    largest = 1 + sum(sizes[: sizes.index(9)]) + np.arange(9)
    assert model.n_senses == 3 and model.labels[[0, -1]].tolist() == [0, 0] and (model.labels[largest] == 0).all()
    np.testing.assert_allclose(model.shares, [11 / 20, 5 / 20, 4 / 20])


@pytest.mark.parametrize("first", [0, 1])
def test_senses_of_the_same_size_are_numbered_in_the_order_first_seen(first):
    """Senses are numbered largest first, and of two of the same size the one whose first
    occurrence comes first is sense 0 (numbering the last seen first swaps them)."""
    centres = np.eye(8)[[first, 1 - first]]
    rows = normalise(np.vstack([blobs(centres[:1], 6, 0.02, 1), blobs(centres[1:], 6, 0.02, 2)]))
    model = induce_senses(rows, SenseInductionSettings(split_threshold=0.0))
    assert model.labels.tolist() == [0] * 6 + [1] * 6
    np.testing.assert_allclose(model.shares, [0.5, 0.5])
    np.testing.assert_array_equal(assign_senses(normalise(centres), model.centroids), [0, 1])
