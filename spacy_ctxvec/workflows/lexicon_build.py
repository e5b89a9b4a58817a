"""`build-lexicon` as a library function: count a corpus into a polysemy lexicon and
save PIPELINE plus the lexicon (in ctxvec_polysemy) as a new pipeline directory.

Inputs are checked before the model loads; OUTPUT and the checkpoint directory follow
spacy_ctxvec.outputs (never an input, never a link, replaced only when made here). A build that stops
before its first document leaves no checkpoint directory; one stopped later (bad input, Ctrl-C, SIGTERM)
keeps its checkpoint for ``resume``. Ctrl-C once OUTPUT is being put in place is held until done (W052)."""

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

from ..analysis.comparison import HINT_TOKEN_CHARS, not_split_hint, unsplit_script
from ..building.build_locks import held_for_build
from ..building.checkpoints import (
    DEFAULT_CHECKPOINT_DIR,
    LATEST_FILE,
    CheckpointRefused,
    check_checkpoint_dir,
    documents_done,
    remove_checkpoint_dir,
    unresumed_checkpoint,
)
from ..building.corpus import DEFAULT_ENCODING, check_encoding, corpus_files
from ..building.engines import BuildResult, get_engine
from ..building.shard import KEY_ATTRS
from ..building.text_encoding import swapped_utf16_words
from ..components.polysemy import ensure_polysemy_component
from ..components.transformer import types_read_as_unknown
from ..devices import require_gpu
from ..errors import CtxvecError, Errors, OutputNotWritten, OutputWrittenMeanwhile, Warnings
from ..evaluation.provenance import BUILD_META, installed_version
from ..interrupts import interrupts_held, termination_as_interrupt
from ..lexicon.polysemy_probe import SMALL_CORPUS_TOKENS, describe_shipped_probes, english_probe_warning
from ..lexicon.sense_descriptions import describe_context, describe_split_thresholds
from ..lexicon.statistics import CONTEXT_VECTORS_META
from ..ops.fingerprint import pooling_of
from ..ops.senses import DEFAULT_SAMPLE_SIZE  # the library's default too (Polysemy.initialize)
from ..ops.text import in_unspaced_script
from ..outputs import (
    BUILD_LEXICON,
    DIRECTORY,
    WrittenThenInterrupted,
    check_apart,
    check_output,
    check_place,
    made_by_command,
    output_made_by,
    write_directory,
)
from ..pipelines import load_pipeline

# The recommended layer: the second-to-last hidden state. For MiniLM (hidden states 0..6)
# that is layer 5, which gave the best Spearman with WordNet sense counts after partialling
# out frequency (benchmarks/quality/POLYSEMY.md); other models were not measured.
RECOMMENDED_LAYER = -2
# Ray-only settings and their defaults: any other value with another engine is E506.
RAY_DEFAULTS = {"address": None, "num_workers": 1, "num_gpus_per_worker": 0.0, "node_loss_grace_s": None}
RAY_OPTIONS = {
    "address": "--address",
    "num_workers": "--num-workers",
    "num_gpus_per_worker": "--gpus-per-worker",
    "node_loss_grace_s": "--node-loss-grace",
}


@dataclass(frozen=True)
class LexiconBuildRequest:
    """What to build: the command line's arguments and options, with its defaults.
    ``layer`` None keeps PIPELINE's ctxvec_context layer setting."""

    pipeline: Path
    corpus: Path
    output: Path
    batch_size: Optional[int] = None
    n_process: int = 1
    gpu_id: int = -1
    key: str = "lower"
    layer: Optional[int] = RECOMMENDED_LAYER
    min_count: int = 5
    checkpoint_every: int = 1000
    checkpoint_dir: Optional[Path] = None
    resume: bool = False
    on_error: str = "raise"
    encoding: str = DEFAULT_ENCODING
    engine: str = "local"
    max_docs: Optional[int] = None
    overwrite: bool = False
    progress: bool = True
    ray: Dict[str, Any] = field(default_factory=dict)  # address, num_workers, num_gpus_per_worker, node_loss_grace_s
    sample_size: int = DEFAULT_SAMPLE_SIZE
    sample_min_count: Optional[int] = None
    sample_contexts: bool = True
    senses: Optional[bool] = None

    @property
    def checkpoints(self) -> Path:
        """--checkpoint-dir, by default OUTPUT.checkpoint next to OUTPUT."""
        resolved = self.output.resolve()  # OUTPUT "." or "out/" has a name only once resolved
        return self.checkpoint_dir or resolved.parent / (resolved.name + ".checkpoint")


