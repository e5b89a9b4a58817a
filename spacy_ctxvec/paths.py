"""Files on disk: checks for output paths and UTF-8 text lines with coded errors.

A low module (errors and types only), so every layer can use it."""

from pathlib import Path
from typing import Iterable, Iterator, Optional, Tuple

from .errors import CtxvecError, Errors
from .types import PathLike


def check_output_file(path: PathLike, what: str = "output file", inputs: Iterable[Optional[PathLike]] = ()) -> Path:
    """``path`` as a Path, if a file can be written there: it is not an existing
    directory, no parent of it is an existing file, and it is none of the existing
    ``inputs`` (nor inside an input directory), also through symbolic links. Inputs that
    are not on disk (a package name) are skipped. Nothing is created."""
    path = Path(path)
    if path.is_dir():
        raise CtxvecError(
            Errors.E135.format(
                what=what,
                path=path,
                problem="it is an existing directory",
                fix="Give a file name, e.g. a path inside that directory.",
            )
        )
    _check_parents(path, what)
    resolved = path.resolve()
    for source in inputs:
        if source is None or not Path(source).exists():
            continue
        if resolved == Path(source).resolve() or Path(source).resolve() in resolved.parents:
            raise CtxvecError(
                Errors.E135.format(
                    what=what,
                    path=path,
                    problem=f"it is (or lies inside) the input '{source}', which writing would change",
                    fix="Give an output path outside the inputs; inputs are never modified.",
                )
            )
    return path


def check_output_dir(path: PathLike, what: str = "output directory") -> Path:
    """``path`` as a Path, if a directory can be written there: it is not an existing
    file and no parent of it is an existing file. Nothing is created."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise CtxvecError(
            Errors.E135.format(
                what=what,
                path=path,
                problem="it is an existing file, not a directory",
                fix="Give a new directory name (the file is left alone).",
            )
        )
    _check_parents(path, what)
    return path


def _check_parents(path: Path, what: str) -> None:
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise CtxvecError(
                    Errors.E135.format(
                        what=what,
                        path=path,
                        problem=f"its parent '{parent}' is a file, not a directory",
                        fix="Choose a path whose parent directories are directories.",
                    )
                )
            return


def text_lines(path: PathLike) -> Iterator[Tuple[int, str]]:
    """(1-based line number, line without its line end) of a UTF-8 text file (a
    leading byte order mark is dropped). Bytes that are not UTF-8 raise a coded
    error naming the file and the line."""
    path = Path(path)
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            yield number, decode_line(raw, path, number).rstrip("\r\n")


def decode_line(raw: bytes, path: PathLike, number: int) -> str:
    """One line of ``path`` decoded as UTF-8 (BOM dropped on line 1), or a coded error."""
    try:
        line = raw.decode("utf8")
    except UnicodeDecodeError as err:
        raise CtxvecError(Errors.E133.format(path=path, where=f"line {number}", error=_describe(err))) from None
    return line[1:] if number == 1 and line.startswith("\ufeff") else line


def _describe(err: UnicodeDecodeError) -> str:
    bad = err.object[err.start : min(err.end, err.start + 4)]
    return f"byte(s) {bad.hex(' ')} at byte {err.start + 1} of the line"
