"""Extension attributes: installed once, and a clash with another package is a coded error."""

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, Span, Token

from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK, install_extensions, token_context_vec
from spacy_ctxvec.errors import CtxvecError


@pytest.fixture
def foreign_extension():
    """Token._.context_vec registered by 'another plugin' first; ours put back after."""
    install_extensions()
    saved = Token.get_extension("context_vec")
    Token.remove_extension("context_vec")

    def other_plugin_vector(token):
        return np.ones(3)

    Token.set_extension("context_vec", getter=other_plugin_vector)
    yield other_plugin_vector
    Token.remove_extension("context_vec")
    Token.set_extension("context_vec", getter=saved[2])


def test_install_twice_is_harmless():
    install_extensions()
    install_extensions()
    assert Token.get_extension("context_vec")[2] is token_context_vec
    assert Doc.has_extension(CONTEXT_ARRAY) and Span.has_extension("static_vec")


def test_another_plugins_attribute_is_detected(foreign_extension):
    with pytest.raises(
        CtxvecError, match=r"\[CTX-E022\] .*Token\._\.context_vec.*other_plugin_vector.*remove_extension"
    ):
        install_extensions()
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match=r"\[CTX-E022\]"):
        nlp.add_pipe("ctxvec_context")  # the component says so when it is created


def test_a_plain_attribute_of_the_same_name_is_detected():
    install_extensions()
    saved = Doc.get_extension(CONTEXT_ARRAY)
    Doc.remove_extension(CONTEXT_ARRAY)
    Doc.set_extension(CONTEXT_ARRAY, default="theirs")
    try:
        with pytest.raises(CtxvecError, match=r"\[CTX-E022\] .*Doc\._\.ctxvec_context .*default 'theirs'"):
            install_extensions()
    finally:
        Doc.remove_extension(CONTEXT_ARRAY)
        Doc.set_extension(CONTEXT_ARRAY, default=saved[0])
    install_extensions()


def test_span_and_doc_vectors_need_the_array_and_its_mask():
    """Means over the tokens the mask keeps; zeros if it keeps none; None (no vector, no
    traceback) where a Doc has the array but its mask was taken away."""
    install_extensions()
    doc = spacy.blank("en")("the bank of the river")
    doc._.set(CONTEXT_ARRAY, np.arange(10, dtype=np.float32).reshape(5, 2))
    doc._.set(CONTEXT_MASK, np.array([True, False, True, False, False]))
    np.testing.assert_array_equal(doc._.context_vec, [2.0, 3.0])
    np.testing.assert_array_equal(doc[3:5]._.context_vec, [0.0, 0.0])
    doc._.set(CONTEXT_MASK, None)
    assert doc._.context_vec is None and doc[0:2]._.context_vec is None
