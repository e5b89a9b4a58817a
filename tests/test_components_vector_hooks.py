"""ctxvec_context's vector hooks (components.vector_hooks) where the stored vectors no longer
line up with the Doc, and where the other side of .similarity has no such vectors; the
hooks of Docs pickled before they moved still resolve."""

import pickle

import numpy as np
import pytest
from spacy.tokens import DocBin

TEXT = "We sat on the river bank.  The bank lends money."


def test_merged_tokens_read_doc_tensor_and_every_vector_is_an_array(hooks_nlp):
    """After doc.retokenize() merged "river bank", its .vector was None: vector_norm raised
    and .similarity gave 0.0; a span of it was all zeros."""
    doc = hooks_nlp(TEXT)
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[4:6])
    merged = doc[4]
    assert merged.text == "river bank" and isinstance(merged.vector, np.ndarray)
    np.testing.assert_array_equal(merged.vector, doc.tensor[4])
    assert merged.has_vector and merged.vector_norm > 0
    assert doc[4:5].vector.any() and 0.0 < merged.similarity(doc[8]) <= 1.0
    np.testing.assert_allclose(doc[3:5].vector, np.mean([doc[3].vector, merged.vector], axis=0), rtol=1e-5)


def test_doc_tensor_is_read_only_as_the_vectors_it_shows(hooks_nlp):
    """doc.tensor was the stored array itself: doc.tensor[2] *= 0 zeroed the token's
    context_vec (has_context_vec still True), a NaN written there came back from it."""
    doc = hooks_nlp(TEXT)
    before = doc[2]._.context_vec.copy()
    with pytest.raises(ValueError, match="read-only"):
        doc.tensor[2] *= 0
    np.testing.assert_array_equal(doc[2]._.context_vec, before)
    with doc.retokenize() as retokenizer:  # spaCy makes a new tensor when it merges
        retokenizer.merge(doc[4:6])
    assert len(doc.tensor) == len(doc) and doc[4].has_vector


def test_a_span_as_doc_without_its_user_data_keeps_contextual_vectors(hooks_nlp):
    """Span.as_doc() (copy_user_data=False, spaCy's default) copies the hooks and doc.tensor
    but not the stored vectors: .vector was None for the token, the span and the Doc."""
    doc = hooks_nlp(TEXT)
    part = doc[3:6].as_doc()
    for i in range(len(part)):
        np.testing.assert_array_equal(part[i].vector, doc[3 + i].vector)
    np.testing.assert_allclose(part.vector, doc[3:6].vector, rtol=1e-5)
    assert part.has_vector and part[2].similarity(part[2]) == pytest.approx(1.0)
    empty = hooks_nlp("")
    assert isinstance(empty.vector, np.ndarray) and not empty.has_vector


def test_a_doc_without_contextual_vectors_is_compared_with_w069_not_a_numpy_error(hooks_nlp):
    """A hooked token compared with a token of a Doc read from a DocBin (no hooks, no
    doc.tensor) raised numpy's "operands could not be broadcast"."""
    doc = hooks_nlp(TEXT)
    docbin = DocBin(store_user_data=True, docs=[doc])
    plain = next(iter(DocBin().from_bytes(docbin.to_bytes()).get_docs(hooks_nlp.vocab)))
    expected = r"\[CTX-W069\] Token\.similarity\(Token\) compares vectors of sizes 32 and 0.*add_vector_hooks"
    with pytest.warns(UserWarning, match=expected):
        assert doc[5].similarity(plain[5]) == 0.0
    with pytest.warns(UserWarning, match=r"\[CTX-W069\]"):
        assert doc.similarity(plain) == 0.0
    import spacy_ctxvec

    spacy_ctxvec.add_vector_hooks(plain)
    assert doc[5].similarity(plain[5]) == pytest.approx(1.0, abs=1e-6)


def test_docs_pickled_before_the_hooks_moved_find_them(hooks_nlp):
    from spacy_ctxvec.components import context, vector_hooks

    for name in ("_doc_vector", "_span_vector", "_token_vector", "_token_has_vector", "_similarity"):
        assert getattr(context, name) is getattr(vector_hooks, name)
    with pytest.raises(AttributeError):
        context._no_such_hook  # noqa: B018
    doc = pickle.loads(pickle.dumps(hooks_nlp(TEXT)))
    assert doc.user_token_hooks["vector"] is vector_hooks._token_vector and doc[5].has_vector


def test_a_tensor_of_another_width_is_not_read_as_contextual_vectors(hooks_nlp):
    """A later tok2vec writes a doc.tensor of its own width: a merged token read it, and
    doc.vector then stacked rows of two widths (numpy's inhomogeneous-shape error)."""
    doc = hooks_nlp(TEXT)
    expected = doc.vector.copy()
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[4:6])
    doc.tensor = np.ones((len(doc), 96), dtype=np.float32)
    merged = doc[4]
    assert merged.vector.shape == (0,) and not merged.has_vector
    assert doc.vector.shape == expected.shape and doc[3:6].vector.shape == expected.shape
    assert doc[5].vector.shape == expected.shape and doc[5].has_vector
