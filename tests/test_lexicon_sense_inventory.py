"""SenseInventory and induce_inventory on synthetic samples: a word with two clear
meanings gets two senses, words with one meaning get one; assignment, round trips,
damaged files."""

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.sample import OccurrenceSample, occurrence_priorities
from spacy_ctxvec.lexicon.sense_inventory import (
    SenseInventory,
    describe_context,
    describe_split_thresholds,
    fit_corpus_sense_space,
    induce_inventory,
)
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.senses import SPLIT_THRESHOLDS, SenseInductionSettings, fit_sense_space, spread, to_sense_space

WIDTH = 32


def synthetic(seed: int = 0, noise: float = 0.05, n_words: int = 30, per_word: int = 20):
    """(keys, vectors): n_words one-meaning words, 'bank' with two meanings (even
    occurrences near ``river``, odd near ``money``), 'rare' seen twice."""
    rng = np.random.default_rng(seed)
    keys, vectors = [], []
    for w in range(n_words):
        centre = rng.normal(size=WIDTH)
        for _ in range(per_word):
            keys.append(f"w{w:02d}")
            vectors.append(centre + noise * rng.normal(size=WIDTH))
    river, money = rng.normal(size=WIDTH), rng.normal(size=WIDTH)
    for j in range(24):
        keys.append("bank")
        vectors.append((river if j % 2 == 0 else money) + noise * rng.normal(size=WIDTH))
    for _ in range(2):
        keys.append("rare")
        vectors.append(rng.normal(size=WIDTH))
    return keys, np.array(vectors), river, money


def lexicon_with_sample(keys, vectors, k: int = 64, parts: int = 1, contexts=None) -> Lexicon:
    """A Lexicon with its occurrence sample (with ``contexts``, when given), merged from
    ``parts`` pieces."""
    priorities = occurrence_priorities(np.full(len(keys), 12345, dtype=np.uint64), np.arange(len(keys)))
    snippets = [f"doc {i} [{key}]" for i, key in enumerate(keys)]
    pieces = np.array_split(np.arange(len(keys)), parts)
    result = None
    for rows in pieces:
        part = Lexicon.from_occurrences([keys[i] for i in rows], vectors[rows], meta={"key": "lower"})
        sample = OccurrenceSample.from_occurrences(
            [keys[i] for i in rows],
            vectors[rows],
            priorities[rows],
            [snippets[i] for i in rows],
            k=k,
            contexts=None if contexts is None else contexts[rows],
        )
        part = part.with_sample(sample)
        result = part if result is None else result.merge(part)
    return result


@pytest.fixture(scope="module")
def data():
    return synthetic()


@pytest.fixture(scope="module")
def inventory(data):
    keys, vectors, _, _ = data
    return induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)


def test_two_meanings_give_two_senses_one_meaning_gives_one(inventory):
    assert inventory.n_senses("bank") == 2
    assert all(inventory.n_senses(f"w{w:02d}") == 1 for w in range(30))
    assert inventory.keys == sorted(inventory.keys) and "bank" in inventory
    assert inventory.centroids.dtype == np.float32 and inventory.vectors.dtype == np.float32
    assert inventory.centroids.shape == inventory.vectors.shape == (inventory.n_senses_total, WIDTH)
    norms = np.linalg.norm(inventory.centroids, axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)


def test_types_below_min_count_have_no_senses(inventory):
    assert "rare" not in inventory and inventory.n_senses("rare") == 0 and inventory.senses_of("rare") == []
    assert inventory.n_senses("never seen") == 0
    assert inventory.type_rows(["bank", "rare", "w00"]).tolist() == [
        inventory.index("bank"),
        -1,
        inventory.index("w00"),
    ]


def test_sense_vectors_are_member_means_and_shares_and_examples(data, inventory):
    keys, vectors, river, money = data
    senses = inventory.senses_of("bank")
    assert [s.index for s in senses] == [0, 1]
    assert sum(s.share for s in senses) == pytest.approx(1.0) and senses[0].share == pytest.approx(0.5)
    sample = lexicon_with_sample(keys, vectors).sample
    rows, snippets = sample.rows_of("bank")
    members_of = {}
    for s in senses:
        members = [i for i, snippet in enumerate(snippets) if snippet in s.examples]
        assert 1 <= len(members) == len(s.examples) <= 3
        members_of[s.index] = members
    for s in senses:
        # the sense's static vector is the mean raw vector of its members: the meaning it stands for
        near = river if np.linalg.norm(s.vector - river) < np.linalg.norm(s.vector - money) else money
        in_sense = [i for i in range(len(rows)) if np.linalg.norm(rows[i].astype(np.float64) - near) < 1.0]
        np.testing.assert_allclose(s.vector, rows[in_sense].astype(np.float64).mean(axis=0), atol=1e-5)
    assert np.linalg.norm(senses[0].vector - senses[1].vector) > 1.0


