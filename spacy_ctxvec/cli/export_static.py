"""`spacy-ctxvec export-static PIPELINE_OR_LEXICON OUTPUT`: type centroids as static
vectors in word2vec text format (see spacy_ctxvec.lexicon.export); with --senses one
row per induced sense, keyed ``bank|0``, ``bank|1``, and their labels beside it in
``OUTPUT.labels.tsv``. Both follow spacy_ctxvec.outputs."""

from pathlib import Path

import typer
from wasabi import msg

from ..lexicon.export import export_sense_vectors, export_static_vectors, sense_labels_path, sense_labels_tsv
from ..lexicon.sense_inventory import SenseInventory
from ..outputs import check_output, write_file, write_text
from ..saved_pipeline import load_lexicon, load_senses
from ._app import OVERWRITE_FILE, app, exit_on_coded_error, file_output, given_path

WHAT = "vectors file"
LABELS = "sense labels file"
SOURCE = typer.Argument(..., parser=given_path, help="Pipeline directory or package with ctxvec_polysemy, or a lexicon")


@app.command("export-static", short_help="Write each word's (or sense's) mean vector as a table.")
@exit_on_coded_error
def export_static_cli(
    source: Path = SOURCE,
    output: Path = typer.Argument(..., parser=file_output("vectors.txt"), help="Output file (word2vec text format)"),
    min_count: int = typer.Option(1, "--min-count", min=1, help="Only types with at least this many occurrences"),
    unit: bool = typer.Option(
        False, "--unit", help="Export unit-length directions (mean of unit vectors) instead of mean raw vectors"
    ),
    senses: bool = typer.Option(
        False,
        "--senses",
        help="One row per induced sense, keyed word|0, word|1 (sense2vec style; sense 0 is the largest); "
        "SOURCE: a pipeline with senses or a senses directory; --min-count does not apply (the senses' own "
        "min_count did); the senses' labels go to OUTPUT.labels.tsv",
    ),
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Export per-type (or, with --senses, per-sense) mean contextual vectors as static word vectors."""
    check_output(output, what=WHAT, inputs={"SOURCE": source}, overwrite=overwrite)
    if senses:
        labels = sense_labels_path(output)
        check_output(labels, what=LABELS, inputs={"SOURCE": source}, overwrite=overwrite, named_after="OUTPUT")
        inventory = load_senses(source)
        n_written = _write_senses(inventory, output, labels, unit, overwrite)
        msg.good(
            f"Wrote {n_written} x {inventory.width} sense vectors of {len(inventory)} words (word2vec text) to "
            f"{output}, their labels to {labels}"
        )
        return
    lexicon = load_lexicon(source)
    n_written = write_file(
        output,
        lambda tmp: export_static_vectors(lexicon, tmp, min_count=min_count, unit=unit),
        what=WHAT,
        overwrite=overwrite,
    )
    msg.good(f"Wrote {n_written} x {lexicon.width} vectors (word2vec text) to {output}")


def _write_senses(inventory: SenseInventory, output: Path, labels: Path, unit: bool, overwrite: bool) -> int:
    """The sense vectors into OUTPUT's staged file, the labels into place, then OUTPUT: a labels
    write that fails leaves OUTPUT as it was. Returns the rows written."""

    def vectors_then_labels(tmp: Path) -> int:
        n_rows = export_sense_vectors(inventory, tmp, unit=unit)
        write_text(labels, sense_labels_tsv(inventory), what=LABELS, overwrite=overwrite)
        return n_rows

    return write_file(output, vectors_then_labels, what=WHAT, overwrite=overwrite)
