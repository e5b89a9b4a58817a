"""One build at a time per OUTPUT and per checkpoint directory, on this machine.

Two builds writing the same places would remove each other's checkpoint shards and race for
OUTPUT; the second now stops before it loads anything (E268). The locks are files in the
system's temporary folder (one per path, named by its digest), so nothing is written beside
the user's files; builds on other machines sharing a network folder do not see them. Where
no lock file can be made there (a read-only temporary folder), the build runs without one."""

import hashlib
import os
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator, Mapping

from filelock import FileLock, Timeout

from ..errors import CtxvecError, Errors

LOCKS_FOLDER = "spacy-ctxvec-locks"


def lock_path(path: Path) -> Path:
    """The lock file of ``path`` (resolved: one lock however the path is written)."""
    user = f"-{os.getuid()}" if hasattr(os, "getuid") else ""  # one folder per user where users differ
    digest = hashlib.sha256(str(path.resolve()).encode("utf8")).hexdigest()[:32]
    return Path(tempfile.gettempdir()) / f"{LOCKS_FOLDER}{user}" / f"{digest}.lock"


@contextmanager
def held_for_build(paths: Mapping[str, Path]) -> Iterator[None]:
    """Hold the lock of each path (``{what: path}``, e.g. ``{"OUTPUT": ...}``) for the block;
    E268 at once where another build holds one."""
    with ExitStack() as stack:
        for what, path in paths.items():
            lock = FileLock(lock_path(path), timeout=0)
            try:
                lock_path(path).parent.mkdir(parents=True, exist_ok=True)
                lock.acquire()
            except Timeout:
                raise CtxvecError(Errors.E268.format(what=what, path=path)) from None
            except OSError:  # no lock file can be made here: run unlocked
                continue
            stack.callback(lock.release)
        yield
