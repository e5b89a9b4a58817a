"""`spacy-ctxvec train-static CORPUS OUTPUT`: train word2vec vectors with gensim.

The corpus is a UTF-8 text file with one document per line, or a directory of
.txt files (read in sorted name order). It is streamed, never held in memory.
Tokenisation is deliberately simple: each line is lower-cased and split into runs
of letters and digits (regex ``[^\\W_]+``), so punctuation and underscores drop out
and "Don't" gives "don", "t". The output is word2vec text format (binary with
--binary), loadable with load_static_vectors or spacy-ctxvec.vectors_file.v1.
"""
import re
import time
from pathlib import Path
from typing import Any, Iterator, List

import typer
from wasabi import msg

from ..errors import CtxvecError, Errors
from ._app import app

WORD_PATTERN = re.compile(r"[^\W_]+")


def simple_words(text: str) -> List[str]:
    """Lower-cased runs of letters and digits."""
    return WORD_PATTERN.findall(text.lower())


class LineCorpus:
    """Re-iterable stream of word lists, one per non-empty line of the corpus."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        if not path.exists():
            raise CtxvecError(Errors.E120.format(path=path))
        self.path = path
        self.files = sorted(path.glob("*.txt")) if path.is_dir() else [path]

    def __iter__(self) -> Iterator[List[str]]:
        for file in self.files:
            with file.open(encoding="utf8", errors="replace") as handle:
                for line in handle:
                    words = simple_words(line)
                    if words:
                        yield words

    def check_not_empty(self) -> None:
        if next(iter(self), None) is None:
            raise CtxvecError(Errors.E121.format(path=self.path))


def _epoch_logger(n_epochs: int) -> Any:
    from gensim.models.callbacks import CallbackAny2Vec

    class EpochLogger(CallbackAny2Vec):
        """One line per finished epoch."""

        def __init__(self) -> None:
            self.epoch = 0
            self.started = time.perf_counter()

        def on_epoch_end(self, model: Any) -> None:
            self.epoch += 1
            elapsed = time.perf_counter() - self.started
            msg.text(f"Epoch {self.epoch}/{n_epochs} done ({elapsed:.1f}s)")

    return EpochLogger()


def train_static_vectors(
    corpus: Path,
    output: Path,
    *,
    sg: bool = True,
    size: int = 100,
    window: int = 5,
    min_count: int = 5,
    epochs: int = 5,
    workers: int = 2,
    binary: bool = False,
    seed: int = 0,
) -> Any:
    """Train gensim Word2Vec on a line corpus, write word2vec format, return the KeyedVectors."""
    from gensim.models import Word2Vec

    sentences = LineCorpus(corpus)
    sentences.check_not_empty()
    model = Word2Vec(vector_size=size, window=window, min_count=min_count, sg=int(sg), workers=workers, seed=seed)
    model.build_vocab(sentences)
    if len(model.wv) == 0:
        raise CtxvecError(Errors.E122.format(path=corpus, min_count=min_count))
    msg.info(f"{model.corpus_count} lines, {len(model.wv)} words with count >= {min_count}")
    model.train(sentences, total_examples=model.corpus_count, epochs=epochs, callbacks=[_epoch_logger(epochs)])
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    model.wv.save_word2vec_format(str(output), binary=binary)
    return model.wv


@app.command("train-static")
def train_static_cli(
    corpus: Path = typer.Argument(..., help="UTF-8 text file, one document per line (or a directory of .txt files)"),
    output: Path = typer.Argument(..., help="Output vectors file (word2vec text format, binary with --binary)"),
    sg: bool = typer.Option(True, "--sg/--cbow", help="Skip-gram (default) or CBOW"),
    size: int = typer.Option(100, "--size", min=1, help="Vector dimension"),
    window: int = typer.Option(5, "--window", min=1, help="Context window (words each side)"),
    min_count: int = typer.Option(5, "--min-count", min=1, help="Ignore words rarer than this"),
    epochs: int = typer.Option(5, "--epochs", min=1, help="Passes over the corpus"),
    workers: int = typer.Option(2, "--workers", min=1, help="Training threads (1 = reproducible)"),
    binary: bool = typer.Option(False, "--binary", help="Write word2vec binary instead of text"),
    seed: int = typer.Option(0, "--seed", help="Random seed"),
) -> None:
    """Train word2vec static vectors on a text corpus with gensim."""
    try:
        vectors = train_static_vectors(
            corpus, output, sg=sg, size=size, window=window, min_count=min_count,
            epochs=epochs, workers=workers, binary=binary, seed=seed,
        )
    except CtxvecError as err:
        msg.fail(str(err), exits=1)
    kind = "binary" if binary else "text"
    msg.good(f"Wrote {len(vectors)} x {vectors.vector_size} vectors ({kind} word2vec) to {output}")