@dataclass
class LexiconBuild:
    """What a build did, for the command to print."""

    result: BuildResult
    lexicon: Any  # the saved (pruned) lexicon
    n_valid: int  # types with at least min_count occurrences
    score: str  # what polysemy_score means in OUTPUT
    senses: Optional[str] = None  # the senses summary, if senses were induced
    warnings: List[str] = field(default_factory=list)
    vectors: Optional[str] = None  # which vectors OUTPUT's context_vec are, where the lexicon records it


class BuildStopped(KeyboardInterrupt):
    """Ctrl-C during a build: ``docs_done`` documents are kept in ``checkpoint_dir``
    (None: stopped before the first checkpoint, nothing kept)."""

    def __init__(self, docs_done: int, checkpoint_dir: Optional[Path]) -> None:
        super().__init__(docs_done, checkpoint_dir)
        self.docs_done, self.checkpoint_dir = docs_done, checkpoint_dir


def check_build_request(request: LexiconBuildRequest) -> List[Path]:
    """Every check that needs no model: outputs, corpus, encoding, engine and options.
    Returns the corpus's files as ``corpus_files`` listed and checked them, for the
    engine to read without listing them again."""
    inputs = {"PIPELINE": request.pipeline, "CORPUS": request.corpus}
    if request.engine == "ray":  # E505 first: --resume with Ray resumes nothing, whatever OUTPUT holds
        from ..building.ray_engine import check_unsupported

        check_unsupported(request.n_process, request.resume, request.max_docs)
    if request.engine == "ray" and request.checkpoint_dir is not None:
        raise CtxvecError(
            Errors.E505.format(
                option="--checkpoint-dir",
                reason="it writes no checkpoints (Ray reruns failed shards itself); leave out --checkpoint-dir, "
                "or build with --engine local to resume from checkpoints",
            )
        )
    check_nothing_to_resume(request)
    check_output(request.output, what="OUTPUT", inputs=inputs, kind=DIRECTORY, overwrite=request.overwrite)
    checkpoints = "--checkpoint-dir" if request.checkpoint_dir is not None else DEFAULT_CHECKPOINT_DIR
    check_place(request.checkpoints, what=checkpoints, inputs=inputs)
    check_apart({checkpoints: request.checkpoints, "OUTPUT": request.output})
    check_checkpoint_dir(request.checkpoints)
    counted = documents_done(request.checkpoints)
    if counted and not (request.resume or request.overwrite):
        raise unresumed_checkpoint(request.checkpoints, counted, request.engine != "local", bool(request.sample_size))
    check_encoding(request.encoding)
    if request.key not in KEY_ATTRS:  # (lemma's lemmatizer: once the pipeline has loaded)
        raise CtxvecError(Errors.E216.format(key=request.key, choices=", ".join(KEY_ATTRS)))
    files = corpus_files(request.corpus, encoding=request.encoding, on_error=request.on_error)
    get_engine(request.engine)
    if request.engine == "ray":
        _check_ray_options(request)
    else:
        for name, value in request.ray.items():
            if value != RAY_DEFAULTS[name]:
                raise CtxvecError(Errors.E506.format(option=RAY_OPTIONS[name], engine=request.engine))
    if request.gpu_id >= 0:
        if request.n_process > 1:
            raise CtxvecError(Errors.E222.format(n_process=request.n_process))
        require_gpu(request.gpu_id)
    if request.senses and request.sample_size == 0:
        raise CtxvecError(Errors.E602.format(name="ctxvec_polysemy"))
    return files


