import itertools

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import CONTEXT_VECTORS_META, Lexicon, merge, merge_all


def random_occurrences(seed: int, n_occ: int = 300, width: int = 16, n_types: int = 12):
    rng = np.random.default_rng(seed)
    type_ids = rng.integers(0, n_types, size=n_occ)
    centres = rng.normal(size=(n_types, width))
    spread = rng.uniform(0.2, 2.0, size=n_types)[type_ids, None]
    vectors = centres[type_ids] + spread * rng.normal(size=(n_occ, width)) + 0.5
    keys = [f"w{i}" for i in type_ids]
    return keys, vectors.astype(np.float32)


def unit(vectors):
    vectors = np.asarray(vectors, dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def brute_self_similarity(vectors):
    u = unit(vectors)
    cos = u @ u.T
    n = len(u)
    return (cos.sum() - np.trace(cos)) / (n * (n - 1))


def test_self_similarity_matches_brute_force_pairwise_mean():
    keys, vectors = random_occurrences(0)
    lexicon = Lexicon.from_occurrences(keys, vectors)
    self_sim = lexicon.self_similarity()
    keys_array = np.array(keys)
    for i, key in enumerate(lexicon.keys):
        rows = vectors[keys_array == key]
        assert lexicon.counts[i] == len(rows)
        assert self_sim[i] == pytest.approx(brute_self_similarity(rows), abs=1e-8)


def test_baseline_matches_brute_force_mean_over_different_types():
    keys, vectors = random_occurrences(1, n_occ=200)
    lexicon = Lexicon.from_occurrences(keys, vectors)
    u = unit(vectors)
    cos = u @ u.T
    keys_array = np.array(keys)
    different = keys_array[:, None] != keys_array[None, :]
    assert lexicon.anisotropy_baseline() == pytest.approx(cos[different].mean(), abs=1e-8)


def test_polysemy_score_formula_and_min_count():
    keys, vectors = random_occurrences(2)
    lexicon = Lexicon.from_occurrences(keys, vectors)
    scores, valid = lexicon.polysemy_scores(min_count=2)
    expected = (1 - lexicon.self_similarity().data) / (1 - lexicon.anisotropy_baseline())
    np.testing.assert_allclose(scores[valid], expected[valid])
    threshold = int(np.median(lexicon.counts)) + 1
    _, valid_high = lexicon.polysemy_scores(min_count=threshold)
    np.testing.assert_array_equal(valid_high, lexicon.counts >= threshold)
    with pytest.raises(CtxvecError, match="E208"):
        lexicon.polysemy_scores(min_count=1)


def test_spread_type_scores_above_tight_type():
    rng = np.random.default_rng(3)
    tight = np.ones((50, 8)) + 0.05 * rng.normal(size=(50, 8))
    spread = rng.normal(size=(50, 8))
    other = rng.normal(size=(50, 8)) + 2
    lexicon = Lexicon.from_occurrences(["hotel"] * 50 + ["bank"] * 50 + ["x"] * 50, np.vstack([tight, spread, other]))
    scores, valid = lexicon.polysemy_scores(min_count=2)
    assert valid.all()
    assert scores[lexicon.index("bank")] > scores[lexicon.index("hotel")] + 0.5


def test_merge_is_order_independent_and_associative_bitwise():
    """Merging parts in any order gives the lexicon of the whole, its count of zero rows
    included (a merge kept only its first part's count)."""
    keys, vectors = random_occurrences(4, n_occ=400)
    vectors[::37] = 0.0  # rows without a vector, in every part: 11 of them
    parts = [Lexicon.from_occurrences(keys[i : i + 100], vectors[i : i + 100]) for i in range(0, 400, 100)]
    whole = Lexicon.from_occurrences(keys, vectors)
    assert [part.n_skipped_zero for part in parts] == [3, 3, 3, 2] and whole.n_skipped_zero == 11
    results = [merge_all(order) for order in itertools.permutations(parts)]
    for result in results:
        assert result == whole and result.n_skipped_zero == 11
    a, b, c = parts[:3]
    assert merge(merge(a, b), c) == merge(a, merge(b, c))
    assert a.merge(b) == b.merge(a)
    assert (merge(merge(a, b), c).self_similarity().data == merge(c, merge(b, a)).self_similarity().data).all()
    assert merge(a, Lexicon.empty(a.width)) == a


def test_count_of_is_the_occurrence_count_and_zero_for_unseen_keys():
    lexicon = Lexicon.from_occurrences(["bank", "river", "bank"], np.ones((3, 4)))
    assert (lexicon.count_of("bank"), lexicon.count_of("river"), lexicon.count_of("loan")) == (2, 1, 0)
    assert lexicon.count_of("Bank") == 0  # no key mode recorded: as written
    lower = Lexicon.from_occurrences(["bank", "river", "bank"], np.ones((3, 4)), meta={"key": "lower"})
    assert lower.count_of("Bank") == lower.count_of("BANK") == 2  # key mode "lower": any letter case
    cased = Lexicon.from_occurrences(["Bank", "bank"], np.ones((2, 4)), meta={"key": "text"})
    assert (cased.count_of("Bank"), cased.count_of("bank"), cased.count_of("BANK")) == (1, 1, 0)


def test_merge_refuses_other_width():
    a = Lexicon.from_occurrences(["x", "x"], np.ones((2, 4)))
    b = Lexicon.from_occurrences(["x", "x"], np.ones((2, 5)))
    with pytest.raises(CtxvecError, match="E206"):
        merge(a, b)


def test_no_nan_with_single_occurrences_zero_vectors_and_one_type():
    vectors = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    lexicon = Lexicon.from_occurrences(["a", "b", "c", "a"], vectors)
    assert lexicon.keys == ["b", "c"]  # "a" only had zero vectors: not counted
    assert lexicon.n_skipped_zero == 2
    self_sim = lexicon.self_similarity()
    assert self_sim.mask.all() and not np.isnan(self_sim.data).any()
    scores, valid = lexicon.polysemy_scores(min_count=2)
    assert not valid.any() and not np.isnan(scores).any()
    one_type = Lexicon.from_occurrences(["a", "a"], np.array([[1.0, 0.0], [1.0, 0.0]]))
    assert one_type.anisotropy_baseline() == 0.0 and not one_type.has_baseline()  # no pair of different words
    assert not np.isnan(one_type.polysemy_scores(2)[0]).any()
    empty = Lexicon.empty(3)
    assert empty.anisotropy_baseline() == 0.0 and len(empty.polysemy_scores(2)[0]) == 0 and not empty.has_baseline()
    assert Lexicon.from_occurrences(["a", "b"], np.array([[1.0, 0.0], [1.0, 0.0]])).has_baseline()


def test_non_finite_vectors_are_an_error():
    with pytest.raises(CtxvecError, match="E203"):
        Lexicon.from_occurrences(["a", "b"], np.array([[1.0, np.nan], [1.0, 0.0]]))


def test_overflow_guard_for_large_raw_values():
    """The default holds a pre-layer-norm model's "massive activations" (GPT-2's middle layers
    reach thousands: 1024 was the limit, and build-lexicon had no way past E204)."""
    massive = np.array([[5000.0, 0.0], [-16384.0, 0.25]])
    lexicon = Lexicon.from_occurrences(["a", "b"], massive)
    assert lexicon.centroids().tolist() == massive.tolist()
    with pytest.raises(CtxvecError, match=r"E204.*16,390 exceeds 16,384.*Count another layer \(build-lexicon --layer"):
        Lexicon.from_occurrences(["a"], np.array([[16390.0, 0.0]]))
    with pytest.raises(CtxvecError, match="E204"):
        Lexicon.from_occurrences(["a", "b"], massive, raw_scale_bits=20)


def test_a_lexicon_of_the_earlier_scale_loads_and_says_why_it_does_not_merge(tmp_path):
    """E206 blamed the pipeline, layer or key mode, which were the same: the version differed."""
    old = Lexicon.from_occurrences(["a", "b"], np.array([[1.0, 2.0], [3.0, 4.0]]), raw_scale_bits=20)
    old.to_disk(tmp_path / "old")
    loaded = Lexicon.from_disk(tmp_path / "old")
    assert loaded.raw_scale_bits == 20 and loaded.centroids().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    new = Lexicon.from_occurrences(["a"], np.array([[1.0, 2.0]]))
    with pytest.raises(CtxvecError, match=r"E274.*raw_scale_bits 20 and 16.*different versions.*build-lexicon"):
        merge(loaded, new)


def test_centroids_and_unit_centroids():
    vectors = np.array([[2.0, 0.0], [0.0, 4.0], [1.0, 1.0]])
    lexicon = Lexicon.from_occurrences(["a", "a", "b"], vectors)
    np.testing.assert_allclose(lexicon.centroids()[lexicon.index("a")], [1.0, 2.0], atol=1e-6)
    np.testing.assert_allclose(lexicon.unit_centroids()[lexicon.index("a")], [2**-0.5, 2**-0.5], atol=1e-8)
    assert "a" in lexicon and "z" not in lexicon and len(lexicon) == 2


def test_disk_and_bytes_round_trip(tmp_path):
    keys, vectors = random_occurrences(5)
    lexicon = Lexicon.from_occurrences(keys, vectors, meta={"key": "lower"})
    lexicon.to_disk(tmp_path / "lex")
    assert Lexicon.from_disk(tmp_path / "lex") == lexicon
    assert Lexicon.from_bytes(lexicon.to_bytes()) == lexicon
    with pytest.raises(CtxvecError, match="E207"):
        Lexicon.from_disk(tmp_path / "missing")


def test_duplicate_keys_are_refused():
    ones = np.ones((2, 3), dtype=np.int64)
    with pytest.raises(CtxvecError, match=r"\[CTX-E231\].*'a' appears 2 times"):
        Lexicon(["a", "a"], np.array([1, 1]), ones, ones.copy(), width=3)


# Lexicons with an occurrence sample (issue 11)
def sampled_lexicon(seed: int, k: int = 3, n_occ: int = 300):
    from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities
    from spacy_ctxvec.lexicon.sample import OccurrenceSample

    keys, vectors = random_occurrences(seed, n_occ=n_occ)
    positions = np.arange(n_occ) + 1000 * seed
    priorities = occurrence_priorities(np.full(n_occ, 42, dtype=np.uint64), positions)
    snippets = [f"[{key}] at {p}" for key, p in zip(keys, positions)]
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=k)
    return Lexicon.from_occurrences(keys, vectors, meta={"key": "lower"}).with_sample(sample)


