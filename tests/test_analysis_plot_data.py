"""analysis/plot_data: what the plot commands draw, computed in the library."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from spacy_ctxvec.analysis.plot_data import check_at_least_one, layer_self_similarity, polysemy_scores, word_occurrences
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon

WORDS = ["bank", "apple", "dog", "run", "the", "zzyzx"]


@pytest.fixture
def lexicon_dir(tmp_path):
    rng = np.random.default_rng(0)
    spreads = np.array([1.5, 1.0, 0.2, 2.0, 0.1, 0.5])
    centres = rng.normal(size=(len(WORDS), 8))
    vectors = np.repeat(centres, 20, axis=0) + np.repeat(spreads, 20)[:, None] * rng.normal(size=(120, 8))
    Lexicon.from_occurrences(list(np.repeat(WORDS, 20)), vectors).to_disk(tmp_path / "lexicon")
    return tmp_path / "lexicon"


def test_polysemy_scores_with_sense_counts_give_the_spearman_over_known_words(lexicon_dir, tmp_path):
    senses = tmp_path / "senses.tsv"
    senses.write_text("lemma\ttotal\nbank\t18\napple\t2\ndog\t8\nrun\t57\nthe\t1\n", encoding="utf8")
    data = polysemy_scores(lexicon_dir, senses, min_count=5)
    assert sorted(data.words) == sorted(WORDS) and data.used == "self_similarity" and data.n_known == 5
    known = data.counts > 0
    expected = spearmanr(np.log(data.counts[known]), data.scores[known]).statistic
    assert data.correlation == pytest.approx(expected) and not data.probe_fitted_on_half
    lexicon = Lexicon.from_disk(lexicon_dir)
    scores, _ = lexicon.polysemy_scores(5)
    assert np.allclose(data.scores, [scores[lexicon.index(word)] for word in data.words])


def test_polysemy_scores_without_counts_or_scored_words(lexicon_dir):
    data = polysemy_scores(lexicon_dir, None, min_count=5)
    assert data.counts is None and data.correlation is None and data.n_known == 0
    with pytest.raises(CtxvecError, match="E410"):
        polysemy_scores(lexicon_dir, None, min_count=21)


def test_polysemy_scores_leave_out_types_without_a_letter_unless_asked(tmp_path):
    rng = np.random.default_rng(1)
    keys = ["bank", ",", "1999", "mr."]
    vectors = rng.normal(size=(len(keys) * 6, 8))
    Lexicon.from_occurrences(list(np.repeat(keys, 6)), vectors).to_disk(tmp_path / "lexicon")
    assert polysemy_scores(tmp_path / "lexicon", None, min_count=5).words == ["bank", "mr."]
    every_type = polysemy_scores(tmp_path / "lexicon", None, min_count=5, words_only=False)
    assert sorted(every_type.words) == sorted(keys)


def test_bad_counts_and_inputs_are_coded_errors_before_any_model_loads(tmp_path):
    with pytest.raises(CtxvecError, match=r"E228.*--top must be at least 1"):
        check_at_least_one("--top", 0)
    with pytest.raises(CtxvecError, match=r"E228.*--max-occurrences"):
        word_occurrences("bank", tmp_path / "s.txt", None, "no-such-pipeline", max_occurrences=0)
    with pytest.raises(CtxvecError, match=r"E[0-9]+.*s\.txt"):
        word_occurrences("bank", tmp_path / "s.txt", None, "no-such-pipeline")
    with pytest.raises(CtxvecError, match=r"E[0-9]+.*c\.txt"):
        layer_self_similarity("no-such-pipeline", tmp_path / "c.txt", min_count=2, max_texts=10)
