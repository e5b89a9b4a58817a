"""StaticVectorTable: lookup order, subwords, serialization, and coded errors for
damaged saved tables."""

import unicodedata
from pathlib import Path

import numpy as np
import pytest
import srsly

from spacy_ctxvec import CtxvecError, StaticVectorTable, load_static_vectors
from spacy_ctxvec.attributes import STATIC_KEY_NAMES


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
    with pytest.raises(CtxvecError, match=r"E120.*empty.*zero vector"):
        table.lookup("Apple", lookups=())


def test_subword_lookup_comes_after_keys(fasttext_bin):
    table = load_static_vectors(fasttext_bin)
    texts = ["apple", "Apple", "Applez", "Pies!"]
    _, codes = table.lookup_batch(texts, ["apple", "apple", "applez", "pies!"], ["apple", "apple", "apple", "pies!"])
    assert [STATIC_KEY_NAMES[c] for c in codes] == ["exact", "lower", "norm", "subwords"]
    assert table.lookup("Applez", "applez", "applez", lookups=("exact", "lower"))[1] == "none"


def test_whitespace_tokens_get_no_fasttext_subword_vector(fasttext_bin):
    """spaCy's whitespace tokens ("  ", "\\n") have no vector, whatever the table's subwords:
    without the blank check a fastText table makes one from their character n-grams ('<\\n')."""
    table = load_static_vectors(fasttext_bin)
    assert table.lookup("Applez")[1] == "subwords"  # any other unknown word gets its n-grams
    texts = ["  ", "\n", "\n\n", " \t ", "\u3000", "apple", "Applez"]
    vectors, codes = table.lookup_batch(texts)
    assert [STATIC_KEY_NAMES[c] for c in codes] == ["none"] * 5 + ["exact", "subwords"]
    assert not vectors[:5].any() and vectors[5:].any(axis=1).all()
    for blank in texts[:5]:
        vector, code = table.lookup(blank)
        assert code == "none" and not vector.any()


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


def test_the_tables_arrays_cannot_be_changed_in_place():
    """table.vectors[row] = 5.0 changed every later token's static vector."""
    table = plain_table()
    for array in (table.vectors, table.rows):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 5
    np.testing.assert_array_equal(table.lookup("Apple")[0], [1.0, 2.0])


def test_a_word_typed_with_combining_accents_or_a_soft_hyphen_finds_its_composed_key_and_back():
    """NFD text ("e" + U+0301) got a zero vector, key 'none', though build-lexicon and
    ctxvec_polysemy read it as its NFC form; a key stored in NFD is found as given, and by NFC
    text (which found nothing: a gensim file trained on NFD text was out of reach)."""
    table = StaticVectorTable(["élève", unicodedata.normalize("NFD", "forêt")], np.eye(2, dtype=np.float32))
    for text, code in (("e\u0301le\u0300ve", "exact"), ("él\u00adève", "exact"), ("E\u0301LE\u0300VE", "lower")):
        assert table.lookup(text) == (pytest.approx([1.0, 0.0]), code)
    assert table.lookup(unicodedata.normalize("NFD", "forêt"))[1] == "exact"
    # a file written in NFD (macOS, some corpora): its words are found by the text as read (NFC),
    # here and after a round trip; where the file has both forms, each finds its own row
    assert table.lookup("forêt") == (pytest.approx([0.0, 1.0]), "exact")
    assert StaticVectorTable.from_bytes(table.to_bytes()).lookup("Forêt") == (pytest.approx([0.0, 1.0]), "lower")
    both = StaticVectorTable([unicodedata.normalize("NFD", "forêt"), "forêt"], np.eye(2, dtype=np.float32))
    assert both.lookup("forêt")[0].tolist() == [0.0, 1.0] and len(both) == 2
    # two keys that both compose to "Å" (A + ring, the Angstrom sign): the first in the file wins, as for W001
    angstrom = StaticVectorTable(["A\u030a", "\u212b"], np.eye(2, dtype=np.float32))
    assert angstrom.lookup("\u00c5")[0].tolist() == [1.0, 0.0]


