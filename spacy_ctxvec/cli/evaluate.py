"""`spacy-ctxvec evaluate wic|word-sim|scws|polysemy|senses`: quality on external data."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import typer

from ..devices import require_gpu
from ..errors import CtxvecError, Errors, Warnings
from ..evaluation.readers import (
    WIC_SPLITS,
    read_scws,
    read_sense_counts,
    read_wic,
    read_word_pair_files,
)
from ..evaluation.sense_sentences import read_sense_sentences
from ..ops.text import count_of, text_table
from ..output_files import JSON_FILE
from ..outputs import check_output, write_text
from ..paths import distinct_displayable
from ..pipelines import load_pipeline
from ..terminal import msg
from ..types import PathLike
from ._app import (
    GPU_ID,
    KEPT_WARNINGS,
    OVERWRITE_FILE,
    app,
    exit_on_coded_error,
    file_output,
    given_path,
    given_text,
    keeps_warnings,
    note_on_stderr,
    stderr_printer,
    warn_on_stderr,
)

if TYPE_CHECKING:
    from spacy.language import Language

    from ..evaluation.correlation import CorrelationReport

# The evaluations (evaluation.tasks, .wic, .correlation: scikit-learn, scipy) are imported
# inside the commands, so that `--help` and a bad argument do not wait for them.

evaluate_app = typer.Typer(help="Evaluate a pipeline's vectors on external data sets.", no_args_is_help=True)
app.add_typer(evaluate_app, name="evaluate")

PIPELINE_HELP = "Pipeline directory, installed package, or a .cfg to assemble"
# The same result options on every evaluation.
PRINT_JSON = typer.Option(False, "--json", help="Print JSON")
JSON_OUTPUT = typer.Option(
    None, "--output", "-o", parser=file_output("results.json"), help="Also write the JSON result to this file"
)
# Tables pad by display width (a CJK or emoji file name keeps the columns in line); a cell
# longer than this is shown whole, past its column (as wasabi's table did).
TABLE_MAX_COL = 80
RELIABLE_PAIRS = 10  # a word-sim (W043) or SCWS (W050) Spearman over fewer covered pairs is noisy
RELIABLE_WORDS = 30  # an `evaluate polysemy` Spearman / AUC over fewer words is noisy (W055)


def _load_pipeline(pipeline: str, gpu_id: int) -> "Language":
    """The pipeline, its transformer on GPU ``gpu_id`` where that is 0 or more (E136 where it cannot be)."""
    if gpu_id >= 0:
        require_gpu(gpu_id)
    return load_pipeline(pipeline)


def _print_json(data: Dict[str, Any]) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _check_output(output: Optional[Path], overwrite: bool, *inputs: PathLike) -> None:
    if output is not None:
        check_output(output, what="--output file", inputs=inputs, overwrite=overwrite, replaceable=JSON_FILE)


def _rho(value: Optional[float]) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _fail_if_undefined(reports: List["CorrelationReport"]) -> None:
    """Exit non-zero (coded error) if some report's Spearman is undefined, saying why for each."""
    from ..evaluation.correlation import CONSTANT_COSINES, CONSTANT_SCORES, MIN_PAIRS

    reasons = []
    for report in reports:
        if report.spearman is None:
            kind, value = report.undefined or ("", None)
            code = {CONSTANT_SCORES: Errors.E323, CONSTANT_COSINES: Errors.E324}.get(kind, Errors.E320)
            named = {"name": report.name, "n_covered": report.n_covered, "n_pairs": report.n_pairs}
            reasons.append(code.format(**named, minimum=MIN_PAIRS, value=value))
    for reason in reasons[:-1]:  # each its own "✘" line; the last ends the command
        typer.echo(stderr_printer().fail(reason), err=True)
    if reasons:
        raise CtxvecError(reasons[-1])


def _write_json(data: Dict[str, Any], output: Optional[Path], overwrite: bool, as_json: bool) -> None:
    if output is not None:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_text(output, text, what="--output file", overwrite=overwrite)
        if as_json:  # stdout: the JSON only
            note_on_stderr(stderr_printer().good(f"Wrote the report to {output}"))
        else:  # beside the table, as every command names what it wrote
            msg.good(f"Wrote the report to {output}")


