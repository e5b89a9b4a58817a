"""`spacy-ctxvec export-static PIPELINE_OR_LEXICON OUTPUT`: type centroids as static
vectors in word2vec text format (Bommasani et al. 2020: a word's contextual vectors
averaged over many contexts). Loadable with gensim's load_word2vec_format and with
ctxvec_static's spacy-ctxvec.vectors_file.v1."""
import io
from pathlib import Path

import numpy as np
import typer
from wasabi import msg

from ..components.polysemy import load_lexicon
from ..lexicon.table import Lexicon
from ._app import app, exit_on_coded_error


def export_static_vectors(lexicon: Lexicon, output: Path, *, min_count: int = 1, unit: bool = False) -> int:
    """Write the centroids of types with >= min_count occurrences (and no whitespace in
    the key, which word2vec text format cannot hold); return how many were written."""
    keys = np.array(lexicon.keys, dtype=str)
    writable = (np.asarray(lexicon.counts) >= min_count) & np.array([k != "" and len(k.split()) == 1 and k == k.strip() for k in lexicon.keys], dtype=bool)
    vectors = (lexicon.unit_centroids() if unit else lexicon.centroids())[writable]
    buffer = io.StringIO()
    np.savetxt(buffer, vectors, fmt="%.6g", delimiter=" ")
    lines = buffer.getvalue().splitlines() if len(vectors) else []
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf8") as handle:
        handle.write(f"{len(lines)} {lexicon.width}\n")
        for key, line in zip(keys[writable], lines):
            handle.write(f"{key} {line}\n")
    return len(lines)


@app.command("export-static")
@exit_on_coded_error
def export_static_cli(
    source: Path = typer.Argument(..., help="Pipeline directory with ctxvec_polysemy, or a lexicon directory"),
    output: Path = typer.Argument(..., help="Output file (word2vec text format)"),
    min_count: int = typer.Option(1, "--min-count", min=1, help="Only types with at least this many occurrences"),
    unit: bool = typer.Option(False, "--unit", help="Export unit-length directions (mean of unit vectors) instead of mean raw vectors"),
) -> None:
    """Export per-type mean contextual vectors as static word vectors."""
    lexicon = load_lexicon(source)
    n_written = export_static_vectors(lexicon, output, min_count=min_count, unit=unit)
    msg.good(f"Wrote {n_written} x {lexicon.width} vectors (word2vec text) to {output}")