def test_assign_picks_the_nearest_sense_of_the_own_type(data, inventory):
    _, _, river, money = data
    rng = np.random.default_rng(7)
    occurrences = np.stack([river, money, river, money]) + 0.05 * rng.normal(size=(4, WIDTH))
    bank = inventory.index("bank")
    assigned = inventory.assign(np.array([bank] * 4), occurrences)
    assert assigned[0] == assigned[2] != assigned[1] == assigned[3]
    senses = inventory.senses_of("bank")
    river_sense = int(np.argmin([np.linalg.norm(s.vector - river) for s in senses]))
    assert assigned[0] == river_sense
    # unknown (-1) rows get -1; a one-sense type always gets 0; rows map to global sense rows
    mixed = inventory.assign(np.array([-1, inventory.index("w03"), bank]), np.stack([river, river, money]))
    assert mixed.tolist() == [-1, 0, int(assigned[1])]
    rows = inventory.sense_rows(np.array([-1, bank]), np.array([0, assigned[1]]))
    assert rows[0] == -1 and rows[1] == inventory.offsets[bank] + assigned[1]
    assert inventory.assign(np.zeros(0, dtype=np.int64), np.zeros((0, WIDTH))).shape == (0,)
    with pytest.raises(CtxvecError, match="E600.*width 5"):
        inventory.assign(np.array([bank]), np.ones((1, 5)))


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


def test_default_split_threshold_is_calibrated_and_saved_as_null(data):
    keys, vectors, _, _ = data
    inventory = induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)
    assert inventory.settings["split_threshold"] is None and inventory.settings["min_share"] == 0.1
    assert SenseInventory.from_bytes(inventory.to_bytes()).settings == inventory.settings


def test_few_types_use_the_shipped_thresholds_and_say_so(inventory):
    # 31 types: too few to calibrate on (MIN_CALIBRATION_TYPES), so the absolute table decides
    assert inventory.settings["split_calibrated_sizes"] == 0 and inventory.settings["split_percentile"] == 82.0
    assert [tuple(row) for row in inventory.settings["split_thresholds"]] == list(SPLIT_THRESHOLDS)
    assert describe_split_thresholds(inventory.settings).startswith("the shipped split thresholds (too few types")


def test_thresholds_are_calibrated_on_a_corpus_with_enough_types():
    keys, vectors, _, _ = synthetic(n_words=150, per_word=12, noise=0.3)
    lexicon = lexicon_with_sample(keys, vectors)
    inventory = induce_inventory(lexicon, min_count=5)
    table = [tuple(row) for row in inventory.settings["split_thresholds"]]
    assert inventory.settings["split_calibrated_sizes"] == 1  # 150 types with 12 rows: the band n = 12 .. 15
    spreads = []
    for key in inventory.keys:
        rows, _ = lexicon.sample.rows_of(key)
        if len(rows) == 12:
            spreads.append(spread(to_sense_space(rows.astype(np.float64), inventory.space)))
    assert len(spreads) == 150 and dict(table)[12] == pytest.approx(np.percentile(spreads, 82.0), abs=1e-6)
    assert "calibrated on this corpus (percentile 82 of" in describe_split_thresholds(inventory.settings)
    assert SenseInventory.from_bytes(inventory.to_bytes()).settings == inventory.settings
    shipped = induce_inventory(lexicon, SenseInductionSettings(split_percentile=None), min_count=5)
    assert shipped.settings["split_calibrated_sizes"] == 0 and shipped.settings["split_percentile"] is None
    assert [tuple(row) for row in shipped.settings["split_thresholds"]] == list(SPLIT_THRESHOLDS)
    fixed = induce_inventory(lexicon, SenseInductionSettings(split_threshold=0.3), min_count=5)
    assert fixed.settings["split_thresholds"] is None and describe_split_thresholds(fixed.settings).startswith(
        "split threshold 0.3"
    )


