"""`spacy-ctxvec train-static CORPUS OUTPUT`: train word2vec vectors with gensim
(see spacy_ctxvec.static.train). OUTPUT follows spacy_ctxvec.outputs."""

from pathlib import Path

import typer

from ..output_files import VECTORS_FILE
from ..outputs import check_output, write_file
from ..static.text_vectors import MAX_DIM
from ..static.train import train_static_vectors
from ..terminal import msg
from ..workflows.lexicon_build import unsplit_script_warning
from ._app import (
    BINARY,
    CORPUS_ENCODING,
    CORPUS_ON_ERROR,
    OVERWRITE_FILE,
    app,
    check_binary_name,
    exit_on_coded_error,
    file_output,
    given_path,
    warn_on_stderr,
)

WHAT = "vectors file"
TOKENS = typer.Option(
    "simple",
    "--tokens",
    help="simple: lower-cased runs of letters and digits (Don't -> don, t); spacy: spaCy's tokens of --lang, "
    "lower-cased (English: do, n't, mr., punctuation), the strings ctxvec_static looks up",
)
UNSPLIT_EFFECT = "few reach --min-count, and ctxvec_static, which looks up words, finds none of them"
UNSPLIT_HINT = " Split them with spaCy's tokenizer of their language: --tokens spacy --lang zh (or ja)."
LANG = typer.Option("en", "--lang", help="The spaCy language whose tokenizer --tokens spacy uses (en, de, fr, zh...)")


@app.command("train-static")
@exit_on_coded_error
def train_static_cli(
    corpus: Path = typer.Argument(
        ...,
        parser=given_path,
        help="Text file, one document per line (or a directory of .txt files, subfolders included); see --encoding",
    ),
    output: Path = typer.Argument(
        ..., parser=file_output("vectors.txt"), help="Output vectors file (word2vec text format, binary with --binary)"
    ),
    sg: bool = typer.Option(True, "--sg/--cbow", help="Skip-gram (default) or CBOW"),
    size: int = typer.Option(100, "--size", min=1, max=MAX_DIM, help="Vector dimension (as the readers take)"),
    window: int = typer.Option(5, "--window", min=1, help="Context window (words each side)"),
    min_count: int = typer.Option(5, "--min-count", min=1, help="Ignore words rarer than this"),
    epochs: int = typer.Option(5, "--epochs", min=1, help="Passes over the corpus"),
    workers: int = typer.Option(2, "--workers", min=1, help="Training threads (1 = reproducible)"),
    binary: bool = BINARY,
    seed: int = typer.Option(0, "--seed", help="Random seed"),
    tokens: str = TOKENS,
    lang: str = LANG,
    encoding: str = CORPUS_ENCODING,
    on_error: str = CORPUS_ON_ERROR,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Train word2vec static vectors on a text corpus with gensim."""
    check_binary_name(output, binary, "train-static")
    check_output(output, what=WHAT, inputs={"CORPUS": corpus}, overwrite=overwrite, replaceable=VECTORS_FILE)
    vectors = write_file(
        output,
        lambda tmp: train_static_vectors(
            corpus, tmp, sg=sg, size=size, window=window, min_count=min_count, epochs=epochs, workers=workers,
            binary=binary, seed=seed, encoding=encoding, on_error=on_error, tokens=tokens, lang=lang,
        ),
        what=WHAT,
        overwrite=overwrite,
    )  # fmt: skip
    for warning in unsplit_script_warning(vectors.index_to_key, lang, UNSPLIT_EFFECT, UNSPLIT_HINT):
        warn_on_stderr(warning)  # W072: clauses of Chinese, not words
    kind = "binary" if binary else "text"
    msg.good(f"Wrote {len(vectors)} x {vectors.vector_size} vectors ({kind} word2vec) to {output}")
