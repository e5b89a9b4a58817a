"""How ctxvec_polysemy looks tokens up: key tables, rows, records, and the checks that the
Doc's vectors are those of the lexicon."""

import numpy as np
import pytest

from spacy_ctxvec.attributes import CONTEXT_SOURCE, POLYSEMY_DTYPE, set_doc_value
from spacy_ctxvec.building.shard import partial_lexicon
from spacy_ctxvec.components.model_inputs import pipeline_model_fingerprint
from spacy_ctxvec.components.polysemy_lookup import key_table, look_up, polysemy_records, score_table
from spacy_ctxvec.errors import CtxvecError, Errors
from spacy_ctxvec.lexicon.statistics import CONTEXT_VECTORS_META

TEXTS = ["the bank of the river", "the bank gave a loan", "a river and a bank"]


@pytest.fixture(scope="module")
def table(tiny_nlp):
    lexicon = partial_lexicon(tiny_nlp, TEXTS, batch_size=2)
    return score_table(lexicon, None, 2, "self_similarity", None), lexicon


def test_key_table_finds_each_key_and_its_position():
    keys = ["river", "bank", "the"]
    found = key_table(keys, "made so")
    assert found["context_vectors"] == "made so"
    assert sorted(found["rows"].tolist()) == [0, 1, 2]
    assert np.all(np.diff(found["hashes"].astype(np.float64)) > 0)


def test_records_give_counts_scores_and_shifts_of_known_words(tiny_nlp, table):
    scores, lexicon = table
    doc = tiny_nlp("the bank of a zebra")
    records = polysemy_records(doc, scores, key="lower", name="ctxvec_polysemy")
    assert records.dtype == POLYSEMY_DTYPE
    assert records["count"].tolist() == [
        lexicon.counts[lexicon.index(w)] if w in lexicon else 0 for w in ["the", "bank", "of", "a", "zebra"]
    ]
    assert not records["has_score"][4] and not records["has_shift"][4]
    assert records["has_shift"][1] and 0.0 <= records["shift"][1] <= 2.0
    assert len(polysemy_records(doc, None, key="lower", name="x")) == 5


def test_the_lexicon_records_how_its_vectors_were_made_and_other_docs_are_refused(tiny_nlp, table):
    scores, lexicon = table
    made = tiny_nlp(TEXTS[0])._.ctxvec_context_source
    model = pipeline_model_fingerprint(tiny_nlp)  # the transformer before ctxvec_context
    assert lexicon.meta[CONTEXT_VECTORS_META] == made == scores["context_vectors"]
    assert made == f"the last layer, pooled by pool_mean, model {model}"
    doc = tiny_nlp("the bank")
    set_doc_value(doc, CONTEXT_SOURCE, "layer 1 of 2, pooled by pool_mean")
    with pytest.raises(CtxvecError, match=r"CTX-E043.*'ctxvec_polysemy'.*'layer 1 of 2"):
        look_up(doc, scores, key="lower", width=lexicon.width, width_error=Errors.E219, name="ctxvec_polysemy")
    set_doc_value(doc, CONTEXT_SOURCE, None)  # a Doc saved before the label existed: not checked
    vectors, mask, found, rows = look_up(
        doc, scores, key="lower", width=lexicon.width, width_error=Errors.E219, name="p"
    )
    assert found.tolist() == [True, True] and mask.all() and vectors.shape == (2, lexicon.width)
    with pytest.raises(CtxvecError, match="E219"):
        look_up(doc, scores, key="lower", width=lexicon.width + 1, width_error=Errors.E219, name="p")
