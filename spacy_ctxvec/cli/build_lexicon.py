"""`spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT`: count a corpus into a polysemy
lexicon and save PIPELINE plus the lexicon (in ctxvec_polysemy) as a new pipeline
(spacy_ctxvec.workflows.lexicon_build does the work; outputs follow spacy_ctxvec.outputs).
Ctrl-C prints the documents done and the exact command that resumes, and exits 130."""

import os
import shlex
import sys
from pathlib import Path
from typing import List, Optional, Sequence

import typer

from ..building.bad_lines import skipped_line_warnings
from ..building.engines import ENGINES
from ..errors import INTERRUPTED, Warnings
from ..ops.text import count_of
from ..terminal import msg
from ..workflows.lexicon_build import (
    DEFAULT_SAMPLE_SIZE,
    RECOMMENDED_LAYER,
    BuildStopped,
    LexiconBuild,
    LexiconBuildRequest,
    build_lexicon_pipeline,
)
from ._app import (
    CORPUS_ENCODING,
    CORPUS_ON_ERROR,
    GPU_ID,
    app,
    baseline_text,
    exit_on_coded_error,
    given_path,
    warn_on_stderr,
)

Opt = typer.Option
PIPELINE = typer.Argument(
    ..., parser=given_path, help="Pipeline directory or .cfg config (with transformer + ctxvec_context)"
)
CORPUS = typer.Argument(
    ...,
    parser=given_path,
    help=".txt (one doc per line: join a hard-wrapped book's paragraphs first, see docs/polysemy-and-senses.md), "
    '.jsonl ("text"/"words"), .spacy, or a directory of them (subfolders too)',
)
OUTPUT = typer.Argument(
    ..., parser=given_path, help="New pipeline directory: PIPELINE + the lexicon in ctxvec_polysemy"
)
BATCH = Opt(None, "--batch-size", "-b", min=1, help="Docs per nlp.pipe batch (default: the pipeline's batch_size)")
N_PROCESS = Opt(1, "--n-process", "-n", min=1, help="Worker processes (spawned; CPU only)")
KEY = Opt("lower", "--key", help="Word type key: lower, text or lemma (needs a lemmatizer)")
LAYER = Opt(
    RECOMMENDED_LAYER,
    "--layer",
    help="Hidden state ctxvec_context reads in OUTPUT (0 = embeddings, -1 = last); "
    "the default was chosen from benchmarks/quality/POLYSEMY.md",
)
KEEP_LAYER = Opt(False, "--keep-layer", help="Keep PIPELINE's ctxvec_context layer setting instead of --layer")
MIN_COUNT = Opt(5, "--min-count", min=2, help="Occurrences needed for a score (component setting)")
EVERY = Opt(1000, "--checkpoint-every", min=1, help="Docs per shard; a checkpoint after each (fewer for a big lexicon)")
CHECKPOINT_DIR = Opt(None, "--checkpoint-dir", parser=given_path, help="Default: OUTPUT.checkpoint next to OUTPUT")
RESUME = Opt(False, "--resume", help="Continue from the checkpoint of an interrupted run")
ENGINE = Opt("local", "--engine", help=f"Build engine: {', '.join(ENGINES)}")
MAX_DOCS = Opt(None, "--max-docs", min=1, help="Use only the first N documents")
OVERWRITE = Opt(
    False,
    "--overwrite",
    help="Replace OUTPUT if it is an earlier output holding only what it wrote; "
    "start over from an earlier run's checkpoint",
)
PROGRESS = Opt(
    True,
    "--progress/--no-progress",
    help="Show a progress bar (documents are counted a batch at a time: no rate until the first batch is done)",
)
ADDRESS = Opt(
    None,
    "--address",
    help="--engine ray: join this Ray cluster ('auto', 'ray://head:10001'); default: start a local one",
)
WORKERS = Opt(1, "--num-workers", min=1, help="--engine ray: actors, each holding one copy of the pipeline")
GPUS = Opt(0.0, "--gpus-per-worker", min=0.0, help="--engine ray: GPUs per actor (0: CPU)")
GRACE = Opt(
    None,
    "--node-loss-grace",
    help="--engine ray: seconds a build that lost nodes, and can no longer hold its actor pool, "
    "waits for a finished shard before it stops (E520; default 60)",
)
SAMPLE_SIZE = Opt(
    DEFAULT_SAMPLE_SIZE,
    "--sample-size",
    min=0,
    help="Occurrence vectors (float16) + snippets kept per word type for sense induction, "
    "chosen by a content hash (0: no sample); memory: benchmarks/quality/SENSES.md",
)
SAMPLE_MIN = Opt(
    None,
    "--sample-min-count",
    min=1,
    help="After the build, drop the samples of types seen fewer than N times [default: --min-count]",
)
CONTEXTS = Opt(
    True,
    "--sample-contexts/--no-sample-contexts",
    help="Keep each sampled occurrence's context vector (mean of the 5 tokens either side), "
    "which senses are clustered on beside the token; --no-sample-contexts never computes them: "
    "half the sample's vector memory, less sampling time, senses from the token vectors alone",
)
SENSES = Opt(
    None,
    "--senses/--no-senses",
    help="Induce word senses from the sample (default: yes when --sample-size > 0; "
    "--senses with --sample-size 0 is an error)",
)


