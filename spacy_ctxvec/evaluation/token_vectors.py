"""spaCy glue: run a pipeline on pre-tokenised sentences and collect vectors.

Docs are built from the given words, so the data's tokenisation is kept, and every
pipeline component runs on them in order. Right after the transformer, the target
tokens' vectors are pooled from every hidden layer at once (one forward pass).
"""

from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch
from tqdm import tqdm

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_MASK,
    SENSE_ARRAY,
    SENSE_VECTORS,
    check_same_tokens,
    install_extensions,
)
from ..component_names import context_name
from ..components.choices import LayerSelection
from ..components.context import ContextVectors, keep_trf_data
from ..components.transformer import pool_trf_data
from ..components.transformer_lookup import find_transformer
from ..errors import CtxvecError, Errors
from ..ops.layers import mean_of_layers
from ..ops.pooling import pool_mean
from ..types import PoolingFn
from .moments import Moments


@dataclass
class TargetVectors:
    """Vectors of one target token per sentence, in several views.

    ``views`` is (n, n_views, width): the pooled hidden layers ``layer_0`` (input
    embeddings) .. ``layer_L``, named in ``view_names``. ``pipeline`` is (n, width') the
    vector the pipeline itself assigns (token._.context_vec), or None without a
    ctxvec_context component. ``has_vector`` flags targets with at least one wordpiece
    (others are zero rows). ``moments`` holds corpus statistics of every token's
    layer vectors, for centring and whitening. ``context_means`` (n, n_views, width)
    is the mean layer vector of the other tokens of each sentence. ``sense_vectors``
    (n, width) is the target's token._.sense_vec (zeros where ``has_sense`` is False),
    None when the pipeline sets no senses.
    """

    views: np.ndarray
    view_names: List[str]
    pipeline: Optional[np.ndarray]
    has_vector: np.ndarray
    moments: Moments
    context_means: np.ndarray
    sense_vectors: Optional[np.ndarray] = None
    has_sense: Optional[np.ndarray] = None


def doc_from_words(nlp: Language, words: Sequence[str]) -> Doc:
    """A Doc with exactly these tokens, separated by single spaces."""
    return Doc(nlp.vocab, words=[str(word) for word in words], spaces=[True] * (len(words) - 1) + [False])


def context_component(nlp: Language) -> Optional[Tuple[str, ContextVectors]]:
    """(name, component) of the enabled ctxvec_context whose vectors the Docs keep (the last:
    component_names.context_name), or None."""
    name = context_name(nlp)
    proc = nlp.get_pipe(name) if name in nlp.pipe_names else None
    return (name, proc) if isinstance(proc, ContextVectors) else None


CONTEXT_HINT = "Add it after the transformer (nlp.add_pipe('ctxvec_context')), or start from configs/default.cfg."


def missing_component(nlp: Language, component: str, attribute: str, hint: str) -> CtxvecError:
    """E307: the pipeline has no ``component``, which sets ``attribute``; ``hint`` says how to add it."""
    return CtxvecError(
        Errors.E307.format(pipe_names=nlp.pipe_names, component=component, attribute=attribute, hint=hint)
    )


def missing_context_vectors(nlp: Language) -> CtxvecError:
    """E307 for a pipeline without a ctxvec_context component (token._.context_vec)."""
    return missing_component(nlp, "ctxvec_context", "token._.context_vec", CONTEXT_HINT)


def require_context_vectors(nlp: Language) -> None:
    """Raise E307 unless the pipeline has a ctxvec_context component (checked before any text runs)."""
    if context_component(nlp) is None:
        raise missing_context_vectors(nlp)


def _run_component(proc: Any, docs: List[Doc], batch_size: int) -> List[Doc]:
    if hasattr(proc, "pipe"):
        return list(proc.pipe(docs, batch_size=batch_size))
    return [proc(doc) for doc in docs]


def pool_every_layer(trf_data: Any, pooling: PoolingFn) -> np.ndarray:
    """(n_tokens, n_layers, width) pooled vectors of every hidden state (just the last
    one when the transformer does not output hidden states). Pooled layer by layer, so
    poolings that widen the rows (first_last) keep each layer's columns together."""
    hidden_states = trf_data.model_output.get("hidden_states")
    selections = (
        [LayerSelection(layers=(), combine=mean_of_layers)]
        if hidden_states is None
        else [LayerSelection(layers=(i,), combine=mean_of_layers) for i in range(len(hidden_states))]
    )
    return np.stack([pool_trf_data(trf_data, pooling, selection) for selection in selections], axis=1)


