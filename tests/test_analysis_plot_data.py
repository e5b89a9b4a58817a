"""analysis/plot_data: what the plot commands draw, computed in the library."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from spacy_ctxvec.analysis.plot_data import (
    PolysemyScores,
    check_at_least_one,
    check_word,
    layer_self_similarity,
    polysemy_scores,
    word_occurrences,
)
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.polysemy_probe import FITTED_HALF, fit_probe, in_fitted_half
from spacy_ctxvec.lexicon.statistics import Lexicon

from .test_lexicon_polysemy_probe import planted_lexicon

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
    assert data.score_label == "polysemy score: (1 - self-similarity) / (1 - baseline)"
    known = data.counts > 0
    expected = spearmanr(np.log(data.counts[known]), data.scores[known]).statistic
    assert data.correlation == pytest.approx(expected) and data.n_in_fitted_half is None  # no probe here
    assert data.counts_name == "senses.tsv"
    lexicon = Lexicon.from_disk(lexicon_dir)
    scores, _ = lexicon.polysemy_scores(5)
    assert np.allclose(data.scores, [scores[lexicon.index(word)] for word in data.words])


def test_the_python_api_takes_paths_as_strings_and_the_cli_defaults(lexicon_dir, tmp_path):
    """A str sense-counts path raised AttributeError ('str' object has no attribute 'name');
    min_count, max_texts and sense_counts were required though `plot` has defaults for them."""
    import inspect

    from spacy_ctxvec.cli.plot import plot_layers_cli

    senses = tmp_path / "senses.tsv"
    senses.write_text("bank\t18\napple\t2\ndog\t8\n", encoding="utf8")
    as_text = polysemy_scores(str(lexicon_dir), str(senses))
    assert as_text.counts_name == "senses.tsv" and as_text.n_known == 3
    assert as_text.words == polysemy_scores(lexicon_dir, senses, min_count=5).words  # 5 for a lexicon, as plot
    with pytest.raises(CtxvecError, match="E208"):  # 0 is refused, never replaced by the default
        polysemy_scores(lexicon_dir, min_count=0)
    cli = inspect.signature(plot_layers_cli).parameters
    library = inspect.signature(layer_self_similarity).parameters
    assert [cli[name].default.default for name in ("min_count", "max_texts")] == [
        library[name].default for name in ("min_count", "max_texts")
    ]


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


def test_a_probe_fitted_on_half_counts_the_table_words_of_that_half_whatever_the_table(tmp_path):
    """With a user's own table, the scores say how many of its words are of the md5-even
    half (the only words the probe was fitted on), not that it is the probe's training data."""
    lexicon, counts = planted_lexicon(n_types=60)
    lexicon.to_disk(tmp_path / "lexicon")
    probe = fit_probe(lexicon, counts, min_count=5, half=True)
    assert probe.meta["fitted_words"] == FITTED_HALF
    probe.to_disk(tmp_path / "lexicon")  # a probe directory beside the lexicon, as load_probe reads it
    table_words = [f"w{i:03d}" for i in range(8)]
    table = tmp_path / "my.tsv"
    table.write_text("lemma\tcount\n" + "".join(f"{w}\t{i + 1}\n" for i, w in enumerate(table_words)), "utf8")
    data = polysemy_scores(tmp_path / "lexicon", table, min_count=5)
    assert data.used == "probe" and data.counts_name == "my.tsv" and data.n_known == 8
    # a small lexicon (W054): the axis does not call its scores numbers of senses
    assert (
        data.warning and data.score_label == "polysemy score (ranks words; a small lexicon's are not numbers of senses)"
    )
    large = PolysemyScores(data.words, data.scores, data.used)  # no W054: a corpus as large as the probe's
    assert large.score_label == "polysemy score (estimated number of dictionary senses)"
    expected = int(in_fitted_half(table_words).sum())
    assert 0 < expected < 8 and data.n_in_fitted_half == expected
    whole = fit_probe(lexicon, counts, min_count=5)  # fitted on every word: nothing to count
    whole.to_disk(tmp_path / "whole")
    lexicon.to_disk(tmp_path / "whole")
    assert polysemy_scores(tmp_path / "whole", table, min_count=5).n_in_fitted_half is None


