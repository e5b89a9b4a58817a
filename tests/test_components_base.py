"""components/base.py: the dtype setting, the weak pipeline reference, exclude lists,
DocAnnotator's __call__/pipe with spaCy's error handler through the real ctxvec_context,
and batches bounded by Docs and tokens."""

import gc
import os
import pickle
import weakref
from typing import List

import numpy as np
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_ctxvec.components import base
from spacy_ctxvec.components.base import NlpRef, excluded, token_bounded_batches, vector_dtype
from spacy_ctxvec.components.context import ContextVectors
from spacy_ctxvec.errors import CtxvecError

TEXTS = ["the bank of the river", "i have an apple", "", "we sat on the river bank and took a loan"]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_supported_dtypes(dtype):
    assert vector_dtype(dtype, "ctxvec_context") == np.dtype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "int8", "Float32", ""])
def test_an_unsupported_dtype_is_a_coded_error(dtype):
    with pytest.raises(CtxvecError, match=r"E005.*'my_static'.*\[components.my_static\].*float32"):
        vector_dtype(dtype, "my_static")


def test_an_unsupported_dtype_in_the_component_config_is_a_coded_error():
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match=r"E005.*'ctxvec_context'.*float64"):
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
    for batch_size in (1, 3):  # in a batch of its own, or in one with the others: only it fails
        failed.clear()
        annotated = list(component.pipe([with_trf[0], bare, with_trf[1]], batch_size=batch_size))
        assert [doc.text for doc in annotated] == TEXTS[:2]
        assert all(doc._.ctxvec_context.shape[0] == len(doc) for doc in annotated)
        assert [(name, texts) for name, texts, _ in failed] == [("ctxvec_context", [bare.text])]
        assert isinstance(failed[0][2], CtxvecError)


def docs_of(lengths: List[int]) -> List[Doc]:
    vocab = Vocab()
    return [Doc(vocab, words=["w"] * n) for n in lengths]


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 40), max_size=40),
    max_docs=st.integers(1, 12),
    max_tokens=st.integers(1, 60),
)
def test_batches_keep_order_and_close_at_either_bound(lengths, max_docs, max_tokens):
    docs = docs_of(lengths)
    batches = list(token_bounded_batches(iter(docs), max_docs, max_tokens))
    assert [doc for batch in batches for doc in batch] == docs  # every Doc once, in order
    for batch, following in zip(batches, batches[1:] + [None]):
        tokens = sum(len(doc) for doc in batch)
        assert batch and len(batch) <= max_docs
        assert tokens - len(batch[-1]) < max_tokens  # closed as soon as it was full
        if following is not None:  # and only then
            assert len(batch) == max_docs or tokens >= max_tokens


def test_a_full_batch_is_given_before_the_next_doc_is_read():
    """The component before runs its next batch only when a Doc of it is read: a batch held
    until then made each component wait one batch more (spacy benchmark speed, first results)."""
    docs, read = docs_of([3] * 10), []

    def stream():
        for doc in docs:
            read.append(doc)
            yield doc

    batches = token_bounded_batches(stream(), 4, 1000)
    assert len(next(batches)) == 4 and len(read) == 4
    by_tokens = token_bounded_batches(stream(), 100, 6)  # full at 6 tokens: two Docs
    read.clear()
    assert len(next(by_tokens)) == 2 and len(read) == 2
    over = token_bounded_batches(stream(), 100, 5)  # full once it holds 5 tokens: two Docs (6)
    read.clear()
    assert len(next(over)) == 2 and len(read) == 2  # the third was read to see whether it would fit
    ends = weakref.WeakSet([docs[0], docs[3]])  # where a transformer closed its buffers
    assert [len(batch) for batch in token_bounded_batches(iter(docs), 100, 1000, ends)] == [1, 3, 6]


def test_pipe_batches_are_bounded_by_tokens_as_well_as_by_batch_size(tiny_nlp, monkeypatch):
    """Docs leave a component's batch before long texts pile up their transformer outputs."""
    seen: List[int] = []

    class Recording(ContextVectors):
        def set_annotations(self, docs):
            seen.append(sum(len(doc) for doc in docs))
            super().set_annotations(docs)

    context = tiny_nlp.get_pipe("ctxvec_context")
    recording = Recording(pooling=context.pooling, layers=context.layers, nlp=tiny_nlp)
    docs = [tiny_nlp.get_pipe("transformer")(tiny_nlp.make_doc(text)) for text in TEXTS * 5]
    monkeypatch.setattr(base, "MAX_BATCH_TOKENS", 12)
    out = list(recording.pipe(iter(docs), batch_size=1000))
    assert out == docs and sum(seen) == sum(len(doc) for doc in docs)
    assert len(seen) > 1 and all(tokens - 12 < max(len(doc) for doc in docs) for tokens in seen)  # full at 12
    expected = [context(doc)._.ctxvec_context for doc in docs]
    assert all(np.array_equal(doc._.ctxvec_context, vectors) for doc, vectors in zip(out, expected))


def test_the_first_docs_leave_the_pipeline_after_one_transformer_batch(tiny_bert_dir):
    """nlp.pipe through the transformer and two ctxvec components: the first batch's Docs come
    out before the transformer runs its second batch (each component read one batch ahead:
    the first Docs came out after three transformer batches, and `spacy benchmark speed`
    timed batches of nothing)."""
    from .conftest import make_trf_nlp

    nlp = make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_static", "ctxvec_context"], window=8, stride=6)
    transformer = nlp.get_pipe("transformer")
    calls: List[int] = []
    predict = transformer.predict
    transformer.predict = lambda docs: (calls.append(len(docs)), predict(docs))[1]  # type: ignore[method-assign]
    stream = nlp.pipe(TEXTS * 4, batch_size=len(TEXTS))
    first = next(stream)
    assert first._.context_vec is not None and calls == [len(TEXTS)]
    assert len([first, *stream]) == len(TEXTS) * 4 and calls == [len(TEXTS)] * 4