def _check_ray_options(request: LexiconBuildRequest) -> None:
    """The Ray engine's own checks, before any model loads, naming the command line's options."""
    from ..building.ray_cluster import check_local_pool, given_address
    from ..building.ray_engine import check_settings

    options = {**RAY_DEFAULTS, **request.ray}
    cpus_per_worker = 1.0  # build_lexicon_ray's default: the command line has no option for it
    check_settings(
        options["num_workers"],
        options["num_gpus_per_worker"],
        cpus_per_worker,
        request.batch_size or 1,
        request.checkpoint_every,
        request.on_error,
        options["node_loss_grace_s"],
        names={**RAY_OPTIONS, "batch_size": "--batch-size", "shard_size": "--checkpoint-every"},
    )
    address = given_address(options["address"])
    check_local_pool(address, options["num_workers"], cpus_per_worker, options["num_gpus_per_worker"])


def check_nothing_to_resume(request: LexiconBuildRequest) -> None:
    """E224 for --resume (without --overwrite) where OUTPUT is a finished build-lexicon
    output and no checkpoint holds documents: there is nothing to continue."""
    if not request.resume or request.overwrite or documents_done(request.checkpoints):
        return
    if request.output.is_dir() and output_made_by(request.output) == made_by_command(BUILD_LEXICON):
        raise CtxvecError(Errors.E224.format(path=request.output, checkpoints=request.checkpoints))


def build_lexicon_pipeline(request: LexiconBuildRequest) -> LexiconBuild:
    """Check, load, count the corpus, score, induce senses, save OUTPUT, remove the
    checkpoints. Raises BuildStopped on Ctrl-C; a coded error after the first
    checkpoint says that the documents counted so far are kept for ``resume``. Another build
    writing the same OUTPUT or checkpoint directory stops it at once (E268)."""
    with held_for_build({"OUTPUT": request.output, "the checkpoint directory": request.checkpoints}):
        return _checked_build(request)


def _checked_build(request: LexiconBuildRequest) -> LexiconBuild:
    files = check_build_request(request)
    checkpoints = request.checkpoints
    try:
        with termination_as_interrupt():
            return _build(request, checkpoints, files)
    except KeyboardInterrupt:
        kept = _forget_empty_checkpoints(checkpoints)
        raise BuildStopped(documents_done(checkpoints) if kept else 0, checkpoints if kept else None) from None
    except OutputNotWritten as err:  # E703 at OUTPUT (a full disk) after counting
        if not _forget_empty_checkpoints(checkpoints):
            raise
        resume = "the same command with --resume writes OUTPUT from them once there is space"
        raise CtxvecError(f"{err} {counts_kept(checkpoints)}: {resume}.") from None
    except _OutOfMemoryLoading as err:
        earlier = (
            f"{counts_kept(checkpoints, 'before')}: --resume continues them."
            if _forget_empty_checkpoints(checkpoints)
            else ""
        )
        raise CtxvecError(Errors.E267.format(path=request.pipeline, detail=err.detail, kept=earlier).rstrip()) from None
    except _OutOfMemoryCounting as err:
        what_kept = (
            f"{counts_kept(checkpoints, 'so far')}: --resume "
            "continues them with the same settings (after freeing memory); other settings start over (--overwrite)."
            if _forget_empty_checkpoints(checkpoints)
            else "Nothing was kept."
        )
        raise CtxvecError(Errors.E265.format(detail=err.detail, kept=what_kept)) from None
    except (MemoryError, RuntimeError) as err:  # after counting: the counts are in the checkpoint
        if not _forget_empty_checkpoints(checkpoints) or not out_of_memory(err):
            raise
        detail = memory_detail(err)
        raise CtxvecError(Errors.E266.format(detail=detail, n=documents_done(checkpoints), path=checkpoints)) from None
    except Exception:  # any other failure after the checks leaves nothing before the first checkpoint either
        _forget_empty_checkpoints(checkpoints)
        raise