@pytest.mark.parametrize(
    "word,code,detail",
    [
        ("", "E414", "is empty"),
        ("   ", "E414", "is only whitespace"),
        ("river bank", "E415", "'river bank' is 2 words (river, bank)"),
        ("the river  bank", "E415", "'the river bank' is 3 words"),
    ],
)
def test_a_word_that_is_not_one_word_is_refused_before_any_model_loads(word, code, detail, tmp_path):
    sentences = tmp_path / "s.txt"
    sentences.write_text("we sat on the river bank .\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=code) as caught:
        word_occurrences(word, sentences, None, "no-such-pipeline")  # that pipeline would be E011
    assert detail in str(caught.value)
    assert check_word("  bank ") == "bank"


def test_layer_min_count_below_two_is_refused_before_any_model_loads(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a a a\n", encoding="utf8")
    for min_count in (-5, 0, 1):
        with pytest.raises(CtxvecError, match=rf"E208.*got {min_count}"):
            layer_self_similarity("no-such-pipeline", corpus, min_count=min_count, max_texts=10)


def test_a_word_the_model_reads_as_unknown_warns_and_a_cjk_word_names_the_tokenizer(tmp_path, tiny_pipeline_dir):
    sentences = tmp_path / "s.txt"
    sentences.write_text("I have a 😀 today .\nthe 😀 and the pen .\n我有一个苹果。\n", encoding="utf8")
    with pytest.warns(UserWarning, match=r"W056.*'😀' as its unknown piece \[UNK\] alone"):
        occurrences = word_occurrences("😀", sentences, None, tiny_pipeline_dir)
    assert len(occurrences.vectors) == 2 and occurrences.static_vectors is None
    with pytest.raises(CtxvecError, match=r"E402.*苹果.*\(lang 'en'\) does not split Chinese or Japanese"):
        word_occurrences("苹果", sentences, None, tiny_pipeline_dir)


def test_layer_curves_and_word_occurrences_say_how_the_vectors_were_pooled(tmp_path, tiny_pipeline_dir):
    """The pictures did not say which pooling (plot layers) or layer and pooling (plot
    word) they show, so pictures of two configs could not be told apart."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("the bank of the river .\nthe bank lent the money .\n" * 3, encoding="utf8")
    curves = layer_self_similarity(tiny_pipeline_dir, corpus, min_count=2, max_texts=10)
    assert curves.pooling == "pool_mean"
    occurrences = word_occurrences("bank", corpus, None, tiny_pipeline_dir)
    assert occurrences.context_source.startswith("the last layer, pooled by pool_mean")
    # and which model: the transformer's name in the config (here the tiny model's folder)
    import spacy

    name = str(spacy.load(tiny_pipeline_dir).config["components"]["transformer"]["model"]["name"])
    assert curves.model == occurrences.model == name


def test_plot_word_reads_its_sentences_file_once(tmp_path, tiny_pipeline_dir, monkeypatch):
    """The sentences were read whole twice: once to check them before the model loads, once to run them."""
    from spacy_ctxvec.analysis import occurrences as occurrences_module

    sentences = tmp_path / "s.txt"
    sentences.write_text("the bank of the river .\nthe bank lent the money .\n", encoding="utf8")
    reads = []
    original = occurrences_module.text_lines
    monkeypatch.setattr(
        occurrences_module, "text_lines", lambda path, *a, **k: reads.append(path) or original(path, *a, **k)
    )
    assert len(word_occurrences("bank", sentences, None, tiny_pipeline_dir).vectors) == 2
    assert reads == [sentences]
