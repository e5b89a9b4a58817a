"""spacy-ctxvec.BucketedTransformerModel.v1: the same outputs as spacy-transformers'
TransformerModel, forward calls cut by padded wordpieces, and the upstream forward
wherever the bucketed one does not apply."""

import inspect
import itertools
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.util import registry

from spacy_ctxvec.components.batching import (
    ARCHITECTURE,
    CALL_COST_WORDPIECES,
    BucketedTransformerModel,
    create_bucketed_transformer_model,
    wordpiece_buckets,
)
from spacy_ctxvec.components.context import keep_trf_data
from spacy_ctxvec.components.transformer import all_hidden_states, outputs_hidden_states
from spacy_ctxvec.errors import CtxvecError

from .conftest import LISTENER_NER, REPO_ROOT

UPSTREAM = "spacy-transformers.TransformerModel.v3"
TEXTS = [
    "I have a pen.",
    "",
    "   ",  # one whitespace token: no wordpiece
    "a \u200b b",  # a zero-width space token: no wordpiece
    "the bank of the river and a loan of money is to we sat on the hotel",  # 15 tokens: 3 strided spans
    "unbelievable apple pen " * 9,  # long: 5 spans
    "a",
    "we want an apple !",
]


def trf_config(name, architecture, hidden_states=True, window=8, stride=6, **model):
    config = {
        "model": {
            "@architectures": architecture,
            "name": name,
            "transformer_config": {"output_hidden_states": hidden_states},
            "get_spans": {"@span_getters": "spacy-transformers.strided_spans.v1", "window": window, "stride": stride},
            **model,
        }
    }
    if architecture == ARCHITECTURE:
        config["max_batch_items"] = 1_000_000
        config["model"].setdefault("max_batch_wordpieces", 40)
    return config


def make_nlp(name, architecture, **settings):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=trf_config(str(name), architecture, **settings))
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    return nlp


def load_as_upstream(path):
    """A saved pipeline loaded with the upstream architecture and its old batching."""
    from spacy.util import load_config, load_model_from_config

    config = load_config(path / "config.cfg")
    config["components"]["transformer"]["max_batch_items"] = 4096
    config["components"]["transformer"]["model"]["@architectures"] = UPSTREAM
    del config["components"]["transformer"]["model"]["max_batch_wordpieces"]
    config["components"]["transformer"]["model"].pop("max_batch_wordpieces_gpu", None)
    nlp = load_model_from_config(config).from_disk(path)
    nlp.get_pipe("transformer").cfg["max_batch_items"] = 4096  # the saved cfg.json wins on from_disk
    return nlp


def same_weights(target, source):
    """``source``'s weights, tokenizer and Hugging Face config in ``target``'s transformer."""
    target.get_pipe("transformer").model.from_bytes(source.get_pipe("transformer").model.to_bytes())
    return target


@pytest.fixture(scope="module")
def upstream_nlp(tiny_bert_dir):
    return make_nlp(tiny_bert_dir, UPSTREAM)


@pytest.fixture(scope="module")
def bucketed_nlp(tiny_bert_dir, upstream_nlp):
    return same_weights(make_nlp(tiny_bert_dir, ARCHITECTURE), upstream_nlp)


def aligned_rows(trf_data, array):
    """(n_aligned, width) rows of a (n_spans, n_wordpieces, width) output in alignment order."""
    flat = np.asarray(array).reshape(-1, array.shape[-1])
    return flat[np.asarray(trf_data.align.dataXd).ravel()]


def assert_same_docs(expected_docs, actual_docs, atol):
    for expected, actual in zip(expected_docs, actual_docs):
        e, a = expected._.trf_data, actual._.trf_data
        assert np.array_equal(e.align.lengths, a.align.lengths)
        assert np.array_equal(expected._.ctxvec_context_mask, actual._.ctxvec_context_mask)
        if len(expected) == 0 or len(e.align.dataXd) == 0:
            assert len(a.align.dataXd) == 0
            continue
        # The same wordpiece ids at every aligned position, and the same states there.
        assert np.array_equal(
            aligned_rows(e, e.wordpieces.input_ids[..., None]), aligned_rows(a, a.wordpieces.input_ids[..., None])
        )
        for key in ("last_hidden_state",):
            diff = np.abs(aligned_rows(e, e.model_output[key]) - aligned_rows(a, a.model_output[key])).max()
            assert diff < atol, (expected.text, key, diff)
        expected_layers, actual_layers = e.model_output.get("hidden_states"), a.model_output.get("hidden_states")
        assert (expected_layers is None) == (actual_layers is None)
        for layer_e, layer_a in zip(expected_layers or [], actual_layers or []):
            assert np.abs(aligned_rows(e, layer_e) - aligned_rows(a, layer_a)).max() < atol
        assert np.abs(expected._.ctxvec_context - actual._.ctxvec_context).max() < atol


