"""Choose and combine transformer layers."""

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors


def resolve_layers(layers: Sequence[int], n_hidden: int) -> List[int]:
    """Turn possibly negative layer numbers into indices of ``hidden_states``.

    ``n_hidden`` counts the input embeddings (layer 0) plus every transformer layer.
    """
    if len(layers) == 0:
        raise CtxvecError(Errors.E004)
    resolved: List[int] = []
    for layer in layers:
        index = layer + n_hidden if layer < 0 else layer
        if not 0 <= index < n_hidden:
            raise CtxvecError(Errors.E003.format(layer=layer, n_layers=n_hidden, last=n_hidden - 1))
        resolved.append(index)
    return resolved


def repeated_layer(layers: Sequence[int], n_hidden: int) -> Optional[Tuple[int, int, int]]:
    """(first, second, hidden state) of the first two entries of ``layers`` that name one
    hidden state ([6, -1] of 7 hidden states: (6, -1, 6)), None where each is named once."""
    resolved = resolve_layers(layers, n_hidden)
    for position, index in enumerate(resolved):
        if index in resolved[:position]:
            return layers[resolved.index(index)], layers[position], index
    return None


def mean_of_layers(arrays: Sequence[np.ndarray]) -> np.ndarray:
    if len(arrays) == 1:
        return arrays[0]
    return np.mean(np.stack(arrays), axis=0, dtype=np.float64).astype(arrays[0].dtype)


def concat_of_layers(arrays: Sequence[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays, axis=-1)
