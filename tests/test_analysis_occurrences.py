"""spacy_ctxvec.analysis.occurrences: occurrences of a word, snippets, per-layer lexicons."""

from pathlib import Path

import numpy as np
import pytest

from spacy_ctxvec.analysis.occurrences import (
    collect_occurrences,
    layer_curves,
    layer_lexicons,
    lexicons_by_layer,
    read_texts,
)
from spacy_ctxvec.errors import CtxvecError

from .test_evaluation_tasks import build_sense_nlp
from .test_lexicon_statistics import random_occurrences


@pytest.fixture(scope="module")
def sense_nlp(tiny_bert_dir):
    return build_sense_nlp(tiny_bert_dir)


def test_layer_curves_from_stacked_layers():
    keys, vectors = random_occurrences(6, n_occ=200, width=8)
    noisy = vectors + np.random.default_rng(0).normal(scale=5.0, size=vectors.shape)
    curves = layer_curves(lexicons_by_layer(keys, np.stack([vectors, noisy])), min_count=2)
    assert curves.layers == [0, 1]
    assert curves.mean_self_similarity[0] > curves.mean_self_similarity[1]
    np.testing.assert_allclose(curves.adjusted_self_similarity, curves.mean_self_similarity - curves.baseline)


@pytest.mark.slow
def test_seed_picture_claim_with_minilm(default_nlp):
    """'apple' the fruit and 'Apple' the company separate in contextual space, while
    the static vectors of the default pipeline do not move."""
    from spacy_ctxvec.analysis.occurrences import collect_occurrences
    from spacy_ctxvec.analysis.plotting import word_picture
    from spacy_ctxvec.ops.cosine import pairwise_cosine

    fruit = ["I want to eat an apple.", "She baked an apple pie.", "He picked a ripe apple from the tree."]
    company = ["I want to buy an Apple phone.", "Apple released a new laptop.", "Shares of Apple rose today."]
    occurrences = collect_occurrences(default_nlp, fruit + company, "apple")
    assert len(occurrences.snippets) == 6
    cosine = pairwise_cosine(occurrences.vectors)
    within = (cosine[:3, :3].sum() - 3 + cosine[3:, 3:].sum() - 3) / 12
    across = cosine[:3, 3:].mean()
    assert within > across + 0.05
    assert occurrences.static_vectors is not None
    assert np.allclose(pairwise_cosine(occurrences.static_vectors), 1.0)
    figure = word_picture("apple", occurrences, clusters=2)
    ax_points = figure.axes[0]
    assert sum(len(c.get_offsets()) for c in ax_points.collections[:2]) == 6
    assert sorted(int(t.get_text()) for t in ax_points.texts) == [1, 2, 3, 4, 5, 6]


def test_snippet_brackets_the_word_and_keeps_spacing():
    import spacy

    from spacy_ctxvec.analysis.occurrences import snippet

    nlp = spacy.blank("en")
    assert snippet(nlp("I want to eat an apple."), 5) == "… want to eat an [apple]."
    assert snippet(nlp("Apple sued a rival over its many patents."), 0) == "[Apple] sued a rival over …"


@pytest.mark.parametrize("word,code", [("", "E414"), ("  ", "E414"), ("river bank", "E415"), ("well-known", "E415")])
def test_collect_occurrences_checks_the_word_before_reading_a_text(tiny_nlp, word, code):
    """ "" matched every text (the model ran on all of them); "river bank" ran the model, then
    said the texts hold no occurrence of it."""

    def texts():
        raise AssertionError("a text was read")
        yield "a river bank"

    with pytest.raises(CtxvecError, match=rf"\[CTX-{code}\]"):
        collect_occurrences(tiny_nlp, texts(), word)


