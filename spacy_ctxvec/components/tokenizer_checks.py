"""Checks of the transformer's tokenizer when ctxvec_context is initialised or loaded.

- A tokenizer saved without model_max_length (~1e30, one built from a vocab file) is
  capped at the model's positions, so long windows are cut (W046) rather than indexed
  past the position embeddings (PyTorch's IndexError).
- A tokenizer whose offsets count the space before a word into the word's first
  wordpiece (SentencePiece's Metaspace or byte-level BPE without trimmed offsets) meets
  spacy-transformers' alignment, which gives a token the wordpieces of its characters
  and of the one after it (its trailing space): each token's vector would take in the
  next word's first wordpiece too. That is W059 (the alignment stays spacy-transformers',
  which listeners are trained with)."""

import warnings
from typing import Any, Optional

from spacy.language import Language

from ..errors import CtxvecError, Warnings
from ..locks import forward_lock
from .transformer import find_transformer

PROBE_TEXT = "a b"


def check_transformer_tokenizer(nlp: Optional[Language], name: str) -> None:
    """Cap the positions of, and check the offsets of, the tokenizer of the transformer
    before ``name``; nothing where no transformer is loaded."""
    if nlp is None:
        return
    try:
        transformer = find_transformer(nlp, name)
        pipe: Any = nlp.get_pipe(transformer)
        model = pipe.model
        loaded = model.tokenizer is not None and model.transformer is not None
    except (CtxvecError, KeyError, AttributeError, IndexError, ValueError):
        return
    if loaded:
        from .batching import cap_model_max_length  # imports spacy-transformers: not at CLI start-up

        cap_model_max_length(model)
        piece = piece_with_leading_space(model.tokenizer)
        if piece is not None:
            warnings.warn(
                Warnings.W059.format(transformer=transformer, covered=piece, text=PROBE_TEXT),
                stacklevel=3,
            )


def piece_with_leading_space(tokenizer: Any) -> Optional[str]:
    """The characters of PROBE_TEXT that its first wordpiece whose offsets begin on a space
    covers (" b"), None where none does or the tokenizer gives no offsets (a slow tokenizer)."""
    if not getattr(tokenizer, "is_fast", False):
        return None
    with forward_lock(tokenizer):
        encoding = tokenizer(PROBE_TEXT, add_special_tokens=False, return_offsets_mapping=True)
    for start, end in encoding["offset_mapping"]:
        if end > start and PROBE_TEXT[start].isspace():
            return PROBE_TEXT[start:end]
    return None