def annotated_batches(
    nlp: Language, word_lists: Sequence[Sequence[str]], batch_size: Optional[int] = None
) -> Iterator[List[Tuple[int, Doc, np.ndarray]]]:
    """Batches of (sentence number, Doc through the whole pipeline, (n_tokens, n_layers,
    width) pooled hidden layers), one item per word list. Sentences run sorted by
    length (less padding), so the numbers come out of order."""
    install_extensions()
    transformer_name = find_transformer(nlp, before="\0")  # no such name: the last transformer
    context = context_component(nlp)
    pooling = context[1].pooling if context else pool_mean
    # Sentences are sorted by length over the whole input already, so a moderate batch
    # loses no padding and bounds the memory held in doc._.trf_data.
    batch_size = batch_size or min(nlp.batch_size, 256)
    order = np.argsort([len(words) for words in word_lists], kind="stable")
    # A bar on a terminal only (disable=None): evaluate scws runs long contexts for minutes.
    bar = tqdm(total=len(word_lists), unit="sentence", desc="pipeline", disable=None, leave=False, dynamic_ncols=True)
    with keep_trf_data(nlp), bar:  # every layer and doc._.trf_data, also when the pipeline drops them
        for batch in minibatch(order, size=batch_size):
            docs = [doc_from_words(nlp, word_lists[i]) for i in batch]
            layers = []
            for name, proc in nlp.pipeline:
                docs = _run_component(proc, docs, batch_size)
                if name == transformer_name:
                    layers = [pool_every_layer(doc._.trf_data, pooling) for doc in docs]
            yield list(zip((int(i) for i in batch), docs, layers))
            bar.update(len(batch))


def target_vectors(
    nlp: Language,
    word_lists: Sequence[Sequence[str]],
    indices: np.ndarray,
    batch_size: Optional[int] = None,
) -> TargetVectors:
    """Vectors of token ``indices[k]`` of sentence ``word_lists[k]`` in every view."""
    n = len(word_lists)
    views: Optional[np.ndarray] = None
    pipeline: Optional[np.ndarray] = None
    sense_vectors: Optional[np.ndarray] = None
    has_vector = np.zeros(n, dtype=bool)
    has_sense = np.zeros(n, dtype=bool)
    moments: Optional[Moments] = None
    for batch in annotated_batches(nlp, word_lists, batch_size):
        batch_rows = []
        for k, doc, layers in batch:
            check_same_tokens(doc, "evaluate")
            lengths = np.asarray(doc._.trf_data.align.lengths)
            if views is None:
                views = np.zeros((n, layers.shape[1], layers.shape[2]), dtype=np.float32)
                context_means = np.zeros_like(views)
                moments = Moments.empty(layers.shape[1], layers.shape[2])
            index = int(indices[k])
            views[k] = layers[index]
            has_vector[k] = lengths[index] > 0
            others = lengths > 0
            others[index] = False
            if others.any():
                context_means[k] = layers[others].mean(axis=0)
            batch_rows.append(layers[lengths > 0])
            context_array = doc._.get(CONTEXT_ARRAY)
            if context_array is not None:
                if pipeline is None:
                    pipeline = np.zeros((n, context_array.shape[1]), dtype=np.float32)
                pipeline[k] = context_array[index] if doc._.get(CONTEXT_MASK)[index] else 0.0
            sense_records, sense_array = doc._.get(SENSE_ARRAY), doc._.get(SENSE_VECTORS)
            if sense_records is not None and sense_array is not None:
                if sense_vectors is None:
                    sense_vectors = np.zeros((n, sense_array.shape[1]), dtype=np.float32)
                has_sense[k] = sense_records["sense"][index] >= 0
                sense_vectors[k] = sense_array[index] if has_sense[k] else 0.0
        if moments is not None and batch_rows:
            moments.add(np.concatenate(batch_rows))
    if views is None or moments is None:
        raise CtxvecError(Errors.E305.format(path="The input", expected="at least one sentence with its target token"))
    n_views = views.shape[1]
    names = [f"layer_{i}" for i in range(n_views)] if n_views > 1 else ["layer_last"]
    return TargetVectors(
        views=views,
        view_names=names,
        pipeline=pipeline,
        has_vector=has_vector,
        moments=moments,
        context_means=context_means,
        sense_vectors=sense_vectors,
        has_sense=has_sense if sense_vectors is not None else None,
    )


def static_token_vectors(nlp: Language, words: Sequence[str], batch_size: int = 1000) -> Tuple[np.ndarray, np.ndarray]:
    """(n, width) token._.static_vec of each word run alone through the pipeline, and
    (n,) bool token._.has_static_vec. Needs a component that sets doc._.ctxvec_static."""
    from ..attributes import STATIC_ARRAY, STATIC_KEYS

    install_extensions()
    vectors: Optional[np.ndarray] = None
    found = np.zeros(len(words), dtype=bool)
    static_names = [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory == "ctxvec_static"]
    for start in range(0, len(words), batch_size):
        chunk = words[start : start + batch_size]
        docs = [doc_from_words(nlp, [word]) for word in chunk]
        for name in static_names:  # a static lookup needs no other component
            docs = _run_component(nlp.get_pipe(name), docs, batch_size)
        for offset, doc in enumerate(docs):
            array, keys = doc._.get(STATIC_ARRAY), doc._.get(STATIC_KEYS)
            if array is None:
                hint = "Add the static vectors component (nlp.add_pipe('ctxvec_static')) to the pipeline."
                raise missing_component(nlp, "ctxvec_static", "token._.static_vec", hint)
            if vectors is None:
                vectors = np.zeros((len(words), array.shape[1]), dtype=np.float32)
            vectors[start + offset] = array[0]
            found[start + offset] = keys[0] > 0
    return (vectors if vectors is not None else np.zeros((0, 0), dtype=np.float32)), found
