"""Build engines by name. Each engine is a function (nlp, corpus, **options) ->
BuildResult; engines are imported only when asked for, so that Ray is needed only for
``--engine ray``."""

import importlib
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from ..errors import CtxvecError, Errors
from ..lexicon.statistics import Lexicon
from .bad_lines import SkippedLine

# name -> "module:function", imported on first use
ENGINES: Dict[str, str] = {
    "local": "spacy_ctxvec.building.local:build_lexicon_local",
    "ray": "spacy_ctxvec.building.ray_engine:build_lexicon_ray",
}


@dataclass
class BuildResult:
    lexicon: Lexicon
    n_docs: int
    n_tokens: int
    seconds: float
    skipped_lines: List[SkippedLine] = field(default_factory=list)  # (path, line, reason)
    resumed_from: int = 0
    documents_sha256: Optional[str] = None  # of the documents counted, in order (the local engine's)


def get_engine(name: str) -> Callable[..., BuildResult]:
    """The build function of engine ``name`` (E223 for an unknown name)."""
    if name not in ENGINES:
        raise CtxvecError(Errors.E223.format(engine=name, choices=", ".join(ENGINES)))
    module_name, function_name = ENGINES[name].split(":")
    return getattr(importlib.import_module(module_name), function_name)
