"""The Ray engine: build a polysemy lexicon with Ray Data, on one machine or a cluster.

The corpus is read as a Ray Dataset (one read task per file, one row and one block per
shard of ``shard_size`` documents). ``map_batches`` runs a pool of ``num_workers`` actors
(``num_gpus_per_worker`` GPUs each); every actor loads the pipeline once and maps each
shard to one row holding its partial lexicon, made by the same shard function as the
local engine (``shard.partial_lexicon``). The driver streams those rows back and adds them
with ``Lexicon.merge``, which is exact and order-independent, so the result equals the
local engine's however Ray splits, schedules or retries the work.

Why a retried worker does not count twice: partials are task outputs, not actor state.
When an actor dies, Ray Data restarts it and reruns the unfinished task; the rerun's
outputs take the same object ids as the lost attempt's, and the driver only merges rows
that the dataset iterator hands it, once each.

When a node dies, its actors' unfinished shards wait for those actors to restart. The
nodes left may still finish the build: Ray Data releases an actor that has no more
input, and the lost actor restarts in its place and reruns its shard (counted once, as
above). When the nodes left are too small for the actor pool AND no shard finishes for
``node_loss_grace_s`` seconds (default NODE_LOSS_GRACE_S, 60), the driver stops with E520
(what was lost, what to rerun)
instead of waiting forever. Other unrecoverable node or worker failures become E522. A
stopped build saves nothing; the rerun starts over.

Ray is imported lazily; without it the engine raises E502 naming ``pip install
spacy-ctxvec[ray]``.
"""

import json
import math
import threading
import time
from pathlib import Path
from types import MappingProxyType
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
)

from spacy.language import Language

from ..errors import CtxvecError, Errors
from ..lexicon.statistics import Lexicon, merge_all
from ..types import PathLike
from .bad_lines import no_documents
from .corpus import (
    DEFAULT_ENCODING,
    ON_ERROR_CHOICES,
    SkippedLine,
    check_encoding,
    check_tokens_read,
    corpus_files,
)
from .engines import BuildResult
from .local import bar_output
from .ray_cluster import (
    NODE_CHECK_S,
    NodeLossWatch,
    check_cluster_resources,
    coded_errors_unlogged,
    data_context_settings,
    given_address,
    import_ray,
    ray_session,
    running_executors,
    stop_executors,
)
from .ray_failures import coded_error, node_loss_error, stall_error, worker_start_error
from .shard import check_key_mode, holds_docbins

# Reading and parsing text is cheap next to the transformer, and read tasks that asked
# for a CPU could never start while the actors hold every CPU of a small machine.
READ_TASK_CPUS = 0.0
MERGE_GROUP = 16
MERGE_STOP_S = 30.0  # how long a stopped build waits for its merge thread to let go of Ray


def resolve_corpus_files(
    corpus: Union[PathLike, Sequence[PathLike]],
    *,
    encoding: str = DEFAULT_ENCODING,
    on_error: str = "raise",
    listed: Optional[Sequence[Path]] = None,
) -> List[Tuple[str, str]]:
    """Every corpus file, checked to exist and be readable here (URIs such as
    s3://bucket/corpus.txt are passed on to Ray unchecked): the files ``corpus.corpus_files``
    gives the local engine, in its order (subfolders of a directory too; binary files
    are E234, or left out with on_error="skip"), each as a pair: (the path Ray's readers get, resolved,
    as another node has another working directory; the path the local engine names in W004). A file
    listed twice (a link beside its target) is there twice, read twice as the local engine reads it.
    ``listed``: the files of a one-path ``corpus`` as ``corpus_files`` listed them already."""
    paths = [corpus] if isinstance(corpus, (str, Path)) else list(corpus)
    if not paths:
        raise CtxvecError(
            Errors.E228.format(setting="corpus", requirement="at least one file or directory", value=paths)
        )
    files: List[Tuple[str, str]] = []
    for path in paths:
        if "://" in str(path):
            files.append((str(path), str(path)))
            continue
        listing = listed if listed is not None and len(paths) == 1 else None
        for file in listing if listing is not None else corpus_files(path, encoding=encoding, on_error=on_error):
            try:
                with file.open("rb") as handle:
                    handle.read(1)
            except OSError as err:
                raise CtxvecError(Errors.E501.format(path=file, error=err.strerror or err)) from err
            files.append((str(file.resolve()), str(file)))
    return files


