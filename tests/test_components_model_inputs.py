"""spacy_ctxvec.components.model_inputs: the model fingerprint and the types' input
embeddings the polysemy component reads from the transformer that feeds ctxvec_context."""

import numpy as np
import spacy

from spacy_ctxvec.components.model_inputs import FingerprintCache, pipeline_model_fingerprint, type_input_embeddings
from spacy_ctxvec.ops.fingerprint import embedding_fingerprint
from spacy_ctxvec.static.sources import transformer_embedding_table


def test_input_embeddings_are_the_transformers_rows_in_float16(tiny_nlp):
    keys = ["bank", "river", "unaffordable"]  # the last one is several wordpieces: their mean
    inputs = type_input_embeddings(tiny_nlp, keys)
    expected, _ = transformer_embedding_table(tiny_nlp).lookup_batch(keys)
    assert inputs.dtype == np.float16 and inputs.shape == (3, expected.shape[1])
    np.testing.assert_allclose(inputs, expected, atol=1e-3)


def test_the_fingerprint_is_the_input_embedding_tables_and_none_without_a_transformer(tiny_nlp):
    pipe = tiny_nlp.get_pipe("transformer")
    table = pipe.model.transformer.get_input_embeddings().weight.detach().float().cpu().numpy()
    assert pipeline_model_fingerprint(tiny_nlp) == embedding_fingerprint(table)
    blank = spacy.blank("en")
    assert pipeline_model_fingerprint(blank) is None and type_input_embeddings(blank, ["bank"]) is None


def test_the_cached_fingerprint_follows_a_thinc_optimizer_step(tiny_nlp):
    """spacy train updates the transformer through thinc's PyTorchShim: the optimizer
    writes the weights in place through numpy and the tensor's version counter stays, so a
    cache keyed on the tensor alone kept the old fingerprint (the trained pipeline then
    refused its lexicon only after loading). It must follow the weights."""
    import copy

    import torch
    from thinc.api import Adam, torch2xp, xp2torch

    hf_model = copy.deepcopy(tiny_nlp.get_pipe("transformer").model.transformer)
    cache = FingerprintCache()
    before = cache.of(hf_model)
    weight = hf_model.get_input_embeddings().weight
    state = (weight.data_ptr(), weight._version)
    weight.grad = torch.ones_like(weight)
    # What thinc's PyTorchShim.finish_update does with each parameter:
    param, _ = Adam(0.01)((1, "embeddings"), torch2xp(weight.data), torch2xp(weight.grad))
    weight.data = xp2torch(param, requires_grad=True, device=weight.device)
    assert (weight.data_ptr(), weight._version) == state  # nothing tells a step was taken
    after = cache.of(hf_model)
    assert after != before and after == embedding_fingerprint(weight.detach().numpy())
    assert cache.of(hf_model) == after  # unchanged weights: the same fingerprint
