"""Which component of a pipeline (or of its config) is ``ctxvec_context``, whatever name
it was added or renamed under (nlp.add_pipe("ctxvec_context", name="context"),
nlp.rename_pipe): the commands and records that read its settings find it by factory."""

import warnings
from typing import Any, List, Mapping, Optional

from spacy.language import Language

from .attributes import CONTEXT_COMPONENT


def names_by_factory(nlp: Language, factory: str) -> List[str]:
    """The names of the pipeline's components made by ``factory``, disabled ones too, in order."""
    return [name for name in nlp.component_names if nlp.get_pipe_meta(name).factory == factory]


def context_names(nlp: Language) -> List[str]:
    """The names of the pipeline's ctxvec_context components, disabled ones too, in order."""
    return names_by_factory(nlp, CONTEXT_COMPONENT)


def others_beside(nlp: Language, name: str, factory: str) -> Optional[List[str]]:
    """All the components ``factory`` made where the pipeline has several and ``name`` is the
    last enabled one, else None: the one to say so once, at initialize (``nlp.initialize()``
    reaches it last; one added later and initialized alone is it)."""
    made = names_by_factory(nlp, factory)
    enabled = [made_name for made_name in made if made_name not in nlp.disabled]
    return made if len(made) > 1 and enabled and name == enabled[-1] else None


def warn_of_several(nlp: Language, name: str, factory: str, template: str) -> None:
    """Warn ``template`` (W065, W074, W081: with pipe_names, n and names) where the pipeline has
    several components ``factory`` made and ``name`` is the one to say so (``others_beside``)."""
    several = others_beside(nlp, name, factory)
    if several:
        warning = template.format(pipe_names=nlp.pipe_names, n=len(several), names=", ".join(several))
        warnings.warn(warning, stacklevel=3)  # at the initialize() call


def context_name(nlp: Language, before: Optional[str] = None) -> str:
    """The name of the pipeline's last enabled ctxvec_context component (else its last
    disabled one), of those before component ``before`` where given (the one it reads);
    "ctxvec_context" where it has none."""
    made = context_names(nlp)
    if before is not None and before in nlp.component_names:
        earlier = set(nlp.component_names[: nlp.component_names.index(before)])
        made = [name for name in made if name in earlier]
    enabled = [name for name in made if name not in nlp.disabled]
    return (enabled or made or [CONTEXT_COMPONENT])[-1]


def context_name_in_config(config: Mapping[str, Any]) -> str:
    """context_name of the pipeline a config describes: the last component of [nlp]
    pipeline whose [components.NAME] factory is ctxvec_context; "ctxvec_context" where none is."""
    components = config.get("components", {})
    order = list(config.get("nlp", {}).get("pipeline", [])) or list(components)
    made = [name for name in order if components.get(name, {}).get("factory") == CONTEXT_COMPONENT]
    return (made or [CONTEXT_COMPONENT])[-1]
