"""Type centroids of a Lexicon as static vectors (Bommasani et al. 2020: a word's
contextual vectors averaged over many contexts), written with gensim's KeyedVectors
in word2vec text format (or binary): loadable with gensim's load_word2vec_format and with
ctxvec_static's spacy-ctxvec.vectors_file.v1.

``export_sense_vectors`` writes a multi-prototype table instead: one row per induced
sense, keyed sense2vec-style ``bank|0``, ``bank|1`` (sense 0 is the largest), and
``sense_labels_tsv`` the table beside it: each sense key with its share and label words.

A file without rows is never written: with nothing to export (an empty lexicon, or
--min-count above every type's count) both raise E743 before writing anything."""

import re
import warnings
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..data_files import save_word2vec
from ..errors import CtxvecError, Errors, Warnings
from ..ops.cosine import normalise_rows
from ..ops.text import tsv_text
from ..output_files import LABELS_HEADER
from ..types import PathLike
from .sense_inventory import SenseInventory
from .statistics import Lexicon

SENSE_KEY_SEPARATOR = "|"
_SENSE_KEY = re.compile(rf".+{re.escape(SENSE_KEY_SEPARATOR)}\d+")


def writable_keys(keys: np.ndarray) -> np.ndarray:
    """Keys that word2vec text format can hold: non-empty, no whitespace."""
    return np.array([key != "" and len(key.split()) == 1 and key == key.strip() for key in keys], dtype=bool)


def warn_unwritable(keys: Sequence[str], writable: np.ndarray, what: Tuple[str, str]) -> None:
    """W057 naming the keys word2vec text cannot hold, where any were left out; ``what``: the
    words for one and for several ("type", "types")."""
    left_out = [key for key, keep in zip(keys, writable.tolist()) if not keep]
    if left_out:
        examples = ", ".join(repr(key) for key in left_out[:3]) + (", ..." if len(left_out) > 3 else "")
        named = what[0] if len(left_out) == 1 else what[1]
        warnings.warn(Warnings.W057.format(n=len(left_out), what=named, examples=examples), stacklevel=3)


def most_frequent_first(counts: np.ndarray) -> np.ndarray:
    """Row order by descending count, ties in key order: word2vec's, so that a reader's
    ``limit`` (gensim) or ``--prune`` (spacy init vectors) keeps the most frequent words."""
    return np.argsort(-np.asarray(counts, dtype=np.int64), kind="stable")


def export_static_vectors(
    lexicon: Lexicon, output: PathLike, *, min_count: int = 1, unit: bool = False, binary: bool = False
) -> int:
    """Write the centroids of types with >= min_count occurrences (unit-length
    directions with ``unit``), most frequent first, as word2vec text (``binary``: binary);
    return how many were written (E743 for none)."""
    from gensim.models import KeyedVectors

    keys = np.array(lexicon.keys, dtype=str)
    counts, writable = np.asarray(lexicon.counts), writable_keys(keys)
    chosen = (counts >= min_count) & writable
    if not chosen.any():
        raise _nothing_to_export(len(keys), int(counts[writable].max()) if writable.any() else 0, min_count)
    frequent = counts >= min_count
    warn_unwritable(keys[frequent].tolist(), writable[frequent], ("type", "types"))
    order = most_frequent_first(counts)
    order = order[chosen[order]]
    vectors = (lexicon.unit_centroids() if unit else lexicon.centroids())[order].astype(np.float32)
    zero = np.flatnonzero(~vectors.any(axis=1))
    if len(zero):
        n_words = "1 word has" if len(zero) == 1 else f"{len(zero):,} words have"
        warnings.warn(Warnings.W090.format(n_words=n_words, word=keys[order][zero[0]]), stacklevel=2)
    table = KeyedVectors(vector_size=lexicon.width)
    table.add_vectors(keys[order].tolist(), vectors)
    save_word2vec(table, output, binary=binary)
    return int(chosen.sum())


def _nothing_to_export(n_types: int, highest_count: int, min_count: int) -> CtxvecError:
    if highest_count == 0:
        problem = (
            "the lexicon has no types"
            if n_types == 0
            else f"none of the lexicon's {n_types} types has a key word2vec text can hold"
        )
        return CtxvecError(Errors.E743.format(problem=problem, fix="Build the lexicon from a corpus with words."))
    problem = f"no type occurs at least --min-count {min_count} times (the most frequent occurs {highest_count} times)"
    return CtxvecError(Errors.E743.format(problem=problem, fix=f"Give --min-count {highest_count} or lower."))


