"""induce_inventory on synthetic samples: the corpus sense space, split thresholds
calibrated on the corpus, context features, probe split decisions, coded errors."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.sense_descriptions import describe_context, describe_split_thresholds
from spacy_ctxvec.lexicon.sense_induction import fit_corpus_sense_space, induce_inventory
from spacy_ctxvec.lexicon.sense_inventory import SenseInventory
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.sense_evidence import one_use_reference
from spacy_ctxvec.ops.senses import (
    SPLIT_PERCENTILE,
    SPLIT_THRESHOLDS,
    SenseInductionSettings,
    fit_sense_space,
    spread,
    to_sense_space,
)

from . import test_lexicon_sense_inventory as inventory_tests
from .test_lexicon_sense_inventory import WIDTH, lexicon_with_sample, synthetic, with_context_meanings

# The synthetic sample and its inventory, the same module fixtures as the inventory tests.
data = inventory_tests.data
inventory = inventory_tests.inventory
# The spread (or probe) split rule, the default before the corpus's evidence decided.
SPREAD_RULE = SenseInductionSettings(split_by_evidence=False)


def test_induction_is_deterministic_and_independent_of_how_the_sample_was_merged(data, inventory):
    keys, vectors, _, _ = data
    assert induce_inventory(lexicon_with_sample(keys, vectors), min_count=5) == inventory
    assert induce_inventory(lexicon_with_sample(keys, vectors, parts=4), min_count=5) == inventory
    other = induce_inventory(lexicon_with_sample(keys, vectors), SenseInductionSettings(cut_distance=0.2), min_count=5)
    assert other != inventory and other.settings["cut_distance"] == 0.2
    assert (
        inventory.settings["min_count"] == 5
        and inventory.settings["key"] == "lower"
        and inventory.settings["sample_k"] == 64
    )


def test_sense_space_weights_each_row_by_count_over_sampled_rows(data):
    keys, vectors, _, _ = data
    lexicon = lexicon_with_sample(keys, vectors, k=4)  # 'w00' has 20 occurrences, 4 sampled: weight 5 each
    inventory = induce_inventory(lexicon, SenseInductionSettings(n_directions=0), min_count=2)
    sample = lexicon.sample
    per_type = np.stack([sample.rows_of(key)[0].astype(np.float64).mean(axis=0) for key in sample.keys])
    counts = np.array([lexicon.counts[lexicon.index(key)] for key in sample.keys], dtype=np.float64)
    np.testing.assert_allclose(inventory.space.mean, counts @ per_type / counts.sum(), atol=1e-9)
    assert inventory.space.directions.shape == (0, WIDTH)


def test_chunked_space_fit_matches_fit_sense_space():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 8)) * np.arange(1, 9)
    w = rng.uniform(0.1, 5.0, size=300)
    reference = fit_sense_space(x, n_directions=3, weights=w)
    chunked = fit_corpus_sense_space(x.astype(np.float16).astype(np.float64), w, n_directions=3)
    reference16 = fit_sense_space(x.astype(np.float16).astype(np.float64), n_directions=3, weights=w)
    np.testing.assert_allclose(chunked.mean, reference16.mean, atol=1e-12)
    np.testing.assert_allclose(
        chunked.directions.T @ chunked.directions, reference16.directions.T @ reference16.directions, atol=1e-9
    )
    assert reference.directions.shape == chunked.directions.shape


def test_the_sense_space_is_the_same_whatever_the_blas_thread_count():
    # at the real width (384): threaded, the eigendecomposition's last bits follow the thread count
    rng = np.random.default_rng(4)
    x = (rng.normal(size=(2000, 384)) * np.linspace(3.0, 0.1, 384)).astype(np.float16)
    w = rng.uniform(0.1, 5.0, size=2000)
    spaces = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            spaces.append(fit_corpus_sense_space(x, w, n_directions=8))
    assert spaces[0].directions.tobytes() == spaces[1].directions.tobytes()
    assert spaces[0].mean.tobytes() == spaces[1].mean.tobytes()


def test_lexicon_without_a_sample_and_bad_settings_are_coded_errors(data):
    keys, vectors, _, _ = data
    with pytest.raises(CtxvecError, match="E602.*--sample-size"):
        induce_inventory(Lexicon.from_occurrences(keys, vectors), min_count=5)
    lexicon = lexicon_with_sample(keys, vectors)
    for setting, value in (
        ("cut_distance", 0.0),
        ("max_senses", 1),
        ("min_tokens", 2),
        ("split_threshold", float("nan")),
        ("n_directions", -1),
        ("min_share", 0.6),
        ("min_share", float("nan")),
        ("split_threshold", 2.5),
        ("split_percentile", 0.0),
        ("split_percentile", 100.0),
        ("split_percentile", True),
    ):
        with pytest.raises(CtxvecError, match=f"E603.*{setting}"):
            induce_inventory(lexicon, SenseInductionSettings(**{setting: value}), min_count=5)
    with pytest.raises(CtxvecError, match="E603.*min_count"):
        induce_inventory(lexicon, min_count=0)
    # more than half the width was clamped to the sample's rank without a word, removing most of the space
    half = WIDTH // 2
    with pytest.raises(CtxvecError, match=rf"E603.*n_directions must be at most half the vectors' width \({half} of"):
        induce_inventory(lexicon, SenseInductionSettings(n_directions=half + 1), min_count=5)
    assert induce_inventory(lexicon, SenseInductionSettings(n_directions=half), min_count=5).settings["n_directions"]
    with pytest.raises(CtxvecError, match=r"E228\] settings must be a SenseInductionSettings .*'max_senses': 3"):
        induce_inventory(lexicon, {"max_senses": 3}, min_count=5)  # was an AttributeError


def test_numpy_numbers_as_settings_are_saved_as_python_numbers(data, inventory, tmp_path):
    """np.int64 passed the checks, then saving the inventory (or the pipeline's config)
    raised a TypeError after all the induction work: "int64 is not JSON serializable"."""
    keys, vectors, _, _ = data
    settings = SenseInductionSettings(max_senses=np.int64(6), min_support=np.int64(3), cut_distance=np.float64(0.4))
    assert [type(settings.max_senses), type(settings.cut_distance)] == [int, float]
    assert settings == SenseInductionSettings(max_senses=6, min_support=3, cut_distance=0.4)
    induced = induce_inventory(lexicon_with_sample(keys, vectors), min_count=np.int64(5))
    assert induced == inventory and type(induced.settings["min_count"]) is int
    induced.to_disk(tmp_path / "senses")
    assert SenseInventory.from_disk(tmp_path / "senses") == inventory


def test_default_split_threshold_is_calibrated_and_saved_as_null(data):
    keys, vectors, _, _ = data
    inventory = induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)
    assert inventory.settings["split_threshold"] is None and inventory.settings["min_share"] == 0.1
    assert SenseInventory.from_bytes(inventory.to_bytes()).settings == inventory.settings


def test_few_types_use_the_shipped_thresholds_and_say_so(data):
    # 31 types: too few to calibrate on (MIN_CALIBRATION_TYPES), so the absolute table decides
    keys, vectors, _, _ = data
    inventory = induce_inventory(lexicon_with_sample(keys, vectors), SPREAD_RULE, min_count=5)
    assert inventory.settings["split_calibrated_sizes"] == 0
    assert inventory.settings["split_percentile"] == SPLIT_PERCENTILE
    assert [tuple(row) for row in inventory.settings["split_thresholds"]] == list(SPLIT_THRESHOLDS)
    assert describe_split_thresholds(inventory.settings).startswith("the shipped split thresholds (too few types")


def test_thresholds_are_calibrated_on_a_corpus_with_enough_types():
    keys, vectors, _, _ = synthetic(n_words=150, per_word=12, noise=0.3)
    lexicon = lexicon_with_sample(keys, vectors)
    inventory = induce_inventory(lexicon, SPREAD_RULE, min_count=5)
    table = [tuple(row) for row in inventory.settings["split_thresholds"]]
    assert inventory.settings["split_calibrated_sizes"] == 1  # 150 types with 12 rows: the band n = 12 .. 15
    spreads = []
    for key in inventory.keys:
        rows, _ = lexicon.sample.rows_of(key)
        if len(rows) == 12:
            spreads.append(spread(to_sense_space(rows.astype(np.float64), inventory.space)))
    assert len(spreads) == 150 and dict(table)[12] == pytest.approx(np.percentile(spreads, SPLIT_PERCENTILE), abs=1e-6)
    assert "calibrated on this corpus (percentile 80 of" in describe_split_thresholds(inventory.settings)
    assert SenseInventory.from_bytes(inventory.to_bytes()).settings == inventory.settings
    shipped = induce_inventory(lexicon, SPREAD_RULE.replace(split_percentile=None), min_count=5)
    assert shipped.settings["split_calibrated_sizes"] == 0 and shipped.settings["split_percentile"] is None
    assert [tuple(row) for row in shipped.settings["split_thresholds"]] == list(SPLIT_THRESHOLDS)
    fixed = induce_inventory(lexicon, SPREAD_RULE.replace(split_threshold=0.3), min_count=5)
    assert fixed.settings["split_thresholds"] is None and describe_split_thresholds(fixed.settings).startswith(
        "split threshold 0.3"
    )


def test_empty_sample_gives_an_empty_inventory():
    lexicon = Lexicon.empty(WIDTH, sample_size=8, meta={"key": "lower"})
    inventory = induce_inventory(lexicon, min_count=2)
    assert len(inventory) == 0 and inventory.n_senses_total == 0 and inventory.width == WIDTH
    assert SenseInventory.from_bytes(inventory.to_bytes()) == inventory
    assert inventory.assign(np.array([-1, -1]), np.ones((2, WIDTH))).tolist() == [-1, -1]


def test_senses_are_clustered_on_token_and_context_when_the_sample_keeps_contexts():
    from sklearn.metrics import adjusted_rand_score

    from spacy_ctxvec.ops.senses import CONTEXT_WINDOW

    keys, vectors, contexts, river_context, money_context = with_context_meanings()
    lexicon = lexicon_with_sample(keys, vectors, contexts=contexts)
    joined = induce_inventory(lexicon, SenseInductionSettings(split_threshold=0.0, max_senses=2), min_count=5)
    alone = induce_inventory(
        lexicon, SenseInductionSettings(split_threshold=0.0, max_senses=2, context_weight=0.0), min_count=5
    )
    assert joined.context_space is not None and alone.context_space is None
    assert (joined.settings["context_weight"], joined.settings["context_window"]) == (1.0, CONTEXT_WINDOW)
    assert (alone.settings["context_weight"], alone.settings["context_window"]) == (0.0, 0)
    assert describe_context(joined.settings) == (
        f"clustered on each occurrence joined to the mean vector of the "
        f"{CONTEXT_WINDOW} tokens either side (context weight 1)"
    )
    assert describe_context(alone.settings) == (
        "clustered on the occurrences' own vectors (no context vectors in the sample, or context weight 0)"
    )
    assert joined.centroids.shape[1] == 2 * WIDTH == joined.feature_width and alone.centroids.shape[1] == WIDTH
    bank = np.flatnonzero(np.array(keys) == "bank")
    truth = np.arange(len(bank)) % 2

    def label(inventory, context):
        return inventory.assign(np.full(len(bank), inventory.index("bank")), vectors[bank], context)

    assert adjusted_rand_score(truth, label(joined, contexts[bank])) == 1.0
    assert adjusted_rand_score(truth, label(alone, None)) < 0.5
    with pytest.raises(CtxvecError, match="E600.*give each occurrence's context"):
        joined.assign(np.array([joined.index("bank")]), vectors[bank[:1]])
    with pytest.raises(CtxvecError, match="E600.*contexts have width 5"):
        joined.assign(np.array([joined.index("bank")]), vectors[bank[:1]], np.ones((1, 5)))
    # A sample without contexts: senses from the token rows, whatever context_weight says.
    plain = induce_inventory(
        lexicon_with_sample(keys, vectors), SenseInductionSettings(split_threshold=0.0, max_senses=2), min_count=5
    )
    assert plain.context_space is None and plain == alone.__class__.from_bytes(plain.to_bytes())


def test_context_weight_out_of_range_is_a_coded_error(data):
    keys, vectors, _, _ = data
    for value in (-0.5, float("nan"), 11.0, True):
        with pytest.raises(CtxvecError, match="E603.*context_weight"):
            induce_inventory(
                lexicon_with_sample(keys, vectors), SenseInductionSettings(context_weight=value), min_count=5
            )


def probe_estimating(lexicon, estimates, split_senses):
    """A probe fitted by least squares to estimate about ``estimates[key]`` senses per type."""
    from spacy_ctxvec.lexicon.polysemy_probe import PolysemyProbe, probe_features

    features, valid = probe_features(lexicon, 5)
    target = np.array([np.log(estimates.get(key, 1.0)) for key in lexicon.keys])
    weights, *_ = np.linalg.lstsq(features[valid], target[valid], rcond=None)
    return PolysemyProbe(weights, 0.0, {"width": lexicon.width, "key": "lower", "split_senses": split_senses})


def test_a_probe_with_a_split_cut_decides_which_types_split(data):
    keys, vectors, _, _ = data
    lexicon = lexicon_with_sample(keys, vectors)
    # the probe says w00 and w01 are polysemous and bank is not
    estimates = {**{f"w{w:02d}": 1.0 for w in range(30)}, "w00": 9.0, "w01": 9.0, "bank": 1.0}
    probe = probe_estimating(lexicon, estimates, split_senses=3.0)
    scores, valid = probe.scores(lexicon, 5)
    assert scores[lexicon.index("w00")] > 3.0 > scores[lexicon.index("bank")]
    # one-meaning words split only into small noise clusters: the support floor is lifted to see them
    loose = SPREAD_RULE.replace(min_support=1)
    by_probe = induce_inventory(lexicon, loose, min_count=5, probe=probe)
    assert by_probe.settings["split_rule"] == "probe" and by_probe.settings["split_senses"] == 3.0
    split = {key for key in by_probe.keys if by_probe.n_senses(key) > 1}
    forced = induce_inventory(lexicon, loose.replace(split_threshold=0.0), min_count=5)  # every type tries to split
    expected = {key for key in by_probe.keys if scores[lexicon.index(key)] > 3.0 and forced.n_senses(key) > 1}
    assert split == expected and "w01" in split and "bank" not in split
    assert "polysemy probe estimates more than 3.00 senses" in describe_split_thresholds(by_probe.settings)
    for spread_rule in (
        induce_inventory(lexicon, SPREAD_RULE.replace(split_by_probe=False), min_count=5, probe=probe),
        induce_inventory(lexicon, SPREAD_RULE, min_count=5, probe=probe_estimating(lexicon, estimates, None)),
        induce_inventory(lexicon, SPREAD_RULE, min_count=5),
    ):
        assert spread_rule.settings["split_rule"] == "spread" and spread_rule.settings["split_senses"] is None
        assert spread_rule.n_senses("bank") == 2 and spread_rule.n_senses("w00") == 1
    with pytest.raises(CtxvecError, match="E603"):
        SenseInductionSettings(split_by_probe="yes")


def test_no_induced_sense_rests_on_fewer_than_min_support_occurrences():
    """A small corpus (7-24 occurrences per word, many words forced to split): every sense
    of every word keeps at least 3 sampled occurrences."""
    rng = np.random.default_rng(7)
    keys, rows = [], []
    for w, n in enumerate(rng.integers(7, 25, size=40)):
        keys += [f"v{w:02d}"] * int(n)
        rows.append(rng.normal(size=(int(n), WIDTH)))
    lexicon = lexicon_with_sample(keys, np.vstack(rows))
    inventory = induce_inventory(lexicon, SenseInductionSettings(split_threshold=0.0), min_count=2)
    assert inventory.settings["min_support"] == 3 and max(inventory.counts()) > 1
    for key in inventory.keys:
        n = lexicon.counts[lexicon.index(key)]
        assert all(sense.share * n >= 3 - 1e-9 for sense in inventory.senses_of(key)), key


# Issue 21: corpus_polysemy, margin scales and labels per sense, the opt-in evidence rule
def bank_snippets(keys):
    """River words around even 'bank' occurrences, money words around odd ones."""
    river = ("the muddy river water", "reeds by the river water", "river water and reeds")
    money = ("paid money into the account", "the loan and the money", "money account loan")
    snippets, j = [], 0
    for i, key in enumerate(keys):
        if key == "bank":
            snippets.append(f"{(river if j % 2 == 0 else money)[j % 3]} [bank] today")
            j += 1
        else:
            snippets.append(f"doc {i} [{key}]")
    return snippets


def test_induction_keeps_corpus_polysemy_margin_scales_and_word_labels(data):
    keys, vectors, _, _ = data
    lexicon = lexicon_with_sample(keys, vectors, snippets=bank_snippets(keys))
    inventory = induce_inventory(lexicon, min_count=5)
    assert inventory.corpus_polysemy.shape == inventory.margin_scales.shape == (len(inventory),)
    assert inventory.corpus_polysemy_of("bank") > 3.0 > -0.5 > inventory.corpus_polysemy_of("w00")
    assert (inventory.margin_scales > 0).all() and len(inventory.labels) == inventory.n_senses_total
    river, money = sorted(inventory.senses_of("bank"), key=lambda s: "river" not in s.label_words)
    assert set(river.label_words) <= {"muddy", "river", "water", "reeds"} and "river" in river.label_words
    assert set(money.label_words) <= {"paid", "money", "account", "loan"} and "money" in money.label_words
    assert river.label == ", ".join(river.label_words) and "bank" not in river.label_words + money.label_words
    assert "today" not in river.label_words  # around both senses: not distinctive
    rows = inventory.type_rows(["bank", "bank", "w00"])
    senses, scores = inventory.assign_scored(rows, vectors[[600, 601, 0]])  # bank's first two occurrences, w00
    assert ((scores >= 0) & (scores <= 1)).all() and scores[2] == 1.0
    np.testing.assert_array_equal(senses, inventory.assign(rows, vectors[[600, 601, 0]]))


def test_scores_are_high_at_a_sense_centre_and_low_between_senses(data, inventory):
    keys, vectors, river, money = data
    bank = inventory.index("bank")
    at_centre = inventory.assign_scored(np.array([bank, bank]), np.stack([river, money]))[1]
    assert (at_centre > 0.5).all()
    halfway = inventory.assign_scored(np.array([bank]), ((river + money) / 2)[None])[1]
    assert halfway[0] < 0.5 * at_centre.min()
    unknown = inventory.assign_scored(np.array([-1]), river[None])
    assert unknown[0][0] == -1 and np.isnan(unknown[1][0])


def test_split_by_evidence_is_the_default_and_recorded(data, inventory):
    keys, vectors, _, _ = data
    lexicon = lexicon_with_sample(keys, vectors)
    by_spread = induce_inventory(lexicon, SPREAD_RULE, min_count=5)
    assert inventory.settings["split_rule"] == "evidence" and by_spread.settings["split_rule"] == "spread"
    assert inventory.n_senses("bank") == 2 and inventory.n_senses("w00") == 1
    # corpus_polysemy is the same measure whichever rule decided the split
    np.testing.assert_array_equal(inventory.corpus_polysemy, by_spread.corpus_polysemy)
    assert "evidence" in describe_split_thresholds(inventory.settings)


def test_types_without_a_letter_get_no_senses_unless_words_only_is_off(data):
    """Punctuation and numbers used in two ways (the synthetic 'bank's two meanings under
    the keys "," and "1848") get no senses by default; a word holding a letter keeps its
    senses, and words_only = false induces every type as before."""
    keys, vectors, _, _ = data
    renamed = {"bank": ",", "w00": "1848", "w01": "mr."}
    lexicon = lexicon_with_sample([renamed.get(key, key) for key in keys], vectors)
    by_default = induce_inventory(lexicon, min_count=5)
    every_type = induce_inventory(lexicon, SenseInductionSettings(words_only=False), min_count=5)
    assert by_default.settings["words_only"] is True and every_type.settings["words_only"] is False
    assert by_default.n_senses(",") == 0 and by_default.n_senses("1848") == 0
    assert by_default.n_senses("mr.") == 1 and by_default.n_senses("w02") == 1
    assert every_type.n_senses(",") == 2 and every_type.n_senses("1848") == 1
    assert set(every_type.keys) - set(by_default.keys) == {",", "1848"}


def test_words_only_must_be_a_boolean():
    with pytest.raises(CtxvecError, match="CTX-E603.*words_only"):
        SenseInductionSettings(words_only="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("relative", [0.0, 1e-5])
def test_a_passage_repeated_through_the_corpus_keeps_one_sense_and_low_corpus_polysemy(data, relative):
    """A word seen only in one long passage repeated in many documents (licence boilerplate): its 12
    sampled rows are one point at float16 precision. Before: corpus_polysemy 2.7 (identical
    rows) and 7.8 (differing at float16 precision), above the threshold (1.3) of one-use
    words seen 12 times."""
    keys, vectors, _, _ = data
    rng = np.random.default_rng(7)
    repeated = np.tile(rng.normal(size=WIDTH), (12, 1)) * (1.0 + relative * rng.normal(size=(12, WIDTH)))
    lexicon = lexicon_with_sample(keys + ["licence"] * 12, np.vstack([vectors, repeated]))
    for settings in (SenseInductionSettings(), SPREAD_RULE):
        inventory = induce_inventory(lexicon, settings, min_count=5)
        polysemy = inventory.corpus_polysemy_of("licence")
        assert inventory.n_senses("licence") == 1 and inventory.n_senses("bank") == 2
        assert polysemy is not None and np.isfinite(polysemy) and polysemy < -5.0 < one_use_reference(12)[-1]


def passage_lexicon(keys, vectors, docs, positions, snippets=None) -> Lexicon:
    """``lexicon_with_sample`` whose sample has passage priorities (as build-lexicon's)."""
    from spacy_ctxvec.lexicon.occurrence_keys import passage_priorities, ranks_in_passage, text_hash, word_hashes
    from spacy_ctxvec.lexicon.sample import OccurrenceSample

    type_ids = np.unique(np.asarray(keys), return_inverse=True)[1].ravel()
    hashes = np.array([text_hash(f"document {d}") for d in docs], dtype=np.uint64)
    words = word_hashes(keys)
    ranks = ranks_in_passage(docs, positions, type_ids)
    priorities = passage_priorities(hashes, words, np.asarray(positions), ranks)
    snippets = [f"doc {d} [{key}] at {p}" for key, d, p in zip(keys, docs, positions)] if snippets is None else snippets
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=64, by_passage=True)
    return Lexicon.from_occurrences(keys, vectors, meta={"key": "lower"}).with_sample(sample)


def test_a_word_seen_in_two_passages_is_not_split_by_passage(data):
    """'thy' six times, three in each of two passages whose contexts differ (the 150-line
    corpus's "thy", which topped corpus_polysemy at 11.1): two independent occurrences,
    too few to judge. Without passages (an old sample) the same rows split by passage."""
    keys, vectors, _, _ = data
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=WIDTH), rng.normal(size=WIDTH)
    thy = np.vstack([a + 0.05 * rng.normal(size=(3, WIDTH)), b + 0.05 * rng.normal(size=(3, WIDTH))])
    all_keys, all_vectors = keys + ["thy"] * 6, np.vstack([vectors, thy])
    docs = np.r_[np.arange(len(keys)), [len(keys)] * 3, [len(keys) + 1] * 3]  # one document per other occurrence
    positions = np.r_[np.zeros(len(keys), dtype=np.int64), [2, 9, 20, 4, 11, 30]]
    inventory = induce_inventory(passage_lexicon(all_keys, all_vectors, docs, positions), min_count=5)
    assert inventory.n_senses("thy") == 1 and inventory.corpus_polysemy_of("thy") is None
    assert inventory.n_senses("bank") == 2  # its 24 occurrences are 24 documents
    old = induce_inventory(lexicon_with_sample(all_keys, all_vectors), min_count=5)
    assert old.n_senses("thy") == 2 and old.corpus_polysemy_of("thy") > one_use_reference(6)[-1]


