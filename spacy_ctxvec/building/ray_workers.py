"""The parts of the Ray engine that run on Ray workers: a corpus datasource and the
callable class that turns a batch of documents into a partial lexicon.

Imported only after Ray Data is known to be installed (it imports ray at the top).
"""

import io
import json
from pathlib import PurePath
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import ray
from ray.data.datasource import FileBasedDatasource
from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..errors import CtxvecError, Errors
from .bad_lines import BadLineError, SkippedLine
from .corpus import DEFAULT_ENCODING, CorpusItem, docbin_docs, make_doc, parse_line
from .line_endings import HEAD_BYTES, PrefixedStream, newline_for
from .replicas import rebuild_pipeline
from .shard import partial_lexicon

# A dataset row is one shard of one file: (kind, payload, path, line) with a list of
# kinds, payloads and line numbers, one entry per document. A document is a text, a
# serialised Doc, or the place of a bad line that was skipped, its payload the reason
# (reported back like the local engine's skipped_lines).
KIND_TEXT, KIND_DOC, KIND_SKIPPED = 0, 1, 2


class CorpusDatasource(FileBasedDatasource):
    """.txt / .jsonl / .spacy files read exactly as ``spacy_ctxvec.building.corpus.iter_corpus``
    reads them: the same line ends (``line_endings``), line parser (``corpus.parse_line``: blank
    lines skipped, ``encoding`` with undecodable lines named, the same JSON rules and
    error codes with file and line) and DocBin reader (``corpus.docbin_docs``),
    streamed as one row per shard of ``shard_size`` documents (the last shard of a file
    may be shorter).

    Ray's own ``read_text`` splits lines with ``str.splitlines`` (which also breaks at
    U+2028, U+0085, form feeds...) and ``read_json`` needs one Arrow schema for all rows,
    so neither gives the local engine's documents.
    """

    def __init__(
        self,
        paths: List[str],
        *,
        shard_size: int,
        on_error: str,
        encoding: str = DEFAULT_ENCODING,
        max_length: Optional[int] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(paths, **kwargs)
        self.shard_size = shard_size
        self.on_error = on_error
        self.encoding = encoding
        self.max_length = max_length  # the pipeline's nlp.max_length: a longer text is a bad line (E272)

    def _read_stream(self, f: "pa.NativeFile", path: str) -> Iterator[pa.Table]:
        rows = _Rows(path)
        try:
            suffix = PurePath(path).suffix.lower()
            if suffix == ".spacy":
                for doc in docbin_docs(f.readall(), Vocab(), path):
                    rows.add(KIND_DOC, doc.to_bytes(), 0)
                    if rows.n_documents >= self.shard_size:
                        yield rows.flush()
            else:
                head = f.read(HEAD_BYTES)  # judged for its line ends, then read again
                text_stream = io.TextIOWrapper(
                    io.BufferedReader(PrefixedStream(head, f)),
                    encoding=self.encoding,
                    errors="surrogateescape",
                    newline=newline_for(head, suffix),
                )
                for line_number, line in enumerate(text_stream, start=1):
                    row = corpus_row(line, path, line_number, suffix, self.on_error, self.encoding, self.max_length)
                    if row is not None:
                        rows.add(*row)
                        if rows.n_documents >= self.shard_size:
                            yield rows.flush()
        except (UnicodeDecodeError, OSError, ValueError) as err:
            if isinstance(err, CtxvecError):
                raise
            raise CtxvecError(Errors.E501.format(path=path, error=err)) from err
        if len(rows):
            yield rows.flush()


class _Rows:
    def __init__(self, path: str) -> None:
        self.path = path
        self.kinds: List[int] = []
        self.payloads: List[bytes] = []
        self.lines: List[int] = []
        # A shard holds shard_size documents, as the local engine's: skipped lines ride along uncounted
        self.n_documents = 0

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, kind: int, payload: bytes, line: int) -> None:
        self.kinds.append(kind)
        self.payloads.append(payload)
        self.lines.append(line)
        self.n_documents += kind != KIND_SKIPPED

    def flush(self) -> pa.Table:
        """The documents added since the last flush as ONE row (one shard)."""
        table = pa.table(
            {
                "kind": pa.array([self.kinds], pa.list_(pa.int8())),
                "payload": pa.array([self.payloads], pa.list_(pa.binary())),
                "path": pa.array([self.path], pa.string()),
                "line": pa.array([self.lines], pa.list_(pa.int64())),
            }
        )
        self.kinds, self.payloads, self.lines, self.n_documents = [], [], [], 0
        return table


