"""Command-line interface: `spacy-ctxvec COMMAND` or `python -m spacy_ctxvec COMMAND`.

Each command lives in its own module and registers itself on ``app``; ``main`` is the
console script.
"""

import gc

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
from ._app import app

__all__ = ["app", "main"]


def main() -> None:
    """Run the command line. The objects that imports made (spaCy, torch, the commands)
    are frozen first, so the collector's full passes while a pipeline loads and runs no
    longer scan them: about 2 s less CPU time per command."""
    gc.freeze()
    app()
