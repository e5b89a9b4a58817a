"""Registered choices for ctxvec_context: pooling ([components.ctxvec_context.pooling])
and layer selection ([components.ctxvec_context.layers])."""

import inspect
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from thinc.api import get_array_module
from thinc.util import is_cupy_array, is_numpy_array

from ..errors import CtxvecError, Errors
from ..ops.fingerprint import with_model
from ..ops.layers import concat_of_layers, mean_of_layers, resolve_layers
from ..ops.pooling import pool_first, pool_first_last, pool_last, pool_max, pool_mean
from ..registrations import registered
from ..types import LayerCombineFn, PoolingFn

BUILT_IN_POOLINGS = (pool_mean, pool_first, pool_last, pool_max, pool_first_last)
BUILT_IN_COMBINES = (mean_of_layers, concat_of_layers)
# Setting types that name what a pooling or layer function was configured with in its label
# (lists and tuples of them too, up to _MAX_LISTED items).
_SETTING_TYPES = (bool, int, float, str)
_MAX_LISTED = 16


@registered("misc", "spacy-ctxvec.mean_pooling.v1")
def configure_mean_pooling() -> PoolingFn:
    """Mean of the token's wordpiece vectors (the default)."""
    return pool_mean


@registered("misc", "spacy-ctxvec.first_pooling.v1")
def configure_first_pooling() -> PoolingFn:
    """The token's first wordpiece vector."""
    return pool_first


@registered("misc", "spacy-ctxvec.last_pooling.v1")
def configure_last_pooling() -> PoolingFn:
    """The token's last wordpiece vector."""
    return pool_last


@registered("misc", "spacy-ctxvec.max_pooling.v1")
def configure_max_pooling() -> PoolingFn:
    """Element-wise maximum over the token's wordpiece vectors."""
    return pool_max


@registered("misc", "spacy-ctxvec.first_last_pooling.v1")
def configure_first_last_pooling() -> PoolingFn:
    """First and last wordpiece vectors concatenated (twice the width)."""
    return pool_first_last


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


@registered("misc", "spacy-ctxvec.last_layer.v1")
def configure_last_layer() -> LayerSelection:
    """The transformer's last hidden state (the default)."""
    return LayerSelection(layers=(), combine=mean_of_layers)


@registered("misc", "spacy-ctxvec.mean_layers.v1")
def configure_mean_layers(layers: List[int]) -> LayerSelection:
    """Mean over the listed layers (0 = input embeddings)."""
    return LayerSelection(layers=_layer_tuple(layers), combine=mean_of_layers)


@registered("misc", "spacy-ctxvec.concat_layers.v1")
def configure_concat_layers(layers: List[int]) -> LayerSelection:
    """The listed layers concatenated (width times the number of layers)."""
    return LayerSelection(layers=_layer_tuple(layers), combine=concat_of_layers)


def checked_choices(name: str, pooling: Any, layers: Any) -> Tuple[PoolingFn, LayerSelection]:
    """``pooling`` and ``layers`` as ctxvec_context uses them: E048 where one is not what its
    setting takes; a pooling or layer combination other than ours is checked on every call
    (E049, E050)."""
    layer_example = "spacy-ctxvec.last_layer.v1 or spacy-ctxvec.mean_layers.v1"
    selection = isinstance(layers, LayerSelection)
    numbered = selection and all(_is_layer_number(layer) for layer in layers.layers)
    numbers = f"a layer selection of layers {tuple(layers.layers)!r}" if selection else ""
    for setting, got, fits, expected, example in (
        ("layers", _kind(layers), selection, "a layer selection", layer_example),
        ("layers", numbers, numbered, "one of whole layer numbers", layer_example),
        ("layers", _kind(layers), callable(getattr(layers, "combine", None)), "a layer selection", layer_example),
        ("pooling", _kind(pooling), callable(pooling), "a pooling function", "spacy-ctxvec.mean_pooling.v1"),
    ):
        if not fits:
            wrong = {"name": name, "setting": setting, "got": got, "expected": expected, "example": example}
            raise CtxvecError(Errors.E048.format(**wrong))
    if pooling not in BUILT_IN_POOLINGS and not isinstance(pooling, CheckedPooling):
        pooling = CheckedPooling(name, pooling)
    if layers.combine not in BUILT_IN_COMBINES and not isinstance(layers.combine, CheckedCombine):
        layers = LayerSelection(
            layers=tuple(int(layer) for layer in layers.layers), combine=CheckedCombine(name, layers.combine)
        )
    return pooling, layers


