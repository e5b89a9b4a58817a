"""components/choices.py: the pooling and layer choices of ctxvec_context, resolved from
config through spaCy's registry, and what each one does to a real (tiny) pipeline's vectors."""

import dataclasses
import re
from typing import List

import numpy as np
import pytest
import spacy
from confection import ConfigValidationError
from spacy.util import registry
from thinc.api import Config

from spacy_ctxvec.components.choices import LayerSelection, vectors_label
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.ops.layers import concat_of_layers, mean_of_layers
from spacy_ctxvec.ops.pooling import pool_first, pool_first_last, pool_last, pool_max, pool_mean

from .conftest import transformer_config

POOLINGS = {
    "spacy-ctxvec.mean_pooling.v1": pool_mean,
    "spacy-ctxvec.first_pooling.v1": pool_first,
    "spacy-ctxvec.last_pooling.v1": pool_last,
    "spacy-ctxvec.max_pooling.v1": pool_max,
    "spacy-ctxvec.first_last_pooling.v1": pool_first_last,
}
# "unbelievable" is three wordpieces in the tiny vocab (un ##believ ##able); the others one each.
TEXT = "we sat on the river bank unbelievable"
MULTI_PIECE = 6


def resolve(block: str):
    return registry.resolve(Config().from_str(f"[choice]\n{block}"))["choice"]


@pytest.mark.parametrize("name", sorted(POOLINGS))
def test_pooling_names_resolve_from_config_to_their_function(name):
    assert resolve(f'@misc = "{name}"') is POOLINGS[name]


def test_layer_selections_resolve_from_config():
    last = resolve('@misc = "spacy-ctxvec.last_layer.v1"')
    assert last == LayerSelection(layers=(), combine=mean_of_layers) and not last.needs_hidden_states
    mean = resolve('@misc = "spacy-ctxvec.mean_layers.v1"\nlayers = [0, -1]')
    assert mean.layers == (0, -1) and mean.combine is mean_of_layers and mean.needs_hidden_states
    concat = resolve('@misc = "spacy-ctxvec.concat_layers.v1"\nlayers = [2]')
    assert concat.layers == (2,) and concat.combine is concat_of_layers


def test_layer_selection_is_frozen():
    selection = resolve('@misc = "spacy-ctxvec.mean_layers.v1"\nlayers = [1]')
    with pytest.raises(dataclasses.FrozenInstanceError):
        selection.layers = (2,)


@pytest.mark.parametrize("name", ["spacy-ctxvec.mean_layers.v1", "spacy-ctxvec.concat_layers.v1"])
def test_an_empty_layer_list_is_a_coded_error(name):
    with pytest.raises(CtxvecError, match="E004"):
        resolve(f'@misc = "{name}"\nlayers = []')


def test_a_layer_that_is_not_an_integer_fails_config_validation():
    with pytest.raises(ConfigValidationError, match="layers"):
        resolve('@misc = "spacy-ctxvec.mean_layers.v1"\nlayers = ["last"]')


