"""spacy-ctxvec: static and contextual token vectors side by side in spaCy."""

from .attributes import install_extensions
from .building import corpus  # noqa: F401  (registrations)
from .components import choices, transformer  # noqa: F401  (registrations)
from .components.buffered_transformer import BufferedTransformer, make_buffered_transformer
from .components.context import ContextVectors, make_context_vectors
from .components.polysemy import Polysemy, make_polysemy
from .components.static import StaticVectors, make_static_vectors
from .errors import CtxvecError, Errors
from .lexicon.statistics import Lexicon
from .static import sources  # noqa: F401  (registrations)
from .static.formats import load_static_vectors
from .static.table import StaticVectorTable

__version__ = "0.1.0"
__all__ = [
    "BufferedTransformer",
    "make_buffered_transformer",
    "ContextVectors",
    "make_context_vectors",
    "CtxvecError",
    "Errors",
    "install_extensions",
    "Lexicon",
    "Polysemy",
    "make_polysemy",
    "StaticVectors",
    "make_static_vectors",
    "StaticVectorTable",
    "load_static_vectors",
]
