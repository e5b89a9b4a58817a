"""`spacy-ctxvec export-static PIPELINE_OR_LEXICON OUTPUT`: type centroids as static
vectors in word2vec text format (see spacy_ctxvec.lexicon.export); with --senses one
row per induced sense, keyed ``bank|0``, ``bank|1``, and their labels beside it in
``OUTPUT.labels.tsv``. Both follow spacy_ctxvec.outputs."""

import dataclasses
import warnings
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer

from ..errors import CtxvecError, Errors, Warnings
from ..interrupts import interrupts_held
from ..lexicon.export import (
    export_sense_vectors,
    export_static_vectors,
    sense_labels_path,
    sense_labels_tsv,
    writable_words,
)
from ..lexicon.sense_inventory import SenseInventory
from ..output_files import LABELS_FILE, VECTORS_FILE
from ..outputs import check_output, write_file, write_text
from ..saved_pipeline import load_lexicon, load_senses_and_lexicon
from ..terminal import msg
from ._app import BINARY, OVERWRITE_FILE, app, check_binary_name, exit_on_coded_error, file_output, given_path

WHAT = "vectors file"
LABELS = "sense labels file"
MIN_COUNT = typer.Option(None, "--min-count", min=1, help="Only types with at least this many occurrences (default 1)")
SOURCE = typer.Argument(..., parser=given_path, help="Pipeline directory or package with ctxvec_polysemy, or a lexicon")


@app.command("export-static", short_help="Write each word's (or sense's) mean vector as a table.")
@exit_on_coded_error
def export_static_cli(
    source: Path = SOURCE,
    output: Path = typer.Argument(
        ...,
        parser=file_output("vectors.txt"),
        help="Output file (word2vec text format, binary with --binary; rows by descending count)",
    ),
    min_count: Optional[int] = MIN_COUNT,
    unit: bool = typer.Option(
        False,
        "--unit",
        help="Export unit-length directions instead of mean raw vectors (words: the mean of unit vectors, "
        "scaled to unit length; with --senses: each sense's mean, scaled to unit length)",
    ),
    binary: bool = BINARY,
    senses: bool = typer.Option(
        False,
        "--senses",
        help="One row per induced sense, keyed word|0, word|1 (sense2vec style; sense 0 is the largest); "
        "SOURCE: a pipeline with senses or a senses directory; --min-count does not apply (the senses' own "
        "min_count did: E421); the senses' labels go to OUTPUT.labels.tsv",
    ),
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Export per-type (or, with --senses, per-sense) mean contextual vectors as static word vectors."""
    check_binary_name(output, binary, "export-static")
    check_output(output, what=WHAT, inputs={"SOURCE": source}, overwrite=overwrite, replaceable=VECTORS_FILE)
    if senses:
        _export_senses(source, output, min_count, SenseExport(unit, binary), overwrite)
        return
    kind = "binary" if binary else "text"
    lexicon = load_lexicon(source)
    n_written = write_file(
        output,
        lambda tmp: export_static_vectors(lexicon, tmp, min_count=min_count or 1, unit=unit, binary=binary),
        what=WHAT,
        overwrite=overwrite,
    )
    msg.good(f"Wrote {n_written} x {lexicon.width} vectors (word2vec {kind}) to {output}")


@dataclass(frozen=True)
class SenseExport:
    """How the sense vectors are written: unit length, binary, the words' counts (their
    order; None: key order)."""

    unit: bool
    binary: bool
    counts: Optional[np.ndarray] = None


def _export_senses(source: Path, output: Path, min_count: Optional[int], how: SenseExport, overwrite: bool) -> None:
    """export-static --senses: the sense vectors, the words most frequent first where the
    source holds a lexicon, and their labels beside them (E421 for a --min-count)."""
    labels = sense_labels_path(output)
    check_output(
        labels,
        what=LABELS,
        inputs={"SOURCE": source},
        overwrite=overwrite,
        named_after="OUTPUT",
        replaceable=LABELS_FILE,
    )
    inventory, lexicon = load_senses_and_lexicon(source)
    if min_count is not None:
        senses_min_count = inventory.settings.get("min_count", "?")
        raise CtxvecError(Errors.E421.format(min_count=min_count, senses_min_count=senses_min_count))
    if lexicon is not None:
        how = dataclasses.replace(how, counts=np.array([lexicon.count_of(key) for key in inventory.keys]))
    n_written = _write_senses(inventory, output, labels, how, overwrite)
    kind = "binary" if how.binary else "text"
    msg.good(
        f"Wrote {n_written} x {inventory.width} sense vectors of {int(writable_words(inventory).sum())} words "
        f"(word2vec {kind}) to "
        f"{output}, their labels to {labels}"
    )


def _write_senses(inventory: SenseInventory, output: Path, labels: Path, how: SenseExport, overwrite: bool) -> int:
    """The sense vectors into OUTPUT's staged file, the labels into place, then OUTPUT: a labels
    write that fails leaves OUTPUT as it was. Ctrl-C is held from the labels' rename to OUTPUT's,
    so the two files are never left from different runs (W052 where one came). Returns the rows
    written."""
    with ExitStack() as renames:
        held: List[List[int]] = []  # the signals each hold received, filled as they come

        def vectors_then_labels(tmp: Path) -> int:
            n_rows = export_sense_vectors(inventory, tmp, unit=how.unit, binary=how.binary, counts=how.counts)
            text = sense_labels_tsv(inventory, how.counts)
            # OUTPUT checked again before the labels go in place: a file made there meanwhile stops both
            check_output(output, what=WHAT, overwrite=overwrite, replaceable=VECTORS_FILE)
            held.append(renames.enter_context(interrupts_held()))
            write_text(labels, text, what=LABELS, overwrite=overwrite)
            return n_rows

        n_written = write_file(output, vectors_then_labels, what=WHAT, overwrite=overwrite)
    if any(held):
        doing = f"{WHAT} '{output}' and {LABELS} '{labels}' were being put in place"
        warnings.warn(Warnings.W052.format(doing=doing), stacklevel=2)
    return n_written
