"""Checks of the transformer's tokenizer when ctxvec_context is initialised or loaded.

- A tokenizer saved without model_max_length (~1e30, one built from a vocab file) is
  capped at the model's positions, so long windows are cut (W046) rather than indexed
  past the position embeddings (PyTorch's IndexError).
- A tokenizer whose offsets count the space before a word into the word's first
  wordpiece (SentencePiece's Metaspace or byte-level BPE without trimmed offsets) meets
  spacy-transformers' alignment, which gives a token the wordpieces of its characters
  and of the one after it (its trailing space): each token's vector would take in the
  next word's first wordpiece too. That is W059 (the alignment stays spacy-transformers',
  which listeners are trained with).
- A slow tokenizer gives no offsets: spacy-transformers aligns by wordpiece strings, which
  misaligns byte-level BPE and accented words (W091).
- A decoder (GPT-2) reads left to right: a token's vector sees only the words before it
  (W066, found by running the model on two texts that differ in their last word).
- A span getter whose windows hold more spaCy tokens than the model reads wordpieces cuts
  most tokens of every window off (W067).
- A model that loaded but cannot run: a tokenizer without a padding token (E053), an
  encoder-decoder such as T5 or BART (E054; W068 for a saved one, which stays loadable), a
  model that does not take an input its tokenizer gives (E056)."""

from typing import Any, Optional

from spacy.language import Language

from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..locks import forward_lock
from .model_config import cap_model_max_length
from .transformer_lookup import check_loaded, find_transformer

PROBE_TEXT = "a b"
# Two texts that differ in their last word only: a model reading left to right gives their
# shared first wordpieces the same rows.
LEFT_TO_RIGHT_PROBE = ("a b", "a c")


def check_transformer_tokenizer(nlp: Optional[Language], name: str, *, loading: bool = False) -> None:
    """Cap the positions of, and check the offsets of, the tokenizer of the transformer
    before ``name``; nothing where no transformer is loaded. An encoder-decoder is E054 when
    the pipeline is made, W068 when a saved one is ``loading`` (it stays loadable); E069 at initialize
    where the transformer is disabled and so not loaded."""
    if nlp is None:
        return
    try:
        transformer = find_transformer(nlp, name)
        pipe: Any = nlp.get_pipe(transformer)
        model = pipe.model
        loaded = model.tokenizer is not None and model.transformer is not None
    except (CtxvecError, KeyError, AttributeError, IndexError, ValueError):
        return
    if not loading:
        check_loaded(nlp, transformer, name)
    if loaded:
        if not loading:
            check_not_encoder_decoder(model.transformer, str(model.attrs.get("name")))
        elif is_encoder_decoder(model.transformer):
            warn_at_user_line(Warnings.W068.format(transformer=transformer))
        cap_model_max_length(model)
        if not getattr(model.tokenizer, "is_fast", True):
            warn_at_user_line(Warnings.W091.format(transformer=transformer))
        piece = piece_with_leading_space(model.tokenizer)
        if piece is not None:
            warn_at_user_line(Warnings.W059.format(transformer=transformer, covered=piece, text=PROBE_TEXT))
        if reads_left_to_right(model.transformer, model.tokenizer):
            warn_at_user_line(Warnings.W066.format(transformer=transformer))
        warn_of_long_windows(model, transformer)


def reads_left_to_right(hf_model: Any, tokenizer: Any) -> bool:
    """True where the model gives the shared first wordpieces of LEFT_TO_RIGHT_PROBE's two
    texts the same rows (a causal decoder); False for an encoder, or where it cannot tell."""
    import torch

    with forward_lock(tokenizer):
        ids = [tokenizer(text)["input_ids"] for text in LEFT_TO_RIGHT_PROBE]
    shared = next((i for i, (a, b) in enumerate(zip(*ids)) if a != b), min(map(len, ids)))
    if shared == 0 or shared == min(map(len, ids)):
        return False
    try:
        device = next(hf_model.parameters()).device
        with forward_lock(hf_model), torch.no_grad():
            was_training = hf_model.training
            hf_model.eval()
            try:
                rows = [hf_model(input_ids=torch.tensor([i], device=device))[0][0, :shared].float() for i in ids]
            finally:
                hf_model.train(was_training)
    except Exception:  # a model this probe cannot run: it only decides a warning, never a load
        return False
    return bool(torch.allclose(rows[0], rows[1], rtol=1e-4, atol=1e-5))


def warn_of_long_windows(model: Any, transformer: str) -> None:
    """W067 where the strided windows hold more spaCy tokens than the model reads wordpieces."""
    from .span_settings import strided_window  # imports spacy-transformers: not at CLI start-up

    window = strided_window(model.attrs.get("get_spans"))
    max_length = getattr(model.tokenizer, "model_max_length", None)
    if window is None or not isinstance(max_length, int) or max_length > 10**6:
        return
    usable = max_length - model.tokenizer.num_special_tokens_to_add(pair=False)
    if window[0] <= usable:
        return
    suggested = max(1, usable // 2)
    warning = Warnings.W067.format(
        transformer=transformer,
        max_length=max_length,
        usable=usable,
        window=window[0],
        suggested_window=suggested,
        suggested_stride=max(1, suggested * 3 // 4),
    )
    warn_at_user_line(warning)


def raise_run_failure(model: Any, err: Exception, error: str) -> None:
    """The coded error for a transformer model that loaded but failed its first run (E053,
    E054, E056); nothing where the failure is another one."""
    tokenizer, hf_model = model.tokenizer, model.transformer
    name = str(model.attrs.get("name"))
    no_pad = tokenizer is not None and getattr(tokenizer, "pad_token", 0) is None
    if isinstance(err, ValueError) and no_pad and "pad" in error.lower():
        suggested = getattr(tokenizer, "eos_token", None) or "<|endoftext|>"
        raise CtxvecError(Errors.E053.format(name=name, suggested=suggested)) from err
    check_not_encoder_decoder(hf_model, name, error)
    if isinstance(err, TypeError) and "unexpected keyword argument" in error:
        raise CtxvecError(Errors.E056.format(name=name, model_type=model_type(hf_model), error=error)) from err


def is_encoder_decoder(hf_model: Any) -> bool:
    """An encoder-decoder whose decoder is loaded (T5Model, BartModel; not T5EncoderModel)."""
    config = getattr(hf_model, "config", None)
    return bool(getattr(config, "is_encoder_decoder", False)) and getattr(hf_model, "decoder", None) is not None


def check_not_encoder_decoder(hf_model: Any, name: str, error: str = "") -> None:
    """E054 for an encoder-decoder model (T5, BART): spacy-transformers runs the whole model,
    whose output is its decoder's (T5 fails, BART runs on inputs shifted one place)."""
    if is_encoder_decoder(hf_model):
        problem = error or "its output is its decoder's, not an encoder's"
        raise CtxvecError(Errors.E054.format(name=name, model_type=model_type(hf_model), error=problem))


def model_type(hf_model: Any) -> str:
    """The Hugging Face model type named in the errors ("unknown type" without a config)."""
    return str(getattr(getattr(hf_model, "config", None), "model_type", "unknown type"))


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
