"""static.npy_format: an .npy matrix with its vocab file, and the first row of a word listed twice."""

import logging

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.static.npy_format import first_wins, read_npy_vectors


def test_an_npy_matrix_reads_with_its_vocab_file_as_float32(tmp_path):
    np.save(tmp_path / "m.npy", np.arange(6, dtype=np.float64).reshape(3, 2))
    (tmp_path / "m.vocab.txt").write_text("\ufeffapple\nbank\npear\n", encoding="utf8")
    table = read_npy_vectors(tmp_path / "m.npy")
    assert table.keys == ["apple", "bank", "pear"] and table.vectors.dtype == np.float32
    np.testing.assert_array_equal(table.vectors[1], [2.0, 3.0])


def test_a_file_that_is_not_npy_is_never_unpickled(tmp_path):
    (tmp_path / "m.npy").write_bytes(b"\x80\x04K\x01.")  # a pickle of the number 1
    (tmp_path / "m.vocab.txt").write_text("apple\n", encoding="utf8")
    with pytest.raises(ValueError, match="not an .npy file"):
        read_npy_vectors(tmp_path / "m.npy")


def test_the_first_row_of_a_word_listed_twice_wins_with_w001(tmp_path, caplog):
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]], dtype=np.float32)
    with caplog.at_level(logging.WARNING, logger="spacy_ctxvec.static.formats"):
        table = first_wins(tmp_path / "v.txt", ["bank", "river", "bank"], vectors)
    assert table.keys == ["bank", "river"] and table.vectors.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert "W001" in caplog.text
    with pytest.raises(CtxvecError, match=r"E108.*has 1 words.*3 rows"):
        np.save(tmp_path / "x.npy", vectors)
        (tmp_path / "x.vocab.txt").write_text("bank\n", encoding="utf8")
        read_npy_vectors(tmp_path / "x.npy")


def test_vocab_lines_read_as_the_text_formats_read_words(tmp_path):
    """A blank line became the key '' and "a " the key 'a ', which no token matches."""
    np.save(tmp_path / "m.npy", np.eye(3, dtype=np.float32))
    (tmp_path / "m.vocab.txt").write_text("apple \n\tpear\nplum\n\n\n", encoding="utf8")
    assert read_npy_vectors(tmp_path / "m.npy").keys == ["apple", "pear", "plum"]  # trailing blank lines too
    (tmp_path / "m.vocab.txt").write_text("apple\n \nplum\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E147\].*m\.vocab\.txt, line 2: blank"):
        read_npy_vectors(tmp_path / "m.npy")
