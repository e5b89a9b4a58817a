"""Command-line interface: `spacy-ctxvec COMMAND` or `python -m spacy_ctxvec COMMAND`.

Each command lives in its own module and registers itself on ``app``.
"""
from ._app import app
from . import compare  # noqa: F401,E402
from . import plot  # noqa: F401,E402
from . import train_static  # noqa: F401,E402
from . import build_lexicon  # noqa: F401,E402
from . import rank  # noqa: F401,E402
from . import export_static  # noqa: F401,E402
from . import evaluate  # noqa: F401,E402

__all__ = ["app"]
