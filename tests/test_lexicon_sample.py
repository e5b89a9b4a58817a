"""spacy_ctxvec.lexicon.sample: the bounded, mergeable occurrence sample (issue 11)."""

import json

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities, text_hash
from spacy_ctxvec.lexicon.sample import OccurrenceSample, merge_samples


def random_occurrences(seed: int, n_occ: int = 600, width: int = 8, n_types: int = 25, n_docs: int = 40):
    """Occurrences of a small corpus: the same doc (hash) and position give the same row,
    so documents repeat like in real text, and priorities tie across repeats."""
    rng = np.random.default_rng(seed)
    docs = rng.integers(0, n_docs, n_occ)
    positions = rng.integers(0, 30, n_occ)
    hashes = np.array([text_hash(f"document {d}") for d in docs], dtype=np.uint64)
    priorities = occurrence_priorities(hashes, positions)
    type_ids = (docs * 7 + positions) % n_types
    keys = [f"w{t}" for t in type_ids]
    snippets = [f"doc {d} [w{t}] at {p}" for d, t, p in zip(docs, type_ids, positions)]
    vectors = rng.normal(size=(n_occ, width)).astype(np.float32)
    return keys, vectors, priorities, snippets


def samples_of_parts(parts_rows, keys, vectors, priorities, snippets, contexts=None, **settings):
    """One OccurrenceSample per array of row numbers in ``parts_rows`` (``settings``: k and flags)."""
    return [
        OccurrenceSample.from_occurrences(
            [keys[i] for i in rows],
            vectors[rows],
            priorities[rows],
            [snippets[i] for i in rows],
            contexts=None if contexts is None else contexts[rows],
            **settings,
        )
        for rows in parts_rows
    ]


def brute_force(keys, vectors, priorities, snippets, k):
    """Per key, the k lowest distinct (priority, snippet), smallest float16 bytes on ties."""
    best = {}
    for key, vector, priority, snip in zip(keys, np.asarray(vectors, dtype=np.float16), priorities, snippets):
        ident = (key, int(priority), snip)
        if ident not in best or vector.tobytes() < best[ident].tobytes():
            best[ident] = vector
    expected = {}
    for key, priority, snip in sorted(best):
        expected.setdefault(key, [])
        if len(expected[key]) < k:
            expected[key].append((priority, snip, best[(key, priority, snip)]))
    return expected


def test_keeps_exactly_the_k_lowest_priorities_per_type():
    keys, vectors, priorities, snippets = random_occurrences(0)
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=5)
    expected = brute_force(keys, vectors, priorities, snippets, 5)
    assert sample.keys == sorted(expected)
    for key, rows in expected.items():
        got_vectors, got_snippets = sample.rows_of(key)
        start, end = sample.offsets[sample.index(key)], sample.offsets[sample.index(key) + 1]
        assert sample.priorities[start:end].tolist() == [priority for priority, _, _ in rows]
        assert got_snippets == [snip for _, snip, _ in rows]
        np.testing.assert_array_equal(got_vectors, np.vstack([vector for _, _, vector in rows]))
    assert sample.vectors.dtype == np.float16 and sample.priorities.dtype == np.uint64
    assert int(np.diff(sample.offsets).max()) == 5 and sample.n_rows == sum(len(r) for r in expected.values())


@pytest.mark.parametrize("seed", range(6))
def test_merge_of_random_splits_is_exact_associative_and_commutative(seed):
    keys, vectors, priorities, snippets = random_occurrences(seed)
    k = int(np.random.default_rng(seed).integers(1, 8))
    whole = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=k)
    rng = np.random.default_rng(100 + seed)
    permutation = rng.permutation(len(keys))
    bounds = np.sort(rng.choice(np.arange(1, len(keys)), size=4, replace=False))
    parts = samples_of_parts(np.split(permutation, bounds), keys, vectors, priorities, snippets, k=k)
    left = merge_samples(parts)
    right = parts[0].merge(parts[1].merge(parts[2].merge(parts[3].merge(parts[4]))))
    shuffled = merge_samples([parts[i] for i in rng.permutation(len(parts))])
    pairs = parts[3].merge(parts[1]).merge(parts[4].merge(parts[0]).merge(parts[2]))
    for merged in (left, right, shuffled, pairs):
        assert merged == whole  # bitwise
    assert whole.merge(whole) == whole  # a repeated occurrence is kept once


