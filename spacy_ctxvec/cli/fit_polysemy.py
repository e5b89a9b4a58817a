"""`spacy-ctxvec fit-polysemy PIPELINE SENSE_COUNTS OUTPUT`: fit a polysemy probe on the
pipeline lexicon's words with a known sense count, and save PIPELINE plus the probe as
a new pipeline whose polysemy_score is the probe's estimate of each word's number of
senses (spacy_ctxvec.workflows.probe_fit does the work). By default the probe is fitted on
the md5-even half of the words only, so the odd half stays held out. Senses in PIPELINE are
induced again where the probe decides which words split (split_by_evidence = false). It never
writes into its inputs."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Optional

import typer

from ..errors import PREFIX, Warnings
from ..terminal import msg, stderr_printer
from ._app import app, exit_on_coded_error, given_path, note_on_stderr, warn_on_stderr

if TYPE_CHECKING:  # the workflow (scikit-learn) is imported when the command runs
    from ..evaluation.correlation import PolysemyReport
    from ..workflows.probe_fit import ProbeFit


@app.command("fit-polysemy", short_help="Fit polysemy_score to dictionary sense counts.")
@exit_on_coded_error
def fit_polysemy_cli(
    pipeline: Path = typer.Argument(
        ..., parser=given_path, help="Pipeline with a ctxvec_polysemy lexicon (build-lexicon output)"
    ),
    sense_counts: Path = typer.Argument(
        ..., parser=given_path, help="TSV word<TAB>sense count (e.g. scripts/wordnet_sense_counts.py)"
    ),
    output: Path = typer.Argument(
        ..., parser=given_path, help="New pipeline directory: PIPELINE + the probe in ctxvec_polysemy"
    ),
    min_count: Optional[int] = typer.Option(
        None, "--min-count", min=2, help="Fit on types seen at least N times (default: the component's min_count)"
    ),
    half: bool = typer.Option(
        True,
        "--half/--all-words",
        help="Fit on the md5-even half of the words only (default), so that the odd half stays held out and "
        "`evaluate polysemy` reports it; --all-words fits on every word with a count (no held-out words remain)",
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
    if as_json:  # the JSON alone on stdout: its warnings and the saved pipeline's line on stderr
        print(json.dumps(fit_to_dict(fit), indent=2, ensure_ascii=False))
        warn_of_fit(fit)
        note_on_stderr(stderr_printer().good(saved_line(fit, output)))
        return
    print_fit(fit, output)


def print_fit(fit: "ProbeFit", output: Path) -> None:
    for name, report in fit.held_out.items():
        msg.info(
            f"held-out half, {name}: spearman {_defined(report.spearman)}{undefined_why(report)}, partial "
            f"(log frequency out) {_defined(report.partial_spearman)}, AUC monosemous vs polysemous "
            f"{_defined(report.auc)} ({report.n_covered} words)"
        )
    warn_of_fit(fit)
    if fit.senses:
        msg.info(f"Senses induced again: {fit.senses}")
    msg.good(saved_line(fit, output))


def warn_of_fit(fit: "ProbeFit") -> None:
    """W076 where there is no held-out estimate, W042 for held-out Spearmans undefined, W052 for a
    Ctrl-C held while OUTPUT was put in place: on stderr."""
    if fit.interrupted:
        warn_on_stderr(fit.interrupted)
    if fit.no_held_out:
        warn_on_stderr(Warnings.W076.format(why=fit.no_held_out))
    undefined = [name for name, report in fit.held_out.items() if report.spearman is None]
    if undefined:
        warn_on_stderr(Warnings.W042.format(scores=" and ".join(undefined)))


def saved_line(fit: "ProbeFit", output: Path) -> str:
    meta = fit.probe.meta
    return (
        f"Fitted the polysemy probe on {meta['n_words']} words ({meta['fitted_words']}; ridge alpha "
        f"{meta['alpha']:.3g}); saved pipeline to {output}"
    )


def fit_to_dict(fit: "ProbeFit") -> Dict[str, object]:
    """What `fit-polysemy --json` prints: "probe", the probe's meta; "held_out", per score
    the held-out half's report (the keys of `evaluate polysemy`'s JSON, Spearmans null
    where undefined) and "undefined", why its Spearman is undefined (undefined_to_dict) or
    null; "no_held_out", why there is no held-out estimate ("held_out" is then {}) or null."""
    held_out = {
        name: {**report.to_dict(with_held_out=False), "undefined": undefined_to_dict(report)}
        for name, report in fit.held_out.items()
    }
    return {"probe": fit.probe.meta, "held_out": held_out, "no_held_out": fit.no_held_out}


def undefined_to_dict(report: "PolysemyReport") -> Optional[Dict[str, object]]:
    """Why a held-out Spearman is undefined, for JSON (None where it is defined): "reason",
    PolysemyReport.undefined's kind (too_few_pairs, constant_sense_counts or
    constant_polysemy_scores); "value", the one sense count or score (null for too few
    words); "code", the error `evaluate polysemy` exits with for it (CTX-E321, CTX-E326,
    CTX-E327); "message", the words of the held-out line (undefined_why)."""
    from ..evaluation.correlation import TOO_FEW_PAIRS, polysemy_undefined_code

    if report.spearman is None:
        kind, value = report.undefined or (TOO_FEW_PAIRS, None)
        code = f"{PREFIX}{polysemy_undefined_code(kind)}"
        return {"reason": kind, "value": value, "code": code, "message": _undefined_words(report)}
    return None


def undefined_why(report: "PolysemyReport") -> str:
    """Why a held-out Spearman is undefined, in a few words in brackets ("" where it is
    defined): too few words with a sense count, one sense count or one score for all."""
    return "" if report.spearman is not None else f" ({_undefined_words(report)})"


def _undefined_words(report: "PolysemyReport") -> str:
    # imported here: evaluation.correlation pulls in scipy, and `--help` stays light
    from ..evaluation.correlation import CONSTANT_POLYSEMY_SCORES, CONSTANT_SENSE_COUNTS, MIN_PAIRS

    kind, value = report.undefined or ("", None)
    if kind == CONSTANT_SENSE_COUNTS:
        return f"all words have {value:g} sense{'' if value == 1 else 's'}"
    if kind == CONSTANT_POLYSEMY_SCORES:
        return f"all words have the same score, {value:.3g}"
    return f"fewer than {MIN_PAIRS} words"


def _defined(value: Optional[float]) -> str:
    return "undefined" if value is None else f"{value:.3f}"
