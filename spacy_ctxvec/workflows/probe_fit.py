"""`fit-polysemy` as a library function: fit a polysemy probe on a pipeline lexicon's
words with a known sense count, and save PIPELINE plus the probe as a new pipeline
(OUTPUT follows spacy_ctxvec.outputs: never an input, replaced only when made here)."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional

import numpy as np

from ..building.build_locks import held_for_build
from ..components.model_inputs import pipeline_model_fingerprint
from ..evaluation.correlation import PolysemyReport, polysemy_report
from ..evaluation.readers import read_sense_counts
from ..evaluation.tasks import polysemy_component, polysemy_lexicon
from ..lexicon.polysemy_probe import (
    FITTED_HALF,
    MIN_TRAINING_WORDS,
    PolysemyProbe,
    fit_probe,
    in_fitted_half,
    training_rows,
    unfittable,
)
from ..lexicon.sense_descriptions import describe_split_thresholds
from ..outputs import DIRECTORY, WrittenThenInterrupted, check_output, write_directory
from ..pipelines import load_pipeline


@dataclass
class ProbeFit:
    """What fit-polysemy did, for the command to print."""

    probe: PolysemyProbe
    held_out: Dict[str, PolysemyReport]  # "probe" and "self_similarity" on the held-out half; empty if skipped
    senses: Optional[str] = None  # the split thresholds, if senses were induced again
    no_held_out: Optional[str] = None  # why there is no held-out estimate (held_out_skipped), if there is none
    interrupted: Optional[str] = None  # W052 where Ctrl-C came while OUTPUT was put in place (it is whole)


def held_out_skipped(lexicon: Any, counts: Dict[str, int], *, min_count: int) -> Optional[str]:
    """Why there can be no held-out estimate: the half of the words its probe is fitted
    on (in_fitted_half) has too few words with a sense count, or one sense count for all
    of them (fit_probe would refuse with E653 or E655); None where there can be one."""
    rows, _, log_senses = training_rows(lexicon, counts, min_count)
    half = log_senses[in_fitted_half([lexicon.keys[row] for row in rows])]
    refusal = unfittable(half)
    if refusal is not None and refusal[0] == "too_few":
        return f"half of the words is fewer than {MIN_TRAINING_WORDS} to fit on"
    if refusal is not None:
        value = refusal[1]
        return (
            f"all {len(half)} words of the half to fit on ({FITTED_HALF}) have "
            f"{value} sense{'' if value == 1 else 's'}, so a probe has nothing to fit there"
        )
    return None


def held_out_estimate(
    lexicon: Any, counts: Dict[str, int], *, min_count: int, model: Optional[str], inputs: Optional[np.ndarray] = None
) -> Dict[str, PolysemyReport]:
    """Probe fitted on one half of the words (in_fitted_half) and self-similarity, both
    scored on the other half; empty where held_out_skipped says why there is none."""
    if held_out_skipped(lexicon, counts, min_count=min_count) is not None:
        return {}
    return _held_out_reports(lexicon, counts, min_count=min_count, model=model, inputs=inputs)


def _held_out_reports(
    lexicon: Any,
    counts: Dict[str, int],
    *,
    min_count: int,
    model: Optional[str],
    inputs: Optional[np.ndarray],
    probe: Optional[PolysemyProbe] = None,
) -> Dict[str, PolysemyReport]:
    """held_out_estimate where held_out_skipped has found nothing against it; ``probe``: one
    already fitted on the md5-even half with these settings (else it is fitted here)."""
    if probe is None:
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


def fit_polysemy_pipeline(
    pipeline: Path,
    sense_counts: Path,
    output: Path,
    *,
    min_count: Optional[int] = None,
    half: bool = True,
    overwrite: bool = False,
) -> ProbeFit:
    """Check OUTPUT, fit the probe (on the md5-even half of the words unless ``half`` is
    False; and a held-out estimate), induce the senses again so that the probe decides the
    splits (unless this corpus's evidence decides them: ``split_by_evidence``, the
    default), save OUTPUT. Another command writing OUTPUT stops it at once (E268)."""
    with held_for_build({"OUTPUT": output}):
        return _fit(pipeline, sense_counts, output, min_count=min_count, half=half, overwrite=overwrite)


def _fit(
    pipeline: Path, sense_counts: Path, output: Path, *, min_count: Optional[int], half: bool, overwrite: bool
) -> ProbeFit:
    inputs = {"PIPELINE": pipeline, "SENSE_COUNTS": sense_counts}
    check_output(output, what="OUTPUT", inputs=inputs, kind=DIRECTORY, overwrite=overwrite)
    counts = read_sense_counts(sense_counts)
    nlp = load_pipeline(pipeline)
    component = polysemy_component(nlp)
    lexicon = polysemy_lexicon(nlp, component, "fitting a polysemy probe")
    min_count = min_count or component.min_count
    model = pipeline_model_fingerprint(nlp)
    if component.type_inputs is None:
        component.set_type_inputs(nlp)
    inputs_table = component.type_inputs
    no_held_out = held_out_skipped(lexicon, counts, min_count=min_count)
    probe = fit_probe(
        lexicon,
        counts,
        min_count=min_count,
        model=model,
        half=half,
        inputs=None if inputs_table is None else [inputs_table],
        trained_on=f"{Path(sense_counts).name} and {Path(pipeline).name}'s lexicon",
    )
    half_probe = probe if half else None  # the held-out estimate's probe: the same fit, not a second one
    estimate = (
        {}
        if no_held_out
        else _held_out_reports(lexicon, counts, min_count=min_count, model=model, inputs=inputs_table, probe=half_probe)
    )
    component.set_probe(probe)
    fit = ProbeFit(probe, estimate, no_held_out=no_held_out)
    by_evidence = component.induction.split_by_evidence  # the corpus decides: the probe does not change the senses
    if component.senses is not None and lexicon.sample is not None and component.induce and not by_evidence:
        component.build_senses()  # the probe now decides which types split
        fit.senses = describe_split_thresholds(component.senses.settings)
    try:
        write_directory(output, nlp.to_disk, what="OUTPUT", made_by="fit-polysemy", overwrite=overwrite)
    except WrittenThenInterrupted as stop:  # OUTPUT is in place: the fit is done, not stopped
        fit.interrupted = stop.warning()
    return fit
