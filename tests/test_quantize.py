import numpy as np
import pytest
import torch

from spacy_ctxvec.quantize import is_quantized, quantize_pipeline, quantize_transformer

from .conftest import make_trf_nlp

SENTENCES = ["we sat on the bank of the river .", "i took out a loan from the bank !"]


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def context_arrays(nlp):
    return [doc._.ctxvec_context.copy() for doc in nlp.pipe(SENTENCES)]


def hf_model(nlp, name="transformer"):
    return nlp.get_pipe(name).model.layers[0].shims[0]._model


def test_quantize_pipeline_replaces_linear_layers(tiny_bert_dir):
    nlp = make_trf_nlp(str(tiny_bert_dir))
    assert not is_quantized(nlp)
    assert quantize_pipeline(nlp) is nlp
    assert is_quantized(nlp)
    modules = list(hf_model(nlp).modules())
    assert not any(type(m) is torch.nn.Linear for m in modules)
    assert any(isinstance(m, torch.ao.nn.quantized.dynamic.Linear) for m in modules)
    shim = nlp.get_pipe("transformer").model.layers[0].shims[0]
    assert shim._hfmodel.transformer is shim._model


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
    first = hf_model(nlp)
    vectors = context_arrays(nlp)
    quantize_pipeline(nlp)
    assert hf_model(nlp) is first
    for a, b in zip(vectors, context_arrays(nlp)):
        np.testing.assert_array_equal(a, b)


def test_quantize_transformer_by_name_and_unknown_name(tiny_bert_dir):
    nlp = make_trf_nlp(str(tiny_bert_dir))
    quantize_pipeline(nlp, transformer="transformer")
    assert is_quantized(nlp, "transformer")
    with pytest.raises(KeyError):
        quantize_pipeline(nlp, transformer="no_such_component")


@pytest.mark.parametrize("per_channel", [True, False])
def test_quantize_transformer_on_a_plain_module(per_channel):
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    inputs = torch.randn(5, 4)
    expected = module(inputs)
    quantized = quantize_transformer(module, per_channel=per_channel)
    assert isinstance(quantized[0], torch.ao.nn.quantized.dynamic.Linear)
    scheme = quantized[0].weight().qscheme()
    assert scheme == (torch.per_channel_affine if per_channel else torch.per_tensor_affine)
    torch.testing.assert_close(quantized(inputs), expected, atol=0.05, rtol=0.05)


@pytest.mark.slow
def test_quantized_minilm_agrees_with_float(default_pipeline_dir):
    import spacy

    nlp = spacy.load(default_pipeline_dir)
    before = context_arrays(nlp)
    after = context_arrays(quantize_pipeline(nlp))
    cosines = np.concatenate([row_cosines(a, b) for a, b in zip(before, after)])
    assert cosines.min() > 0.8
    assert np.median(cosines) > 0.95