def test_same_outputs_as_upstream_forward(upstream_nlp, bucketed_nlp):
    expected, actual = list(upstream_nlp.pipe(TEXTS)), list(bucketed_nlp.pipe(TEXTS))
    assert isinstance(bucketed_nlp.get_pipe("transformer").model, BucketedTransformerModel)
    assert_same_docs(expected, actual, atol=1e-5)
    long_doc = actual[TEXTS.index("unbelievable apple pen " * 9)]
    assert long_doc._.trf_data.wordpieces.input_ids.shape[0] == 5  # strided spans kept per Doc
    assert len(long_doc._.trf_data.model_output["hidden_states"]) == 3  # embeddings + 2 layers


def test_empty_docs_and_tokens_without_wordpieces(bucketed_nlp):
    docs = list(bucketed_nlp.pipe(["", "   ", "a \u200b b"]))
    assert docs[0]._.ctxvec_context.shape == (0, 32)
    assert docs[1]._.ctxvec_context_mask.tolist() == [False]
    assert not docs[1]._.ctxvec_context.any()
    assert docs[2]._.ctxvec_context_mask.tolist() == [True, False, True]
    assert list(bucketed_nlp.pipe([""]))[0]._.trf_data.wordpieces.input_ids.size == 0  # only empty Docs: no forward


def test_running_text_leaves_the_tokenizers_truncation_setting_as_it_was(bucketed_nlp):
    """Hugging Face's call left truncation on in the shared fast tokenizer, so a pipeline saved
    after any text held another tokenizer.json (other bytes for the same weights)."""
    backend = bucketed_nlp.get_pipe("transformer").model.tokenizer.backend_tokenizer
    backend.no_truncation()
    bucketed_nlp("the bank by the river")  # the first also caps a tokenizer saved without a length (as initialize)
    assert backend.truncation is None
    saved = bucketed_nlp.get_pipe("transformer").to_bytes(exclude=["vocab"])
    bucketed_nlp("the bank by the river")
    assert bucketed_nlp.get_pipe("transformer").to_bytes(exclude=["vocab"]) == saved
    backend.enable_truncation(max_length=7)  # a user's own setting stays too
    bucketed_nlp("the bank by the river")
    assert backend.truncation["max_length"] == 7
    backend.no_truncation()


def test_each_doc_keeps_only_its_own_wordpieces(bucketed_nlp):
    short, long_text = "a", "unbelievable apple pen " * 9
    docs = list(bucketed_nlp.pipe([short, long_text]))
    # [CLS] a [SEP]: not padded to the long Doc's spans.
    assert docs[0]._.trf_data.model_output["last_hidden_state"].shape == (1, 3, 32)
    assert docs[0]._.trf_data.wordpieces.strings == [["[CLS]", "a", "[SEP]"]]


def bucket_cost(lengths, buckets, call_cost):
    return sum(max(lengths[i] for i in bucket) * len(bucket) + call_cost for bucket in buckets)


def test_wordpiece_buckets_follow_the_padded_wordpiece_rule():
    lengths = [5, 3, 9, 9, 2, 40, 7, 3]
    buckets = wordpiece_buckets(lengths, 20)
    assert sorted(int(i) for bucket in buckets for i in bucket) == list(range(len(lengths)))
    flat = [lengths[i] for bucket in buckets for i in bucket]
    assert flat == sorted(lengths)
    for bucket in buckets:
        assert len(bucket) == 1 or max(lengths[i] for i in bucket) * len(bucket) <= 20
    # Greedy filling pads [2, 3, 3, 5] to 5 and [9] alone: 87 padded; the cut here pads 81.
    assert [[lengths[i] for i in bucket] for bucket in buckets] == [[2, 3, 3], [5, 7], [9, 9], [40]]
    assert wordpiece_buckets([], 20) == []