def test_a_word_seen_only_in_two_repeated_lines_is_not_split_by_them(data):
    """'far' six times, in six documents, but in two lines each repeated three times (a
    corpus written from templates: a helper's 399-line corpus gave 'far' 2 senses and
    corpus_polysemy 15.5, topping rank --by corpus_polysemy). Two distinct snippets are two
    pieces of evidence: too few to judge, one sense. Other snippets keep them apart."""
    keys, vectors, _, _ = data
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=WIDTH), rng.normal(size=WIDTH)
    far = np.vstack([a + 0.05 * rng.normal(size=(3, WIDTH)), b + 0.05 * rng.normal(size=(3, WIDTH))])
    all_keys, all_vectors = keys + ["far"] * 6, np.vstack([vectors, far])
    docs, positions = np.arange(len(all_keys)), np.zeros(len(all_keys), dtype=np.int64)
    lines = ["how [far] the spring stretched"] * 3 + ["on the [far] bank where"] * 3
    snippets = [f"doc {d} [{key}]" for d, key in enumerate(keys)] + lines
    inventory = induce_inventory(passage_lexicon(all_keys, all_vectors, docs, positions, snippets), min_count=5)
    assert inventory.n_senses("far") == 1 and inventory.corpus_polysemy_of("far") is None
    assert inventory.n_senses("bank") == 2
    distinct = snippets[: len(keys)] + [f"line {j}: [far]" for j in range(6)]
    split = induce_inventory(passage_lexicon(all_keys, all_vectors, docs, positions, distinct), min_count=5)
    assert split.n_senses("far") == 2 and split.corpus_polysemy_of("far") > one_use_reference(6)[-1]


