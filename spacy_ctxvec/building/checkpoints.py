"""Checkpoints of a local build: the merged lexicon so far plus the number of documents
done, replaced atomically after a shard (local.CheckpointSchedule says which), so that
``--resume`` continues exactly.

A checkpoint directory carries a marker file: build-lexicon removes a checkpoint
directory only when its marker is there, and inside it only the entries it writes itself
(shard-*, LATEST, temporaries). Outputs follow spacy_ctxvec.outputs."""

import hashlib
import json
import os
import re
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from spacy.language import Language
from thinc.api import Config

from ..errors import CtxvecError, Errors, OutputNotWritten, Warnings
from ..lexicon.statistics import DEFAULT_RAW_SCALE_BITS, Lexicon
from ..ops.text import count_of
from ..outputs import (
    BUILD_LEXICON,
    OUTPUT_MARKER,
    made_by_command,
    not_written_here,
    write_manifest,
)
from ..staging import process_running
from .shard import polysemy_components

LATEST_FILE = "LATEST"
STATE_FILE = "state.json"
# How messages name the checkpoint directory where --checkpoint-dir was not given.
DEFAULT_CHECKPOINT_DIR = "The checkpoint directory OUTPUT.checkpoint (--checkpoint-dir sets another)"
CHECKPOINT_MARKER = ".spacy-ctxvec-checkpoint"
_SHARD_NAME = re.compile(r"shard-\d{12}")
# Everything write_checkpoint may leave in a checkpoint directory.
_OWN_ENTRY = re.compile(r"shard-\d{12}|\.tmp-shard-\d{12}-\d+|\.LATEST\.tmp-\d+|LATEST")
# A checkpoint being written, by the process it names
_TEMPORARY_ENTRY = re.compile(r"\.tmp-shard-\d{12}-(\d+)|\.LATEST\.tmp-(\d+)")
_STATE_KEYS = {"docs_done": int, "n_tokens": int, "docs_sha256": str, "fingerprint": dict}
# The build-lexicon option of each setting in a fingerprint, to name it in E221.
SETTING_OPTIONS = {
    "key": "--key",
    "batch_size": "--batch-size",
    "shard_size": "--checkpoint-every",
    "n_process": "--n-process",
    "max_docs": "--max-docs",
    "sample_size": "--sample-size",
    "sample_contexts": "--sample-contexts",
    "sample_priorities": (
        "no option: a checkpoint written by an older spacy-ctxvec, which may have drawn its sample or "
        "written its snippets another way"
    ),
    "counting": (
        "no option: a checkpoint written by an older spacy-ctxvec, which may have counted words or drawn "
        "their contexts another way"
    ),
}
# Fingerprint keys written only with a sample (sample_size > 0): where one side has no
# sample, the sample_size line says what differs.
SAMPLE_DETAILS = ("sample_contexts", "sample_priorities")
# How a checkpoint's samples were drawn and their snippets written: a new way is a new value
# (snippets merge by their text, so a resumed build of old and new snippets keeps some occurrences twice).
SAMPLE_PRIORITIES = "passage, distinct snippets, snippets from a word"
# E221's way to continue: with the build's own settings, or none for a checkpoint of an older version.
CONTINUE_SAME_SETTINGS = "To continue it, rerun with --resume and the settings and first documents it was made with"
CONTINUE_OLDER_VERSION = (
    "This version of spacy-ctxvec cannot continue it (no option changes how words are counted or samples drawn)"
)
# How a checkpoint's words were counted: a new way is a new value (absent: an older version,
# which counted a word read with a glued unknown character and took contexts across sentences).
COUNTING = (
    "words read with a glued unknown character left out; contexts within sentences and paragraphs; "
    f"raw sums in steps of 2**-{DEFAULT_RAW_SCALE_BITS}"
)
# The counting config's digest is compared; its text, kept beside it, only names what
# differs (checkpoints written before it lack the text).
CONFIG_DIGEST, CONFIG_TEXT = "pipeline_config_sha256", "pipeline_config"


class CheckpointRefused(CtxvecError):
    """A checkpoint that this build cannot continue (E221: another build's settings or
    documents; E248: damaged). Its message says what to do, so a build stopped by it adds
    no "fix the input and rerun with --resume"."""


@dataclass
class Checkpoint:
    docs_done: int
    lexicon: Lexicon
    n_tokens: int
    docs_sha256: str = ""  # digest of the first docs_done documents (see corpus.item_digest)


