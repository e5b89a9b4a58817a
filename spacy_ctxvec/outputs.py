"""Where commands write: one rule for every output, file or pipeline directory.

- An existing output is replaced only with ``overwrite`` (the CLI's ``--overwrite``), a file only where it is of the
  kind the command writes (``output_files``, E423).
- An output that is, contains, lies inside or links to an input (symbolic or hard link) is refused, with or without
  ``overwrite``; so is an output that is a symbolic link.
- A directory output is replaced only if it is empty or its marker file lists every entry in it, unchanged: what the
  command wrote there (``OUTPUT_MARKER``). Without ``overwrite``, a directory that ``overwrite`` would not replace
  either is refused with the reason (E245, E704), so that --overwrite is suggested (E226) only where it works.
- Every write goes to a temporary sibling that is renamed into place (``write_file``, ``write_directory``): a
  failure leaves the old output or nothing, never half of one. A sibling a killed command left is removed by the
  next write of that output (``spacy_ctxvec.staging``, W063).
- An output that cannot be written is one coded error, checked before the work (``check_output``) where it can be. A
  low module, so every layer can use it."""

import hashlib
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, TypeVar, Union

from .errors import CtxvecError, Errors, OutputNotWritten, OutputWrittenMeanwhile, Warnings
from .interrupts import interrupts_held
from .output_files import check_kind
from .paths import displayable
from .staging import (
    failed_write_behind,
    keep_mode,
    name_too_long,
    remove_killed_staging,
    replaced_directory_name,
    staged_directory_name,
    staged_file_name,
    unique_token,
)
from .types import PathLike

OUTPUT_MARKER = ".spacy-ctxvec-output"
FILE, DIRECTORY = "file", "directory"
# Inputs: {name: path} (a name such as "CORPUS" makes the message clearer) or paths.
# None and paths that are not on disk (a package name) are skipped.
Inputs = Union[Mapping[str, Optional[PathLike]], Iterable[Optional[PathLike]]]
# Entries of an input directory searched for a hard link to an existing output file.
HARD_LINK_SCAN_LIMIT = 100_000
T = TypeVar("T")


# Checks before the work
def check_output(
    path: PathLike,
    *,
    what: str,
    inputs: Inputs = (),
    kind: str = FILE,
    overwrite: bool = False,
    named_after: Optional[str] = None,
    replaceable: Optional[str] = None,
) -> Path:
    """``path`` as a Path if the command may write its output there (see the module
    docstring), else a coded error. Nothing is created or changed. ``named_after``: the
    output whose name ``path`` is made from (the advice is then to choose another one).
    ``replaceable``: the kind of file (of ``output_files.KINDS``) --overwrite may replace (E423)."""
    path = Path(path)
    check_place(path, what=what, inputs=inputs)
    if not path.exists():
        return path
    if kind == FILE:
        if path.is_dir():
            fix = (
                f"Its name is made from {named_after}: choose another {named_after}, or move the directory away."
                if named_after
                else "Give a file name, e.g. a path inside it."
            )
            raise _cannot(what, path, "it is an existing directory", fix)
        if not path.is_file():
            raise _cannot(what, path, "it is not a regular file (a device, pipe or socket)", "Give a file path.")
        if not overwrite:
            raise CtxvecError(Errors.E701.format(what=what, path=path))
        check_kind(path, what, replaceable)
        return path
    if not path.is_dir():
        raise CtxvecError(Errors.E247.format(what=what, path=path))
    working, target = Path.cwd().resolve(), path.resolve()
    if working.is_relative_to(target):
        reason = "it is the working directory" if working == target else "it holds the working directory"
        raise _cannot(
            what,
            path,
            f"{reason}, and an output directory is written beside itself and renamed into place",
            "Give the name of a new directory, e.g. ./lexicon.",
        )
    if next(path.iterdir(), None) is not None:
        check_replaceable(path, what)  # E245/E704: --overwrite would not replace it either
        if not overwrite:
            raise CtxvecError(Errors.E226.format(what=what, path=path))
    return path


BUILD_LEXICON = "build-lexicon"  # the command whose OUTPUT and checkpoints' markers name it (made_by)


def made_by_command(command: str) -> str:
    """The marker's "made_by" of an output `spacy-ctxvec COMMAND` wrote (write_directory, output_made_by)."""
    return f"spacy-ctxvec {command}"


def output_made_by(path: PathLike) -> Optional[str]:
    """The command that wrote directory output ``path`` ("spacy-ctxvec build-lexicon"; None: no readable marker)."""
    try:
        made_by = json.loads((Path(path) / OUTPUT_MARKER).read_text(encoding="utf8")).get("made_by")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return made_by if isinstance(made_by, str) else None