CHOICES = {
    "mean": {},
    "first": {"pooling": {"@misc": "spacy-ctxvec.first_pooling.v1"}},
    "last": {"pooling": {"@misc": "spacy-ctxvec.last_pooling.v1"}},
    "max": {"pooling": {"@misc": "spacy-ctxvec.max_pooling.v1"}},
    "first_last": {"pooling": {"@misc": "spacy-ctxvec.first_last_pooling.v1"}},
    "layer_last": {"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [-1]}},
    "layer_0": {"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [0]}},
    "layers_mean": {"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [0, -1]}},
    "layers_concat": {"layers": {"@misc": "spacy-ctxvec.concat_layers.v1", "layers": [0, -1]}},
}


@pytest.fixture(scope="module")
def outputs_by_choice(tiny_bert_dir):
    """ctxvec_context vectors of TEXT under each choice, from ONE transformer run, and
    each choice's doc._.ctxvec_context_source."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    for name, config in CHOICES.items():
        nlp.add_pipe("ctxvec_context", name=name, config=config)
    nlp.initialize()
    doc = nlp.get_pipe("transformer")(nlp.make_doc(TEXT))
    vectors, labels = {}, {}
    for name in CHOICES:
        vectors[name] = nlp.get_pipe(name)(doc)._.ctxvec_context.copy()
        labels[name] = doc._.ctxvec_context_source
    assert doc[MULTI_PIECE].text == "unbelievable"
    return vectors, labels


@pytest.fixture(scope="module")
def vectors_by_choice(outputs_by_choice):
    return outputs_by_choice[0]


def test_poolings_agree_on_single_piece_tokens_and_differ_on_a_multi_piece_one(vectors_by_choice):
    mean, first, last, top = (vectors_by_choice[name] for name in ("mean", "first", "last", "max"))
    single = slice(0, MULTI_PIECE)
    for other in (first, last, top):
        np.testing.assert_allclose(other[single], mean[single], rtol=1e-6, atol=1e-6)
    assert not np.allclose(first[MULTI_PIECE], last[MULTI_PIECE])
    assert (top[MULTI_PIECE] >= mean[MULTI_PIECE] - 1e-6).all()
    assert (top[MULTI_PIECE] >= first[MULTI_PIECE]).all() and (top[MULTI_PIECE] >= last[MULTI_PIECE]).all()


def test_poolings_agree_on_single_piece_tokens_that_lie_in_two_overlapping_windows(tiny_bert_dir):
    """Windows of 8 tokens every 4: most tokens are in two windows, each wordpiece twice;
    first and last read the same piece (averaged over both windows), not one window's
    first and the other's last."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=4))
    for name in ("mean", "first", "last", "max"):
        nlp.add_pipe("ctxvec_context", name=name, config=CHOICES[name])
    nlp.initialize()
    doc = nlp.get_pipe("transformer")(nlp.make_doc(" ".join(["we sat on the river bank"] * 4)))
    tokenizer = nlp.get_pipe("transformer").model.tokenizer
    assert all(len(tokenizer.tokenize(token.text)) == 1 for token in doc)
    assert (doc._.trf_data.align.lengths == 2).sum() >= len(doc) // 2  # their one piece, in two windows
    vectors = {name: nlp.get_pipe(name)(doc)._.ctxvec_context.copy() for name in ("mean", "first", "last", "max")}
    for name in ("first", "last", "max"):
        np.testing.assert_allclose(vectors[name], vectors["mean"], rtol=1e-5, atol=1e-6)


def test_first_last_pooling_is_first_then_last_at_twice_the_width(vectors_by_choice):
    first, last, both = (vectors_by_choice[name] for name in ("first", "last", "first_last"))
    width = first.shape[1]
    assert both.shape == (len(first), 2 * width)
    assert np.array_equal(both[:, :width], first) and np.array_equal(both[:, width:], last)


def test_layer_minus_one_is_the_last_hidden_state(vectors_by_choice):
    assert np.array_equal(vectors_by_choice["layer_last"], vectors_by_choice["mean"])


def test_mean_and_concat_of_layers(vectors_by_choice):
    first_layer, last_layer = vectors_by_choice["layer_0"], vectors_by_choice["layer_last"]
    width = last_layer.shape[1]
    concat = vectors_by_choice["layers_concat"]
    assert concat.shape == (len(last_layer), 2 * width)
    np.testing.assert_allclose(concat[:, :width], first_layer, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(concat[:, width:], last_layer, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(vectors_by_choice["layers_mean"], (first_layer + last_layer) / 2, rtol=1e-5, atol=1e-6)
    assert not np.allclose(first_layer, last_layer)


def test_a_layer_the_transformer_lacks_is_a_coded_error_at_initialize(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context", config={"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [5]}})
    with pytest.raises(CtxvecError, match="E003"):
        nlp.initialize()


def test_the_vectors_label_is_the_same_exactly_where_the_vectors_are(outputs_by_choice):
    """doc._.ctxvec_context_source (what a lexicon records and ctxvec_polysemy checks, E043):
    the last layer named three ways is one label; every other choice makes other vectors and
    has another label."""
    vectors_by_choice, labels = outputs_by_choice
    # Every label names the one model that made the vectors (its fingerprint), then the choice.
    assert len({re.search(r", model (\w+)$", label).group(1) for label in labels.values()}) == 1  # type: ignore[union-attr]
    labels = {choice: re.sub(r", model \w+$", "", label) for choice, label in labels.items()}
    assert labels["mean"] == labels["layer_last"] == "the last layer, pooled by pool_mean"
    assert labels["layer_0"] == "layer 0 of 2, pooled by pool_mean"
    assert labels["layers_concat"] == "layers 0, 2 of 2 combined by concat_of_layers, pooled by pool_mean"
    for a in CHOICES:
        for b in CHOICES:
            same = vectors_by_choice[a].shape == vectors_by_choice[b].shape and np.array_equal(
                vectors_by_choice[a], vectors_by_choice[b]
            )
            assert (labels[a] == labels[b]) == same, (a, b)


def test_vectors_label_names_layers_counted_from_either_end_alike():
    last = LayerSelection(layers=(), combine=mean_of_layers)
    assert vectors_label(last, pool_mean, None) == vectors_label(LayerSelection((6,), mean_of_layers), pool_mean, 7)
    assert vectors_label(LayerSelection((-2,), mean_of_layers), pool_first, 7) == "layer 5 of 6, pooled by pool_first"
    assert vectors_label(LayerSelection((5,), concat_of_layers), pool_first, 7) == "layer 5 of 6, pooled by pool_first"
    with pytest.raises(CtxvecError, match="E003"):
        vectors_label(LayerSelection((9,), mean_of_layers), pool_mean, 7)


@registry.misc("test-ctxvec.rows_pooling.v1")
def configure_rows_pooling():
    """One row per wordpiece: the wrong number of rows for tokens of several wordpieces."""

    def pool_rows(rows, lengths):
        return rows

    return pool_rows


@registry.misc("test-ctxvec.nan_pooling.v1")
def configure_nan_pooling():
    def pool_nan(rows, lengths):
        return pool_mean(rows, lengths) * np.nan

    return pool_nan


@registry.misc("test-ctxvec.scaled_pooling.v1")
def configure_scaled_pooling(weight: float):
    def pool_scaled(rows, lengths):
        return pool_mean(rows, lengths) * (1.0 + weight)

    return pool_scaled


def custom_pipeline(tiny_bert_dir, pooling):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context", config={"pooling": pooling})
    nlp.initialize()
    return nlp


def test_a_custom_pooling_of_the_wrong_rows_or_nan_is_a_coded_error_not_other_tokens_vectors(tiny_bert_dir):
    """A registered pooling giving a row per wordpiece gave tokens other tokens' vectors
    without a word (fewer rows: an IndexError traceback), and one giving NaN put NaN on the
    Doc: both are E049, naming the function (here at nlp.initialize(), which pools a word)."""
    with pytest.raises(CtxvecError, match=r"CTX-E049.*pool_rows returned shape \(\d+, 32\) for \d+ tokens"):
        custom_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.rows_pooling.v1"})(TEXT)
    with pytest.raises(CtxvecError, match="CTX-E049.*pool_nan returned NaN or infinite values"):
        custom_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.nan_pooling.v1"})(TEXT)


@registry.misc("test-ctxvec.one_argument_pooling.v1")
def configure_one_argument_pooling():
    def pool_one(rows):
        return rows

    return pool_one


def test_a_custom_pooling_or_combination_of_another_signature_is_a_coded_error(tiny_bert_dir):
    """A pooling taking one argument was a TypeError traceback (114 lines in the CLI)."""
    with pytest.raises(
        CtxvecError,
        match=r"CTX-E067\] 'ctxvec_context': the pooling function pool_one of "
        r"\[components\.ctxvec_context\.pooling\] raised TypeError: .*called as pooling\(rows, lengths\)",
    ):
        custom_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.one_argument_pooling.v1"})(TEXT)

    @registry.misc("test-ctxvec.no_argument_layers.v1")
    def configure_no_argument_layers():
        return LayerSelection(layers=(1, 2), combine=lambda: None)

    with pytest.raises(
        CtxvecError,
        match=r"CTX-E067\].* layer combination .*\[components\.ctxvec_context\.layers\] "
        r"raised TypeError: .*called as combine\(arrays\)",
    ):
        layered_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.no_argument_layers.v1"})(TEXT)


def test_a_custom_pooling_is_labelled_with_its_settings(tiny_bert_dir):
    """The vectors label named a custom pooling by its function's name only, so two
    settings of one pooling (other vectors) had one label, which E043 compares."""
    labels = {
        weight: custom_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.scaled_pooling.v1", "weight": weight})(
            TEXT
        )._.ctxvec_context_source
        for weight in (0.0, 5.0)
    }
    assert labels[0.0].startswith("the last layer, pooled by pool_scaled (weight=0.0)")
    assert labels[5.0].startswith("the last layer, pooled by pool_scaled (weight=5.0)")


@pytest.mark.parametrize(
    "setting,block",
    [("pooling", {"@misc": "spacy-ctxvec.last_layer.v1"}), ("layers", {"@misc": "spacy-ctxvec.mean_pooling.v1"})],
)
def test_a_layer_choice_given_as_pooling_or_the_reverse_is_a_coded_error(setting, block):
    """pooling = spacy-ctxvec.last_layer.v1 was "TypeError: 'LayerSelection' object is not
    callable" on the first text."""
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match=rf"CTX-E048.*\[components.ctxvec_context.{setting}\] is ") as err:
        nlp.add_pipe("ctxvec_context", config={setting: block})
    # what it was given in a few words, not an object's repr cut off mid-word
    given = {"pooling": "a layer selection (as spacy-ctxvec.last_layer.v1", "layers": "the function pool_mean, not"}
    assert given[setting] in str(err.value) and " at 0x" not in str(err.value)


@registry.misc("test-ctxvec.odd_layers.v1")
def configure_odd_layers(kind: str, weights: List[float]):
    """A user's layer choice: a weighted mean of layers 1 and 2, or one of its mistakes."""

    def combine_weighted(arrays):
        total = sum(weight * array for weight, array in zip(weights, arrays)) / sum(weights)
        if kind == "nan":
            return total * np.nan
        if kind == "short":
            return total[:-1]
        if kind == "flat":
            return total.ravel()
        if kind == "complex":
            return total.astype(np.complex64)
        return total

    return LayerSelection(layers=(1, 2), combine=combine_weighted)


def layered_pipeline(tiny_bert_dir, layers, **config):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context", config={"layers": layers, **config})
    nlp.initialize()
    return nlp


@pytest.mark.parametrize(
    "kind,got",
    [
        ("nan", "NaN or infinite values"),
        ("short", r"shape \(\d+, 32\)"),
        ("flat", r"shape \(\d+,\)"),
        ("complex", "an array of complex64, not of floats"),
    ],
)
def test_a_custom_layer_combination_is_checked_as_a_custom_pooling_is(tiny_bert_dir, kind, got):
    """Its NaN reached every token's vector with the shipped pooling, and its wrong rows were
    blamed on the pooling (E007/E049): E050 names the combination."""
    layers = {"@misc": "test-ctxvec.odd_layers.v1", "kind": kind, "weights": [1.0, 1.0]}
    with pytest.raises(CtxvecError, match=rf"CTX-E050.*combine_weighted \(kind='{kind}', weights=.*returned {got} for"):
        layered_pipeline(tiny_bert_dir, layers)(TEXT)


def test_a_custom_layer_combination_is_labelled_with_its_list_settings(tiny_bert_dir):
    """Two weightings of one layer choice made other vectors under one label, which E043 compares."""
    labels = [
        layered_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.odd_layers.v1", "kind": "ok", "weights": weights})(
            TEXT
        )._.ctxvec_context_source
        for weights in ([1.0, 3.0], [3.0, 1.0])
    ]
    assert labels[0] != labels[1]
    assert "layers 1, 2 of 2 combined by combine_weighted (kind='ok', weights=[1.0, 3.0]), pooled by" in labels[0]


