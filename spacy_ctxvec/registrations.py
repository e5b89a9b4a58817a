"""spaCy's registry and factory decorators, with the decorated function's own type kept.
spaCy's are untyped, so through them every registered function and factory read as ``Any``
to a type checker, in this package and in its users' typed code."""

from typing import Any, Callable, TypeVar

from spacy.language import Language
from spacy.util import registry

FunctionT = TypeVar("FunctionT", bound=Callable[..., Any])


def registered(registry_name: str, name: str) -> Callable[[FunctionT], FunctionT]:
    """``@registry.<registry_name>(name)`` (``"misc"``, ``"architectures"``, ``"callbacks"``), typed."""

    def register(function: FunctionT) -> FunctionT:
        getattr(registry, registry_name).register(name, func=function)
        return function

    return register


def factory(name: str, **settings: Any) -> Callable[[FunctionT], FunctionT]:
    """``@Language.factory(name, **settings)`` (default_config, assigns, requires, ...), typed."""

    def register(function: FunctionT) -> FunctionT:
        Language.factory(name, func=function, **settings)
        return function

    return register
