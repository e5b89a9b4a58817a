"""spacy_ctxvec.data_files: .npy arrays and word2vec tables written where they are given, and
.npy arrays read back (any damage a ValueError)."""

import re

import numpy as np
import pytest

from spacy_ctxvec.data_files import read_npy, save_npy, save_word2vec
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


def write_npy_header(path, header):
    """Replace the (version 1.0) header of the .npy file ``path`` by ``header``, keeping its data."""
    data = path.read_bytes()
    text = header.encode("latin1") + b"\n"
    end = 10 + int.from_bytes(data[8:10], "little")
    path.write_bytes(data[:8] + len(text).to_bytes(2, "little") + text + data[end:])


@pytest.mark.parametrize("mmap", [True, False])
def test_read_npy_maps_or_copies_and_gives_a_value_error_for_any_damage(tmp_path, mmap):
    path = tmp_path / "counts.npy"
    np.save(path, np.arange(7, dtype=np.int64))
    array = read_npy(path, mmap=mmap)
    assert isinstance(array, np.memmap) == mmap and np.array_equal(array, np.arange(7))
    damages = {
        # numpy's parser of old headers lets tokenize.TokenError (an unterminated string) out
        "{'descr': '<i8', 'fortran_order': False, 'shape': (7L,), '''": "TokenError",
        # numpy allocates what a header declares before it reads: mapped first, it is a short file
        "{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999,), }": "mmap length is greater",
    }
    for header, problem in damages.items():
        write_npy_header(path, header)
        with pytest.raises(ValueError, match=re.escape(problem)):
            read_npy(path, mmap=mmap)
    path.write_bytes(b"\x80\x04not an npy file")  # a pickle's start: never unpickled
    with pytest.raises(ValueError, match="not an .npy file"):
        read_npy(path, mmap=mmap)
