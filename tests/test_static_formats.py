"""load_static_vectors (static/formats.py): every file format, and coded errors that name
the file (and line) for bad input, never a header-sized allocation."""

from pathlib import Path

import numpy as np
import pytest
from gensim.models import KeyedVectors, Word2Vec
from gensim.models.fasttext import load_facebook_vectors

from spacy_ctxvec import CtxvecError, StaticVectorTable, load_static_vectors
from spacy_ctxvec.attributes import STATIC_KEY_NAMES
from spacy_ctxvec.static.formats import check_fasttext_header, detect_format

from .conftest import FASTTEXT_SENTENCES

WORDS = ["apple", "Bank", "river", "colour", "naïve", "東京"]
SENTENCES = FASTTEXT_SENTENCES


@pytest.fixture
def keyed_vectors() -> KeyedVectors:
    rng = np.random.default_rng(0)
    kv = KeyedVectors(vector_size=5)
    kv.add_vectors(WORDS, rng.normal(size=(len(WORDS), 5)).astype(np.float32))
    return kv


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
    # a pickle of something else, or a gensim object without vectors: a coded error naming the file
    import pickle

    from gensim.utils import SaveLoad

    (tmp_path / "dict.kv").write_bytes(pickle.dumps({"bank": [0.1, 0.2]}))
    SaveLoad().save(str(tmp_path / "other.kv"))
    (tmp_path / "module.kv").write_bytes(b"cno_such_module_here\nThing\n.")  # a class of a missing module
    for name in ("dict.kv", "other.kv", "module.kv"):
        with pytest.raises(CtxvecError, match=r"\[CTX-E\d+\].*" + name.replace(".", r"\.")):
            load_static_vectors(tmp_path / name, allow_pickle=True)
    # given as word2vec binary, E132 showed 100 bytes of the pickle as its "header line"
    with pytest.raises(
        CtxvecError, match=r"E132.*line b'\\x80.{10,60}'\.\.\. \(binary data, not a line of text\)"
    ) as caught:
        load_static_vectors(path, format="word2vec-binary")
    said = str(caught.value)
    assert "gensim.models" not in said and "gensim's native .model/.kv (a pickle), not word2vec-binary" in said


def test_the_conversions_e105_advises_load_the_same_vectors(tmp_path, keyed_vectors):
    """Each way E105 names, run as written: a .kv, a Word2Vec .model and a FastText
    .model become files that load without unpickling, with the same rows (and subwords)."""
    from gensim.models import FastText, KeyedVectors
    from gensim.models.fasttext import save_facebook_model

    keyed_vectors.save(str(tmp_path / "v.kv"))
    Word2Vec(SENTENCES, vector_size=4, min_count=1, workers=1, epochs=1).save(str(tmp_path / "w.model"))
    FastText(SENTENCES, vector_size=4, min_count=1, workers=1, epochs=1).save(str(tmp_path / "f.model"))
    for name in ("v.kv", "w.model", "f.model"):
        with pytest.raises(CtxvecError, match=r"E105") as refused:
            load_static_vectors(tmp_path / name)
        message = " ".join(str(refused.value).split())
        assert "Word2Vec.load(path).wv.save_word2vec_format(" in message and "save_facebook_model(" in message
    KeyedVectors.load(str(tmp_path / "v.kv")).save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    Word2Vec.load(str(tmp_path / "w.model")).wv.save_word2vec_format(str(tmp_path / "w.bin"), binary=True)
    save_facebook_model(FastText.load(str(tmp_path / "f.model")), str(tmp_path / "f.bin"))
    assert_same_table(load_static_vectors(tmp_path / "v.bin"), keyed_vectors)
    assert_same_table(load_static_vectors(tmp_path / "w.bin"), Word2Vec.load(str(tmp_path / "w.model")).wv)
    fasttext = load_static_vectors(tmp_path / "f.bin")
    assert fasttext.subwords is not None


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
    with pytest.raises(CtxvecError, match=r"E101.*nowhere\.txt' does not exist"):
        load_static_vectors(tmp_path / "nowhere.txt")
    with pytest.raises(CtxvecError, match=r"E101.*' is a directory, not a file"):  # it said "does not exist"
        load_static_vectors(tmp_path)
    path = tmp_path / "v.txt"
    keyed_vectors.save_word2vec_format(str(path))
    with pytest.raises(CtxvecError, match=r"E102.*'csv'"):
        load_static_vectors(path, format="csv")


