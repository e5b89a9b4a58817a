"""`spacy-ctxvec build-lexicon PIPELINE CORPUS OUTPUT`: count a corpus into a polysemy
lexicon and save PIPELINE plus the lexicon (in ctxvec_polysemy) as a new pipeline."""
import shutil
from pathlib import Path
from typing import Any, Dict, Optional

import typer
from wasabi import msg

from ..components.polysemy import ensure_polysemy_component
from ..errors import CtxvecError, Errors, Warnings
from ..lexicon.engines import ENGINES, get_engine
from ..pipelines import load_pipeline
from ._app import app, exit_on_coded_error

# The recommended --layer: the second-to-last hidden state. For MiniLM (hidden states 0..6)
# that is layer 5, which gave the best Spearman with WordNet sense counts after partialling
# out frequency (benchmarks/POLYSEMY.md); other models were not measured. It is the default:
# OUTPUT's ctxvec_context then reads this layer (--keep-layer keeps PIPELINE's setting).
RECOMMENDED_LAYER = -2


@app.command("build-lexicon")
@exit_on_coded_error
def build_lexicon_cli(
    pipeline: Path = typer.Argument(..., help="Pipeline directory or .cfg config (with transformer + ctxvec_context)"),
    corpus: Path = typer.Argument(..., help=".txt (one doc per line), .jsonl (\"text\"/\"words\"), .spacy, or a directory of them"),
    output: Path = typer.Argument(..., help="New pipeline directory: PIPELINE + the lexicon in ctxvec_polysemy"),
    batch_size: int = typer.Option(64, "--batch-size", min=1, help="Docs per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", min=1, help="Worker processes (spawned; CPU only)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU to run the transformer on (-1: CPU)"),
    key: str = typer.Option("lower", "--key", help="Word type key: lower, text or lemma (needs a lemmatizer)"),
    layer: int = typer.Option(RECOMMENDED_LAYER, "--layer", help="Hidden state ctxvec_context reads in OUTPUT (0 = embeddings, -1 = last); the default was chosen from benchmarks/POLYSEMY.md"),
    keep_layer: bool = typer.Option(False, "--keep-layer", help="Keep PIPELINE's ctxvec_context layer setting instead of --layer"),
    min_count: int = typer.Option(5, "--min-count", min=2, help="Occurrences needed for a score (component setting)"),
    checkpoint_every: int = typer.Option(1000, "--checkpoint-every", min=1, help="Docs per shard; a checkpoint is written after each"),
    checkpoint_dir: Optional[Path] = typer.Option(None, "--checkpoint-dir", help="Default: OUTPUT.checkpoint next to OUTPUT"),
    resume: bool = typer.Option(False, "--resume", help="Continue from the checkpoint of an interrupted run"),
    on_error: str = typer.Option("raise", "--on-error", help="Bad .jsonl lines: raise, or skip and report"),
    engine: str = typer.Option("local", "--engine", help=f"Build engine: {', '.join(ENGINES)}"),
    max_docs: Optional[int] = typer.Option(None, "--max-docs", min=1, help="Use only the first N documents"),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace OUTPUT if it exists"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar"),
    address: Optional[str] = typer.Option(None, "--address", help="--engine ray: join this Ray cluster ('auto', 'ray://head:10001'); default: start a local one"),
    num_workers: int = typer.Option(1, "--num-workers", min=1, help="--engine ray: actors, each holding one copy of the pipeline"),
    gpus_per_worker: float = typer.Option(0.0, "--gpus-per-worker", min=0.0, help="--engine ray: GPUs per actor (0: CPU)"),
) -> None:
    """Build a corpus polysemy lexicon and save a pipeline that scores every token."""
    if output.exists() and any(output.iterdir()) and not overwrite:
        raise CtxvecError(Errors.E226.format(path=output))
    build = get_engine(engine)
    if gpu_id >= 0:
        if n_process > 1:
            raise CtxvecError(Errors.E222.format(n_process=n_process))
        import spacy

        spacy.require_gpu(gpu_id)
    nlp = load_pipeline(pipeline, layer=None if keep_layer else layer)
    component = ensure_polysemy_component(nlp, key, min_count)
    checkpoint_dir = checkpoint_dir or output.with_name(output.name + ".checkpoint")
    engine_options: Dict[str, Any] = (
        {"address": address, "num_workers": num_workers, "num_gpus_per_worker": gpus_per_worker} if engine == "ray" else {}
    )
    result = build(
        nlp, corpus, key=key, batch_size=batch_size, n_process=n_process, shard_size=checkpoint_every,
        checkpoint_dir=checkpoint_dir, resume=resume, on_error=on_error, progress=progress, max_docs=max_docs,
        **engine_options,
    )
    component.set_lexicon(result.lexicon)
    component.check_width(result.lexicon.width)
    if output.exists():
        shutil.rmtree(output)
    nlp.to_disk(output)
    shutil.rmtree(checkpoint_dir, ignore_errors=True)
    _, valid = result.lexicon.polysemy_scores(min_count)
    if result.resumed_from:
        msg.info(f"Resumed after {result.resumed_from} docs")
    for file, line in result.skipped_lines[:10]:
        msg.warn(Warnings.W004.format(path=file, line=line))
    if result.skipped_lines:
        msg.warn(Warnings.W005.format(n_lines=len(result.skipped_lines)))
    msg.good(
        f"{result.n_docs} docs, {result.n_tokens} tokens counted, {len(result.lexicon)} types "
        f"({int(valid.sum())} with >= {min_count} occurrences), baseline B = "
        f"{result.lexicon.anisotropy_baseline():.4f}; saved pipeline to {output}"
    )