def test_empty_sample_gives_an_empty_inventory():
    lexicon = Lexicon.empty(WIDTH, sample_size=8, meta={"key": "lower"})
    inventory = induce_inventory(lexicon, min_count=2)
    assert len(inventory) == 0 and inventory.n_senses_total == 0 and inventory.width == WIDTH
    assert SenseInventory.from_bytes(inventory.to_bytes()) == inventory
    assert inventory.assign(np.array([-1, -1]), np.ones((2, WIDTH))).tolist() == [-1, -1]


def test_round_trips_disk_and_bytes(inventory, tmp_path):
    inventory.to_disk(tmp_path / "senses")
    loaded = SenseInventory.from_disk(tmp_path / "senses")
    assert loaded == inventory and loaded.settings == inventory.settings
    assert SenseInventory.from_bytes(inventory.to_bytes()) == inventory
    assert sorted(p.name for p in (tmp_path / "senses").iterdir()) == sorted(
        [
            "senses.json",
            "keys.json",
            "examples.json",
            "mean.npy",
            "directions.npy",
            "offsets.npy",
            "centroids.npy",
            "vectors.npy",
            "shares.npy",
        ]
    )


def _save_npy(path, array):
    np.save(path, array, allow_pickle=False)


@pytest.mark.parametrize(
    "file,damage,problem",
    [
        ("offsets.npy", lambda p: p.write_bytes(p.read_bytes()[:-4]), "offsets.npy is truncated"),
        ("centroids.npy", lambda p: p.write_bytes(b""), "centroids.npy is truncated"),
        ("keys.json", lambda p: p.write_text('["bank", 3', encoding="utf8"), "keys.json is not valid JSON"),
        ("keys.json", lambda p: p.write_text('["bank", 3]', encoding="utf8"), "keys.json is not a list of strings"),
        ("keys.json", lambda p: p.write_text('["bank"]', encoding="utf8"), "offsets has shape"),
        (
            "examples.json",
            lambda p: p.write_text('[["a"], 5]', encoding="utf8"),
            "examples.json is not a list of lists",
        ),
        ("vectors.npy", lambda p: _save_npy(p, np.load(p).astype(np.float64)), "vectors.npy holds float64"),
        ("shares.npy", lambda p: _save_npy(p, np.full_like(np.load(p), np.nan)), "shares holds NaN"),
        ("offsets.npy", lambda p: _save_npy(p, np.load(p)[::-1].copy()), "offsets must start at 0"),
        ("senses.json", lambda p: p.write_text('{"format_version": 99}', encoding="utf8"), "unsupported format"),
        ("directions.npy", lambda p: p.unlink(), "missing directions.npy"),
    ],
)
def test_damaged_files_are_coded_errors_naming_the_path(inventory, tmp_path, file, damage, problem):
    inventory.to_disk(tmp_path / "senses")
    damage(tmp_path / "senses" / file)
    with pytest.raises(CtxvecError, match=r"E601.*senses.*" + problem):
        SenseInventory.from_disk(tmp_path / "senses")


