import pickle

import numpy as np
import pytest
import spacy
import torch
from spacy.util import load_model_from_config

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.quantize import DynamicInt8Linear, is_quantized, quantize_pipeline, quantize_transformer

from .conftest import make_trf_nlp

SENTENCES = ["we sat on the bank of the river .", "i took out a loan from the bank !"]


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def context_arrays(nlp):
    return [doc._.ctxvec_context.copy() for doc in nlp.pipe(SENTENCES)]


def hf_model(nlp, name="transformer"):
    return nlp.get_pipe(name).model.transformer


def with_int8_callback(nlp):
    config = nlp.config.copy()
    config["nlp"]["after_pipeline_creation"] = {"@callbacks": "spacy-ctxvec.quantize_int8.v1"}
    return config


def test_quantize_pipeline_replaces_linear_layers(tiny_bert_dir):
    nlp = make_trf_nlp(str(tiny_bert_dir))
    model = hf_model(nlp)
    assert not is_quantized(nlp)
    assert quantize_pipeline(nlp) is nlp
    assert is_quantized(nlp)
    modules = list(hf_model(nlp).modules())
    assert not any(type(m) is torch.nn.Linear for m in modules)
    assert any(isinstance(m, DynamicInt8Linear) for m in modules)
    assert hf_model(nlp) is model  # replaced inside the same model object


def test_no_deprecated_torch_ao_flow_is_used(tiny_bert_dir):
    import warnings

    nlp = make_trf_nlp(str(tiny_bert_dir))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quantize_pipeline(nlp)
    assert not [w for w in caught if "torch.ao.quantization is deprecated" in str(w.message)]


def test_quantized_vectors_stay_close_to_float(tiny_bert_dir):
    nlp = make_trf_nlp(str(tiny_bert_dir))
    before = context_arrays(nlp)
    after = context_arrays(quantize_pipeline(nlp))
    for float_vectors, int8_vectors in zip(before, after):
        assert float_vectors.shape == int8_vectors.shape
        assert not np.array_equal(float_vectors, int8_vectors)
        assert row_cosines(float_vectors, int8_vectors).min() > 0.9


def test_quantize_twice_is_a_no_op(tiny_bert_dir):
    nlp = make_trf_nlp(str(tiny_bert_dir))
    quantize_pipeline(nlp)
    layers = [m for m in hf_model(nlp).modules() if isinstance(m, DynamicInt8Linear)]
    vectors = context_arrays(nlp)
    quantize_pipeline(nlp)
    assert [m for m in hf_model(nlp).modules() if isinstance(m, DynamicInt8Linear)] == layers
    for a, b in zip(vectors, context_arrays(nlp)):
        np.testing.assert_array_equal(a, b)


def test_quantize_transformer_by_name_and_unknown_name(tiny_bert_dir):
    nlp = make_trf_nlp(str(tiny_bert_dir))
    quantize_pipeline(nlp, transformer="transformer")
    assert is_quantized(nlp, "transformer")
    with pytest.raises(CtxvecError, match=r"\[CTX-E025\].*no_such_component"):
        quantize_pipeline(nlp, transformer="no_such_component")
    with pytest.raises(CtxvecError, match=r"\[CTX-E025\].*ctxvec_context"):
        quantize_pipeline(nlp, transformer="ctxvec_context")
    with pytest.raises(CtxvecError, match=r"\[CTX-E025\].*ctxvec_context"):
        is_quantized(nlp, "ctxvec_context")


@pytest.mark.parametrize("per_channel", [True, False])
def test_quantize_transformer_on_a_plain_module(per_channel):
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    inputs = torch.randn(5, 4)
    expected = module(inputs)
    quantized = quantize_transformer(module, per_channel=per_channel)
    assert quantized is module
    assert isinstance(quantized[0], DynamicInt8Linear)
    scheme = quantized[0].int8_weight.qscheme()
    assert scheme == (torch.per_channel_affine if per_channel else torch.per_tensor_affine)
    torch.testing.assert_close(quantized(inputs), expected, atol=0.05, rtol=0.05)
    # 3-D input (batch, length, width), as in a transformer
    torch.testing.assert_close(quantized(inputs.reshape(1, 5, 4))[0], quantized(inputs))


def test_state_dict_has_float_linear_names_and_round_trips():
    torch.manual_seed(0)
    float_module = torch.nn.Sequential(torch.nn.Linear(6, 4))
    quantized = quantize_transformer(torch.nn.Sequential(torch.nn.Linear(6, 4)), per_channel=True)
    quantized.load_state_dict(float_module.state_dict())
    state = quantized.state_dict()
    assert set(state) == {"0.weight", "0.bias"}
    assert state["0.weight"].dtype == torch.float32
    # the saved weights are the int8 values: loading them into a float model and
    # quantising again gives the same int8 weights
    reloaded = torch.nn.Sequential(torch.nn.Linear(6, 4))
    reloaded.load_state_dict(state)
    requantized = quantize_transformer(reloaded)
    torch.testing.assert_close(requantized[0].int8_weight.int_repr(), quantized[0].int8_weight.int_repr())