@registry.misc("test-ctxvec.other_kinds_pooling.v1")
def configure_other_kinds_pooling(kind: str):
    def pool_other(rows, lengths):
        pooled = pool_mean(rows, lengths)
        if kind == "torch":
            import torch

            return torch.from_numpy(pooled)
        return pooled.astype(object) if kind == "object" else pooled * 1e6

    return pool_other


@pytest.mark.parametrize("kind,got", [("torch", "Tensor tensor"), ("object", "an array of object, not of floats")])
def test_a_custom_pooling_returning_no_numpy_float_array_is_a_coded_error(tiny_bert_dir, kind, got):
    """A torch tensor met Thinc's "might indicate a bug in Thinc", an object array a bare TypeError."""
    with pytest.raises(CtxvecError, match=rf"CTX-E049.*pool_other \(kind='{kind}'\) returned {got}"):
        custom_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.other_kinds_pooling.v1", "kind": kind})(TEXT)


def test_vectors_beyond_float16_are_a_coded_error_not_nan(tiny_bert_dir):
    """dtype = "float16" cast pooled values above 65504 to inf after the pooling's check:
    doc._.ctxvec_context held inf and token._.context_vec NaN."""
    pooling = {"@misc": "test-ctxvec.other_kinds_pooling.v1", "kind": "large"}
    with pytest.raises(CtxvecError, match=r'CTX-E051.*float16.*as large as [\d.e+]+.*Set dtype = "float32"'):
        layered_pipeline(tiny_bert_dir, {"@misc": "spacy-ctxvec.last_layer.v1"}, pooling=pooling, dtype="float16")(TEXT)
    doc = layered_pipeline(tiny_bert_dir, {"@misc": "spacy-ctxvec.last_layer.v1"}, pooling=pooling)(TEXT)
    assert np.isfinite(doc._.ctxvec_context).all() and np.abs(doc._.ctxvec_context).max() > 65504


