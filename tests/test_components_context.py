"""ctxvec_context against the real components (tiny random BERT and real MiniLM)."""

import pickle
import warnings

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_ctxvec.errors import CtxvecError

from .conftest import make_trf_nlp, python_output, transformer_config

BAD_INPUTS = ["", "   ", "\n\t ", "!!! ... ???", "😀 🙂 🎉", "a\x00b \x07 c", "我爱北京天安门。", "I have a  apple ."]


def hf_mean_vectors(model_dir, text, char_spans, layer=-1):
    """Independent computation: mean of each word's wordpiece hidden states via Hugging Face."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, output_hidden_states=True).eval()
    enc = tokenizer(text, return_tensors="pt", return_offsets_mapping=True)
    offsets = enc.pop("offset_mapping")[0].tolist()
    with torch.inference_mode():
        hidden = model(**enc).hidden_states[layer][0].numpy()
    out = []
    for start, end in char_spans:
        rows = [i for i, (s, e) in enumerate(offsets) if e > s and s >= start and e <= end]
        out.append(hidden[rows].mean(axis=0))
    return np.stack(out)


@pytest.mark.slow
def test_context_vec_equals_hugging_face_mean(default_nlp, minilm_dir):
    text = "The bank of the river flooded unbelievably quickly, said Ms. Okonkwo."
    doc = default_nlp(text)
    spans = [(t.idx, t.idx + len(t)) for t in doc]
    expected = hf_mean_vectors(str(minilm_dir), text, spans)
    got = np.stack([t._.context_vec for t in doc])
    assert all(t._.has_context_vec for t in doc)
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.slow
def test_concat_layers_match_hugging_face(minilm_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(minilm_dir)))
    nlp.add_pipe("ctxvec_context", config={"layers": {"@misc": "spacy-ctxvec.concat_layers.v1", "layers": [0, 3]}})
    nlp.initialize()
    text = "Apple pie is sweet."
    doc = nlp(text)
    spans = [(t.idx, t.idx + len(t)) for t in doc]
    expected = np.concatenate(
        [hf_mean_vectors(str(minilm_dir), text, spans, 0), hf_mean_vectors(str(minilm_dir), text, spans, 3)], axis=1
    )
    np.testing.assert_allclose(doc._.ctxvec_context, expected, atol=1e-5)


@pytest.mark.slow
def test_same_word_different_context_differs(default_nlp):
    a, b = default_nlp("I have a apple"), default_nlp("I have a pen")
    cos = (
        a[2]._.context_vec
        @ b[2]._.context_vec
        / np.linalg.norm(a[2]._.context_vec)
        / np.linalg.norm(b[2]._.context_vec)
    )
    assert 0.0 < cos < 0.999


@pytest.mark.slow
def test_call_and_pipe_batch_sizes_agree(default_nlp):
    texts = ["The bank approved the loan.", "", "We sat on the river bank.", "   ", "Apple released a phone."] * 3
    single = [default_nlp(t)._.ctxvec_context for t in texts]
    for batch_size in (1, 7, 64):
        piped = [d._.ctxvec_context for d in default_nlp.pipe(texts, batch_size=batch_size)]
        for x, y in zip(single, piped):
            assert x.shape == y.shape
            np.testing.assert_allclose(x, y, atol=1e-5)


N_PROCESS_SCRIPT = (
    "import multiprocessing, sys\n"
    "import numpy as np, spacy\n"
    "if sys.argv[2] != 'default':\n"
    "    multiprocessing.set_start_method(sys.argv[2])\n"
    "nlp = spacy.load(sys.argv[1])\n"
    "texts = ['The bank approved the loan.', 'We sat on the river bank.'] * 3\n"
    "multi = [d._.ctxvec_context for d in nlp.pipe(texts, n_process=2, batch_size=2)]\n"
    "single = [nlp(t)._.ctxvec_context for t in texts]\n"
    "assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(multi, single))\n"
    "print('OK', len(multi))\n"
)


def assert_n_process_2_matches_single_process(pipeline_dir, start_method: str = "default") -> None:
    """nlp.pipe(n_process=2) in a fresh interpreter (``start_method``: multiprocessing's,
    or the platform's default) gives the vectors of one process."""
    import subprocess
    import sys

    command = [sys.executable, "-c", N_PROCESS_SCRIPT, str(pipeline_dir), start_method]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "OK 6" in proc.stdout


@pytest.mark.slow
def test_n_process_2_matches_single_process(default_pipeline_dir):
    assert_n_process_2_matches_single_process(default_pipeline_dir)


@pytest.mark.slow
@pytest.mark.parametrize("text", BAD_INPUTS)
def test_bad_inputs_work_without_nan(default_nlp, text):
    doc = default_nlp(text)
    array = doc._.ctxvec_context
    assert array.shape[0] == len(doc)
    assert np.isfinite(array).all()
    for token in doc:
        if not token._.has_context_vec:
            assert not token._.context_vec.any()
    assert np.isfinite(doc._.context_vec).all()


def test_empty_doc_has_the_pipeline_width_after_initialize_and_loading(tiny_nlp, tmp_path):
    assert tiny_nlp("")._.ctxvec_context.shape == (0, 32)
    tiny_nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded("")._.ctxvec_context.shape == (0, 32)
    assert loaded("")._.context_vec.shape == (32,)


def test_an_empty_doc_has_no_source_alone_or_in_a_batch(tiny_nlp):
    alone, (in_batch, filled) = tiny_nlp(""), tiny_nlp.pipe(["", "a bank"])
    assert alone._.ctxvec_context_source is None and in_batch._.ctxvec_context_source is None
    assert filled._.ctxvec_context_source is not None


@pytest.mark.slow
def test_bad_inputs_mixed_into_one_batch(default_nlp):
    docs = list(default_nlp.pipe(BAD_INPUTS + ["The river bank."], batch_size=64))
    assert [len(d) for d in docs] == [len(default_nlp.make_doc(t)) for t in BAD_INPUTS + ["The river bank."]]
    whitespace = docs[1]
    assert len(whitespace) == 1 and not whitespace[0]._.has_context_vec
    assert docs[-1][1]._.has_context_vec


@pytest.mark.slow
def test_long_document_over_512_wordpieces(default_nlp):
    from spacy_ctxvec.components.context import keep_trf_data

    text = " ".join(["The bank lent money to the farmer near the river."] * 500)  # 5,500 tokens
    with keep_trf_data(default_nlp):  # the default config drops trf_data after pooling
        doc = default_nlp(text)
    assert len(doc._.trf_data.wordpieces.strings) > 1  # several windows
    assert doc._.ctxvec_context_mask.all()
    assert np.isfinite(doc._.ctxvec_context).all()


def test_tokens_cut_off_by_max_length_get_zero_and_flag(tmp_path):
    from .conftest import build_tiny_bert

    model_dir = build_tiny_bert(tmp_path / "short_bert", max_position_embeddings=16)
    nlp = spacy.blank("en")
    config = transformer_config(str(model_dir), window=40, stride=40)
    nlp.add_pipe("transformer", config=config)
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    doc = nlp(" ".join(["apple"] * 30))
    mask = doc._.ctxvec_context_mask
    assert mask[:5].all() and not mask.all()
    assert not doc._.ctxvec_context[~mask].any()
    assert np.isfinite(doc._.ctxvec_context).all()


def test_overlapping_windows_pool_both(tiny_nlp):
    doc = tiny_nlp("the bank of the river is where we sat and took a loan of money")
    align = doc._.trf_data.align
    twice = np.flatnonzero(align.lengths == 2)
    assert len(twice) > 0
    token = doc[int(twice[0])]
    flat = doc._.trf_data.model_output.last_hidden_state.reshape(-1, 32)
    rows = flat[align[int(twice[0])].dataXd.ravel()]
    np.testing.assert_allclose(token._.context_vec, rows.mean(axis=0), atol=1e-6)


def test_a_word_read_with_an_emoji_as_one_unknown_piece_gets_no_vector(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    with pytest.warns(UserWarning, match=r"\[CTX-W070\].*'bank' and the character beside each as one unknown") as said:
        doc = nlp("we sat by the bank\U0001f602 and the bank \U0001f602")
    assert {warning.filename for warning in said} == {__file__}  # the user's line, not spacy-ctxvec's
    assert [t.text for t in doc][4:6] == ["bank", "\U0001f602"]
    pieces = [piece for window in doc._.trf_data.wordpieces.strings for piece in window]
    assert "[UNK]" in pieces and "bank" in pieces  # "bank" and the emoji glued, then "bank" alone
    assert [t._.has_context_vec for t in doc] == [True] * 4 + [False] + [True] * 5
    assert not doc[4]._.context_vec.any() and doc[7]._.context_vec.any()
    assert doc[5]._.has_context_vec  # the emoji keeps the unknown piece's vector, as one alone does
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # W070 once per component
        assert not nlp("a bank\U0001f602")[1]._.has_context_vec
    for pooling in ("first", "max"):  # every pooling
        nlp.replace_pipe(
            "ctxvec_context", "ctxvec_context", config={"pooling": {"@misc": f"spacy-ctxvec.{pooling}_pooling.v1"}}
        )
        with pytest.warns(UserWarning, match=r"CTX-W070"):
            assert not nlp("a bank\U0001f602")[1]._.has_context_vec


@pytest.mark.parametrize(
    "pooling,width",
    [("mean", 32), ("first", 32), ("last", 32), ("max", 32), ("first_last", 64)],
)
def test_pooling_choices_from_config(tiny_bert_dir, pooling, width):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context", config={"pooling": {"@misc": f"spacy-ctxvec.{pooling}_pooling.v1"}})
    nlp.initialize()
    doc = nlp("unbelievable apple")
    assert doc._.ctxvec_context.shape == (2, width)


def test_float16_and_drop_trf_data(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context", config={"dtype": "float16", "drop_trf_data": True})
    nlp.initialize()
    doc = nlp("the apple")
    assert doc._.ctxvec_context.dtype == np.float16
    assert len(doc._.trf_data.align.lengths) == 0
    assert doc[1]._.has_context_vec
    # run alone again on that Doc: its output was freed, not missing (E001 said the transformer never ran)
    with pytest.raises(CtxvecError, match=r"\[CTX-E066\].*drop_trf_data = true frees it.*nlp\(doc.text\)"):
        nlp.get_pipe("ctxvec_context")(doc)
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\]"):  # a Doc that never had vectors: E001 as before
        nlp.get_pipe("ctxvec_context")(nlp.make_doc("the apple"))


def test_a_batch_failing_after_pooling_frees_no_trf_data_its_retry_needs(tiny_bert_dir, monkeypatch):
    """drop_trf_data emptied each Doc's trf_data as it was annotated: where a later Doc of
    the batch failed, the one-by-one retry failed the earlier ones with E001."""
    from spacy_ctxvec.components import context

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context", config={"drop_trf_data": True})
    nlp.initialize()
    real_set_doc_value = context.set_doc_value

    def failing_for_the_third(doc, name, value):  # a fault injected after pooling, for one Doc
        if doc.text == "the third text":
            raise RuntimeError("failed late")
        real_set_doc_value(doc, name, value)

    monkeypatch.setattr(context, "set_doc_value", failing_for_the_third)
    failed = []
    nlp.set_error_handler(lambda name, proc, docs, err: failed.append(([d.text for d in docs], str(err))))
    texts = ["a bank", "the river", "the third text", "an apple"]
    docs = list(nlp.pipe(texts, batch_size=4))
    assert [doc.text for doc in docs] == ["a bank", "the river", "an apple"]
    assert failed == [(["the third text"], "failed late")]
    assert all(doc[0]._.has_context_vec and len(doc._.trf_data.align.lengths) == 0 for doc in docs)


def cos(a, b) -> float:
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_vector_hooks(hooks_nlp):
    doc = hooks_nlp("the bank of the bank")
    np.testing.assert_array_equal(doc[1].vector, doc[1]._.context_vec)
    np.testing.assert_allclose(doc[0:2].vector, doc[0:2]._.context_vec)
    np.testing.assert_allclose(doc.vector, doc._.context_vec)
    assert doc[1].has_vector
    a, b = doc[1]._.context_vec, doc[4]._.context_vec
    # contextual: the same word in two places is not similarity 1.0 as with static vectors
    assert doc[1].similarity(doc[4]) == pytest.approx(cos(a, b), abs=1e-6) != pytest.approx(1.0)
    assert doc[1].similarity(doc[1]) == pytest.approx(1.0)
    np.testing.assert_array_equal(doc.tensor, doc._.ctxvec_context)


def assert_same_vectors(restored, doc):
    for token in doc:
        np.testing.assert_array_equal(restored[token.i].vector, token.vector)
    assert restored[1].has_vector
    np.testing.assert_allclose(restored.vector, doc._.context_vec, atol=1e-6)


def test_vector_hooks_survive_to_bytes_and_n_process_through_doc_tensor(hooks_nlp):
    doc = hooks_nlp("the bank of the bank")
    restored = Doc(hooks_nlp.vocab).from_bytes(doc.to_bytes())
    assert not restored.user_token_hooks  # spaCy does not serialise hooks ...
    assert_same_vectors(restored, doc)  # ... but doc.tensor carries token.vector
    # the hooks come back with add_vector_hooks: contextual similarity again
    from spacy_ctxvec.components.context import add_vector_hooks

    add_vector_hooks(restored)
    assert restored[1].similarity(restored[4]) == pytest.approx(doc[1].similarity(doc[4]), abs=1e-6)


def test_vector_hooks_survive_pickle(hooks_nlp):
    doc = hooks_nlp("the bank of the bank")
    restored = pickle.loads(pickle.dumps(doc))
    assert_same_vectors(restored, doc)
    np.testing.assert_allclose(restored[0:2].vector, doc[0:2]._.context_vec)
    assert restored[1].similarity(restored[4]) == pytest.approx(doc[1].similarity(doc[4]), abs=1e-6)


def test_docbin_keeps_vectors_and_add_vector_hooks_restores_them(hooks_nlp):
    from spacy_ctxvec.components.context import add_vector_hooks

    doc = hooks_nlp("the bank of the bank")
    doc_bin = DocBin(store_user_data=True, docs=[doc])
    (from_bin,) = DocBin().from_bytes(doc_bin.to_bytes()).get_docs(hooks_nlp.vocab)
    np.testing.assert_array_equal(from_bin._.ctxvec_context, doc._.ctxvec_context)
    assert_same_vectors(add_vector_hooks(from_bin), doc)
    assert from_bin[1].similarity(from_bin[4]) == pytest.approx(doc[1].similarity(doc[4]), abs=1e-6)


@pytest.mark.slow
def test_vector_hooks_with_n_process_2(default_pipeline_dir):
    import subprocess
    import sys

    script = (
        "import numpy as np, spacy, sys\n"
        "nlp = spacy.load(sys.argv[1], config={'components': {'ctxvec_context': {'set_vector_hooks': True}}})\n"
        "texts = ['The bank approved the loan.', 'We sat on the river bank.'] * 3\n"
        "multi = list(nlp.pipe(texts, n_process=2, batch_size=2))\n"
        "single = [nlp(t) for t in texts]\n"
        "for a, b in zip(multi, single):\n"
        "    assert len(a) == len(b)\n"
        "    for x, y in zip(a, b):\n"
        "        assert x.has_vector and np.abs(x.vector).sum() > 0\n"
        "        assert np.allclose(x.vector, y.vector, atol=1e-5)\n"
        "    assert np.allclose(a.vector, b.vector, atol=1e-3)\n"
        "print('OK', len(multi))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(default_pipeline_dir)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "OK 6" in proc.stdout


@pytest.mark.slow
def test_pickled_and_docbin_docs_read_in_a_fresh_process(hooks_nlp, tmp_path):
    """A new process reads our Docs: token.vector works without any setup, and the
    one documented line spacy_ctxvec.install_extensions() makes ._ attributes work."""
    doc = hooks_nlp("the bank of the bank")
    (tmp_path / "doc.pkl").write_bytes(pickle.dumps(doc))
    DocBin(store_user_data=True, docs=[doc]).to_disk(tmp_path / "docs.spacy")
    np.save(tmp_path / "expected.npy", doc._.ctxvec_context)
    script = (
        "import pickle, sys, numpy as np, spacy\n"
        "from pathlib import Path\n"
        "from spacy.tokens import DocBin\n"
        "tmp = Path(sys.argv[1]); expected = np.load(tmp / 'expected.npy')\n"
        "doc = pickle.loads((tmp / 'doc.pkl').read_bytes())\n"
        "assert np.array_equal(doc[1].vector, expected[1])\n"
        "try:\n"
        "    doc[1]._.context_vec\n"
        "    print('no E046 without install')\n"
        "except AttributeError as err:\n"
        "    print('before install:', str(err)[:6])\n"
        "import spacy_ctxvec; spacy_ctxvec.install_extensions()\n"
        "assert np.array_equal(doc[1]._.context_vec, expected[1])\n"
        "(from_bin,) = DocBin().from_disk(tmp / 'docs.spacy').get_docs(spacy.blank('en').vocab)\n"
        "assert np.array_equal(from_bin[1]._.context_vec, expected[1])\n"
        "assert np.array_equal(from_bin._.ctxvec_context, expected)\n"
        "print('OK')\n"
    )
    output = python_output(script, str(tmp_path), timeout=300)
    assert "OK" in output
    assert "before install: [E046]" in output  # why the documented line is needed


def test_doc_serialization_keeps_vectors(tiny_nlp):
    doc = tiny_nlp("we sat on the bank")
    restored = Doc(tiny_nlp.vocab).from_bytes(doc.to_bytes())
    np.testing.assert_array_equal(restored._.ctxvec_context, doc._.ctxvec_context)
    np.testing.assert_array_equal(restored._.ctxvec_context_mask, doc._.ctxvec_context_mask)
    np.testing.assert_array_equal(restored[2]._.context_vec, doc[2]._.context_vec)
    doc_bin = DocBin(store_user_data=True, docs=[doc])
    (from_bin,) = DocBin().from_bytes(doc_bin.to_bytes()).get_docs(tiny_nlp.vocab)
    np.testing.assert_array_equal(from_bin._.ctxvec_context, doc._.ctxvec_context)
    from_pickle = pickle.loads(pickle.dumps(doc))
    np.testing.assert_array_equal(from_pickle._.ctxvec_context, doc._.ctxvec_context)


def test_pipeline_round_trips(tiny_nlp, tmp_path):
    text = "the bank took a loan"
    expected = tiny_nlp(text)._.ctxvec_context
    tiny_nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    np.testing.assert_array_equal(loaded(text)._.ctxvec_context, expected)
    from spacy.util import load_model_from_config

    from_bytes = load_model_from_config(tiny_nlp.config)
    from_bytes.from_bytes(tiny_nlp.to_bytes())
    np.testing.assert_array_equal(from_bytes(text)._.ctxvec_context, expected)
    unpickled = pickle.loads(pickle.dumps(tiny_nlp))
    np.testing.assert_array_equal(unpickled(text)._.ctxvec_context, expected)


def test_without_transformer_names_the_fix():
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"\[CTX-E008\].*transformer"):
        nlp.initialize()
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\].*add_pipe"):
        nlp("some text")


def test_two_context_components_warn_at_initialize(tiny_nlp, tiny_pipeline_dir):
    """A second ctxvec_context (other pooling, say) silently replaced the first's vectors in
    nlp(text); run one at a time (as tests/test_components_choices.py does) they compare settings."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", source=tiny_nlp)
    nlp.add_pipe("ctxvec_context", source=tiny_nlp)
    nlp.add_pipe("ctxvec_context", name="max_pooled", config={"pooling": {"@misc": "spacy-ctxvec.max_pooling.v1"}})
    with pytest.warns(UserWarning, match=r"\[CTX-W065\].*2 ctxvec_context components \(ctxvec_context, max_pooled\)"):
        nlp.initialize()
    nlp.disable_pipe("ctxvec_context")  # as spacy train disables a frozen one: the next says it
    with pytest.warns(UserWarning, match=r"\[CTX-W065\]"):
        nlp.initialize()
    added = spacy.load(tiny_pipeline_dir)  # the README's way to add one to a loaded pipeline
    with pytest.warns(UserWarning, match=r"\[CTX-W065\].*\(ctxvec_context, ctx2\)"):
        added.add_pipe("ctxvec_context", name="ctx2").initialize(nlp=added)


def test_missing_trf_data_with_a_transformer_names_annotating_components(tiny_nlp):
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\].*annotating_components"):
        tiny_nlp.get_pipe("ctxvec_context")(tiny_nlp.make_doc("no transformer output"))


def test_a_transformer_left_out_of_one_pipe_call_is_named_as_left_out(tiny_bert_dir):
    """nlp.pipe(disable=[...]) skips the transformer without disabling it: E001 spoke of
    `spacy train` alone."""
    with pytest.raises(
        CtxvecError,
        match=r"\[CTX-E001\].*'transformer', which did not run on this Doc: where a call "
        r"left it out \(nlp\.pipe\(texts, disable=\['transformer'\]\)\), leave 'ctxvec_context'",
    ):
        list(make_trf_nlp(str(tiny_bert_dir), window=8, stride=6).pipe(["a bank"], disable=["transformer"]))


def test_tokens_merged_after_the_transformer_are_e045_not_e001(tiny_pipeline_dir):
    """A retokenizer between the transformer and ctxvec_context: trf_data is there but
    lines up with the tokens before the merge (was E001, "the transformer did not annotate it")."""
    from spacy.language import Language

    @Language.component("merge_first_two")
    def merge_first_two(doc):
        with doc.retokenize() as retokenizer:
            retokenizer.merge(doc[0:2])
        return doc

    nlp = spacy.load(tiny_pipeline_dir)
    nlp.add_pipe("merge_first_two", after="transformer")
    with pytest.raises(CtxvecError, match=r"\[CTX-E045\].*3 tokens.*lines up with 4.*before the transformer"):
        nlp("the river bank today")


def test_a_declared_retokenizer_after_the_transformer_is_e046_at_initialize(tiny_bert_dir):
    """spacy assemble / train initialize the pipeline: merge_entities (declared to retokenize)
    between the transformer and ctxvec_context is named then, not on the first text that
    has an entity; before the transformer it is fine."""
    from .conftest import transformer_config

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("merge_entities")
    nlp.add_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"\[CTX-E046\] 'merge_entities' changes the tokens.*'transformer'"):
        nlp.initialize()
    nlp.remove_pipe("merge_entities")
    nlp.add_pipe("merge_entities", first=True)
    nlp.initialize()
    assert nlp("the river bank")[2]._.context_vec is not None


def test_a_disabled_transformer_is_named_as_the_cause(tiny_pipeline_dir):
    nlp = spacy.load(tiny_pipeline_dir, disable=["transformer"])
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\].*transformer 'transformer' is disabled.*enable_pipe"):
        nlp("a river bank")
    nlp.enable_pipe("transformer")
    assert nlp("a river bank")[1]._.context_vec is not None


def test_frozen_uninitialized_context_still_names_annotating_components(tiny_bert_dir):
    # As in `spacy train` with both frozen: ctxvec_context is never initialized, but
    # the message names the transformer and annotating_components, not add_pipe.
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context")
    with nlp.select_pipes(disable=["ctxvec_context"]):
        nlp.initialize()
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\].*transformer 'transformer'.*annotating_components"):
        nlp.get_pipe("ctxvec_context")(nlp.make_doc("no transformer output"))


def test_error_handler_set_on_nlp_is_used_by_pipe(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_context")  # no transformer: every batch fails with E001
    seen = []
    nlp.set_error_handler(lambda name, component, docs, err: seen.append((name, len(docs), str(err)[:10])))
    docs = [nlp.make_doc(t) for t in ("a b", "c", "d e f")]
    assert list(nlp.get_pipe("ctxvec_context").pipe(docs, batch_size=2)) == []
    assert seen == [("ctxvec_context", 1, "[CTX-E001]")] * 3  # a failing batch is tried Doc by Doc


def test_exclude_cfg_in_serialization(tiny_nlp, tmp_path):
    component = tiny_nlp.get_pipe("ctxvec_context")
    blank = spacy.blank("en").add_pipe("ctxvec_context")
    assert blank.from_bytes(component.to_bytes(), exclude=["cfg"]).width is None
    assert blank.from_bytes(component.to_bytes(exclude=["cfg"])).width is None
    assert blank.from_bytes(component.to_bytes()).width == 32
    component.to_disk(tmp_path / "c", exclude=["cfg"])
    assert not (tmp_path / "c" / "cfg.json").exists()
    component.to_disk(tmp_path / "d")
    blank.width = None
    assert blank.from_disk(tmp_path / "d", exclude=["cfg"]).width is None
    assert blank.from_disk(tmp_path / "d").width == 32


def test_layers_without_hidden_states_fail_at_initialize(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), hidden_states=False))
    nlp.add_pipe("ctxvec_context", config={"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [0, 2]}})
    with pytest.raises(CtxvecError, match=r"\[CTX-E002\].*output_hidden_states = true"):
        nlp.initialize()


@pytest.mark.parametrize(
    "config,code",
    [
        ({"dtype": "int8"}, "E005"),
        ({"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": []}}, "E004"),
        ({"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [9]}}, "E003"),
    ],
)
def test_invalid_config_values(tiny_bert_dir, config, code):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    with pytest.raises(CtxvecError, match=code):
        nlp.add_pipe("ctxvec_context", config=config)
        nlp.initialize()


def test_one_hidden_state_named_twice_warns_at_initialize(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    layers = {"@misc": "spacy-ctxvec.concat_layers.v1", "layers": [0, -1, 0]}
    nlp.add_pipe("ctxvec_context", config={"layers": layers})
    with pytest.warns(UserWarning, match=r"W079\] Layers 0 and 0 of \[0, -1, 0\] in component 'ctxvec_context'"):
        nlp.initialize()
    assert nlp("a bank")[1]._.context_vec is not None  # it still runs


def test_unknown_pooling_name_is_a_config_error(tiny_bert_dir):
    nlp = spacy.blank("en")
    with pytest.raises(Exception, match="spacy-ctxvec.median_pooling.v1"):
        nlp.add_pipe("ctxvec_context", config={"pooling": {"@misc": "spacy-ctxvec.median_pooling.v1"}})


def test_to_numpy_copies_device_arrays_with_get():
    from spacy_ctxvec.components.transformer import to_numpy

    class DeviceArray:  # the part of cupy's interface that to_numpy relies on
        def __init__(self, data):
            self.data = data

        def get(self):
            return self.data.copy()

    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert to_numpy(host) is host
    np.testing.assert_array_equal(to_numpy(DeviceArray(host)), host)


def test_training_update_with_frozen_transformer_not_annotating_names_the_fix(tiny_bert_dir):
    """What spacy train does with frozen_components = ["transformer"] and
    annotating_components = ["ctxvec_context"]: nlp.update(exclude=frozen, annotates=...)."""
    from spacy.training import Example

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    example = Example.from_dict(nlp.make_doc("the bank"), {})
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\].*transformer 'transformer'.*annotating_components"):
        nlp.update([example], exclude=["transformer"], annotates=["ctxvec_context"])
    nlp.update([example], exclude=["transformer"], annotates=["transformer", "ctxvec_context"])


def test_e002_on_a_saved_pipeline_names_a_fix_that_works(tiny_bert_dir, tmp_path):
    """A saved pipeline keeps its transformer's Hugging Face config, which wins over the
    output_hidden_states override on spacy.load: the error names the live switch, and
    following it gives the layers asked for."""
    from spacy_ctxvec.components.transformer import set_hidden_states

    plain = spacy.blank("en")
    plain.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), hidden_states=False))
    plain.add_pipe("ctxvec_context")
    plain.initialize()
    plain.to_disk(tmp_path / "plain")
    layers = {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [1, 2]}
    overrides = {
        "components": {
            "ctxvec_context": {"layers": layers},
            "transformer": {"model": {"transformer_config": {"output_hidden_states": True}}},
        }
    }
    nlp = spacy.load(tmp_path / "plain", config=overrides)
    with pytest.raises(CtxvecError, match=r"\[CTX-E002\].*set_hidden_states\(nlp, 'ctxvec_context', True\)"):
        nlp("a river bank")
    set_hidden_states(nlp, "ctxvec_context", True)
    doc = nlp("a river bank")
    assert all(token._.context_vec is not None and np.isfinite(token._.context_vec).all() for token in doc)
    nlp.to_disk(tmp_path / "saved")
    assert spacy.load(tmp_path / "saved")("a river bank")[1]._.context_vec is not None


def test_an_empty_doc_gets_the_width_of_the_vectors_made_now_not_the_saved_one(tiny_pipeline_dir):
    """Loaded with another pooling (a config override), an empty Doc kept the saved width,
    (0, 32), beside (n, 64) for the others."""
    import spacy

    plain = spacy.load(tiny_pipeline_dir)
    assert plain("")._.ctxvec_context.shape == (0, 32)  # the saved width, before any text
    wider = {"components": {"ctxvec_context": {"pooling": {"@misc": "spacy-ctxvec.first_last_pooling.v1"}}}}
    nlp = spacy.load(tiny_pipeline_dir, config=wider)
    shapes = [doc._.ctxvec_context.shape for doc in nlp.pipe(["", "the bank", ""])]
    assert shapes == [(0, 64), (2, 64), (0, 64)]
    assert nlp("")._.ctxvec_context.shape == (0, 64)


def test_a_context_copied_beside_another_transformer_names_the_model_of_each_docs_pipeline(tiny_nlp, tmp_path):
    """Copied with add_pipe(source=...) next to another model's transformer (spacy-transformers'
    own, which marks nothing), ctxvec_context named the model of the pipeline it came from, so a
    lexicon of that model accepted these vectors. The copy is the same object in both pipelines:
    each Doc names the model of the pipeline of its vocab; where two share one vocab, no model
    (W073)."""
    import gc

    from .conftest import build_tiny_bert, make_trf_nlp

    other = make_trf_nlp(str(build_tiny_bert(tmp_path / "other_bert", seed=7)), window=31, stride=23)
    own, others = (nlp("the bank")._.ctxvec_context_source for nlp in (tiny_nlp, other))
    assert " model " in own and " model " in others and own != others
    copied = spacy.blank("en")
    copied.add_pipe("transformer", source=other)
    copied.add_pipe("ctxvec_context", source=tiny_nlp)
    assert copied("the bank")._.ctxvec_context_source == others
    assert tiny_nlp("the bank")._.ctxvec_context_source == own
    shared = spacy.blank("en", vocab=tiny_nlp.vocab)
    shared.add_pipe("transformer", source=other)
    shared.add_pipe("ctxvec_context", source=tiny_nlp)
    with pytest.warns(UserWarning, match=r"W073.*'ctxvec_context' is in more than one pipeline") as said:
        label = next(shared.pipe(["the bank"]))._.ctxvec_context_source
    assert {warning.filename for warning in said} == {__file__}  # the user's line, not spacy-ctxvec's
    assert " model " not in label and " model " not in tiny_nlp("the bank")._.ctxvec_context_source
    del copied, shared
    gc.collect()
    assert tiny_nlp("the bank")._.ctxvec_context_source == own  # alone in its pipeline again
