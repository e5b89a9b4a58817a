"""Registered layer selections, chosen in config under [components.ctxvec_context.layers]."""
from dataclasses import dataclass
from typing import List, Tuple

from spacy.util import registry

from .errors import CtxvecError, Errors
from .ops.layers import concat_of_layers, mean_of_layers
from .types import LayerCombineFn


@dataclass(frozen=True)
class LayerSelection:
    """Which hidden states to read and how to combine them.

    ``layers`` empty means the last hidden state, which every transformer outputs;
    otherwise indices into ``hidden_states`` (0 = input embeddings, negatives count
    from the end), which needs ``output_hidden_states``.
    """

    layers: Tuple[int, ...]
    combine: LayerCombineFn

    @property
    def needs_hidden_states(self) -> bool:
        return len(self.layers) > 0


def _layer_tuple(layers: List[int]) -> Tuple[int, ...]:
    if len(layers) == 0:
        raise CtxvecError(Errors.E004)
    return tuple(int(layer) for layer in layers)


@registry.misc("spacy-ctxvec.last_layer.v1")
def configure_last_layer() -> LayerSelection:
    """The transformer's last hidden state (the default)."""
    return LayerSelection(layers=(), combine=mean_of_layers)


@registry.misc("spacy-ctxvec.mean_layers.v1")
def configure_mean_layers(layers: List[int]) -> LayerSelection:
    """Mean over the listed layers (0 = input embeddings)."""
    return LayerSelection(layers=_layer_tuple(layers), combine=mean_of_layers)


@registry.misc("spacy-ctxvec.concat_layers.v1")
def configure_concat_layers(layers: List[int]) -> LayerSelection:
    """The listed layers concatenated (width times the number of layers)."""
    return LayerSelection(layers=_layer_tuple(layers), combine=concat_of_layers)