def test_layer_numbers_that_are_not_whole_numbers_are_a_coded_error():
    @registry.misc("test-ctxvec.text_layers.v1")
    def configure_text_layers():
        return LayerSelection(layers=("5",), combine=mean_of_layers)

    with pytest.raises(CtxvecError, match=r"CTX-E048.*is a layer selection of layers \('5',\), not one of whole layer"):
        spacy.blank("en").add_pipe("ctxvec_context", config={"layers": {"@misc": "test-ctxvec.text_layers.v1"}})


class ScaledPooling:
    """A pooling written as a class (picklable under spawn, unlike a closure)."""

    def __init__(self, weight: float) -> None:
        self.weight = weight

    def __call__(self, rows, lengths):
        return pool_mean(rows, lengths) * self.weight


@registry.misc("test-ctxvec.class_pooling.v1")
def configure_class_pooling(weight: float):
    return ScaledPooling(weight)


def test_a_pooling_object_is_labelled_with_its_attributes(tiny_bert_dir):
    """It was labelled by its class name alone, so two weights had one label, which E043 compares."""
    labels = [
        custom_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.class_pooling.v1", "weight": weight})(
            TEXT
        )._.ctxvec_context_source
        for weight in (1.0, 3.0)
    ]
    assert labels[0].startswith("the last layer, pooled by ScaledPooling (weight=1.0)") and labels[0] != labels[1]


