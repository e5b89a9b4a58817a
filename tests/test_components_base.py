"""components/base.py: the dtype setting, the weak pipeline reference, exclude lists, and
DocAnnotator's __call__/pipe with spaCy's error handler, through the real ctxvec_context."""

import gc
import pickle

import numpy as np
import pytest
import spacy

from spacy_ctxvec.components.base import NlpRef, excluded, vector_dtype
from spacy_ctxvec.errors import CtxvecError

TEXTS = ["the bank of the river", "i have an apple", "", "we sat on the river bank and took a loan"]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_supported_dtypes(dtype):
    assert vector_dtype(dtype) == np.dtype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "int8", "Float32", ""])
def test_an_unsupported_dtype_is_a_coded_error(dtype):
    with pytest.raises(CtxvecError, match="E005.*float32"):
        vector_dtype(dtype)


def test_an_unsupported_dtype_in_the_component_config_is_a_coded_error():
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match="E005.*float64"):
        nlp.add_pipe("ctxvec_context", config={"dtype": "float64"})


def test_nlp_ref_is_weak_and_pickles_empty():
    nlp = spacy.blank("en")
    ref = NlpRef(nlp)
    assert ref() is nlp
    assert pickle.loads(pickle.dumps(ref))() is None
    assert NlpRef()() is None
    del nlp
    gc.collect()
    assert ref() is None


def test_excluded_reads_any_iterable():
    assert excluded("cfg", ["vocab", "cfg"])
    assert excluded("cfg", (name for name in ("cfg",)))
    assert not excluded("cfg", ())
    assert not excluded("cfg", ["config"])


def test_pipe_gives_the_vectors_of_call_in_order_for_any_batch_size(tiny_nlp):
    one_by_one = [tiny_nlp(text)._.ctxvec_context for text in TEXTS]
    for batch_size in (1, 3, 128):
        docs = list(tiny_nlp.pipe(TEXTS, batch_size=batch_size))
        assert [doc.text for doc in docs] == TEXTS
        for doc, expected in zip(docs, one_by_one):
            np.testing.assert_allclose(doc._.ctxvec_context, expected, rtol=1e-5, atol=1e-6)
    component = tiny_nlp.get_pipe("ctxvec_context")
    transformer = tiny_nlp.get_pipe("transformer")
    doc = transformer(tiny_nlp.make_doc(TEXTS[0]))
    assert component(doc) is doc


def test_a_failing_batch_goes_to_the_error_handler_and_the_others_go_on(tiny_nlp):
    """Docs without trf_data (the transformer left out) fail with E001; spaCy's default
    handler re-raises, a handler set with set_error_handler gets the batch and the rest runs."""
    component = spacy.blank("en").add_pipe("ctxvec_context")
    with_trf = [tiny_nlp.get_pipe("transformer")(tiny_nlp.make_doc(text)) for text in TEXTS[:2]]
    bare = spacy.blank("en").make_doc("no transformer ran on this")
    with pytest.raises(CtxvecError, match="E001"):
        list(component.pipe([bare]))
    failed = []
    component.set_error_handler(lambda name, proc, docs, err: failed.append((name, [d.text for d in docs], err)))
    annotated = list(component.pipe([with_trf[0], bare, with_trf[1]], batch_size=1))
    assert [doc.text for doc in annotated] == TEXTS[:2]
    assert all(doc._.ctxvec_context.shape[0] == len(doc) for doc in annotated)
    assert [(name, texts) for name, texts, _ in failed] == [("ctxvec_context", [bare.text])]
    assert isinstance(failed[0][2], CtxvecError)
