"""spacy-ctxvec: static and contextual token vectors side by side in spaCy."""
from . import layers, model_name, pooling, static_sources  # noqa: F401  (registrations)
from .attributes import install_extensions
from .context_component import ContextVectors, make_context_vectors
from .errors import CtxvecError, Errors
from .static_component import StaticVectors, make_static_vectors
from .static_vectors import StaticVectorTable, load_static_vectors

__version__ = "0.1.0"
__all__ = [
    "ContextVectors", "make_context_vectors", "CtxvecError", "Errors", "install_extensions",
    "StaticVectors", "make_static_vectors", "StaticVectorTable", "load_static_vectors",
]