def _is_layer_number(layer: Any) -> bool:
    return isinstance(layer, (int, np.integer)) and not isinstance(layer, bool)


class CheckedPooling:
    """A pooling function other than ours, its every output checked: one finite row per
    token (E049). Pickles where the function does."""

    def __init__(self, component: str, pooling: PoolingFn) -> None:
        self.component, self.pooling = component, pooling

    def __call__(self, rows: Any, lengths: Any) -> Any:
        try:
            pooled = self.pooling(rows, lengths)
        except (TypeError, AttributeError) as err:  # another signature, or not a function of arrays
            raise raised_on_call(self.component, "pooling", self.pooling, err) from err  # a bug inside: its traceback
        problem = _not_rows(pooled, len(lengths))
        if problem is not None:
            name = pooling_name(self.pooling)
            raise CtxvecError(Errors.E049.format(name=self.component, pooling=name, got=problem, n_tokens=len(lengths)))
        return pooled


class CheckedCombine:
    """A layer combination other than ours, its every output checked: one finite row per
    wordpiece row (E050). Pickles where the function does."""

    def __init__(self, component: str, combine: LayerCombineFn) -> None:
        self.component, self.combine = component, combine

    def __call__(self, arrays: Any) -> Any:
        try:
            combined = self.combine(arrays)
        except (TypeError, AttributeError) as err:
            raise raised_on_call(self.component, "layers", self.combine, err) from err
        n_rows = len(arrays[0]) if len(arrays) else 0
        problem = _not_rows(combined, n_rows)
        if problem is not None:
            name = pooling_name(self.combine)
            raise CtxvecError(Errors.E050.format(name=self.component, combine=name, got=problem, n_rows=n_rows))
        return combined


# What E067 says of each swappable function: its setting, role, how it is called, and its contract.
_CALLS = {
    "pooling": (
        "pooling function",
        "pooling(rows, lengths)",
        "the wordpiece rows (n_wordpieces, width) and each token's number of wordpieces (n_tokens,), "
        "and returns one finite row per token",
    ),
    "layers": (
        "layer combination",
        "combine(arrays)",
        "a list of the chosen layers' arrays, each (n_wordpieces, hidden width), and returns one finite row "
        "per wordpiece",
    ),
}


def raised_on_call(component: str, setting: str, function: Any, err: Exception) -> CtxvecError:
    """E067: a user's pooling or layer combination raised ``err`` when called as ours are."""
    role, call, takes = _CALLS[setting]
    error = f"{type(err).__name__}: {err}"
    return CtxvecError(
        Errors.E067.format(
            name=component, role=role, function=pooling_name(function), setting=setting, error=error, call=call,
            takes=takes,
        )
    )  # fmt: skip


def _not_rows(array: Any, n_rows: int) -> Optional[str]:
    """What is wrong with ``array`` as n_rows finite float rows, in a few words; None where nothing is."""
    if not (is_numpy_array(array) or is_cupy_array(array)):  # a list, None, a torch tensor
        return _kind(array)
    xp = get_array_module(array)
    shape = array.shape
    if len(shape) != 2 or shape[0] != n_rows or shape[1] == 0:
        return f"shape {tuple(shape)}"
    if array.dtype.kind != "f":
        return f"an array of {array.dtype}, not of floats"
    if not bool(xp.isfinite(array).all()):
        return "NaN or infinite values"
    return None


def stored_vectors(component: str, pooled: Any, dtype: np.dtype) -> Any:
    """``pooled`` in ``component``'s dtype; E051 where a value does not fit it, E052 where the
    transformer's output already held NaN or inf (never a NaN vector)."""
    with np.errstate(over="ignore"):  # a value beyond float16 is E051 below, not a RuntimeWarning
        stored = pooled.astype(dtype, copy=False)
    xp = get_array_module(stored)
    if bool(xp.isfinite(stored).all()):
        return stored
    if bool(xp.isfinite(pooled).all()):
        limit, largest = float(np.finfo(dtype).max), float(xp.abs(pooled).max())
        raise CtxvecError(Errors.E051.format(name=component, dtype=dtype.name, largest=largest, limit=limit))
    raise CtxvecError(Errors.E052.format(name=component))


