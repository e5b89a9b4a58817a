"""The local build engine: shards of ``shard_size`` documents, optional spawned worker
processes, checkpoints and resume, on one machine."""

import hashlib
import itertools
import multiprocessing
import os
import sys
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from ..attributes import install_extensions
from ..errors import CtxvecError, Errors, OutputNotWritten, Warnings
from ..interrupts import interrupts_blocked_for_children, interrupts_raised, workers_ignore_interrupts
from ..lexicon.statistics import Lexicon, merge_all
from ..types import PathLike
from .checkpoints import (
    Checkpoint,
    build_fingerprint,
    open_checkpoint_dir,
    read_checkpoint,
    refused,
    write_checkpoint,
)
from .corpus import (
    DEFAULT_ENCODING,
    ON_ERROR_CHOICES,
    CorpusItem,
    CorpusReport,
    check_encoding,
    check_tokens_read,
    corpus_files,
    item_digest,
    iter_corpus,
)
from .engines import BuildResult
from .replicas import rebuild_pipeline
from .shard import check_key_mode, holds_docbins, partial_lexicon

# Worker processes (spawned, never forked: a forked child of a process that already
# ran torch can hang in the OpenMP thread pool).
_worker_nlp: Optional[Language] = None


def _init_worker(config_str: str, nlp_bytes: bytes, n_threads: int, max_length: Optional[int] = None) -> None:
    global _worker_nlp
    workers_ignore_interrupts()  # started with SIGINT blocked: no traceback while importing
    _worker_nlp = rebuild_pipeline(config_str, nlp_bytes, num_threads=n_threads, max_length=max_length)


def _worker_partial_lexicon(
    payload: List[Union[str, bytes]], key: str, batch_size: int, sample_size: int = 0, sample_contexts: bool = True
) -> Tuple[bytes, int]:
    assert _worker_nlp is not None
    items = [item if isinstance(item, str) else Doc(_worker_nlp.vocab).from_bytes(item) for item in payload]
    with interrupts_raised():  # Ctrl-C stops the task; its KeyboardInterrupt goes back to the build
        lexicon = partial_lexicon(
            _worker_nlp, items, key=key, batch_size=batch_size, sample_size=sample_size, sample_contexts=sample_contexts
        )
    return lexicon.to_bytes(), len(items)


# The local engine
# The bar until the first documents are done: nlp.pipe hands them over a batch at a time
# (the transformer buffers and sorts up to a batch of Docs first), so a rate taken from
# the first document would be the whole first batch's time per document.
WAITING_FORMAT = "{desc}: {n_fmt}doc [{elapsed}, waiting for the model's first batch]"
REDRAW_S = 1.0  # the bar is redrawn this often, so that a batch's last documents show at once
LOG_REDRAW_S = 30.0  # ... and at most this often off a terminal (stderr to a log file)


class LogLines:
    """A progress bar's file off a terminal: each redraw ("\\r" and the bar) as a line of its
    own, so that a log file holds lines, not carriage returns (the clearing at the end: nothing)."""

    def __init__(self, file: Any) -> None:
        self.file = file  # None once it cannot be written (stderr closed or full): the build goes on

    def write(self, text: str) -> int:
        line = text.replace("\r", "").rstrip()
        if line and self.file is not None:
            try:
                self.file.write(line + "\n")
            except (OSError, ValueError):  # ValueError: a closed file
                self.file = None
        return len(text)

    def flush(self) -> None:
        try:
            if self.file is not None:
                self.file.flush()
        except (OSError, ValueError):
            self.file = None


def bar_output(file: Optional[Any] = None) -> Dict[str, Any]:
    """tqdm's ``file`` (None: stderr) and ``mininterval``: on a terminal as given, redrawn
    often; off one (a log file) through LogLines, at most every LOG_REDRAW_S."""
    if getattr(file if file is not None else sys.stderr, "isatty", lambda: False)():
        return {"file": file, "mininterval": 0.1}
    return {"file": LogLines(file if file is not None else sys.stderr), "mininterval": LOG_REDRAW_S}