def test_callback_quantises_on_initialize_and_on_load(tiny_bert_dir, tmp_path):
    float_nlp = make_trf_nlp(str(tiny_bert_dir))
    expected = context_arrays(quantize_pipeline(make_trf_nlp(str(tiny_bert_dir))))
    config = with_int8_callback(float_nlp)
    # initialize: the transformer loads pretrained weights, then quantises them
    nlp = load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    assert is_quantized(nlp)
    # a saved pipeline quantises itself on spacy.load and from_bytes
    nlp.to_disk(tmp_path / "int8")
    loaded = spacy.load(tmp_path / "int8")
    assert is_quantized(loaded)
    for a, b in zip(expected, context_arrays(loaded)):
        np.testing.assert_allclose(a, b, atol=1e-5)
    from_bytes = load_model_from_config(config, auto_fill=True).from_bytes(nlp.to_bytes())
    assert is_quantized(from_bytes)
    # the float pipeline saved earlier loads as float, and its weights as int8 with the callback
    float_nlp.to_disk(tmp_path / "float")
    assert not is_quantized(spacy.load(tmp_path / "float"))
    assert is_quantized(
        spacy.load(
            tmp_path / "float",
            config={"nlp": {"after_pipeline_creation": {"@callbacks": "spacy-ctxvec.quantize_int8.v1"}}},
        )
    )
    assert is_quantized(pickle.loads(pickle.dumps(loaded)))


@pytest.mark.slow
def test_quantized_minilm_agrees_with_float(default_pipeline_dir):
    nlp = spacy.load(default_pipeline_dir)
    before = context_arrays(nlp)
    after = context_arrays(quantize_pipeline(nlp))
    cosines = np.concatenate([row_cosines(a, b) for a, b in zip(before, after)])
    assert cosines.min() > 0.8
    assert np.median(cosines) > 0.95


def test_callback_has_an_entry_point():
    from pathlib import Path

    import tomllib
    from spacy.util import registry

    from spacy_ctxvec.quantize import configure_int8_quantization

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    target = pyproject["project"]["entry-points"]["spacy_callbacks"]["spacy-ctxvec.quantize_int8.v1"]
    assert target == "spacy_ctxvec.quantize:configure_int8_quantization"
    assert registry.callbacks.get("spacy-ctxvec.quantize_int8.v1") is configure_int8_quantization


INT8_WORKERS_SCRIPT = (
    "import multiprocessing, sys\n"
    "import numpy as np, spacy\n"
    "from spacy_ctxvec.quantize import is_quantized\n"
    "multiprocessing.set_start_method(sys.argv[2])\n"
    "nlp = spacy.load(sys.argv[1])\n"
    "assert is_quantized(nlp)\n"
    "texts = ['The bank approved the loan.', 'We sat on the river bank.'] * 2\n"
    "multi = [d._.ctxvec_context for d in nlp.pipe(texts, n_process=2, batch_size=1)]\n"
    "single = [nlp(t)._.ctxvec_context for t in texts]\n"
    "assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(multi, single))\n"
    "print('OK', len(multi))\n"
)


@pytest.mark.parametrize("start_method", ["spawn", "forkserver"])
def test_an_int8_pipeline_runs_in_spawned_workers(tiny_bert_dir, tmp_path, start_method):
    """nlp.pipe(n_process=2) of an int8 pipeline failed under spawn ("bad value(s) in
    fds_to_keep") and forkserver: torch's packed int8 objects went into the pickle."""
    import subprocess
    import sys

    config = with_int8_callback(make_trf_nlp(str(tiny_bert_dir)))
    nlp = load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    nlp.to_disk(tmp_path / "int8")
    layer = next(m for m in hf_model(nlp).modules() if isinstance(m, DynamicInt8Linear))
    again = pickle.loads(pickle.dumps(layer))
    assert torch.equal(again.int8_weight.int_repr(), layer.int8_weight.int_repr())
    command = [sys.executable, "-c", INT8_WORKERS_SCRIPT, str(tmp_path / "int8"), start_method]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "OK 4" in run.stdout, run.stderr[-2000:]


def test_int8_layers_run_in_training_mode_and_only_a_backward_pass_is_e060():
    """thinc's predict leaves the model in training mode: a direct call with gradients on
    was E060 though nothing was trained; only a backward pass through the layers is."""
    torch.manual_seed(0)
    module = quantize_transformer(torch.nn.Sequential(torch.nn.Linear(4, 3))).train()
    inputs = torch.randn(2, 4, requires_grad=True)
    out = module(inputs)  # training mode, gradients on: still inference
    assert out.shape == (2, 3) and module(torch.randn(2, 4)).shape == (2, 3)
    with pytest.raises(CtxvecError, match=r"\[CTX-E060\]"):
        out.sum().backward()
