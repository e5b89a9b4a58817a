"""components/tokenizer_checks: the transformer's tokenizer checked when ctxvec_context is
initialised or loaded (positions capped; W059 for offsets that take the space before a word)."""

import shutil
import warnings

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
