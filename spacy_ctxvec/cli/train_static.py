"""`spacy-ctxvec train-static CORPUS OUTPUT`: train word2vec vectors with gensim
(see spacy_ctxvec.static.train)."""

from pathlib import Path

import typer
from wasabi import msg

from ..errors import CtxvecError
from ..paths import check_output_file
from ..static.train import train_static_vectors
from ._app import app


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
        check_output_file(output, "vectors file", [corpus])
        vectors = train_static_vectors(
            corpus,
            output,
            sg=sg,
            size=size,
            window=window,
            min_count=min_count,
            epochs=epochs,
            workers=workers,
            binary=binary,
            seed=seed,
        )
    except CtxvecError as err:
        msg.fail(str(err), exits=1)
    kind = "binary" if binary else "text"
    msg.good(f"Wrote {len(vectors)} x {vectors.vector_size} vectors ({kind} word2vec) to {output}")