def test_a_word_with_two_uses_over_many_passages_still_splits_and_counts_every_occurrence(data):
    """'bank' 24 times, twice in each of 12 passages (both occurrences of a passage of
    one use): judged on 12 rows, split in two, each sense holding its 12 occurrences."""
    keys, vectors, _, _ = data
    bank = np.flatnonzero(np.array(keys) == "bank")
    others = np.flatnonzero(np.array(keys) != "bank")
    order = np.r_[others, bank[0::2], bank[1::2]]  # river uses, then money uses
    docs = np.r_[np.arange(len(others)), 10_000 + np.repeat(np.arange(12), 2)]
    positions = np.r_[np.zeros(len(others), dtype=np.int64), np.tile([3, 40], 12)]
    lexicon = passage_lexicon([keys[i] for i in order], vectors[order], docs, positions)
    inventory = induce_inventory(lexicon, min_count=5)
    assert inventory.n_senses("bank") == 2
    assert [round(sense.share, 6) for sense in inventory.senses_of("bank")] == [0.5, 0.5]
    assert inventory.corpus_polysemy_of("bank") > one_use_reference(12)[-1]


def test_label_words_count_a_passage_once():
    """'bank' in 24 passages (12 river, 12 money, the money snippets without a word in
    common); one money passage holds it twice more, both snippets with "vault". Counted per
    snippet, "vault" passes the two-snippet floor of a label word and labels the money
    sense; counted per passage it is seen once and is no label."""
    keys, vectors, _, _ = synthetic()
    bank = np.flatnonzero(np.array(keys) == "bank")
    others = np.flatnonzero(np.array(keys) != "bank")
    order = np.r_[others, bank, bank[[1, 3]]]  # two more money occurrences (odd ones are money)
    names = [keys[i] for i in order]
    positions = np.r_[np.zeros(len(others) + 24, dtype=np.int64), [30, 60]]
    snippets = [f"doc {i} [{key}]" for i, key in enumerate(names[: len(others)])]
    snippets += [
        f"the muddy river water [bank] spot{j}" if j % 2 == 0 else f"paid{j} coins{j} [bank]" for j in range(24)
    ]
    snippets += ["the vault [bank] today", "a vault [bank] now"]

    def money_words(docs):
        inventory = induce_inventory(
            passage_lexicon(names, vectors[order], docs, positions, snippets=snippets), min_count=5
        )
        assert inventory.n_senses("bank") == 2
        return [sense.label_words for sense in inventory.senses_of("bank") if "river" not in sense.label_words][0]

    shared = np.r_[np.arange(len(others)), 10_000 + np.arange(24), [10_001, 10_001]]  # with bank's 2nd occurrence
    assert "vault" not in money_words(shared)
    assert "vault" in money_words(np.arange(len(names)))  # the same snippets, each in a passage of its own


