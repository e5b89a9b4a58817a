import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.ops.layers import concat_of_layers, mean_of_layers, repeated_layer, resolve_layers


def test_resolve_layers_negative_and_bounds():
    assert resolve_layers([0, -1, 3], 7) == [0, 6, 3]
    with pytest.raises(CtxvecError, match=r"\[CTX-E003\]"):
        resolve_layers([7], 7)
    with pytest.raises(CtxvecError, match=r"\[CTX-E004\]"):
        resolve_layers([], 7)


def test_one_hidden_state_named_twice_is_found():
    """layers = [6, -1] on a 6-layer model concatenated the last layer with itself, without a word
    (ctxvec_context warns W079 at initialize; a pipeline saved with such layers still loads)."""
    assert repeated_layer([6, -1], 7) == (6, -1, 6) and resolve_layers([6, -1], 7) == [6, 6]
    assert repeated_layer([2, 0, 2], 7) == (2, 2, 2)
    assert repeated_layer([0, -1, 3], 7) is None and repeated_layer([-1], 7) is None


def test_mean_and_concat():
    a = np.array([[1.0, 2.0]], dtype=np.float32)
    b = np.array([[3.0, 6.0]], dtype=np.float32)
    np.testing.assert_array_equal(mean_of_layers([a, b]), [[2.0, 4.0]])
    np.testing.assert_array_equal(concat_of_layers([a, b]), [[1.0, 2.0, 3.0, 6.0]])
    assert mean_of_layers([a, b]).dtype == np.float32
