"""components/initialize_corpus: ctxvec_polysemy's [initialize] corpus reader, checked (a
reader of your own that yields nothing built an empty lexicon as a success)."""

import pytest
import spacy
from spacy.tokens import Doc

from spacy_ctxvec.errors import CtxvecError

from .conftest import transformer_config


@spacy.registry.misc("test-ctxvec.odd_corpus.v1")
def configure_odd_corpus(kind: str):
    """A user's corpus reader, and its mistakes."""

    def read(vocab):
        if kind == "bytes":
            yield "the bank of the river"
            yield b"the bank lent money"
        elif kind == "docs":
            yield Doc(vocab, words=["the", "bank", "lent", "money"])
            yield "the bank of the river"
            yield Doc(vocab, words=["a", "bank"]).to_bytes()  # nlp.pipe takes a serialised Doc too
        # "empty": nothing

    return read


def initialized(tiny_bert_dir, kind):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "senses": False})
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "test-ctxvec.odd_corpus.v1", "kind": kind}
    }
    nlp.initialize()
    return nlp


@pytest.mark.parametrize(
    "kind,message",
    [
        ("empty", r"CTX-E269\] 'ctxvec_polysemy': the corpus reader .* yielded no document\."),
        ("bytes", r"CTX-E269\] .* yielded bytes that are not a Doc's doc.to_bytes\(\) \(document 2: "),
    ],
)
def test_a_corpus_reader_that_yields_nothing_or_no_documents_is_a_coded_error(tiny_bert_dir, kind, message):
    with pytest.raises(CtxvecError, match=message):
        initialized(tiny_bert_dir, kind)


def test_a_corpus_reader_of_texts_and_docs_counts_both(tiny_bert_dir):
    lexicon = initialized(tiny_bert_dir, "docs").get_pipe("ctxvec_polysemy").lexicon
    assert lexicon.n_occurrences == 11 and lexicon.count_of("bank") == 3


def test_a_corpus_given_to_initialize_in_python_that_is_no_reader_is_e269(tiny_bert_dir):
    """A config's reader is checked by spaCy ("Input should be callable"); in Python a list
    of texts was a bare TypeError."""
    nlp = initialized(tiny_bert_dir, "docs")
    with pytest.raises(CtxvecError, match=r"CTX-E269\] 'ctxvec_polysemy': the corpus reader .* is list, not a"):
        nlp.get_pipe("ctxvec_polysemy").initialize(nlp=nlp, corpus=["the bank of the river"])


def test_another_kind_of_registered_function_named_as_the_corpus_is_e269(tiny_bert_dir):
    """A pooling or a static vectors source in the corpus slot was a bare TypeError
    ("pool_mean() missing 1 required positional argument") or AttributeError."""
    from spacy_ctxvec.ops.pooling import pool_mean
    from spacy_ctxvec.static.sources import configure_transformer_embeddings

    nlp = initialized(tiny_bert_dir, "docs")
    polysemy = nlp.get_pipe("ctxvec_polysemy")
    with pytest.raises(CtxvecError, match=r"CTX-E269\] .* failed when called with the Vocab \(TypeError: pool_mean"):
        polysemy.initialize(nlp=nlp, corpus=pool_mean)
    with pytest.raises(CtxvecError, match=r"CTX-E269\] .* failed when called with the Vocab \(AttributeError: "):
        polysemy.initialize(nlp=nlp, corpus=configure_transformer_embeddings("transformer"))

    def reader_with_a_bug(vocab):  # what a reader raises while it yields is its own
        yield "the bank"
        raise TypeError("a bug in the user's reader")

    with pytest.raises(TypeError, match="a bug in the user's reader"):
        polysemy.initialize(nlp=nlp, corpus=reader_with_a_bug)


def test_too_many_directions_for_the_vectors_is_e603_before_the_corpus_is_read(tiny_bert_dir):
    """n_directions over half the width was refused only after the whole corpus was counted."""
    read = []

    def reader(vocab):
        read.append(True)
        yield "the bank of the river"

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "induction": {"n_directions": 300}})
    nlp.initialize()
    with pytest.raises(CtxvecError, match=r"CTX-E603\] .*n_directions must be at most half the vectors' width"):
        nlp.get_pipe("ctxvec_polysemy").initialize(nlp=nlp, corpus=reader)
    assert read == []