def sense_keyed(keys: Sequence[str], checked: int = 100) -> bool:
    """Whether the first ``checked`` of ``keys`` are all sense keys ('bank|0', export-static --senses's
    rows), which no token's text is."""
    first = keys[:checked]
    return len(first) > 0 and all(_SENSE_KEY.fullmatch(key) for key in first)


def sense_key(key: str, sense: int) -> str:
    """The sense2vec-style key of a type's sense: ``bank|1``."""
    return f"{key}{SENSE_KEY_SEPARATOR}{sense}"


def export_sense_vectors(
    senses: SenseInventory,
    output: PathLike,
    *,
    unit: bool = False,
    binary: bool = False,
    counts: Optional[np.ndarray] = None,
) -> int:
    """Write each sense's static vector (mean raw contextual vector of its members;
    unit length with ``unit``) under ``word|sense``, in word2vec text format (``binary``:
    binary), the words by descending ``counts`` (their occurrences, one per word of
    ``senses``) where given, else in key order, each word's senses in order; types whose
    key cannot be written are left out. Return how many rows were written (E743 for none)."""
    from gensim.models import KeyedVectors

    sizes = senses.counts()
    words_writable = writable_words(senses)
    writable = np.repeat(words_writable, sizes)  # per sense
    if len(senses) == 0:
        problem = (
            "the sense inventory has no words (senses are induced for words seen at least min_count times "
            "that hold a letter, by default: punctuation, numbers and symbols get none unless words_only = false)"
        )
        fix = "Build the lexicon from a larger corpus of words, or with a lower build-lexicon --min-count."
        raise CtxvecError(Errors.E743.format(problem=problem, fix=fix))
    if not writable.any():
        problem = f"the sense inventory's {len(senses)} words have no sense with a key word2vec text can hold"
        raise CtxvecError(Errors.E743.format(problem=problem, fix="Build the lexicon from a corpus with words."))
    warn_unwritable(senses.keys, words_writable, ("word and its senses", "words and their senses"))
    keys = [sense_key(key, sense) for key, size in zip(senses.keys, sizes.tolist()) for sense in range(size)]
    vectors = normalise_rows(senses.vectors) if unit else senses.vectors.astype(np.float64)
    words = _written_words(senses, counts)
    rows = np.concatenate([np.arange(senses.offsets[w], senses.offsets[w + 1]) for w in words]).astype(np.int64)
    table = KeyedVectors(vector_size=senses.width)
    table.add_vectors([keys[row] for row in rows.tolist()], vectors[rows].astype(np.float32))
    save_word2vec(table, output, binary=binary)
    return int(writable.sum())


def writable_words(senses: SenseInventory) -> np.ndarray:
    """Per word of ``senses``, whether word2vec text can hold its key."""
    return writable_keys(np.array(senses.keys, dtype=str)) if len(senses) else np.zeros(0, dtype=bool)


def _written_words(senses: SenseInventory, counts: Optional[np.ndarray]) -> List[int]:
    """The words of ``senses`` whose senses are written, in the order they are: by descending
    ``counts`` where given, else in key order (export_sense_vectors and its labels alike)."""
    writable = writable_words(senses)
    order = np.arange(len(senses)) if counts is None else most_frequent_first(counts)
    return [int(w) for w in order.tolist() if writable[w]]


def sense_labels_path(output: PathLike) -> Path:
    """Where ``export-static --senses OUTPUT`` writes the labels beside OUTPUT: ``OUTPUT.labels.tsv``."""
    output = Path(output)
    return output.with_name(output.name + ".labels.tsv")


def sense_labels_tsv(senses: SenseInventory, counts: Optional[np.ndarray] = None) -> str:
    """TSV with a header: one row per sense of a writable key, ``key`` (``bank|0``, as in
    the vectors file), ``word``, ``sense``, ``share``, ``label`` (its context words, ""
    where the senses were induced before labels existed), ``corpus_polysemy`` ("" for None);
    in the order of export_sense_vectors with the same ``counts``, row for row."""
    rows: List[Tuple[object, ...]] = [tuple(LABELS_HEADER.split("\t"))]
    for key in (senses.keys[w] for w in _written_words(senses, counts)):
        evidence = senses.corpus_polysemy_of(key)
        shown = "" if evidence is None else f"{evidence:.4f}"
        for sense in senses.senses_of(key):
            label = " ".join(sense.label.split())  # one line, no tabs
            rows.append((sense_key(key, sense.index), key, sense.index, f"{sense.share:.6f}", label, shown))
    return tsv_text(rows) + "\n"
