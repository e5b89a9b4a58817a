"""lexicon.sense: a Sense prints short (word, index, share, label; vectors by shape) and
compares on all fields but its word, the vectors value by value."""

from dataclasses import replace

import pytest

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
    assert replace(sense, word="other") == sense and replace(sense, word="") != replace(sense, index=1)
    # senses read apart hold arrays of their own: == raised numpy's "truth value of an array is ambiguous"
    copied = replace(sense, vector=sense.vector.copy(), centroid=sense.centroid.copy(), word="Bank")
    assert copied == sense and [copied] == [sense] and [sense].index(copied) == 0
    assert replace(sense, vector=sense.vector + 1) != sense and sense != "bank"
    assert repr(replace(sense, word="")).startswith("Sense(index=0, ")


def test_an_inventory_problem_pickles_with_its_problem():
    """A worker process's E600 came back as "[CTX-E600] Sense inventory: [CTX-E600] ..."."""
    import pickle

    from spacy_ctxvec.lexicon.sense import InventoryProblem

    error = pickle.loads(pickle.dumps(InventoryProblem("3 labels for 4 senses")))
    assert error.problem == "3 labels for 4 senses" and str(error).count("[CTX-E600]") == 1
