"""export_sense_vectors: one row per sense keyed word|k, loadable by ctxvec_static's file source."""

import numpy as np
import pytest

from spacy_ctxvec.lexicon.export import export_sense_vectors, sense_key
from spacy_ctxvec.lexicon.sense_inventory import SenseInventory, induce_inventory
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
    assert export_sense_vectors(inventory, tmp_path / "v.txt") == 1
    table = load_static_vectors(tmp_path / "v.txt")
    assert len(table) == 1 and "bank|0" in table
    np.testing.assert_allclose(table.get("bank|0"), [6.0, 7.0, 8.0])