def test_sense_examples_come_from_distinct_passages_first():
    """'bank''s money occurrences: 6 passages each holding it twice, the second occurrence
    of each passage nearer the sense's centre than any first one. The examples are still
    first occurrences of 3 passages, not two snippets of one passage."""
    keys, vectors, river, money = synthetic()
    rng = np.random.default_rng(9)
    others = np.flatnonzero(np.array(keys) != "bank")
    bank_rows = [river + 0.05 * rng.normal(size=WIDTH) for _ in range(12)]
    bank_rows += [money + 0.3 * rng.normal(size=WIDTH) if j % 2 == 0 else money.copy() for j in range(12)]
    names = [keys[i] for i in others] + ["bank"] * 24
    docs = np.r_[np.arange(len(others)), 10_000 + np.arange(12), 20_000 + np.repeat(np.arange(6), 2)]
    positions = np.r_[np.zeros(len(others) + 12, dtype=np.int64), np.tile([5, 40], 6)]
    snippets = [f"doc {i} [{key}]" for i, key in enumerate(names[: len(others)])]
    snippets += [f"river {j} [bank]" for j in range(12)]
    snippets += [f"money passage {j // 2} {'first' if j % 2 == 0 else 'second'} [bank]" for j in range(12)]
    lexicon = passage_lexicon(names, np.vstack([vectors[others], np.array(bank_rows)]), docs, positions, snippets)
    inventory = induce_inventory(lexicon, min_count=5)
    assert inventory.n_senses("bank") == 2
    (money_sense,) = [sense for sense in inventory.senses_of("bank") if "money" in " ".join(sense.examples)]
    assert len(money_sense.examples) == 3 and all("first" in example for example in money_sense.examples)


