"""`spacy-ctxvec --code FILE.py`: a Python file of registered functions (@spacy.registry.misc,
...) imported before a command, as spaCy's own commands take `--code`. While the command
runs, the file's path is in the environment too, so that the worker processes and the Ray
actors of a cluster the command starts, which rebuild the pipeline from its config, import
it before they do."""

import os
import traceback
from pathlib import Path
from typing import Callable, Union

from .errors import CtxvecError, Errors

CODE_VARIABLE = "SPACY_CTXVEC_CODE"


def import_code(path: Union[str, Path]) -> None:
    """Import ``path`` (E419 where it is missing or fails to import, with the line of the
    file that failed)."""
    from spacy.util import import_file

    path = Path(path)
    if path.is_dir():
        raise CtxvecError(Errors.E419.format(path=path, problem="a folder, not a file"))
    if not path.is_file():
        raise CtxvecError(Errors.E419.format(path=path, problem="no such file"))
    if path.suffix != ".py":  # Python's importer finds no loader for it ('NoneType' ... 'loader'), .PY neither
        raise CtxvecError(Errors.E419.format(path=path, problem="not a .py file"))
    try:
        import_file("spacy_ctxvec_code", path)
    except Exception as err:  # the user's code may raise anything: named, with its line
        frames = traceback.extract_tb(err.__traceback__)
        lines = [frame.lineno for frame in frames if Path(frame.filename).resolve() == path.resolve()]
        where = f" (line {lines[-1]})" if lines else ""
        problem = f"importing it raised {type(err).__name__}{where}: {' '.join(str(err).split())[:400]}"
        raise CtxvecError(Errors.E419.format(path=path, problem=problem)) from err


def code_for_workers(path: Union[str, Path]) -> Callable[[], None]:
    """Name ``path`` in the environment for the worker processes a command starts; returns
    what takes it out again (the command's end), so that it never reaches later work."""
    previous = os.environ.get(CODE_VARIABLE)
    os.environ[CODE_VARIABLE] = str(Path(path).resolve())

    def restore() -> None:
        if previous is None:
            os.environ.pop(CODE_VARIABLE, None)
        else:
            os.environ[CODE_VARIABLE] = previous

    return restore


def code_option() -> str:
    """ " --code FILE" for a spaCy command that an error suggests, where the running command was
    given a --code file (spaCy needs it too, to know the functions it registers); else ""."""
    path = os.environ.get(CODE_VARIABLE)
    return f" --code {path}" if path else ""


def import_code_of_the_command() -> None:
    """In a worker process: import the file the command was given with --code, if any."""
    path = os.environ.get(CODE_VARIABLE)
    if path:
        import_code(path)
