"""spacy_ctxvec.data_files: .npy arrays and word2vec tables written where they are given."""

import numpy as np
import pytest

from spacy_ctxvec.data_files import save_npy, save_word2vec
from spacy_ctxvec.errors import CtxvecError


def test_save_npy_replaces_a_file_that_is_mapped_without_cutting_what_the_map_reads(tmp_path):
    path = tmp_path / "sums.npy"
    np.save(path, np.arange(1000, dtype=np.float64))
    mapped = np.load(path, mmap_mode="r")
    save_npy(path, mapped * 2)  # np.save into the mapped file cut it short under the map
    assert np.array_equal(np.load(path), np.arange(1000) * 2)
    assert float(mapped[999]) == 999.0  # the old mapping still reads the old file (POSIX)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sums.npy"]


def test_save_npy_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "keys.npy"
    np.save(path, np.arange(3))
    with pytest.raises(ValueError):
        save_npy(path, np.array([object()], dtype=object))  # never pickled
    assert np.array_equal(np.load(path), np.arange(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.npy"]


def test_save_word2vec_writes_a_tilde_path_as_given_and_refuses_a_directory(tmp_path, monkeypatch):
    from gensim.models import KeyedVectors

    table = KeyedVectors(vector_size=2)
    table.add_vectors(["bank"], np.ones((1, 2), dtype=np.float32))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    save_word2vec(table, "~/sub/v.txt")
    assert (tmp_path / "~" / "sub" / "v.txt").read_text(encoding="utf8").startswith("1 2\n")
    assert not (tmp_path / "home").exists()
    with pytest.raises(CtxvecError, match=r"CTX-E703.*it is a directory"):
        save_word2vec(table, tmp_path)
