"""components.lost_tokens: tokens with letters but no contextual vector are named (W046)."""

import warnings

import numpy as np
import pytest
import spacy

from spacy_ctxvec.building.shard import words_without_vector
from spacy_ctxvec.components.lost_tokens import warn_of_lost_tokens

CJK = "在河的岸边有一家银行，人们经常去那里存钱和取钱，河水很清澈，岸边长满了绿色的草和美丽的花朵。"


def test_only_tokens_with_letters_or_digits_count_as_lost():
    doc = spacy.blank("en")("the bank , \u200b 42 river")
    mask = np.array([True, False, False, False, False, True])
    assert words_without_vector(doc, mask) == [1, 4]  # not the comma, not the zero-width space
    said = r"\[CTX-W046\] ctx: 2 of a Doc's 4 tokens .* 'bank' \(token 1\).*doc_spans.v1 .* use strided_spans.v1"
    with pytest.warns(UserWarning, match=said):
        assert warn_of_lost_tokens([doc], [mask], "ctx")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_of_lost_tokens([doc], [np.ones(6, dtype=bool)], "ctx")
    long = spacy.blank("en")("see https://example.org/a/very/long/path/to/a/page")
    with pytest.warns(UserWarning, match=r"'https://example\.org…' \(token 1\)"):  # cut, and says so
        warn_of_lost_tokens([long], [np.array([True, False])], "ctx")


def test_a_long_run_without_spaces_cuts_off_the_words_after_it_and_is_named_once(default_nlp):
    """A Chinese paragraph is one token of ~650 wordpieces to the English tokenizer: the
    English words after it got no vector, and a lexicon counted 8 of 120 tokens silently."""
    component = default_nlp.get_pipe("ctxvec_context")
    component._warned_lost_tokens = False
    text = CJK * 14 + " Then the bank by the river was closed for the day."
    with pytest.warns(UserWarning, match=r"\[CTX-W046\] ctxvec_context: 11 of a Doc's 12 tokens .* 'Then'") as said:
        doc = default_nlp(text)
    assert {warning.filename for warning in said} == {__file__}  # the user's line, not spacy-ctxvec's
    assert not doc._.ctxvec_context_mask[2:].any()  # what W046 reports
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default_nlp(text)  # once per component
        default_nlp("The bank by the river.")


def bert_without_max_length(tmp_path):
    """A tiny BERT of 64 positions whose tokenizer was saved without model_max_length
    (as one built from a vocab file: ~1e30)."""
    import json

    from .conftest import build_tiny_bert

    path = build_tiny_bert(tmp_path / "bert", max_position_embeddings=64)
    config_path = path / "tokenizer_config.json"
    config = json.loads(config_path.read_text())
    config["model_max_length"] = int(1e30)
    config_path.write_text(json.dumps(config))
    return path


def test_a_tokenizer_saved_without_a_maximum_length_is_cut_at_the_models_positions(tmp_path):
    """A tokenizer built from a vocab file saves model_max_length ~1e30: the windows were
    not cut and the model indexed past its 64 position embeddings (a RuntimeError)."""
    path = bert_without_max_length(tmp_path)
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_transformer", name="transformer", config={"model": {"name": {"name": str(path)}}})
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    # 100 words of 2 wordpieces each in one window of 128 tokens: 202 wordpieces.
    text = " ".join(["zq"] * 100)
    with pytest.warns(UserWarning, match=r"\[CTX-W046\]"):
        doc = nlp(text)
    mask = doc._.ctxvec_context_mask
    assert mask[:20].all() and not mask[-20:].any()
    assert np.isfinite(doc._.ctxvec_context[mask]).all()
    assert nlp.get_pipe("transformer").model.tokenizer.model_max_length == 64


def test_spacy_transformers_own_factory_is_capped_too_after_init_and_loading(tmp_path):
    """The same tokenizer under spacy-transformers' own `transformer` factory: its forward
    is not ours, so ctxvec_context caps the tokenizer once the transformer is loaded
    (initialize, from_disk, from_bytes); long windows are cut (W046), not PyTorch's IndexError."""
    from .conftest import transformer_config

    path = bert_without_max_length(tmp_path)
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(path)))
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    text = " ".join(["zq"] * 100)  # one window of 202 wordpieces
    from spacy.util import load_model_from_config

    nlp.to_disk(tmp_path / "pipeline")
    from_bytes = load_model_from_config(nlp.config).from_bytes(nlp.to_bytes())
    for pipeline in (nlp, spacy.load(tmp_path / "pipeline"), from_bytes):
        assert pipeline.get_pipe("transformer").model.tokenizer.model_max_length == 64
        with pytest.warns(UserWarning, match=r"\[CTX-W046\]"):
            doc = pipeline(text)
        mask = doc._.ctxvec_context_mask
        assert mask[:20].all() and not mask[-20:].any()