class _Progress:
    """tqdm bar in documents with docs/s (the average since the start), plus tokens/s as
    a postfix. Documents come a batch at a time: until the first arrive, the bar says it
    waits for the first batch and shows no rate, and a thread redraws it every REDRAW_S
    (tqdm draws only when an update comes, so a batch's last documents would otherwise
    show only when the next batch is done). Off a terminal (a log file) it is drawn at most
    every LOG_REDRAW_S."""

    def __init__(
        self, enabled: bool, initial_docs: int, file: Optional[Any] = None, total: Optional[int] = None
    ) -> None:
        from tqdm import tqdm

        shown = bar_output(file)
        self.redraw_s = LOG_REDRAW_S if isinstance(shown["file"], LogLines) else REDRAW_S
        self.bar = tqdm(
            unit="doc",
            total=total,
            initial=initial_docs,
            disable=not enabled,
            dynamic_ncols=True,
            desc=f"build-lexicon (resumed after {initial_docs})" if initial_docs else "build-lexicon",
            smoothing=0,
            bar_format=WAITING_FORMAT,
            **shown,
        )
        self.start = time.perf_counter()
        self.tokens = 0
        self.waiting = True
        self.stopped = threading.Event()
        self.redrawing = threading.Thread(target=self._redraw, daemon=True) if enabled else None
        if self.redrawing is not None:
            self.redrawing.start()

    def update(self, n_docs: int, n_tokens: int) -> None:
        if self.waiting:
            self.waiting = False
            self.bar.bar_format = None  # tqdm's own: count, elapsed, rate
            # Not drawn now: the first documents of a batch come together, so the next
            # frame (an update after tqdm's mininterval, or the redraw) shows more than one.
            self.bar.last_print_t = time.time()
        self.tokens += n_tokens
        self._set_token_rate()  # before the update, which may draw: drawn after, the rate was the last update's
        self.bar.update(n_docs)

    def _set_token_rate(self) -> None:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        self.bar.set_postfix(tokens_per_s=f"{self.tokens / elapsed:,.0f}", refresh=False)

    def _redraw(self) -> None:
        while not self.stopped.wait(self.redraw_s):
            if self.waiting or self.bar.n != self.bar.last_print_n:
                if not self.waiting:
                    self._set_token_rate()
                self.bar.refresh()

    def close(self, finished: bool = False) -> None:
        """``finished``: the corpus was read to its end (before ``total``: the bar ends at 100%)."""
        self.stopped.set()
        if self.redrawing is not None:
            self.redrawing.join()
        if finished and self.bar.total is not None:
            self.bar.total = self.bar.n
        self.bar.close()


def _split(items: List[Any], n_parts: int) -> List[List[Any]]:
    bounds = np.linspace(0, len(items), n_parts + 1).astype(int)
    return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


# Merging a shard into the lexicon counted so far costs that lexicon's size, which grows to
# gigabytes on a large corpus: shards wait until they hold a quarter of it, so that merging
# costs a few shards' size per shard however large the lexicon grows (the merge is exact:
# the result is the same bit for bit).
PENDING_SHARE = 0.25
# A checkpoint is written after every shard while writing one is quick; once a write takes
# SLOW_WRITE_S or more, after the shard that ends CHECKPOINT_RATIO times that time of
# counting since (so writing checkpoints takes at most about 1/(1 + CHECKPOINT_RATIO) of a
# build), and always after the last shard.
SLOW_WRITE_S = 0.5
CHECKPOINT_RATIO = 19


def _held_bytes(lexicon: Lexicon) -> int:
    """Bytes of ``lexicon``'s arrays (its sums, counts and sampled vectors)."""
    held = lexicon.counts.nbytes + lexicon.unit_sums.nbytes + lexicon.raw_sums.nbytes
    sample = lexicon.sample
    if sample is not None:
        held += sample.vectors.nbytes + (0 if sample.contexts is None else sample.contexts.nbytes)
    return int(held)


class _Counted:
    """The lexicon counted so far: the merged shards and the shards waiting to be merged."""

    def __init__(self, lexicon: Optional[Lexicon]) -> None:
        self.merged, self.merged_bytes = lexicon, 0 if lexicon is None else _held_bytes(lexicon)
        self.waiting: List[Lexicon] = []
        self.waiting_bytes = 0
        # (documents, tokens, documents' SHA-256) after the last shard counted: what a checkpoint records
        self.state: Optional[Tuple[int, int, str]] = None

    def add(self, shard_lexicon: Lexicon) -> None:
        self.waiting.append(shard_lexicon)
        self.waiting_bytes += _held_bytes(shard_lexicon)
        if self.waiting_bytes >= PENDING_SHARE * self.merged_bytes:
            self.lexicon()

    def lexicon(self) -> Optional[Lexicon]:
        """Everything counted so far, merged (None before the first shard)."""
        if self.waiting:
            shards = merge_all(self.waiting)
            self.merged = shards if self.merged is None else self.merged.merge(shards)
            self.merged_bytes, self.waiting, self.waiting_bytes = _held_bytes(self.merged), [], 0
        return self.merged


