"""`spacy-ctxvec fit-polysemy PIPELINE SENSE_COUNTS OUTPUT`: fit a polysemy probe on the
pipeline lexicon's words with a known sense count, and save PIPELINE plus the probe as
a new pipeline whose polysemy_score is the probe's estimate of each word's number of
senses. Senses in PIPELINE are induced again, so that the probe decides which words
split. Like build-lexicon, it never writes into its inputs."""

import json
from pathlib import Path
from typing import Any, Dict, Optional

import numpy as np
import typer
from wasabi import msg

from ..components.polysemy import pipeline_model_fingerprint
from ..errors import CtxvecError, Errors
from ..evaluation.correlation import PolysemyReport, polysemy_report
from ..evaluation.readers import read_sense_counts
from ..evaluation.tasks import polysemy_component
from ..lexicon.polysemy_probe import MIN_TRAINING_WORDS, fit_probe, in_fitted_half, training_rows
from ..lexicon.sense_inventory import describe_split_thresholds
from ..pipelines import load_pipeline
from ._app import app, exit_on_coded_error
from .build_lexicon import check_pipeline_output, save_output


def held_out_estimate(
    lexicon: Any, counts: Dict[str, int], *, min_count: int, model: Optional[str], inputs: Optional[np.ndarray] = None
) -> Dict[str, PolysemyReport]:
    """Probe fitted on one half of the words (in_fitted_half) and self-similarity, both
    scored on the other half; empty if that half has too few words to fit on."""
    rows, _, _ = training_rows(lexicon, counts, min_count)
    if in_fitted_half([lexicon.keys[row] for row in rows]).sum() < MIN_TRAINING_WORDS:
        return {}
    probe = fit_probe(
        lexicon, counts, min_count=min_count, model=model, half=True, inputs=None if inputs is None else [inputs]
    )
    held_out = ~in_fitted_half(lexicon.keys)
    probe_scores, valid = probe.scores(lexicon, min_count, inputs)
    self_similarity, _ = lexicon.polysemy_scores(min_count)
    return {
        name: polysemy_report(lexicon.keys, scores, valid, lexicon.counts, counts, score=name, words=held_out)
        for name, scores in (("probe", probe_scores), ("self_similarity", self_similarity))
    }


@app.command("fit-polysemy")
@exit_on_coded_error
def fit_polysemy_cli(
    # fmt: off
    pipeline: Path = typer.Argument(..., help="Pipeline with a ctxvec_polysemy lexicon (build-lexicon output)"),
    sense_counts: Path = typer.Argument(
        ..., help="TSV word<TAB>sense count, e.g. from scripts/wordnet_sense_counts.py"
    ),
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
        False, "--overwrite", help="Replace OUTPUT if it is an earlier build-lexicon or fit-polysemy output"
    ),
    # fmt: on
) -> None:
    """Fit polysemy_score to dictionary sense counts: a ridge regression from each word's
    lexicon statistics (unit centroid, log frequency, self-similarity) to its log sense
    count. Prints a held-out estimate (fitted on half of the words, scored on the other
    half, beside self-similarity on the same words)."""
    check_pipeline_output(output, [("PIPELINE", pipeline), ("SENSE_COUNTS", sense_counts)], overwrite=overwrite)
    counts = read_sense_counts(sense_counts)
    nlp = load_pipeline(pipeline)
    component = polysemy_component(nlp)
    lexicon = component.lexicon
    if lexicon is None or not len(lexicon):
        raise CtxvecError(
            Errors.E307.format(
                pipe_names=nlp.pipe_names,
                component="ctxvec_polysemy (with a lexicon)",
                attribute="polysemy_score",
                hint="Its lexicon is empty: build one with `spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT`.",
            )
        )
    min_count = min_count or component.min_count
    model = pipeline_model_fingerprint(nlp)
    if component.type_inputs is None:
        component.set_type_inputs(nlp)
    inputs = component.type_inputs
    estimate = held_out_estimate(lexicon, counts, min_count=min_count, model=model, inputs=inputs)
    probe = fit_probe(
        lexicon,
        counts,
        min_count=min_count,
        model=model,
        half=half,
        inputs=None if inputs is None else [inputs],
        trained_on=f"{sense_counts.name} and {Path(pipeline).name}'s lexicon",
    )
    component.set_probe(probe)
    reinduced = component.senses is not None and lexicon.sample is not None and component.induce
    if reinduced:  # the probe now decides which types split
        component.build_senses()
    save_output(nlp, output)
    if as_json:
        print(
            json.dumps(
                {"probe": probe.meta, "held_out": {name: report.to_dict() for name, report in estimate.items()}},
                indent=2,
            )
        )
        return
    if not estimate:
        msg.warn(f"No held-out estimate: half of the words is fewer than {MIN_TRAINING_WORDS} to fit on.")
    for name, report in estimate.items():
        msg.info(
            f"held-out half, {name}: spearman {report.spearman:.3f}, partial (log frequency out) {report.partial_spearman:.3f}, "
            f"AUC monosemous vs polysemous {'undefined' if report.auc is None else f'{report.auc:.3f}'} ({report.n_covered} words)"
        )
    if reinduced:
        msg.info(f"Senses induced again: {describe_split_thresholds(component.senses.settings)}")
    msg.good(
        f"Fitted the polysemy probe on {probe.meta['n_words']} words ({probe.meta['fitted_words']}; ridge alpha "
        f"{probe.meta['alpha']:.3g}); saved pipeline to {output}"
    )