# What torch says when memory runs out (a RuntimeError, not a MemoryError): its allocators, and
# cuBLAS/cuDNN failing to allocate their workspace on the GPU.
TORCH_OUT_OF_MEMORY = (
    "DefaultCPUAllocator",
    "out of memory",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "CUDNN_STATUS_ALLOC_FAILED",
)


def out_of_memory(err: BaseException) -> bool:
    """Whether ``err`` is memory running out: a MemoryError (numpy, Python) or torch's
    RuntimeError from its CPU or GPU allocators (torch.OutOfMemoryError, or their words)."""
    torch = sys.modules.get("torch")
    if isinstance(err, MemoryError) or (torch is not None and isinstance(err, getattr(torch, "OutOfMemoryError", ()))):
        return True
    return isinstance(err, RuntimeError) and any(sign in str(err) for sign in TORCH_OUT_OF_MEMORY)


def memory_detail(err: BaseException) -> str:
    """What running out of memory said, for a message: its start."""
    return str(err)[:160] or "MemoryError"


class _OutOfMemory(Exception):
    """Memory ran out (``out_of_memory``) while a build step ran."""

    def __init__(self, err: BaseException) -> None:
        super().__init__(str(err))
        self.detail = memory_detail(err)


class _OutOfMemoryCounting(_OutOfMemory):
    """While the corpus was counted (E265 names what to lower)."""


class _OutOfMemoryLoading(_OutOfMemory):
    """While PIPELINE was loaded (E267; not E266: nothing was counted yet)."""


@contextmanager
def _out_of_memory_as(kind: type) -> Iterator[None]:
    """Memory running out in the block (``out_of_memory``) raised as ``kind``; other errors as they are."""
    try:
        yield
    except (MemoryError, RuntimeError) as err:
        if not out_of_memory(err):
            raise
        raise kind(err) from None


RECORDED_SETTINGS = (
    "key", "layer", "min_count", "batch_size", "n_process", "gpu_id", "checkpoint_every", "engine", "encoding",
    "max_docs", "sample_size", "sample_min_count", "sample_contexts", "senses",
)  # fmt: skip


def build_record(request: LexiconBuildRequest, result: BuildResult) -> Dict[str, Any]:
    """What a lexicon was built from and with, for meta.json: the versions, the corpus as given,
    the documents and tokens counted (the documents' SHA-256 where the engine computes one:
    the local engine, in corpus order) and the settings that change its contents or last bits."""
    versions = {name.replace("-", "_"): installed_version(name) for name in ("spacy-ctxvec", "torch", "transformers")}
    settings = {name: getattr(request, name) for name in RECORDED_SETTINGS}
    if request.engine == "ray":  # a GPU's last bits differ from a CPU's; the actors' number changes nothing
        settings["num_gpus_per_worker"] = {**RAY_DEFAULTS, **request.ray}["num_gpus_per_worker"]
        settings["n_process"] = None  # the local engine's processes: Ray's workers are its actors
    return {
        "versions": versions,
        "corpus": str(request.corpus),
        "documents": result.n_docs,
        "tokens": result.n_tokens,
        "documents_sha256": result.documents_sha256,
        "settings": settings,
    }