def check_place(path: PathLike, *, what: str, inputs: Inputs = ()) -> Path:
    """The checks that do not depend on what is at ``path`` already: no overlap with an input, not a
    symbolic link, parents are directories, and a file can be created next to it (leaving nothing)."""
    path = Path(path)
    if too_long := name_too_long(path, _nearest_existing(path)[0]):
        raise _cannot(what, path, too_long, "Choose a shorter name.")
    for name, source in _existing(inputs):
        relation = _relation(path, source, what)
        if relation:
            name = name or ("directory" if source.is_dir() else "file")
            raise CtxvecError(
                Errors.E700.format(what=what, path=path, relation=relation, other=name, other_path=source)
            )
    if path.is_symlink():
        raise CtxvecError(Errors.E702.format(what=what, path=path, target=os.readlink(path)))
    _probe_writable(path, what)
    return path


def check_apart(paths: Mapping[str, PathLike]) -> None:
    """E246 if two outputs of one command are the same or contain one another."""
    items = [(name, _resolve(Path(path), name)) for name, path in paths.items()]
    for i, (name, path) in enumerate(items):
        for other, other_path in items[i + 1 :]:
            relation = _nesting(path, other_path)
            if relation:
                raise CtxvecError(
                    Errors.E246.format(what=name, path=path, relation=relation, other=other, other_path=other_path)
                )


def check_replaceable(path: Path, what: str) -> None:
    """E245/E704 unless every entry in directory ``path`` is one its marker lists, unchanged."""
    marker = path / OUTPUT_MARKER
    if not marker.is_file():
        raise CtxvecError(Errors.E245.format(path=path, marker=OUTPUT_MARKER))
    problem = not_written_here(path)
    if problem:
        raise CtxvecError(Errors.E704.format(what=what, path=path, problem=problem))


def not_written_here(path: Path) -> Optional[str]:
    """What directory ``path`` holds beyond what its marker lists, unchanged (e.g. "files
    it did not write ('notes.txt')"), or None where it holds only that."""
    try:
        recorded = json.loads((path / OUTPUT_MARKER).read_text(encoding="utf8")).get("entries")
    except (OSError, ValueError, AttributeError, RecursionError):
        recorded = None
    if not isinstance(recorded, dict):
        return "a marker that does not list what was written there"
    found = _entries(path)
    foreign = sorted(name for name in found if name != OUTPUT_MARKER and name not in recorded)
    changed = sorted(
        name for name in found if name in recorded and not _unchanged(path / name, found[name], recorded[name])
    )
    problems = []
    if foreign:
        problems.append(f"files it did not write ({_some(foreign)})")
    if changed:
        problems.append(f"files changed since it wrote them ({_some(changed)})")
    return " and ".join(problems) or None


# Writing
def write_file(path: PathLike, write: Callable[[Path], T], *, what: str, overwrite: bool = False) -> T:
    """``write(temporary)`` into a new sibling of ``path`` (same suffix), then rename it
    onto ``path`` (an existing one only with ``overwrite``, checked again at the rename).
    On any failure the temporary is removed and ``path`` is as before; an OSError
    becomes E703. Returns what ``write`` returns."""
    path = Path(path)

    def move_into_place(temporary: Path) -> None:
        if not temporary.is_file():
            raise CtxvecError(Errors.E703.format(what=what, path=path, reason="nothing was written"))
        if path.is_symlink():
            raise CtxvecError(Errors.E702.format(what=what, path=path, target=os.readlink(path)))
        if path.exists() and not overwrite:
            raise CtxvecError(Errors.E701.format(what=what, path=path))
        keep_mode(path, temporary)
        os.replace(temporary, path)

    return _write_staged(path, staged_file_name(path, unique_token()), write, move_into_place, what=what)


def write_text(path: PathLike, text: str, *, what: str, overwrite: bool = False) -> None:
    """``text`` as UTF-8 into ``path``, through ``write_file``; a file name in it that is not
    UTF-8 (a record's paths) is written with U+FFFD for its bytes."""
    shown = displayable(text)
    write_file(path, lambda temporary: temporary.write_text(shown, encoding="utf8"), what=what, overwrite=overwrite)