def test_sampled_lexicons_merge_their_samples_in_any_order():
    a, b, c = sampled_lexicon(0), sampled_lexicon(1), sampled_lexicon(2)
    merged = merge(merge(a, b), c)
    assert merge(c, merge(b, a)) == merged and merge_all([b, c, a]) == merged
    assert merged.sample == a.sample.merge(b.sample).merge(c.sample)
    assert merged != merged.with_sample(None)  # __eq__ includes the sample
    counts = dict(zip(merged.keys, merged.counts.tolist()))
    assert all(n == min(3, counts[key]) for key, n in zip(merged.sample.keys, merged.sample.counts()))


def test_mixing_sampled_and_unsampled_or_other_k_is_an_error():
    a = sampled_lexicon(0)
    with pytest.raises(CtxvecError, match=r"\[CTX-E263\].*k=3.*without a sample"):
        merge(a, a.with_sample(None))
    with pytest.raises(CtxvecError, match=r"\[CTX-E263\].*with k=5"):
        merge(a, sampled_lexicon(1, k=5))
    assert Lexicon.empty(16, sample_size=3).merge(a) == a


def test_prune_sample_keeps_counts_and_drops_rare_types():
    lexicon = merge(sampled_lexicon(0), sampled_lexicon(1))
    floor = int(np.median(lexicon.counts)) + 1
    pruned = lexicon.prune_sample(floor)
    assert pruned.keys == lexicon.keys and np.array_equal(pruned.counts, lexicon.counts)
    kept = {key for key, n in zip(lexicon.keys, lexicon.counts) if n >= floor}
    assert set(pruned.sample.keys) == kept and 0 < len(kept) < len(lexicon)
    assert lexicon.prune_sample(1) == lexicon and lexicon.with_sample(None).prune_sample(floor).sample is None


