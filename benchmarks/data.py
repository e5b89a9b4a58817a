"""Where the benchmarks' data lives, and the benchmark texts: sentences from the shared
Project Gutenberg corpus.

The benchmarks read the evaluation data in ``../shared/data`` beside the repository
(``SHARED_DATA``; the environment variable ``CTXVEC_SHARED_DATA`` points elsewhere), the
Gutenberg books in its ``corpus_gutenberg`` folder (``GUTENBERG_DIR``; ``CTXVEC_GUTENBERG_DIR``
points elsewhere, e.g. on a GPU machine without ../shared, see benchmarks/gpu_bundle_run.sh).
Scripts call ``shared_data(...)`` or ``gutenberg_dir()`` before loading a model: where the
data is missing they exit with one message instead of a traceback or a run over nothing.
"""

import os
import random
import re
from pathlib import Path
from typing import List, Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("CTXVEC_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")
GUTENBERG_DIR = Path(os.environ.get("CTXVEC_GUTENBERG_DIR") or SHARED_DATA / "corpus_gutenberg")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z])")
MIN_WORDS = 3
# Longer sentences would be cut into several strided windows by spacy-transformers
# (window = 128 spaCy tokens) but not by the bare Hugging Face floor; keep every
# sentence inside one window so that all methods do the same work.
MAX_WORDS = 60


def missing_data_message(path: Path, problem: str) -> str:
    """One paragraph: what is missing, where the benchmarks look, how to point elsewhere."""
    return (
        f"Benchmark data not found: {path} {problem}. The benchmarks read the evaluation data in "
        f"../shared/data beside the repository ({REPO_ROOT.parent / 'shared' / 'data'}); set "
        f"CTXVEC_SHARED_DATA to a folder that holds it (wic/, corpus_gutenberg/, ...; now {SHARED_DATA}) "
        f"or CTXVEC_GUTENBERG_DIR to a folder of Gutenberg books, *.txt (now {GUTENBERG_DIR}), "
        "to read it elsewhere."
    )


def book_files(corpus_dir: Path) -> List[Path]:
    """The books of a corpus folder: *.txt in name order, NLTK_* files left out."""
    return [path for path in sorted(Path(corpus_dir).glob("*.txt")) if not path.name.startswith("NLTK_")]


def require_data(path: Path, books: bool = False) -> Path:
    """``path`` if it exists (and, with ``books``, is a folder holding at least one book);
    otherwise SystemExit with missing_data_message."""
    path = Path(path)
    if not path.exists():
        raise SystemExit(missing_data_message(path, "does not exist"))
    if books and not (path.is_dir() and book_files(path)):
        raise SystemExit(missing_data_message(path, "holds no books (no *.txt files)"))
    return path


def shared_data(*parts: str) -> Path:
    """A path inside SHARED_DATA, checked with require_data: shared_data("wic", "train.data.txt")."""
    return require_data(SHARED_DATA.joinpath(*parts))


def gutenberg_dir(corpus_dir: Optional[Path] = None) -> Path:
    """The Gutenberg books folder (default GUTENBERG_DIR), checked: it exists and holds books."""
    return require_data(GUTENBERG_DIR if corpus_dir is None else Path(corpus_dir), books=True)


def corpus_sentences(corpus_dir: Optional[Path] = None) -> List[str]:
    """Every sentence of MIN_WORDS..MAX_WORDS whitespace words, books in name order."""
    sentences: List[str] = []
    for path in book_files(gutenberg_dir(corpus_dir)):
        body = path.read_text(encoding="utf8", errors="replace").split("\n", 1)[-1]
        for paragraph in re.split(r"\n\s*\n", body):
            text = " ".join(paragraph.split())
            for sentence in SENTENCE_END.split(text):
                if MIN_WORDS <= len(sentence.split()) <= MAX_WORDS:
                    sentences.append(sentence)
    return sentences


def sample_sentences(n: int, seed: int = 0, corpus_dir: Optional[Path] = None) -> List[str]:
    """``n`` sentences drawn without replacement, in a fixed random order (mixed lengths)."""
    sentences = corpus_sentences(corpus_dir)
    if n > len(sentences):
        raise SystemExit(
            f"Asked for {n} sentences but the books in {gutenberg_dir(corpus_dir)} hold {len(sentences)} "
            f"of {MIN_WORDS}-{MAX_WORDS} words: ask for fewer, or point CTXVEC_GUTENBERG_DIR at more books."
        )
    return random.Random(seed).sample(sentences, n)
