"""components.sense_annotation through the ctxvec_polysemy component on tiny models:
token._.sense_score, token._.sense_label and token._.corpus_polysemy beside token._.sense."""

import numpy as np
import pytest

from spacy_ctxvec.attributes import SENSE_ARRAY, SENSE_DTYPE, SENSE_LABELS
from spacy_ctxvec.components.sense_annotation import sense_annotations
from spacy_ctxvec.lexicon.sense_induction import induce_inventory

from .test_lexicon_sense_induction import bank_snippets
from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic


@pytest.fixture(scope="module")
def inventory_and_data():
    keys, vectors, river, money = synthetic()
    lexicon = lexicon_with_sample(keys, vectors, snippets=bank_snippets(keys))
    return induce_inventory(lexicon, min_count=5), river, money


def test_annotations_hold_sense_score_label_and_corpus_polysemy(inventory_and_data):
    inventory, river, money = inventory_and_data
    rows = inventory.type_rows(["bank", "bank", "w00", "unseen", "bank"])
    vectors = np.stack([river, money, inventory.vectors[inventory.offsets[rows[2]]], river, river])
    mask = np.array([True, True, True, True, False])
    records, sense_vectors, labels = sense_annotations(inventory, vectors, mask, rows)
    assert records.dtype == SENSE_DTYPE
    assert records["sense"].tolist()[2:] == [0, -1, -1] and records["sense"][0] != records["sense"][1]
    assert (records["score"][:2] > 0.5).all() and records["score"][2] == 1.0 and not records["has_score"][3:].any()
    bank = inventory.corpus_polysemy_of("bank")
    assert records["corpus_polysemy"][[0, 1, 4]] == pytest.approx([bank] * 3, abs=1e-5)
    assert records["has_corpus_polysemy"].tolist() == [True, True, True, False, True]  # unseen: none
    senses = inventory.senses_of("bank")
    assert labels[:2] == (senses[records["sense"][0]].label, senses[records["sense"][1]].label)
    assert labels[3:] == ("", "")  # a tuple: stored read-only, as the Doc's arrays
    # the river-like vector gets the sense whose snippets speak of the river, the money-like one the other
    assert "river" in labels[0] and "money" not in labels[0] and "money" in labels[1] and "river" not in labels[1]
    np.testing.assert_array_equal(sense_vectors[4], 0.0)


def test_token_attributes_read_the_annotations(inventory_and_data):
    import spacy

    from spacy_ctxvec.attributes import install_extensions

    install_extensions()
    inventory, river, money = inventory_and_data
    doc = spacy.blank("en")("bank bank w00")
    rows = inventory.type_rows(["bank", "bank", "w00"])
    records, _, labels = sense_annotations(inventory, np.stack([river, money, river]), np.ones(3, bool), rows)
    doc._.set(SENSE_ARRAY, records)
    doc._.set(SENSE_LABELS, labels)
    assert 0.5 < doc[0]._.sense_score <= 1.0 and doc[2]._.sense_score == 1.0
    assert doc[0]._.sense_label == labels[0] != "" and doc[0]._.corpus_polysemy == pytest.approx(
        inventory.corpus_polysemy_of("bank"), abs=1e-5
    )
    old = np.zeros(3, dtype=[("sense", "i4"), ("n_senses", "i4")])  # a Doc saved before issue 21
    doc._.set(SENSE_ARRAY, old)
    doc._.set(SENSE_LABELS, None)
    assert doc[0]._.sense == 0 and doc[0]._.sense_score is None and doc[0]._.corpus_polysemy is None
    assert doc[0]._.sense_label is None