def test_sampled_disk_and_bytes_round_trip_and_damage(tmp_path):
    lexicon = sampled_lexicon(3)
    lexicon.to_disk(tmp_path / "lex")
    assert (tmp_path / "lex" / "sample" / "vectors.npy").is_file()
    assert Lexicon.from_disk(tmp_path / "lex") == lexicon
    assert Lexicon.from_bytes(lexicon.to_bytes()) == lexicon
    (tmp_path / "lex" / "sample" / "snippets.json").write_text("[", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E262\].*snippets.json"):
        Lexicon.from_disk(tmp_path / "lex")
    import shutil

    shutil.rmtree(tmp_path / "lex" / "sample")
    with pytest.raises(CtxvecError, match=r"\[CTX-E207\].*sample/' is missing"):
        Lexicon.from_disk(tmp_path / "lex")


def test_lexicon_saved_before_samples_still_loads(tmp_path):
    import json

    keys, vectors = random_occurrences(6)
    lexicon = Lexicon.from_occurrences(keys, vectors)
    lexicon.to_disk(tmp_path / "old")
    header = json.loads((tmp_path / "old" / "lexicon.json").read_text(encoding="utf8"))
    del header["sample_k"]  # as written by earlier versions
    (tmp_path / "old" / "lexicon.json").write_text(json.dumps(header), encoding="utf8")
    loaded = Lexicon.from_disk(tmp_path / "old")
    assert loaded == lexicon and loaded.sample is None
    import srsly

    old_bytes = srsly.msgpack_loads(lexicon.to_bytes())
    del old_bytes["sample"]
    del old_bytes["header"]["sample_k"]
    assert Lexicon.from_bytes(srsly.msgpack_dumps(old_bytes)) == lexicon
    sampled = srsly.msgpack_loads(sampled_lexicon(0).to_bytes())
    sampled["sample"] = None
    with pytest.raises(CtxvecError, match=r"\[CTX-E207\].*sample is missing"):
        Lexicon.from_bytes(srsly.msgpack_dumps(sampled))


