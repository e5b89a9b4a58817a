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
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ..errors import CtxvecError, Errors
from ..pipelines import rebuild_pipeline
from ..types import CorpusItem
from .shard import partial_lexicon

# A corpus row is (kind, payload, path, line): a text, a serialised Doc, or the place
# of a bad line that was skipped (reported back like the local engine's skipped_lines).
KIND_TEXT, KIND_DOC, KIND_SKIPPED = 0, 1, 2
PARTIAL_COLUMNS = ("lexicon", "n_docs", "skipped")


class CorpusDatasource(FileBasedDatasource):
    """.txt / .jsonl / .spacy files read exactly as ``spacy_ctxvec.lexicon.corpus.iter_corpus``
    reads them (universal newlines, blank lines skipped, the same JSON rules and error
    codes with file and line), streamed in blocks of ``rows_per_block`` documents.

    Ray's own ``read_text`` splits lines with ``str.splitlines`` (which also breaks at
    U+2028, U+0085, form feeds...) and ``read_json`` needs one Arrow schema for all rows,
    so neither gives the local engine's documents.
    """

    def __init__(self, paths: List[str], *, rows_per_block: int, on_error: str, **kwargs: Any) -> None:
        super().__init__(paths, **kwargs)
        self.rows_per_block = rows_per_block
        self.on_error = on_error

    def _read_stream(self, f: "pa.NativeFile", path: str) -> Iterator[pa.Table]:
        rows = _Rows(path)
        try:
            suffix = PurePath(path).suffix
            if suffix == ".spacy":
                docs = DocBin().from_bytes(f.readall()).get_docs(Vocab())
                for doc in docs:
                    if len(doc):
                        rows.add(KIND_DOC, doc.to_bytes(), 0)
                        if len(rows) >= self.rows_per_block:
                            yield rows.flush()
            else:
                text_stream = io.TextIOWrapper(f, encoding="utf8")
                read_line = _jsonl_row if suffix == ".jsonl" else _txt_row
                for line_number, line in enumerate(text_stream, start=1):
                    row = read_line(line, path, line_number, self.on_error)
                    if row is not None:
                        rows.add(*row)
                        if len(rows) >= self.rows_per_block:
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

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, kind: int, payload: bytes, line: int) -> None:
        self.kinds.append(kind)
        self.payloads.append(payload)
        self.lines.append(line)

    def flush(self) -> pa.Table:
        table = pa.table({
            "kind": pa.array(self.kinds, pa.int8()),
            "payload": pa.array(self.payloads, pa.binary()),
            "path": pa.array([self.path] * len(self.kinds), pa.string()),
            "line": pa.array(self.lines, pa.int64()),
        })
        self.kinds, self.payloads, self.lines = [], [], []
        return table


def _txt_row(line: str, path: str, line_number: int, on_error: str) -> Optional[Tuple[int, bytes, int]]:
    text = line.rstrip("\r\n")
    return (KIND_TEXT, text.encode("utf8"), line_number) if text.strip() else None


def _jsonl_row(line: str, path: str, line_number: int, on_error: str) -> Optional[Tuple[int, bytes, int]]:
    """One .jsonl line by the rules of corpus._read_jsonl ("text" string or "words" list)."""
    if not line.strip():
        return None
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        return _bad_line(Errors.E212.format(path=path, line=line_number, error=err.msg), line_number, on_error)
    if isinstance(row, dict) and isinstance(row.get("text"), str):
        return (KIND_TEXT, row["text"].encode("utf8"), line_number) if row["text"].strip() else None
    words = row.get("words") if isinstance(row, dict) else None
    if isinstance(words, list) and all(isinstance(word, str) for word in words):
        if not words:
            return None
        spaces = row.get("spaces")
        doc = Doc(Vocab(), words=words, spaces=spaces if isinstance(spaces, list) else None)
        return KIND_DOC, doc.to_bytes(), line_number
    return _bad_line(Errors.E213.format(path=path, line=line_number, got=line.strip()[:80]), line_number, on_error)


def _bad_line(message: str, line_number: int, on_error: str) -> Tuple[int, bytes, int]:
    if on_error == "raise":
        raise CtxvecError(message)
    return KIND_SKIPPED, b"", line_number


def decode_rows(batch: Dict[str, np.ndarray], vocab: Vocab) -> Tuple[List[CorpusItem], List[Tuple[str, int]]]:
    """Documents (texts and Docs on ``vocab``) and skipped (file, line) of a batch."""
    items: List[CorpusItem] = []
    skipped: List[Tuple[str, int]] = []
    for kind, payload, path, line in zip(batch["kind"], batch["payload"], batch["path"], batch["line"]):
        if kind == KIND_TEXT:
            items.append(bytes(payload).decode("utf8"))
        elif kind == KIND_DOC:
            items.append(Doc(vocab).from_bytes(bytes(payload)))
        else:
            skipped.append((str(path), int(line)))
    return items, skipped


class PartialLexiconWorker:
    """Ray Data callable class: loads the pipeline once per actor, then maps each batch
    of corpus rows to ONE row holding that batch's partial lexicon (msgpack bytes).

    It keeps no counts between calls: if the actor dies, Ray restarts it and reruns the
    unfinished task, whose output replaces (never adds to) the lost attempt's.
    """

    def __init__(self, pipeline: "ray.ObjectRef", key: str, batch_size: int, use_gpu: bool, num_threads: int) -> None:
        config_str, nlp_bytes = ray.get(pipeline)  # (config, bytes), put once by the driver
        # Ray sets CUDA_VISIBLE_DEVICES to this actor's GPU, so use_gpu picks the right one.
        self.nlp = rebuild_pipeline(config_str, nlp_bytes, use_gpu=use_gpu, num_threads=num_threads)
        self.key = key
        self.batch_size = batch_size

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        items, skipped = decode_rows(batch, self.nlp.vocab)
        lexicon = partial_lexicon(self.nlp, items, key=self.key, batch_size=self.batch_size)
        return {
            "lexicon": np.array([lexicon.to_bytes()], dtype=object),
            "n_docs": np.array([len(items)], dtype=np.int64),
            "skipped": np.array([json.dumps(skipped)], dtype=object),
        }