@settings(max_examples=150, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 12), min_size=1, max_size=8),
    cap=st.integers(1, 40),
    call_cost=st.integers(0, 30),
)
def test_wordpiece_buckets_are_the_cheapest_cut_of_the_sorted_spans(lengths, cap, call_cost):
    """Against every cut of the sorted spans into runs that respect the cap."""
    buckets = wordpiece_buckets(lengths, cap, call_cost)
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    assert [int(i) for bucket in buckets for i in bucket] == order
    assert all(len(b) == 1 or max(lengths[i] for i in b) * len(b) <= cap for b in buckets)
    cheapest = None
    for cuts in itertools.product([False, True], repeat=len(order) - 1):
        runs, run = [], [order[0]]
        for cut, i in zip(cuts, order[1:]):
            if cut:
                runs.append(run)
                run = []
            run.append(i)
        runs.append(run)
        if all(len(r) == 1 or max(lengths[i] for i in r) * len(r) <= cap for r in runs):
            cost = bucket_cost(lengths, runs, call_cost)
            cheapest = cost if cheapest is None else min(cheapest, cost)
    assert bucket_cost(lengths, buckets, call_cost) == cheapest


def test_forward_calls_stay_within_max_batch_wordpieces(tiny_bert_dir, upstream_nlp):
    nlp = same_weights(make_nlp(tiny_bert_dir, ARCHITECTURE, max_batch_wordpieces=24), upstream_nlp)
    shapes = []
    hf = nlp.get_pipe("transformer").model.transformer
    handle = hf.register_forward_hook(
        lambda module, args, kwargs, out: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True
    )
    try:
        docs = list(nlp.pipe(TEXTS))
    finally:
        handle.remove()
    assert len(shapes) > 1
    assert all(rows == 1 or rows * width <= 24 for rows, width in shapes)
    n_spans = sum(doc._.trf_data.wordpieces.input_ids.shape[0] for doc in docs)
    assert sum(rows for rows, _ in shapes) == n_spans  # every span once, empty Docs never
    assert_same_docs(list(upstream_nlp.pipe(TEXTS)), docs, atol=1e-5)


def test_eval_mode_during_the_forward_and_training_flag_restored(bucketed_nlp):
    hf = bucketed_nlp.get_pipe("transformer").model.transformer
    modes = []
    handle = hf.register_forward_hook(lambda module, args, out: modes.append(module.training))
    hf.train()
    try:
        bucketed_nlp("I have a pen.")
    finally:
        handle.remove()
    assert modes == [False] and hf.training
    hf.eval()


@pytest.mark.parametrize("use_fast", [True, False])
def test_threads_sharing_the_pipeline_forward_one_at_a_time_in_eval_mode(tiny_bert_dir, use_fast):
    # A user's web service calls one loaded nlp from a thread pool. Each forward call
    # switches the shared model to eval mode and back; overlapping calls would run with
    # dropout on once another thread switched it back to train mode (wrong vectors, silently).
    # A slow tokenizer runs spacy-transformers' own forward (thinc's predict switches the model
    # back to train mode after each call), under the same lock.
    tokenizer = {"use_fast": use_fast}
    bucketed_nlp = make_nlp(tiny_bert_dir, ARCHITECTURE, window=100, stride=80, tokenizer_config=tokenizer)
    hf = bucketed_nlp.get_pipe("transformer").model.transformer
    texts = ["I have a pen.", "The bank of the river.", "I want an apple.", "Play at the hotel."] * 3
    texts += ["unbelievable " * 90] * 4  # longer than the model's 64 positions: cut

    expected = {text: [token._.context_vec for token in bucketed_nlp(text)] for text in texts}
    modes = []
    slow = hf.register_forward_pre_hook(lambda module, args: time.sleep(0.02))
    record = hf.register_forward_hook(lambda module, args, out: modes.append(module.training))
    hf.train()
    try:
        with ThreadPoolExecutor(4) as pool:
            docs = list(pool.map(bucketed_nlp, texts))
    finally:
        slow.remove()
        record.remove()
    assert len(modes) >= len(texts) and not any(modes) and hf.training
    hf.eval()
    for text, doc in zip(texts, docs):
        np.testing.assert_allclose([token._.context_vec for token in doc], expected[text], atol=1e-6)