def test_damaged_bytes_are_coded_errors(inventory):
    data = inventory.to_bytes()
    for damaged in (data[: len(data) // 2], b"", b"\x00garbage"):
        with pytest.raises(CtxvecError, match="E601"):
            SenseInventory.from_bytes(damaged)


def test_inconsistent_arrays_are_refused(inventory):
    with pytest.raises(CtxvecError, match="E600.*every key must have at least one sense"):
        SenseInventory(
            inventory.space,
            ["a", "b"],
            np.array([0, 1, 1]),
            np.zeros((1, WIDTH)),
            np.zeros((1, WIDTH)),
            np.ones(1),
            [["x"]],
        )
    with pytest.raises(CtxvecError, match="E600.*sorted"):
        SenseInventory(
            inventory.space,
            ["b", "a"],
            np.array([0, 1, 2]),
            np.zeros((2, WIDTH)),
            np.zeros((2, WIDTH)),
            np.ones(2),
            [["x"], ["y"]],
        )


def test_assign_equals_the_argmax_over_each_types_own_centroids():
    from spacy_ctxvec.ops.cosine import normalise_rows
    from spacy_ctxvec.ops.senses import SenseSpace, to_sense_space

    rng = np.random.default_rng(11)
    width, offsets = 6, np.array([0, 3, 4, 6, 14])
    space = SenseSpace(rng.normal(size=width), normalise_rows(rng.normal(size=(1, width))))
    centroids = normalise_rows(rng.normal(size=(14, width)))
    inventory = SenseInventory(
        space, ["a", "b", "c", "d"], offsets, centroids, rng.normal(size=(14, width)), np.full(14, 0.25), [["x"]] * 14
    )
    type_rows = rng.integers(-1, 4, size=500)
    vectors = rng.normal(size=(500, width))
    assigned = inventory.assign(type_rows, vectors)
    units = to_sense_space(vectors, space)
    for i, t in enumerate(type_rows):
        if t < 0:
            assert assigned[i] == -1
        else:
            own = inventory.centroids[offsets[t] : offsets[t + 1]].astype(np.float64)
            assert assigned[i] == int(np.argmax(own @ units[i]))


def with_context_meanings(seed: int = 1):
    """(keys, vectors, contexts): 30 one-meaning words and 'bank' (24 occurrences) whose
    token vectors spread enough to split but do not show the two meanings, while its
    contexts do (even occurrences near ``river_context``, odd near ``money_context``)."""
    keys, vectors, _, _ = synthetic(seed)
    rng = np.random.default_rng(seed)
    contexts = rng.normal(size=vectors.shape)
    bank = np.flatnonzero(np.array(keys) == "bank")
    vectors[bank] = vectors[bank[0]] + 0.8 * rng.normal(size=(len(bank), WIDTH))
    river_context, money_context = rng.normal(size=WIDTH), rng.normal(size=WIDTH)
    contexts[bank] = np.where(
        (np.arange(len(bank)) % 2 == 0)[:, None], river_context, money_context
    ) + 0.05 * rng.normal(size=(len(bank), WIDTH))
    return keys, vectors, contexts, river_context, money_context


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
    assert describe_context(alone.settings) == "clustered on the occurrences' own vectors (no context vectors)"
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


def test_an_inventory_with_a_context_space_round_trips_and_refuses_half_of_it(tmp_path):
    keys, vectors, contexts, _, _ = with_context_meanings()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors, contexts=contexts), min_count=5)
    inventory.to_disk(tmp_path / "senses")
    assert SenseInventory.from_disk(tmp_path / "senses") == inventory
    assert SenseInventory.from_bytes(inventory.to_bytes()) == inventory
    assert {"context_mean.npy", "context_directions.npy"} <= {p.name for p in (tmp_path / "senses").iterdir()}
    (tmp_path / "senses" / "context_directions.npy").unlink()
    with pytest.raises(CtxvecError, match="E601.*context_mean and context_directions must be saved together"):
        SenseInventory.from_disk(tmp_path / "senses")
    (tmp_path / "senses" / "context_mean.npy").unlink()
    with pytest.raises(
        CtxvecError, match="E601.*centroids has shape"
    ):  # centroids of the joined space, no context space
        SenseInventory.from_disk(tmp_path / "senses")


def test_context_weight_out_of_range_is_a_coded_error(data):
    keys, vectors, _, _ = data
    for value in (-0.5, float("nan"), 11.0, True):
        with pytest.raises(CtxvecError, match="E603.*context_weight"):
            induce_inventory(
                lexicon_with_sample(keys, vectors), SenseInductionSettings(context_weight=value), min_count=5
            )


# A polysemy probe deciding which types split (issue 11, session 7)
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
    by_probe = induce_inventory(lexicon, min_count=5, probe=probe)
    assert by_probe.settings["split_rule"] == "probe" and by_probe.settings["split_senses"] == 3.0
    split = {key for key in by_probe.keys if by_probe.n_senses(key) > 1}
    forced = induce_inventory(
        lexicon, SenseInductionSettings(split_threshold=0.0), min_count=5
    )  # every type tries to split
    expected = {key for key in by_probe.keys if scores[lexicon.index(key)] > 3.0 and forced.n_senses(key) > 1}
    assert split == expected and "w01" in split and "bank" not in split
    assert "polysemy probe estimates more than 3.00 senses" in describe_split_thresholds(by_probe.settings)
    for spread_rule in (
        induce_inventory(lexicon, SenseInductionSettings(split_by_probe=False), min_count=5, probe=probe),
        induce_inventory(lexicon, min_count=5, probe=probe_estimating(lexicon, estimates, None)),
        induce_inventory(lexicon, min_count=5),
    ):
        assert spread_rule.settings["split_rule"] == "spread" and spread_rule.settings["split_senses"] is None
        assert spread_rule.n_senses("bank") == 2 and spread_rule.n_senses("w00") == 1
    with pytest.raises(CtxvecError, match="E603"):
        SenseInductionSettings(split_by_probe="yes")