@pytest.mark.parametrize(
    ("content", "counted"),
    [
        ("2 3\napple 1 2 3\npear 4 5\n", "line 3 has 2 values, expected 3"),
        ("2 4\napple 1 2 3\npear 4 5 6\n", "line 2 has 3 values, expected 4"),
        ("apple 1 2 3\npear 4 5 6 7\n", "line 2 has 4 values, expected 3"),
        ("2 2\napple 1 2 3 4 5\n", "line 2 has 5 values, expected 2)"),
        ("2 2\napple 1 2\nnew york 3 4\n", "expected 2; its word seems to hold a space ('new york'), which no row"),
    ],
    ids=["inconsistent-rows", "header-dim-mismatch", "glove-inconsistent", "too-many-counted", "word-with-a-space"],
)
def test_wrong_dimension_names_file(tmp_path, content, counted):
    path = tmp_path / "bad_dims.txt"
    path.write_text(content, encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E104.*bad_dims\.txt") as caught:
        load_static_vectors(path)
    assert counted in str(caught.value)


def test_corrupt_files_name_the_file(tmp_path, keyed_vectors, fasttext_bin):
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(fasttext_bin.read_bytes()[:300])
    with pytest.raises(CtxvecError, match=r"E130.*truncated\.bin.*input matrix needs"):
        load_static_vectors(truncated)
    np.save(tmp_path / "cut.npy", keyed_vectors.vectors)
    (tmp_path / "cut.npy").write_bytes((tmp_path / "cut.npy").read_bytes()[:100])
    (tmp_path / "vocab.txt").write_text("\n".join(WORDS), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E103.*cut\.npy"):
        load_static_vectors(tmp_path / "cut.npy")
    short = tmp_path / "short.txt"
    short.write_text("3 2\napple 1 2\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E130.*short\.txt.*3 rows of dimension 2.*ends after 1 rows"):
        load_static_vectors(short)
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf8")
    for given in ("auto", "word2vec"):  # an empty file holds no vectors (E137), whatever its format
        with pytest.raises(CtxvecError, match=r"E137.*empty\.txt' holds no vectors"):
            load_static_vectors(empty, format=given)


def test_nan_values_refused(tmp_path):
    path = tmp_path / "nan.txt"
    path.write_text("2 2\napple 1 2\npear nan 3\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E109.*nan\.txt.*'pear'"):
        load_static_vectors(path)
    path.write_text("2 2\napple 1 2\npear 1e39 3\n", encoding="utf8")  # beyond float32: read as inf
    with pytest.raises(CtxvecError, match=r"E109.*'pear'\), or values beyond float32's"):
        load_static_vectors(path)


# Headers are never trusted for allocation
def peak_bytes(function, *args):
    """(result or raised CtxvecError, peak bytes allocated while it ran)."""
    import tracemalloc

    tracemalloc.start()
    try:
        try:
            result = function(*args)
        except CtxvecError as err:
            result = err
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def three_rows(dim: int = 3) -> bytes:
    return b"".join(f"w{i} ".encode() + b" ".join(b"0.5" for _ in range(dim)) + b"\n" for i in range(3))


@pytest.mark.parametrize("header", [b"999999999 3\n", b"3 999999999\n", b"999999999 999999999\n"])
def test_huge_text_header_is_a_coded_error_in_bounded_memory(tmp_path, header):
    path = tmp_path / "liar.txt"
    path.write_bytes(header + three_rows())
    error, peak = peak_bytes(load_static_vectors, path)
    assert isinstance(error, CtxvecError) and "liar.txt" in str(error)
    # a dimension over 65,536 is E132 at the header; a row count over the rows E130 or E104
    assert ("E132" if b" 999999999" in header else "E130") in str(error) or "E104" in str(error)
    assert peak < 8 * 2**20


@pytest.mark.parametrize("header", [b"999999999 3\n", b"3 999999999\n"])
def test_huge_binary_header_is_a_coded_error_in_bounded_memory(tmp_path, header):
    path = tmp_path / "liar.bin"
    rows = b"".join(f"w{i} ".encode() + np.ones(3, dtype="<f4").tobytes() for i in range(3))
    path.write_bytes(header + rows)
    error, peak = peak_bytes(
        load_static_vectors,
        path,
    )
    code = "E132" if header.endswith(b" 999999999\n") else "E130"  # a dimension over 65,536: at the header
    assert isinstance(error, CtxvecError) and code in str(error) and "liar.bin" in str(error)
    assert peak < 8 * 2**20


@pytest.mark.parametrize("suffix", [".txt", ".bin"])
def test_a_row_of_ten_million_values_is_refused_in_bounded_memory(tmp_path, suffix):
    """One 20 MB row under a header 'N 10000000' (19 KB gzipped) took 470 MB and ended in an uncoded
    MemoryError (38 GiB asked for 1,024 rows); GloVe without a header the same."""
    import gzip

    width = 10_000_000
    files = {
        "w2v.txt": b"1 %d\nw " % width + b"0 " * width + b"\n",
        "glove.txt": b"w " + b"0 " * width + b"\n",
        "w2v.bin": b"1 %d\nw " % width + bytes(4 * width),
    }
    for name, data in files.items():
        if not name.endswith(suffix):
            continue
        path = tmp_path / f"{name}.gz"
        path.write_bytes(gzip.compress(data))
        error, peak = peak_bytes(load_static_vectors, path)
        assert isinstance(error, CtxvecError) and "E132" in str(error) and "65,536" in str(error), error
        assert peak < 16 * 2**20  # the 20 MB line is never held whole (a few copies of it cost ~90 MB)


def fasttext_with(fasttext_bin, tmp_path, offset: int, fmt: str, value) -> "Path":
    import struct

    data = bytearray(fasttext_bin.read_bytes())
    struct.pack_into(fmt, data, offset, value)
    path = tmp_path / "edited.bin"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    "offset,value,message",
    [
        (8, 10**9, "input matrix"),  # dim
        (40, 2**31 - 1, "input matrix"),  # bucket
        (64, 2**31 - 1, "dictionary header claims"),  # vocab_size
    ],
)
def test_fasttext_header_counts_checked_against_file_size(tmp_path, fasttext_bin, offset, value, message):
    path = fasttext_with(fasttext_bin, tmp_path, offset, "<i", value)
    error, peak = peak_bytes(load_static_vectors, path)
    assert isinstance(error, CtxvecError) and "E130" in str(error) and message in str(error)
    assert peak < 8 * 2**20
    assert check_fasttext_header(fasttext_bin)["dim"] == 6


@pytest.mark.parametrize("cut", [7, 60, 90, 200, -30])
def test_truncated_fasttext_is_a_coded_error(tmp_path, fasttext_bin, cut):
    path = tmp_path / "cut.bin"
    path.write_bytes(fasttext_bin.read_bytes()[:cut])
    with pytest.raises(CtxvecError, match=r"E1(30|03).*cut\.bin"):
        load_static_vectors(path, format="fasttext")


@pytest.mark.parametrize(
    "content,line",
    [
        ("2 3\napple 1 2 3\n\npear 4 5 6\n", 3),
        ("apple 1 2 3\n \npear 4 5 6\n", 2),
        ("\napple 1 2 3\npear 4 5 6\n", 1),
    ],
)
def test_blank_line_between_rows_names_the_line(tmp_path, content, line):
    path = tmp_path / "gaps.txt"
    path.write_text(content, encoding="utf8")
    with pytest.raises(CtxvecError, match=rf"E131.*gaps\.txt, line {line}: a blank line"):
        load_static_vectors(path)


@pytest.mark.parametrize(
    "content",
    ["2 3\napple 1 2 3\npear 4 5 6\n\n\n", "apple 1 2 3\npear 4 5 6\n\n", "apple 1 2 3\r\npear 4 5 6\r\n\r\n"],
)
def test_trailing_blank_lines_are_accepted(tmp_path, content):
    path = tmp_path / "trailing.txt"
    path.write_text(content, encoding="utf8")
    table = load_static_vectors(path)
    assert table.keys == ["apple", "pear"]
    np.testing.assert_array_equal(table.vectors, [[1, 2, 3], [4, 5, 6]])


def test_rows_beyond_the_header_are_refused(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("1 2\napple 1 2\npear 3 4\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E130.*long\.txt.*1 rows of dimension 2.*line 3 starts row 2"):
        load_static_vectors(path)


@pytest.mark.parametrize(
    "content,message",
    [
        ("2 0\napple\npear\n", r"E132.*flat\.txt.*dimension 0"),
        ("apple\npear\n", r"E302.*flat\.txt, line 1: expected a word and its numbers.*'apple'"),
    ],
    ids=["word2vec", "glove"],
)
def test_dimension_zero_is_refused(tmp_path, content, message):
    path = tmp_path / "flat.txt"
    path.write_text(content, encoding="utf8")
    with pytest.raises(CtxvecError, match=message):
        load_static_vectors(path)


def test_misread_headers_and_formats_say_what_the_file_is(tmp_path):
    """Messages that misled: a word2vec file read as GloVe ("expected 1"), a negative
    header count (E104 "line 2 has 16 values"), a .bin cut inside its header ("declares
    the header line (none)") and a text file read as npy (numpy's allow_pickle advice)."""
    (tmp_path / "w2v.txt").write_text("2 2\na 1 2\nb 3 4\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E103.*first line '2 2' is a word2vec header.*format 'word2vec'"):
        load_static_vectors(tmp_path / "w2v.txt", format="glove")
    (tmp_path / "neg.txt").write_text("-3 16\na 1 2\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E132.*neg\.txt' declares the header line b'-3 16'"):
        load_static_vectors(tmp_path / "neg.txt")
    (tmp_path / "cut.bin").write_bytes(b"1672 ")
    with pytest.raises(CtxvecError, match=r"E103.*ends before its first line 'N_ROWS DIM' does: it is cut short"):
        load_static_vectors(tmp_path / "cut.bin", format="word2vec-binary")
    with pytest.raises(CtxvecError, match=r"E103.*\(ValueError: it is not an \.npy file") as caught:
        load_static_vectors(tmp_path / "w2v.txt", format="npy")
    assert "allow_pickle" not in str(caught.value) and "ValueError: ValueError" not in str(caught.value)
    # a good word2vec text file read with another format given: its E130 said only to fix the header
    for given in ("word2vec-binary", "fasttext"):
        with pytest.raises(CtxvecError, match=rf"E130.*looks like word2vec, not {given} \(format = \"auto\" reads"):
            load_static_vectors(tmp_path / "w2v.txt", format=given)
    assert len(load_static_vectors(tmp_path / "w2v.txt", format="word2vec")) == 2


def test_dimension_zero_npy_and_binary_are_refused(tmp_path):
    np.save(tmp_path / "m.npy", np.zeros((2, 0), dtype=np.float32))
    (tmp_path / "m.vocab.txt").write_text("a\nb\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E132.*m\.npy.*dimension 0"):
        load_static_vectors(tmp_path / "m.npy")
    (tmp_path / "v.bin").write_bytes(b"2 0\na \nb \n")
    with pytest.raises(CtxvecError, match=r"E132.*v\.bin.*dimension 0"):
        load_static_vectors(tmp_path / "v.bin", format="word2vec-binary")


def test_non_utf8_words_name_file_and_line(tmp_path):
    text = tmp_path / "latin1.txt"
    text.write_bytes(b"2 2\napple 1 2\ncaf\xe9 3 4\n")
    with pytest.raises(CtxvecError, match=r"E133.*latin1\.txt, line 3: not valid UTF-8"):
        load_static_vectors(text)
    binary = tmp_path / "latin1.bin"
    binary.write_bytes(b"2 2\napple " + np.ones(2, "<f4").tobytes() + b"caf\xe9 " + np.ones(2, "<f4").tobytes())
    with pytest.raises(CtxvecError, match=r"E133.*latin1\.bin, word of row 2"):
        load_static_vectors(binary, format="word2vec-binary")
    np.save(tmp_path / "m.npy", np.ones((2, 2), dtype=np.float32))
    (tmp_path / "m.vocab.txt").write_bytes(b"apple\ncaf\xe9\n")
    with pytest.raises(CtxvecError, match=r"E133.*m\.vocab\.txt, line 2"):
        load_static_vectors(tmp_path / "m.npy")


def test_utf8_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfapple 1 2\npear 3 4\n")
    assert load_static_vectors(path).keys == ["apple", "pear"]


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("binary", [False, True])
def test_byte_order_mark_before_a_word2vec_header_in_auto_mode(tmp_path, keyed_vectors, binary, gz):
    plain = tmp_path / "plain.bin"
    keyed_vectors.save_word2vec_format(str(plain), binary=binary)
    path = tmp_path / ("bom.bin.gz" if gz else "bom.bin")
    data = b"\xef\xbb\xbf" + plain.read_bytes()
    if gz:
        import gzip

        data = gzip.compress(data)
    path.write_bytes(data)
    assert detect_format(path) == ("word2vec-binary" if binary else "word2vec")
    assert_same_table(load_static_vectors(path), keyed_vectors)


def test_byte_order_mark_before_an_npy_vocab_is_not_part_of_the_first_word(tmp_path):
    np.save(tmp_path / "m.npy", np.ones((2, 2), dtype=np.float32))
    (tmp_path / "m.vocab.txt").write_bytes(b"\xef\xbb\xbfapple\npear\n")
    assert load_static_vectors(tmp_path / "m.npy").keys == ["apple", "pear"]


def test_non_numeric_value_names_the_line(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("2 2\napple 1 2\npear 3 four\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E302.*words\.txt, line 3: expected a word and 2 numbers"):
        load_static_vectors(path)
    # numpy's fromstring before 2.3 stopped at "x", or read "2x" as 2, without a word
    for rows in ("apple 1 x\npear 2 y\n", "apple 1 2x\npear 2 3\n", "apple 1 0x10\npear 2 3\n"):
        path.write_text(rows, encoding="utf8")
        with pytest.raises(CtxvecError, match=r"E302.*words\.txt, line 1"):
            load_static_vectors(path)


# Duplicate words: the first occurrence wins, with warning W001
def duplicate_files(tmp_path):
    rows = {"bank": [1.0, 0.0], "river": [0.0, 1.0], "bank2": [0.5, 0.5]}
    lines = [("bank", rows["bank"]), ("river", rows["river"]), ("bank", rows["bank2"])]
    text = tmp_path / "dup.txt"
    text.write_text("3 2\n" + "".join(f"{w} {a} {b}\n" for w, (a, b) in lines), encoding="utf8")
    glove = tmp_path / "dup.glove.txt"
    glove.write_text("".join(f"{w} {a} {b}\n" for w, (a, b) in lines), encoding="utf8")
    binary = tmp_path / "dup.bin"
    binary.write_bytes(b"3 2\n" + b"".join(w.encode() + b" " + np.array(v, "<f4").tobytes() for w, v in lines))
    np.save(tmp_path / "dup.npy", np.array([v for _, v in lines], dtype=np.float32))
    (tmp_path / "dup.vocab.txt").write_text("bank\nriver\nbank\n", encoding="utf8")
    return [text, glove, binary, tmp_path / "dup.npy"]


def test_duplicate_word_first_occurrence_wins_with_warning(tmp_path, caplog):
    for path in duplicate_files(tmp_path):
        caplog.clear()
        table = load_static_vectors(path)
        assert table.keys == ["bank", "river"], path
        assert "None" not in table and len(table) == 2 and table.vectors.shape == (2, 2)
        np.testing.assert_array_equal(table.get("bank"), [1.0, 0.0])
        assert "W001" in caplog.text and path.stem in caplog.text and "(the first: 'bank')" in caplog.text


def test_duplicate_word_in_two_texts_has_static_cosine_one(tmp_path):
    import spacy

    from spacy_ctxvec.analysis.comparison import compare_docs

    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    source = {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(duplicate_files(tmp_path)[0])}
    nlp.config["initialize"]["components"]["ctxvec_static"] = {"source": source}
    nlp.initialize()
    doc_a, doc_b = nlp("the bank"), nlp("a bank")
    np.testing.assert_array_equal(doc_a[1]._.static_vec, [1.0, 0.0])
    [comparison] = compare_docs(doc_a, doc_b, word="bank")
    assert comparison.static_cosine == pytest.approx(1.0)


def test_vector_file_keys_are_kept_exactly_as_written(tmp_path):
    # text corpora are read in NFC; a vectors file's keys are the file's own: "Bär" composed and
    # decomposed stay two keys (no false W001 duplicate, and lookups of either spelling still work)
    composed, decomposed = "B\u00e4r", "Ba\u0308r"
    path = tmp_path / "v.txt"
    path.write_text(f"2 2\n{composed} 1 0\n{decomposed} 0 1\n", encoding="utf8")
    table = load_static_vectors(path)
    assert len(table) == 2 and composed in table and decomposed in table


def test_a_binary_word_with_a_space_names_the_misaligned_rows_not_only_the_encoding(tmp_path):
    """gensim writes "new york" into a binary file as it is; reading it back splits the word and
    reads float bytes as the next word: E133 advised converting the file from cp1252."""
    kv = KeyedVectors(vector_size=4)
    kv.add_vectors(["apple", "new york", "river"], np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32))
    path = tmp_path / "space.bin"
    kv.save_word2vec_format(str(path), binary=True)
    with pytest.raises(CtxvecError, match=r"E133.*word of row 3") as raised:
        load_static_vectors(path)
    message = str(raised.value)
    assert "a word before it holds a space (the row before reads 'new')" in message
    assert "not the header's 4 float32 values long" in message


def test_a_word_cut_inside_a_utf8_character_is_named_with_a_fix_that_keeps_the_file_whole(tmp_path):
    """Tools cut long words at a byte limit, inside a character: E133 advised converting the
    file from cp1252 with iconv (which fails, or garbles every key; on a binary file its floats too)."""
    cut = "город".encode()[:-1]
    text = tmp_path / "cut.txt"
    text.write_bytes(b"2 3\n" + "москва".encode() + b" 1 2 3\n" + cut + b" 4 5 6\n")
    binary = tmp_path / "cut.bin"
    row = np.ones(3, "<f4").tobytes()
    binary.write_bytes(b"2 3\n" + "москва".encode() + b" " + row + cut + b" " + row)
    for path, options in [(text, ""), (binary, ", binary=True")]:
        with pytest.raises(CtxvecError, match="E133") as raised:
            load_static_vectors(path)
        message = str(raised.value)
        assert "The word ends inside a UTF-8 character. If the file is UTF-8 elsewhere" in message
        assert f'unicode_errors="ignore"{options})' in message
        assert ("iconv" in message) is (path == text)  # converting a binary file's floats garbles them
    latin1 = tmp_path / "latin1.bin"
    latin1.write_bytes(b"1 2\ncaf\xe9s " + np.ones(2, "<f4").tobytes())
    with pytest.raises(CtxvecError, match="E133") as raised:
        load_static_vectors(latin1, format="word2vec-binary")
    assert "iconv" not in str(raised.value) and "load_word2vec_format(FILE, binary=True" in str(raised.value)


def test_binary_rows_read_out_of_step_are_refused_not_loaded(tmp_path):
    """A word with a space puts the reader out of step; where the next word then holds no bad
    UTF-8, the file loaded with garbled keys ('00000w2') and a row of text bytes (2.9e26)."""
    row = b"00000000"  # two float32 of 6.4e-10, bytes that read as a word too
    text_as_floats = tmp_path / "york.bin"
    text_as_floats.write_bytes(b"3 2\nw0 " + row + b"new york " + row + b"w2 " + row)
    with pytest.raises(CtxvecError, match=r"E145.*york\.bin, row 2 \('new'\): holds the value 2\.93e\+26"):
        load_static_vectors(text_as_floats, format="word2vec-binary")  # all ASCII: auto reads it as text
    zeros = np.zeros(2, "<f4").tobytes()
    control = tmp_path / "zeros.bin"
    control.write_bytes(b"3 2\nw0 " + row + b"a b " + zeros + b"w2 " + row)
    with pytest.raises(CtxvecError, match=r"E144.*zeros\.bin, word of row 3: holds the control byte 0x00") as raised:
        load_static_vectors(control)
    assert "the row before reads 'a'" in str(raised.value)
    kv = KeyedVectors(vector_size=4)  # the last word with a space: its rest and floats were "more data" (E130)
    kv.add_vectors(["paris", "london", "new york"], np.full((3, 4), 0.5, dtype=np.float32))
    kv.save_word2vec_format(str(tmp_path / "last.bin"), binary=True)
    with pytest.raises(CtxvecError, match=r"E145.*last\.bin, row 3 \('new'\)"):
        load_static_vectors(tmp_path / "last.bin")


def test_a_low_dimensional_binary_file_is_read_as_binary(tmp_path):
    """Two rows of three floats held no control byte: auto read the .bin file as text (E302)."""
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["apple", "pen"], np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], np.float32))
    kv.save_word2vec_format(str(tmp_path / "low.bin"), binary=True)
    assert detect_format(tmp_path / "low.bin") == "word2vec-binary"
    np.testing.assert_array_equal(load_static_vectors(tmp_path / "low.bin").vectors, kv.vectors)
