"""spacy_ctxvec.lexicon.occurrence_keys: occurrence priorities and snippets, the same
in every process and on every platform."""

import json
import subprocess
import sys

import numpy as np

from spacy_ctxvec.lexicon.occurrence_keys import (
    PASSAGE_TOKENS,
    first_in_passage,
    occurrence_priorities,
    passage_of,
    passage_priorities,
    ranks_in_passage,
    snippet_from_offsets,
    text_hash,
    word_hashes,
)


def test_priorities_are_deterministic_across_processes():
    hashes = np.array([text_hash("The bank of the river."), text_hash("caf\u00e9 \U0001f600")], dtype=np.uint64)
    here = occurrence_priorities(hashes, np.array([0, 3])).tolist()
    code = (
        "import numpy as np;"
        "from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities as p, text_hash as h;"
        "hashes = np.array([h('The bank of the river.'), h('caf\\u00e9 \\U0001f600')], dtype=np.uint64);"
        "print(p(hashes, np.array([0, 3])).tolist())"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONHASHSEED": "123"}, check=True
    )
    assert json.loads(other.stdout) == here
    assert len(set(occurrence_priorities(np.full(1000, hashes[0]), np.arange(1000)).tolist())) == 1000
    assert text_hash("a") != text_hash("b") and 0 <= text_hash("a") < 2**64


def test_snippet_from_offsets_brackets_the_word():
    text = "I want to eat an apple."
    starts, lengths = np.array([0, 2, 7, 10, 14, 17, 22]), np.array([1, 4, 2, 3, 2, 5, 1])
    assert snippet_from_offsets(text, starts, lengths, 5) == "… want to eat an [apple]."
    assert snippet_from_offsets(text, starts, lengths, 0, window=2) == "[I] want to …"


def test_a_cut_window_starts_at_a_word_not_at_punctuation():
    import spacy

    doc = spacy.blank("en")("Yesterday, -- as usual, the bank was closed.")
    starts, lengths = [t.idx for t in doc], [len(t) for t in doc]
    bank = [t.text for t in doc].index("bank")
    # Four tokens back is "as"; two back is ",", which a snippet no longer starts at.
    assert snippet_from_offsets(doc.text, starts, lengths, bank, window=4) == "… as usual, the [bank] was closed."
    assert snippet_from_offsets(doc.text, starts, lengths, bank, window=2) == "… the [bank] was closed …"
    # From the text's start nothing is dropped; a window of punctuation alone keeps the word.
    assert snippet_from_offsets(doc.text, starts, lengths, 1, window=1) == "Yesterday[,] -- …"
    assert snippet_from_offsets(doc.text, starts, lengths, 3, window=1) == "… [as] usual …"


def test_ranks_in_passage_count_earlier_occurrences_of_the_type_in_the_passage():
    rng = np.random.default_rng(0)
    tokens = rng.permutation(3 * 3 * PASSAGE_TOKENS)[:400]  # 400 tokens of 3 documents of 3 passages
    docs, positions, types = tokens // (3 * PASSAGE_TOKENS), tokens % (3 * PASSAGE_TOKENS), rng.integers(0, 4, 400)
    passages = positions // PASSAGE_TOKENS
    expected = [
        sum(
            1
            for j in range(400)
            if (docs[j], types[j], passages[j]) == (docs[i], types[i], passages[i]) and positions[j] < positions[i]
        )
        for i in range(400)
    ]
    assert ranks_in_passage(docs, positions, types).tolist() == expected
    assert ranks_in_passage(np.zeros(0), np.zeros(0), np.zeros(0)).tolist() == []


def test_passage_priorities_take_one_occurrence_per_passage_first_and_keep_the_passage():
    text = text_hash("a long document")
    positions = np.array([3, 10, PASSAGE_TOKENS + 1, PASSAGE_TOKENS + 7, 5 * PASSAGE_TOKENS])
    ranks = np.array([0, 1, 0, 1, 0])
    word = np.full(5, text_hash("bank"), dtype=np.uint64)
    priorities = passage_priorities(np.full(5, text, dtype=np.uint64), word, positions, ranks)
    assert priorities.dtype == np.uint64 and len(set(priorities.tolist())) == 5
    assert first_in_passage(priorities).tolist() == [True, False, True, False, True]
    assert priorities[ranks == 0].max() < priorities[ranks == 1].min()  # every first occurrence before a second
    passages = passage_of(priorities).tolist()
    assert passages[0] == passages[1] and passages[2] == passages[3] and len(set(passages)) == 3
    other = passage_priorities(np.full(5, text_hash("another document"), dtype=np.uint64), word, positions, ranks)
    assert not set(passage_of(other).tolist()) & set(passages)  # the same positions, another document
    capped = passage_priorities(np.full(2, text, dtype=np.uint64), word[:2], np.array([1, 2]), np.array([255, 10_000]))
    assert not first_in_passage(capped).any() and (capped >> np.uint64(56)).tolist() == [255, 255]


def test_each_word_draws_its_own_passages():
    """Two words in each of 2,000 passages: the 64 first passages of each by priority
    are different passages (with a passage order shared by all words, every frequent word
    would keep the same 64, and the corpus sense space would be fitted on those alone)."""
    docs = np.repeat(np.arange(2000), 2)
    hashes = np.array([text_hash(f"document {d}") for d in docs], dtype=np.uint64)
    positions, ranks = np.tile([3, 50], 2000), np.zeros(4000, dtype=np.int64)
    words = word_hashes(["the", "of"] * 2000)
    priorities = passage_priorities(hashes, words, positions, ranks)
    lowest = [set(docs[w::2][np.argsort(priorities[w::2])[:64]].tolist()) for w in (0, 1)]
    assert len(lowest[0] & lowest[1]) < 8
    assert word_hashes(["the"]).tolist() == [text_hash("the")] and word_hashes([]).dtype == np.uint64
