"""Command-line interface: `spacy-ctxvec COMMAND` or `python -m spacy_ctxvec COMMAND`.

Each command lives in its own module and registers itself on ``app``.
"""

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

__all__ = ["app"]