def _build(request: LexiconBuildRequest, checkpoints: Path, files: List[Path]) -> LexiconBuild:
    try:
        with _out_of_memory_as(_OutOfMemoryLoading):
            nlp = load_pipeline(request.pipeline, layer=request.layer, initialize_lexicons=False)  # replaced
            component = ensure_polysemy_component(nlp, request.key, request.min_count)
        with _out_of_memory_as(_OutOfMemoryCounting):
            result = _count(nlp, request, files)
    except CtxvecError as err:
        if not isinstance(err, CheckpointRefused) and _forget_empty_checkpoints(checkpoints):
            if err.code == "E741":  # counts without a vector: a changed corpus cannot resume them (E221)
                raise CtxvecError(
                    f"{err} Then rerun with --overwrite (the counts kept in '{checkpoints}' hold no vector)."
                ) from None
            fix = "free space there" if isinstance(err, OutputNotWritten) else "fix the input"  # a full disk: E703
            raise CtxvecError(f"{err} {counts_kept(checkpoints, 'so far')}: {fix} and rerun with --resume.") from None
        raise
    lexicon = result.lexicon.prune_sample(
        request.min_count if request.sample_min_count is None else request.sample_min_count
    )
    component.set_lexicon(lexicon, nlp=nlp)
    n_valid = int(result.lexicon.polysemy_scores(request.min_count)[1].sum())
    build = LexiconBuild(result, lexicon, n_valid, describe_score(component))
    unread, unk = types_read_as_unknown(nlp, lexicon.keys_seen(request.min_count))
    if unread:
        examples = ", ".join(repr(key) for key in unread[:N_UNREAD_SHOWN]) + (
            ", ..." if len(unread) > N_UNREAD_SHOWN else ""
        )
        build.warnings.append(
            Warnings.W049.format(n=len(unread), min_count=request.min_count, unk=unk, examples=examples)
        )
    build.warnings.extend(unsplit_script_warning(lexicon.keys, nlp.lang or ""))
    build.vectors = describe_vectors(lexicon.meta.get(CONTEXT_VECTORS_META), request.layer)
    if component.score_source == "probe" and lexicon.n_occurrences < SMALL_CORPUS_TOKENS:
        induction = component.induction
        warning = Warnings.W030 if induction.split_by_probe and not induction.split_by_evidence else Warnings.W006
        build.warnings.append(
            warning.format(n_tokens=lexicon.n_occurrences, minimum=SMALL_CORPUS_TOKENS, name=component.name)
        )
    english = english_probe_warning(component.probe, component.score_source or "", nlp.lang, component.name)
    if english:
        build.warnings.append(english)
    if request.senses is not False and lexicon.sample is not None:
        build.warnings.extend(component.induction_warnings())
        started = time.perf_counter()
        try:
            inventory = component.build_senses(warn=False)  # the warning is printed with the others
        except CtxvecError as err:  # a sense setting the lexicon refuses (E603): the counts need not be redone
            if not _forget_empty_checkpoints(checkpoints):
                raise
            kept = f"{counts_kept(checkpoints)}: fix the setting and rerun with --resume"
            raise CtxvecError(f"{err} {kept} (the pipeline's other settings unchanged).") from None
        build.senses = (
            f"{inventory.n_senses_total} senses of {len(inventory)} types "
            f"({int((inventory.counts() > 1).sum())} with more than one), induced in "
            f"{time.perf_counter() - started:.1f} s; {describe_split_thresholds(inventory.settings)}; "
            f"{describe_context(inventory.settings)}"
        )
    component.check_width(lexicon.width)
    nlp.meta[BUILD_META] = build_record(request, result)
    try:
        write_directory(request.output, nlp.to_disk, what="OUTPUT", made_by=BUILD_LEXICON, overwrite=request.overwrite)
    except WrittenThenInterrupted as stop:  # OUTPUT is in place: the build is done, not stopped
        build.warnings.append(stop.warning())
    except OutputWrittenMeanwhile as err:  # E226 at the rename: the counts stay
        if not _forget_empty_checkpoints(checkpoints):
            raise
        try:
            check_checkpoint_dir(checkpoints)
        except CtxvecError:  # the other build (same checkpoint directory) removed its marker when it finished
            raise CtxvecError(
                f"{err} Another build used the checkpoint directory '{checkpoints}' too, so the counts there "
                "cannot be trusted: delete it, then run the command again (without --resume)."
            ) from None
        raise CtxvecError(
            f"{err} {counts_kept(checkpoints)}: the same "
            "command with --resume --overwrite replaces OUTPUT with them without counting again."
        ) from None
    with interrupts_held() as held:
        remove_checkpoint_dir(checkpoints)
    if held:
        build.warnings.append(Warnings.W052.format(doing=f"the checkpoints in '{checkpoints}' were being removed"))
    return build


N_UNREAD_SHOWN = 5


