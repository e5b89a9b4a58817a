"""Imports this checkout's ``benchmarks.data`` for a script run as a file
(``python benchmarks/speed/X.py``) without leaving the checkout on ``sys.path``, so that a
``PYTHONPATH=OTHER_CHECKOUT`` spacy_ctxvec still wins (component_costs.py compares two).
A script imports this module first, then ``from benchmarks.data import ...``."""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if "benchmarks.data" not in sys.modules:
    sys.path.insert(0, str(REPO_ROOT))
    try:
        import benchmarks.data  # noqa: F401
    finally:
        sys.path.remove(str(REPO_ROOT))
