"""lexicon/storage.py: .npy + JSON parts on disk and msgpack bytes round trip exactly, and
every damaged, missing or pickled part is the caller's coded error, never unpickled."""

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import srsly

from spacy_ctxvec.errors import CtxvecError, Errors
from spacy_ctxvec.lexicon import storage

from .test_data_files import write_npy_header

ARRAYS = {
    "sums": np.arange(12, dtype=np.float64).reshape(3, 4) / 7,
    "counts": np.array([3, 1, 2], dtype=np.int64),
    "half": np.array([[0.5, -1.25]], dtype=np.float16),
}
DOCUMENTS = {"keys.json": ["bank", "river", "zürich"], "header.json": {"format_version": 1, "width": 4}}


def lexicon_error(source: str, problem: str) -> CtxvecError:
    return CtxvecError(Errors.E207.format(path=source, problem=problem))


def assert_same_arrays(loaded, expected):
    assert set(loaded) == set(expected)
    for name, array in expected.items():
        assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array), name


class Words(storage.KeyedRows):
    def __init__(self, keys):
        self.keys = keys


def test_keyed_rows_len_in_and_index():
    words = Words(["bank", "river"])
    assert len(words) == 2
    assert "river" in words and "loan" not in words and 3 not in words
    assert words.index("bank") == 0 and words.index("river") == 1 and words.index("loan") is None


def test_check_header_and_check_strings():
    def bad(problem):
        return lexicon_error("here", problem)

    header = {"format_version": 2, "x": 1}
    assert storage.check_header(header, 2, bad) is header
    for wrong in ({"format_version": 1}, ["format_version", 2], None, {"x": "y" * 1000}):
        with pytest.raises(CtxvecError, match="E207.*unsupported format") as info:
            storage.check_header(wrong, 2, bad)
        assert len(str(info.value)) < 600
    assert storage.check_strings(["a", "b"], "keys.json", bad) == ["a", "b"]
    for wrong in ("ab", ["a", 1], {"a": "b"}):
        with pytest.raises(CtxvecError, match="E207.*keys.json is not a list of strings"):
            storage.check_strings(wrong, "keys.json", bad)


def test_disk_round_trip_keeps_values_and_dtypes(tmp_path):
    storage.save_parts(tmp_path / "parts", ARRAYS, DOCUMENTS)
    assert sorted(p.name for p in (tmp_path / "parts").iterdir()) == sorted(
        [*DOCUMENTS, *(f"{name}.npy" for name in ARRAYS)]
    )
    documents, arrays = storage.load_parts(tmp_path / "parts", list(ARRAYS), list(DOCUMENTS), lexicon_error)
    assert documents == DOCUMENTS
    assert_same_arrays(arrays, ARRAYS)
    _, mapped = storage.load_parts(tmp_path / "parts", ["sums"], [], lexicon_error, mmap=True)
    assert isinstance(mapped["sums"], np.memmap) and np.array_equal(mapped["sums"], ARRAYS["sums"])


def test_optional_arrays_load_when_present_and_are_none_when_absent(tmp_path):
    storage.save_parts(tmp_path, {"counts": ARRAYS["counts"]}, {})
    _, arrays = storage.load_parts(tmp_path, [], [], lexicon_error, optional_arrays=["counts", "inputs"])
    assert arrays["inputs"] is None and np.array_equal(arrays["counts"], ARRAYS["counts"])


def test_missing_parts_are_named(tmp_path):
    storage.save_parts(tmp_path, {"counts": ARRAYS["counts"]}, {"keys.json": ["a"]})
    with pytest.raises(CtxvecError, match=r"E207.*missing header.json, sums.npy") as info:
        storage.load_parts(tmp_path, ["sums", "counts"], ["keys.json", "header.json"], lexicon_error)
    assert str(tmp_path) in str(info.value)


@pytest.mark.parametrize("text", ["{not json", "", "[" * 100_000])
def test_invalid_json_is_a_coded_error(tmp_path, text):
    storage.save_parts(tmp_path, ARRAYS, DOCUMENTS)
    (tmp_path / "keys.json").write_text(text, encoding="utf8")
    with pytest.raises(CtxvecError, match="E207.*keys.json is not valid JSON"):
        storage.load_parts(tmp_path, list(ARRAYS), list(DOCUMENTS), lexicon_error)


@pytest.mark.parametrize("mmap", [False, True])
def test_a_truncated_npy_is_a_coded_error(tmp_path, mmap):
    storage.save_parts(tmp_path, ARRAYS, DOCUMENTS)
    data = (tmp_path / "sums.npy").read_bytes()
    (tmp_path / "sums.npy").write_bytes(data[: len(data) - 10])
    with pytest.raises(CtxvecError, match="E207.*sums.npy is truncated or not a .npy array"):
        storage.load_parts(tmp_path, list(ARRAYS), list(DOCUMENTS), lexicon_error, mmap=mmap)


