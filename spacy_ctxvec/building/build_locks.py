"""One build at a time per OUTPUT and per checkpoint directory, for one user on one machine.

Two builds writing the same places would remove each other's checkpoint shards and race for
OUTPUT; the second now stops before it loads anything (E268). The locks are files in the
user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``spacy-ctxvec/locks``), one per
path, named by its digest: nothing is written beside the user's files, and every build of
that user sees them whatever its temporary folder. Builds of other users, or on other machines
sharing a network folder, do not see them. Where the lock folder cannot be made, or is not a
folder of this user's that others cannot write (a link, say), the build runs without a lock.
Where the system has flock (POSIX), a lock file is removed as its lock is released, so they do
not pile up: a process that opened the file before its removal finds the file it locked gone
from the folder and takes the lock again on the file now there."""

import hashlib
import os
import stat
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable, Iterator, Mapping, Optional

from filelock import FileLock, Timeout

try:
    import fcntl
except ImportError:  # Windows: filelock's lock, whose files stay
    fcntl = None  # type: ignore[assignment]

from ..errors import CtxvecError, Errors

LOCKS_FOLDER = Path("spacy-ctxvec") / "locks"


def locks_folder() -> Optional[Path]:
    """The user's lock folder (None where the home folder is unknown). A relative
    $XDG_CACHE_HOME is ignored, as the XDG specification says (it named a folder in the working
    directory, so builds started in other folders missed each other's locks)."""
    cache = os.environ.get("XDG_CACHE_HOME")
    if cache and not Path(cache).is_absolute():
        cache = None
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
            try:
                release = _take(file)
            except Timeout:
                raise CtxvecError(Errors.E268.format(what=what, path=path)) from None
            except OSError:  # no lock file can be made here: run unlocked
                continue
            taken.add(file)
            stack.callback(release)
        yield


def _take(file: Path) -> Callable[[], None]:
    """Take the lock of ``file`` at once (Timeout where another process holds it); the function
    that releases it. With flock, the release removes the file while the lock is held."""
    if fcntl is None:
        lock = FileLock(file, timeout=0)
        lock.acquire()
        return lock.release
    while True:
        handle = os.open(file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            raise Timeout(str(file)) from None
        except OSError:
            os.close(handle)
            raise
        if _same_file(handle, file):
            break
        os.close(handle)  # its holder removed it after this process opened it: take the one there now

    def release() -> None:
        try:
            os.unlink(file)
        except OSError:
            pass
        os.close(handle)

    return release


def _same_file(handle: int, file: Path) -> bool:
    """Whether the open ``handle`` is the file now at ``file``."""
    try:
        there = os.stat(file)
    except OSError:
        return False
    held = os.fstat(handle)
    return (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)