def write_directory(
    path: PathLike, write: Callable[[Path], T], *, what: str, made_by: str, overwrite: bool = False
) -> T:
    """``write(temporary)`` into a new sibling directory, record every entry it holds in
    the marker, then swap it in for ``path``; an existing ``path`` must be empty, or
    replaceable (``check_replaceable``) with ``overwrite``, checked again at the swap (another
    command may have written ``path`` meanwhile). A failure leaves ``path`` as it was."""
    path = Path(path)
    token = unique_token()

    def swap_into_place(new: Path) -> None:
        write_manifest(new, made_by)
        if not os.path.lexists(path):
            os.rename(new, path)
            return
        if path.is_symlink():
            raise CtxvecError(Errors.E702.format(what=what, path=path, target=os.readlink(path)))
        if not path.is_dir():
            raise CtxvecError(Errors.E247.format(what=what, path=path))
        if next(path.iterdir(), None) is not None:
            check_replaceable(path, what)
            if not overwrite:
                raise OutputWrittenMeanwhile(Errors.E226.format(what=what, path=path))
        old = path.parent / replaced_directory_name(path, token)
        keep_mode(path, new)
        os.rename(path, old)
        try:
            os.rename(new, path)
        except OSError:
            os.rename(old, path)
            raise
        shutil.rmtree(old, ignore_errors=True)

    def swap_held(new: Path) -> None:
        with interrupts_held() as held:
            swap_into_place(new)
        if held:
            raise WrittenThenInterrupted(what, path)

    return _write_staged(path, staged_directory_name(path, token), write, swap_held, what=what)


class WrittenThenInterrupted(KeyboardInterrupt):
    """Ctrl-C during write_directory's swap, held until the swap was done: the output is
    whole and in place. A KeyboardInterrupt still, for commands that stop anyway."""

    def __init__(self, what: str, path: Path) -> None:
        super().__init__(what, path)
        self.what, self.path = what, path

    def warning(self) -> str:
        return Warnings.W052.format(doing=f"{self.what} '{self.path}' was being put in place")


def write_manifest(directory: Path, made_by: str) -> None:
    """Mark ``directory`` as written by ``made_by``, listing each entry in it (files' size and digest,
    no times: the same output gets the same marker), so that --overwrite later removes only these."""
    info = {"made_by": made_by_command(made_by), "entries": _entries(directory, digests=True)}
    (directory / OUTPUT_MARKER).write_text(json.dumps(info, indent=0, sort_keys=True), encoding="utf8")


# Helpers
def _write_staged(
    path: Path, staged_name: str, write: Callable[[Path], T], install: Callable[[Path], None], *, what: str
) -> T:
    """Make ``path``'s missing parents, ``write`` the sibling ``staged_name``, then
    ``install`` it as ``path``. On any failure the staged entry and the parents made
    here are removed; an OSError becomes E703. Returns what ``write`` returns."""
    created = _make_parents(path, what)
    staged = path.parent / staged_name
    done = False
    try:
        result = write(staged)
        install(staged)
        done = True
    except Exception as err:  # noqa: BLE001 - only an OSError, or an error raised while handling one, is E703
        failed_write = None if isinstance(err, CtxvecError) else failed_write_behind(err)
        if failed_write is None:
            raise
        raise OutputNotWritten.from_os_error(what, path, failed_write) from None
    finally:
        if not done:
            _remove(staged)
            _remove_created(created)
    try:
        killed = remove_killed_staging(path)
    except OSError:  # the output is in place: a clean-up that fails is left for the next write
        killed = []
    if killed:
        warning = Warnings.W063.format(paths=_some([str(entry) for entry in killed]), what=what, path=path)
        warnings.warn(warning, stacklevel=3)
    return result


def _existing(inputs: Inputs) -> List[Tuple[str, Path]]:
    """The inputs that exist, and for a .cfg pipeline the local paths its config names (a
    model folder, vectors): the pipeline reads them too."""
    pairs = inputs.items() if isinstance(inputs, Mapping) else (("", source) for source in inputs)
    found = [
        (name, Path(source)) for name, source in pairs if source is not None and os.path.lexists(os.fspath(source))
    ]
    named = [
        (f"path named in {name or 'the config'} '{path}',", named_path)
        for name, path in found
        if path.suffix == ".cfg" and path.is_file()
        for named_path in paths_named_in_config(path)
    ]
    return found + named


def paths_named_in_config(path: Path) -> List[Path]:
    """The existing local files and folders that the values of config file ``path`` name
    (relative ones from the working directory, as spaCy reads them); none if it does not parse."""
    from thinc.api import Config

    try:
        config = Config().from_disk(path, interpolate=False)
    except Exception:  # noqa: BLE001 (not a config we can read: the command's own load reports it)
        return []
    values: List[str] = []
    stack: List[object] = [config]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, str) and item and not item.startswith("${"):
            values.append(item)
    return [Path(value) for value in dict.fromkeys(values) if _names_existing_path(value)]


def _names_existing_path(value: str) -> bool:
    """An existing path other than the working directory or a folder above it."""
    try:
        if not os.path.lexists(value):
            return False
        resolved, working = Path(value).resolve(), Path.cwd().resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return not working.is_relative_to(resolved)


def _resolve(path: Path, what: str) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as err:  # a symbolic link loop
        raise _cannot(what, path, f"it cannot be resolved ({err})", "Remove the symbolic link loop.") from None