# Marked (owned) directories
def write_marker(directory: Path, marker: str, *, created: bool, created_parents: int = 0) -> None:
    """Mark ``directory`` as made (created=True, with its ``created_parents`` lowest
    parents) or taken over while empty by build-lexicon."""
    info = {"made_by": made_by_command(BUILD_LEXICON), "created_directory": created, "created_parents": created_parents}
    (directory / marker).write_text(json.dumps(info), encoding="utf8")


def read_marker(directory: Path, marker: str) -> Optional[Dict[str, Any]]:
    """The marker's content, or None if ``directory`` carries no such marker."""
    file = directory / marker
    if not file.is_file():
        return None
    try:
        info = json.loads(file.read_text(encoding="utf8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deep
        info = None
    return info if isinstance(info, dict) else {"created_directory": False}


def is_empty_dir(path: Path) -> bool:
    return path.is_dir() and next(path.iterdir(), None) is None


def check_checkpoint_dir(path: Path) -> None:
    """E247 if ``path`` is a file, E244 if it is a non-empty directory without the marker."""
    if path.exists() and not path.is_dir():
        raise CtxvecError(Errors.E247.format(what="Checkpoint directory", path=path))
    if path.is_dir() and not is_empty_dir(path) and read_marker(path, CHECKPOINT_MARKER) is None:
        made = "a command's output, not a checkpoint directory" if (path / OUTPUT_MARKER).is_file() else ""
        problem = f"is not empty and is {made}" if made else "is not empty and was not made by build-lexicon"
        raise CtxvecError(Errors.E244.format(path=path, problem=problem, marker=CHECKPOINT_MARKER))


def open_checkpoint_dir(path: Path, *, resume: bool) -> None:
    """Make (or take over while empty) and mark the checkpoint directory; without
    ``resume``, remove the checkpoints an earlier run left in it."""
    check_checkpoint_dir(path)
    if not path.exists():
        missing_parents = [parent for parent in path.parents if not parent.exists()]
        path.mkdir(parents=True)
        write_marker(path, CHECKPOINT_MARKER, created=True, created_parents=len(missing_parents))
    elif read_marker(path, CHECKPOINT_MARKER) is None:
        write_marker(path, CHECKPOINT_MARKER, created=False)
    elif not resume:  # an earlier, interrupted build's checkpoint: W083, not lost in silence
        shards = sum(1 for entry in path.iterdir() if entry.is_dir() and _SHARD_NAME.fullmatch(entry.name))
        if shards:
            warnings.warn(Warnings.W083.format(path=path, shards=count_of(shards, "shard")), stacklevel=2)
        _remove_own_entries(path)
    else:  # resumed: what a build killed while writing a checkpoint left there
        _remove_temporaries_of_finished_processes(path)


def _remove_temporaries_of_finished_processes(path: Path) -> None:
    for entry in path.iterdir():
        found = _TEMPORARY_ENTRY.fullmatch(entry.name)
        if found and not process_running(int(found[1] or found[2])):
            _remove_entry(entry)


def _remove_own_entries(path: Path) -> None:
    for entry in path.iterdir():
        if _OWN_ENTRY.fullmatch(entry.name):
            _remove_entry(entry)


def _remove_entry(entry: Path) -> None:
    """A shard directory (its user files kept: _remove_shard) or a file write_checkpoint left."""
    if entry.is_dir() and not entry.is_symlink():
        _remove_shard(entry)
    else:
        entry.unlink(missing_ok=True)


def _remove_shard(shard: Path) -> None:
    """Remove a shard directory unless it holds what build-lexicon did not write there
    (its manifest, written with it, lists every file): those are left in place, with W051.
    Shards from before the manifest, and temporaries, are removed whole."""
    problem = not_written_here(shard) if (shard / OUTPUT_MARKER).is_file() else None
    if problem:
        warnings.warn(Warnings.W051.format(path=shard, problem=problem), stacklevel=2)
        return
    shutil.rmtree(shard, ignore_errors=True)


def remove_checkpoint_dir(path: Path) -> bool:
    """Remove what build-lexicon wrote in ``path`` (only if marked), and the directory
    itself if build-lexicon created it and nothing else is left. True if it is gone."""
    marker = read_marker(path, CHECKPOINT_MARKER) if path.is_dir() else None
    if marker is None:
        return not path.exists()
    _remove_own_entries(path)
    (path / CHECKPOINT_MARKER).unlink()
    if marker.get("created_directory") and is_empty_dir(path):
        path.rmdir()
        _remove_empty_parents(path, marker.get("created_parents"))
    return not path.exists()


def _remove_empty_parents(path: Path, n_created: object) -> None:
    """Remove the ``n_created`` lowest parents of ``path`` that open_checkpoint_dir made,
    while they are empty (the build's OUTPUT, written there, keeps them)."""
    n = n_created if isinstance(n_created, int) else 0
    for parent in list(path.parents)[:n]:
        if not is_empty_dir(parent):
            return
        parent.rmdir()


def made_by_an_older_version(directory: Path, sampling: bool) -> bool:
    """``made_by_older_version`` of the last checkpoint in ``directory`` against a build that
    counts this version's way (and samples, with ``sampling``); False where it cannot be read
    (its own error comes on --resume)."""
    current = {"counting": COUNTING, **({"sample_size": 1, "sample_priorities": SAMPLE_PRIORITIES} if sampling else {})}
    try:
        name = (directory / LATEST_FILE).read_text(encoding="utf8").strip()
        saved = json.loads((directory / name / STATE_FILE).read_text(encoding="utf8"))["fingerprint"]
        return made_by_older_version(saved, current)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return False


def unresumed_checkpoint(directory: Path, docs: int, ray: bool, sampling: bool) -> CtxvecError:
    """E250: ``directory`` holds ``docs`` counted documents and the build (with the Ray engine:
    ``ray``) neither resumes nor overwrites them; --resume is offered only where this version
    can continue them."""
    engine = " --engine local and without the Ray options (the local engine wrote it; Ray resumes nothing)"
    how = (
        "An older version of spacy-ctxvec wrote it, which this version cannot continue, even with --resume: "
        "build into a new OUTPUT (and a new --checkpoint-dir)"
        if made_by_an_older_version(directory, sampling)
        else f"Continue that build with --resume{engine * ray}"
    )
    return CtxvecError(Errors.E250.format(path=directory, docs=docs, how_to_continue=how))


def documents_done(directory: Path) -> int:
    """Documents counted by the last checkpoint in ``directory`` (0 if there is none)."""
    try:
        name = (directory / LATEST_FILE).read_text(encoding="utf8").strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return int(name[len("shard-") :]) if _SHARD_NAME.fullmatch(name) else 0


# Writing and reading checkpoints
def _fsync_dir_files(path: Path) -> None:
    """fsync every file under ``path`` (the lexicon's sample/ subdirectory too)."""
    for file in path.iterdir():
        if file.is_dir():
            _fsync_dir_files(file)
            continue
        _fsync(file)


def _fsync(file: Path) -> None:
    """Flush ``file`` to disk: opened for writing (Windows' fsync needs write access; a
    read-only handle is 'Bad file descriptor' there), without changing it."""
    with file.open("r+b") as handle:
        os.fsync(handle.fileno())


def write_checkpoint(directory: Path, checkpoint: Checkpoint, fingerprint: Dict[str, Any]) -> None:
    """Atomically replace the checkpoint: write a new shard dir, then swap LATEST to it.
    ``directory`` must have been opened with ``open_checkpoint_dir``."""
    name = f"shard-{checkpoint.docs_done:012d}"
    tmp = directory / f".tmp-{name}-{os.getpid()}"
    latest_tmp = directory / f".{LATEST_FILE}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        _write_shard(tmp, checkpoint, fingerprint)
        _remove_shard(directory / name)
        if (directory / name).exists():  # kept: it holds user files (W051)
            shutil.rmtree(tmp, ignore_errors=True)
            raise CtxvecError(Errors.E251.format(path=directory / name))
        os.rename(tmp, directory / name)
        latest_tmp.write_text(name, encoding="utf8")
        _fsync(latest_tmp)
        os.replace(latest_tmp, directory / LATEST_FILE)
    except BaseException as err:  # a full disk, Ctrl-C, SIGTERM: the checkpoint before stays the latest
        shutil.rmtree(tmp, ignore_errors=True)
        latest_tmp.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OutputNotWritten.from_os_error("The checkpoint directory", directory, err) from None
        raise
    for old in directory.iterdir():
        if old.name != name and _SHARD_NAME.fullmatch(old.name) and old.is_dir() and not old.is_symlink():
            _remove_shard(old)


def _write_shard(path: Path, checkpoint: Checkpoint, fingerprint: Dict[str, Any]) -> None:
    checkpoint.lexicon.to_disk(path)
    state = {
        "docs_done": checkpoint.docs_done,
        "n_tokens": checkpoint.n_tokens,
        "docs_sha256": checkpoint.docs_sha256,
        "fingerprint": fingerprint,
    }
    (path / STATE_FILE).write_text(json.dumps(state, indent=2), encoding="utf8")
    write_manifest(path, BUILD_LEXICON)
    _fsync_dir_files(path)


def _damaged(directory: Path, problem: str) -> CtxvecError:
    return CheckpointRefused(Errors.E248.format(path=directory, problem=problem))


def _valid_state_value(state: Any, key: str, kind: type) -> bool:
    """Whether ``state`` (a state.json) holds a ``kind`` under ``key``: a count is a whole
    number from 0 to sys.maxsize (a bigger one cannot count documents: islice refuses it)."""
    value = state.get(key) if isinstance(state, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        return False
    return not isinstance(value, int) or 0 <= value <= sys.maxsize


def read_checkpoint(directory: Path, fingerprint: Dict[str, Any]) -> Optional[Checkpoint]:
    """The last complete checkpoint in ``directory`` (None if there is none); E248
    naming the file for damaged state, E221 for a checkpoint of another build."""
    latest = directory / LATEST_FILE
    if not latest.exists():
        return None
    try:
        name = latest.read_text(encoding="utf8").strip()
    except (OSError, UnicodeDecodeError) as err:
        raise _damaged(directory, f"'{latest}' cannot be read ({err})") from None
    if not _SHARD_NAME.fullmatch(name):
        raise _damaged(directory, f"'{latest}' names {name[:60]!r}, not a shard-NNNNNNNNNNNN directory")
    shard = directory / name
    if not shard.is_dir():
        raise _damaged(directory, f"'{latest}' names '{name}', which does not exist")
    state_file = shard / STATE_FILE
    try:
        state = json.loads(state_file.read_text(encoding="utf8"))
    except (OSError, ValueError, RecursionError) as err:
        raise _damaged(directory, f"'{state_file}' is missing or not valid JSON ({type(err).__name__})") from None
    wrong = [k for k, kind in _STATE_KEYS.items() if not _valid_state_value(state, k, kind)]
    if wrong:
        raise _damaged(directory, f"'{state_file}' lacks valid {', '.join(wrong)}")
    differing = fingerprint_differences(state["fingerprint"], fingerprint)
    if differing:
        problem = "it was made with other settings: " + "; ".join(differing)
        advice = CONTINUE_OLDER_VERSION if made_by_older_version(state["fingerprint"], fingerprint) else None
        raise refused(directory, problem, state["docs_done"], advice)
    try:
        lexicon = Lexicon.from_disk(shard, mmap=False)
    except CtxvecError as err:
        raise _damaged(directory, str(err).split("] ", 1)[-1]) from None
    if lexicon.n_occurrences != state["n_tokens"]:
        raise _damaged(directory, f"'{state_file}' does not match the lexicon next to it")
    return Checkpoint(state["docs_done"], lexicon, state["n_tokens"], state["docs_sha256"])


def refused(directory: Optional[Path], problem: str, docs_done: int, advice: Optional[str] = None) -> CheckpointRefused:
    """E221 for the checkpoint in ``directory``: ``problem``, and how to continue it
    (``advice``; by default with the settings and first documents it was made with)."""
    how = advice or CONTINUE_SAME_SETTINGS
    return CheckpointRefused(Errors.E221.format(path=directory, problem=problem, docs=docs_done, how_to_continue=how))


def made_by_older_version(saved: Dict[str, Any], current: Dict[str, Any]) -> bool:
    """Whether the checkpoint counted words, or (both builds sampling) drew its sample, the
    way of another version (no option sets counting or sample_priorities)."""
    both_sample = "sample_size" in saved and "sample_size" in current
    other_sample = both_sample and saved.get("sample_priorities") != current.get("sample_priorities")
    return other_sample or saved.get("counting") != current.get("counting")


def fingerprint_differences(saved: Dict[str, Any], current: Dict[str, Any]) -> List[str]:
    """What differs between a checkpoint's fingerprint and the current one, in words: each
    setting by name and option with both values (e.g. "shard_size (--checkpoint-every): 100
    in the checkpoint, 50 now"), and the pipeline's by their config paths where both record
    the config."""
    differing = []
    for key in sorted((set(saved) | set(current)) - {CONFIG_TEXT}):
        if saved.get(key) == current.get(key):
            continue
        if key in SAMPLE_DETAILS and ("sample_size" in saved) != ("sample_size" in current):
            continue  # one side samples nothing: its sample_size line says so
        if key == CONFIG_DIGEST:
            changes = config_differences(saved.get(CONFIG_TEXT), current.get(CONFIG_TEXT))
            differing.append(
                "pipeline settings " + ", ".join(changes)
                if changes
                else f"the pipeline's config ({key} differs; this checkpoint does not record which settings)"
            )
            continue
        option = f" ({SETTING_OPTIONS[key]})" if key in SETTING_OPTIONS else ""
        differing.append(
            f"{key}{option}: {_setting(key, saved.get(key))} in the checkpoint, {_setting(key, current.get(key))} now"
        )
    return differing


def _setting(key: str, value: Any) -> str:
    """A fingerprint value as the command line gives it (None: not set; a sample_size
    is left out of the fingerprint when it is 0)."""
    if value is None:
        return "0" if key == "sample_size" else "not set"
    return json.dumps(value) if isinstance(value, (str, bool)) else str(value)


def config_differences(saved: Any, current: Any, limit: int = 5) -> List[str]:
    """The config paths whose values differ between two config texts, e.g.
    "[components.ctxvec_context.layers] layers: [5] in the checkpoint, [-1] now"; none
    where either is not a config text."""
    if not (isinstance(saved, str) and isinstance(current, str)):
        return []
    try:
        before, after = (_flat_config(Config().from_str(text, interpolate=False)) for text in (saved, current))
    except Exception:  # noqa: BLE001 - an unreadable saved config names nothing
        return []
    changes = [
        f"[{path.rpartition('.')[0]}] {path.rpartition('.')[2]}: "
        f"{before.get(path, '(absent)')} in the checkpoint, {after.get(path, '(absent)')} now"
        for path in sorted(set(before) | set(after))
        if before.get(path) != after.get(path)
    ]
    return changes[:limit] + ([f"and {len(changes) - limit} more"] if len(changes) > limit else [])


def _flat_config(section: Dict[str, Any], prefix: str = "") -> Dict[str, str]:
    flat: Dict[str, str] = {}
    for key, value in section.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        flat.update(_flat_config(value, path) if isinstance(value, dict) else {path: json.dumps(value, default=str)})
    return flat


def counting_config(nlp: Language) -> Config:
    """The pipeline config without its ctxvec_polysemy components, whose settings
    (min_count) do not change the counts."""
    config = nlp.config.copy()
    names = set(polysemy_components(nlp))
    for section in (config.get("components", {}), config.get("initialize", {}).get("components", {})):
        for name in names:
            section.pop(name, None)
    if "nlp" in config and "pipeline" in config["nlp"]:
        config["nlp"]["pipeline"] = [name for name in config["nlp"]["pipeline"] if name not in names]
    return config


def build_fingerprint(
    nlp: Language,
    *,
    key: str,
    batch_size: int,
    shard_size: int,
    n_process: int,
    max_docs: Optional[int],
    sample_size: int = 0,
    sample_contexts: bool = True,
) -> Dict[str, Any]:
    """The settings that must match for a resumed build to equal an uninterrupted one.

    The corpus itself is checked document by document instead (``docs_sha256``): a
    resumed build must read the same first ``docs_done`` documents, while the rest of
    the corpus may have been fixed since the build stopped."""
    config_text = counting_config(nlp).to_str()
    fingerprint: Dict[str, Any] = {
        CONFIG_DIGEST: hashlib.sha256(config_text.encode("utf8")).hexdigest(),
        CONFIG_TEXT: config_text,
        "key": key,
        "batch_size": batch_size,
        "shard_size": shard_size,
        "n_process": n_process,
        "max_docs": max_docs,
        "counting": COUNTING,
    }
    if sample_size:  # absent when 0, so that checkpoints written before samples existed still resume
        fingerprint["sample_size"] = sample_size
        fingerprint["sample_contexts"] = bool(
            sample_contexts
        )  # absent in checkpoints made before contexts: they do not resume
        # absent in checkpoints made before passage priorities, "passage" in those made before
        # distinct snippets: they do not resume (their samples do not merge with new ones)
        fingerprint["sample_priorities"] = SAMPLE_PRIORITIES
    return fingerprint
