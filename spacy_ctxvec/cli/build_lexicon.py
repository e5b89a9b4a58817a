"""`spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT`: count a corpus into a polysemy
lexicon and save PIPELINE plus the lexicon (in ctxvec_polysemy) as a new pipeline.

It deletes or replaces only what it made itself: OUTPUT is written next to its place
and swapped in, replacing only an earlier build-lexicon output (marked by a file); the
checkpoint directory must be new, empty or marked; neither may overlap PIPELINE, CORPUS
or each other."""

import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import typer
from wasabi import msg

from ..building.checkpoints import (
    CHECKPOINT_MARKER,
    LATEST_FILE,
    OUTPUT_MARKER,
    check_checkpoint_dir,
    is_empty_dir,
    read_marker,
    remove_checkpoint_dir,
    write_marker,
)
from ..building.corpus import DEFAULT_ENCODING, check_encoding
from ..building.engines import ENGINES, get_engine
from ..components.polysemy import ensure_polysemy_component
from ..devices import require_gpu
from ..errors import CtxvecError, Errors, Warnings
from ..lexicon.polysemy_probe import SMALL_CORPUS_TOKENS
from ..lexicon.sense_inventory import describe_context, describe_split_thresholds
from ..pipelines import load_pipeline
from ._app import app, exit_on_coded_error

# The recommended --layer: the second-to-last hidden state. For MiniLM (hidden states 0..6)
# that is layer 5, which gave the best Spearman with WordNet sense counts after partialling
# out frequency (benchmarks/POLYSEMY.md); other models were not measured. It is the default:
# OUTPUT's ctxvec_context then reads this layer (--keep-layer keeps PIPELINE's setting).
RECOMMENDED_LAYER = -2
# Occurrences kept per word type in the lexicon's sample (issue 11). About 817 bytes per
# row at width 384; on the whole Gutenberg corpus (1.28M tokens) K=64 with the default
# floor (--min-count 5) keeps 267,555 rows = 208 MiB, K=16 109 MiB, K=128 264 MiB
# (benchmarks/SENSES.md, benchmarks/sample_memory.py).
DEFAULT_SAMPLE_SIZE = 64