def test_collect_occurrences_keeps_the_tokens_senses(sense_nlp, tiny_nlp):
    texts = ["the bank lent us money", "we sat on the river bank", "no such word", "a huge bank of earth"]
    occurrences = collect_occurrences(sense_nlp, texts, "bank")
    expected = [token._.sense for text in texts for token in sense_nlp(text) if token.lower_ == "bank"]
    assert occurrences.senses is not None and occurrences.senses.tolist() == expected
    assert all(sense is not None for sense in expected)
    labels = {t._.sense: t._.sense_label for text in texts for t in sense_nlp(text) if t.lower_ == "bank"}
    assert occurrences.sense_labels == {sense: label for sense, label in labels.items() if label}
    assert collect_occurrences(tiny_nlp, texts, "bank").senses is None  # no sense inventory


def test_occurrences_cut_by_max_occurrences_are_marked_as_the_first_found(tiny_nlp):
    """-n cut the texts: the picture and the command say these are the first found; where the
    texts hold exactly that many, they do not."""
    texts = ["the bank", "a bank", "the river bank"]
    assert collect_occurrences(tiny_nlp, texts, "bank", max_occurrences=2).limit_reached
    assert not collect_occurrences(tiny_nlp, texts, "bank", max_occurrences=3).limit_reached
    assert not collect_occurrences(tiny_nlp, texts + ["no such word"], "bank", max_occurrences=3).limit_reached
    assert collect_occurrences(tiny_nlp, ["bank bank bank"], "bank", max_occurrences=2).limit_reached
    assert not collect_occurrences(tiny_nlp, texts, "bank", max_occurrences=40).limit_reached


def test_first_found_needs_a_further_occurrence_of_the_word_not_its_letters(tiny_nlp):
    """A later text holding the word's letters inside another word is no further occurrence; one
    beyond the batch the model read is (the cut at a batch's end said nothing)."""
    texts = ["the bank", "a bank", "bankrupt firms", "the bankers"]
    assert not collect_occurrences(tiny_nlp, texts, "bank", max_occurrences=2).limit_reached
    assert not collect_occurrences(tiny_nlp, iter(texts), "bank", max_occurrences=2, batch_size=1).limit_reached
    later = texts + ["no such word"] * 5 + ["the Bank of England"]
    for batch_size in (1, 2, 32):
        cut = collect_occurrences(tiny_nlp, iter(later), "bank", max_occurrences=2, batch_size=batch_size)
        assert cut.limit_reached and len(cut.vectors) == 2
    exact_case = collect_occurrences(tiny_nlp, later, "bank", max_occurrences=2, case_sensitive=True, batch_size=2)
    assert not exact_case.limit_reached  # "Bank" is another word when case counts


def test_a_text_over_max_length_holding_the_word_is_e270_one_without_it_is_passed_over(tiny_nlp):
    from spacy_ctxvec.errors import CtxvecError

    long_without = "zzz " * 260_000
    assert len(collect_occurrences(tiny_nlp, [long_without, "the bank is open"], "bank").vectors) == 1
    with pytest.raises(CtxvecError, match="E270"):
        collect_occurrences(tiny_nlp, ["bank " * 210_000], "bank")
    with pytest.raises(CtxvecError, match="E270"):  # read without the model once max_occurrences are kept
        collect_occurrences(tiny_nlp, ["the bank is open", "bank " * 210_000], "bank", max_occurrences=1)
    with pytest.raises(CtxvecError, match="E270"):
        layer_lexicons(tiny_nlp, ["a short text", long_without], max_texts=5)


def test_a_sentences_path_starting_with_a_tilde_says_it_is_not_expanded(tmp_path, monkeypatch):
    """A Python string's '~/s.txt' (no shell expanded it) was E404 "not found" without saying why."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CtxvecError, match=r"CTX-E404\] Sentences file does not exist \('~' is not expanded here"):
        read_texts(Path("~/no-such-sentences.txt"), None)
    with pytest.raises(CtxvecError, match=r"CTX-E404\] Sentences file does not exist \('~'"):
        read_texts("~/no-such-sentences.txt", None)  # type: ignore[arg-type]  # a str: AttributeError 'is_dir'
    with pytest.raises(CtxvecError, match=r"CTX-E404\] Sentences file does not exist: missing\.txt"):
        read_texts(Path("missing.txt"), None)
