"""export_sense_vectors: one row per sense keyed word|k, loadable by ctxvec_static's file source."""

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.export import export_sense_vectors, sense_key, sense_labels_tsv
from spacy_ctxvec.lexicon.sense_induction import induce_inventory
from spacy_ctxvec.lexicon.sense_inventory import SenseInventory
from spacy_ctxvec.ops.senses import SenseSpace
from spacy_ctxvec.static.formats import load_static_vectors

from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic


def test_sense_rows_load_as_static_vectors(tmp_path):
    keys, vectors, river, money = synthetic()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)
    n = export_sense_vectors(inventory, tmp_path / "senses.txt")
    assert n == inventory.n_senses_total == 32  # 30 one-sense words + 2 senses of bank
    table = load_static_vectors(tmp_path / "senses.txt")
    assert len(table) == n and "bank|0" in table and "bank|1" in table and "bank|2" not in table and "bank" not in table
    for sense in inventory.senses_of("bank"):
        np.testing.assert_allclose(table.get(sense_key("bank", sense.index)), sense.vector, atol=1e-5)
    assert np.linalg.norm(table.get("bank|1") - table.get("bank|0")) > 1.0
    export_sense_vectors(inventory, tmp_path / "unit.txt", unit=True)
    unit = load_static_vectors(tmp_path / "unit.txt")
    assert np.linalg.norm(unit.get("bank|1")) == pytest.approx(1.0, abs=1e-5)


def test_sense_rows_come_by_descending_word_count_each_words_senses_in_order(tmp_path):
    from gensim.models import KeyedVectors

    keys, vectors, _, _ = synthetic()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)
    counts = np.arange(len(inventory))
    counts[inventory.index("bank")] = 10_000  # the most frequent word
    export_sense_vectors(inventory, tmp_path / "senses.txt", counts=counts)
    written = KeyedVectors.load_word2vec_format(str(tmp_path / "senses.txt")).index_to_key
    assert written[:3] == ["bank|0", "bank|1", sense_key(inventory.keys[-1], 0)]
    labelled = [line.split("\t")[0] for line in sense_labels_tsv(inventory, counts).splitlines()[1:]]
    assert labelled == written  # row for row (a projector's metadata file pairs them by position)
    assert written[3:] == [sense_key(key, 0) for key in reversed(inventory.keys) if key != "bank"][1:]


def test_keys_that_word2vec_text_cannot_hold_are_left_out(tmp_path):
    space = SenseSpace(np.zeros(3), np.zeros((0, 3)))
    inventory = SenseInventory(
        space,
        ["New York", "bank"],
        np.array([0, 2, 3]),
        np.eye(3),
        np.arange(9.0).reshape(3, 3),
        np.array([0.5, 0.5, 1.0]),
        [["a"], ["b"], ["c"]],
    )
    with pytest.warns(UserWarning, match=r"W057.*1 word and its senses left out.*'New York'"):
        assert export_sense_vectors(inventory, tmp_path / "v.txt") == 1
    table = load_static_vectors(tmp_path / "v.txt")
    assert len(table) == 1 and "bank|0" in table
    np.testing.assert_allclose(table.get("bank|0"), [6.0, 7.0, 8.0])


# Issue 23: a file without rows is never written
def test_min_count_above_every_type_is_a_coded_error_and_writes_nothing(tmp_path):
    from spacy_ctxvec.lexicon.export import export_static_vectors
    from spacy_ctxvec.lexicon.statistics import Lexicon

    lexicon = Lexicon.from_occurrences(["bank", "bank", "hotel", "New York"], np.eye(4)[:, :3] + 0.1)
    assert export_static_vectors(lexicon, tmp_path / "ok.txt", min_count=2) == 1  # 'New York' is below it: no W057
    with pytest.warns(UserWarning, match=r"W057.*1 type left out of the vectors file.*'New York'"):
        assert export_static_vectors(lexicon, tmp_path / "all.txt", min_count=1) == 2
    with pytest.raises(CtxvecError, match=r"E743.*--min-count 100000 .*most frequent occurs 2 times.*--min-count 2"):
        export_static_vectors(lexicon, tmp_path / "v.txt", min_count=100_000)
    only_unwritable = Lexicon.from_occurrences(["New York", "\n"], np.ones((2, 3)))
    with pytest.raises(CtxvecError, match=r"E743.*none of the lexicon's 2 types has a key"):
        export_static_vectors(only_unwritable, tmp_path / "v.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.txt", "ok.txt"]


def test_senses_without_a_writable_key_are_a_coded_error_and_write_nothing(tmp_path):
    space = SenseSpace(np.zeros(3), np.zeros((0, 3)))
    inventory = SenseInventory(
        space, ["New York"], np.array([0, 1]), np.eye(3)[:1], np.ones((1, 3)), np.array([1.0]), [["a"]]
    )
    with pytest.raises(CtxvecError, match=r"E743.*no sense with a key"):
        export_sense_vectors(inventory, tmp_path / "v.txt")
    empty = SenseInventory(space, [], np.array([0]), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), [])
    # No word reached min_count: say so, not "build senses" (they were built).
    with pytest.raises(CtxvecError, match=r"E743.*has no words .*lower build-lexicon --min-count") as caught:
        export_sense_vectors(empty, tmp_path / "v.txt")
    assert "--senses" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_export_static_cli_min_count_too_high_is_one_line_and_writes_nothing(tmp_path):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app
    from spacy_ctxvec.lexicon.statistics import Lexicon

    Lexicon.from_occurrences(["bank", "bank", "hotel"], np.ones((3, 3))).to_disk(tmp_path / "lex")
    result = CliRunner().invoke(
        app, ["export-static", str(tmp_path / "lex"), str(tmp_path / "v.txt"), "--min-count", "100000"]
    )
    assert result.exit_code == 1 and "E743" in result.output and "Traceback" not in result.output, result.output
    assert isinstance(result.exception, SystemExit) and not (tmp_path / "v.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lex"]  # no temporary file left either


def test_a_centroid_of_zero_is_written_with_a_warning(tmp_path):
    """Occurrences whose vectors cancel (a pooling's +e0 and -e0) gave a zero row, silently,
    even under --unit (a unit-length file with a row of length 0)."""
    from spacy_ctxvec.lexicon.export import export_static_vectors
    from spacy_ctxvec.lexicon.statistics import Lexicon

    lexicon = Lexicon.from_occurrences(["bank", "bank", "hotel"], np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0]]))
    for unit in (False, True):
        with pytest.warns(UserWarning, match=r"\[CTX-W090\] 1 word has an all-zero centroid \(first: 'bank'\)"):
            assert export_static_vectors(lexicon, tmp_path / f"{unit}.txt", unit=unit) == 2
