"""spacy-ctxvec: static and contextual token vectors side by side in spaCy."""
from . import layers, model_name, pooling  # noqa: F401  (registrations)
from .attributes import install_extensions
from .context_component import ContextVectors, make_context_vectors
from .errors import CtxvecError, Errors

__version__ = "0.1.0"
__all__ = ["ContextVectors", "make_context_vectors", "CtxvecError", "Errors", "install_extensions"]