def test_tied_priority_and_snippet_keep_the_smallest_vector_whatever_the_order():
    vectors = np.array([[1.0, 2.0], [1.0, 1.0], [0.5, 9.0]], dtype=np.float32)
    args = (["a", "a", "a"], np.array([7, 7, 7], dtype=np.uint64))
    one = OccurrenceSample.from_occurrences(*args[:1], vectors, args[1], ["x [a]", "x [a]", "w [a]"], k=3)
    two = OccurrenceSample.from_occurrences(*args[:1], vectors[::-1], args[1], ["w [a]", "x [a]", "x [a]"], k=3)
    assert one == two
    got, snippets = one.rows_of("a")
    assert snippets == ["w [a]", "x [a]"]  # snippet breaks the priority tie; the duplicate is dropped
    np.testing.assert_array_equal(got, np.array([[0.5, 9.0], [1.0, 1.0]], dtype=np.float16))


def test_rows_of_absent_key_and_empty_sample_are_empty_not_nan():
    empty = OccurrenceSample.empty(4, k=3)
    vectors, snippets = empty.rows_of("bank")
    assert vectors.shape == (0, 4) and vectors.dtype == np.float16 and snippets == []
    assert (empty.n_rows, len(empty), empty.width) == (0, 0, 4)
    assert empty.merge(empty) == empty
    keys, vectors, priorities, snippets = random_occurrences(1)
    sample = OccurrenceSample.from_occurrences(keys, vectors[:, :4], priorities, snippets, k=3)
    assert sample.merge(empty) == sample and empty.merge(sample) == sample
    assert OccurrenceSample.from_occurrences([], np.zeros((0, 4)), np.zeros(0, dtype=np.uint64), [], k=3) == empty
    assert OccurrenceSample.from_bytes(empty.to_bytes()) == empty


def test_prune_by_mask_and_by_function():
    keys, vectors, priorities, snippets = random_occurrences(2)
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=4)
    keep = np.array([i % 3 == 0 for i in range(len(sample))])
    pruned = sample.prune(keep)
    assert pruned.keys == [key for key, kept in zip(sample.keys, keep) if kept]
    for key in pruned.keys:
        np.testing.assert_array_equal(pruned.rows_of(key)[0], sample.rows_of(key)[0])
        assert pruned.rows_of(key)[1] == sample.rows_of(key)[1]
    assert sample.prune(lambda key: key in set(pruned.keys)) == pruned
    assert sample.prune(np.zeros(len(sample), dtype=bool)) == OccurrenceSample.empty(sample.width, k=4)
    with pytest.raises(CtxvecError, match="E260"):
        sample.prune(np.ones(3, dtype=bool))


def test_disk_and_bytes_round_trip(tmp_path):
    keys, vectors, priorities, snippets = random_occurrences(3)
    snippets = [s + " caf\u00e9 \u2028" for s in snippets]
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=6)
    sample.to_disk(tmp_path / "sample")
    assert OccurrenceSample.from_disk(tmp_path / "sample") == sample
    assert OccurrenceSample.from_bytes(sample.to_bytes()) == sample
    assert sample.nbytes >= sample.vectors.nbytes + sample.priorities.nbytes
    assert sorted(p.name for p in (tmp_path / "sample").iterdir()) == [
        "keys.json",
        "offsets.npy",
        "priorities.npy",
        "sample.json",
        "snippets.json",
        "vectors.npy",
    ]


def _damage(path, name, data):
    (path / name).write_bytes(data) if isinstance(data, bytes) else (path / name).write_text(data, encoding="utf8")


@pytest.mark.parametrize(
    "name,data,problem",
    [
        ("vectors.npy", b"\x93NUMPY garbage", "vectors.npy is truncated"),
        ("snippets.json", "[1, 2", "snippets.json is not valid JSON"),
        ("snippets.json", '["only one"]', "snippets for"),
        ("keys.json", '{"a": 1}', "keys.json is not a list"),
        ("sample.json", '{"format_version": 99}', "unsupported format"),
        ("sample.json", '{"format_version": 1, "k": 0, "width": 8}', "positive integer 'k'"),
        ("sample.json", '{"format_version": 1, "k": 2, "width": 8}', "1 to k=2 rows"),
    ],
)
def test_damaged_files_are_coded_errors(tmp_path, name, data, problem):
    keys, vectors, priorities, snippets = random_occurrences(4)
    OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=6).to_disk(tmp_path)
    _damage(tmp_path, name, data)
    with pytest.raises(CtxvecError, match=f"E262.*{problem}"):
        OccurrenceSample.from_disk(tmp_path)