def describe_vectors(label: Optional[str], layer: Optional[int]) -> Optional[str]:
    """Which vectors OUTPUT's token._.context_vec are (None where the lexicon does not
    record it), and that another layer's cosines differ from the default pipeline's."""
    if label is None:
        return None
    source = "PIPELINE's own layers (--keep-layer)" if layer is None else f"--layer {layer}"
    return (
        f"token._.context_vec in OUTPUT: {pooling_of(label)} ({source}). Other layers give other vectors and "
        "cosines: the default pipeline, and `compare` without --pipeline, read the last layer."
    )


def _count(nlp: Any, request: LexiconBuildRequest, files: List[Path]) -> BuildResult:
    engine_options = {**RAY_DEFAULTS, **request.ray} if request.engine == "ray" else {}
    return get_engine(request.engine)(
        nlp,
        request.corpus,
        key=request.key,
        batch_size=request.batch_size or nlp.batch_size,
        n_process=request.n_process,
        shard_size=request.checkpoint_every,
        checkpoint_dir=request.checkpoints,
        resume=request.resume,
        on_error=request.on_error,
        progress=request.progress,
        max_docs=request.max_docs,
        encoding=request.encoding,
        sample_size=request.sample_size,
        sample_contexts=request.sample_contexts,
        files=files,  # listed by check_build_request: not listed again
        **engine_options,
    )


def counts_kept(checkpoints: Path, when: str = "") -> str:
    """'The N documents counted [when] are kept in 'CHECKPOINTS'', for the messages of a stopped build."""
    return (
        f"The {documents_done(checkpoints)} documents counted {when + ' ' if when else ''}are kept in '{checkpoints}'"
    )


UNSPLIT_SHARE = 0.05  # of the types: a few names in another script are no reason to warn


def unsplit_script_warning(
    keys: Sequence[str],
    lang: str,
    effect: str = "few reach min_count and they get no senses",
    hint: Optional[str] = None,
) -> List[str]:
    """W072 where at least UNSPLIT_SHARE of the types are several characters of a script
    this pipeline's language does not split into words (Chinese under an English pipeline);
    ``hint``: how to split them (None: not_split_hint for ``lang``'s pipeline)."""
    unsplit = [key for key in keys if len(key) > 1 and in_unspaced_script(key) and unsplit_script(key, lang)]
    if not unsplit or len(unsplit) < UNSPLIT_SHARE * len(keys) or swapped_utf16_words(unsplit):
        return []  # text in the wrong UTF-16 byte order: W084 says so while reading
    examples = ", ".join(repr(key[:HINT_TOKEN_CHARS]) for key in unsplit[:N_UNREAD_SHOWN])
    hint = not_split_hint(unsplit[0], lang) if hint is None else hint
    return [Warnings.W072.format(n=len(unsplit), n_types=len(keys), examples=examples, effect=effect, hint=hint)]


def _forget_empty_checkpoints(checkpoints: Path) -> bool:
    """After a stop: remove a checkpoint directory that holds no checkpoint yet (made
    or marked by this run); True if a checkpoint is kept."""
    if (checkpoints / LATEST_FILE).exists():
        return True
    remove_checkpoint_dir(checkpoints)
    return False


def describe_score(component: Any) -> str:
    """What polysemy_score means in the saved pipeline."""
    probe = component.probe
    if component.score_source == "probe" and probe is not None:
        return (
            f"polysemy_score: the polysemy probe fitted on {probe.meta.get('trained_on') or 'sense counts'} "
            f"({probe.meta.get('n_words')} words), an estimate of each word's number of senses"
        )
    if component.score_definition == "self_similarity":
        return 'polysemy_score: self-similarity (score = "self_similarity")'
    shipped = "; ".join(describe_shipped_probes()) or "none"
    return (
        "polysemy_score: self-similarity (no polysemy probe fits this model and lexicon; the package ships "
        f"probes for these models as published, each for one layer: {shipped}; a fine-tuned copy is another model; "
        "fit one with `spacy-ctxvec fit-polysemy`)"
    )
