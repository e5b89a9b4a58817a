"""Building a polysemy lexicon from a corpus.

``partial_lexicon`` is the shard function: documents in, partial Lexicon out. Any
engine runs it on parts of a corpus and adds the parts with ``Lexicon.merge``, which is
exact, so the result does not depend on how the corpus was split or in what order
the parts finish. ``build_lexicon_local`` is the engine for one machine: shards of
``shard_size`` documents, optional worker processes, checkpoints and resume.
"""
import hashlib
import itertools
import json
import multiprocessing
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
from spacy.attrs import LEMMA, LOWER, ORTH
from spacy.language import Language
from spacy.tokens import Doc

from .attributes import CONTEXT_ARRAY, CONTEXT_MASK, install_extensions
from .corpus import CorpusItem, CorpusReport, corpus_fingerprint, iter_corpus
from .errors import CtxvecError, Errors
from .ops.polysemy import Lexicon, merge_all

KEY_ATTRS = {"lower": LOWER, "text": ORTH, "lemma": LEMMA}
POLYSEMY_FACTORY = "ctxvec_polysemy"
CONTEXT_COMPONENT = "ctxvec_context"
MAX_BUFFERED_OCCURRENCES = 50_000
LATEST_FILE = "LATEST"


# The shard function
def check_key_mode(nlp: Language, key: str) -> None:
    """Raise if ``key`` is unknown, or is 'lemma' and no component sets lemmas."""
    if key not in KEY_ATTRS:
        raise CtxvecError(Errors.E216.format(key=key, choices=", ".join(KEY_ATTRS)))
    if key == "lemma":
        setters = [name for name in nlp.pipe_names if "token.lemma" in nlp.get_pipe_meta(name).assigns]
        if not setters:
            problem = f"no component of the pipeline {nlp.pipe_names} assigns token.lemma"
            raise CtxvecError(Errors.E217.format(problem=problem))


def vector_source(nlp: Language, key: str) -> Dict[str, Any]:
    """What the lexicon's vectors come from: key mode plus the ctxvec_context settings."""
    context_cfg = nlp.config["components"].get(CONTEXT_COMPONENT, {})
    return {
        "key": key,
        "layers": dict(context_cfg.get("layers", {})),
        "pooling": dict(context_cfg.get("pooling", {})),
    }


def polysemy_components(nlp: Language) -> List[str]:
    return [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory == POLYSEMY_FACTORY]


def doc_occurrences(doc: Doc, key_attr: int, pipe_names: Sequence[str] = ()) -> Tuple[np.ndarray, np.ndarray]:
    """(key ids, vectors) of the tokens of ``doc`` that have a contextual vector."""
    vectors, mask = doc._.get(CONTEXT_ARRAY), doc._.get(CONTEXT_MASK)
    if vectors is None or mask is None:
        raise CtxvecError(Errors.E218.format(pipe_names=list(pipe_names), name=POLYSEMY_FACTORY))
    ids = doc.to_array(key_attr)[mask] if len(doc) else np.zeros(0, dtype=np.uint64)
    if key_attr == LEMMA and (ids == 0).any():
        token = doc[int(np.flatnonzero(mask)[int(np.flatnonzero(ids == 0)[0])])].text
        raise CtxvecError(Errors.E229.format(token=token, pipe_names=list(pipe_names)))
    return ids, vectors[mask]


def partial_lexicon(
    nlp: Language,
    items: Iterable[CorpusItem],
    *,
    key: str = "lower",
    batch_size: int = 64,
    on_doc: Optional[Callable[[Doc], None]] = None,
) -> Lexicon:
    """Run ``nlp`` over texts or Docs and count every token that has a contextual vector.

    ``ctxvec_polysemy`` components are disabled while building (they would only read
    the lexicon being made). ``on_doc`` is called on each processed Doc (progress).
    """
    check_key_mode(nlp, key)
    if batch_size < 1:
        raise CtxvecError(Errors.E228.format(setting="batch_size", value=batch_size))
    install_extensions()
    key_attr, meta = KEY_ATTRS[key], vector_source(nlp, key)
    parts: List[Lexicon] = []
    buffered_ids: List[np.ndarray] = []
    buffered_vectors: List[np.ndarray] = []
    n_buffered = 0

    def flush() -> None:
        nonlocal n_buffered
        if buffered_ids:
            ids = np.concatenate(buffered_ids)
            unique_ids, inverse = np.unique(ids, return_inverse=True)
            strings = np.array([nlp.vocab.strings[int(i)] for i in unique_ids], dtype=str)
            parts.append(Lexicon.from_occurrences(strings[inverse], np.concatenate(buffered_vectors), meta=meta))
        buffered_ids.clear()
        buffered_vectors.clear()
        n_buffered = 0

    width = None
    for doc in nlp.pipe(items, batch_size=batch_size, disable=polysemy_components(nlp)):
        ids, vectors = doc_occurrences(doc, key_attr, nlp.pipe_names)
        if len(ids):
            width = vectors.shape[1]
            buffered_ids.append(ids)
            buffered_vectors.append(vectors)
            n_buffered += len(ids)
        if on_doc is not None:
            on_doc(doc)
        if n_buffered >= MAX_BUFFERED_OCCURRENCES:
            flush()
    flush()
    if not parts:
        return Lexicon.empty(context_width(nlp) if width is None else width, meta=meta)
    return merge_all(parts)