def test_damaged_arrays_and_bytes_are_coded_errors(tmp_path):
    keys, vectors, priorities, snippets = random_occurrences(5)
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=6)
    sample.to_disk(tmp_path)
    np.save(tmp_path / "priorities.npy", sample.priorities.astype(np.int64))
    with pytest.raises(CtxvecError, match="E262.*int64, not uint64"):
        OccurrenceSample.from_disk(tmp_path)
    np.save(tmp_path / "priorities.npy", sample.priorities[::-1].copy())
    with pytest.raises(CtxvecError, match="E262.*priority order"):
        OccurrenceSample.from_disk(tmp_path)
    np.save(tmp_path / "priorities.npy", sample.priorities)
    broken = sample.vectors.copy()
    broken[3, 0] = np.inf
    np.save(tmp_path / "vectors.npy", broken)
    with pytest.raises(CtxvecError, match="E262.*row 3 holds NaN or infinite"):
        OccurrenceSample.from_disk(tmp_path)
    (tmp_path / "offsets.npy").unlink()
    with pytest.raises(CtxvecError, match="E262.*missing offsets.npy"):
        OccurrenceSample.from_disk(tmp_path)
    with pytest.raises(CtxvecError, match="E262.*damaged serialised sample"):
        OccurrenceSample.from_bytes(sample.to_bytes()[:-40])
    np.save(tmp_path / "offsets.npy", np.array([1, 2], dtype=object), allow_pickle=True)
    with pytest.raises(CtxvecError, match="E262.*offsets.npy"):  # never unpickled
        OccurrenceSample.from_disk(tmp_path)


def test_bad_arguments_and_mismatched_merges_are_coded_errors():
    keys, vectors, priorities, snippets = random_occurrences(6)
    with pytest.raises(CtxvecError, match="E260.*599 snippets"):
        OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets[:-1], k=3)
    with pytest.raises(CtxvecError, match="E260.*uint64"):
        OccurrenceSample.from_occurrences(keys, vectors, priorities.astype(np.int64), snippets, k=3)
    with pytest.raises(CtxvecError, match="E260.*k must be"):
        OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=0)
    bad = vectors.copy()
    bad[7, 1] = 1e6  # beyond float16
    with pytest.raises(CtxvecError, match="E260.*row 7"):
        OccurrenceSample.from_occurrences(keys, bad, priorities, snippets, k=3)
    a = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3)
    with pytest.raises(CtxvecError, match="E261.*k"):
        a.merge(OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=4))
    with pytest.raises(CtxvecError, match="E261.*width"):
        a.merge(OccurrenceSample.from_occurrences(keys, vectors[:, :4], priorities, snippets, k=3))


def test_context_vectors_travel_with_their_rows_through_select_merge_and_prune():
    keys, vectors, priorities, snippets = random_occurrences(7)
    contexts = -2.0 * vectors  # a context tied to its row, so a row and its context can be matched
    halves = np.array_split(np.random.default_rng(7).permutation(len(keys)), 2)
    whole = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=4, contexts=contexts)
    parts = samples_of_parts(halves, keys, vectors, priorities, snippets, contexts, k=4)
    merged = parts[1].merge(parts[0])
    assert merged == whole and merged.has_contexts
    np.testing.assert_array_equal(whole.contexts, (-2.0 * whole.vectors.astype(np.float32)).astype(np.float16))
    without = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=4)
    assert without.contexts is None and without != whole
    np.testing.assert_array_equal(without.vectors, whole.vectors)  # contexts do not change which rows are kept
    pruned = whole.prune(np.array([i % 2 == 0 for i in range(len(whole))]))
    np.testing.assert_array_equal(pruned.contexts, (-2.0 * pruned.vectors.astype(np.float32)).astype(np.float16))
    assert whole.nbytes == without.nbytes + whole.contexts.nbytes


