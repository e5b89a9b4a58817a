"""Per-token sense annotations of ``ctxvec_polysemy`` (spaCy glue over
``lexicon.sense_inventory.SenseInventory``): the SENSE_DTYPE records (sense, n_senses,
score, corpus_polysemy), the sense vectors and the sense labels of one Doc's tokens."""

from typing import Optional, Tuple

import numpy as np

from ..attributes import SENSE_DTYPE
from ..lexicon.sense_inventory import SenseInventory
from ..ops.context_windows import window_context_means


def sense_annotations(
    senses: SenseInventory,
    vectors: np.ndarray,
    mask: np.ndarray,
    type_rows: np.ndarray,
    segments: Optional[np.ndarray] = None,
) -> Tuple[np.ndarray, np.ndarray, Tuple[str, ...]]:
    """(SENSE_DTYPE records, (n, width) float32 sense vectors, label per token) for the
    tokens of one Doc: their contextual ``vectors`` (n, width), which of them are real
    (``mask``) and their types' rows in ``senses`` (``type_rows``, -1: no senses); a
    token's context stays in its sentence or paragraph (``segments``, attributes.context_segments).
    Tokens without a vector get no sense but keep their type's n_senses and
    corpus_polysemy; score and corpus_polysemy are 0.0 with has_score /
    has_corpus_polysemy false where undefined; labels "" where the sense is -1 (or the
    inventory has no labels)."""
    n = len(type_rows)
    records = np.zeros(n, dtype=SENSE_DTYPE)
    records["sense"] = -1
    sense_vectors = np.zeros((n, senses.width), dtype=np.float32)
    if n == 0:
        return records, sense_vectors, ()
    found = type_rows >= 0
    records["n_senses"][found] = senses.counts()[type_rows[found]]
    if senses.corpus_polysemy is not None:
        polysemy = np.where(found, senses.corpus_polysemy[np.maximum(type_rows, 0)], np.nan)
        records["has_corpus_polysemy"] = np.isfinite(polysemy)
        records["corpus_polysemy"] = np.nan_to_num(polysemy, nan=0.0)
    type_rows = np.where(mask, type_rows, -1)
    compared = (type_rows >= 0) & (records["n_senses"] > 1)  # only these tokens choose between senses
    contexts = (
        window_context_means(vectors, mask, senses.context_window, segments)
        if senses.context_window and compared.any()
        else None
    )
    assigned, scores = senses.assign_scored(type_rows, vectors, contexts)
    records["sense"], records["has_score"] = assigned, np.isfinite(scores)
    records["score"] = np.nan_to_num(scores, nan=0.0)
    rows = senses.sense_rows(type_rows, assigned)
    sense_vectors[rows >= 0] = senses.vectors[rows[rows >= 0]]
    labels = tuple(label or "" for label in senses.sense_labels(rows))  # stored read-only, as the arrays
    return records, sense_vectors, labels