def check_settings(
    num_workers: int,
    num_gpus_per_worker: float,
    num_cpus_per_worker: float,
    batch_size: int,
    shard_size: int,
    on_error: str,
    node_loss_grace_s: Optional[float] = None,
    names: Mapping[str, str] = MappingProxyType({}),
) -> None:
    """E228 for a setting out of range, named as in ``names`` (the command line's
    option names), else by its parameter name; E215 for ``on_error``."""

    def bad(setting: str, requirement: str, value: Any) -> CtxvecError:
        named = names.get(setting, setting)
        return CtxvecError(Errors.E228.format(setting=named, requirement=requirement, value=value))

    for setting, value in (("num_workers", num_workers), ("batch_size", batch_size), ("shard_size", shard_size)):
        if value < 1:
            raise bad(setting, "a positive integer", value)
    if not (math.isfinite(num_gpus_per_worker) and num_gpus_per_worker >= 0):
        raise bad("num_gpus_per_worker", "0 or more", num_gpus_per_worker)
    if not (math.isfinite(num_cpus_per_worker) and num_cpus_per_worker > 0):
        raise bad("num_cpus_per_worker", "more than 0", num_cpus_per_worker)
    if on_error not in ON_ERROR_CHOICES:
        raise CtxvecError(Errors.E215.format(on_error=on_error))
    if node_loss_grace_s is not None and not (
        isinstance(node_loss_grace_s, (int, float))
        and not isinstance(node_loss_grace_s, bool)
        and math.isfinite(node_loss_grace_s)
        and node_loss_grace_s > 0
    ):
        raise bad("node_loss_grace_s", "a number of seconds above 0", node_loss_grace_s)


def check_unsupported(n_process: int, resume: bool, max_docs: Optional[int]) -> None:
    """E505 for the local engine's options (checked before any model loads, and again here)."""
    if n_process != 1:
        raise CtxvecError(
            Errors.E505.format(option="--n-process", reason="use --num-workers (one Ray actor per worker)")
        )
    if resume:
        raise CtxvecError(
            Errors.E505.format(
                option="--resume",
                reason=(
                    "Ray reruns failed shards itself; rerun the build if the driver dies, "
                    "or use the local engine's checkpoints"
                ),
            )
        )
    if max_docs is not None:
        raise CtxvecError(
            Errors.E505.format(
                option="--max-docs",
                reason=(
                    "Ray reads files in parallel, so 'the first N documents' is not defined; "
                    "cut the corpus files instead"
                ),
            )
        )