def test_a_senses_examples_are_distinct_snippets():
    """A corpus written in a few set phrases repeats whole snippets: the river sense's
    nearest occurrences share one snippet, and its examples used to show it three times.
    Each example is shown once, the next nearest distinct snippet after it."""
    keys, vectors, river, money = synthetic()
    rng = np.random.default_rng(9)
    others = np.flatnonzero(np.array(keys) != "bank")
    bank_rows = [river + (0.01 if j < 8 else 0.3) * rng.normal(size=WIDTH) for j in range(12)]
    bank_rows += [money + 0.3 * rng.normal(size=WIDTH) for _ in range(12)]
    names = [keys[i] for i in others] + ["bank"] * 24
    docs = np.arange(len(names))
    positions = np.zeros(len(names), dtype=np.int64)
    snippets = [f"doc {i} [{key}]" for i, key in enumerate(names[: len(others)])]
    snippets += ["sat on the grassy [bank]" if j < 8 else f"river {j} [bank]" for j in range(12)]
    snippets += [f"money {j} [bank]" for j in range(12)]
    lexicon = passage_lexicon(names, np.vstack([vectors[others], np.array(bank_rows)]), docs, positions, snippets)
    inventory = induce_inventory(lexicon, min_count=5)
    assert inventory.n_senses("bank") == 2
    (river_sense,) = [sense for sense in inventory.senses_of("bank") if "grassy" in " ".join(sense.examples)]
    assert river_sense.examples[0] == "sat on the grassy [bank]"
    assert len(river_sense.examples) == 3 and len(set(river_sense.examples)) == 3


