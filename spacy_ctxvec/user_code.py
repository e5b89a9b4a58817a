"""`spacy-ctxvec --code FILE.py`: a Python file of registered functions (@spacy.registry.misc,
...) imported before a command, as spaCy's own commands take `--code`. The file's path goes
into the environment too, so that the worker processes and local Ray actors a command
starts, which rebuild the pipeline from its config, import it before they do."""

import os
import traceback
from pathlib import Path
from typing import Union

from .errors import CtxvecError, Errors

CODE_VARIABLE = "SPACY_CTXVEC_CODE"


def import_code(path: Union[str, Path]) -> None:
    """Import ``path`` (E419 where it is missing or fails to import, with the line of the
    file that failed) and name it in the environment for worker processes."""
    from spacy.util import import_file

    path = Path(path)
    if not path.is_file():
        raise CtxvecError(Errors.E419.format(path=path, problem="no such file"))
    try:
        import_file("spacy_ctxvec_code", path)
    except Exception as err:  # the user's code may raise anything: named, with its line
        frames = traceback.extract_tb(err.__traceback__)
        lines = [frame.lineno for frame in frames if Path(frame.filename).resolve() == path.resolve()]
        where = f" (line {lines[-1]})" if lines else ""
        problem = f"importing it raised {type(err).__name__}{where}: {' '.join(str(err).split())[:400]}"
        raise CtxvecError(Errors.E419.format(path=path, problem=problem)) from err
    os.environ[CODE_VARIABLE] = str(path.resolve())


def import_code_of_the_command() -> None:
    """In a worker process: import the file the command was given with --code, if any."""
    path = os.environ.get(CODE_VARIABLE)
    if path:
        import_code(path)
