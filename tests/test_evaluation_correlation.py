import numpy as np
import pytest

from spacy_ctxvec.evaluation.correlation import (
    CONSTANT_COSINES,
    CONSTANT_POLYSEMY_SCORES,
    CONSTANT_SCORES,
    CONSTANT_SENSE_COUNTS,
    TOO_FEW_PAIRS,
    PolysemyReport,
    layer_similarity_reports,
    polysemy_report,
    polysemy_undefined_because,
    polysemy_undefined_code,
    rows_for,
    similarity_report,
    undefined_because,
    unique_words,
)


def test_similarity_report_uses_covered_pairs_only():
    vectors1 = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    vectors2 = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    covered = np.array([True, True, True, False])
    report = similarity_report("toy", vectors1, vectors2, covered, np.array([9.0, 5.0, 1.0, 10.0]))
    assert report.spearman == pytest.approx(1.0)
    assert (report.n_pairs, report.n_covered, report.coverage) == (4, 3, 0.75)
    assert report.to_dict()["coverage"] == 0.75


def test_layer_reports():
    views = np.array([[[1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]]])
    other = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]])
    result = layer_similarity_reports(
        "toy", views, other, ["layer_0", "layer_1"], np.ones(3, bool), np.array([3.0, 2.0, 1.0])
    )
    assert result["layer_0"] == pytest.approx(1.0)
    assert result["layer_1"] == pytest.approx(-1.0)  # cosines 0, 0.71, 1


def test_polysemy_report_by_hand():
    keys = ["bank", "Run", "dog", "zzz", "cat"]
    scores = np.array([0.9, 0.8, 0.2, 0.5, 0.1])
    valid = np.array([True, True, True, True, False])
    counts = np.array([10, 40, 20, 5, 7])
    senses = {"bank": 18, "run": 57, "dog": 8}
    report = polysemy_report(keys, scores, valid, counts, senses)
    # zzz has no sense count, cat is not valid: bank, Run (via lowercase), dog remain.
    assert (report.n_types, report.n_covered) == (4, 3)
    # scores 0.9, 0.8, 0.2 vs senses 18, 57, 8: ranks (3,2,1) vs (2,3,1) -> 0.5
    assert report.spearman == pytest.approx(0.5)
    assert np.isfinite(report.partial_spearman)
    assert report.to_dict()["coverage"] == pytest.approx(0.75)


def test_unique_words_and_rows():
    vocabulary = unique_words(["b", "a"], ["c", "a"])
    assert vocabulary == ["a", "b", "c"]
    table = np.array([[1.0], [2.0], [3.0]])
    np.testing.assert_array_equal(rows_for(["c", "a"], vocabulary, table), [[3.0], [1.0]])
    # one 5 MB word made numpy string arrays of 5 MB per word: 16 GB for a WordSim file; a dict costs nothing
    import tracemalloc

    long_word = "x" * 5_000_000
    words = [long_word] + [f"w{i}" for i in range(400)]
    tracemalloc.start()
    rows = rows_for(words[::-1], words, np.arange(len(words), dtype=np.float64)[:, None])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rows[-1, 0] == 0 and rows[0, 0] == 400 and peak < 50_000_000


def test_polysemy_report_on_too_few_words_is_undefined():
    keys = ["bank", "run", "dog"]
    scores, valid, counts = np.array([0.9, 0.8, 0.2]), np.ones(3, dtype=bool), np.array([10, 40, 20])
    senses = {"bank": 18, "run": 57, "dog": 8}
    # No word in the mask (a held-out half with no covered word), and a mask of two words.
    for words in (np.zeros(3, dtype=bool), np.array([True, True, False])):
        report = polysemy_report(keys, scores, valid, counts, senses, words=words)
        assert report.spearman is None and report.partial_spearman is None and report.frequency_spearman is None
    assert polysemy_report(keys, scores, valid, counts, senses).spearman == pytest.approx(0.5)


def test_why_a_similarity_spearman_is_undefined():
    assert undefined_because(np.array([0.1, 0.2]), np.array([1.0, 2.0])) == (TOO_FEW_PAIRS, None)
    assert undefined_because(np.array([0.1, 0.2, 0.3]), np.array([5.0, 5.0, 5.0])) == (CONSTANT_SCORES, 5.0)
    assert undefined_because(np.array([0.5, 0.5, 0.5]), np.array([1.0, 2.0, 3.0])) == (CONSTANT_COSINES, 0.5)
    assert undefined_because(np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])) is None
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    others = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # cosines 0, 0, 0 (and 1, not covered)
    report = similarity_report("toy", vectors, others, np.array([True, True, True, False]), np.arange(4.0))
    assert report.spearman is None and report.undefined == (CONSTANT_COSINES, 0.0)
    assert "undefined" not in report.to_dict()  # the JSON keeps its shape; the reason is for the error


def test_each_kind_of_undefined_polysemy_spearman_has_its_catalogue_code():
    from spacy_ctxvec.errors import Errors

    codes = {
        kind: polysemy_undefined_code(kind) for kind in (TOO_FEW_PAIRS, CONSTANT_SENSE_COUNTS, CONSTANT_POLYSEMY_SCORES)
    }
    assert codes == {TOO_FEW_PAIRS: "E321", CONSTANT_SENSE_COUNTS: "E326", CONSTANT_POLYSEMY_SCORES: "E327"}
    assert all(getattr(Errors, code) for code in codes.values())


def test_why_a_polysemy_spearman_is_undefined():
    assert polysemy_undefined_because(np.array([0.1, 0.2]), np.array([1, 2])) == (TOO_FEW_PAIRS, None)
    assert polysemy_undefined_because(np.array([0.1, 0.2, 0.3]), np.array([5, 5, 5])) == (CONSTANT_SENSE_COUNTS, 5.0)
    assert polysemy_undefined_because(np.array([0.4, 0.4, 0.4]), np.array([1, 2, 3])) == (CONSTANT_POLYSEMY_SCORES, 0.4)
    assert polysemy_undefined_because(np.array([0.1, 0.2, 0.3]), np.array([1, 2, 3])) is None
    keys, valid, counts = ["bank", "run", "dog"], np.ones(3, dtype=bool), np.array([10, 40, 20])
    report = polysemy_report(keys, np.array([0.9, 0.8, 0.2]), valid, counts, {"bank": 1, "run": 1, "dog": 1})
    assert report.spearman is None and report.undefined == (CONSTANT_SENSE_COUNTS, 1.0)
    report = polysemy_report(keys, np.full(3, 0.7), valid, counts, {"bank": 18, "run": 57, "dog": 8})
    assert report.spearman is None and report.undefined == (CONSTANT_POLYSEMY_SCORES, 0.7)
    report = polysemy_report(keys, np.array([0.9, 0.8, 0.2]), valid, counts, {"bank": 18, "run": 57})
    assert report.undefined == (TOO_FEW_PAIRS, None)
    assert "undefined" not in report.to_dict()  # the JSON keeps its shape; the reason is for the error


def test_polysemy_report_dict_nests_the_held_out_half_once():
    half = PolysemyReport(0.5, 0.4, 0.1, n_types=4, n_covered=3, score="probe")
    report = PolysemyReport(0.6, 0.5, 0.2, n_types=8, n_covered=6, score="probe", held_out=half)
    result = report.to_dict()
    assert result["held_out"] == {k: v for k, v in half.to_dict().items() if k != "held_out"}
    assert "held_out" not in result["held_out"] and result["held_out"]["coverage"] == 0.75
    assert half.to_dict()["held_out"] is None  # a report without a held-out half says so
    assert "held_out" not in report.to_dict(with_held_out=False)