def test_duplicate_keys_first_row_wins(caplog):
    table = StaticVectorTable(["a", "b", "a"], np.eye(3, dtype=np.float32))
    assert len(table) == 2
    np.testing.assert_array_equal(table.get("a"), [1, 0, 0])
    assert "1 duplicated key (the first: 'a')" in caplog.text


def test_keys_must_match_rows():
    with pytest.raises(CtxvecError, match="E110"):
        StaticVectorTable(["a", "b"], np.zeros((1, 3), dtype=np.float32))


# Transformer input embeddings
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


def test_a_pickled_wordpiece_table_holds_the_embeddings_once_and_shares_them_after(wordpiece_table, tmp_path):
    """The table's vectors and its wordpiece means' embeddings are one array; pickled (what
    an n_process worker or Ray receives), they were written twice and came back as two."""
    import pickle
    from copy import deepcopy

    size = wordpiece_table.vectors.nbytes  # a row's bytes are found once in the pickle (twice before)
    for table in (wordpiece_table, StaticVectorTable.from_bytes(wordpiece_table.to_bytes())):
        pickled = pickle.dumps(table)
        row = np.ascontiguousarray(table.vectors[5]).tobytes()
        assert len(pickled) > size and pickled.count(row) == 1
        copy = pickle.loads(pickled)
        assert np.shares_memory(copy.vectors, copy.subwords.embeddings)
        for again in (pickle.dumps(copy), pickle.dumps(deepcopy(copy))):
            assert again.count(row) == 1  # a worker's copy pickled again: once too
        assert not copy.vectors.flags.writeable and not copy.subwords.embeddings.flags.writeable
        np.testing.assert_array_equal(
            copy.lookup_batch(["bank", "unbankable"])[0], table.lookup_batch(["bank", "unbankable"])[0]
        )


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
    # a missing cfg.json (or folder) said "damaged: cfg.json is not valid JSON"
    (tmp_path / "table" / "cfg.json").unlink()
    with pytest.raises(CtxvecError, match=r"E119.*'cfg\.json' is missing"):
        StaticVectorTable.from_disk(tmp_path / "table")


def test_a_missing_key_rows_file_is_e119_not_keys_read_as_rows(tmp_path):
    """Without key_rows.npy, key i was read as row i: a partial copy of a pipeline loaded
    with every word's static vector from another word, in silence."""
    import srsly

    table = StaticVectorTable(["river", "bank"], np.eye(3, dtype=np.float32), rows=np.array([2, 0]))
    table.to_disk(tmp_path / "table")
    np.testing.assert_array_equal(StaticVectorTable.from_disk(tmp_path / "table").get("river"), [0, 0, 1])
    (tmp_path / "table" / "key_rows.npy").unlink()
    with pytest.raises(CtxvecError, match=r"E119.*'key_rows\.npy' is missing"):
        StaticVectorTable.from_disk(tmp_path / "table")
    message = srsly.msgpack_loads(table.to_bytes())
    message["key_rows"] = None
    with pytest.raises(CtxvecError, match=r"E119.*'key_rows' is missing"):
        StaticVectorTable.from_bytes(srsly.msgpack_dumps(message))
    plain_table().to_disk(tmp_path / "plain")  # keys that are rows: no file needed, none written
    assert not (tmp_path / "plain" / "key_rows.npy").exists()
    assert StaticVectorTable.from_disk(tmp_path / "plain").keys == plain_table().keys


# Damaged saved tables: coded errors, never NaN or a raw traceback
def saved_plain(tmp_path):
    path = tmp_path / "table"
    plain_table().to_disk(path)
    return path


def damage_truncated_npy(path):
    data = (path / "vectors.npy").read_bytes()
    (path / "vectors.npy").write_bytes(data[: len(data) - 8])


def damage_nan(path):
    vectors = np.load(path / "vectors.npy")
    vectors[2, 1] = np.nan
    np.save(path / "vectors.npy", vectors)


def damage_cfg_json(path):
    (path / "cfg.json").write_text('{"kind": "plain", "dim": 2', encoding="utf8")


