"""What identifies a sampled occurrence, whatever process reads it: a 64-bit priority
from a hash of the document text and the token's position (``occurrence_priorities``,
``text_hash``; the same on every machine and in every order of the corpus), and a short
context snippet (``snippet_from_offsets``). Pure numpy + stdlib."""

import hashlib
from typing import Sequence

import numpy as np

SNIPPET_WINDOW = 4  # tokens of context either side of the word in a snippet

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
        z = hashes ^ ((positions + np.uint64(1)) * _GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * _MIX_1
        z = (z ^ (z >> np.uint64(27))) * _MIX_2
        return z ^ (z >> np.uint64(31))


def snippet_from_offsets(
    text: str, starts: Sequence[int], lengths: Sequence[int], i: int, window: int = SNIPPET_WINDOW
) -> str:
    """Up to ``window`` tokens either side of token ``i`` of ``text``, token ``i`` in brackets.

    ``starts``/``lengths``: character offset and length of every token (spaCy's
    ``idx`` and ``len``; Python lists are fastest); the text between tokens
    (whitespace) is kept as it is.
    """
    n = len(starts)
    first, stop = max(0, i - window), min(n, i + 1 + window)
    word_start = int(starts[i])
    word_end = word_start + int(lengths[i])
    end = int(starts[stop]) if stop < n else len(text)
    prefix = "… " if first > 0 else ""
    suffix = " …" if stop < n else ""
    body = f"{text[int(starts[first]) : word_start]}[{text[word_start:word_end]}]{text[word_end:end]}"
    return prefix + body.strip() + suffix
