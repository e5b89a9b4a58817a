"""Command-line interface: `spacy-ctxvec COMMAND` or `python -m spacy_ctxvec COMMAND`.

Each command lives in its own module and registers itself on ``app``; ``main`` is the
console script. The command modules import only what their options need; the transformer
stack (spacy-transformers, transformers) loads with the first pipeline that uses it, so
``--help`` and a bad argument do not wait for it (tests/test_cli_imports.py).
"""

import errno
import gc
import importlib.abc
import importlib.util
import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, Optional, Sequence

from ..errors import INTERRUPTED
from ..interrupts import termination_as_interrupt
from ..terminal import GuardedStdout, StdoutUnwritable
from . import (
    build_lexicon,  # noqa: F401,E402
    compare,  # noqa: F401,E402
    evaluate,  # noqa: F401,E402
    export_static,  # noqa: F401,E402
    fit_polysemy,  # noqa: F401,E402
    plot,  # noqa: F401,E402
    rank,  # noqa: F401,E402
    train_static,  # noqa: F401,E402
    word_senses,  # noqa: F401,E402
)
from ._app import (
    app,
    code_first,
    colour_only_on_a_terminal,
    exit_on_unwritable_stdout,
    exit_with_closed_stdout,
    show_coded_warning,
    stdout_reader_is_gone,
)

__all__ = ["app", "main"]

TRANSFORMER_STACK = "spacy_transformers"  # imports transformers


class FreezeAfterImport(importlib.abc.MetaPathFinder):
    """Calls gc.freeze() once ``name`` has been imported (then leaves sys.meta_path)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Any = None) -> Optional[ModuleSpec]:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and isinstance(spec.loader, importlib.abc.Loader):
            exec_module = spec.loader.exec_module

            def exec_and_freeze(module: ModuleType) -> None:
                exec_module(module)
                gc.freeze()

            spec.loader.exec_module = exec_and_freeze  # type: ignore[method-assign]
        return spec


def main() -> None:
    """Run the command line. The objects that imports made (spaCy, torch, the commands;
    then spacy-transformers and transformers, when a pipeline needs them) are frozen, so
    the collector's full passes while a pipeline loads and runs no longer scan them:
    about 2 s less CPU time per command (benchmarks/speed/cli_startup.py). Coded warnings
    print as one line each (show_coded_warning); colours only on a terminal."""
    gc.freeze()
    if TRANSFORMER_STACK not in sys.modules:
        sys.meta_path.insert(0, FreezeAfterImport(TRANSFORMER_STACK))
    warnings.showwarning = show_coded_warning
    colour_only_on_a_terminal()
    if sys.stdout is None:  # started with >&-: what it prints would be lost, after all its work
        exit_on_unwritable_stdout(OSError(errno.EBADF, "standard output is closed"))
    sys.stdout = GuardedStdout(sys.stdout)  # type: ignore[assignment]
    try:
        with termination_as_interrupt():  # plain `kill`, `timeout`, `docker stop`: cleaned up as after Ctrl-C
            app(args=code_first(sys.argv[1:]))
    except StdoutUnwritable as err:
        exit_on_unwritable_stdout(err)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM while Typer builds the commands, before any runs: 130
        sys.exit(INTERRUPTED)
    except SystemExit as stop:  # Click's own output (--help, --version) into a closed pipe: its status 1
        if stop.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper" and stdout_reader_is_gone():
            exit_with_closed_stdout()
        raise