def damage_missing_cfg_key(path):
    cfg = srsly.read_json(path / "cfg.json")
    del cfg["n_rows"]
    srsly.write_json(path / "cfg.json", cfg)


def damage_keys(path):
    srsly.write_json(path / "keys.json", ["Apple", 3, "banana", "color"])


def damage_dtype(path):
    np.save(path / "vectors.npy", np.load(path / "vectors.npy").astype(np.float64))


def damage_shape(path):
    np.save(path / "vectors.npy", np.zeros((4, 3), dtype=np.float32))


def damage_key_rows(path):
    np.save(path / "key_rows.npy", np.array([0, 1, 2, 9]))


def damage_keys_device(path):  # a device: /dev/zero would be read without end (/dev/null reads empty)
    if not Path("/dev/null").exists():
        pytest.skip("no /dev/null here")
    (path / "keys.json").unlink()
    (path / "keys.json").symlink_to("/dev/null")


def damage_cfg_directory(path):
    (path / "cfg.json").unlink()
    (path / "cfg.json").mkdir()


@pytest.mark.parametrize(
    "damage,problem",
    [
        (damage_truncated_npy, "vectors.npy cannot be read"),
        (damage_nan, "vectors holds NaN or infinite values in 1 row"),
        (damage_cfg_json, "cfg.json is not valid JSON"),
        (damage_missing_cfg_key, "'n_rows'"),
        (damage_keys, "list of 4 strings"),
        (damage_dtype, "float32 array of shape"),
        (damage_shape, r"shape \(4, 2\), got \(4, 3\)"),
        (damage_key_rows, "key_rows points outside"),
        (damage_keys_device, "keys.json is not a regular file"),
        (damage_cfg_directory, "cfg.json is not a regular file"),
    ],
)
@pytest.mark.parametrize("mmap", [True, False])
def test_damaged_saved_table_is_a_coded_error(tmp_path, damage, problem, mmap):
    path = saved_plain(tmp_path)
    damage(path)
    with pytest.raises(CtxvecError, match=rf"E134.*table'? is damaged: .*{problem}"):
        StaticVectorTable.from_disk(path, mmap=mmap)