@app.command("build-lexicon")
@exit_on_coded_error
def build_lexicon_cli(
    pipeline: Path = typer.Argument(..., help="Pipeline directory or .cfg config (with transformer + ctxvec_context)"),
    corpus: Path = typer.Argument(
        ..., help='.txt (one doc per line), .jsonl ("text"/"words"), .spacy, or a directory of them'
    ),
    output: Path = typer.Argument(..., help="New pipeline directory: PIPELINE + the lexicon in ctxvec_polysemy"),
    batch_size: Optional[int] = typer.Option(
        None, "--batch-size", min=1, help="Docs per nlp.pipe batch (default: the pipeline's [nlp] batch_size)"
    ),
    n_process: int = typer.Option(1, "--n-process", min=1, help="Worker processes (spawned; CPU only)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU to run the transformer on (-1: CPU)"),
    key: str = typer.Option("lower", "--key", help="Word type key: lower, text or lemma (needs a lemmatizer)"),
    layer: int = typer.Option(
        RECOMMENDED_LAYER,
        "--layer",
        help="Hidden state ctxvec_context reads in OUTPUT (0 = embeddings, -1 = last); the default was chosen from benchmarks/POLYSEMY.md",
    ),
    keep_layer: bool = typer.Option(
        False, "--keep-layer", help="Keep PIPELINE's ctxvec_context layer setting instead of --layer"
    ),
    min_count: int = typer.Option(5, "--min-count", min=2, help="Occurrences needed for a score (component setting)"),
    checkpoint_every: int = typer.Option(
        1000, "--checkpoint-every", min=1, help="Docs per shard; a checkpoint is written after each"
    ),
    checkpoint_dir: Optional[Path] = typer.Option(
        None, "--checkpoint-dir", help="Default: OUTPUT.checkpoint next to OUTPUT"
    ),
    resume: bool = typer.Option(False, "--resume", help="Continue from the checkpoint of an interrupted run"),
    on_error: str = typer.Option(
        "raise", "--on-error", help="Bad lines (undecodable text, bad JSON or rows): raise, or skip and report"
    ),
    encoding: str = typer.Option(
        DEFAULT_ENCODING, "--encoding", help="Text encoding of .txt/.jsonl corpus files (e.g. latin-1, cp1252)"
    ),
    engine: str = typer.Option("local", "--engine", help=f"Build engine: {', '.join(ENGINES)}"),
    max_docs: Optional[int] = typer.Option(None, "--max-docs", min=1, help="Use only the first N documents"),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace OUTPUT if it is an earlier build-lexicon output"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar"),
    address: Optional[str] = typer.Option(
        None,
        "--address",
        help="--engine ray: join this Ray cluster ('auto', 'ray://head:10001'); default: start a local one",
    ),
    num_workers: int = typer.Option(
        1, "--num-workers", min=1, help="--engine ray: actors, each holding one copy of the pipeline"
    ),
    gpus_per_worker: float = typer.Option(
        0.0, "--gpus-per-worker", min=0.0, help="--engine ray: GPUs per actor (0: CPU)"
    ),
    node_loss_grace: Optional[float] = typer.Option(
        None,
        "--node-loss-grace",
        help="--engine ray: seconds a build that lost nodes, and can no longer hold its actor pool, waits for a finished shard before it stops (E520; default 60)",
    ),
    sample_size: int = typer.Option(
        DEFAULT_SAMPLE_SIZE,
        "--sample-size",
        min=0,
        help="Occurrence vectors (float16) + snippets kept per word type for sense induction, chosen by a content hash (0: no sample); memory: benchmarks/SENSES.md",
    ),
    sample_min_count: Optional[int] = typer.Option(
        None,
        "--sample-min-count",
        min=1,
        help="After the build, drop the samples of types seen fewer than N times (default: --min-count)",
    ),
    sample_contexts: bool = typer.Option(
        True,
        "--sample-contexts/--no-sample-contexts",
        help="Keep each sampled occurrence's context vector (mean of the 5 tokens either side), which senses are clustered on beside the token; --no-sample-contexts never computes them: half the sample's vector memory, less sampling time, senses from the token vectors alone",
    ),
    senses: Optional[bool] = typer.Option(
        None,
        "--senses/--no-senses",
        help="Induce word senses from the sample (default: yes when --sample-size > 0; --senses with --sample-size 0 is an error)",
    ),
) -> None:
    """Build a corpus polysemy lexicon and save a pipeline that scores every token."""
    resolved_output = output.resolve()  # OUTPUT "." or "out/" has a name only once resolved
    checkpoint_dir = checkpoint_dir or resolved_output.parent / (resolved_output.name + ".checkpoint")
    check_output_paths(pipeline, corpus, output, checkpoint_dir, overwrite=overwrite)
    check_encoding(encoding)
    build = get_engine(engine)
    ray_options = {  # (value, default): given only with --engine ray
        "--address": (address, None),
        "--num-workers": (num_workers, 1),
        "--gpus-per-worker": (gpus_per_worker, 0.0),
        "--node-loss-grace": (node_loss_grace, None),
    }
    if engine != "ray":
        for option, (value, default) in ray_options.items():
            if value != default:
                raise CtxvecError(Errors.E506.format(option=option, engine=engine))
    if gpu_id >= 0:
        if n_process > 1:
            raise CtxvecError(Errors.E222.format(n_process=n_process))
        require_gpu(gpu_id)
    nlp = load_pipeline(pipeline, layer=None if keep_layer else layer)
    component = ensure_polysemy_component(nlp, key, min_count)
    if senses and sample_size == 0:
        raise CtxvecError(Errors.E602.format(name=component.name))
    engine_options: Dict[str, Any] = (
        {
            "address": address,
            "num_workers": num_workers,
            "num_gpus_per_worker": gpus_per_worker,
            "node_loss_grace_s": node_loss_grace,
        }
        if engine == "ray"
        else {}
    )
    try:
        result = build(
            nlp,
            corpus,
            key=key,
            batch_size=batch_size or nlp.batch_size,
            n_process=n_process,
            shard_size=checkpoint_every,
            checkpoint_dir=checkpoint_dir,
            resume=resume,
            on_error=on_error,
            progress=progress,
            max_docs=max_docs,
            encoding=encoding,
            sample_size=sample_size,
            sample_contexts=sample_contexts,
            **engine_options,
        )
    except CtxvecError:
        if (checkpoint_dir / LATEST_FILE).exists() and read_marker(checkpoint_dir, CHECKPOINT_MARKER) is not None:
            msg.info(
                f"The documents counted so far are kept in {checkpoint_dir}: fix the input and rerun with --resume."
            )
        raise
    lexicon = result.lexicon.prune_sample(min_count if sample_min_count is None else sample_min_count)
    component.set_lexicon(lexicon, nlp=nlp)
    msg.info(describe_score(component))
    if component.score_source == "probe" and lexicon.n_occurrences < SMALL_CORPUS_TOKENS:
        msg.warn(Warnings.W006.format(n_tokens=lexicon.n_occurrences, minimum=SMALL_CORPUS_TOKENS))
    if senses is not False and lexicon.sample is not None:
        started = time.perf_counter()
        inventory = component.build_senses()
        msg.info(
            f"Senses: {inventory.n_senses_total} senses of {len(inventory)} types "
            f"({int((inventory.counts() > 1).sum())} with more than one), induced in {time.perf_counter() - started:.1f} s; "
            f"{describe_split_thresholds(inventory.settings)}; {describe_context(inventory.settings)}"
        )
    component.check_width(lexicon.width)
    save_output(nlp, output)
    remove_checkpoint_dir(checkpoint_dir)
    _, valid = result.lexicon.polysemy_scores(min_count)
    if result.resumed_from:
        msg.info(f"Resumed after {result.resumed_from} docs")
    for file, line in result.skipped_lines[:10]:
        msg.warn(Warnings.W004.format(path=file, line=line))
    if result.skipped_lines:
        msg.warn(Warnings.W005.format(n_lines=len(result.skipped_lines)))
    if lexicon.sample is not None:
        sample = lexicon.sample
        msg.info(
            f"Occurrence sample: {sample.n_rows} rows of {len(sample)} types (k={sample.k}), {sample.nbytes / 2**20:.1f} MiB"
        )
    msg.good(
        f"{result.n_docs} docs, {result.n_tokens} tokens counted, {len(result.lexicon)} types "
        f"({int(valid.sum())} with >= {min_count} occurrences), baseline B = "
        f"{result.lexicon.anisotropy_baseline():.4f}; saved pipeline to {output}"
    )


