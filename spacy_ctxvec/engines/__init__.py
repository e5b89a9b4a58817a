"""Build engines beyond the local one (``spacy_ctxvec.build``). Importing this package
registers them in ``build.ENGINES``; each imports its cluster library lazily."""
from . import ray_engine  # noqa: F401

__all__ = ["ray_engine"]
