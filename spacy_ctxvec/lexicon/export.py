"""Type centroids of a Lexicon as static vectors (Bommasani et al. 2020: a word's
contextual vectors averaged over many contexts), written with gensim's KeyedVectors
in word2vec text format: loadable with gensim's load_word2vec_format and with
ctxvec_static's spacy-ctxvec.vectors_file.v1.

``export_sense_vectors`` writes a multi-prototype table instead: one row per induced
sense, keyed sense2vec-style ``bank|0``, ``bank|1`` (sense 0 is the largest)."""

from pathlib import Path

import numpy as np

from ..ops.cosine import normalise_rows
from ..types import PathLike
from .sense_inventory import SenseInventory
from .statistics import Lexicon

SENSE_KEY_SEPARATOR = "|"


def writable_keys(keys: np.ndarray) -> np.ndarray:
    """Keys that word2vec text format can hold: non-empty, no whitespace."""
    return np.array([key != "" and len(key.split()) == 1 and key == key.strip() for key in keys], dtype=bool)


def export_static_vectors(lexicon: Lexicon, output: PathLike, *, min_count: int = 1, unit: bool = False) -> int:
    """Write the centroids of types with >= min_count occurrences (unit-length
    directions with ``unit``); return how many were written."""
    from gensim.models import KeyedVectors

    keys = np.array(lexicon.keys, dtype=str)
    chosen = (np.asarray(lexicon.counts) >= min_count) & writable_keys(keys)
    vectors = (lexicon.unit_centroids() if unit else lexicon.centroids())[chosen].astype(np.float32)
    table = KeyedVectors(vector_size=lexicon.width)
    table.add_vectors(keys[chosen].tolist(), vectors)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    table.save_word2vec_format(str(output), binary=False)
    return int(chosen.sum())


def sense_key(key: str, sense: int) -> str:
    """The sense2vec-style key of a type's sense: ``bank|1``."""
    return f"{key}{SENSE_KEY_SEPARATOR}{sense}"


def export_sense_vectors(senses: SenseInventory, output: PathLike, *, unit: bool = False) -> int:
    """Write each sense's static vector (mean raw contextual vector of its members;
    unit length with ``unit``) under ``word|sense``, in word2vec text format; types whose
    key cannot be written are left out. Return how many rows were written."""
    from gensim.models import KeyedVectors

    sizes = senses.counts()
    writable = (
        np.repeat(writable_keys(np.array(senses.keys, dtype=str)), sizes) if len(senses) else np.zeros(0, dtype=bool)
    )
    keys = [sense_key(key, sense) for key, size in zip(senses.keys, sizes.tolist()) for sense in range(size)]
    vectors = normalise_rows(senses.vectors) if unit else senses.vectors.astype(np.float64)
    table = KeyedVectors(vector_size=senses.width)
    table.add_vectors([key for key, keep in zip(keys, writable) if keep], vectors[writable].astype(np.float32))
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    table.save_word2vec_format(str(output), binary=False)
    return int(writable.sum())