def test_parts_merge_with_how_their_vectors_were_made_and_refuse_another_way():
    """CONTEXT_VECTORS_META comes from the Docs a part counted: a part that counted none
    takes the other's; two parts of vectors made differently are E206."""
    made = {"key": "lower", CONTEXT_VECTORS_META: "the last layer, pooled by pool_mean"}
    counted = Lexicon.from_occurrences(["x", "y"], np.eye(2, 4), meta=made)
    empty = Lexicon.empty(4, meta={"key": "lower"})
    assert merge(counted, empty).meta == merge(empty, counted).meta == made
    assert merge(counted, Lexicon.empty(4)).meta == made
    other = Lexicon.from_occurrences(["x"], np.ones((1, 4)), meta={**made, CONTEXT_VECTORS_META: "layer 1 of 6"})
    with pytest.raises(CtxvecError, match="E206"):
        merge(counted, other)
    with pytest.raises(CtxvecError, match="E206"):
        merge(counted, Lexicon.empty(4, meta={"key": "text"}))


def test_keys_seen_lists_the_types_seen_at_least_min_count_times_in_key_order():
    keys = ["bank"] * 3 + ["river"] + ["apple"] * 2
    lexicon = Lexicon.from_occurrences(keys, np.random.default_rng(0).normal(size=(len(keys), 4)))
    assert lexicon.keys_seen(2) == ["apple", "bank"] and lexicon.keys_seen(4) == []
    assert lexicon.keys_seen(1) == lexicon.keys


def test_arrays_that_disagree_are_coded_errors_naming_the_shapes():
    with pytest.raises(CtxvecError, match=r"E201.*2 keys, counts \(2,\), unit sums \(2, 3\), raw sums \(1, 3\)"):
        Lexicon(["a", "b"], np.ones(2), np.zeros((2, 3)), np.zeros((1, 3)), width=3)
    with pytest.raises(CtxvecError, match=r"E202.*got 3 keys for vectors of shape \(2, 4\)"):
        Lexicon.from_occurrences(["a", "b", "c"], np.ones((2, 4), dtype=np.float32))
    with pytest.raises(CtxvecError, match=r"E209.*Pass width="):
        merge_all([])
    assert merge_all([], width=3).width == 3
