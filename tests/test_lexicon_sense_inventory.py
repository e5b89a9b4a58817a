"""SenseInventory on synthetic samples (induced by induce_inventory): a word with two
clear meanings gets two senses, words with one meaning get one; assignment, round
trips, damaged files and arrays of the wrong shape."""

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities
from spacy_ctxvec.lexicon.sample import OccurrenceSample
from spacy_ctxvec.lexicon.sense_induction import induce_inventory
from spacy_ctxvec.lexicon.sense_inventory import SenseInventory
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.senses import to_sense_space

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


def lexicon_with_sample(keys, vectors, k: int = 64, parts: int = 1, contexts=None, snippets=None) -> Lexicon:
    """A Lexicon with its occurrence sample (with ``contexts`` and ``snippets``, when
    given), merged from ``parts`` pieces."""
    priorities = occurrence_priorities(np.full(len(keys), 12345, dtype=np.uint64), np.arange(len(keys)))
    snippets = [f"doc {i} [{key}]" for i, key in enumerate(keys)] if snippets is None else snippets
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
    assert "banks" not in inventory and 3 not in inventory
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


def test_a_lower_keyed_inventory_finds_a_word_in_any_case_a_text_keyed_one_does_not(inventory):
    import copy

    assert inventory.settings["key"] == "lower" and "Bank" not in inventory.keys  # the keys stay as made
    assert "Bank" in inventory  # `in` finds a word as senses_of does
    described = [(s.index, s.share, s.label, s.examples) for s in inventory.senses_of("bank")]
    for spelling in ("Bank", "BANK"):
        assert [(s.index, s.share, s.label, s.examples) for s in inventory.senses_of(spelling)] == described
        assert inventory.n_senses(spelling) == 2 and inventory.word_index(spelling) == inventory.index("bank")
        assert inventory.corpus_polysemy_of(spelling) == inventory.corpus_polysemy_of("bank")
    text_keyed = copy.copy(inventory)
    text_keyed.settings = {**inventory.settings, "key": "text"}
    assert text_keyed.senses_of("Bank") == [] and text_keyed.n_senses("Bank") == 0 and text_keyed.n_senses("bank") == 2
    assert "Bank" not in text_keyed and "bank" in text_keyed


def test_a_word_with_an_invisible_character_or_combining_marks_is_found_as_its_token_is(inventory):
    """The token attributes found "ba\u200bnk" as "bank" (the corpus reading); senses_of, `in`,
    n_senses and corpus_polysemy_of did not: senses_of(token.text)[token._.sense] was an IndexError."""
    import copy

    for spelling in ("ba\u200bnk", "\ufeffBank", "bank\u00ad"):
        assert spelling in inventory and inventory.word_index(spelling) == inventory.index("bank")
        assert inventory.n_senses(spelling) == 2 and len(inventory.senses_of(spelling)) == 2
        assert inventory.corpus_polysemy_of(spelling) == inventory.corpus_polysemy_of("bank")
    accented = copy.copy(inventory)
    accented.keys, accented._index = ["caf\u00e9" if key == "bank" else key for key in inventory.keys], None
    assert accented.n_senses("cafe\u0301") == 2  # "e" + a combining acute is "\u00e9" (NFC)


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
            "corpus_polysemy.npy",
            "margin_scales.npy",
            "judged.npy",
            "split_thresholds.npy",
        ]
    )