def corpus_row(
    line: str,
    path: str,
    line_number: int,
    suffix: str,
    on_error: str,
    encoding: str = DEFAULT_ENCODING,
    max_length: Optional[int] = None,
) -> Optional[Tuple[int, bytes, int]]:
    """One .txt/.jsonl line as a corpus row, parsed by ``corpus.parse_line`` (None: blank)."""
    try:
        parsed = parse_line(line, path, line_number, suffix, encoding, max_length)
    except BadLineError as err:
        if on_error == "raise":
            raise
        return KIND_SKIPPED, err.reason.encode("utf8"), line_number
    if parsed is None:
        return None
    if isinstance(parsed, str):
        return KIND_TEXT, parsed.encode("utf8"), line_number
    return KIND_DOC, make_doc(Vocab(), parsed).to_bytes(), line_number


def shard_entries(batch: Dict[str, np.ndarray]) -> Iterator[Tuple[int, bytes, str, int]]:
    """(kind, payload, path, line) of every document in a batch of shard rows, in order."""
    for kinds, payloads, path, lines in zip(batch["kind"], batch["payload"], batch["path"], batch["line"]):
        for kind, payload, line in zip(kinds, payloads, lines):
            yield int(kind), bytes(payload), str(path), int(line)


def decode_rows(batch: Dict[str, np.ndarray], vocab: Vocab) -> Tuple[List[CorpusItem], List[SkippedLine]]:
    """Documents (texts and Docs on ``vocab``) and skipped lines of a batch of shards."""
    items: List[CorpusItem] = []
    skipped: List[SkippedLine] = []
    for kind, payload, path, line in shard_entries(batch):
        if kind == KIND_TEXT:
            items.append(payload.decode("utf8"))
        elif kind == KIND_DOC:
            items.append(Doc(vocab).from_bytes(payload))
        else:
            skipped.append(SkippedLine(path, line, payload.decode("utf8")))
    return items, skipped


class PartialLexiconWorker:
    """Ray Data callable class: loads the pipeline once per actor, then maps each batch
    (one shard row) to ONE row holding that shard's partial lexicon (msgpack bytes).

    It keeps no counts between calls: if the actor dies, Ray restarts it and reruns the
    unfinished task, whose output replaces (never adds to) the lost attempt's.
    """

    def __init__(
        self,
        pipeline: "ray.ObjectRef",
        key: str,
        batch_size: int,
        use_gpu: bool,
        num_threads: int,
        sample_size: int = 0,
        sample_contexts: bool = True,
    ) -> None:
        config_str, nlp_bytes, max_length = ray.get(pipeline)  # put once by the driver
        # Ray sets CUDA_VISIBLE_DEVICES to this actor's GPU, so use_gpu picks the right one.
        self.nlp = rebuild_pipeline(
            config_str, nlp_bytes, use_gpu=use_gpu, num_threads=num_threads, max_length=max_length
        )
        self.key = key
        self.batch_size = batch_size
        self.sample_size = sample_size
        self.sample_contexts = sample_contexts

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        items, skipped = decode_rows(batch, self.nlp.vocab)
        lexicon = partial_lexicon(
            self.nlp,
            items,
            key=self.key,
            batch_size=self.batch_size,
            sample_size=self.sample_size,
            sample_contexts=self.sample_contexts,
        )
        return {
            "lexicon": np.array([lexicon.to_bytes()], dtype=object),
            "n_docs": np.array([len(items)], dtype=np.int64),
            "skipped": np.array([json.dumps(skipped)], dtype=object),
        }