def merge_watching(
    rows: Iterable[Dict[str, Any]],
    watch: Optional[NodeLossWatch],
    *,
    progress: bool = False,
    stop: Optional[Callable[[], None]] = None,
) -> Tuple[Optional[Lexicon], int, List[SkippedLine]]:
    """merge_partials on a helper thread while this one checks the cluster with ``watch``
    every NODE_CHECK_S seconds. E520 from the watch (or an interrupt) ends the wait:
    ``stop`` is called (it should end the row iterator) and the helper thread gets up to
    MERGE_STOP_S seconds to finish before the error goes on, so that no thread still
    reads from Ray when the caller shuts it down (a Ray call after ray.shutdown would
    start a local Ray)."""
    outcome: Dict[str, Any] = {}

    def noted(rows: Iterable[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
        for row in rows:
            if watch is not None:
                watch.saw_progress()
            yield row

    def run() -> None:
        try:
            outcome["value"] = merge_partials(noted(rows), progress=progress)
        except BaseException as err:  # handed to the calling thread
            outcome["error"] = err

    thread = threading.Thread(target=run, name="ctxvec-ray-merge", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(NODE_CHECK_S)
            if thread.is_alive() and watch is not None:
                watch.check()
    except BaseException:
        if stop is not None:
            stop()
        thread.join(MERGE_STOP_S)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


RATE_AFTER_S = 2.0  # seconds after the first partial before the progress bar shows tokens/s


def merge_partials(
    rows: Iterable[Dict[str, Any]], *, progress: bool = False
) -> Tuple[Optional[Lexicon], int, List[SkippedLine]]:
    """Stream-merge partial lexicon rows: (lexicon or None, documents, skipped lines).

    A merge rewrites the whole running lexicon, so partials are first merged with each
    other in groups of MERGE_GROUP (small lexicons, cheap) and each group once into the
    running total: MERGE_GROUP times fewer passes over types x width. Merging is exact
    and associative, so the grouping does not change a bit of the result.
    """
    from tqdm import tqdm

    lexicon: Optional[Lexicon] = None
    group: List[Lexicon] = []
    n_docs = n_tokens = 0
    skipped: List[SkippedLine] = []
    # tokens/s from the first partial on: the actors' start-up (model loading) is not counted, and
    # no rate before RATE_AFTER_S (partials that arrive together made a rate of a few ms: 40x too high)
    first_at: Optional[float] = None
    first_tokens = 0

    def flush() -> None:
        nonlocal lexicon
        if group:
            merged = merge_all(group)
            lexicon = merged if lexicon is None else lexicon.merge(merged)
            group.clear()

    with tqdm(
        unit="doc",
        disable=not progress,
        dynamic_ncols=True,
        desc="build-lexicon (ray)",
        **bar_output(),
    ) as bar:
        for row in rows:
            part = Lexicon.from_bytes(row["lexicon"])
            group.append(part)
            if len(group) >= MERGE_GROUP:
                flush()
            n_docs += int(row["n_docs"])
            n_tokens += part.n_occurrences
            skipped.extend(
                SkippedLine(str(path), int(line), str(why)) for path, line, why in json.loads(row["skipped"])
            )
            bar.update(int(row["n_docs"]))
            if first_at is None:
                first_at, first_tokens = time.perf_counter(), n_tokens
            elif time.perf_counter() - first_at >= RATE_AFTER_S:
                rate = (n_tokens - first_tokens) / (time.perf_counter() - first_at)
                bar.set_postfix(tokens_per_s=f"{rate:,.0f}", refresh=False)
    flush()
    return lexicon, n_docs, sorted(skipped)


def build_lexicon_ray(
    pipeline: Language,
    corpus: Union[PathLike, Sequence[PathLike]],
    *,
    address: Optional[str] = None,
    num_workers: int = 1,
    num_gpus_per_worker: float = 0.0,
    num_cpus_per_worker: float = 1.0,
    key: str = "lower",
    batch_size: int = 64,
    shard_size: int = 1000,
    on_error: str = "raise",
    progress: bool = True,
    n_process: int = 1,
    checkpoint_dir: Optional[PathLike] = None,
    resume: bool = False,
    max_docs: Optional[int] = None,
    worker_class: Optional[Type] = None,
    encoding: str = DEFAULT_ENCODING,
    sample_size: int = 0,
    node_loss_grace_s: Optional[float] = None,
    sample_contexts: bool = True,
    files: Optional[Sequence[Path]] = None,
) -> BuildResult:
    """Build a lexicon from corpus files with a pool of Ray actors.

    pipeline: a Language (spacy.load, or spacy_ctxvec.pipelines.load_pipeline for a directory,
        package or .cfg), shipped to the actors as config + bytes + max_length, so every
        actor has the same weights; anything else is E508, before Ray starts.
    corpus: a .txt / .jsonl / .spacy file, a directory of them, or a list of either.
    address: an existing cluster ("auto", "ray://host:10001"; warns W080 where not one
        worker fits on it now); None reuses an initialised Ray or starts a local one for
        this call (and shuts it down afterwards), and checks that its current resources can
        hold the actor pool (E504 instead of waiting forever). An address other than that of
        a Ray already initialised in this process is E507.
    num_workers, num_gpus_per_worker, num_cpus_per_worker: the actor pool; each actor
        holds one copy of the pipeline and runs torch on num_cpus_per_worker threads.
    shard_size: documents per Ray batch, i.e. per partial lexicon.
    batch_size: documents per nlp.pipe batch inside an actor.

    n_process, resume and max_docs belong to the local engine (E505 if set);
    checkpoint_dir is accepted for the shared CLI call and not used: Ray reruns failed
    shards itself. ``worker_class`` replaces the actor class (a subclass of
    ``_ray_parts.PartialLexiconWorker``). ``encoding`` decodes .txt/.jsonl files
    (lines are parsed by ``corpus.parse_line``, as in the local engine). ``sample_size``
    K > 0 keeps an occurrence sample of up to K occurrences per type, equal to the local
    engine's (priorities hash the content, merging is exact), with context vectors unless
    ``sample_contexts`` is False. ``node_loss_grace_s``:
    how long a build that lost nodes and can no longer hold its actor pool waits for a
    finished shard before E520 (None: NODE_LOSS_GRACE_S, 60 s; raise it where nodes or
    models take longer to come back). ``files``: a one-path corpus's files as
    ``corpus.corpus_files`` listed them, not listed again. Returns the same BuildResult
    as the local engine.
    """
    check_settings(
        num_workers, num_gpus_per_worker, num_cpus_per_worker, batch_size, shard_size, on_error, node_loss_grace_s
    )
    if sample_size < 0:
        raise CtxvecError(
            Errors.E228.format(
                setting="sample_size", requirement="0 (no sample) or a positive integer", value=sample_size
            )
        )
    check_unsupported(n_process, resume, max_docs)
    if not isinstance(pipeline, Language):
        raise CtxvecError(Errors.E508.format(given=type(pipeline).__name__))
    encoding = check_encoding(encoding)
    resolved = resolve_corpus_files(corpus, encoding=encoding, on_error=on_error, listed=files)
    files_read = [read for read, _ in resolved]
    shown_as: Dict[str, str] = {}
    for read, shown in resolved:
        shown_as.setdefault(read, shown)  # a file listed twice (a link beside its target): the first name
    import_ray()
    from .ray_workers import CorpusDatasource, PartialLexiconWorker

    nlp = pipeline
    check_key_mode(nlp, key, docs_given=holds_docbins(files_read))
    start = time.perf_counter()
    address, from_environment = given_address(address), address is None
    with ray_session(address, num_workers, num_cpus_per_worker, from_environment) as ray:
        check_cluster_resources(ray, num_workers, num_cpus_per_worker, num_gpus_per_worker, address)
        # Every shard row its own block (target_max_block_size=1): Ray Data would
        # otherwise pack a read task's rows into blocks of up to 128 MiB, and the actor
        # pool hands out whole blocks, so a one-file corpus went to ONE actor however
        # many there were.
        settings = data_context_settings(ray, enable_progress_bars=progress, target_max_block_size=1)
        with settings, coded_errors_unlogged():
            pipeline_ref = ray.put((nlp.config.to_str(), nlp.to_bytes(), nlp.max_length))
            documents = ray.data.read_datasource(
                CorpusDatasource(
                    files_read, shard_size=shard_size, on_error=on_error, encoding=encoding, max_length=nlp.max_length
                ),
                num_cpus=READ_TASK_CPUS,
                # One read task per file and no further splitting: shards are cut inside a
                # file, every shard_size documents, whatever the cluster's size (nlp.pipe's
                # padding, and with it the last bits of the sums, depends on the shards).
                override_num_blocks=len(files_read),
            )
            partials = documents.map_batches(
                worker_class or PartialLexiconWorker,
                batch_size=1,  # one shard row per call
                batch_format="numpy",
                compute=ray.data.ActorPoolStrategy(size=num_workers),
                num_cpus=num_cpus_per_worker,
                num_gpus=num_gpus_per_worker or None,
                fn_constructor_args=(
                    pipeline_ref,
                    key,
                    batch_size,
                    num_gpus_per_worker > 0,
                    max(1, int(num_cpus_per_worker)),
                    sample_size,
                    sample_contexts,
                ),
            )
            executors_before = running_executors()

            def stop_build() -> None:
                stop_executors(running_executors() - executors_before)

            try:
                watch = NodeLossWatch(
                    ray, num_workers, num_cpus_per_worker, num_gpus_per_worker, grace_s=node_loss_grace_s
                )
                lexicon, n_docs, skipped = merge_watching(
                    partials.iter_rows(), watch, progress=progress, stop=stop_build
                )
            except BaseException as err:
                stop_build()
                if not isinstance(err, Exception):  # KeyboardInterrupt, SystemExit
                    raise
                coded = coded_error(err) or node_loss_error(err) or stall_error(err) or worker_start_error(err)
                if coded is None:
                    raise
                message = str(coded)  # files named as given (the workers read them by resolved path)
                for read in sorted(shown_as, key=len, reverse=True):
                    message = message.replace(read, shown_as[read])
                raise CtxvecError(message) from err
    corpus_name = str(corpus) if isinstance(corpus, (str, Path)) else ", ".join(str(path) for path in corpus)
    skipped = [line._replace(path=shown_as.get(line.path, line.path)) for line in skipped]
    if lexicon is None or n_docs == 0:
        raise no_documents(corpus_name, skipped, 0)
    check_tokens_read(corpus_name, n_docs, lexicon.n_occurrences)
    return BuildResult(lexicon, n_docs, lexicon.n_occurrences, time.perf_counter() - start, skipped)