def test_a_forward_call_waits_for_its_tokenizers_lock(bucketed_nlp):
    """Other users of the transformer's tokenizer object (ctxvec_static's subword lookups in a
    pipeline initialised in memory) hold its lock; a forward call waits for them."""
    import threading

    from spacy_ctxvec.locks import forward_lock

    done: list = []
    call = threading.Thread(target=lambda: done.append(bucketed_nlp("I have a pen.")))
    with forward_lock(bucketed_nlp.get_pipe("transformer").model.tokenizer):
        call.start()
        call.join(timeout=0.5)
        assert call.is_alive() and not done
    call.join(timeout=30)
    assert len(done) == 1 and done[0]._.trf_data is not None


def test_save_load_round_trip_and_weights_shared_with_upstream(tmp_path, bucketed_nlp, upstream_nlp):
    bucketed_nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    model = loaded.get_pipe("transformer").model
    assert isinstance(model, BucketedTransformerModel) and model.max_batch_wordpieces == 40
    assert loaded.config["components"]["transformer"]["model"]["@architectures"] == ARCHITECTURE
    assert_same_docs(list(bucketed_nlp.pipe(TEXTS)), list(loaded.pipe(TEXTS)), atol=1e-6)
    # max_batch_wordpieces comes from the config, not from the saved bytes.
    override = {"components": {"transformer": {"model": {"max_batch_wordpieces": 12}}}}
    assert spacy.load(tmp_path / "p", config=override).get_pipe("transformer").model.max_batch_wordpieces == 12
    # The serialised model is TransformerModel's: the upstream architecture loads it.
    as_upstream = load_as_upstream(tmp_path / "p")
    assert type(as_upstream.get_pipe("transformer").model).__name__ == "TransformerModel"
    assert_same_docs(list(upstream_nlp.pipe(TEXTS)), list(as_upstream.pipe(TEXTS)), atol=1e-6)


def test_copy_keeps_the_bucketed_forward(bucketed_nlp):
    model = bucketed_nlp.get_pipe("transformer").model
    copied = model.copy()
    assert isinstance(copied, BucketedTransformerModel)
    assert copied.max_batch_wordpieces == model.max_batch_wordpieces and copied is not model
    assert copied.max_batch_wordpieces_gpu == model.max_batch_wordpieces_gpu
    docs = [bucketed_nlp.make_doc(text) for text in TEXTS]
    expected, actual = model.predict(docs), copied.predict(docs)
    assert len(actual.wordpieces.strings) == 0  # the bucketed path, not the upstream one
    for e, a in zip(expected.doc_data, actual.doc_data):
        if e.model_output:
            assert np.allclose(e.model_output["last_hidden_state"], a.model_output["last_hidden_state"], atol=1e-6)


def test_training_uses_the_upstream_forward(bucketed_nlp):
    model = bucketed_nlp.get_pipe("transformer").model
    docs = [bucketed_nlp.make_doc(text) for text in TEXTS]
    batch, backprop = model.begin_update(docs)
    assert batch.wordpieces.input_ids.shape[0] == sum(len(spans) for spans in batch.spans)
    assert batch.model_output["last_hidden_state"].requires_grad
    predicted = model.predict(docs)
    assert predicted.wordpieces.input_ids.size == 0  # inference: the bucketed path
    model.transformer.eval()


def test_slow_tokenizers_use_the_upstream_forward(tiny_bert_dir):
    from transformers.tokenization_utils_fast import PreTrainedTokenizerFast

    slow = make_nlp(tiny_bert_dir, ARCHITECTURE, tokenizer_config={"use_fast": False})
    assert not isinstance(slow.get_pipe("transformer").model.tokenizer, PreTrainedTokenizerFast)
    docs = [slow.make_doc(text) for text in TEXTS]
    assert slow.get_pipe("transformer").model.predict(docs).wordpieces.input_ids.shape[0] > 0


def test_over_long_spans_are_cut_as_hugging_face_cuts_them_in_the_bucketed_forward(tiny_bert_dir):
    """A window longer than the model's positions went to the upstream forward with its whole batch
    (padded to the maximum), whose truncate_oversize_splits cut it without its closing [SEP]:
    every vector of that window came from an input the model never sees."""
    import torch

    nlp = make_nlp(tiny_bert_dir, ARCHITECTURE, window=100, stride=80)
    model = nlp.get_pipe("transformer").model
    texts = ["unbelievable " * 40, "I have a pen."]
    assert model.predict([nlp.make_doc(t) for t in texts]).wordpieces.input_ids.shape[0] == 0  # bucketed
    tokenizer, hf = model.tokenizer, model.transformer.eval()
    for doc in nlp.pipe(texts):
        data = doc._.trf_data
        cut = tokenizer([doc.text], truncation=True, max_length=64, return_tensors="pt")
        assert data.wordpieces.strings[0][-1] == "[SEP]"
        np.testing.assert_array_equal(data.wordpieces.input_ids, cut["input_ids"].numpy())
        with torch.no_grad():
            expected = hf(**cut).last_hidden_state.numpy()
        np.testing.assert_allclose(data.model_output.last_hidden_state, expected, atol=1e-5)
    assert len(nlp(texts[0])._.trf_data.wordpieces.strings[0]) == 64


