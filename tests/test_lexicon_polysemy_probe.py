import hashlib
import json

import numpy as np
import pytest
from scipy.stats import spearmanr

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.polysemy_probe import (
    FITTED_ALL,
    FITTED_HALF,
    MIN_TRAINING_WORDS,
    PolysemyProbe,
    find_shipped_probe,
    first_difference,
    fit_probe,
    in_fitted_half,
    probe_features,
    sense_counts_for,
    shipped_probe_dirs,
    type_polysemy_scores,
    unfittable,
)
from spacy_ctxvec.lexicon.statistics import CONTEXT_VECTORS_META, Lexicon

WIDTH = 12
META = {"key": "lower", "layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [-2]}}


def planted_lexicon(seed: int = 0, n_types: int = 400, shuffle: bool = False):
    """Types whose centroid moves along one direction with log(sense count); noise in
    the other directions. Returns (lexicon, sense counts)."""
    rng = np.random.default_rng(seed)
    senses = rng.integers(1, 20, size=n_types)
    direction = np.zeros(WIDTH)
    direction[0] = 1.0
    keys, vectors = [], []
    for i in range(n_types):
        centre = direction * np.log(senses[i]) + 0.2 * rng.normal(size=WIDTH)
        centre[1] += 4.0  # keeps every centroid away from the origin
        n = int(rng.integers(5, 12))
        keys += [f"w{i:03d}"] * n
        vectors.append(centre + 0.3 * rng.normal(size=(n, WIDTH)))
    lexicon = Lexicon.from_occurrences(keys, np.concatenate(vectors), meta=META)
    counts = {f"w{i:03d}": int(s) for i, s in enumerate(rng.permutation(senses) if shuffle else senses)}
    return lexicon, counts


def held_out_spearman(probe, lexicon, counts):
    scores, valid = probe.scores(lexicon, 5)
    held = valid & ~in_fitted_half(lexicon.keys)
    truth = sense_counts_for(lexicon.keys, counts)
    return spearmanr(scores[held], truth[held])[0]


def test_features_are_the_unit_centroid_log_relative_frequency_and_self_similarity():
    lexicon, _ = planted_lexicon(n_types=30)
    features, valid = probe_features(lexicon, 5)
    assert features.shape == (len(lexicon), WIDTH + 2)
    np.testing.assert_allclose(features[:, :WIDTH], lexicon.unit_centroids())
    np.testing.assert_allclose(features[:, WIDTH], np.log(lexicon.counts / lexicon.counts.sum()))
    scores, expected_valid = lexicon.polysemy_scores(5)
    np.testing.assert_allclose(features[:, WIDTH + 1], scores)
    np.testing.assert_array_equal(valid, expected_valid)


def test_probe_finds_the_planted_direction_on_held_out_words_and_nothing_in_shuffled_counts():
    lexicon, counts = planted_lexicon()
    probe = fit_probe(lexicon, counts, min_count=5, half=True)
    assert held_out_spearman(probe, lexicon, counts) > 0.85
    with pytest.raises(ValueError, match="read-only"):  # zeroed weights kept the old scores, silently
        probe.weights[:] = 0.0
    shuffled_lexicon, shuffled = planted_lexicon(shuffle=True)
    control = fit_probe(shuffled_lexicon, shuffled, min_count=5, half=True)
    assert abs(held_out_spearman(control, shuffled_lexicon, shuffled)) < 0.2


def test_half_fits_only_the_even_md5_words_and_records_it():
    lexicon, counts = planted_lexicon(n_types=200)
    half = fit_probe(lexicon, counts, min_count=5, half=True)
    whole = fit_probe(lexicon, counts, min_count=5)
    assert half.meta["fitted_words"] == FITTED_HALF and whole.meta["fitted_words"] == FITTED_ALL
    assert half.meta["n_words"] == int(in_fitted_half(lexicon.keys).sum()) and whole.meta["n_words"] == 200
    assert half.meta["key"] == "lower" and half.meta["layers"] == META["layers"] and half.meta["width"] == WIDTH


def test_fit_on_two_lexicons_stacks_their_rows():
    first, counts = planted_lexicon(seed=1, n_types=100)
    second, _ = planted_lexicon(seed=2, n_types=100)
    both = fit_probe([first, second], counts, min_count=5)
    assert both.meta["n_words"] == 200
    other_layer = Lexicon.from_occurrences(["a"] * 5, np.ones((5, WIDTH)), meta={**META, "layers": [3]})
    with pytest.raises(CtxvecError, match="E650"):
        fit_probe([first, other_layer], counts, min_count=5)


def test_in_fitted_half_is_md5_parity():
    words = ["bank", "play", "hotel", "é", ""]
    expected = [int(hashlib.md5(w.encode("utf8")).hexdigest()[:8], 16) % 2 == 0 for w in words]
    assert in_fitted_half(words).tolist() == expected
    assert in_fitted_half(["bank"] * 3).tolist() == [expected[0]] * 3


def test_halves_are_taken_on_the_lower_case_form_and_older_probes_read_as_fitted():
    """Under key mode text, "Bank" (as written: odd) and "bank" (even) fell in different halves
    while sharing one sense count, so a held-out word shared its target with a fitted one."""
    from spacy_ctxvec.lexicon.polysemy_probe import lower_case_halves

    assert in_fitted_half(["Bank", "Harriet"]).tolist() == in_fitted_half(["bank", "harriet"]).tolist()
    assert in_fitted_half(["Bank"], lower=False).tolist() != in_fitted_half(["bank"]).tolist()
    assert lower_case_halves({"halves": "lower case", "key": "text"})  # fitted since
    assert not lower_case_halves({"key": "text"})  # fitted before: its halves as written
    assert lower_case_halves({"key": "lower"}) and lower_case_halves({})  # lower-case keys: the same either way


def test_too_few_words_is_a_coded_error():
    lexicon, counts = planted_lexicon(n_types=MIN_TRAINING_WORDS - 1)
    with pytest.raises(CtxvecError, match=r"E653.*larger corpus, lower --min-count, or check"):
        fit_probe(lexicon, counts, min_count=5)
    with pytest.raises(CtxvecError, match=r"E653.*larger corpus, or check") as at_least:
        fit_probe(lexicon, counts, min_count=2)  # the least --min-count: not advised lower
    assert "lower --min-count" not in str(at_least.value)
    lexicon, counts = planted_lexicon(n_types=40)
    with pytest.raises(CtxvecError, match=r"\[CTX-E655\] All 40 word types .* the same number of senses \(2\)"):
        fit_probe(lexicon, {key: 2 for key in counts}, min_count=5)  # one count for all: nothing to fit


def test_with_half_the_coded_errors_count_the_half_fitted_on_not_the_lexicon():
    lexicon, counts = planted_lexicon(n_types=80)  # varied counts; the md5-even half has 39 words
    even = {key: (1 if in_fitted_half([key])[0] else count) for key, count in counts.items()}
    with pytest.raises(CtxvecError, match=r"E655\] All 39 word types of the md5-even half fitted on with") as error:
        fit_probe(lexicon, even, min_count=5, half=True)
    assert "in the lexicon" not in str(error.value)
    assert fit_probe(lexicon, even, min_count=5).meta["n_words"] == 80  # the whole lexicon's counts differ
    few = {key: count for key, count in counts.items() if not in_fitted_half([key])[0] or key < "w010"}
    with pytest.raises(CtxvecError, match=r"E653\] Only \d+ word types of the md5-even half fitted on have") as error:
        fit_probe(lexicon, few, min_count=5, half=True)
    assert "in the lexicon" not in str(error.value).split(";")[0]
    with pytest.raises(CtxvecError, match=r"E653\] Only \d+ word types in the lexicon have"):
        fit_probe(lexicon, {key: counts[key] for key in list(counts)[:10]}, min_count=5)


def test_scores_are_exp_of_the_prediction_zero_where_invalid_and_never_overflow():
    lexicon, _ = planted_lexicon(n_types=30)
    constant = PolysemyProbe(np.zeros(WIDTH + 2), np.log(3.0), {"width": WIDTH})
    scores, valid = constant.scores(lexicon, 8)
    assert valid.any() and not valid.all()
    np.testing.assert_allclose(scores[valid], 3.0)
    assert (scores[~valid] == 0).all()
    huge = PolysemyProbe(np.full(WIDTH + 2, 1e6), 0.0, {"width": WIDTH})
    assert np.isfinite(huge.scores(lexicon, 5)[0]).all()


def test_bad_weights_and_meta_are_coded_errors():
    with pytest.raises(CtxvecError, match="E650"):
        PolysemyProbe(np.array([1.0, np.nan, 0.0, 1.0]), 0.0, {"width": 2})
    with pytest.raises(CtxvecError, match="E650"):
        PolysemyProbe(np.zeros(5), 0.0, {"width": 4})


def test_problem_with_names_what_differs():
    lexicon, counts = planted_lexicon(n_types=60)
    probe = fit_probe(lexicon, counts, min_count=5, model="abc")
    assert probe.problem_with(lexicon) is None and probe.problem_with(lexicon, "abc") is None
    assert "model" in probe.problem_with(lexicon, "xyz")
    other_layer = Lexicon.from_occurrences(
        lexicon.keys * 5, np.ones((5 * len(lexicon), WIDTH)), meta={**META, "layers": [3]}
    )
    assert "layers" in probe.problem_with(other_layer)
    narrow = Lexicon.from_occurrences(["a"] * 5, np.ones((5, 4)), meta=META)
    assert "width" in probe.problem_with(narrow)
    with pytest.raises(CtxvecError, match="E651"):
        probe.scores(narrow, 5)


def test_type_polysemy_scores_choose_the_definition():
    lexicon, counts = planted_lexicon(n_types=60)
    probe = fit_probe(lexicon, counts, min_count=5)
    self_similarity, valid = lexicon.polysemy_scores(5)
    scores, _, used = type_polysemy_scores(lexicon, probe, 5)
    assert used == "probe"
    np.testing.assert_allclose(scores, probe.scores(lexicon, 5)[0])
    for probe_given in (None, probe):
        forced, forced_valid, used = type_polysemy_scores(lexicon, probe_given, 5, "self_similarity")
        assert used == "self_similarity"
        np.testing.assert_array_equal(forced, self_similarity)
        np.testing.assert_array_equal(forced_valid, valid)
    assert type_polysemy_scores(lexicon, None, 5)[2] == "self_similarity"
    narrow = Lexicon.from_occurrences(["a"] * 5, np.ones((5, 4)), meta=META)
    assert type_polysemy_scores(narrow, probe, 5)[2] == "self_similarity"  # auto: the probe does not fit
    # "the component has no probe" for a lexicon directory, which has no component (rank LEXICON_DIR --score probe)
    with pytest.raises(CtxvecError, match="E651.*no probe is saved with it .*give the pipeline folder"):
        type_polysemy_scores(lexicon, None, 5, "probe")
    with pytest.raises(CtxvecError, match="E651"):
        type_polysemy_scores(narrow, probe, 5, "probe")
    with pytest.raises(CtxvecError, match="E654"):
        type_polysemy_scores(lexicon, probe, 5, "entropy")


def test_disk_and_bytes_round_trip(tmp_path):
    lexicon, counts = planted_lexicon(n_types=60)
    probe = fit_probe(lexicon, counts, min_count=5, model="abc", trained_on="planted")
    probe.to_disk(tmp_path / "probe")
    assert sorted(p.name for p in (tmp_path / "probe").iterdir()) == ["probe.json", "weights.npy"]
    for loaded in (PolysemyProbe.from_disk(tmp_path / "probe"), PolysemyProbe.from_bytes(probe.to_bytes())):
        np.testing.assert_array_equal(loaded.weights, probe.weights)
        assert loaded.intercept == probe.intercept and loaded.meta == probe.meta
        np.testing.assert_array_equal(loaded.scores(lexicon, 5)[0], probe.scores(lexicon, 5)[0])


@pytest.mark.parametrize(
    "damage,problem",
    [
        (lambda d: (d / "weights.npy").unlink(), "missing weights.npy"),
        (lambda d: (d / "weights.npy").write_bytes(b"nonsense"), "weights.npy"),
        (lambda d: (d / "probe.json").write_text("{"), "not valid JSON"),
        (lambda d: (d / "probe.json").write_text(json.dumps({"format_version": 99})), "unsupported format"),
        (
            lambda d: (d / "probe.json").write_text(
                json.dumps({"format_version": 1, "features": ["x"], "intercept": 0.0, "meta": {}})
            ),
            "features",
        ),
        (
            lambda d: (d / "probe.json").write_text(
                json.dumps({**json.loads((d / "probe.json").read_text()), "intercept": "a"})
            ),
            "intercept",
        ),
        (lambda d: np.save(d / "weights.npy", np.arange(WIDTH + 2)), "dtype"),
        (lambda d: np.save(d / "weights.npy", np.zeros(WIDTH + 5)), "width"),
    ],
)
def test_damaged_probe_is_a_coded_error_naming_the_path(tmp_path, damage, problem):
    lexicon, counts = planted_lexicon(n_types=60)
    fit_probe(lexicon, counts, min_count=5).to_disk(tmp_path / "probe")
    damage(tmp_path / "probe")
    with pytest.raises(CtxvecError, match="E652") as caught:
        PolysemyProbe.from_disk(tmp_path / "probe")
    assert str(tmp_path / "probe") in str(caught.value) and problem in str(caught.value)
    with pytest.raises(CtxvecError, match="E652"):
        PolysemyProbe.from_bytes(b"\x00garbage")


def test_shipped_probes_load_and_match_only_their_model():
    dirs = shipped_probe_dirs()
    assert dirs, "the package ships the probe of its default model"
    for path in dirs:
        probe = PolysemyProbe.from_disk(path)
        assert probe.model and probe.meta["fitted_words"] == FITTED_HALF
        lexicon = Lexicon.from_occurrences(
            ["a"] * 5 + ["b"] * 5,
            np.random.default_rng(0).normal(size=(10, probe.width)),
            meta={name: probe.meta[name] for name in ("key", "layers", "pooling") if name in probe.meta},
        )
        inputs = np.zeros((2, probe.input_width)) if probe.input_width else None
        assert find_shipped_probe(lexicon, probe.model, inputs) is not None
        assert find_shipped_probe(lexicon, "0000000000000000", inputs) is None


def test_split_senses_cut_leaves_most_monosemous_training_words_below_it():
    lexicon, counts = planted_lexicon()
    probe = fit_probe(lexicon, counts, min_count=5)
    cut = probe.split_senses
    assert cut is not None and cut == probe.meta["split_senses"]
    scores, valid = probe.scores(lexicon, 5)
    senses = sense_counts_for(lexicon.keys, counts)
    below = (scores[valid & (senses == 1)] <= cut).mean()
    assert 0.6 <= below <= 0.95  # the 80th percentile of cross-fitted estimates of the monosemous words
    assert (scores[valid & (senses >= 10)] > cut).mean() > 0.9
    no_monosemous = {key: max(2, count) for key, count in counts.items()}
    assert fit_probe(lexicon, no_monosemous, min_count=5).split_senses is None
    assert PolysemyProbe(np.zeros(WIDTH + 2), 0.0, {"width": WIDTH, "split_senses": True}).split_senses is None


# A probe that also reads the types' input embeddings
def planted_inputs(lexicon, counts, seed: int = 5, input_width: int = 6):
    """Input embeddings whose first coordinate carries log(sense count), plus noise."""
    rng = np.random.default_rng(seed)
    inputs = rng.normal(size=(len(lexicon), input_width))
    inputs[:, 0] = 2.0 * np.log(sense_counts_for(lexicon.keys, counts).clip(1)) + 0.1 * rng.normal(size=len(lexicon))
    return inputs


def test_a_probe_reading_input_embeddings_needs_them_and_uses_them():
    lexicon, counts = planted_lexicon(shuffle=True)  # the centroids carry nothing: the inputs must
    inputs = planted_inputs(lexicon, counts)
    probe = fit_probe(lexicon, counts, min_count=5, half=True, inputs=[inputs])
    assert probe.input_width == 6 and probe.features[-1] == "input_embedding" and len(probe.weights) == WIDTH + 2 + 6
    scores, valid = probe.scores(lexicon, 5, inputs)
    held = valid & ~in_fitted_half(lexicon.keys)
    assert spearmanr(scores[held], sense_counts_for(lexicon.keys, counts)[held])[0] > 0.9
    assert "input embeddings" in probe.problem_with(lexicon)
    assert "shape" in probe.problem_with(lexicon, inputs=inputs[:, :3])
    with pytest.raises(CtxvecError, match="E651"):
        probe.scores(lexicon, 5)
    assert type_polysemy_scores(lexicon, probe, 5)[2] == "self_similarity"  # auto without inputs
    assert type_polysemy_scores(lexicon, probe, 5, inputs=inputs)[2] == "probe"
    with pytest.raises(CtxvecError, match="E650"):
        fit_probe(lexicon, counts, min_count=5, inputs=[inputs, inputs])
    with pytest.raises(CtxvecError, match="E650"):
        probe_features(lexicon, 5, inputs[:-1])


def test_an_input_probe_round_trips_and_a_header_that_disagrees_is_refused(tmp_path):
    lexicon, counts = planted_lexicon(n_types=60)
    inputs = planted_inputs(lexicon, counts)
    probe = fit_probe(lexicon, counts, min_count=5, inputs=[inputs])
    probe.to_disk(tmp_path / "probe")
    for loaded in (PolysemyProbe.from_disk(tmp_path / "probe"), PolysemyProbe.from_bytes(probe.to_bytes())):
        assert loaded.features == probe.features and loaded.input_width == 6
        np.testing.assert_array_equal(loaded.scores(lexicon, 5, inputs)[0], probe.scores(lexicon, 5, inputs)[0])
    header = json.loads((tmp_path / "probe" / "probe.json").read_text())
    header["features"] = header["features"][:-1]
    (tmp_path / "probe" / "probe.json").write_text(json.dumps(header))
    with pytest.raises(CtxvecError, match="E652"):
        PolysemyProbe.from_disk(tmp_path / "probe")
    with pytest.raises(CtxvecError, match="E650"):
        PolysemyProbe(np.zeros(WIDTH + 2), 0.0, {"width": WIDTH, "input_width": -1})


def test_input_scale_is_a_heavier_penalty_on_the_input_weights_and_the_probe_reads_inputs_as_given():
    lexicon, counts = planted_lexicon(shuffle=True)
    inputs = planted_inputs(lexicon, counts)
    scaled = fit_probe(lexicon, counts, min_count=5, half=True, inputs=[inputs], input_scale=0.5, alphas=[1.0])
    by_hand = fit_probe(lexicon, counts, min_count=5, half=True, inputs=[0.5 * inputs], alphas=[1.0])
    np.testing.assert_allclose(scaled.scores(lexicon, 5, inputs)[0], by_hand.scores(lexicon, 5, 0.5 * inputs)[0])
    assert scaled.meta["input_scale"] == 0.5 and scaled.split_senses == pytest.approx(by_hand.split_senses)
    plain = fit_probe(lexicon, counts, min_count=5, half=True, inputs=[inputs], alphas=[1.0])
    assert np.abs(scaled.weights[WIDTH + 2 :]).sum() < np.abs(plain.weights[WIDTH + 2 :]).sum()
    for bad in (0, -1.0, float("nan"), float("inf"), True, "2"):
        with pytest.raises(CtxvecError, match="E650"):
            fit_probe(lexicon, counts, min_count=5, inputs=[inputs], input_scale=bad)


def test_where_both_record_how_the_vectors_were_made_that_decides_the_match():
    """Layer 5 and layer -2 of 6 are one layer: a probe fitted on one fits a lexicon built
    with the other where both record the vectors (CONTEXT_VECTORS_META); where either does
    not, the layer settings must be equal as before; the key always."""
    made = "layer 5 of 6, pooled by pool_mean"
    lexicon, counts = planted_lexicon(n_types=200)
    lexicon.meta[CONTEXT_VECTORS_META] = made
    probe = fit_probe(lexicon, counts, min_count=5)
    assert probe.meta[CONTEXT_VECTORS_META] == made
    by_number = {**lexicon.meta, "layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [5]}}
    assert first_difference(probe.meta, by_number) is None
    assert first_difference(probe.meta, {**by_number, CONTEXT_VECTORS_META: "the last layer, pooled by pool_mean"}) == (
        CONTEXT_VECTORS_META,
        made,
        "the last layer, pooled by pool_mean",
    )
    assert first_difference(probe.meta, {**by_number, "key": "text"})[0] == "key"
    unrecorded = {name: value for name, value in by_number.items() if name != CONTEXT_VECTORS_META}
    assert first_difference(probe.meta, unrecorded)[0] == "layers"
    assert first_difference(probe.meta, {**unrecorded, "layers": META["layers"]}) is None
    other = Lexicon.from_occurrences(lexicon.keys, lexicon.unit_centroids(), meta=by_number)
    assert probe.problem_with(other) is None


def test_why_a_probe_cannot_be_fitted_on_some_targets():
    counts = np.log(np.arange(1, MIN_TRAINING_WORDS + 1, dtype=np.float64))
    assert unfittable(counts) is None
    assert unfittable(counts[:-1]) == ("too_few", None)
    assert unfittable(np.full(MIN_TRAINING_WORDS, np.log(3.0))) == ("one_count", 3)
    assert unfittable(np.zeros(0)) == ("too_few", None)
