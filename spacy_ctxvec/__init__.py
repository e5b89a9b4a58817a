"""spacy-ctxvec: static and contextual token vectors side by side in spaCy.

The public names load on first use (PEP 562), so ``import spacy_ctxvec`` and the command
line's ``--help`` do not import torch or transformers. spaCy finds the factories and
registered functions through the package's entry points, not through this import.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any, Dict, List

if TYPE_CHECKING:
    from .attributes import install_extensions
    from .components.buffered_transformer import BufferedTransformer, make_buffered_transformer
    from .components.context import ContextVectors, make_context_vectors
    from .components.polysemy import Polysemy, make_polysemy
    from .components.static import StaticVectors, make_static_vectors
    from .components.vector_hooks import add_vector_hooks
    from .errors import CtxvecError, Errors
    from .lexicon.sense import Sense
    from .lexicon.sense_inventory import SenseInventory
    from .lexicon.statistics import Lexicon
    from .ops.senses import SenseInductionSettings
    from .static.formats import load_static_vectors
    from .static.table import StaticVectorTable

    __version__: str

__all__ = [
    "BufferedTransformer",
    "make_buffered_transformer",
    "ContextVectors",
    "make_context_vectors",
    "CtxvecError",
    "Errors",
    "install_extensions",
    "add_vector_hooks",
    "Lexicon",
    "Sense",
    "SenseInductionSettings",
    "SenseInventory",
    "Polysemy",
    "make_polysemy",
    "StaticVectors",
    "make_static_vectors",
    "StaticVectorTable",
    "load_static_vectors",
]

# Public name -> the module (relative to this package) that defines it.
_MODULE_OF: Dict[str, str] = {
    "BufferedTransformer": ".components.buffered_transformer",
    "make_buffered_transformer": ".components.buffered_transformer",
    "ContextVectors": ".components.context",
    "make_context_vectors": ".components.context",
    "CtxvecError": ".errors",
    "Errors": ".errors",
    "install_extensions": ".attributes",
    "add_vector_hooks": ".components.vector_hooks",
    "Lexicon": ".lexicon.statistics",
    "Sense": ".lexicon.sense",
    "SenseInductionSettings": ".ops.senses",
    "SenseInventory": ".lexicon.sense_inventory",
    "Polysemy": ".components.polysemy",
    "make_polysemy": ".components.polysemy",
    "StaticVectors": ".components.static",
    "make_static_vectors": ".components.static",
    "StaticVectorTable": ".static.table",
    "load_static_vectors": ".static.formats",
}


DISTRIBUTION = "spacy-ctxvec"
UNKNOWN_VERSION = "0+unknown"  # imported from a source tree that was never installed


def _installed_version() -> str:
    """The version in the installed distribution's metadata: pyproject.toml's, the one
    place the version is written (`spacy-ctxvec --version` reads the same)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return UNKNOWN_VERSION


if not TYPE_CHECKING:  # a type checker reads the imports above: a name not among them is an error there

    def __getattr__(name: str) -> Any:
        """Import the module that defines a public name on first use, and keep the name here;
        ``__version__`` is read from the installed metadata on first use."""
        if name == "__version__":
            globals()[name] = _installed_version()
            return globals()[name]
        if name not in _MODULE_OF:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(_MODULE_OF[name], __name__), name)
        globals()[name] = value
        return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))