def test_hidden_states_switch_at_run_time(tiny_bert_dir):
    nlp = make_nlp(tiny_bert_dir, ARCHITECTURE, hidden_states=False)
    assert "hidden_states" not in nlp("I have a pen.")._.trf_data.model_output
    assert not outputs_hidden_states(nlp, "transformer")
    with all_hidden_states(nlp):
        assert outputs_hidden_states(nlp, "transformer")
        assert len(nlp("I have a pen.")._.trf_data.model_output["hidden_states"]) == 3
    assert not outputs_hidden_states(nlp, "transformer")
    assert "hidden_states" not in nlp("I have a pen.")._.trf_data.model_output


def test_per_layer_evaluation_keeps_trf_data_and_every_layer(tiny_bert_dir):
    """The default config drops doc._.trf_data and hidden states; the per-layer
    evaluation (annotated_batches) gets both for its run, and the settings come back."""
    from spacy_ctxvec.evaluation.token_vectors import annotated_batches

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=trf_config(str(tiny_bert_dir), ARCHITECTURE, hidden_states=False))
    context = nlp.add_pipe("ctxvec_context", config={"drop_trf_data": True})
    nlp.initialize()
    assert len(nlp("I have a pen.")._.trf_data.align.lengths) == 0  # dropped
    batches = list(annotated_batches(nlp, [["I", "have", "a", "pen", "."], ["the", "bank"]]))
    items = [item for batch in batches for item in batch]
    assert [layers.shape for _, _, layers in items] == [(2, 3, 32), (5, 3, 32)]  # 3 layers, sorted by length
    assert all(len(doc._.trf_data.align.lengths) == len(doc) for _, doc, _ in items)
    assert context.drop_trf_data and not outputs_hidden_states(nlp, "transformer")
    with keep_trf_data(nlp):
        assert not context.drop_trf_data and outputs_hidden_states(nlp, "transformer")
        assert len(nlp("I have a pen.")._.trf_data.align.lengths) == 5
    assert context.drop_trf_data


def test_max_batch_wordpieces_must_be_positive(tiny_bert_dir):
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match=r"CTX-E040.*max_batch_wordpieces = "):
        nlp.add_pipe("transformer", config=trf_config(str(tiny_bert_dir), ARCHITECTURE, max_batch_wordpieces=0))
    with pytest.raises(CtxvecError, match=r"CTX-E040.*max_batch_wordpieces_gpu = 4096"):
        nlp.add_pipe("transformer", config=trf_config(str(tiny_bert_dir), ARCHITECTURE, max_batch_wordpieces_gpu=-1))


def test_the_batch_cap_is_chosen_per_device(tiny_bert_dir):
    config = trf_config(str(tiny_bert_dir), ARCHITECTURE, max_batch_wordpieces=24, max_batch_wordpieces_gpu=96)
    model = spacy.blank("en").add_pipe("transformer", config=config).model
    assert (model.batch_cap("cpu"), model.batch_cap("cuda"), model.batch_cap("mps")) == (24, 96, 96)
    assert (model.call_cost("cpu"), model.call_cost("cuda")) == (CALL_COST_WORDPIECES, 96)


@settings(max_examples=100, deadline=None)
@given(lengths=st.lists(st.integers(1, 60), min_size=1, max_size=60), cap=st.integers(1, 200))
def test_with_a_whole_bucket_per_call_the_cut_makes_no_more_calls_than_filling_each_bucket(lengths, cap):
    ordered = sorted(lengths)
    filled, size = 0, 0  # greedy: fill each bucket until the next span would not fit
    for length in ordered:
        if size and length * (size + 1) > cap:
            filled, size = filled + 1, 0
        size += 1
    filled += 1
    assert len(wordpiece_buckets(lengths, cap, call_cost=cap)) <= filled


