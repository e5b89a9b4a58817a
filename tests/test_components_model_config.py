"""spacy_ctxvec.components.model_config: the Hugging Face config of a loaded pipeline."""

import numpy as np
import pytest
import spacy
import srsly
import torch
from spacy.util import load_model_from_config

from spacy_ctxvec.components.model_config import restore_config_floats, saved_config


def norm_epsilons(transformer):
    return {module.eps for module in transformer.modules() if isinstance(module, torch.nn.LayerNorm)}


@pytest.fixture(scope="module")
def bucketed_nlp(tiny_bert_dir):
    """The tiny BERT under spacy-ctxvec's architecture (ctxvec_transformer's default)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_transformer", name="transformer", config={"model": {"name": str(tiny_bert_dir)}})
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    return nlp


def test_a_loaded_pipeline_keeps_its_models_layer_norm_eps(bucketed_nlp, tmp_path):
    """spacy-transformers loads a saved model's config through JSON with 10 decimals: BERT's
    layer_norm_eps of 1e-12 came back 0.0, on the config and in every LayerNorm."""
    assert bucketed_nlp.get_pipe("transformer").model.transformer.config.layer_norm_eps == 1e-12
    bucketed_nlp.to_disk(tmp_path / "saved")
    loaded = spacy.load(tmp_path / "saved")
    transformer = loaded.get_pipe("transformer").model.transformer
    assert transformer.config.layer_norm_eps == 1e-12 and norm_epsilons(transformer) == {1e-12}
    from_bytes = load_model_from_config(loaded.config).from_bytes(loaded.to_bytes())
    transformer = from_bytes.get_pipe("transformer").model.transformer
    assert transformer.config.layer_norm_eps == 1e-12 and norm_epsilons(transformer) == {1e-12}
    text = "The bank of the river."
    np.testing.assert_array_equal(
        [t._.context_vec for t in bucketed_nlp(text)], [t._.context_vec for t in from_bytes(text)]
    )


def test_a_component_saved_before_initialize_loads(tiny_bert_dir):
    """Its bytes hold no Hugging Face config and no model: nothing to set again."""
    made = [spacy.blank("en") for _ in range(2)]
    for nlp in made:
        nlp.add_pipe("ctxvec_transformer", name="transformer", config={"model": {"name": str(tiny_bert_dir)}})
    saved = made[0].get_pipe("transformer").to_bytes()
    assert made[1].get_pipe("transformer").from_bytes(saved).model.transformer is None


def test_spacy_transformers_own_model_still_loads_it_as_zero(tiny_pipeline_dir):
    """Documented: the fix is spacy-ctxvec's architecture's; spacy-transformers.TransformerModel.v3 is upstream's."""
    transformer = spacy.load(tiny_pipeline_dir).get_pipe("transformer").model.transformer
    assert transformer.config.layer_norm_eps == 0.0


def test_the_saved_config_is_read_without_the_weights(bucketed_nlp):
    model = bucketed_nlp.get_pipe("transformer").model
    [shim_bytes] = [data for shims in srsly.msgpack_loads(model.to_bytes())["shims"] for data in shims]
    saved = saved_config(shim_bytes)
    assert saved is not None and saved["layer_norm_eps"] == 1e-12 and saved["model_type"] == "bert"
    assert saved_config(srsly.msgpack_dumps({"state": b"\0" * 10, "tokenizer": {}})) is None
    assert saved_config(srsly.msgpack_dumps([1, 2])) is None and saved_config(b"\xc1 not msgpack") is None


def test_only_the_settings_that_differ_are_set_and_the_layers_built_with_them(tiny_bert):
    import copy

    transformer = copy.deepcopy(tiny_bert[0])
    transformer.config.layer_norm_eps = 0.0
    for module in transformer.modules():
        if isinstance(module, torch.nn.LayerNorm):
            module.eps = 0.0
    saved = {**transformer.config.to_dict(), "layer_norm_eps": 1e-12}
    assert restore_config_floats(transformer, saved) == ["layer_norm_eps"]
    assert transformer.config.layer_norm_eps == 1e-12 and norm_epsilons(transformer) == {1e-12}
    assert restore_config_floats(transformer, saved) == []
    assert restore_config_floats(transformer, {"no_such_setting": 1e-12, "model_type": "bert"}) == []


@pytest.mark.slow
def test_the_saved_default_pipeline_has_minilms_layer_norm_eps(default_nlp):
    transformer = default_nlp.get_pipe("transformer").model.transformer
    assert transformer.config.layer_norm_eps == 1e-12 and norm_epsilons(transformer) == {1e-12}


def test_the_position_limit_reads_the_padding_offset_from_the_model():
    """data2vec-text, xlm-roberta-xl and roberta-prelayernorm number positions after the padding id as
    RoBERTa does but were not in the list of model types: capped 2 positions too high, a full window
    failed inside torch (IndexError: index out of range)."""
    from transformers import BertConfig, BertModel, Data2VecTextConfig, Data2VecTextModel

    from spacy_ctxvec.components.model_config import position_limit

    shape = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2}
    shape.update(intermediate_size=16, max_position_embeddings=66)
    data2vec = Data2VecTextModel(Data2VecTextConfig(**shape, pad_token_id=1))
    assert position_limit(data2vec.config, data2vec) == 64
    bert = BertModel(BertConfig(**shape, pad_token_id=0))
    assert position_limit(bert.config, bert) == 66 and position_limit(bert.config) == 66
