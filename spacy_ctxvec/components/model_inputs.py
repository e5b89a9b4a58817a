"""What the ctxvec components read from the transformer that feeds ctxvec_context: its
model's fingerprint (which polysemy probe and lexicon belong to it) and the input
embeddings of the lexicon's types (for a probe that reads them)."""

import hashlib
from typing import Any, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language

from ..component_names import context_name
from ..errors import CtxvecError
from ..ops.fingerprint import embedding_fingerprint
from ..static.sources import transformer_embedding_table
from .transformer_lookup import find_transformer


def type_input_embeddings(nlp: Language, keys: Sequence[str]) -> Optional[np.ndarray]:
    """(n_keys, input width) float16: each key's input embedding in the transformer that
    feeds ctxvec_context (its wordpiece row, else the mean of its wordpieces' rows);
    None if there is no loaded transformer."""
    keys = list(keys)
    looked_up = set(keys) | {key.lower() for key in keys}  # lookup_batch tries each key, then its lower case
    try:
        table = transformer_embedding_table(nlp, find_transformer(nlp, context_name(nlp)), only=looked_up)
    except CtxvecError:
        return None
    vectors, _ = table.lookup_batch(keys)
    return vectors.astype(np.float16)


def pipeline_model_fingerprint(nlp: Language) -> Optional[str]:
    """embedding_fingerprint of the input embeddings of the transformer that feeds
    ctxvec_context; None if there is none or its model is not loaded."""
    return transformer_fingerprint(nlp, context_name(nlp), FingerprintCache())


def transformer_fingerprint(nlp: Language, before: str, cache: "FingerprintCache") -> Optional[str]:
    """embedding_fingerprint of the input embeddings of the transformer before the
    component ``before``: ctxvec_transformer's own (kept while its weights stay), else
    through ``cache``; None if there is no transformer or its model is not loaded."""
    try:
        pipe = nlp.get_pipe(find_transformer(nlp, before))
        own = getattr(pipe, "model_fingerprint", None)
        if callable(own):
            return own()
        hf_model = getattr(getattr(pipe, "model", None), "transformer", None)
    except (CtxvecError, IndexError, ValueError):  # no transformer, or its model is not loaded
        return None
    return cache.of(hf_model)


class FingerprintCache:
    """embedding_fingerprint of a Hugging Face model's input embeddings, hashed again only
    when the table changes: replaced, moved, or changed in place. A torch optimizer step
    bumps the tensor's version counter, but thinc's (spacy train) writes the weights
    through numpy and bumps nothing, so a strided sample of the table with at least one
    value of every row is compared as well (about 1-3 ms a call)."""

    def __init__(self) -> None:
        self._state: Optional[Tuple[Any, ...]] = None
        self._fingerprint: Optional[str] = None

    @property
    def last(self) -> Optional[str]:
        """The fingerprint computed last (None before any): what a pickled copy knows."""
        return self._fingerprint

    def of(self, hf_model: Any) -> Optional[str]:
        """The fingerprint; None for a missing model or one without input embeddings."""
        embeddings = getattr(hf_model, "get_input_embeddings", None)
        weight = getattr(embeddings() if embeddings is not None else None, "weight", None)
        if weight is None:
            return None
        state = (id(weight), weight.data_ptr(), str(weight.device), weight._version, _sample_digest(weight))
        if state != self._state:
            self._fingerprint = embedding_fingerprint(weight.detach().float().cpu().numpy())
            self._state = state
        return self._fingerprint


# Values of the embedding table compared on every call: about this many, and at least one per row.
SAMPLED_VALUES = 131072


def _sample_digest(weight: Any) -> str:
    """A digest of every k-th value of ``weight`` (k below the row width: each row is read)."""
    flat = weight.detach().reshape(-1)
    width = int(weight.shape[-1]) if weight.dim() > 1 else 1
    step = max(1, min(flat.numel() // SAMPLED_VALUES, width // 2))
    return hashlib.blake2b(flat[::step].float().cpu().numpy().tobytes(), digest_size=8).hexdigest()