def _kind(value: Any) -> str:
    """What a setting was given, in a few words (an object's whole repr can run to hundreds of characters)."""
    if isinstance(value, LayerSelection):
        return "a layer selection (as spacy-ctxvec.last_layer.v1 or mean_layers.v1 return)"
    if callable(value):
        return f"the function {getattr(value, '__qualname__', type(value).__name__)}"
    text = f"{type(value).__name__} {value!r}"
    return text if len(text) <= 80 else text[:79] + "…"


def pooling_name(pooling: Any) -> str:
    """The pooling function's name, with the settings it was configured with where they
    are plain values (a partial's keywords, a closure's variables, a callable object's
    attributes): "pool_mean", "pool_scaled (weight=0.5)"."""
    pooling = pooling.pooling if isinstance(pooling, CheckedPooling) else pooling
    pooling = pooling.combine if isinstance(pooling, CheckedCombine) else pooling
    settings = dict(getattr(pooling, "keywords", None) or {})
    inner = getattr(pooling, "__wrapped__", pooling)
    cells = getattr(inner, "__closure__", None) or ()
    names = getattr(getattr(inner, "__code__", None), "co_freevars", ())
    settings.update((name, _cell_value(cell)) for name, cell in zip(names, cells))
    if not hasattr(inner, "__code__") and not hasattr(pooling, "func"):  # an object with __call__
        settings.update(_init_settings(inner))
    named = ", ".join(f"{key}={value!r}" for key, value in sorted(settings.items()) if _is_plain_setting(value))
    name = getattr(getattr(pooling, "func", inner), "__name__", type(pooling).__name__)
    return f"{name} ({named})" if named else name


def _init_settings(instance: Any) -> Dict[str, Any]:
    """An object's attributes named as its __init__'s arguments (scikit-learn's get_params
    rule): what it was made with, not state it keeps (a call counter, torch's training flag)."""
    try:
        names = inspect.signature(type(instance).__init__).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return {}
    attributes = getattr(instance, "__dict__", {})
    return {name: attributes[name] for name in names if name != "self" and name in attributes}


def _is_plain_setting(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return len(value) <= _MAX_LISTED and all(isinstance(item, _SETTING_TYPES) for item in value)
    return isinstance(value, _SETTING_TYPES)


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not assigned yet
        return None


def vectors_label(
    layers: LayerSelection, pooling: PoolingFn, n_hidden: Optional[int], model: Optional[str] = None
) -> str:
    """How ctxvec_context makes its vectors, in words that are equal when the vectors are
    made the same way: "layer 5 of 6, pooled by pool_mean", "the last layer, pooled by
    pool_mean" (also for layer -1 or 6 of 6). ``n_hidden``: the number of hidden states
    (input embeddings plus layers), needed to name explicit layers; ``model``: the
    fingerprint of the transformer's weights, where known (", model 1a2b...")."""
    return with_model(_how_pooled(layers, pooling, n_hidden), model)


def _how_pooled(layers: LayerSelection, pooling: PoolingFn, n_hidden: Optional[int]) -> str:
    pooled = f"pooled by {pooling_name(pooling)}"
    # One layer: the combination is not named, as in labels saved before (lexicons keep matching).
    if not layers.needs_hidden_states:
        return f"the last layer, {pooled}"
    if n_hidden is None:
        return f"layers {list(layers.layers)}, {pooled}"
    resolved = resolve_layers(layers.layers, n_hidden)
    if resolved == [n_hidden - 1]:
        return f"the last layer, {pooled}"
    if len(resolved) == 1:
        return f"layer {resolved[0]} of {n_hidden - 1}, {pooled}"
    combined = f" combined by {pooling_name(layers.combine)}"
    return f"layers {', '.join(map(str, resolved))} of {n_hidden - 1}{combined}, {pooled}"
