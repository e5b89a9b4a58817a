"""Issue 21 on the shipped 146-line sample corpus with the real MiniLM pipeline: no
word gets a sense of fewer than 3 occurrences (7 occurrences never make 6 senses), and
every sense label is made of words from that word's sampled snippets."""

import re
from pathlib import Path

import numpy as np
import pytest

from spacy_ctxvec.building.shard import partial_lexicon
from spacy_ctxvec.components.polysemy import Polysemy

CORPUS = Path(__file__).resolve().parents[1] / "project_data" / "sample_corpus.txt"


@pytest.mark.slow
def test_sample_corpus_senses_have_support_and_labels_from_their_snippets(default_nlp):
    lines = [line for line in CORPUS.read_text(encoding="utf8").splitlines() if line.strip()]
    assert 100 <= len(lines) <= 200
    lexicon = partial_lexicon(default_nlp, lines, batch_size=16, sample_size=64).prune_sample(5)
    component = Polysemy(min_count=5)  # build-lexicon's defaults: min_count 5, K = 64
    component.set_lexicon(lexicon)
    inventory = component.build_senses()
    assert len(inventory) > 10
    n_labelled = 0
    for key in inventory.keys:
        rows, snippets = lexicon.sample.rows_of(key)
        senses = inventory.senses_of(key)
        if len(senses) > 1:
            assert all(round(sense.share * len(rows)) >= 3 for sense in senses), (key, len(rows))
        words_seen = {w.lower() for s in snippets for w in re.findall(r"[^\W\d_]+", re.sub(r"\[[^\]]*\]", " ", s))}
        for sense in senses:
            assert key not in sense.label_words and set(sense.label_words) <= words_seen, (key, sense.label_words)
            n_labelled += bool(sense.label_words)
    assert n_labelled > 0
    corpus_polysemy = [inventory.corpus_polysemy_of(key) for key in inventory.keys]
    assert all(value is None or np.isfinite(value) for value in corpus_polysemy)
    doc = component(default_nlp("We sat on the bank of the river."))
    bank = next(token for token in doc if token.lower_ == "bank")
    assert bank._.sense is not None and 0.0 <= bank._.sense_score <= 1.0
    assert bank._.sense_label == inventory.senses_of("bank")[bank._.sense].label
