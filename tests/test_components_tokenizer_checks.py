"""components/tokenizer_checks: the transformer's tokenizer checked when ctxvec_context is
initialised or loaded (positions capped; W059 for offsets that take the space before a word)."""

import shutil
import warnings

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import AutoTokenizer, PreTrainedTokenizerFast

from spacy_ctxvec.components.tokenizer_checks import piece_with_leading_space

from .conftest import TINY_WORDS, make_trf_nlp


def metaspace_tokenizer(words):
    """A fast tokenizer as `tokenizers` builds SentencePiece-style ones: Metaspace, whose
    offsets take in the space before a word ('▁b' is characters 1-3 of 'a b')."""
    vocab = {"[UNK]": 0, **{"▁" + word: i + 1 for i, word in enumerate(words)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[UNK]")


def test_offsets_that_take_the_space_before_a_word_are_found(tiny_bert_dir):
    assert piece_with_leading_space(metaspace_tokenizer(["a", "b"])) == " b"
    assert piece_with_leading_space(AutoTokenizer.from_pretrained(str(tiny_bert_dir))) is None  # WordPiece


def test_a_pipeline_whose_tokenizer_takes_the_space_warns_w059_and_why(tiny_bert_dir, tmp_path):
    """With such a tokenizer, spacy-transformers' alignment (a token's characters and its
    trailing space) gave every word the next word's first wordpiece too, silently: a
    walkthrough with a SentencePiece model saw cosines down to 0.74 against each word's
    own wordpieces. The pipeline now says so when ctxvec_context is initialised."""
    folder = tmp_path / "metaspace_bert"
    shutil.copytree(tiny_bert_dir, folder)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (folder / name).unlink(missing_ok=True)
    metaspace_tokenizer(TINY_WORDS).save_pretrained(folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nlp = make_trf_nlp(str(folder))
    assert any(
        "[CTX-W059]" in str(w.message) and "a wordpiece covers ' b', the space" in str(w.message) for w in caught
    )
    doc = nlp("the bank")
    # what W059 warns of: "the" aligns to its own wordpiece and to "▁bank", whose offsets begin on its space
    assert doc._.trf_data.align[0].data.ravel().tolist() == [0, 1]


def test_a_wordpiece_pipeline_does_not_warn(tiny_nlp):
    from spacy_ctxvec.components.tokenizer_checks import check_transformer_tokenizer

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_transformer_tokenizer(tiny_nlp, "ctxvec_context")


def word_level_tokenizer(words, **special):
    """A fast tokenizer splitting on spaces, each word one piece."""
    vocab = {"<unk>": 0, "<eos>": 1, **{word: i + 2 for i, word in enumerate(words)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", eos_token="<eos>", **special)


def build_decoder(folder, architecture, **special):
    """A tiny random GPT-2 (reads left to right) or T5 (encoder-decoder) with a word-level tokenizer."""
    import torch
    from transformers import BartConfig, BartModel, GPT2Config, GPT2Model, T5Config, T5Model

    torch.manual_seed(0)
    tokenizer = word_level_tokenizer(list(dict.fromkeys([*TINY_WORDS, "a", "b", "c"])), **special)
    size = {"vocab_size": len(tokenizer), "d_model": 32} if architecture == "t5" else {"vocab_size": len(tokenizer)}
    if architecture == "gpt2":
        GPT2Model(GPT2Config(**size, n_embd=32, n_layer=2, n_head=2, n_positions=256)).save_pretrained(folder)
    elif architecture == "bart":
        shape = {"d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2}
        shape.update(decoder_attention_heads=2, encoder_ffn_dim=37, decoder_ffn_dim=37, max_position_embeddings=256)
        BartModel(BartConfig(**size, **shape, pad_token_id=1, eos_token_id=1, bos_token_id=1)).save_pretrained(folder)
    else:
        T5Model(T5Config(**size, d_ff=37, d_kv=8, num_layers=1, num_heads=2)).save_pretrained(folder)
    tokenizer.model_max_length = 256
    tokenizer.save_pretrained(folder)
    return str(folder)


def bucketed_nlp(name):
    """A pipeline on the shipped configs' architecture (spacy-ctxvec.BucketedTransformerModel.v1)."""
    import spacy

    from .conftest import transformer_config

    config = transformer_config(name)
    config["model"]["@architectures"] = "spacy-ctxvec.BucketedTransformerModel.v1"
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=config)
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    return nlp


def test_a_decoder_without_a_padding_token_is_e053_naming_the_setting(tmp_path):
    """GPT-2 ships without a pad token: nlp.initialize() ended in Hugging Face's "Asking to pad"."""
    import pytest

    from spacy_ctxvec.errors import CtxvecError

    with pytest.raises(
        CtxvecError, match=r'CTX-E053.*pad_token = "<eos>" under \[components.transformer.model.tokenizer_config\]'
    ):
        bucketed_nlp(build_decoder(tmp_path / "gpt2", "gpt2"))


def test_a_decoder_reading_left_to_right_warns_w066_and_its_first_words_do_not_see_what_follows(tmp_path):
    """A walkthrough found "a" in "I have a apple" / "I have a pen" at cosine 1.000 with GPT-2,
    unsaid: the README's seed example fails for such models."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nlp = make_trf_nlp(build_decoder(tmp_path / "gpt2", "gpt2", pad_token="<eos>"))
    assert any("[CTX-W066]" in str(w.message) and "reads left to right" in str(w.message) for w in caught)
    first, second = nlp("the bank"), nlp("the hotel")
    assert (first[0]._.context_vec == second[0]._.context_vec).all()


def test_an_encoder_does_not_warn_w066(tiny_bert_dir):
    from spacy_ctxvec.components.tokenizer_checks import reads_left_to_right

    from .conftest import make_trf_nlp as make

    nlp = make(str(tiny_bert_dir))
    model = nlp.get_pipe("transformer").model
    assert not reads_left_to_right(model.transformer, model.tokenizer)
    assert nlp("the bank")[0]._.context_vec.tolist() != nlp("the hotel")[0]._.context_vec.tolist()


@pytest.mark.parametrize("architecture", ["t5", "bart"])
def test_an_encoder_decoder_is_e054_not_a_traceback_or_decoder_states(tmp_path, architecture):
    """T5 ended in Hugging Face's "You have to specify either decoder_input_ids" (or a TypeError
    on token_type_ids); BART ran silently, its vectors its decoder's states."""
    from spacy_ctxvec.errors import CtxvecError

    special = {"pad_token": "<eos>", "model_input_names": ["input_ids", "attention_mask"]}
    folder = build_decoder(tmp_path / architecture, architecture, **special)
    with pytest.raises(CtxvecError, match=rf"CTX-E054.*\({architecture}\) is an encoder-decoder.*Name an encoder"):
        bucketed_nlp(folder)


def test_an_encoder_given_another_models_tokenizer_is_e056_not_an_encoder_decoder(tiny_bert_dir, tmp_path):
    """A DistilBERT saved with a BERT tokenizer (token_type_ids) was told T5 and BART are not
    supported, then met a bare TypeError."""
    import shutil

    from transformers import DistilBertConfig, DistilBertModel

    from spacy_ctxvec.errors import CtxvecError

    folder = tmp_path / "distilbert"
    shutil.copytree(tiny_bert_dir, folder)
    (folder / "config.json").unlink()
    (folder / "model.safetensors").unlink(missing_ok=True)
    config = DistilBertConfig(vocab_size=200, dim=32, n_layers=1, n_heads=2, hidden_dim=37, max_position_embeddings=64)
    DistilBertModel(config).save_pretrained(folder)
    with pytest.raises(CtxvecError, match=r"CTX-E056\].*\(distilbert\) does not take an input its tokenizer gives"):
        bucketed_nlp(str(folder))


def test_a_saved_encoder_decoder_pipeline_still_loads_with_w068(tmp_path, monkeypatch):
    """E054 at load made pipelines saved before it unloadable, even to re-export their parts."""
    import spacy

    from spacy_ctxvec.components import tokenizer_checks
    from spacy_ctxvec.errors import CtxvecError

    special = {"pad_token": "<eos>", "model_input_names": ["input_ids", "attention_mask"]}
    folder = build_decoder(tmp_path / "bart", "bart", **special)
    with pytest.raises(CtxvecError, match="CTX-E054"):
        make_trf_nlp(folder)
    with monkeypatch.context() as before_the_check:  # a pipeline saved before E054 existed
        before_the_check.setattr(tokenizer_checks, "check_not_encoder_decoder", lambda *args: None)
        nlp = make_trf_nlp(folder)
    nlp.to_disk(tmp_path / "saved")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = spacy.load(tmp_path / "saved")
    assert any("[CTX-W068]" in str(w.message) for w in caught)
    assert loaded("the bank")._.ctxvec_context.shape[0] == 2


def test_windows_longer_than_the_model_reads_warn_w067_with_a_window_that_fits(tmp_path):
    """A 32-position model with the default window of 128 tokens lost 2,029 of 3,000 tokens,
    and only W046 spoke, blaming long unspaced runs."""
    from .conftest import build_tiny_bert

    short = str(build_tiny_bert(tmp_path / "short_bert", max_position_embeddings=32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_trf_nlp(short, window=128, stride=96)
    found = [str(w.message) for w in caught if "[CTX-W067]" in str(w.message)]
    assert found and "at most 32 wordpieces at once (30 after its special tokens)" in found[0]
    assert "window = 15 and stride = 11" in found[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_trf_nlp(short, window=15, stride=11)
    assert not [w for w in caught if "[CTX-W067]" in str(w.message)]


def test_a_slow_tokenizer_warns_w091(tiny_bert_dir):
    """use_fast = false made spacy-transformers align wordpieces by their strings: with byte-level BPE, a
    word ending in "g" took the next word's first wordpiece too ('long' got 'Ġlong' and 'Ġday'), silently."""
    import spacy

    from .conftest import transformer_config

    for use_fast, warned in ((False, True), (True, False)):
        nlp = spacy.blank("en")
        config = transformer_config(str(tiny_bert_dir))
        config["model"]["tokenizer_config"] = {"use_fast": use_fast}
        nlp.add_pipe("transformer", config=config)
        nlp.add_pipe("ctxvec_context")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nlp.initialize()
        said = [w for w in caught if "[CTX-W091]" in str(w.message)]
        assert bool(said) == warned and all(w.filename == __file__ for w in said)
        assert not said or "use_fast = true in [components.transformer.model.tokenizer_config]" in str(said[0].message)
