"""The hidden siblings an output is written as before it is renamed into place, and the
clean-up of those a killed command left behind.

``write_file`` writes ``.STEM.tmp-TOKEN.SUFFIX`` and ``write_directory`` ``.NAME.new-TOKEN``
(an output it replaces is moved aside as ``.NAME.old-TOKEN`` for the moment of the swap), where
TOKEN is ``PID-HEX``: the writing process's id and 8 random hex digits. A process killed
outright (``kill -9``, the OOM killer) while it writes leaves its staged sibling; the next
write of the same output removes it once that process is gone (POSIX only: elsewhere it
cannot tell, and nothing is removed)."""

import contextlib
import errno
import os
import re
import secrets
import shutil
import stat
from pathlib import Path
from typing import List, Optional

_TOKEN = r"(\d+)-[0-9a-f]{8}"


def unique_token() -> str:
    """A part of a temporary name no other process or call picks: the process id and a random
    hex string."""
    return f"{os.getpid()}-{secrets.token_hex(4)}"


# The longest token: a Linux process id (at most 2**22, 7 digits) and 8 hex digits.
LONGEST_TOKEN = f"{2**22}-{'f' * 8}"


def name_too_long(path: Path, directory: Path) -> Optional[str]:
    """Why ``path``'s staged siblings cannot be made (a name over the limit of the file system
    of ``directory``, its nearest existing parent: 255 bytes on most), else None: checked before
    a command's work, which it would lose at the end."""
    limit = 255
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no such setting (Windows): the common limit
        limit = os.pathconf(directory, "PC_NAME_MAX")
    limit = limit if limit > 0 else 255  # -1: no limit it can tell (some network file systems)
    longest = max(_name_size(name(path, LONGEST_TOKEN)) for name in (staged_file_name, staged_directory_name))
    if longest <= limit:
        return None
    size = _name_size(path.name)
    return f"its name is {size} bytes and the hidden name it is first written as {longest}, over the limit of {limit}"


def _name_size(name: str) -> int:
    """A file name's length as its file system limits it: UTF-16 units on Windows, else bytes."""
    return len(name.encode("utf-16-le")) // 2 if os.name == "nt" else len(os.fsencode(name))


def staged_file_name(path: Path, token: str) -> str:
    return f".{path.stem}.tmp-{token}{path.suffix}"


def staged_directory_name(path: Path, token: str) -> str:
    return f".{path.name}.new-{token}"


def replaced_directory_name(path: Path, token: str) -> str:
    return f".{path.name}.old-{token}"


def remove_killed_staging(path: Path) -> List[Path]:
    """Remove the staged siblings of ``path`` (a file's or a directory's, and the replaced
    ``.old`` one where the swap finished: ``path`` in place and no ``.new`` of the same token
    left, else it may be all that is left of the earlier output) whose process no longer runs
    on this machine; the entries removed. (A process of another machine sharing the folder,
    or of another container, is not seen: its sibling counts as left.)"""
    if os.name != "posix" or not path.parent.is_dir():
        return []
    mark = "\0"  # in no file name: stands for the token while the names are escaped
    staged = [staged_file_name(path, mark), staged_directory_name(path, mark)]
    if path.exists() or path.is_symlink():  # a stop after the swap, before the old one was removed
        staged.append(replaced_directory_name(path, mark))
    names = re.compile("|".join(re.escape(name).replace(re.escape(mark), _TOKEN) for name in staged))
    removed = []
    entries = sorted(path.parent.iterdir())
    present = {entry.name for entry in entries}  # before any removal: a .new removed below still counts
    replaced = replaced_directory_name(path, "")
    for entry in entries:
        match = names.fullmatch(entry.name)
        if match is None or entry.is_symlink():
            continue
        if entry.name.startswith(replaced) and staged_directory_name(path, entry.name[len(replaced) :]) in present:
            continue  # killed between its two renames: the old output is all there is of it
        if process_running(int(next(group for group in match.groups() if group))):
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)  # another command may have removed it first
        if not os.path.lexists(entry):  # an old output with a file it may not remove stays, unnamed
            removed.append(entry)
    return removed


def process_running(pid: int) -> bool:
    """Whether a process ``pid`` runs (or may: one this user cannot signal counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # OverflowError: no process id this large, so not ours: kept
        return True
    return True


def keep_mode(existing: Path, replacement: Path) -> None:
    """Give ``replacement`` the permissions of the ``existing`` path it replaces (a file kept
    private stays private under --overwrite), where there is one."""
    try:
        mode = existing.stat().st_mode & 0o777  # no setuid, setgid or sticky bit
    except OSError:  # nothing there: the new one keeps the umask's
        return
    if replacement.is_dir():  # its owner may still replace or remove it: a read-only copy would stay behind
        mode |= stat.S_IRWXU
    os.chmod(replacement, mode)


# What a write that failed under a library's own error was: a full disk or quota, a file too large, the device
_FAILED_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def failed_write_behind(err: BaseException) -> Optional[OSError]:
    """``err`` if it is an OSError, else the full disk (or quota, file size, device error) it was raised
    while handling (matplotlib's PDF writer raises AttributeError or a zlib error over it), else None."""
    if isinstance(err, OSError):
        return err
    seen = {id(err)}
    current = err.__cause__ or err.__context__
    while current is not None and id(current) not in seen:
        if isinstance(current, OSError) and current.errno in _FAILED_WRITE_ERRNOS:
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
