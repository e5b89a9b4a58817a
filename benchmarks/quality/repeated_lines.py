"""Copies of a line in the occurrence sample (issue 21; SENSE_EVIDENCE.md, "Distinct
snippets in the sample").

A corpus of Gutenberg paragraphs (Austen and Chesterton, joined onto one line each, the
first ``--docs`` by md5 of their text) in which every ``--every``-th document ends with the
same licence-like paragraph (written for this benchmark), as a corpus of downloaded books
or web pages repeats its boilerplate. Built with ``build-lexicon``'s defaults by whichever
spacy-ctxvec is on the path (``PYTHONPATH=OLD_CHECKOUT`` for the version before), it prints
how many sampled rows repeat a snippet already sampled for the same word, the senses of
the licence's words, and how many induced types split.

    HF_HUB_OFFLINE=1 python benchmarks/quality/repeated_lines.py ../shared/data/corpus_gutenberg OUT_DIR
"""

import argparse
import hashlib
import re
import subprocess
import sys
from pathlib import Path
from typing import List

from spacy_ctxvec.lexicon.sample import OccurrenceSample
from spacy_ctxvec.lexicon.sense_inventory import SenseInventory

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "default.cfg"
BOOKS = ("austen-emma.txt", "austen-persuasion.txt", "austen-sense.txt", "chesterton-brown.txt")
LICENCE = (
    "This file is one of the free editions of the archive. You may copy it, give it away or re-use "
    "it in any country where the archive operates, under the terms of the archive licence included "
    "with this file; if you are not located in such a country, check the laws of the country where "
    "you are located before you copy or use this file."
)
LICENCE_WORDS = ("country", "archive", "file", "copy", "editions", "terms", "laws")


def paragraphs(gutenberg: Path, n_docs: int) -> List[str]:
    """The first ``n_docs`` paragraphs of 20-150 words of BOOKS by md5 of their text, each on one line."""
    found = []
    for book in BOOKS:
        text = (gutenberg / book).read_text(encoding="latin-1")
        for block in re.split(r"\n\s*\n", text):
            words = block.split()
            if 20 <= len(words) <= 150:
                found.append(" ".join(words))
    return sorted(found, key=lambda p: hashlib.md5(p.encode("utf8")).hexdigest())[:n_docs]


def from_licence(snippet: str) -> bool:
    """Whether a snippet's word is one of LICENCE's: the word with the context on either
    side of it is licence text (the other side may run into the paragraph before it)."""
    body = snippet.removeprefix("… ").removesuffix(" …")
    left, _, rest = body.partition("[")
    word, _, right = rest.partition("]")
    return f"{left}{word}".strip() in LICENCE or f"{word}{right}".strip() in LICENCE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gutenberg", type=Path)
    parser.add_argument("out", type=Path, help="new directory for the corpus and the pipeline")
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--every", type=int, default=3)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=False)
    docs = [f"{p} {LICENCE}" if i % args.every == 0 else p for i, p in enumerate(paragraphs(args.gutenberg, args.docs))]
    corpus = args.out / "corpus.txt"
    corpus.write_text("\n".join(docs) + "\n", encoding="utf8")
    pipeline = args.out / "pipeline"
    command = [sys.executable, "-m", "spacy_ctxvec", "build-lexicon", str(CONFIG), str(corpus), str(pipeline)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"build-lexicon failed:\n{done.stderr}{done.stdout}")
    sample = OccurrenceSample.from_disk(pipeline / "ctxvec_polysemy" / "lexicon" / "sample")
    inventory = SenseInventory.from_disk(pipeline / "ctxvec_polysemy" / "senses")
    copies = sum(len(snippets) - len(set(snippets)) for snippets in (sample.rows_of(key)[1] for key in sample.keys))
    print(f"{len(docs)} documents, {len(docs[:: args.every])} with the licence paragraph")
    print(f"sampled rows: {sample.n_rows}, of which copies of a snippet sampled for the same word: {copies}")
    keys = [key for key in inventory.keys if inventory.n_senses(key) >= 1]
    split = sum(inventory.n_senses(key) > 1 for key in keys)
    print(f"types with senses: {len(keys)}, split: {split}, senses: {sum(inventory.n_senses(k) for k in keys)}")
    print("word | sampled rows | distinct snippets | licence rows | senses | corpus_polysemy | labels")
    for word in LICENCE_WORDS:
        _, snippets = sample.rows_of(word)
        licence = sum(1 for s in snippets if from_licence(s))
        n_senses = inventory.n_senses(word) if word in inventory else 0
        score = inventory.corpus_polysemy_of(word) if word in inventory else None
        labels = " / ".join(s.label for s in inventory.senses_of(word)) if word in inventory else ""
        shown = "-" if score is None else f"{score:.2f}"
        print(f"{word} | {len(snippets)} | {len(set(snippets))} | {licence} | {n_senses} | {shown} | {labels}")


if __name__ == "__main__":
    main()