def _publish(
    result: Dict[str, Any], nlp: Any, pipeline: str, output: Optional[Path], overwrite: bool, as_json: bool
) -> bool:
    """``result`` with what was measured ("pipeline": evaluation.provenance) written to
    ``output`` and, with --json, printed (True); else the pipeline line is printed (False)."""
    from ..evaluation.provenance import describe_record, pipeline_record

    record = pipeline_record(nlp, pipeline)
    result = {**result, "warnings": list(KEPT_WARNINGS), "pipeline": record}  # as stderr showed them
    _write_json(result, output, overwrite, as_json)
    if as_json:
        _print_json(result)
    else:
        msg.info(describe_record(record))
    return as_json


@evaluate_app.command("wic", short_help="Word-in-Context accuracy of the contextual vectors.")
@exit_on_coded_error
@keeps_warnings
def wic_cli(
    pipeline: str = typer.Argument(..., parser=given_text, help=PIPELINE_HELP),
    data_dir: Path = typer.Argument(
        ..., parser=given_path, help="WiC directory with {train,SPLIT}.data.txt and .gold.txt"
    ),
    split: str = typer.Option("dev", "--split", help="Split to report: dev or test (train is for fitting)"),
    target_only: bool = typer.Option(
        False, "--target-only", help="Use only the target's vectors, not the context cosine"
    ),
    max_examples: Optional[int] = typer.Option(
        None, "--max-examples", min=2, help="Use only the first N examples of each split"
    ),
    gpu_id: int = GPU_ID,
    as_json: bool = PRINT_JSON,
    output: Optional[Path] = JSON_OUTPUT,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Word-in-Context accuracy; every decision is fitted on the train split."""
    if split not in WIC_SPLITS[1:]:
        raise CtxvecError(Errors.E308.format(split=split, choices=", ".join(WIC_SPLITS[1:])))
    _check_output(output, overwrite, pipeline, data_dir)
    train, evaluated = read_wic(data_dir, "train"), read_wic(data_dir, split)
    if max_examples is not None:
        train, evaluated = train.head(max_examples), evaluated.head(max_examples)
    from ..evaluation.tasks import evaluate_wic
    from ..evaluation.wic import ALL_FAMILIES, TARGET_FAMILIES, check_wic_train

    check_wic_train(train.labels, train.targets)  # before the minutes of model work
    families = TARGET_FAMILIES if target_only else ALL_FAMILIES
    if not as_json:
        n_sentences = 2 * (len(train.labels) + len(evaluated.labels))
        note_on_stderr(stderr_printer().info(f"WiC: running {n_sentences:,} sentences through the pipeline"))
    nlp = _load_pipeline(pipeline, gpu_id)
    report, n_missing = evaluate_wic(nlp, train, evaluated, split, families=families)
    settings = {"max_examples": max_examples, "target_only": target_only}
    read = list(dict.fromkeys(view for family in families for view in report.per_family(family)))  # "layer_3"
    result = {**report.to_dict(), "targets_without_vector": n_missing, **settings, "layers_read": read}
    if not _publish(result, nlp, pipeline, output, overwrite, as_json):
        print_wic(report, split, n_missing)


# The pipeline line names the pipeline's own layer setting, which WiC does not use alone.
WIC_LAYERS_NOTE = (
    "WiC reads the target at every hidden state with the pipeline's pooling, whatever layer the "
    "pipeline's contextual vectors are set to: threshold[family/layer_N] reads layer N (layer_last where "
    "the transformer outputs its last layer only), logistic[...] combines every layer"
)


def print_wic(report: Any, split: str, n_missing: int) -> None:
    msg.info(f"WiC {split}: {report.n_examples} examples; decisions fitted on {report.n_train} train examples")
    msg.info(WIC_LAYERS_NOTE)
    rows = [
        (name, f"{v['train_cv_accuracy']:.3f}", f"{v['train_accuracy']:.3f}", f"{v['accuracy']:.3f}")
        for name, v in report.settings.items()
    ]
    header = ("setting", "train CV", "train", split)
    typer.echo(text_table(rows, header=header, aligns=("l", "r", "r", "r"), max_col=TABLE_MAX_COL))
    if n_missing:
        warn_on_stderr(Warnings.W003.format(n_missing=n_missing))
    msg.good(f"accuracy {report.accuracy:.3f} ({report.chosen}, chosen by train cross-validation)")


@evaluate_app.command("word-sim", short_help="Spearman of static-vector cosines with human scores.")
@exit_on_coded_error
def word_sim_cli(
    pipeline: str = typer.Argument(..., parser=given_text, help=PIPELINE_HELP),
    files: List[Path] = typer.Argument(
        ..., parser=given_path, help="word1 word2 score files (SimLex-999, WordSim-353, RG-65, SimVerb-3500, ...)"
    ),
    gpu_id: int = GPU_ID,
    as_json: bool = PRINT_JSON,
    output: Optional[Path] = JSON_OUTPUT,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Spearman of token._.static_vec cosines with human scores, with coverage. A file
    with fewer than 3 covered pairs has an undefined Spearman: reported, exit status 1."""
    _check_output(output, overwrite, pipeline, *files)
    all_pairs = read_word_pair_files(files)
    from ..evaluation.tasks import evaluate_word_sim

    nlp = _load_pipeline(pipeline, gpu_id)
    keys = distinct_displayable(list(all_pairs))  # two undecodable file names stay two keys (and names)
    reports = [evaluate_word_sim(nlp, pairs, keys[path]) for path, pairs in all_pairs.items()]
    from ..evaluation.provenance import describe_record, pipeline_record

    record = pipeline_record(nlp, pipeline)  # in each file's report: the keys stay the files
    result = {keys[path]: _word_sim_report(report, all_pairs[path], record) for path, report in zip(all_pairs, reports)}
    _write_json(result, output, overwrite, as_json)
    if as_json:
        _print_json(result)
    else:
        msg.info(describe_record(record))
        for path, pairs in all_pairs.items():
            if pairs.header is not None:
                msg.info(f"{keys[path]}: {pairs.header} read as a header (not a pair)")
        rows = [
            (keys[path], _rho(r.spearman), f"{r.n_covered}/{r.n_pairs}", f"{r.coverage:.3f}")
            for path, r in zip(all_pairs, reports)
        ]
        header = ("file", "spearman", "covered", "coverage")
        typer.echo(text_table(rows, header=header, aligns=("l", "r", "r", "r"), max_col=TABLE_MAX_COL))
    _warn_on_coverage(reports)
    _fail_if_undefined(reports)


def _word_sim_report(report: Any, pairs: Any, record: Dict[str, Any]) -> Dict[str, Any]:
    """One file's entry of `evaluate word-sim --json`: its report, the header read, the pipeline."""
    return {**report.to_dict(), "header": pairs.header, "pipeline": record}


def _warn_on_coverage(reports: List[Any]) -> None:
    """W043 for a defined Spearman over under half of a file's pairs or under RELIABLE_PAIRS pairs."""
    for report in reports:
        if report.spearman is not None and (report.coverage < 0.5 or report.n_covered < RELIABLE_PAIRS):
            few = f"; under {RELIABLE_PAIRS} pairs, it is noisy" if report.n_covered < RELIABLE_PAIRS else ""
            warn_on_stderr(
                Warnings.W043.format(name=report.name, n_covered=report.n_covered, n_pairs=report.n_pairs, few=few)
            )


@evaluate_app.command("scws", short_help="Spearman of contextual cosines with SCWS scores.")
@exit_on_coded_error
@keeps_warnings
def scws_cli(
    pipeline: str = typer.Argument(..., parser=given_text, help=PIPELINE_HELP),
    file: Path = typer.Argument(..., parser=given_path, help="SCWS ratings.txt (targets marked <b> word </b>)"),
    gpu_id: int = GPU_ID,
    as_json: bool = PRINT_JSON,
    output: Optional[Path] = JSON_OUTPUT,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Spearman of contextual cosines (token._.context_vec) in context with SCWS ratings
    (undefined with fewer than 3 covered pairs: reported, exit status 1)."""
    _check_output(output, overwrite, pipeline, file)
    pairs = read_scws(file)
    from ..evaluation.tasks import evaluate_scws

    if not as_json:
        progress = (
            f"SCWS: running the {2 * len(pairs.scores):,} contexts of {len(pairs.scores):,} pairs through the "
            "pipeline (long contexts: several minutes per thousand on a CPU)"
        )
        note_on_stderr(stderr_printer().info(progress))
    nlp = _load_pipeline(pipeline, gpu_id)
    report = evaluate_scws(nlp, pairs, file.name)
    if report.spearman is not None and report.n_covered < RELIABLE_PAIRS:  # before the report, which lists it
        name, minimum = str(file), RELIABLE_PAIRS
        warn_on_stderr(Warnings.W050.format(name=name, n_covered=report.n_covered, minimum=minimum))
    if not _publish(report.to_dict(), nlp, pipeline, output, overwrite, as_json):
        print_scws(report)
    _fail_if_undefined([report])


def print_scws(report: Any) -> None:
    rows = [(name, _rho(value)) for name, value in report.details.items() if name.startswith("layer")]
    typer.echo(text_table(rows, header=("layer", "spearman"), aligns=("l", "r"), max_col=TABLE_MAX_COL))
    msg.info(
        f"same-word pairs ({int(report.details['same_word_pairs'])}): spearman "
        f"{_rho(report.details['same_word_spearman'])}"
    )
    details = report.details
    if "static_vec" in details:
        msg.info(
            f"static_vec (one vector per word): spearman {_rho(details['static_vec'])}, "
            f"{int(details['static_vec_covered'])}/{report.n_pairs} pairs covered"
        )
    if "sense_vec" in details:
        msg.info(
            f"sense_vec (the sense's static vector): spearman {_rho(details['sense_vec'])} on the "
            f"{int(details['sense_vec_covered'])}/{report.n_pairs} pairs whose two targets have a sense "
            f"(on those pairs: context_vec {_rho(details['context_vec_on_sense_covered'])}"
            + (
                f", static_vec {_rho(details['static_vec_on_sense_covered'])}"
                if "static_vec_on_sense_covered" in details
                else ""
            )
            + ")"
        )
    if report.spearman is not None:
        msg.good(
            f"spearman {report.spearman:.3f} (pipeline's context_vec), "
            f"{report.n_covered}/{report.n_pairs} pairs covered"
        )


@evaluate_app.command("polysemy", short_help="Spearman of polysemy_score with WordNet sense counts.")
@exit_on_coded_error
@keeps_warnings
def polysemy_cli(
    pipeline: str = typer.Argument(
        ..., parser=given_text, help="Pipeline with a ctxvec_polysemy component holding a lexicon"
    ),
    sense_counts: Path = typer.Argument(..., parser=given_path, help="TSV lemma, sense count (e.g. sense_counts.tsv)"),
    min_count: Optional[int] = typer.Option(None, "--min-count", min=2, help="Default: the component's min_count"),
    gpu_id: int = GPU_ID,
    as_json: bool = PRINT_JSON,
    output: Optional[Path] = JSON_OUTPUT,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Spearman of polysemy_score with log WordNet sense counts, raw and with log
    frequency partialled out, and the AUC of monosemous against polysemous words; for
    a probe fitted on half of the words, also on the held-out half."""
    _check_output(output, overwrite, pipeline, sense_counts)
    counts = read_sense_counts(sense_counts)
    from ..evaluation.tasks import evaluate_polysemy

    nlp = _load_pipeline(pipeline, gpu_id)
    report = evaluate_polysemy(nlp, counts, min_count=min_count)
    for label, part in _polysemy_parts(report):  # before the report, which lists them
        if part.spearman is not None and part.n_covered < RELIABLE_WORDS:  # undefined: its error says why
            warn_on_stderr(
                Warnings.W055.format(
                    name=label, n_covered=part.n_covered, n_monosemous=part.n_monosemous, minimum=RELIABLE_WORDS
                )
            )
    if not _publish(report.to_dict(), nlp, pipeline, output, overwrite, as_json):
        print_polysemy(report)
    _fail_if_undefined_polysemy(report)


def print_polysemy(report: Any) -> None:
    msg.info(f"polysemy_score: {report.score}")
    for label, part in _polysemy_parts(report):
        mark = msg.good if part.spearman is not None else msg.warn  # undefined: the command fails after this
        mark(
            f"{label}: spearman {_rho(part.spearman)}, partial (log frequency out) {_rho(part.partial_spearman)}, "
            f"AUC monosemous vs polysemous {_score(part.auc)}; {part.n_covered}/{part.n_types} scored types "
            f"with a sense count ({part.n_monosemous} monosemous)"
        )
    msg.info(f"log frequency vs log senses: spearman {_rho(report.frequency_spearman)}")


def _polysemy_parts(report: Any) -> List[Any]:
    parts = [("all words", report), ("held out (words the probe was not fitted on)", report.held_out)]
    return [(label, part) for label, part in parts if part is not None]


def _fail_if_undefined_polysemy(report: Any) -> None:
    """Exit non-zero (coded error) if the Spearman of all words or of the held-out half is
    undefined: too few words (E321), constant sense counts (E326) or constant scores (E327)."""
    from ..evaluation.correlation import MIN_PAIRS, polysemy_undefined_code

    for label, part in _polysemy_parts(report):
        if part.spearman is None:
            kind, value = part.undefined or ("", None)
            code = getattr(Errors, polysemy_undefined_code(kind))
            raise CtxvecError(
                code.format(name=label, n_covered=part.n_covered, minimum=MIN_PAIRS, value=value, score=part.score)
            )


def _score(value: Optional[float]) -> str:
    return "undefined" if value is None else f"{value:.3f}"


@evaluate_app.command("senses", short_help="Induced senses against gold senses (ARI, pair F1).")
@exit_on_coded_error
@keeps_warnings
def senses_cli(
    pipeline: str = typer.Argument(..., parser=given_text, help=PIPELINE_HELP),
    file: Path = typer.Argument(
        ...,
        parser=given_path,
        help='Sense-labelled sentences, JSON lines {"lemma", "words", "position", "synset" or "sense"}',
    ),
    per_lemma: Optional[int] = typer.Option(
        None, "--per-lemma", min=2, help="Use only the first N sentences of each lemma"
    ),
    gpu_id: int = GPU_ID,
    as_json: bool = PRINT_JSON,
    output: Optional[Path] = JSON_OUTPUT,
    overwrite: bool = OVERWRITE_FILE,
) -> None:
    """Induced senses against gold senses: pairwise same-sense precision, recall and F1
    (micro over lemmas) and mean ARI per lemma, beside the one-sense and
    one-cluster-per-sentence baselines; lemmas with at least 2 sentences. Also the
    two halves of the target: mean ARI over lemmas with 2 or more gold senses in
    their sentences, and the fraction of lemmas with one gold sense given one sense."""
    _check_output(output, overwrite, pipeline, file)
    data = read_sense_sentences(file)
    from ..evaluation.tasks import evaluate_senses

    nlp = _load_pipeline(pipeline, gpu_id)
    report = evaluate_senses(nlp, data, per_lemma=per_lemma)
    if not _publish({**report.to_dict(), "per_lemma": per_lemma}, nlp, pipeline, output, overwrite, as_json):
        print_senses(report)


def print_senses(report: Any) -> None:
    from ..evaluation.tasks import INDUCED

    left_out = report.details.get("lemmas_left_out", 0)
    if left_out:
        msg.info(f"{left_out} lemma(s) of the file left out: fewer than 2 sentences")
    msg.info(
        f"{count_of(report.n_lemmas, 'lemma')}, {count_of(report.n_sentences, 'sentence')}; senses induced in the "
        "sense space "
        f"{report.details['sense_space']}, with {report.details['split_thresholds']}; clustered on the "
        f"{report.details['context']}"
    )
    rows = [
        (
            name,
            _score(s.precision),
            _score(s.recall),
            _score(s.f1),
            _score(s.mean_ari),
            _score(s.one_sense_fraction),
            "undefined" if s.mean_senses is None else f"{s.mean_senses:.2f}",
            str(s.n_lemmas),
            _score(s.polysemous_ari),
            _score(s.monosemous_one_sense),
        )
        for name, s in [*report.methods.items(), *(("baseline: " + k, v) for k, v in report.baselines.items())]
    ]
    typer.echo(
        text_table(
            rows,
            header=(
                "labels",
                "pair P",
                "pair R",
                "pair F1",
                "mean ARI",
                "one sense",
                "senses",
                "lemmas",
                "ARI (2+ gold)",
                "one sense (1 gold)",
            ),
            aligns=("l", "r", "r", "r", "r", "r", "r", "r", "r", "r"),
            max_col=TABLE_MAX_COL,
        )
    )
    induced = report.methods[INDUCED]
    msg.info(
        f"{induced.n_polysemous} lemmas have 2 or more gold senses in these sentences (ARI column), "
        f"{induced.n_monosemous} have one gold sense (the last column: the fraction of those given one sense)."
    )
    if "assigned" not in report.methods:
        msg.info(
            "No sense inventory in the pipeline: only induction on each lemma's sentences is scored "
            "(build one with `spacy-ctxvec build-lexicon`)."
        )
    if report.details["targets_without_vector"]:
        warn_on_stderr(Warnings.W003.format(n_missing=report.details["targets_without_vector"]))
