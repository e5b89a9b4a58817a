import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.evaluation.token_vectors import doc_from_words, static_token_vectors, target_vectors

SENTENCES = [["i", "sat", "on", "the", "bank", "."], ["the", "bank", "took", "my", "money"], ["unbelievable", "!"]]
INDICES = np.array([4, 1, 0])


@pytest.fixture(scope="module")
def tiny_targets(tiny_nlp):
    return target_vectors(tiny_nlp, SENTENCES, INDICES, batch_size=2)


def test_doc_keeps_given_tokens(tiny_nlp):
    doc = doc_from_words(tiny_nlp, ["Don't", "split", "me"])
    assert [t.text for t in doc] == ["Don't", "split", "me"] and doc.text == "Don't split me"


def test_views_are_every_hidden_layer_of_the_target(tiny_nlp, tiny_targets):
    # tiny BERT: input embeddings + 2 layers, width 32.
    assert tiny_targets.views.shape == (3, 3, 32)
    assert tiny_targets.view_names == ["layer_0", "layer_1", "layer_2"]
    assert tiny_targets.has_vector.all()
    for k, words in enumerate(SENTENCES):
        doc = tiny_nlp(doc_from_words(tiny_nlp, words))
        # The pipeline's own vector (last layer, mean pooling) is the last view.
        np.testing.assert_allclose(tiny_targets.pipeline[k], doc[int(INDICES[k])]._.context_vec, atol=1e-5)
        np.testing.assert_allclose(tiny_targets.views[k, -1], tiny_targets.pipeline[k], atol=1e-5)


def test_context_means_and_moments(tiny_nlp, tiny_targets):
    assert tiny_targets.moments.count == sum(len(words) for words in SENTENCES)
    doc = tiny_nlp(doc_from_words(tiny_nlp, SENTENCES[1]))
    others = np.array([token._.context_vec for token in doc if token.i != 1])
    np.testing.assert_allclose(tiny_targets.context_means[1, -1], others.mean(axis=0), atol=1e-5)


def test_batch_size_and_order_do_not_change_vectors(tiny_nlp, tiny_targets):
    reordered = target_vectors(tiny_nlp, SENTENCES[::-1], INDICES[::-1], batch_size=3)
    np.testing.assert_allclose(reordered.views[::-1], tiny_targets.views, atol=1e-5)


def test_static_vectors_need_a_static_component(tiny_nlp):
    with pytest.raises(CtxvecError, match=r"\[CTX-E307\].*ctxvec_static"):
        static_token_vectors(tiny_nlp, ["bank"])


@pytest.mark.slow
def test_static_vectors_of_default_pipeline(default_nlp):
    vectors, found = static_token_vectors(default_nlp, ["bank", "river", "bank"])
    assert vectors.shape == (3, 384) and found.all()
    np.testing.assert_array_equal(vectors[0], vectors[2])
    doc = default_nlp("river")
    np.testing.assert_allclose(vectors[1], doc[0]._.static_vec)


def test_widening_pooling_keeps_layers_apart(tiny_bert_dir):
    import spacy

    from .conftest import transformer_config

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context", config={"pooling": {"@misc": "spacy-ctxvec.first_last_pooling.v1"}})
    nlp.initialize()
    result = target_vectors(nlp, SENTENCES, INDICES)
    assert result.views.shape == (3, 3, 64)
    np.testing.assert_allclose(result.views[:, -1], result.pipeline, atol=1e-5)


def test_no_sentences_is_a_coded_error(tiny_nlp):
    with pytest.raises(CtxvecError, match=r"E305.*The input has no usable rows.*at least one sentence"):
        target_vectors(tiny_nlp, [], np.zeros(0, dtype=np.int64))
