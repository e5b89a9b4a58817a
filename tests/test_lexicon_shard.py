
import pytest

from spacy_ctxvec.lexicon.shard import partial_lexicon
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import merge

WORDS = ["the", "bank", "river", "loan", "money", "i", "have", "an", "apple", "pen", "play", "hotel", "we", "sat", "on"]


def test_partial_lexicon_counts_every_token_with_a_vector(tiny_nlp):
    texts = ["The bank of the river.", "I have an apple", "Bank loan"]
    lexicon = partial_lexicon(tiny_nlp, texts, batch_size=2)
    expected = sum(int(doc._.ctxvec_context_mask.sum()) for doc in tiny_nlp.pipe(texts))
    assert lexicon.n_occurrences == expected
    assert lexicon.counts[lexicon.index("bank")] == 2 and "Bank" not in lexicon
    assert lexicon.meta["key"] == "lower"
    by_text = partial_lexicon(tiny_nlp, texts, key="text", batch_size=2)
    assert "Bank" in by_text and by_text.counts[by_text.index("bank")] == 1


def test_partial_lexicons_of_parts_merge_to_the_whole(tiny_nlp):
    texts = ["the bank of the river", "we took out a loan", "the bank", "play the apple pen"]
    whole = partial_lexicon(tiny_nlp, texts, batch_size=1)
    parts = merge(partial_lexicon(tiny_nlp, texts[2:], batch_size=1), partial_lexicon(tiny_nlp, texts[:2], batch_size=1))
    assert parts == whole


def test_key_modes_unknown_and_lemma_without_lemmatizer(tiny_nlp):
    with pytest.raises(CtxvecError, match="E216"):
        partial_lexicon(tiny_nlp, ["a"], key="norm")
    with pytest.raises(CtxvecError, match="E217.*lemmatizer"):
        partial_lexicon(tiny_nlp, ["a"], key="lemma")


def test_lemma_key_with_a_lemma_setter(tiny_bert_dir):
    from .conftest import make_trf_nlp

    nlp = make_trf_nlp(str(tiny_bert_dir), components=["test_strip_s_lemmas", "ctxvec_context"], window=8, stride=6)
    lexicon = partial_lexicon(nlp, ["banks and bank", "pens"], key="lemma", batch_size=4)
    assert lexicon.counts[lexicon.index("bank")] == 2 and "pen" in lexicon
    silent = make_trf_nlp(str(tiny_bert_dir), components=["test_declares_lemmas", "ctxvec_context"], window=8, stride=6)
    with pytest.raises(CtxvecError, match="E229"):
        partial_lexicon(silent, ["banks"], key="lemma", batch_size=4)


def test_pipeline_without_context_vectors_is_an_error():
    import spacy

    with pytest.raises(CtxvecError, match="E218"):
        partial_lexicon(spacy.blank("en"), ["text"], batch_size=4)
