"""Copies of the driver's pipeline in worker processes and Ray actors."""

from typing import Optional

from spacy.language import Language

from ..attributes import install_extensions
from ..user_code import import_code_of_the_command


def rebuild_pipeline(
    config_str: str, nlp_bytes: bytes, *, num_threads: int, use_gpu: bool = False, max_length: Optional[int] = None
) -> Language:
    """A worker's copy of the driver's pipeline, from its config and bytes (same weights
    everywhere, nothing read from disk), with the driver's ``max_length`` (nlp.max_length is
    in neither: a limit raised from Python would be spaCy's default again)."""
    import spacy
    import torch
    from spacy.util import load_model_from_config
    from thinc.api import Config

    import_code_of_the_command()  # the functions `spacy-ctxvec --code FILE` registered in the driver
    if use_gpu:
        spacy.require_gpu()
    torch.set_num_threads(num_threads)
    install_extensions()
    nlp = load_model_from_config(Config().from_str(config_str), auto_fill=False, validate=False)
    if max_length is not None:
        nlp.max_length = max_length
    return nlp.from_bytes(nlp_bytes)
