"""Text vector files (static/text_vectors.py): text told from binary, and a file cut short."""

import warnings

import numpy as np
import pytest
from gensim.models import KeyedVectors

from spacy_ctxvec import CtxvecError, load_static_vectors
from spacy_ctxvec.static.formats import detect_format


@pytest.mark.parametrize("header,width", [(True, 4), (False, 4), (True, 768), (False, 768)])
def test_text_whose_first_key_holds_a_control_character_is_read_as_text(tmp_path, header, width):
    """A key with a bell or a terminal escape ("bank\\x07", as train-static and export-static
    write what the corpus held) made the whole file look binary: E130 on a right header, or
    "holds binary data" for a headerless one; a vertical tab or form feed inside a word split it
    (E144 "not word2vec binary" for a .txt file). gensim reads them."""
    words = ["bank\x07", "\x1b[1mbold", "river", "a\x0bb", "form\x0cfeed"]
    kv = KeyedVectors(vector_size=width)  # a 768-d row is about 10 KB: past the first 4 KB read for control bytes
    kv.add_vectors(words, np.random.default_rng(0).normal(size=(len(words), width)).astype(np.float32))
    path = tmp_path / "vectors.txt"
    kv.save_word2vec_format(str(path), write_header=header)
    if header:
        assert detect_format(path) == "word2vec"
    table = load_static_vectors(path, format="auto" if header else "glove")
    assert table.keys == words
    np.testing.assert_array_equal(table.vectors, kv.vectors)
    utf16 = tmp_path / "utf16.txt"  # text with NUL bytes is still refused, with the reason
    utf16.write_bytes(path.read_text(encoding="utf8").encode("utf-16-le"))
    with pytest.raises(CtxvecError, match="binary data \\(or UTF-16\\)"):
        load_static_vectors(utf16, format="glove")


@pytest.mark.parametrize("header", [True, False])
def test_a_file_cut_inside_its_last_row_warns(tmp_path, header):
    """A word2vec text file cut short in a row (a stopped download) read as fewer rows with
    a cut last value, silently; every writer of these formats ends each row with a line end."""
    rng = np.random.default_rng(0)
    kv = KeyedVectors(vector_size=5)
    kv.add_vectors([f"word{i}" for i in range(40)], rng.normal(size=(40, 5)).astype(np.float32))
    whole = tmp_path / "whole.txt"
    kv.save_word2vec_format(str(whole), write_header=header)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a whole file: no warning
        assert len(load_static_vectors(whole, format="auto" if header else "glove")) == 40
    text = whole.read_text(encoding="utf8")
    cut = tmp_path / "cut.txt"
    if header:  # cut inside its last row: the row count still matches the header
        cut.write_text(text.rstrip("\n")[:-3], encoding="utf8")
    else:  # cut inside row 21: 20 rows lost without a header to say so
        cut.write_text(text[: text.index("word20")] + text.splitlines()[20][:-3], encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W086\].*cut\.txt: its last row \('word(39|20)', 5 values\)"):
        table = load_static_vectors(cut, format="auto" if header else "glove")
    assert len(table) == (40 if header else 21)
    if header:
        cut.write_text(text.rstrip("\n")[: -len(text.splitlines()[-1]) - 1], encoding="utf8")  # a row short
        with pytest.raises(CtxvecError, match=r"\[CTX-E130\].*ends after 39 rows"):
            load_static_vectors(cut)