@pytest.mark.parametrize(
    "header",
    [
        "{'descr': '<i8', 'fortran_order': False, 'shape': (7L,), '''",  # numpy lets tokenize.TokenError out
        "{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999,), }",  # loaded whole: a MemoryError
    ],
    ids=["unparsable", "huge-shape"],
)
@pytest.mark.parametrize("mmap", [False, True])
def test_a_damaged_npy_header_is_a_coded_error(tmp_path, header, mmap):
    storage.save_parts(tmp_path, ARRAYS, DOCUMENTS)
    write_npy_header(tmp_path / "counts.npy", header)
    with pytest.raises(CtxvecError, match="E207.*counts.npy is truncated or not a .npy array"):
        storage.load_parts(tmp_path, list(ARRAYS), list(DOCUMENTS), lexicon_error, mmap=mmap)


def test_a_pickled_npy_is_refused_not_unpickled(tmp_path):
    storage.save_parts(tmp_path, ARRAYS, DOCUMENTS)
    np.save(tmp_path / "counts.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(CtxvecError, match="E207.*counts.npy"):
        storage.load_parts(tmp_path, list(ARRAYS), list(DOCUMENTS), lexicon_error)


def test_bytes_round_trip_keeps_values_and_dtypes():
    documents = {"header": DOCUMENTS["header.json"], "keys": DOCUMENTS["keys.json"], "sample": b"\x00raw"}
    data = storage.parts_to_bytes(ARRAYS, documents)
    loaded_documents, arrays = storage.parts_from_bytes(
        data, list(ARRAYS), ["header", "keys"], lexicon_error, what="lexicon", optional=["sample", "probe"]
    )
    assert loaded_documents == {**documents, "probe": None}
    assert_same_arrays(arrays, ARRAYS)
    _, with_optional = storage.parts_from_bytes(
        data, [], [], lexicon_error, what="lexicon", optional_arrays=["counts", "inputs"]
    )
    assert with_optional["inputs"] is None and np.array_equal(with_optional["counts"], ARRAYS["counts"])


def damaged_messages():
    good = storage.parts_to_bytes(ARRAYS, {"header": {"format_version": 1}, "keys": ["a"]})
    yield "truncated", good[: len(good) // 2]
    yield "not msgpack", b"\xc1\xc1\xc1"
    yield "empty", b""
    yield "a list", srsly.msgpack_dumps([1, 2, 3])
    yield "no arrays", srsly.msgpack_dumps({"header": {}, "keys": []})
    yield "array missing", storage.parts_to_bytes({"sums": ARRAYS["sums"]}, {"header": {}, "keys": []})
    yield "array not npy", srsly.msgpack_dumps({"header": {}, "keys": [], "arrays": {n: b"xx" for n in ARRAYS}})
    pickled = dict(srsly.msgpack_loads(good))
    buffer = io.BytesIO()
    np.save(buffer, np.array([object()], dtype=object), allow_pickle=True)
    pickled["arrays"] = {**pickled["arrays"], "counts": buffer.getvalue()}
    yield "pickled array", srsly.msgpack_dumps(pickled)
    yield "document missing", storage.parts_to_bytes(ARRAYS, {"keys": ["a"]})


@pytest.mark.parametrize("case,data", list(damaged_messages()), ids=[case for case, _ in damaged_messages()])
def test_damaged_bytes_are_a_coded_error(case, data):
    with pytest.raises(CtxvecError, match=f"E207.*{storage.BYTES_SOURCE}.*damaged serialised lexicon"):
        storage.parts_from_bytes(data, list(ARRAYS), ["header", "keys"], lexicon_error, what="lexicon")


def test_save_writes_the_documents_after_the_arrays_and_in_order(tmp_path, monkeypatch):
    """The header goes last, so that a directory with a header is complete."""
    written = []
    original_save, original_write = np.save, Path.write_text

    def recording_save(file, *args, **kwargs):  # each array is written beside (.NAME.tmp-...) and renamed
        written.append(re.sub(r"^\.(.+)\.tmp-.*(\.npy)$", r"\1\2", Path(file).name))
        return original_save(file, *args, **kwargs)

    def recording_write(self, *args, **kwargs):
        written.append(self.name)
        return original_write(self, *args, **kwargs)

    monkeypatch.setattr(np, "save", recording_save)
    monkeypatch.setattr(Path, "write_text", recording_write)
    storage.save_parts(tmp_path, ARRAYS, DOCUMENTS)
    assert written == [*(f"{name}.npy" for name in ARRAYS), *DOCUMENTS]
    assert json.loads((tmp_path / "header.json").read_text(encoding="utf8")) == DOCUMENTS["header.json"]


def test_string_lists_name_the_first_entry_that_is_not_one():
    def bad(problem):
        return CtxvecError(problem)

    assert storage.check_string_lists([["a"], []], "labels", bad, "words") == [["a"], []]
    with pytest.raises(CtxvecError, match=r"^labels is not a list of lists of strings \(words\)$"):
        storage.check_string_lists("a", "labels", bad, "words")
    with pytest.raises(CtxvecError, match=r"entry 1 is \['b', 2\] \(words\)"):
        storage.check_string_lists([["a"], ["b", 2], "c"], "labels", bad, "words")


def test_positive_numbers_are_finite_and_not_bools():
    assert storage.is_positive_number(0.5) and storage.is_positive_number(2)
    assert not any(storage.is_positive_number(v) for v in (0, -1.0, float("nan"), float("inf"), True, "1", None))