def _nesting(path: Path, other: Path) -> Optional[str]:
    if path == other:
        return "is the same as"
    if other in path.parents:
        return "is inside"
    if path in other.parents:
        return "contains"
    return None


def _relation(path: Path, source: Path, what: str) -> Optional[str]:
    """How ``path`` overlaps the existing input ``source``, or None."""
    for mine, theirs in (
        (Path(os.path.abspath(path)), Path(os.path.abspath(source))),
        (_resolve(path, what), _resolve(source, what)),
    ):
        relation = _nesting(mine, theirs)
        if relation == "is the same as" and path.is_symlink():
            return "is a symbolic link to"
        if relation:
            return relation.replace("is inside", "lies inside")
    if path.is_file() and not path.is_symlink():
        if source.is_file() and os.path.samefile(path, source):
            return "is a hard link to"
        if source.is_dir() and os.stat(path).st_nlink > 1 and _holds_inode(source, os.stat(path)):
            return "is a hard link to a file in"
    return None


def _holds_inode(directory: Path, stat: os.stat_result) -> bool:
    seen = 0
    for root, _, files in os.walk(directory):
        for name in files:
            seen += 1
            if seen > HARD_LINK_SCAN_LIMIT:
                return False
            try:
                other = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (stat.st_dev, stat.st_ino):
                return True
    return False


def _nearest_existing(path: Path) -> Tuple[Path, List[Path]]:
    """The nearest existing ancestor of ``path`` and the missing ones below it (top first)."""
    missing: List[Path] = []
    for parent in Path(os.path.abspath(path)).parents:
        if os.path.lexists(parent):
            return parent, missing[::-1]
        missing.append(parent)
    return Path("/"), missing[::-1]


def _probe_writable(path: Path, what: str) -> None:
    """E135 if a parent of ``path`` is a file, E703 if no file can be created next to it."""
    ancestor, _ = _nearest_existing(path)
    if not ancestor.is_dir():
        raise _cannot(what, path, f"its parent '{ancestor}' is a file, not a folder", "Give a path under a folder.")
    try:
        handle, probe = tempfile.mkstemp(prefix=f".{path.name}.probe-00000-", dir=ancestor)  # as long as staged
        os.close(handle)
        os.unlink(probe)
    except OSError as err:  # the probe's own (hidden, temporary) name would only puzzle: the folder's
        reason = f"no file can be created in '{ancestor}' ({err.strerror or err})"
        raise OutputNotWritten(Errors.E703.format(what=what, path=path, reason=reason)) from None


def _make_parents(path: Path, what: str) -> List[Path]:
    _probe_writable(path, what)
    _, missing = _nearest_existing(path)
    created = []
    try:
        for directory in missing:
            directory.mkdir()
            created.append(directory)
    except OSError as err:
        _remove_created(created)
        raise OutputNotWritten.from_os_error(what, path, err) from None
    return created


def _remove_created(created: List[Path]) -> None:
    for directory in reversed(created):
        try:
            directory.rmdir()
        except OSError:
            return


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        path.unlink()


def _entries(directory: Path, *, digests: bool = False) -> Dict[str, List[Any]]:
    """Every entry under ``directory`` but the marker (relative POSIX path) -> files' [size, mtime_ns] ([size,
    ``_digest``] with ``digests``), [] for folders, ["link"] for links (a folder replaced by a link is a change)."""
    entries: Dict[str, List[Any]] = {}
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            full = Path(root, name)
            relative = full.relative_to(directory).as_posix()
            if relative == OUTPUT_MARKER:
                continue
            stat = os.lstat(full)
            is_file = full.is_file() and not full.is_symlink()
            kind = ["link"] if full.is_symlink() else []
            entries[relative] = [stat.st_size, _digest(full) if digests else stat.st_mtime_ns] if is_file else kind
    return entries


def _digest(path: Path) -> str:
    """BLAKE2b (128 bits, hex) of a file's contents."""
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unchanged(path: Path, found: List[Any], recorded: Any) -> bool:
    """An entry as recorded: a file of the same size and contents ([size, digest]; markers of
    earlier versions: [size, mtime_ns] or [size, mtime_ns, digest], where the same time suffices)."""
    if not isinstance(recorded, list) or len(found) < 2 or found == recorded[:2]:
        return isinstance(recorded, list) and found == recorded[:2]  # a folder, a link; the same time
    digest = recorded[-1] if len(recorded) >= 2 and isinstance(recorded[-1], str) else ""
    return bool(digest) and found[0] == recorded[0] and _digest(path) == digest


def _some(names: List[str]) -> str:
    return ", ".join(repr(name) for name in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _cannot(what: str, path: Path, problem: str, fix: str) -> CtxvecError:
    return CtxvecError(Errors.E135.format(what=what, path=path, problem=problem, fix=fix))
