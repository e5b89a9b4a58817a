"""int8 dynamic quantisation of a pipeline's transformer, for faster CPU inference.

Weights of every ``torch.nn.Linear`` are stored as int8 and activations quantised on
the fly (``torch.ao.quantization.quantize_dynamic``). Apply it after loading a
pipeline, for inference only: a quantised pipeline cannot be trained, and it is
not meant to be saved (``to_disk`` would store int8 weights that a float pipeline
cannot load back).
"""
from typing import Optional

import torch
from spacy.language import Language

QUANTIZED_ATTR = "_ctxvec_quantized"


def quantize_transformer(module: torch.nn.Module, per_channel: bool = True) -> torch.nn.Module:
    """``module`` with its Linear layers replaced by dynamically quantised int8 ones
    (in place). ``per_channel`` scales each output row separately, which keeps the
    vectors closer to float32 than one scale per weight matrix."""
    if getattr(module, QUANTIZED_ATTR, False):
        return module
    module.eval()
    qconfig = (
        torch.ao.quantization.per_channel_dynamic_qconfig
        if per_channel
        else torch.ao.quantization.default_dynamic_qconfig
    )
    quantized = torch.ao.quantization.quantize_dynamic(module, {torch.nn.Linear: qconfig}, dtype=torch.qint8, inplace=True)
    setattr(quantized, QUANTIZED_ATTR, True)
    return quantized


def quantize_pipeline(nlp: Language, transformer: Optional[str] = None, per_channel: bool = True) -> Language:
    """Quantise the Hugging Face model inside the ``transformer`` component of ``nlp``
    (by default every spacy-transformers component) to int8, on CPU, in place.

    Calling it twice is harmless. Returns ``nlp``.
    """
    from spacy_transformers import Transformer

    names = [transformer] if transformer is not None else [
        name for name, pipe in nlp.pipeline if isinstance(pipe, Transformer)
    ]
    for name in names:
        pipe = nlp.get_pipe(name)
        shim = pipe.model.layers[0].shims[0]
        quantized = quantize_transformer(shim._hfmodel.transformer, per_channel=per_channel)
        shim._hfmodel.transformer = quantized
        shim._model = quantized
    return nlp


def is_quantized(nlp: Language, transformer: str = "transformer") -> bool:
    """Whether quantize_pipeline was applied to the component ``transformer``."""
    shim = nlp.get_pipe(transformer).model.layers[0].shims[0]
    return bool(getattr(shim._model, QUANTIZED_ATTR, False))