def test_an_inventory_saved_before_labels_scores_and_corpus_polysemy_loads_with_none(inventory, tmp_path):
    """Issue 21 added labels (in senses.json), corpus_polysemy.npy and margin_scales.npy;
    a directory without them (format version 1 as before) loads, with None for each."""
    import json

    inventory.to_disk(tmp_path / "senses")
    (tmp_path / "senses" / "corpus_polysemy.npy").unlink()
    (tmp_path / "senses" / "margin_scales.npy").unlink()
    (tmp_path / "senses" / "judged.npy").unlink()
    (tmp_path / "senses" / "split_thresholds.npy").unlink()
    header = json.loads((tmp_path / "senses" / "senses.json").read_text())
    del header["labels"]
    (tmp_path / "senses" / "senses.json").write_text(json.dumps(header))
    old = SenseInventory.from_disk(tmp_path / "senses")
    assert old.labels is None and old.corpus_polysemy is None and old.margin_scales is None
    assert old.judged is None and old.split_thresholds is None and old.evidence_of("bank") == (None, None)
    assert old != inventory and old.keys == inventory.keys
    bank = old.senses_of("bank")
    assert (
        len(bank) == 2 and bank[0].label_words == [] and bank[0].label == "" and old.corpus_polysemy_of("bank") is None
    )
    rows = np.array([old.index("bank"), old.index("w00")])
    senses, scores = old.assign_scored(rows, np.stack([old.vectors[0], old.vectors[old.offsets[rows[1]]]]))
    assert np.isnan(scores[0]) and scores[1] == 1.0  # several senses, no margin scale: unknown; one sense: 1.0
    np.testing.assert_array_equal(
        senses, inventory.assign(rows, np.stack([old.vectors[0], old.vectors[old.offsets[rows[1]]]]))
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
    from spacy_ctxvec.ops.senses import SenseSpace

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
    with pytest.raises(CtxvecError, match="E601.*centroids has shape") as raised:  # no context space
        SenseInventory.from_disk(tmp_path / "senses")
    assert "by hand" not in str(raised.value) and ".." not in str(raised.value)  # E600's advice is not E601's


@pytest.mark.parametrize("file", ["context_mean.npy", "context_directions.npy"])
def test_nan_in_the_context_space_is_a_coded_error(tmp_path, file):
    """It loaded silently and changed every sense score."""
    keys, vectors, contexts, _, _ = with_context_meanings()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors, contexts=contexts), min_count=5)
    inventory.to_disk(tmp_path / "senses")
    array = np.load(tmp_path / "senses" / file)
    array.flat[0] = np.nan
    _save_npy(tmp_path / "senses" / file, array)
    with pytest.raises(CtxvecError, match=r"E601.*senses.*the context space holds NaN or infinite values"):
        SenseInventory.from_disk(tmp_path / "senses")


def test_each_type_keeps_how_many_rows_were_judged_and_the_threshold_it_was_judged_against(inventory, data):
    from spacy_ctxvec.ops.sense_evidence import one_use_reference

    assert inventory.settings["split_rule"] == "evidence"
    for key in inventory.keys:
        judged, threshold = inventory.evidence_of(key)
        assert judged is not None and 1 <= judged <= 64
        if inventory.corpus_polysemy_of(key) is not None:  # judged on its usable rows: the one-use threshold at n
            assert threshold == pytest.approx(one_use_reference(judged)[-1])
            assert (inventory.n_senses(key) > 1) == (inventory.corpus_polysemy_of(key) > threshold)
    assert inventory.evidence_of("no-such-word") == (None, None)
    keys, vectors, _, _ = data
    for k in (1, 2):  # too few rows for a corpus_polysemy: no threshold it was compared with
        few = induce_inventory(lexicon_with_sample(keys, vectors, k=k), min_count=5)
        assert all(few.evidence_of(key) == (k, None) and few.corpus_polysemy_of(key) is None for key in few.keys)
    few.split_thresholds = np.full(len(few), 0.72)  # as an earlier version saved them
    assert all(few.evidence_of(key) == (2, None) for key in few.keys)


def test_a_label_edited_as_a_string_names_its_entry(inventory, tmp_path):
    """A hand edit writing "marriage" for ["marriage"] was told only "labels that are not
    lists of strings"; the message also ran E600's advice into E601's ("by hand.. Rebuild")."""
    import json

    inventory.to_disk(tmp_path / "senses")
    header = json.loads((tmp_path / "senses" / "senses.json").read_text())
    header["labels"][1] = "marriage"
    (tmp_path / "senses" / "senses.json").write_text(json.dumps(header))
    with pytest.raises(CtxvecError, match=r"\[CTX-E601\].*entry 1 is 'marriage' \(each sense's label is a list"):
        SenseInventory.from_disk(tmp_path / "senses")


