"""Subwords of a static table from a transformer: the word-start convention of its
tokenizer (WordPiece marks nothing; byte-level BPE "Ġ" and SentencePiece "▁" mark a
word's first piece), the keys it gives and the pieces a word is split into."""

import numpy as np
import pytest

from spacy_ctxvec import StaticVectorTable
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.static.subwords import FastTextNgrams, word_start_marker


def test_wordpiece_keys_are_the_pieces_that_tokenize_to_themselves(tiny_bert, wordpiece_table):
    # WordPiece marks no word start: the keys and the subword split are what they were.
    _, tokenizer = tiny_bert
    assert wordpiece_table.subwords.marker == ""
    special = set(tokenizer.all_special_tokens)
    expected = sorted(
        (idx, piece)
        for piece, idx in tokenizer.get_vocab().items()
        if piece not in special and tokenizer(piece, add_special_tokens=False)["input_ids"] == [idx]
    )
    assert list(zip(wordpiece_table.rows.tolist(), wordpiece_table.keys)) == expected
    assert wordpiece_table.subwords.piece_ids(["unbelievable"]) == [tokenizer("unbelievable")["input_ids"][1:-1]]


def test_subword_lookups_wait_for_the_tokenizers_lock(wordpiece_table):
    """A transformer's forward call holds its tokenizer's lock (another thread changing the
    tokenizer's padding breaks a concurrent call: "Already borrowed"); the static table's
    lookups through the same tokenizer object wait for it, then run."""
    import threading

    from spacy_ctxvec.locks import forward_lock

    found: list = []
    lookup = threading.Thread(target=lambda: found.append(wordpiece_table.subwords.piece_ids(["unbelievable"])))
    with forward_lock(wordpiece_table.subwords.tokenizer):  # as a forward call in another thread
        lookup.start()
        lookup.join(timeout=0.5)
        assert lookup.is_alive() and not found
    lookup.join(timeout=10)
    assert found == [wordpiece_table.subwords.piece_ids(["unbelievable"])] and found[0]


# Word-start markers: byte-level BPE (RoBERTa/GPT-2, "Ġ") and SentencePiece ("▁")
MARKER_LINES = [
    "the bank of the river was steep at night",
    "she sat on the river bank in the light of the moon",
    "the bank gave him a loan on the right terms",
    "a fight broke out by the bank that night",
    "the river runs past the bank and the bridge",
] * 3