# fmt: off
@app.command("build-lexicon", short_help="Count a corpus into a lexicon; save the pipeline with it.")
@exit_on_coded_error
def build_lexicon_cli(
    pipeline: Path = PIPELINE, corpus: Path = CORPUS, output: Path = OUTPUT, batch_size: Optional[int] = BATCH,
    n_process: int = N_PROCESS, gpu_id: int = GPU_ID, key: str = KEY, layer: int = LAYER, keep_layer: bool = KEEP_LAYER,
    min_count: int = MIN_COUNT, checkpoint_every: int = EVERY, checkpoint_dir: Optional[Path] = CHECKPOINT_DIR,
    resume: bool = RESUME, on_error: str = CORPUS_ON_ERROR, encoding: str = CORPUS_ENCODING, engine: str = ENGINE,
    max_docs: Optional[int] = MAX_DOCS, overwrite: bool = OVERWRITE, progress: bool = PROGRESS,
    address: Optional[str] = ADDRESS, num_workers: int = WORKERS, gpus_per_worker: float = GPUS,
    node_loss_grace: Optional[float] = GRACE, sample_size: int = SAMPLE_SIZE,
    sample_min_count: Optional[int] = SAMPLE_MIN, sample_contexts: bool = CONTEXTS, senses: Optional[bool] = SENSES,
) -> None:
    """Build a corpus polysemy lexicon and save a pipeline that scores every token."""
    request = LexiconBuildRequest(
        pipeline, corpus, output, batch_size=batch_size, n_process=n_process, gpu_id=gpu_id, key=key,
        layer=None if keep_layer else layer, min_count=min_count, checkpoint_every=checkpoint_every,
        checkpoint_dir=checkpoint_dir, resume=resume, on_error=on_error, encoding=encoding, engine=engine,
        max_docs=max_docs, overwrite=overwrite, progress=progress, sample_size=sample_size,
        sample_min_count=sample_min_count, sample_contexts=sample_contexts, senses=senses,
        ray={"address": address, "num_workers": num_workers, "num_gpus_per_worker": gpus_per_worker,
             "node_loss_grace_s": node_loss_grace},
    )
    try:
        build = build_lexicon_pipeline(request)
    except BuildStopped as stop:
        print_stop(stop, request.engine, typed_paths(request))
        raise typer.Exit(INTERRUPTED) from None
    print_build(build, request)
# fmt: on


def typed_paths(request: LexiconBuildRequest) -> List[str]:
    """The paths the command was given as typed: CORPUS, OUTPUT, --checkpoint-dir, and PIPELINE where
    it names a path (not a package)."""
    paths = [request.corpus, request.output, request.checkpoint_dir]
    pipeline = str(request.pipeline)
    return [str(path) for path in paths if path is not None] + ([pipeline] if os.path.exists(pipeline) else [])


def resume_command(paths: Sequence[str] = ()) -> str:
    """This command line as typed, with --resume; after ``cd`` to this directory where one of its
    ``paths`` is relative, so that it runs the same from anywhere."""
    args = ["spacy-ctxvec", *sys.argv[1:]]
    command = " ".join(map(shell_quoted, args if "--resume" in args else [*args, "--resume"]))
    relative = any(not os.path.isabs(path) for path in paths)
    return f"cd {shell_quoted(os.getcwd())} && {command}" if relative else command


def shell_quoted(arg: str) -> str:
    """``arg`` quoted for a POSIX shell; one holding bytes that are not UTF-8 (a file name made
    elsewhere, read by Python as surrogate escapes) in bash's $'...' with each such byte as
    \\xHH, so that the command pasted names the same file."""
    if not any("\udc80" <= c <= "\udcff" for c in arg):
        return shlex.quote(arg)
    kept = {ord(c) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./ "}
    return "$'" + "".join(chr(b) if b in kept else f"\\x{b:02x}" for b in os.fsencode(arg)) + "'"


def print_stop(stop: BuildStopped, engine: str = "local", paths: Sequence[str] = ()) -> None:
    """One line on stderr (where the build's warnings go), never wrapped, so that the command can be copied."""
    if engine == "ray":  # it keeps no checkpoints
        typer.echo("Stopped; the ray engine keeps no checkpoint, so nothing was kept: run the command again.", err=True)
    elif stop.checkpoint_dir is None:
        typer.echo("Stopped before the first checkpoint; nothing was kept.", err=True)
    else:
        typer.echo(
            f"Stopped after {stop.docs_done} documents; the checkpoint in {stop.checkpoint_dir} is kept. "
            f"Continue with: {resume_command(paths)}",
            err=True,
        )


def print_build(build: LexiconBuild, request: LexiconBuildRequest) -> None:
    result, lexicon = build.result, build.lexicon
    msg.info(build.score)
    for warning in build.warnings:
        warn_on_stderr(warning)
    if build.vectors:
        msg.info(build.vectors)
    if build.senses:
        msg.info(f"Senses: {build.senses}")
    if result.resumed_from:
        msg.info(f"Resumed after {count_of(result.resumed_from, 'doc')}")
    for warning in skipped_line_warnings(result.skipped_lines, request.encoding):
        warn_on_stderr(warning)
    if lexicon.sample is not None:
        sample = lexicon.sample
        msg.info(
            f"Occurrence sample: {sample.n_rows} rows of {len(sample)} types (k={sample.k}), "
            f"{sample.nbytes / 2**20:.1f} MiB"
        )
    if lexicon.n_skipped_zero:
        n = lexicon.n_skipped_zero
        warn_on_stderr(Warnings.W077.format(tokens=count_of(n, "token"), were="was" if n == 1 else "were"))
    msg.good(
        f"{count_of(result.n_docs, 'doc')}, {count_of(result.n_tokens, 'token')} counted, "
        f"{count_of(len(result.lexicon), 'type')} "
        f"({build.n_valid} with >= {request.min_count} occurrences), baseline B = "
        f"{baseline_text(result.lexicon.anisotropy_baseline() if result.lexicon.has_baseline() else None)}; "
        f"saved pipeline to {request.output}"
    )