def test_label_words_seen_once_are_chosen_by_their_vectors_in_the_lexicon():
    """Each of 'bank''s occurrences holds a different context word, as in a small corpus
    (even occurrences are river ones, odd money): c-TF-IDF ties them all. Words the lexicon
    holds near the money meaning label the money sense, those near the river meaning the
    river sense; words the lexicon lacks ("zza", ...) never."""
    keys, vectors, river, money = synthetic()
    rng = np.random.default_rng(3)
    near = {"coins": money, "loan": money, "teller": money, "reeds": river, "otters": river, "mud": river}
    extra_keys = [word for word in near for _ in range(5)]
    extra = np.stack([near[word] + 0.05 * rng.normal(size=WIDTH) for word in extra_keys])
    all_keys, all_vectors = keys + extra_keys, np.vstack([vectors, extra])
    words = iter(["reeds", "coins", "otters", "loan", "mud", "teller"] + [f"zz{chr(97 + j)}" for j in range(18)])
    snippets = [f"the {next(words)} [bank]" if key == "bank" else f"doc {i} [{key}]" for i, key in enumerate(all_keys)]
    inventory = induce_inventory(lexicon_with_sample(all_keys, all_vectors, snippets=snippets), min_count=5)
    assert inventory.n_senses("bank") == 2
    labels = {frozenset(sense.label_words) for sense in inventory.senses_of("bank")}
    assert labels == {frozenset({"coins", "loan", "teller"}), frozenset({"reeds", "otters", "mud"})}