def context_width(nlp: Language) -> int:
    """The width of the pipeline's contextual vectors, from one short probe text."""
    doc = nlp("width probe", disable=polysemy_components(nlp))
    vectors = doc._.get(CONTEXT_ARRAY)
    if vectors is None:
        raise CtxvecError(Errors.E218.format(pipe_names=nlp.pipe_names, name=POLYSEMY_FACTORY))
    return int(vectors.shape[1])


# Worker processes (spawned, never forked: a forked child of a process that already
# ran torch can hang in the OpenMP thread pool).
_worker_nlp: Optional[Language] = None


def _init_worker(config_str: str, nlp_bytes: bytes, n_threads: int) -> None:
    global _worker_nlp
    from .pipelines import rebuild_pipeline

    _worker_nlp = rebuild_pipeline(config_str, nlp_bytes, num_threads=n_threads)


def _worker_partial_lexicon(payload: List[Union[str, bytes]], key: str, batch_size: int) -> Tuple[bytes, int]:
    assert _worker_nlp is not None
    items = [item if isinstance(item, str) else Doc(_worker_nlp.vocab).from_bytes(item) for item in payload]
    lexicon = partial_lexicon(_worker_nlp, items, key=key, batch_size=batch_size)
    return lexicon.to_bytes(), len(items)


# Checkpoints
@dataclass
class Checkpoint:
    docs_done: int
    lexicon: Lexicon
    n_tokens: int


def _fsync_dir_files(path: Path) -> None:
    for file in path.iterdir():
        with file.open("rb") as handle:
            os.fsync(handle.fileno())


def write_checkpoint(directory: Path, checkpoint: Checkpoint, fingerprint: Dict[str, Any]) -> None:
    """Atomically replace the checkpoint: write a new shard dir, then swap LATEST to it."""
    directory.mkdir(parents=True, exist_ok=True)
    name = f"shard-{checkpoint.docs_done:012d}"
    tmp = directory / f".tmp-{name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    checkpoint.lexicon.to_disk(tmp)
    state = {"docs_done": checkpoint.docs_done, "n_tokens": checkpoint.n_tokens, "fingerprint": fingerprint}
    (tmp / "state.json").write_text(json.dumps(state, indent=2), encoding="utf8")
    _fsync_dir_files(tmp)
    shutil.rmtree(directory / name, ignore_errors=True)
    os.rename(tmp, directory / name)
    latest_tmp = directory / f".{LATEST_FILE}.tmp-{os.getpid()}"
    latest_tmp.write_text(name, encoding="utf8")
    with latest_tmp.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(latest_tmp, directory / LATEST_FILE)
    for old in directory.iterdir():
        if old.name != name and old.name != LATEST_FILE and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


def read_checkpoint(directory: Path, fingerprint: Dict[str, Any]) -> Optional[Checkpoint]:
    """The last complete checkpoint in ``directory`` (None if there is none)."""
    latest = directory / LATEST_FILE
    if not latest.exists():
        return None
    shard = directory / latest.read_text(encoding="utf8").strip()
    state = json.loads((shard / "state.json").read_text(encoding="utf8"))
    differing = sorted(k for k in set(fingerprint) | set(state["fingerprint"]) if fingerprint.get(k) != state["fingerprint"].get(k))
    if differing:
        raise CtxvecError(Errors.E221.format(path=directory, problem="different " + ", ".join(differing)))
    return Checkpoint(state["docs_done"], Lexicon.from_disk(shard, mmap=False), state["n_tokens"])


def build_fingerprint(
    nlp: Language, corpus: Union[str, Path], *, key: str, batch_size: int, shard_size: int, n_process: int, max_docs: Optional[int]
) -> Dict[str, Any]:
    """Everything that must match for a resumed build to equal an uninterrupted one."""
    return {
        "corpus_sha256": corpus_fingerprint(corpus),
        "pipeline_config_sha256": hashlib.sha256(nlp.config.to_str().encode("utf8")).hexdigest(),
        "key": key,
        "batch_size": batch_size,
        "shard_size": shard_size,
        "n_process": n_process,
        "max_docs": max_docs,
    }


# The local engine
@dataclass
class BuildResult:
    lexicon: Lexicon
    n_docs: int
    n_tokens: int
    seconds: float
    skipped_lines: List[Tuple[str, int]] = field(default_factory=list)
    resumed_from: int = 0


class _Progress:
    """tqdm bar in documents with docs/s, plus tokens/s as a postfix."""

    def __init__(self, enabled: bool, initial_docs: int) -> None:
        from tqdm import tqdm

        self.bar = tqdm(unit="doc", initial=initial_docs, disable=not enabled, dynamic_ncols=True, desc="build-lexicon")
        self.start = time.perf_counter()
        self.tokens = 0

    def update(self, n_docs: int, n_tokens: int) -> None:
        self.tokens += n_tokens
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        self.bar.update(n_docs)
        self.bar.set_postfix(tokens_per_s=f"{self.tokens / elapsed:,.0f}", refresh=False)

    def close(self) -> None:
        self.bar.close()


