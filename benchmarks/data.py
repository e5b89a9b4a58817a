"""The benchmark texts: sentences from the shared Project Gutenberg corpus."""

import os
import random
import re
from pathlib import Path
from typing import List

REPO_ROOT = Path(__file__).resolve().parent.parent
# CTXVEC_GUTENBERG_DIR points elsewhere, e.g. on a machine without ../shared (the GPU check).
GUTENBERG_DIR = Path(os.environ.get("CTXVEC_GUTENBERG_DIR", REPO_ROOT.parent / "shared" / "data" / "corpus_gutenberg"))
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z])")
MIN_WORDS = 3
# Longer sentences would be cut into several strided windows by spacy-transformers
# (window = 128 spaCy tokens) but not by the bare Hugging Face floor; keep every
# sentence inside one window so that all methods do the same work.
MAX_WORDS = 60


def corpus_sentences(corpus_dir: Path = GUTENBERG_DIR) -> List[str]:
    """Every sentence of MIN_WORDS..MAX_WORDS whitespace words, books in name order."""
    sentences: List[str] = []
    for path in sorted(corpus_dir.glob("*.txt")):
        if path.name.startswith("NLTK_"):
            continue
        body = path.read_text(encoding="utf8", errors="replace").split("\n", 1)[-1]
        for paragraph in re.split(r"\n\s*\n", body):
            text = " ".join(paragraph.split())
            for sentence in SENTENCE_END.split(text):
                if MIN_WORDS <= len(sentence.split()) <= MAX_WORDS:
                    sentences.append(sentence)
    return sentences


def sample_sentences(n: int, seed: int = 0, corpus_dir: Path = GUTENBERG_DIR) -> List[str]:
    """``n`` sentences drawn without replacement, in a fixed random order (mixed lengths)."""
    sentences = corpus_sentences(corpus_dir)
    if n > len(sentences):
        raise ValueError(f"Asked for {n} sentences but the corpus has {len(sentences)}.")
    return random.Random(seed).sample(sentences, n)
