"""lexicon.sense: a Sense prints short (word, index, share, label; vectors by shape) and
compares on the same fields as before it knew its word."""

from dataclasses import fields, replace

import pytest

from spacy_ctxvec.lexicon.sense import Sense
from spacy_ctxvec.lexicon.sense_induction import induce_inventory

from .test_lexicon_sense_inventory import WIDTH, lexicon_with_sample, synthetic


@pytest.fixture(scope="module")
def inventory():
    keys, vectors, _, _ = synthetic()
    return induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)


def test_a_sense_prints_short_and_compares_as_before(inventory):
    sense = inventory.senses_of("Bank")[0]
    shown = repr(sense)
    assert shown.startswith(f"Sense(word='bank', index=0, share={sense.share:.3f}, label={sense.label!r}, examples=")
    assert f"vector=<({WIDTH},) float32>, centroid=<({WIDTH},) float32>)" in shown
    assert len(shown) < 200 and "array" not in shown and str(sense) == shown
    assert [f.name for f in fields(Sense) if f.compare] == [
        "index",
        "share",
        "vector",
        "centroid",
        "examples",
        "label_words",
    ]
    assert replace(sense, word="other") == sense and replace(sense, word="") != replace(sense, index=1)
    assert repr(replace(sense, word="")).startswith("Sense(index=0, ")


def test_an_inventory_problem_pickles_with_its_problem():
    """A worker process's E600 came back as "[CTX-E600] Sense inventory: [CTX-E600] ..."."""
    import pickle

    from spacy_ctxvec.lexicon.sense import InventoryProblem

    error = pickle.loads(pickle.dumps(InventoryProblem("3 labels for 4 senses")))
    assert error.problem == "3 labels for 4 senses" and str(error).count("[CTX-E600]") == 1