def test_a_pickled_pipeline_has_the_attributes_in_a_fresh_process(tiny_bert_dir, tmp_path):
    """A pipeline pickled to another process (joblib, a process pool) ran there, but every
    ._ attribute was spaCy's [E046]: the factories that register them do not run on
    unpickling. Unpickled components register them, and the values are the original's."""
    from .conftest import make_trf_nlp, python_output

    nlp = make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_static", "ctxvec_context"])
    doc = nlp("the bank of the river")
    (tmp_path / "nlp.pkl").write_bytes(pickle.dumps(nlp))
    np.save(tmp_path / "expected.npy", np.stack([doc[1]._.context_vec, doc[1]._.static_vec]))
    script = (
        "import pickle, sys, numpy as np\n"
        "from pathlib import Path\n"
        "tmp = Path(sys.argv[1])\n"
        "doc = pickle.loads((tmp / 'nlp.pkl').read_bytes())('the bank of the river')\n"
        "expected = np.load(tmp / 'expected.npy')\n"
        "assert np.allclose(doc[1]._.context_vec, expected[0], atol=1e-6)\n"
        "assert np.array_equal(doc[1]._.static_vec, expected[1])\n"
        "print('OK')\n"
    )
    assert "OK" in python_output(script, str(tmp_path), timeout=300)


@pytest.mark.parametrize("damage", ['{"width": ', "[1, 2]"])
def test_a_damaged_context_cfg_is_e062_naming_the_file(tiny_pipeline_dir, tmp_path, damage):
    """A damaged ctxvec_context/cfg.json was E011 "Expected object or value", naming no file."""
    import shutil

    from spacy_ctxvec.errors import CtxvecError
    from spacy_ctxvec.pipelines import load_pipeline

    copy = tmp_path / "pipeline"
    shutil.copytree(tiny_pipeline_dir, copy)
    (copy / "ctxvec_context" / "cfg.json").write_text(damage, encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E062.*ctxvec_context/cfg\.json' of component 'ctxvec_context' is damaged"):
        load_pipeline(copy)
    (copy / "ctxvec_context" / "cfg.json").unlink()  # none at all: the width is learned from the first Doc
    assert load_pipeline(copy)("the bank")._.ctxvec_context.shape[0] == 2


@pytest.mark.parametrize("batched", [False, True], ids=["call", "pipe"])
def test_an_attribute_registered_again_after_loading_is_a_coded_error_not_none(tiny_nlp, batched):
    """Token.set_extension("context_vec", default=None, force=True) after the pipeline had
    loaded: every token of every later Doc read None, without a word."""
    from spacy.tokens import Token

    from spacy_ctxvec.attributes import install_extensions

    saved = Token.get_extension("context_vec")
    Token.set_extension("context_vec", default=None, force=True)
    try:
        with pytest.raises(CtxvecError, match=r"\[CTX-E022\] .*Token\._\.context_vec"):
            list(tiny_nlp.pipe(["the river bank"])) if batched else tiny_nlp("the river bank")
    finally:
        Token.set_extension("context_vec", getter=saved[2], setter=saved[3], force=True)
    install_extensions()
    assert tiny_nlp("the river bank")[2]._.context_vec.shape == (tiny_nlp.get_pipe("ctxvec_context").width,)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_a_forked_child_counts_none_of_its_parents_running_calls():
    """A call running in another thread at fork time was counted in the child too: a lone call there
    looked like two threads at once (W088 in nlp.pipe(n_process=...) workers)."""
    from spacy_ctxvec.components import base

    with base._counted_call(12345) as running:
        assert running == 1
        pid = os.fork()
        if pid == 0:  # the child: its first call is alone
            with base._counted_call(12345) as in_child:
                os._exit(0 if in_child == 1 else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and 12345 not in base._RUNNING


def test_analyze_pipes_sees_every_attribute_the_components_set():
    """The factories declared only their Doc arrays, so nlp.analyze_pipes() reported a later component
    requiring token._.context_vec, token._.sense or token._.static_vec as a problem."""
    from spacy.language import Language
    from spacy.tokens.underscore import Underscore

    from spacy_ctxvec.attributes import install_extensions

    install_extensions()
    registered = {"token": Underscore.token_extensions, "span": Underscore.span_extensions}
    ours = [
        f"{kind}._.{name}"
        for kind, extensions in {**registered, "doc": Underscore.doc_extensions}.items()
        for name, (_, _, getter, _) in extensions.items()
        if getattr(getter, "__module__", "") == "spacy_ctxvec.attributes" and not name.endswith("_bounds")
    ]
    assert {"token._.sense_label", "span._.static_vec", "doc._.ctxvec_sense", "doc._.ctxvec_transformer_model"} <= set(
        ours
    )
    Language.component("reads_every_ctxvec_attribute", requires=ours, func=lambda doc: doc)
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_transformer", name="transformer")
    for factory in ("ctxvec_static", "ctxvec_context", "ctxvec_polysemy", "reads_every_ctxvec_attribute"):
        nlp.add_pipe(factory)
    assert nlp.analyze_pipes()["problems"]["reads_every_ctxvec_attribute"] == []