def test_labels_given_as_strings_in_memory_are_e600_not_split_into_letters(inventory):
    """SenseInventory(..., labels=["marriage", ...]) kept ["m", "a", "r", ...] as the label."""
    from spacy_ctxvec.lexicon.sense_inventory import SenseInventory

    labels = ["marriage"] * inventory.n_senses_total
    with pytest.raises(CtxvecError, match=r"\[CTX-E600\].*labels must be lists of words"):
        SenseInventory(
            inventory.space,
            inventory.keys,
            inventory.offsets,
            inventory.centroids,
            inventory.vectors,
            inventory.shares,
            inventory.examples,
            inventory.settings,
            inventory.context_space,
            labels=labels,
        )


def at_margin(margin: float, first: int, second: int, width: int = 3) -> np.ndarray:
    """A unit row whose cosine with axis ``first`` exceeds its cosine with axis ``second`` by ``margin``."""
    angle = np.arccos(margin / np.sqrt(2)) - np.pi / 4
    row = np.zeros(width)
    row[first], row[second] = np.cos(angle), np.sin(angle)
    return row


def axes_inventory() -> SenseInventory:
    """'bank' (senses along axes 0 and 1, margin scale 0.2), 'lone' (one sense) and 'play'
    (axes 0, 1 and 2, margin scale 0.1), in a sense space that only normalises."""
    from spacy_ctxvec.ops.senses import SenseSpace

    centroids = np.eye(3)[[0, 1, 2, 0, 1, 2]]
    return SenseInventory(
        SenseSpace(np.zeros(3), np.zeros((0, 3))),
        ["bank", "lone", "play"],
        np.array([0, 2, 3, 6]),
        centroids,
        centroids,
        np.array([0.6, 0.4, 1.0, 0.5, 0.3, 0.2]),
        [["x"]] * 6,
        margin_scales=np.array([0.2, 1.0, 0.1]),  # one sense: its scale is not read
    )


def test_confidence_is_one_half_at_the_types_margin_scale_and_three_quarters_at_twice_it():
    """assign_scored's confidence is 1 - 2 ** (-margin / the type's margin scale), as documented:
    0.5 at a margin equal to the type's own scale, 0.75 at twice it (not 1 - e ** -1 at the scale)."""
    inventory = axes_inventory()
    rows = np.array([0, 0, 0, 2, 2, 1, -1])
    vectors = np.stack(
        [at_margin(0.2, 0, 1), at_margin(0.4, 0, 1), at_margin(0.2, 1, 0), at_margin(0.1, 2, 1)]
        + [at_margin(0.2, 2, 0), at_margin(0.5, 0, 1), np.ones(3)]
    )
    senses, scores = inventory.assign_scored(rows, vectors)
    assert senses.tolist() == [0, 0, 1, 2, 2, 0, -1]
    np.testing.assert_allclose(scores[:6], [0.5, 0.75, 0.5, 0.5, 0.75, 1.0], atol=1e-9)
    assert np.isnan(scores[6])


def test_an_occurrence_as_near_two_senses_gets_the_larger_one():
    """A tie goes to the larger (earlier) sense, as _assign documents, with confidence 0.0;
    a comparison that let the later sense win it gave sense 1 or 2."""
    inventory = axes_inventory()
    senses, scores = inventory.assign_scored(np.array([0, 2, 2]), np.array([[1.0, 1, 0], [0, 1, 1], [1, 1, 1]]))
    assert senses.tolist() == [0, 1, 0]
    np.testing.assert_allclose(scores, 0.0, atol=1e-9)
    assert inventory.assign(np.array([0, 2]), np.array([[1.0, 1, 0], [0, 1, 1]])).tolist() == [0, 1]
