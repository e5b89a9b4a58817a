"""StaticVectorTable and load_static_vectors: every file format, lookup order, subwords,
serialization, and coded errors that name the file."""
import numpy as np
import pytest
from gensim.models import FastText, KeyedVectors, Word2Vec
from gensim.models.fasttext import load_facebook_vectors, save_facebook_model

from spacy_ctxvec import CtxvecError, StaticVectorTable, load_static_vectors
from spacy_ctxvec.attributes import STATIC_KEY_NAMES
from spacy_ctxvec.static.table import detect_format

WORDS = ["apple", "Bank", "river", "colour", "naïve", "東京"]
SENTENCES = [["the", "apple", "pie", "was", "tasty"], ["the", "river", "bank", "was", "muddy"], ["apples", "and", "pies"]] * 30


@pytest.fixture
def keyed_vectors() -> KeyedVectors:
    rng = np.random.default_rng(0)
    kv = KeyedVectors(vector_size=5)
    kv.add_vectors(WORDS, rng.normal(size=(len(WORDS), 5)).astype(np.float32))
    return kv


@pytest.fixture(scope="module")
def fasttext_bin(tmp_path_factory):
    model = FastText(vector_size=6, min_count=1, min_n=2, max_n=4, bucket=200, seed=1, workers=1, epochs=2)
    model.build_vocab(SENTENCES)
    model.train(SENTENCES, total_examples=len(SENTENCES), epochs=2)
    path = tmp_path_factory.mktemp("fasttext") / "tiny.bin"
    save_facebook_model(model, str(path))
    return path


def assert_same_table(table: StaticVectorTable, kv: KeyedVectors) -> None:
    assert table.keys == list(kv.index_to_key)
    np.testing.assert_allclose(table.vectors, kv.vectors, rtol=1e-6)
    assert table.vectors.dtype == np.float32


# Formats
def test_word2vec_text_round_trip(tmp_path, keyed_vectors):
    path = tmp_path / "vectors.txt"
    keyed_vectors.save_word2vec_format(str(path))
    assert detect_format(path) == "word2vec"
    assert_same_table(load_static_vectors(path), keyed_vectors)
    assert_same_table(load_static_vectors(path, format="word2vec"), keyed_vectors)


def test_word2vec_binary_round_trip(tmp_path, keyed_vectors):
    path = tmp_path / "vectors.w2v"
    keyed_vectors.save_word2vec_format(str(path), binary=True)
    assert detect_format(path) == "word2vec-binary"
    table = load_static_vectors(path)
    assert table.keys == WORDS
    np.testing.assert_array_equal(table.vectors, keyed_vectors.vectors)


def test_gzipped_word2vec_text(tmp_path, keyed_vectors):
    path = tmp_path / "vectors.txt.gz"
    keyed_vectors.save_word2vec_format(str(path))
    assert_same_table(load_static_vectors(path), keyed_vectors)


def test_glove_without_header(tmp_path, keyed_vectors):
    path = tmp_path / "glove.6B.5d.txt"
    lines = [" ".join([word] + [repr(float(x)) for x in keyed_vectors[word]]) for word in WORDS]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    assert detect_format(path) == "glove"
    assert_same_table(load_static_vectors(path), keyed_vectors)
    assert_same_table(load_static_vectors(path, format="glove"), keyed_vectors)


def test_fasttext_vectors_and_oov_equal_gensim(fasttext_bin):
    gensim_vectors = load_facebook_vectors(str(fasttext_bin))
    table = load_static_vectors(fasttext_bin)
    assert detect_format(fasttext_bin) == "fasttext" and table.kind == "fasttext"
    assert_same_table(table, gensim_vectors)
    oov_words = ["applesauce", "rivers", "Bank", "xyz", "pieapple"]
    assert not any(word in gensim_vectors.key_to_index for word in oov_words)
    vectors, codes = table.lookup_batch(oov_words, oov_words, oov_words)
    assert [STATIC_KEY_NAMES[c] for c in codes] == ["subwords"] * len(oov_words)
    expected = np.stack([gensim_vectors[word] for word in oov_words])
    np.testing.assert_allclose(vectors, expected, rtol=1e-5, atol=1e-7)