def test_context_vectors_round_trip_and_old_samples_without_them_still_load(tmp_path):
    keys, vectors, priorities, snippets = random_occurrences(8)
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=5, contexts=vectors[:, ::-1])
    sample.to_disk(tmp_path / "with")
    assert OccurrenceSample.from_disk(tmp_path / "with") == sample
    assert OccurrenceSample.from_bytes(sample.to_bytes()) == sample
    assert (tmp_path / "with" / "contexts.npy").is_file()
    old = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=5)
    old.to_disk(tmp_path / "old")
    header = json.loads((tmp_path / "old" / "sample.json").read_text())
    del header["contexts"]  # as saved before context vectors were kept
    (tmp_path / "old" / "sample.json").write_text(json.dumps(header))
    loaded = OccurrenceSample.from_disk(tmp_path / "old")
    assert loaded == old and loaded.contexts is None
    (tmp_path / "with" / "contexts.npy").unlink()
    with pytest.raises(CtxvecError, match="E262.*contexts is true, but contexts.npy is missing"):
        OccurrenceSample.from_disk(tmp_path / "with")


def test_samples_with_and_without_context_vectors_do_not_merge():
    keys, vectors, priorities, snippets = random_occurrences(9)
    with_contexts = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3, contexts=vectors)
    without = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3)
    with pytest.raises(CtxvecError, match="E261.*context vectors"):
        with_contexts.merge(without)
    assert with_contexts.merge(OccurrenceSample.empty(8, k=3)) == with_contexts  # an empty part is no conflict
    with pytest.raises(CtxvecError, match="E260.*contexts has shape"):
        OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3, contexts=vectors[:, :4])
    bad = vectors.copy()
    bad[2, 0] = np.nan
    with pytest.raises(CtxvecError, match="E260.*context row 2"):
        OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3, contexts=bad)


def passage_occurrences(seed: int, n_occ: int = 600):
    """``random_occurrences`` with passage priorities (``by_passage``)."""
    from spacy_ctxvec.lexicon.occurrence_keys import passage_priorities, ranks_in_passage, word_hashes

    rng = np.random.default_rng(seed)
    tokens = rng.permutation(40 * 300)[:n_occ]  # distinct (document, position): 40 documents of 300 tokens
    docs, positions = tokens // 300, tokens % 300
    type_ids = rng.integers(0, 6, n_occ)
    hashes = np.array([text_hash(f"document {d}") for d in docs], dtype=np.uint64)
    words = word_hashes([f"w{t}" for t in type_ids])
    priorities = passage_priorities(hashes, words, positions, ranks_in_passage(docs, positions, type_ids))
    snippets = [f"doc {d} [w{t}] at {p}" for d, t, p in zip(docs, type_ids, positions)]
    return [f"w{t}" for t in type_ids], rng.normal(size=(n_occ, 8)), priorities, snippets, docs, positions


