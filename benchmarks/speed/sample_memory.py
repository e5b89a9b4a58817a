"""Memory of the lexicon's occurrence sample (issue 11) on the whole Gutenberg corpus.

The sample holds, per word type, min(count, K) rows: a float16 vector and a float16
context vector (2 x width x 2 bytes), a uint64 priority and a UTF-8 snippet, plus one
int64 offset per type. This script
counts the corpus the way build-lexicon reads it (one document per non-blank line,
lower-cased keys, spaCy's English tokenizer, the two Latin-1 files decoded as such),
without running the transformer, and prints for each K and frequency floor the rows
and bytes. Snippet bytes are exact: the rows a sample would keep are chosen by the
same priorities (document text hash, token position) and their snippets are made.

    python benchmarks/speed/sample_memory.py [--width 384] [--corpus DIR]

Every non-space token is counted; the pipeline counts the tokens that get a contextual
vector (the same set for ordinary text), and keeps a repeated document's occurrences
once, so the numbers are an upper bound by a small margin.
"""

import argparse
import time
from pathlib import Path
from typing import List, Tuple

try:  # run as a script: this checkout's benchmarks.data
    import checkout_path  # noqa: F401
except ModuleNotFoundError:  # imported as benchmarks.speed.<name>: the package is on the path
    pass
import numpy as np

from benchmarks.data import GUTENBERG_DIR, book_files, gutenberg_dir  # noqa: E402
from spacy_ctxvec.building.corpus import iter_corpus
from spacy_ctxvec.building.shard import lowest_per_group
from spacy_ctxvec.lexicon.occurrence_keys import occurrence_priorities, snippet_from_offsets, text_hash

SIZES = (16, 32, 64, 128)
FLOORS = (1, 3, 5, 10)


def book_texts(corpus: Path) -> List[str]:
    """Non-blank lines of every book (utf8, or latin-1 where utf8 fails)."""
    texts: List[str] = []
    for path in book_files(gutenberg_dir(corpus)):
        try:
            path.read_bytes().decode("utf8")
            encoding = "utf8"
        except UnicodeDecodeError:
            encoding = "latin-1"
        texts.extend(str(item) for item in iter_corpus(path, encoding=encoding))
    return texts


def occurrences(
    texts: List[str],
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, List[Tuple[str, np.ndarray]]]:
    """(type ids, priorities, doc numbers, positions, per-doc (text, offsets)) of every non-space token."""
    import spacy
    from spacy.attrs import IDX, IS_SPACE, LENGTH, LOWER

    tokenizer = spacy.blank("en").tokenizer
    ids, priorities, doc_numbers, positions, docs = [], [], [], [], []
    for number, doc in enumerate(tokenizer.pipe(texts, batch_size=1000)):
        array = doc.to_array([LOWER, IS_SPACE, IDX, LENGTH])
        kept = np.flatnonzero(array[:, 1] == 0)
        ids.append(array[kept, 0].astype(np.uint64))
        priorities.append(occurrence_priorities(np.full(len(kept), text_hash(doc.text), dtype=np.uint64), kept))
        doc_numbers.append(np.full(len(kept), number, dtype=np.int64))
        positions.append(kept)
        docs.append((doc.text, array[:, 2:4]))
    _, type_ids = np.unique(np.concatenate(ids), return_inverse=True)
    return type_ids.ravel(), np.concatenate(priorities), np.concatenate(doc_numbers), np.concatenate(positions), docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=384)
    parser.add_argument("--corpus", type=Path, default=GUTENBERG_DIR)
    args = parser.parse_args()
    start = time.perf_counter()
    texts = book_texts(args.corpus)
    type_ids, priorities, doc_numbers, positions, docs = occurrences(texts)
    counts = np.bincount(type_ids)
    print(
        f"{len(texts):,} documents, {len(type_ids):,} tokens, {len(counts):,} types "
        f"({time.perf_counter() - start:.0f} s to read and tokenize)\n"
    )
    print("| K | floor | types sampled | rows | vectors + contexts (MiB) | snippets (MiB) | total (MiB) | bytes/row |")
    print("|---|---|---|---|---|---|---|---|")
    for k in SIZES:
        chosen = lowest_per_group(type_ids, priorities, k)  # ties included: at most a few extra rows
        snippet_bytes = np.zeros(len(type_ids), dtype=np.int64)
        for row in np.flatnonzero(chosen):
            text, offsets = docs[int(doc_numbers[row])]
            snippet_bytes[row] = len(
                snippet_from_offsets(text, offsets[:, 0], offsets[:, 1], int(positions[row])).encode("utf8")
            )
        snippet_per_type = np.bincount(type_ids, weights=snippet_bytes, minlength=len(counts))
        for floor in FLOORS:
            kept = counts >= floor
            rows = int(np.minimum(counts[kept], k).sum())
            vectors = rows * args.width * 2 * 2  # token and context vector, float16
            other = rows * 8 + (int(kept.sum()) + 1) * 8  # priorities + offsets
            snippets = int(snippet_per_type[kept].sum())
            total = vectors + other + snippets
            print(
                f"| {k} | {floor} | {int(kept.sum()):,} | {rows:,} | {vectors / 2**20:.1f} | {snippets / 2**20:.1f} "
                f"| {total / 2**20:.1f} | {total / max(rows, 1):.0f} |"
            )


if __name__ == "__main__":
    main()