class CheckpointSchedule:
    """When to write a checkpoint (SLOW_WRITE_S, CHECKPOINT_RATIO) of a build of ``fingerprint``,
    and writing it."""

    def __init__(self, docs_written: int, fingerprint: Dict[str, Any]) -> None:
        self.docs_written, self.fingerprint = docs_written, fingerprint
        self.last_end = time.perf_counter()
        self.last_write_s = 0.0

    def due(self, now: Optional[float] = None) -> bool:
        """Whether to write one after the shard just counted (``now``: perf_counter time)."""
        since = (time.perf_counter() if now is None else now) - self.last_end
        return self.last_write_s < SLOW_WRITE_S or since >= CHECKPOINT_RATIO * self.last_write_s

    def keep_counted(self, directory: Path, counted: _Counted) -> None:
        """Write the shards ``counted`` since the last checkpoint, where there are any; a write
        that fails leaves the checkpoint before (the error being raised is the one to fix)."""
        if counted.state is None or counted.state[0] == self.docs_written:
            return
        try:
            self.write(directory, counted)
        except CtxvecError:
            pass

    def write(self, directory: Path, counted: _Counted) -> None:
        """A checkpoint of everything ``counted`` (its ``state``: after the last shard)."""
        begin = time.perf_counter()
        lexicon = counted.lexicon()
        assert lexicon is not None and counted.state is not None
        docs_done, n_tokens, docs_sha256 = counted.state
        write_checkpoint(directory, Checkpoint(docs_done, lexicon, n_tokens, docs_sha256), self.fingerprint)
        self.last_end = time.perf_counter()
        self.last_write_s, self.docs_written = self.last_end - begin, docs_done


def build_lexicon_local(
    nlp: Language,
    corpus: PathLike,
    *,
    key: str = "lower",
    batch_size: int = 64,
    n_process: int = 1,
    shard_size: int = 1000,
    checkpoint_dir: Optional[PathLike] = None,
    resume: bool = False,
    on_error: str = "raise",
    progress: bool = True,
    max_docs: Optional[int] = None,
    encoding: str = DEFAULT_ENCODING,
    sample_size: int = 0,
    sample_contexts: bool = True,
    files: Optional[Sequence[Path]] = None,
) -> BuildResult:
    """Build a lexicon from a corpus file on this machine.

    The corpus is processed in shards of ``shard_size`` documents (each shard is one
    ``partial_lexicon`` call, or ``n_process`` calls in spawned worker processes).
    With ``checkpoint_dir``, the merged statistics and the number of documents done are
    written atomically after each shard while that is quick, else after enough shards that
    writing takes about 5% of the build (CheckpointSchedule), and after the last;
    ``resume=True`` continues from there and gives a result bitwise identical to an
    uninterrupted run with the same settings,
    provided the first documents it already counted read the same (the rest of the
    corpus may have been fixed since). ``checkpoint_dir`` must be new, empty or an
    earlier checkpoint directory (marked); only build-lexicon's own entries in it are
    ever removed. A build stopped by bad input keeps its last checkpoint.
    ``encoding`` decodes .txt/.jsonl files. ``sample_size`` K > 0 keeps an occurrence
    sample of up to K occurrences per type (the same whatever n_process or resume), with
    their context vectors unless ``sample_contexts`` is False. ``files``: the corpus's
    files as ``corpus.corpus_files`` listed them, not listed again (see ``iter_corpus``).
    """
    for setting, value in (("batch_size", batch_size), ("n_process", n_process), ("shard_size", shard_size)):
        if value < 1:
            raise CtxvecError(Errors.E228.format(setting=setting, requirement="a positive integer", value=value))
    if sample_size < 0:
        raise CtxvecError(
            Errors.E228.format(
                setting="sample_size", requirement="0 (no sample) or a positive integer", value=sample_size
            )
        )
    if on_error not in ON_ERROR_CHOICES:
        raise CtxvecError(Errors.E215.format(on_error=on_error))
    encoding = check_encoding(encoding)
    if key == "lemma" and files is None:
        files = corpus_files(corpus, encoding=encoding, on_error=on_error)
    check_key_mode(nlp, key, docs_given=holds_docbins(files or ()))
    install_extensions()
    checkpoint_path = Path(checkpoint_dir) if checkpoint_dir is not None else None
    fingerprint = (
        build_fingerprint(
            nlp,
            key=key,
            batch_size=batch_size,
            shard_size=shard_size,
            n_process=n_process,
            max_docs=max_docs,
            sample_size=sample_size,
            sample_contexts=sample_contexts,
        )
        if checkpoint_path
        else {}
    )
    state = None
    if checkpoint_path is not None:
        open_checkpoint_dir(checkpoint_path, resume=resume)
        state = read_checkpoint(checkpoint_path, fingerprint) if resume else None
        if resume and state is None:
            warnings.warn(Warnings.W047.format(path=checkpoint_path), stacklevel=2)
    counted = _Counted(state.lexicon if state else None)
    docs_done, n_tokens = (state.docs_done, state.n_tokens) if state else (0, 0)
    resumed_from = docs_done

    report = CorpusReport()
    digest = hashlib.sha256()
    stream: Iterator[CorpusItem] = _digested(
        iter_corpus(
            corpus,
            nlp.vocab,
            on_error=on_error,
            report=report,
            encoding=encoding,
            files=files,
            max_length=nlp.max_length,
        ),
        digest,
    )
    if max_docs is not None:
        stream = itertools.islice(stream, max_docs)
    if state is not None:
        _skip_counted(stream, state, corpus, checkpoint_path, digest)
    bar = _Progress(progress, docs_done, total=max_docs)
    pool = _start_pool(nlp, n_process) if n_process > 1 else None
    schedule = CheckpointSchedule(docs_done, fingerprint)
    start = time.perf_counter()
    finished = False
    try:
        for shard in minibatch(stream, size=shard_size):
            if pool is None:
                shard_lexicon = partial_lexicon(
                    nlp,
                    shard,
                    key=key,
                    batch_size=batch_size,
                    on_doc=lambda doc: bar.update(1, len(doc)),
                    sample_size=sample_size,
                    sample_contexts=sample_contexts,
                )
            else:
                shard_lexicon = _pool_partial_lexicon(
                    pool, shard, n_process, key, batch_size, bar, sample_size, sample_contexts
                )
            counted.add(shard_lexicon)
            docs_done += len(shard)
            n_tokens += shard_lexicon.n_occurrences
            counted.state = (docs_done, n_tokens, digest.hexdigest())
            if checkpoint_path is not None and schedule.due():
                schedule.write(checkpoint_path, counted)
        if checkpoint_path is not None and schedule.docs_written != docs_done:  # the last shards: always kept
            schedule.write(checkpoint_path, counted)
        finished = True
    except CtxvecError as err:  # bad input, read or counted: the shards counted before it are kept first
        if checkpoint_path is not None and not isinstance(err, OutputNotWritten):  # not written again: a full disk
            schedule.keep_counted(checkpoint_path, counted)
        raise
    finally:
        bar.close(finished)
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    lexicon = counted.lexicon()
    if lexicon is None:
        raise CtxvecError(Errors.E211.format(path=corpus))
    check_tokens_read(corpus, docs_done, n_tokens)
    seconds = time.perf_counter() - start
    return BuildResult(lexicon, docs_done, n_tokens, seconds, report.skipped, resumed_from, digest.hexdigest())


