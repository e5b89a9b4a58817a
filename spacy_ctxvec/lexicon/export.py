"""Type centroids of a Lexicon as static vectors (Bommasani et al. 2020: a word's
contextual vectors averaged over many contexts), written with gensim's KeyedVectors
in word2vec text format: loadable with gensim's load_word2vec_format and with
ctxvec_static's spacy-ctxvec.vectors_file.v1."""
from pathlib import Path

import numpy as np

from ..types import PathLike
from .statistics import Lexicon


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