def describe_score(component: Any) -> str:
    """What polysemy_score means in the saved pipeline."""
    probe = component.probe
    if component.score_source == "probe" and probe is not None:
        return (
            f"polysemy_score: the polysemy probe fitted on {probe.meta.get('trained_on') or 'sense counts'} "
            f"({probe.meta.get('n_words')} words), an estimate of each word's number of senses"
        )
    if component.score == "self_similarity":
        return 'polysemy_score: self-similarity (score = "self_similarity")'
    return (
        "polysemy_score: self-similarity (no polysemy probe fits this model and lexicon; "
        "fit one with `spacy-ctxvec fit-polysemy`)"
    )


def _relation(path: Path, other: Path) -> Optional[str]:
    if path == other:
        return "is the same as"
    if other in path.parents:
        return "is inside"
    if path in other.parents:
        return "contains"
    return None


def _check_writable_place(what: str, path: Path) -> None:
    """E247 if ``path`` or its nearest existing ancestor is a file."""
    for place in (path, *path.parents):
        if place.exists():
            if not place.is_dir():
                raise CtxvecError(Errors.E247.format(what=what if place == path else f"A parent of {what}", path=place))
            return


def check_pipeline_output(output: Path, inputs: List[Tuple[str, Path]], *, overwrite: bool) -> None:
    """Refuse, before any work, an OUTPUT pipeline directory that overlaps an input or
    holds what this package did not make (E246, E247, E226, E245)."""
    _check_writable_place("OUTPUT", output)
    resolved = output.resolve()
    for other, other_path in ((name, path.resolve()) for name, path in inputs if path.exists()):
        relation = _relation(resolved, other_path)
        if relation:
            raise CtxvecError(
                Errors.E246.format(what="OUTPUT", path=resolved, relation=relation, other=other, other_path=other_path)
            )
    if output.is_dir() and not is_empty_dir(output):
        if not overwrite:
            raise CtxvecError(Errors.E226.format(path=output))
        if read_marker(output, OUTPUT_MARKER) is None:
            raise CtxvecError(Errors.E245.format(path=output, marker=OUTPUT_MARKER))


def check_output_paths(pipeline: Path, corpus: Path, output: Path, checkpoint_dir: Path, *, overwrite: bool) -> None:
    """Refuse, before any work, every write that could touch what build-lexicon did not make."""
    inputs = [("PIPELINE", pipeline), ("CORPUS", corpus)]
    _check_writable_place("OUTPUT", output)
    _check_writable_place("Checkpoint directory", checkpoint_dir)
    check_pipeline_output(output, inputs, overwrite=overwrite)
    resolved_checkpoint, resolved_output = checkpoint_dir.resolve(), output.resolve()
    for other, other_path in [(name, path.resolve()) for name, path in inputs if path.exists()] + [
        ("OUTPUT", resolved_output)
    ]:
        relation = _relation(resolved_checkpoint, other_path)
        if relation:
            raise CtxvecError(
                Errors.E246.format(
                    what="--checkpoint-dir",
                    path=resolved_checkpoint,
                    relation=relation,
                    other=other,
                    other_path=other_path,
                )
            )
    check_checkpoint_dir(checkpoint_dir)


def save_output(nlp: Any, output: Path) -> None:
    """Write the pipeline next to OUTPUT, mark it, then swap it in; an existing OUTPUT
    is replaced only if it is empty or an earlier (marked) build-lexicon output."""
    output.parent.mkdir(parents=True, exist_ok=True)
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    new = output.parent / f".{output.name}.new-{token}"
    try:
        nlp.to_disk(new)
        write_marker(new, OUTPUT_MARKER, created=True)
        if output.exists():
            if not output.is_dir():
                raise CtxvecError(Errors.E247.format(what="OUTPUT", path=output))
            if not is_empty_dir(output) and read_marker(output, OUTPUT_MARKER) is None:
                raise CtxvecError(Errors.E245.format(path=output, marker=OUTPUT_MARKER))
            old = output.parent / f".{output.name}.old-{token}"
            os.rename(output, old)
            os.rename(new, output)
            shutil.rmtree(old)
        else:
            os.rename(new, output)
    finally:
        if new.exists():
            shutil.rmtree(new)