def test_damaged_table_bytes_are_a_coded_error(fasttext_bin):
    data = plain_table().to_bytes()
    for damaged in (
        data[: len(data) // 2],
        b"\x00" * 10,
        srsly.msgpack_dumps([1, 2]),
        srsly.msgpack_dumps({"cfg": {}}),
    ):
        with pytest.raises(CtxvecError, match=r"E134.*<bytes>"):
            StaticVectorTable.from_bytes(damaged)
    msg = srsly.msgpack_loads(load_static_vectors(fasttext_bin).to_bytes())
    msg["arrays"]["ngrams"] = np.full_like(msg["arrays"]["ngrams"], np.inf)
    with pytest.raises(CtxvecError, match=r"E134.*ngrams holds NaN or infinite"):
        StaticVectorTable.from_bytes(srsly.msgpack_dumps(msg))


@pytest.mark.parametrize("content", [b"{not json", b'{"version": "1.0"}', b"\x80\x81"])
def test_damaged_saved_tokenizer_is_a_coded_error(tmp_path, wordpiece_table, content):
    wordpiece_table.to_disk(tmp_path / "table")
    (tmp_path / "table" / "tokenizer" / "tokenizer.json").write_bytes(content)
    with pytest.raises(CtxvecError, match=r"E134.*table' is damaged: the saved tokenizer cannot be loaded"):
        StaticVectorTable.from_disk(tmp_path / "table")


def test_a_saved_tokenizer_naming_custom_code_never_runs_it(tmp_path, wordpiece_table, monkeypatch):
    """A downloaded table's tokenizer_config.json naming code of its own ("auto_map") made transformers ask
    on a terminal whether to run it: one "y" ran code from the download at spacy.load."""
    import builtins
    import json

    wordpiece_table.to_disk(tmp_path / "table")
    folder = tmp_path / "table" / "tokenizer"
    ran = tmp_path / "ran"
    code = f"open({str(ran)!r}, 'w').close()\nfrom transformers import BertTokenizer\nclass Evil(BertTokenizer): pass\n"
    (folder / "evil.py").write_text(code, encoding="utf8")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf8"))
    config["tokenizer_class"], config["auto_map"] = "Evil", {"AutoTokenizer": ["evil.Evil", None]}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf8")
    monkeypatch.setattr(builtins, "input", lambda *args: "y")  # a user who answers yes
    with pytest.raises(CtxvecError, match=r"E134.*the saved tokenizer cannot be loaded"):
        StaticVectorTable.from_disk(tmp_path / "table")
    assert not ran.exists()


def test_a_full_subword_cache_never_changes_a_words_vector(fasttext_bin, monkeypatch):
    """The cache was cleared when a batch's new words overflowed it, and the words of that
    batch cached before came back as zeros with key "none" (a long-running service saw a
    word's static_vec vanish for one request); threads emptied it under each other."""
    from concurrent.futures import ThreadPoolExecutor

    import spacy_ctxvec.static.table as table_module

    words = [f"blorp{n}tastic" for n in range(60)]
    expected = load_static_vectors(fasttext_bin).lookup_batch(words, words, words)[0]
    monkeypatch.setattr(table_module, "SUBWORD_CACHE_SIZE", 8)
    table = load_static_vectors(fasttext_bin)
    for start in range(0, 60, 5):  # batches that overflow the cache with words it held
        batch = words[:3] + words[start : start + 5]
        vectors, codes = table.lookup_batch(batch, batch, batch)
        assert [STATIC_KEY_NAMES[code] for code in codes] == ["subwords"] * len(batch)
        rows = [words.index(word) for word in batch]
        assert np.array_equal(vectors, expected[rows])

    def look_up(start):
        batch = words[start % 55 : start % 55 + 5]
        return start, table.lookup_batch(batch, batch, batch)[0]

    with ThreadPoolExecutor(8) as pool:
        for start, vectors in pool.map(look_up, range(400)):
            assert np.array_equal(vectors, expected[start % 55 : start % 55 + 5])
    vectors, _ = table.lookup_batch(words, words, words)  # more new words in one call than the cache holds
    assert np.array_equal(vectors, expected) and len(table._subword_cache) <= 8
    # each entry owns its row: views kept whole batch arrays alive, piling up as caches were replaced
    assert all(vector is None or vector.base is None for vector in table._subword_cache.values())


def test_keyed_vectors_holding_nan_are_a_coded_error():
    """from_keyed_vectors handed out NaN from lookup; ctxvec_static refused it only later (E141)."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["bank", "river"], np.array([[1.0, 0.0, 0.0], [np.nan, 0.0, 1.0]], dtype=np.float32))
    with pytest.raises(CtxvecError, match=r"E109\] '<KeyedVectors>' contains NaN or infinite values in 1 row"):
        StaticVectorTable.from_keyed_vectors(kv)


def test_a_word_typed_with_combining_accents_finds_its_wordpieces_as_composed(tmp_path):
    """To a cased WordPiece tokenizer "ba" + U+0308 + "rs" is one [UNK]: its subword vector was none
    (code 0) though "bärs" has pieces; the subword lookup retries the form texts are read as (NFC)."""
    from transformers import BertTokenizerFast

    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nbär\n##s\nx\n", encoding="utf8")
    tokenizer = BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=False, strip_accents=False)
    embeddings = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    table = StaticVectorTable.from_transformer(embeddings, tokenizer)
    decomposed = unicodedata.normalize("NFD", "bärs")
    assert tokenizer.tokenize(decomposed) == ["[UNK]"] and tokenizer.tokenize("bärs") == ["bär", "##s"]
    vectors, codes = table.lookup_batch(["bärs", decomposed])
    assert [STATIC_KEY_NAMES[code] for code in codes] == ["subwords", "subwords"]
    np.testing.assert_allclose(vectors[1], embeddings[[5, 6]].mean(axis=0), rtol=1e-6)
    np.testing.assert_array_equal(vectors[0], vectors[1])