@pytest.fixture(scope="module")
def tiny_roberta_dir(tmp_path_factory):
    """A random 1-layer RoBERTa with a byte-level BPE tokenizer trained on MARKER_LINES."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizerFast

    path = tmp_path_factory.mktemp("tiny_roberta")
    bpe = ByteLevelBPETokenizer()
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe.train_from_iterator(MARKER_LINES, vocab_size=300, min_frequency=2, special_tokens=special, show_progress=False)
    bpe.save_model(str(path))
    tokenizer = RobertaTokenizerFast(vocab_file=str(path / "vocab.json"), merges_file=str(path / "merges.txt"))
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=64,
        pad_token_id=1,
    )
    RobertaModel(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "add_prefix_space"])
def roberta_table(request, tiny_roberta_dir):
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_roberta_dir), add_prefix_space=request.param)
    embeddings = AutoModel.from_pretrained(str(tiny_roberta_dir)).get_input_embeddings().weight.detach().numpy()
    return StaticVectorTable.from_transformer(embeddings, tokenizer), tokenizer, embeddings


def test_byte_level_bpe_word_gets_its_row_after_a_space(roberta_table):
    table, tokenizer, embeddings = roberta_table
    vocab = tokenizer.get_vocab()
    # The model reads "bank" in running text through "Ġbank"; alone it would be b/an/k.
    assert tokenizer.tokenize("the river bank")[-1] == "Ġbank"
    assert tokenizer.tokenize("bank") == (["Ġbank"] if tokenizer.add_prefix_space else ["b", "an", "k"])
    vector, code = table.lookup("bank")
    assert code == "exact"
    np.testing.assert_array_equal(vector, embeddings[vocab["Ġbank"]])
    assert table.lookup("Bank")[1] == "lower"
    # "night" is both a marked and an unmarked entry: the marked one (after a space) wins.
    assert "night" in vocab and "Ġnight" in vocab
    np.testing.assert_array_equal(table.get("night"), embeddings[vocab["Ġnight"]])
    assert not any(key.startswith("Ġ") for key in table.keys) and "bank" in table and "river" in table
    # The same after saving: the word-start convention is read again from the saved tokenizer.
    loaded = StaticVectorTable.from_bytes(table.to_bytes())
    assert loaded.lookup("bank")[1] == "exact"
    np.testing.assert_array_equal(loaded.lookup("banks")[0], table.lookup("banks")[0])


def test_byte_level_bpe_multi_piece_word_is_mean_of_its_running_text_pieces(roberta_table):
    table, tokenizer, embeddings = roberta_table
    ids = tokenizer("the banks", add_special_tokens=False)["input_ids"][1:]
    assert tokenizer.convert_ids_to_tokens(ids) == ["Ġbank", "s"]
    vector, code = table.lookup("banks")
    assert code == "subwords"
    np.testing.assert_allclose(vector, embeddings[ids].mean(axis=0), rtol=1e-6)


def test_byte_level_bpe_continuation_piece_is_not_a_key(roberta_table):
    table, tokenizer, embeddings = roberta_table
    vocab = tokenizer.get_vocab()
    assert "ight" in vocab and "Ġight" not in vocab
    assert "ight" not in table and "fight" not in table  # only unmarked entries: word continuations
    # After a space "ight" is the marker alone plus "ight": the marker piece is left out.
    vector, code = table.lookup("ight")
    assert code == "subwords"
    np.testing.assert_array_equal(vector, embeddings[vocab["ight"]])


def test_sentencepiece_word_gets_its_marked_row():
    from tokenizers import SentencePieceBPETokenizer
    from transformers import PreTrainedTokenizerFast

    spm = SentencePieceBPETokenizer()
    spm.train_from_iterator(MARKER_LINES, vocab_size=200, special_tokens=["<unk>"], show_progress=False)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=spm._tokenizer, unk_token="<unk>")
    vocab = tokenizer.get_vocab()
    embeddings = np.random.default_rng(0).normal(size=(len(vocab), 4)).astype(np.float32)
    table = StaticVectorTable.from_transformer(embeddings, tokenizer)
    assert table.subwords.marker == "▁" and not any(key.startswith("▁") for key in table.keys)
    vector, code = table.lookup("bank")
    assert code == "exact"
    np.testing.assert_array_equal(vector, embeddings[vocab["▁bank"]])
    ids = tokenizer("the banks", add_special_tokens=False)["input_ids"][1:]
    vector, code = table.lookup("banks")
    assert code == "subwords" and tokenizer.convert_ids_to_tokens(ids)[0] == "▁bank"
    np.testing.assert_allclose(vector, embeddings[ids].mean(axis=0), rtol=1e-6)


class SplitAs:
    """A stand-in tokenizer that splits "a b" into the given pieces."""

    def __init__(self, *pieces: str) -> None:
        self.pieces = list(pieces)

    def tokenize(self, text: str) -> list:
        assert text == "a b"
        return self.pieces


@pytest.mark.parametrize(
    "pieces,expected",
    [
        (["a", "b"], ("", False)),  # WordPiece
        (["a", "Ġb"], ("Ġ", False)),  # byte-level BPE
        (["Ġa", "Ġb"], ("Ġ", True)),  # byte-level BPE with add_prefix_space
        (["▁a", "▁b"], ("▁", True)),  # SentencePiece
        (["▁", "a", "▁", "b"], ("▁", True)),
        (["a</w>", "b</w>"], ("", False)),  # an end-of-word suffix is no word-start marker
        (["[UNK]", "[UNK]"], ("", False)),
    ],
)
def test_word_start_marker_is_read_from_how_a_b_is_split(pieces, expected):
    assert word_start_marker(SplitAs(*pieces)) == expected


ONLY_WORDS = ["bank", "Bank", "banks", "river", "night", "ight", "fight", "the", "zzzq", "Ölbank"]


def _lookups_agree(full, small, words):
    vectors, codes = full.lookup_batch(words)
    small_vectors, small_codes = small.lookup_batch(words)
    np.testing.assert_array_equal(small_codes, codes)
    np.testing.assert_array_equal(small_vectors, vectors)
    assert set(small.keys) <= set(full.keys) and len(small) < len(full)


def test_a_table_made_for_some_words_looks_them_up_as_the_whole_table(roberta_table):
    table, tokenizer, embeddings = roberta_table
    only = set(ONLY_WORDS) | {word.lower() for word in ONLY_WORDS}
    _lookups_agree(table, StaticVectorTable.from_transformer(embeddings, tokenizer, only=only), ONLY_WORDS)


def test_a_wordpiece_table_made_for_some_words_looks_them_up_as_the_whole_table(minilm_dir):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(minilm_dir))
    embeddings = np.random.default_rng(0).normal(size=(len(tokenizer.get_vocab()), 4)).astype(np.float32)
    full = StaticVectorTable.from_transformer(embeddings, tokenizer)
    only = set(ONLY_WORDS) | {word.lower() for word in ONLY_WORDS}
    small = StaticVectorTable.from_transformer(embeddings, tokenizer, only=only)
    _lookups_agree(full, small, ONLY_WORDS)
    assert sorted(small.keys) == ["bank", "banks", "fight", "night", "river", "the"]


def test_bad_ngram_settings_and_a_matrix_of_the_wrong_shape_are_coded_errors():
    with pytest.raises(CtxvecError, match=r"E138.*min_n=3, max_n=99"):
        FastTextNgrams(np.zeros((4, 2), dtype=np.float32), 3, 99, 4)
    with pytest.raises(CtxvecError, match=r"E111.*shape \(5, 2\), but the table needs \(4, 2\)"):
        FastTextNgrams(np.zeros((5, 2), dtype=np.float32), 3, 6, 4)