def test_passage_priorities_round_trip_merge_and_mark_one_row_per_passage(tmp_path):
    from spacy_ctxvec.lexicon.occurrence_keys import PASSAGE_TOKENS

    keys, vectors, priorities, snippets, docs, positions = passage_occurrences(1)
    whole = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=20, by_passage=True)
    halves = [
        OccurrenceSample.from_occurrences(
            [keys[i] for i in part], vectors[part], priorities[part], [snippets[i] for i in part], k=20, by_passage=True
        )
        for part in (np.arange(0, 600, 2), np.arange(1, 600, 2))
    ]
    assert merge_samples(halves) == whole and whole.by_passage
    whole.to_disk(tmp_path / "s")
    assert OccurrenceSample.from_disk(tmp_path / "s") == whole
    assert OccurrenceSample.from_bytes(whole.to_bytes()) == whole
    assert whole.prune(lambda key: key != "w0").by_passage and whole.without_contexts().by_passage
    row_of = {(snippet, int(p)): i for i, (snippet, p) in enumerate(zip(snippets, priorities))}
    for t in range(len(whole.keys)):
        start, end = int(whole.offsets[t]), int(whole.offsets[t + 1])
        rows = [row_of[(whole.snippets[j], int(whole.priorities[j]))] for j in range(start, end)]
        passages = [(int(docs[i]), int(positions[i]) // PASSAGE_TOKENS) for i in rows]
        independent = whole.independent_rows(start, end)
        # 20 of ~100 occurrences of 6 types in 40 x 4 passages: one row per passage, the first of each
        assert independent.all() and len(set(passages)) == len(passages) == 20
    old = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=20)
    assert not old.by_passage and old.independent_rows(0, 5).tolist() == [True] * 5
    with pytest.raises(CtxvecError, match="E261.*priorities \\(by passage or not\\)"):
        old.merge(whole)
    header = json.loads((tmp_path / "s" / "sample.json").read_text())
    del header["by_passage"]  # as saved before passage priorities
    (tmp_path / "s" / "sample.json").write_text(json.dumps(header))
    assert not OccurrenceSample.from_disk(tmp_path / "s").by_passage


def test_a_type_seen_many_times_in_few_passages_keeps_every_rank_in_its_passage_marked():
    from spacy_ctxvec.lexicon.occurrence_keys import passage_priorities, ranks_in_passage

    positions = np.r_[np.arange(0, 30, 3), np.arange(200, 215, 3)]  # 10 in one passage, 5 in another
    docs, types = np.zeros(len(positions), dtype=np.int64), np.zeros(len(positions), dtype=np.int64)
    ranks = ranks_in_passage(docs, positions, types)
    n = len(positions)
    word = np.full(n, text_hash("w"), dtype=np.uint64)
    priorities = passage_priorities(np.full(n, text_hash("d"), dtype=np.uint64), word, positions, ranks)
    snippets = [f"[w] at {p}" for p in positions]
    sample = OccurrenceSample.from_occurrences(["w"] * 15, np.ones((15, 4)), priorities, snippets, k=8, by_passage=True)
    assert sample.independent_rows(0, 8).sum() == 2  # the first of each passage, then the second ranks
    assert sorted(sample.snippets[:2]) == ["[w] at 0", "[w] at 200"]


def test_samples_are_format_3_and_format_1_and_2_samples_still_load(tmp_path):
    keys, vectors, priorities, snippets, _, _ = passage_occurrences(2, n_occ=50)
    sample = OccurrenceSample.from_occurrences(
        keys, vectors, priorities, snippets, k=4, by_passage=True, distinct_snippets=True
    )
    sample.to_disk(tmp_path / "s")
    header = json.loads((tmp_path / "s" / "sample.json").read_text())
    assert header["format_version"] == 3 and header["by_passage"] is True and header["distinct_snippets"] is True
    assert OccurrenceSample.from_disk(tmp_path / "s") == sample
    header.update(format_version=2)
    del header["distinct_snippets"]  # as the version before wrote it
    (tmp_path / "s" / "sample.json").write_text(json.dumps(header))
    older = OccurrenceSample.from_disk(tmp_path / "s")
    assert older.by_passage and not older.distinct_snippets
    header.update(format_version=1, by_passage=False)  # as the version before that wrote it
    (tmp_path / "s" / "sample.json").write_text(json.dumps(header))
    old = OccurrenceSample.from_disk(tmp_path / "s")
    assert not old.by_passage and old.independent_rows(0, 3).all()
    header["format_version"] = 4
    (tmp_path / "s" / "sample.json").write_text(json.dumps(header))
    with pytest.raises(CtxvecError, match="E262.*unsupported format"):
        OccurrenceSample.from_disk(tmp_path / "s")


def test_empty_samples_merge_to_the_same_flags_in_either_order():
    parts = [OccurrenceSample.empty(8, k=3, contexts=c, by_passage=p) for c in (False, True) for p in (False, True)]
    for a in parts:
        for b in parts:
            assert a.merge(b) == b.merge(a)


def test_a_sample_not_made_by_the_shard_judges_every_row():
    """Passage priorities whose first rows were pruned away (not a shard's sample): no row is
    first in its passage, so every row is judged rather than none."""
    from spacy_ctxvec.lexicon.occurrence_keys import passage_priorities

    priorities = passage_priorities(
        np.full(3, text_hash("d"), dtype=np.uint64), np.full(3, text_hash("w"), dtype=np.uint64), [1, 2, 3], [1, 2, 3]
    )
    sample = OccurrenceSample.from_occurrences(
        ["w"] * 3, np.ones((3, 4)), priorities, ["a", "b", "c"], k=3, by_passage=True
    )
    assert sample.independent_rows(0, 3).tolist() == [True, True, True]


def test_a_line_the_corpus_repeats_is_judged_once():
    """A template or set phrase repeated in many lines gave a word 3 identical snippets per
    phrase, each judged as its own evidence: two phrases of 3 copies made a 2-sense word
    with corpus_polysemy 15. The first row with each snippet is judged; rows without a
    snippet are all judged (nothing to compare)."""
    from spacy_ctxvec.lexicon.occurrence_keys import passage_priorities

    n = 7
    priorities = passage_priorities(
        np.full(n, text_hash("d"), dtype=np.uint64), np.full(n, text_hash("w"), dtype=np.uint64), [0] * n, [0] * n
    )
    priorities = priorities + np.arange(n, dtype=np.uint64)  # one passage each, all first in it
    snippets = ["on the far [w] bank", "how [w] it went", "on the far [w] bank", "", "", "how [w] it went", "x [w]"]
    sample = OccurrenceSample.from_occurrences(["w"] * n, np.ones((n, 4)), priorities, snippets, k=n, by_passage=True)
    independent = sample.independent_rows(0, n)
    judged = [snippet for snippet, kept in zip(sample.snippets, independent) if kept]
    assert sorted(judged) == ["", "", "how [w] it went", "on the far [w] bank", "x [w]"]


def repeated_snippet_occurrences(seed: int):
    """Occurrences whose snippets repeat across documents (a recurring phrase), some empty."""
    keys, vectors, priorities, _ = random_occurrences(seed)
    rng = np.random.default_rng(seed)
    snippets = [f"{key} phrase {int(i)}" if i else "" for key, i in zip(keys, rng.integers(0, 4, len(keys)))]
    return keys, vectors, priorities, snippets


def brute_force_distinct(keys, vectors, priorities, snippets, k):
    """Per key, the k lowest rows with distinct snippets: each non-empty snippet's lowest
    (priority, float16 bytes) row, and every distinct (priority, "") row."""
    best = {}
    for key, vector, priority, snip in zip(keys, np.asarray(vectors, dtype=np.float16), priorities, snippets):
        ident = (key, snip) if snip else (key, snip, int(priority))
        row = (int(priority), vector.tobytes(), snip, vector)
        if ident not in best or row[:2] < best[ident][:2]:
            best[ident] = row
    expected = {}
    for key, (priority, _, snip, vector) in sorted(
        ((ident[0], row) for ident, row in best.items()), key=lambda item: (item[0], item[1][0], item[1][2])
    ):
        if len(expected.setdefault(key, [])) < k:
            expected[key].append((priority, snip, vector))
    return expected


@pytest.mark.parametrize("seed", range(4))
def test_distinct_snippets_keep_each_snippets_lowest_row_and_merge_exactly(seed):
    keys, vectors, priorities, snippets = repeated_snippet_occurrences(seed)
    k = int(np.random.default_rng(seed).integers(1, 6))
    whole = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=k, distinct_snippets=True)
    for key, rows in brute_force_distinct(keys, vectors, priorities, snippets, k).items():
        start, end = whole.offsets[whole.index(key)], whole.offsets[whole.index(key) + 1]
        got_vectors, got_snippets = whole.rows_of(key)
        assert whole.priorities[start:end].tolist() == [priority for priority, _, _ in rows]
        assert got_snippets == [snip for _, snip, _ in rows]
        np.testing.assert_array_equal(got_vectors, np.vstack([vector for _, _, vector in rows]))
        assert len({s for s in got_snippets if s}) == len([s for s in got_snippets if s])  # each snippet once
    plain = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=k)
    assert any(len(set(plain.rows_of(key)[1])) < len(plain.rows_of(key)[1]) for key in plain.keys)  # copies there
    rng = np.random.default_rng(200 + seed)
    split = np.array_split(rng.permutation(len(keys)), 5)
    parts = samples_of_parts(split, keys, vectors, priorities, snippets, k=k, distinct_snippets=True)
    assert merge_samples(parts) == whole == merge_samples(parts[::-1])  # bitwise
    assert parts[0].merge(parts[1]).merge(parts[2]) == parts[2].merge(parts[0].merge(parts[1]))


def test_samples_with_and_without_distinct_snippets_do_not_merge():
    keys, vectors, priorities, snippets = repeated_snippet_occurrences(0)
    distinct = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3, distinct_snippets=True)
    plain = OccurrenceSample.from_occurrences(keys, vectors, priorities, snippets, k=3)
    with pytest.raises(CtxvecError, match=r"E261.*snippets \(each kept once or not\)"):
        distinct.merge(plain)
    empty = OccurrenceSample.empty(vectors.shape[1], k=3, distinct_snippets=True)
    assert empty.merge(OccurrenceSample.empty(vectors.shape[1], k=3)) == empty
    assert distinct.merge(empty) == distinct and distinct != plain
