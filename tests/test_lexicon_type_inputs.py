"""spacy_ctxvec.lexicon.type_inputs: the lexicon types' input embeddings as a data
object, tied to the lexicon's keys, checked on load (issue 23)."""

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.lexicon.storage import parts_to_bytes
from spacy_ctxvec.lexicon.type_inputs import TypeInputs, keys_digest


@pytest.fixture
def lexicon():
    return Lexicon.from_occurrences(["bank", "bank", "river"], np.random.default_rng(0).normal(size=(3, 4)))


def test_round_trips_on_disk_and_in_bytes(lexicon, tmp_path):
    inputs = TypeInputs.for_keys(np.arange(10, dtype=np.float16).reshape(2, 5), lexicon.keys)
    assert len(inputs) == 2 and inputs.width == 5 and inputs.digest == keys_digest(lexicon.keys)
    inputs.to_disk(tmp_path / "inputs")
    assert TypeInputs.from_disk(tmp_path / "inputs") == inputs == TypeInputs.from_bytes(inputs.to_bytes())
    np.testing.assert_array_equal(inputs.check_lexicon(lexicon, "here"), inputs.vectors)
    older = TypeInputs.from_bytes(parts_to_bytes({"inputs": inputs.vectors}, {}))  # component bytes before the digest
    assert older.digest is None and older.problem_with(lexicon) is None


def test_input_embeddings_of_other_keys_or_row_counts_are_e652(lexicon):
    inputs = TypeInputs.for_keys(np.ones((2, 5), dtype=np.float16), ["bank", "hotel"])
    with pytest.raises(CtxvecError, match="E652.*here.*other lexicon keys"):
        inputs.check_lexicon(lexicon, "here")
    with pytest.raises(CtxvecError, match="E652.*3 rows for 2 lexicon types"):
        TypeInputs(np.ones((3, 5)), keys_digest(lexicon.keys)).check_lexicon(lexicon, "here")
    with pytest.raises(CtxvecError, match="E652.*1 rows for 2 lexicon types"):
        TypeInputs.for_keys(np.ones((1, 5)), lexicon.keys)


@pytest.mark.parametrize(
    "vectors", [np.ones(5), np.ones((2, 5), dtype=np.int64), np.array([[1.0, np.nan], [0.0, 1.0]])]
)
def test_arrays_that_are_not_finite_float_tables_are_e652(vectors):
    with pytest.raises(CtxvecError, match="E652.*finite 2-D float array"):
        TypeInputs(vectors, "0123")


def test_a_damaged_or_mismatched_saved_header_is_e652_naming_the_path(lexicon, tmp_path):
    TypeInputs.for_keys(np.ones((2, 5), dtype=np.float16), lexicon.keys).to_disk(tmp_path / "inputs")
    header = tmp_path / "inputs" / "inputs.json"
    for text, problem in (
        ('{"n_types": 3, "keys_digest": "x"}', "declares 3 types, the array holds 2"),
        ('{"n_types": 2}', "has no 'keys_digest'"),
        ("[1, 2]", "has no 'keys_digest'"),
        ("{not json", "inputs.json is not valid JSON"),
    ):
        header.write_text(text, encoding="utf8")
        with pytest.raises(CtxvecError, match=f"E652.*{tmp_path.name}.*inputs.*{problem}"):
            TypeInputs.from_disk(tmp_path / "inputs")
    with pytest.raises(CtxvecError, match="E652.*damaged serialised input embeddings"):
        TypeInputs.from_bytes(b"\x00garbage")