@pytest.mark.slow
def test_minilm_same_vectors_as_upstream(default_pipeline_dir):
    """The default pipeline (bucketed) against the same saved weights through the
    upstream forward with its old batching: real sentences (the shipped sample corpus and seed
    sentences, 6-14 words) and long strided texts."""
    texts = [
        line
        for name in ("sample_corpus.txt", "seed_sentences.txt")
        for line in (REPO_ROOT / "project_data" / name).read_text("utf8").splitlines()
        if line
    ]
    texts += [" ".join(texts[i : i + 24]) for i in range(0, 144, 24)]  # 200-300 tokens: several windows
    texts += ["", "   ", "\u200b"]
    bucketed = spacy.load(default_pipeline_dir)
    assert isinstance(bucketed.get_pipe("transformer").model, BucketedTransformerModel)
    upstream = load_as_upstream(default_pipeline_dir)
    assert_same_docs(list(upstream.pipe(texts)), list(bucketed.pipe(texts)), atol=1e-3)
    diffs = [
        np.abs(e._.ctxvec_context - a._.ctxvec_context).max()
        for e, a in zip(upstream.pipe(texts), bucketed.pipe(texts))
        if len(e)
    ]
    assert max(diffs) < 1e-4


NER_TEXTS = ["I have a pen.", "We sat on the river bank and took out a loan of money."]


@pytest.fixture(scope="module")
def listener_pipeline_dir(tiny_bert_dir, tmp_path_factory):
    """A saved pipeline: the bucketed transformer and an NER on a TransformerListener."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=trf_config(str(tiny_bert_dir), ARCHITECTURE, hidden_states=False))
    nlp.add_pipe("ner", config=LISTENER_NER).add_label("PERSON")
    nlp.initialize()
    path = tmp_path_factory.mktemp("listener_pipeline")
    nlp.to_disk(path)
    return path


def ner_token_vectors(nlp, texts):
    ner = nlp.get_pipe("ner")
    return ner.model.get_ref("tok2vec").predict([nlp.make_doc(text) for text in texts])


def test_replace_listeners_writes_a_pipeline_that_loads(listener_pipeline_dir, tmp_path):
    """nlp.replace_listeners copies the transformer into the NER as spacy-transformers'
    Tok2VecTransformer.v3: the config it writes has no max_batch_wordpieces settings
    (which that architecture rejects), and the saved pipeline loads and runs its NER."""
    nlp = spacy.load(listener_pipeline_dir)
    nlp.replace_listeners("transformer", "ner", ["model.tok2vec"])
    expected = ner_token_vectors(nlp, NER_TEXTS)  # the NER's own copy of the transformer
    tok2vec_cfg = nlp.config["components"]["ner"]["model"]["tok2vec"]
    assert tok2vec_cfg["@architectures"] == "spacy-transformers.Tok2VecTransformer.v3"
    assert "max_batch_wordpieces" not in tok2vec_cfg and "max_batch_wordpieces_gpu" not in tok2vec_cfg
    # The transformer's own config keeps its settings.
    assert nlp.config["components"]["transformer"]["model"]["max_batch_wordpieces"] == 40
    nlp.to_disk(tmp_path / "replaced")
    loaded = spacy.load(tmp_path / "replaced")  # failed: max_batch_wordpieces unexpected argument
    assert loaded.get_pipe("transformer").listening_components == []
    docs = list(loaded.pipe(NER_TEXTS))
    assert all(doc.has_annotation("ENT_IOB") for doc in docs)
    for before, after in zip(expected, ner_token_vectors(loaded, NER_TEXTS)):
        assert np.allclose(before, after, atol=1e-5)


def test_sourced_component_with_replace_listeners_assembles_and_loads(listener_pipeline_dir, tmp_path):
    """The config route: `spacy assemble` of a config whose [components.ner] is sourced from a
    pipeline whose NER listens to the bucketed transformer, with replace_listeners."""
    from spacy.cli._util import app
    from spacy.util import load_config
    from typer.testing import CliRunner

    config = load_config(listener_pipeline_dir / "config.cfg")
    config["components"]["ner"] = {"source": str(listener_pipeline_dir), "replace_listeners": ["model.tok2vec"]}
    config.to_disk(tmp_path / "config.cfg")
    result = CliRunner().invoke(app, ["assemble", str(tmp_path / "config.cfg"), str(tmp_path / "assembled")])
    assert result.exit_code == 0, result.output
    loaded = spacy.load(tmp_path / "assembled")  # failed: max_batch_wordpieces unexpected argument
    assert loaded.get_pipe("transformer").listening_components == []
    assert loaded("I have a pen.").has_annotation("ENT_IOB")


def test_a_pipeline_run_before_initialize_is_e044(tiny_bert_dir):
    """add_pipe without nlp.initialize(): no Hugging Face model yet; a coded error that
    says to initialize, not an AttributeError from inside the forward pass."""
    from .conftest import transformer_config

    bucketed = "spacy-ctxvec.BucketedTransformerModel.v1"
    nlp = spacy.blank("en")
    model = dict(transformer_config(str(tiny_bert_dir))["model"], **{"@architectures": bucketed})
    nlp.add_pipe("ctxvec_transformer", name="transformer", config={"model": model})
    nlp.add_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"\[CTX-E044\].*nlp.initialize\(\)"):
        nlp("a river bank")
    nlp.initialize()
    assert nlp("a river bank")[2]._.context_vec is not None


def test_a_plain_model_name_is_checked_like_the_registered_one(tiny_bert_dir, monkeypatch, tmp_path):
    """name = "..." as a plain string in [components.transformer.model] (not the
    spacy-ctxvec.model_name.v1 block): a typo is one coded error at initialize, not a raw
    transformers OSError; a local folder loads and saves as before."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("bert-base-uncasedd", str(tiny_bert_dir)):
        nlp = spacy.blank("en")
        nlp.add_pipe("ctxvec_transformer", name="transformer", config={"model": {"name": name}})
        nlp.add_pipe("ctxvec_context")
        if name.startswith("bert"):
            with pytest.raises(CtxvecError, match=r"\[CTX-E021\] Transformer model 'bert-base-uncasedd'"):
                nlp.initialize()
            continue
        nlp.initialize()
        vector = nlp("a river bank")[2]._.context_vec
        nlp.to_disk(tmp_path / "saved")
        assert np.array_equal(spacy.load(tmp_path / "saved")("a river bank")[2]._.context_vec, vector)


