"""Registered sources of static vector tables, for [initialize.components.ctxvec_static.source].

Each returns a callable (nlp) -> StaticVectorTable that the component calls in initialize().
"""

from pathlib import Path
from typing import Any, Callable, Collection, Optional, Tuple, Union

import numpy as np
from spacy.language import Language

from ..errors import CtxvecError, Errors
from ..registrations import registered
from .formats import load_static_vectors
from .table import StaticVectorTable

StaticSource = Callable[[Language], StaticVectorTable]


@registered("misc", "spacy-ctxvec.vectors_file.v1")
def configure_vectors_file(
    path: Optional[Union[str, Path]], format: str = "auto", allow_pickle: bool = False
) -> StaticSource:
    """A word2vec / GloVe / fastText / .npy file (see load_static_vectors). gensim
    native .model/.kv files are pickles and need allow_pickle = true."""

    def load_vectors_file(nlp: Language) -> StaticVectorTable:
        if path is None:
            raise CtxvecError(Errors.E101.format(path=path, problem="is not set"))
        return load_static_vectors(path, format=format, allow_pickle=allow_pickle)

    return load_vectors_file


@registered("misc", "spacy-ctxvec.transformer_embeddings.v1")
def configure_transformer_embeddings(transformer: str = "transformer") -> StaticSource:
    """The input-embedding table of the pipeline's (already initialized) transformer:
    a word's static vector is the mean of its wordpieces' input embeddings. Offline
    default: needs no file beyond the transformer itself."""

    def read_transformer_embeddings(nlp: Language) -> StaticVectorTable:
        return transformer_embedding_table(nlp, transformer)

    return read_transformer_embeddings


def transformer_embedding_table(
    nlp: Language, transformer: str = "transformer", only: Optional[Collection[str]] = None
) -> StaticVectorTable:
    """A StaticVectorTable from the input embeddings and tokenizer of nlp's
    spacy-transformers component ``transformer`` (its keys only those in ``only``, if given)."""
    return StaticVectorTable.from_transformer(*transformer_embeddings(nlp, transformer), only=only)


def transformer_embeddings(nlp: Language, transformer: str = "transformer") -> Tuple[np.ndarray, Any]:
    """(a float32 copy of the input-embedding matrix, the tokenizer) of nlp's
    spacy-transformers component ``transformer`` (E116 / E117 where there is none)."""
    pipe = _transformer_pipe(nlp, transformer)
    hf_model = pipe.model.transformer
    tokenizer = pipe.model.tokenizer
    if hf_model is None or tokenizer is None:
        if transformer in nlp.disabled:  # spaCy initializes the enabled components only
            raise CtxvecError(Errors.E069.format(transformer=transformer, name="the static source"))
        raise CtxvecError(Errors.E117.format(transformer=transformer))
    weight = hf_model.get_input_embeddings().weight
    return np.array(weight.detach().float().cpu().numpy(), dtype=np.float32), tokenizer


def _transformer_pipe(nlp: Language, name: str) -> Any:
    from spacy_transformers import Transformer

    pipe = nlp.get_pipe(name) if name in nlp.component_names else None
    if not isinstance(pipe, Transformer):
        raise CtxvecError(Errors.E116.format(transformer=name, pipe_names=nlp.pipe_names))
    return pipe
