"""spacy_ctxvec.lexicon.occurrence_keys: occurrence priorities and snippets, the same
in every process and on every platform."""

import json
import subprocess
import sys

import numpy as np

from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities, snippet_from_offsets, text_hash


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
