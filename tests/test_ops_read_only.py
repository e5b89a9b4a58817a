import copy
import pickle
from dataclasses import dataclass

import numpy as np
import pytest

from spacy_ctxvec.ops.read_only import ReadOnlyArrays, read_only, read_only_or_none


def test_a_read_only_view_refuses_writes_and_leaves_the_array_writable():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    view = read_only(array)
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 9.0
    with pytest.raises(ValueError, match="read-only"):
        view[1][:] = 0.0  # a row taken from it is read-only too
    assert array.flags.writeable and np.shares_memory(view, array)
    array[0, 0] = 5.0  # the owner of the array may still change it
    assert view[0, 0] == 5.0


def test_values_are_converted_and_none_stays_none():
    converted = read_only([1, 2], np.float64)
    assert converted.dtype == np.float64 and not converted.flags.writeable
    assert read_only_or_none(None, np.int64) is None
    assert read_only_or_none([3], np.int64).dtype == np.int64


class Holder(ReadOnlyArrays):
    def __init__(self, values, space):
        self.values, self.space, self.name = read_only(values), space, "kept"


@dataclass(frozen=True)
class Space:
    mean: np.ndarray


def test_read_only_arrays_stay_read_only_through_pickle_and_deepcopy():
    holder = Holder(np.arange(3.0), Space(read_only(np.zeros(2))))
    for restored in (pickle.loads(pickle.dumps(holder)), copy.deepcopy(holder)):
        assert restored.name == "kept" and restored.values.tolist() == [0.0, 1.0, 2.0]
        for array in (restored.values, restored.space.mean):
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 5.0
