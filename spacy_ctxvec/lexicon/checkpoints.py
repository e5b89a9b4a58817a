"""Checkpoints of a local build: the merged lexicon so far plus the number of documents
done, replaced atomically after every shard, so that ``--resume`` continues exactly."""
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional

from spacy.language import Language

from ..errors import CtxvecError, Errors
from ..types import PathLike
from .corpus import corpus_fingerprint
from .table import Lexicon

LATEST_FILE = "LATEST"


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
    nlp: Language, corpus: PathLike, *, key: str, batch_size: int, shard_size: int, n_process: int, max_docs: Optional[int]
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
