"""What identifies a sampled occurrence, whatever process reads it: a 64-bit priority
from a hash of the document text and the token's position (``occurrence_priorities``,
``text_hash``; the same on every machine and in every order of the corpus), and a short
context snippet (``snippet_from_offsets``). Pure numpy + stdlib.

``passage_priorities`` orders a word's occurrences so that a sample takes one occurrence
per passage (``PASSAGE_TOKENS`` tokens of a document, about one transformer window of the
default config) before a second one from any passage, and keeps which passage each row
came from (``passage_of``, ``first_in_passage``): occurrences that share a passage share
their context through attention, and are not independent evidence of how a word is used
(issue 21, benchmarks/quality/SENSE_EVIDENCE.md "Occurrences that share a line").
Bits, highest first: 8 for the occurrence's rank among the word's occurrences in its
passage (capped at 255), 32 of a hash of the passage and the word, 24 of the occurrence's
hash."""

import hashlib
from typing import Sequence

import numpy as np

from ..ops.text import has_word_character

SNIPPET_WINDOW = 4  # tokens of context either side of the word in a snippet
# Tokens per passage: the default config's strided windows are 128 wordpieces with a stride
# of 96 (about 100 and 75 tokens of English), so occurrences more than one passage apart
# rarely share a window.
PASSAGE_TOKENS = 96
_RANK_SHIFT, _PASSAGE_SHIFT = np.uint64(56), np.uint64(24)
_PASSAGE_MASK = np.uint64(0xFFFFFFFF)
_MAX_RANK = 255
_PASSAGE_SALT = np.uint64(0x5851F42D4C957F2D)  # keeps passage hashes apart from position hashes

# splitmix64 constants (Steele, Lea & Flood 2014)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


def text_hash(text: str) -> int:
    """64-bit blake2b of the UTF-8 text: the same in every process and on every platform
    (unlike Python's salted ``hash``). Unencodable surrogates are hashed escaped."""
    data = text.encode("utf8", errors="surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def occurrence_priorities(doc_text_hashes: np.ndarray, token_positions: np.ndarray) -> np.ndarray:
    """uint64 priority per occurrence: splitmix64(text hash XOR (position + 1) * golden)."""
    hashes = np.asarray(doc_text_hashes, dtype=np.uint64)
    positions = np.asarray(token_positions, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        return _splitmix(hashes ^ ((positions + np.uint64(1)) * _GOLDEN))


def _splitmix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser of uint64 values (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _MIX_1
        z = (z ^ (z >> np.uint64(27))) * _MIX_2
        return z ^ (z >> np.uint64(31))


def passage_priorities(
    doc_text_hashes: np.ndarray, key_hashes: np.ndarray, token_positions: np.ndarray, ranks_in_passage: np.ndarray
) -> np.ndarray:
    """uint64 priority per occurrence whose lowest values take one occurrence of a word per
    passage first (module docstring). ``key_hashes``: ``word_hashes`` of each occurrence's
    word type key (the passage bits hold it, so that each word draws its own passages, not
    the same ones for every frequent word); ``ranks_in_passage``: the occurrence's rank
    among the same word's occurrences in its passage (0 for the first), see
    ``ranks_in_passage``."""
    hashes = np.asarray(doc_text_hashes, dtype=np.uint64)
    positions = np.asarray(token_positions, dtype=np.int64)
    words = np.asarray(key_hashes, dtype=np.uint64)
    passages = _splitmix(occurrence_priorities(hashes ^ _PASSAGE_SALT, positions // PASSAGE_TOKENS) ^ words)
    occurrences = occurrence_priorities(hashes, positions)
    ranks = np.minimum(np.asarray(ranks_in_passage, dtype=np.int64), _MAX_RANK).astype(np.uint64)
    return (ranks << _RANK_SHIFT) | ((passages >> np.uint64(32)) << _PASSAGE_SHIFT) | (occurrences >> np.uint64(40))


def word_hashes(keys: Sequence[str]) -> np.ndarray:
    """``text_hash`` of each word type key, uint64 (``passage_priorities``'s ``key_hashes``)."""
    return np.array([text_hash(key) for key in keys], dtype=np.uint64)


def ranks_in_passage(doc_numbers: np.ndarray, token_positions: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
    """Per occurrence, int64: how many occurrences of the same type come before it in the
    same passage of the same document (documents numbered by ``doc_numbers``)."""
    positions = np.asarray(token_positions, dtype=np.int64)
    if len(positions) == 0:
        return np.zeros(0, dtype=np.int64)
    groups = (np.asarray(doc_numbers, dtype=np.int64), positions // PASSAGE_TOKENS, np.asarray(type_ids))
    order = np.lexsort((positions,) + groups[::-1])
    changed = np.zeros(len(order), dtype=bool)
    changed[0] = True
    for column in groups:
        ordered = column[order]
        changed[1:] |= ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(changed)
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    return ranks


def passage_of(priorities: np.ndarray) -> np.ndarray:
    """The passage bits of ``passage_priorities`` (uint64): equal for occurrences of one passage."""
    return (np.asarray(priorities, dtype=np.uint64) >> _PASSAGE_SHIFT) & _PASSAGE_MASK


def first_in_passage(priorities: np.ndarray) -> np.ndarray:
    """Bool per ``passage_priorities`` row: the first occurrence of its word in its passage."""
    return (np.asarray(priorities, dtype=np.uint64) >> _RANK_SHIFT) == 0


def snippet_from_offsets(
    text: str, starts: Sequence[int], lengths: Sequence[int], i: int, window: int = SNIPPET_WINDOW
) -> str:
    """Up to ``window`` tokens either side of token ``i`` of ``text``, token ``i`` in brackets.

    ``starts``/``lengths``: character offset and length of every token (spaCy's
    ``idx`` and ``len``; Python lists are fastest); the text between tokens
    (whitespace) is kept as it is. A window cut before the text's start begins at its
    first token with a letter or digit.
    """
    n = len(starts)
    first, stop = max(0, i - window), min(n, i + 1 + window)
    while 0 < first < i and not has_word_character(text[int(starts[first]) : int(starts[first]) + int(lengths[first])]):
        first += 1  # a cut window starts at a word, not at "… , the"
    word_start = int(starts[i])
    word_end = word_start + int(lengths[i])
    end = int(starts[stop]) if stop < n else len(text)
    prefix = "… " if first > 0 else ""
    suffix = " …" if stop < n else ""
    body = f"{text[int(starts[first]) : word_start]}[{text[word_start:word_end]}]{text[word_end:end]}"
    return prefix + body.strip() + suffix