def _chunks(items: Iterator[Any], size: int) -> Iterator[List[Any]]:
    while True:
        chunk = list(itertools.islice(items, size))
        if not chunk:
            return
        yield chunk


def _split(items: List[Any], n_parts: int) -> List[List[Any]]:
    bounds = np.linspace(0, len(items), n_parts + 1).astype(int)
    return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def build_lexicon_local(
    nlp: Language,
    corpus: Union[str, Path],
    *,
    key: str = "lower",
    batch_size: int = 64,
    n_process: int = 1,
    shard_size: int = 1000,
    checkpoint_dir: Optional[Union[str, Path]] = None,
    resume: bool = False,
    on_error: str = "raise",
    progress: bool = True,
    max_docs: Optional[int] = None,
) -> BuildResult:
    """Build a lexicon from a corpus file on this machine.

    The corpus is processed in shards of ``shard_size`` documents (each shard is one
    ``partial_lexicon`` call, or ``n_process`` calls in spawned worker processes).
    With ``checkpoint_dir``, the merged statistics and the number of documents done are
    written atomically after every shard; ``resume=True`` continues from there and
    gives a result bitwise identical to an uninterrupted run with the same settings.
    """
    for setting, value in (("batch_size", batch_size), ("n_process", n_process), ("shard_size", shard_size)):
        if value < 1:
            raise CtxvecError(Errors.E228.format(setting=setting, value=value))
    check_key_mode(nlp, key)
    install_extensions()
    checkpoint_path = Path(checkpoint_dir) if checkpoint_dir is not None else None
    fingerprint = build_fingerprint(nlp, corpus, key=key, batch_size=batch_size, shard_size=shard_size, n_process=n_process, max_docs=max_docs) if checkpoint_path else {}
    state = read_checkpoint(checkpoint_path, fingerprint) if (checkpoint_path and resume) else None
    if checkpoint_path and not resume and (checkpoint_path / LATEST_FILE).exists():
        shutil.rmtree(checkpoint_path)
    lexicon = state.lexicon if state else None
    docs_done, n_tokens = (state.docs_done, state.n_tokens) if state else (0, 0)
    resumed_from = docs_done

    report = CorpusReport()
    stream: Iterator[CorpusItem] = iter_corpus(corpus, nlp.vocab, on_error=on_error, report=report)
    if max_docs is not None:
        stream = itertools.islice(stream, max_docs)
    stream = itertools.islice(stream, docs_done, None)
    bar = _Progress(progress, docs_done)
    pool = _start_pool(nlp, n_process) if n_process > 1 else None
    start = time.perf_counter()
    try:
        for shard in _chunks(stream, shard_size):
            if pool is None:
                shard_lexicon = partial_lexicon(
                    nlp, shard, key=key, batch_size=batch_size,
                    on_doc=lambda doc: bar.update(1, len(doc)),
                )
            else:
                shard_lexicon = _pool_partial_lexicon(pool, shard, n_process, key, batch_size, bar)
            lexicon = shard_lexicon if lexicon is None else lexicon.merge(shard_lexicon)
            docs_done += len(shard)
            n_tokens += shard_lexicon.n_occurrences
            if checkpoint_path is not None:
                write_checkpoint(checkpoint_path, Checkpoint(docs_done, lexicon, n_tokens), fingerprint)
    finally:
        bar.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    if lexicon is None:
        raise CtxvecError(Errors.E211.format(path=corpus))
    return BuildResult(lexicon, docs_done, n_tokens, time.perf_counter() - start, report.skipped, resumed_from)


def _start_pool(nlp: Language, n_process: int) -> ProcessPoolExecutor:
    n_threads = max(1, (os.cpu_count() or 1) // n_process)
    return ProcessPoolExecutor(
        max_workers=n_process,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(nlp.config.to_str(), nlp.to_bytes(), n_threads),
    )


def _pool_partial_lexicon(pool: ProcessPoolExecutor, shard: List[CorpusItem], n_process: int, key: str, batch_size: int, bar: _Progress) -> Lexicon:
    payloads = [[item if isinstance(item, str) else item.to_bytes() for item in part] for part in _split(shard, n_process)]
    futures = [pool.submit(_worker_partial_lexicon, payload, key, batch_size) for payload in payloads]
    parts = []
    for future in futures:
        data, n_docs = future.result()
        part = Lexicon.from_bytes(data)
        bar.update(n_docs, part.n_occurrences)
        parts.append(part)
    return merge_all(parts)


ENGINES: Dict[str, Callable[..., BuildResult]] = {"local": build_lexicon_local}


def get_engine(name: str) -> Callable[..., BuildResult]:
    """A build engine by name; another engine registers itself in ENGINES."""
    if name not in ENGINES:
        raise CtxvecError(Errors.E223.format(engine=name, choices=", ".join(ENGINES)))
    return ENGINES[name]
