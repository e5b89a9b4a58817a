"""The Hugging Face model's own settings, as a loaded pipeline holds them.

spacy-transformers (1.4) loads a saved model by writing its Hugging Face config to JSON with
10 decimals, so every setting is rounded and one under 5e-11 comes back as 0.0 (BERT's and
MiniLM's ``layer_norm_eps`` of 1e-12), and the layers are built with it. The saved bytes hold the exact
values: ``restore_saved_floats`` sets them again, on the config and on the layers built from
it. ``position_limit`` and ``cap_model_max_length``: the most wordpieces a model reads at once.
"""

from io import BytesIO
from typing import Any, Dict, List, Optional

import srsly.msgpack

# Models whose position ids start after the padding id (the first pad_token_id + 1 positions unused), where
# the model's position embedding does not say so itself (a padding_idx)
POSITIONS_AFTER_PADDING = (
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "roberta-prelayernorm",
    "data2vec-text",
    "camembert",
    "longformer",
    "luke",
    "mpnet",
    "xmod",
    "ibert",
)
# Where a layer keeps its normalisation epsilon (torch's LayerNorm; Hugging Face's RMS norms)
EPS_ATTRIBUTES = ("eps", "variance_epsilon")


def position_limit(config: Any, transformer: Any = None) -> Optional[int]:
    """The most wordpieces a model with absolute positions can read at once (None: not known): fewer
    than its position embeddings where its positions start after the padding id, as the embedding's
    ``padding_idx`` says (RoBERTa and its kin), else POSITIONS_AFTER_PADDING by model type."""
    limit = getattr(config, "max_position_embeddings", None)
    if not isinstance(limit, int) or limit <= 0:
        return None
    positions = getattr(getattr(transformer, "embeddings", None), "position_embeddings", None)
    padding = getattr(positions, "padding_idx", None)
    if isinstance(padding, int) and padding >= 0:
        return limit - padding - 1
    if getattr(config, "model_type", None) in POSITIONS_AFTER_PADDING:
        limit -= int(getattr(config, "pad_token_id", None) or 0) + 1
    return limit


def cap_model_max_length(model: Any) -> None:
    """A tokenizer saved without ``model_max_length`` (one built from a vocab file) reads
    about 1e30: cap it at the model's position limit, so that long windows are cut to the
    model's length (W046) rather than indexed past its position embeddings."""
    limit = position_limit(model.transformer.config, model.transformer)
    if limit is not None and model.tokenizer.model_max_length > limit:
        model.tokenizer.model_max_length = limit


def saved_config(shim_bytes: bytes) -> Optional[Dict[str, Any]]:
    """The Hugging Face config stored in a spacy-transformers HFShim's bytes, read without
    decoding the weights; None for bytes that hold none (another shim)."""
    unpacker = srsly.msgpack.Unpacker(BytesIO(shim_bytes), raw=False)
    try:
        for _ in range(unpacker.read_map_header()):
            if unpacker.unpack() == "config":
                found = unpacker.unpack()
                return found if isinstance(found, dict) else None
            unpacker.skip()
    except (ValueError, TypeError, srsly.msgpack.UnpackException):
        return None
    return None


def restore_config_floats(transformer: Any, saved: Dict[str, Any]) -> List[str]:
    """Set each float setting of ``saved`` that ``transformer.config`` holds otherwise, and
    for an epsilon (a name ending in "eps") the layers built with the value loaded; the
    names of the settings set."""
    config, restored = transformer.config, []
    for key, value in saved.items():
        loaded = getattr(config, key, None)
        if not isinstance(value, float) or not isinstance(loaded, (int, float)) or loaded == value:
            continue
        setattr(config, key, value)
        restored.append(key)
        if key.endswith("eps"):
            for module in transformer.modules():
                for attribute in EPS_ATTRIBUTES:
                    if getattr(module, attribute, None) == loaded:
                        setattr(module, attribute, value)
    return restored


def restore_saved_floats(model: Any, msg: Dict[str, Any]) -> List[str]:
    """``restore_config_floats`` on a spacy-transformers ``model``'s Hugging Face model from the
    config its ``from_dict`` message holds (none before the model was initialised)."""
    for shims in msg.get("shims", []):
        for shim_bytes in shims:
            saved = saved_config(shim_bytes) if isinstance(shim_bytes, bytes) else None
            if saved and model.transformer is not None:
                return restore_config_floats(model.transformer, saved)
    return []