def test_npy_with_stem_vocab_is_memory_mapped(tmp_path, keyed_vectors):
    np.save(tmp_path / "vecs.npy", keyed_vectors.vectors)
    (tmp_path / "vecs.vocab.txt").write_text("\n".join(WORDS) + "\n", encoding="utf8")
    (tmp_path / "vocab.txt").write_text("wrong\n", encoding="utf8")  # the stem file wins
    table = load_static_vectors(tmp_path / "vecs.npy")
    assert_same_table(table, keyed_vectors)
    assert isinstance(table.vectors, np.memmap)


def test_npy_with_directory_vocab_and_float64(tmp_path, keyed_vectors):
    np.save(tmp_path / "matrix.npy", keyed_vectors.vectors.astype(np.float64))
    (tmp_path / "vocab.txt").write_text("\r\n".join(WORDS), encoding="utf8")
    assert_same_table(load_static_vectors(tmp_path / "matrix.npy", format="npy"), keyed_vectors)


def test_npy_errors_name_the_file(tmp_path, keyed_vectors):
    np.save(tmp_path / "vecs.npy", keyed_vectors.vectors)
    with pytest.raises(CtxvecError, match=r"E107.*vecs\.vocab\.txt"):
        load_static_vectors(tmp_path / "vecs.npy")
    (tmp_path / "vecs.vocab.txt").write_text("apple\nbank\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E108.*vecs\.vocab\.txt' has 2 words.*6 rows"):
        load_static_vectors(tmp_path / "vecs.npy")
    np.save(tmp_path / "flat.npy", np.zeros(6, dtype=np.float32))
    with pytest.raises(CtxvecError, match=r"E106.*flat\.npy"):
        load_static_vectors(tmp_path / "flat.npy")


def test_gensim_pickle_refused_unless_allowed(tmp_path, keyed_vectors):
    path = tmp_path / "vectors.kv"
    keyed_vectors.save(str(path))
    with pytest.raises(CtxvecError, match=r"E105.*vectors\.kv.*arbitrary code"):
        load_static_vectors(path)
    assert_same_table(load_static_vectors(path, allow_pickle=True), keyed_vectors)


def test_gensim_model_pickle_detected_by_magic_bytes(tmp_path):
    model = Word2Vec(SENTENCES, vector_size=4, min_count=1, workers=1, epochs=1)
    path = tmp_path / "model.bin"  # misleading suffix: the pickle header gives it away
    model.save(str(path))
    assert detect_format(path) == "gensim"
    with pytest.raises(CtxvecError, match="E105"):
        load_static_vectors(path)
    assert_same_table(load_static_vectors(path, allow_pickle=True), model.wv)


# Bad files
def test_missing_file_and_unknown_format(tmp_path, keyed_vectors):
    with pytest.raises(CtxvecError, match=r"E101.*nowhere\.txt"):
        load_static_vectors(tmp_path / "nowhere.txt")
    path = tmp_path / "v.txt"
    keyed_vectors.save_word2vec_format(str(path))
    with pytest.raises(CtxvecError, match=r"E102.*'csv'"):
        load_static_vectors(path, format="csv")