@pytest.mark.parametrize("damage", ["config", "weights", "tokenizer"])
def test_weights_that_do_not_load_are_one_coded_error_naming_the_folder(tiny_bert_dir, tmp_path, damage):
    """A config.json that does not fit the weights, or a damaged weights file: PyTorch's or
    safetensors' traceback before, E027 naming the folder now (also for spaCy's commands)."""
    import json
    import shutil

    import spacy

    folder = shutil.copytree(tiny_bert_dir, tmp_path / "mybert")
    if damage == "config":
        config = json.loads((folder / "config.json").read_text())
        config["hidden_size"] = 64
        (folder / "config.json").write_text(json.dumps(config))
    elif damage == "weights":
        (folder / "model.safetensors").write_text("not weights")
    else:  # an XLM-R tokenizer saved as tokenizer.json alone: spacy-transformers opened its vocab file None
        (folder / "vocab.txt").unlink()
        tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text())
        tokenizer_config["tokenizer_class"] = "XLMRobertaTokenizerFast"
        (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_transformer", name="transformer", config={"model": {"name": {"name": str(folder)}}})
    with pytest.raises(CtxvecError, match=rf"\[CTX-E027\] The transformer's weights or tokenizer in '{folder}'") as err:
        nlp.initialize()
    # the tokenizer.json-only case names its cause, not only "expected str, ... not NoneType"
    assert ("has no vocabulary file of its own (only tokenizer.json)" in str(err.value)) == (damage == "tokenizer")


def test_a_mixed_precision_model_leaves_the_default_grad_scaler_config_alone(tiny_bert_dir):
    """spacy-transformers' HFShim set 'enabled' in the dict it was given: the shared default
    {} became {'enabled': True}, so the next model built without mixed precision scaled gradients."""
    default = inspect.signature(create_bucketed_transformer_model).parameters["grad_scaler_config"].default
    spans = registry.span_getters.get("spacy-transformers.doc_spans.v1")()
    with warnings.catch_warnings():  # torch: CUDA autocast disabled on a machine without CUDA
        warnings.simplefilter("ignore", UserWarning)
        create_bucketed_transformer_model(str(tiny_bert_dir), spans, mixed_precision=True).initialize()
    assert default == {}
