"""What the ctxvec_polysemy component reads from the transformer that feeds
ctxvec_context: its model's fingerprint (which polysemy probe belongs to it) and the
input embeddings of the lexicon's types (for a probe that reads them)."""

from typing import Optional, Sequence

import numpy as np
from spacy.language import Language

from ..attributes import CONTEXT_COMPONENT
from ..errors import CtxvecError
from ..lexicon.polysemy_probe import embedding_fingerprint
from ..static.sources import transformer_embedding_table
from .transformer import find_transformer


def type_input_embeddings(nlp: Language, keys: Sequence[str]) -> Optional[np.ndarray]:
    """(n_keys, input width) float16: each key's input embedding in the transformer that
    feeds ctxvec_context (its wordpiece row, else the mean of its wordpieces' rows);
    None if there is no loaded transformer."""
    try:
        table = transformer_embedding_table(nlp, find_transformer(nlp, CONTEXT_COMPONENT))
    except CtxvecError:
        return None
    vectors, _ = table.lookup_batch(list(keys))
    return vectors.astype(np.float16)


def pipeline_model_fingerprint(nlp: Language) -> Optional[str]:
    """embedding_fingerprint of the input embeddings of the transformer that feeds
    ctxvec_context; None if there is none or its model is not loaded."""
    try:
        pipe = nlp.get_pipe(find_transformer(nlp, CONTEXT_COMPONENT))
    except CtxvecError:
        return None
    hf_model = getattr(getattr(pipe, "model", None), "transformer", None)
    if hf_model is None:
        return None
    return embedding_fingerprint(hf_model.get_input_embeddings().weight.detach().float().cpu().numpy())