class CountingPooling:
    """A pooling object that keeps state beside what it was made with."""

    def __init__(self, weight: float) -> None:
        self.weight, self.calls = weight, 0

    def __call__(self, rows, lengths):
        self.calls += 1
        return pool_mean(rows, lengths) * self.weight


def test_a_pooling_objects_label_names_what_it_was_made_with_not_its_state():
    """Every public attribute went into the label: a call counter changed it after one call."""
    from spacy_ctxvec.components.choices import pooling_name

    pooling = CountingPooling(2.0)
    before = pooling_name(pooling)
    pooling(np.ones((2, 3), dtype=np.float32), np.array([1, 1]))
    assert before == pooling_name(pooling) == "CountingPooling (weight=2.0)"


def test_a_layer_combination_on_one_layer_is_not_named_as_labels_saved_before(tiny_bert_dir):
    """Naming it made lexicons built before with a custom one-layer combination refused (E043)."""

    @registry.misc("test-ctxvec.one_layer_sum.v1")
    def configure_one_layer_sum():
        return LayerSelection(layers=(-1,), combine=lambda arrays: arrays[0] * 1.0)

    doc = layered_pipeline(tiny_bert_dir, {"@misc": "test-ctxvec.one_layer_sum.v1"})(TEXT)
    assert doc._.ctxvec_context_source.startswith("the last layer, pooled by pool_mean")