def _digested(stream: Iterator[CorpusItem], digest: "hashlib._Hash") -> Iterator[CorpusItem]:
    """Pass documents through, adding each to ``digest`` (length-prefixed)."""
    for item in stream:
        data = item_digest(item)
        digest.update(len(data).to_bytes(8, "little") + data)
        yield item


def _skip_counted(
    stream: Iterator[CorpusItem],
    state: Checkpoint,
    corpus: PathLike,
    checkpoint_dir: Optional[Path],
    digest: "hashlib._Hash",
) -> None:
    """Read past the documents a checkpoint already counted; E221 if they changed."""
    n_read = sum(1 for _ in itertools.islice(stream, state.docs_done))
    if n_read < state.docs_done:
        problem = f"the corpus '{corpus}' now has {n_read} documents, fewer than the {state.docs_done} already counted"
        raise refused(checkpoint_dir, problem, state.docs_done)
    if digest.hexdigest() != state.docs_sha256:
        problem = (
            f"the first {state.docs_done} documents of '{corpus}' differ from those counted "
            "(other files, contents or --encoding; or, for text with combining accents or byte-order marks, "
            "a checkpoint of a spacy-ctxvec from before such text was read in Unicode NFC without the marks)"
        )
        raise refused(checkpoint_dir, problem, state.docs_done)


def _start_pool(nlp: Language, n_process: int) -> ProcessPoolExecutor:
    n_threads = max(1, (os.cpu_count() or 1) // n_process)
    return ProcessPoolExecutor(
        max_workers=n_process,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(nlp.config.to_str(), nlp.to_bytes(), n_threads, nlp.max_length),
    )


def _pool_partial_lexicon(
    pool: ProcessPoolExecutor,
    shard: List[CorpusItem],
    n_process: int,
    key: str,
    batch_size: int,
    bar: _Progress,
    sample_size: int = 0,
    sample_contexts: bool = True,
) -> Lexicon:
    payloads = [
        [item if isinstance(item, str) else item.to_bytes() for item in part] for part in _split(shard, n_process)
    ]
    with interrupts_blocked_for_children():  # a submit starts the workers it needs
        futures = [
            pool.submit(_worker_partial_lexicon, payload, key, batch_size, sample_size, sample_contexts)
            for payload in payloads
        ]
    parts = []
    for future in futures:
        data, n_docs = future.result()
        part = Lexicon.from_bytes(data)
        bar.update(n_docs, part.n_occurrences)
        parts.append(part)
    return merge_all(parts)