def test_a_word_of_one_point_as_stored_keeps_one_sense_whatever_the_projection_magnifies():
    """15 occurrences that are one float16 point with some parts moved one float16 step: the
    sense space removes most of their norm, which made that storage noise look like spread,
    and the word split in two with corpus_polysemy 1.67 (above its threshold)."""
    from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities
    from spacy_ctxvec.lexicon.sample import OccurrenceSample

    rng = np.random.default_rng(28)
    keys, rows = [], []
    for word in range(15):
        centre = rng.normal(size=16)
        for _ in range(10):
            keys.append(f"w{word:02d}")
            rows.append(centre + 0.5 * rng.normal(size=16))
    point = rng.normal(size=16).astype(np.float16)
    step = rng.choice([-1, 0, 1], size=(15, 16))
    up, down = np.nextafter(point, np.float16(np.inf)), np.nextafter(point, np.float16(-np.inf))
    keys += ["same"] * 15
    vectors = np.vstack([np.array(rows), np.where(step > 0, up, np.where(step < 0, down, point)).astype(np.float64)])
    priorities = occurrence_priorities(np.full(len(keys), 1, dtype=np.uint64), np.arange(len(keys)))
    snippets = [f"doc {i} [{key}]" for i, key in enumerate(keys)]
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=64)
    lexicon = Lexicon.from_occurrences(keys, vectors, meta={"key": "lower"}).with_sample(sample)
    induced = induce_inventory(lexicon, min_count=5, warn=False)
    polysemy, threshold = induced.corpus_polysemy_of("same"), induced.evidence_of("same")[1]
    assert induced.n_senses("same") == 1 and polysemy is not None and polysemy < -5 < threshold  # uses alone: -8.7
    # one more occurrence stored as zero (it takes no part) does not give the others spread
    keys.append("same")
    vectors = np.vstack([vectors, np.full((1, 16), 1e-9)])
    priorities = occurrence_priorities(np.full(len(keys), 1, dtype=np.uint64), np.arange(len(keys)))
    snippets.append(f"doc {len(keys) - 1} [same]")
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=64)
    lexicon = Lexicon.from_occurrences(keys, vectors, meta={"key": "lower"}).with_sample(sample)
    assert induce_inventory(lexicon, min_count=5, warn=False).n_senses("same") == 1


def test_occurrences_stored_as_zero_take_no_part_in_the_senses():
    """Ten of a word's 20 rows so small that float16 stores them as 0: centred in the sense
    space they became one point (minus the corpus mean) and a sense of their own."""
    rng = np.random.default_rng(1)
    keys = [f"w{i // 10:02d}" for i in range(200)] + ["hz"] * 20
    others = np.repeat(rng.normal(size=(20, 16)), 10, axis=0) + 0.3 * rng.normal(size=(200, 16))
    word = np.vstack([np.full((10, 16), 1e-9), rng.normal(size=16) + 0.3 * rng.normal(size=(10, 16))])
    vectors = np.vstack([others, word])
    lexicon = lexicon_with_sample(keys, vectors)
    assert int((lexicon.sample.rows_of("hz")[0] == 0).all(axis=1).sum()) == 10
    induced = induce_inventory(lexicon, min_count=5, warn=False)
    assert induced.n_senses("hz") == 1
