"""One build at a time per OUTPUT and per checkpoint directory, for one user on one machine.

Two builds writing the same places would remove each other's checkpoint shards and race for
OUTPUT; the second now stops before it loads anything (E268). The locks are files in the
user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``spacy-ctxvec/locks``), one per
path, named by its digest: nothing is written beside the user's files, and every build of
that user sees them whatever its temporary folder. Builds of other users, or on other machines
sharing a network folder, do not see them. Where the lock folder cannot be made, or is not a
folder of this user's that others cannot write (a link, say), the build runs without a lock."""

import hashlib
import os
import stat
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator, Mapping, Optional

from filelock import FileLock, Timeout

from ..errors import CtxvecError, Errors

LOCKS_FOLDER = Path("spacy-ctxvec") / "locks"


def locks_folder() -> Optional[Path]:
    """The user's lock folder (None where the home folder is unknown)."""
    cache = os.environ.get("XDG_CACHE_HOME")
    try:
        return Path(cache or Path.home() / ".cache") / LOCKS_FOLDER
    except RuntimeError:  # no home folder to be found
        return None


def lock_path(path: Path, folder: Path) -> Path:
    """The lock file of ``path`` (resolved: one lock however the path is written; its bytes as the file
    system has them, so a name that is not UTF-8 has one too) in ``folder``."""
    return folder / f"{hashlib.sha256(os.fsencode(path.resolve())).hexdigest()[:32]}.lock"


def _usable(folder: Path) -> bool:
    """Make ``folder`` (this user's only); whether it is a real folder of this user's that no one
    else may write into, where this system has owners."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    return not hasattr(os, "getuid") or (info.st_uid == os.getuid() and not info.st_mode & 0o022)


@contextmanager
def held_for_build(paths: Mapping[str, Path]) -> Iterator[None]:
    """Hold the lock of each path (``{what: path}``, e.g. ``{"OUTPUT": ...}``) for the block;
    E268 at once where another build holds one. Two names of one path take one lock (the
    build's own checks then say that they are the same)."""
    folder = locks_folder()
    if folder is None or not _usable(folder):
        yield
        return
    with ExitStack() as stack:
        taken = set()
        for what, path in paths.items():
            file = lock_path(path, folder)
            if file in taken:
                continue
            lock = FileLock(file, timeout=0)
            try:
                lock.acquire()
            except Timeout:
                raise CtxvecError(Errors.E268.format(what=what, path=path)) from None
            except OSError:  # no lock file can be made here: run unlocked
                continue
            taken.add(file)
            stack.callback(lock.release)
        yield