@pytest.mark.parametrize(
    "content",
    ["2 3\napple 1 2 3\npear 4 5\n", "2 4\napple 1 2 3\npear 4 5 6\n", "apple 1 2 3\npear 4 5 6 7\n"],
    ids=["inconsistent-rows", "header-dim-mismatch", "glove-inconsistent"],
)
def test_wrong_dimension_names_file(tmp_path, content):
    path = tmp_path / "bad_dims.txt"
    path.write_text(content, encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E104.*bad_dims\.txt"):
        load_static_vectors(path)


def test_corrupt_files_name_the_file(tmp_path, keyed_vectors, fasttext_bin):
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(fasttext_bin.read_bytes()[:300])
    with pytest.raises(CtxvecError, match=r"E103.*truncated\.bin.*fasttext"):
        load_static_vectors(truncated)
    np.save(tmp_path / "cut.npy", keyed_vectors.vectors)
    (tmp_path / "cut.npy").write_bytes((tmp_path / "cut.npy").read_bytes()[:100])
    (tmp_path / "vocab.txt").write_text("\n".join(WORDS), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E103.*cut\.npy"):
        load_static_vectors(tmp_path / "cut.npy")
    short = tmp_path / "short.txt"
    short.write_text("3 2\napple 1 2\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E103.*short\.txt"):
        load_static_vectors(short)
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E103.*empty\.txt.*empty"):
        load_static_vectors(empty)


def test_nan_values_refused(tmp_path):
    path = tmp_path / "nan.txt"
    path.write_text("2 2\napple 1 2\npear nan 3\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E109.*nan\.txt.*'pear'"):
        load_static_vectors(path)


# Lookup
def plain_table() -> StaticVectorTable:
    keys = ["Apple", "apple", "banana", "color"]
    return StaticVectorTable(keys, np.arange(1, 9, dtype=np.float32).reshape(4, 2))


@pytest.mark.parametrize(
    "text,lower,norm,code,row",
    [
        ("Apple", "apple", "apple", "exact", 0),
        ("APPLE", "apple", "apple", "lower", 1),
        ("BANANA", "banana", "banana", "lower", 2),
        ("colour", "colour", "color", "norm", 3),
        ("kiwi", "kiwi", "kiwi", "none", None),
        ("", "", "", "none", None),
        (" \n", " \n", " \n", "none", None),
    ],
)
def test_lookup_order_codes(text, lower, norm, code, row):
    table = plain_table()
    vector, found = table.lookup(text, lower, norm)
    assert found == code
    expected = np.zeros(2, dtype=np.float32) if row is None else table.vectors[row]
    np.testing.assert_array_equal(vector, expected)


def test_lookup_order_is_configurable():
    table = plain_table()
    assert table.lookup("Apple", "apple", "apple", lookups=("lower", "exact"))[1] == "lower"
    assert table.lookup("APPLE", "apple", "apple", lookups=("exact", "norm"))[1] == "norm"
    assert table.lookup("APPLE", "apple", "apple", lookups=("exact",))[1] == "none"
    with pytest.raises(CtxvecError, match=r"E112.*'stem'"):
        table.lookup("Apple", lookups=("exact", "stem"))


def test_subword_lookup_comes_after_keys(fasttext_bin):
    table = load_static_vectors(fasttext_bin)
    texts = ["apple", "Apple", "Applez", "Pies!"]
    _, codes = table.lookup_batch(texts, ["apple", "apple", "applez", "pies!"], ["apple", "apple", "apple", "pies!"])
    assert [STATIC_KEY_NAMES[c] for c in codes] == ["exact", "lower", "norm", "subwords"]
    assert table.lookup("Applez", "applez", "applez", lookups=("exact", "lower"))[1] == "none"


def test_lookup_batch_shapes_duplicates_and_defaults():
    table = plain_table()
    texts = ["Apple", "kiwi", "Apple", "BANANA", ""]
    vectors, codes = table.lookup_batch(texts)
    assert vectors.shape == (5, 2) and vectors.dtype == np.float32 and codes.dtype == np.int8
    assert [STATIC_KEY_NAMES[c] for c in codes] == ["exact", "none", "exact", "lower", "none"]
    np.testing.assert_array_equal(vectors[0], vectors[2])
    assert np.isfinite(vectors).all()
    empty_vectors, empty_codes = table.lookup_batch([])
    assert empty_vectors.shape == (0, 2) and empty_codes.shape == (0,)
    with pytest.raises(CtxvecError, match="E113"):
        table.lookup_batch(["a", "b"], ["a"], ["a", "b"])


def test_duplicate_keys_first_row_wins(caplog):
    table = StaticVectorTable(["a", "b", "a"], np.eye(3, dtype=np.float32))
    assert len(table) == 2
    np.testing.assert_array_equal(table.get("a"), [1, 0, 0])
    assert "duplicated keys" in caplog.text


def test_keys_must_match_rows():
    with pytest.raises(CtxvecError, match="E110"):
        StaticVectorTable(["a", "b"], np.zeros((1, 3), dtype=np.float32))


# Transformer input embeddings
@pytest.fixture(scope="module")
def tiny_bert(tiny_bert_dir):
    from transformers import AutoModel, AutoTokenizer

    return AutoModel.from_pretrained(str(tiny_bert_dir)), AutoTokenizer.from_pretrained(str(tiny_bert_dir))


@pytest.fixture(scope="module")
def wordpiece_table(tiny_bert) -> StaticVectorTable:
    model, tokenizer = tiny_bert
    return StaticVectorTable.from_transformer(model.get_input_embeddings().weight.detach().numpy(), tokenizer)


def test_wordpiece_multi_piece_word_is_mean_of_input_embeddings(tiny_bert, wordpiece_table):
    import torch

    model, tokenizer = tiny_bert
    ids = tokenizer("unbelievable", add_special_tokens=False)["input_ids"]
    assert tokenizer.convert_ids_to_tokens(ids) == ["un", "##believ", "##able"]
    with torch.no_grad():
        expected = model.embeddings.word_embeddings(torch.tensor(ids)).mean(dim=0).numpy()
    vector, code = wordpiece_table.lookup("unbelievable")
    assert code == "subwords"
    np.testing.assert_allclose(vector, expected, rtol=1e-5, atol=1e-7)


def test_wordpiece_codes(tiny_bert, wordpiece_table):
    model, tokenizer = tiny_bert
    embeddings = model.get_input_embeddings().weight.detach().numpy()
    vector, code = wordpiece_table.lookup("apple")
    assert code == "exact"
    np.testing.assert_array_equal(vector, embeddings[tokenizer.convert_tokens_to_ids("apple")])
    assert wordpiece_table.lookup("Apple")[1] == "lower"
    for blank_or_unknown in ["", "   ", "😀", "東京"]:
        vector, code = wordpiece_table.lookup(blank_or_unknown)
        assert code == "none" and not vector.any()
    # Continuation pieces and special tokens are not words of their own.
    assert "##able" not in wordpiece_table and "[CLS]" not in wordpiece_table
    assert wordpiece_table.lookup("[CLS]")[1] == "subwords"


# Serialization
def lookups_of(table: StaticVectorTable):
    texts = ["apple", "Apple", "unbelievable", "rivers", "", "😀", "東京"]
    return table.lookup_batch(texts)


@pytest.mark.parametrize("kind", ["plain", "fasttext", "wordpieces"])
def test_table_disk_and_bytes_round_trips(tmp_path, kind, fasttext_bin, wordpiece_table):
    table = {"plain": plain_table(), "fasttext": load_static_vectors(fasttext_bin), "wordpieces": wordpiece_table}[kind]
    table.to_disk(tmp_path / "table")
    assert not list((tmp_path / "table").rglob("*.pkl")) and not list((tmp_path / "table").rglob("*.bin"))
    from_disk = StaticVectorTable.from_disk(tmp_path / "table")
    from_bytes = StaticVectorTable.from_bytes(table.to_bytes())
    assert isinstance(from_disk.vectors, np.memmap)
    expected_vectors, expected_codes = lookups_of(table)
    for loaded in (from_disk, from_bytes):
        assert loaded.kind == kind and loaded.keys == table.keys
        vectors, codes = lookups_of(loaded)
        np.testing.assert_array_equal(vectors, expected_vectors)
        np.testing.assert_array_equal(codes, expected_codes)


def test_from_disk_names_missing_part(tmp_path):
    plain_table().to_disk(tmp_path / "table")
    (tmp_path / "table" / "vectors.npy").unlink()
    with pytest.raises(CtxvecError, match=r"E119.*vectors\.npy"):
        StaticVectorTable.from_disk(tmp_path / "table")
