"""Which component of a pipeline (or of its config) is ``ctxvec_context``, whatever name
it was added or renamed under (nlp.add_pipe("ctxvec_context", name="context"),
nlp.rename_pipe): the commands and records that read its settings find it by factory."""

from typing import Any, List, Mapping

from spacy.language import Language

from .attributes import CONTEXT_COMPONENT


def context_names(nlp: Language) -> List[str]:
    """The names of the pipeline's ctxvec_context components, disabled ones too, in order."""
    return [name for name in nlp.component_names if nlp.get_pipe_meta(name).factory == CONTEXT_COMPONENT]


def context_name(nlp: Language) -> str:
    """The name of the pipeline's last enabled ctxvec_context component (else its last
    disabled one); "ctxvec_context" where it has none."""
    made = context_names(nlp)
    enabled = [name for name in made if name not in nlp.disabled]
    return (enabled or made or [CONTEXT_COMPONENT])[-1]


def context_name_in_config(config: Mapping[str, Any]) -> str:
    """context_name of the pipeline a config describes: the last component of [nlp]
    pipeline whose [components.NAME] factory is ctxvec_context; "ctxvec_context" where none is."""
    components = config.get("components", {})
    order = list(config.get("nlp", {}).get("pipeline", [])) or list(components)
    made = [name for name in order if components.get(name, {}).get("factory") == CONTEXT_COMPONENT]
    return (made or [CONTEXT_COMPONENT])[-1]
