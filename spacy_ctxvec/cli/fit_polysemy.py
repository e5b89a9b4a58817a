"""`spacy-ctxvec fit-polysemy PIPELINE SENSE_COUNTS OUTPUT`: fit a polysemy probe on the
pipeline lexicon's words with a known sense count, and save PIPELINE plus the probe as
a new pipeline whose polysemy_score is the probe's estimate of each word's number of
senses (spacy_ctxvec.workflows.probe_fit does the work). Senses in PIPELINE are induced
again, so that the probe decides which words split. It never writes into its inputs."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from wasabi import msg

from ..errors import Warnings
from ._app import app, exit_on_coded_error

if TYPE_CHECKING:  # the workflow (scikit-learn) is imported when the command runs
    from ..evaluation.correlation import PolysemyReport
    from ..workflows.probe_fit import ProbeFit


@app.command("fit-polysemy", short_help="Fit polysemy_score to dictionary sense counts.")
@exit_on_coded_error
def fit_polysemy_cli(
    pipeline: Path = typer.Argument(..., help="Pipeline with a ctxvec_polysemy lexicon (build-lexicon output)"),
    sense_counts: Path = typer.Argument(..., help="TSV word<TAB>sense count (e.g. scripts/wordnet_sense_counts.py)"),
    output: Path = typer.Argument(..., help="New pipeline directory: PIPELINE + the probe in ctxvec_polysemy"),
    min_count: Optional[int] = typer.Option(
        None, "--min-count", min=2, help="Fit on types seen at least N times (default: the component's min_count)"
    ),
    half: bool = typer.Option(
        False,
        "--half",
        help="Fit on one half of the words only (md5 parity), so that `evaluate polysemy` also reports the other half",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the held-out estimate as JSON"),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace OUTPUT if it is an earlier output holding only what it wrote"
    ),
) -> None:
    """Fit polysemy_score to dictionary sense counts: a ridge regression from each word's
    lexicon statistics (unit centroid, log frequency, self-similarity) to its log sense
    count. Prints a held-out estimate (fitted on half of the words, scored on the other
    half, beside self-similarity on the same words)."""
    from ..workflows.probe_fit import fit_polysemy_pipeline

    fit = fit_polysemy_pipeline(pipeline, sense_counts, output, min_count=min_count, half=half, overwrite=overwrite)
    if as_json:
        held_out = {name: report.to_dict(with_held_out=False) for name, report in fit.held_out.items()}
        print(json.dumps({"probe": fit.probe.meta, "held_out": held_out}, indent=2))
        return
    print_fit(fit, output)


def print_fit(fit: "ProbeFit", output: Path) -> None:
    if fit.no_held_out:
        msg.warn(f"No held-out estimate: {fit.no_held_out}.")
    for name, report in fit.held_out.items():
        msg.info(
            f"held-out half, {name}: spearman {_defined(report.spearman)}{undefined_why(report)}, partial "
            f"(log frequency out) {_defined(report.partial_spearman)}, AUC monosemous vs polysemous "
            f"{_defined(report.auc)} ({report.n_covered} words)"
        )
    undefined = [name for name, report in fit.held_out.items() if report.spearman is None]
    if undefined:
        msg.warn(Warnings.W042.format(scores=" and ".join(undefined)))
    if fit.senses:
        msg.info(f"Senses induced again: {fit.senses}")
    meta = fit.probe.meta
    msg.good(
        f"Fitted the polysemy probe on {meta['n_words']} words ({meta['fitted_words']}; ridge alpha "
        f"{meta['alpha']:.3g}); saved pipeline to {output}"
    )


def undefined_why(report: "PolysemyReport") -> str:
    """Why a held-out Spearman is undefined, in a few words in brackets ("" where it is
    defined): too few words with a sense count, one sense count or one score for all."""
    # imported here: evaluation.correlation pulls in scipy, and `--help` stays light
    from ..evaluation.correlation import CONSTANT_POLYSEMY_SCORES, CONSTANT_SENSE_COUNTS, MIN_PAIRS

    if report.spearman is not None:
        return ""
    kind, value = report.undefined or ("", None)
    if kind == CONSTANT_SENSE_COUNTS:
        return f" (all words have {value:g} sense{'' if value == 1 else 's'})"
    if kind == CONSTANT_POLYSEMY_SCORES:
        return f" (all words have the same score, {value:.3g})"
    return f" (fewer than {MIN_PAIRS} words)"


def _defined(value: Optional[float]) -> str:
    return "undefined" if value is None else f"{value:.3f}"
