"""devices.py: asking for a GPU that cannot be used is a coded error naming the id and
the cause, and the CPU stays in use."""

import pytest
from thinc.api import NumpyOps, get_current_ops

from spacy_ctxvec.devices import require_gpu
from spacy_ctxvec.errors import CtxvecError


@pytest.mark.parametrize("gpu_id", [0, 7, 1_000_000])
def test_an_unusable_gpu_is_a_coded_error_and_the_cpu_stays(gpu_id):
    try:
        import cupy  # noqa: F401

        if gpu_id < cupy.cuda.runtime.getDeviceCount():
            pytest.skip("this GPU exists here")
    except ImportError:
        pass
    with pytest.raises(CtxvecError, match=rf"E136.*--gpu-id {gpu_id}: no usable GPU \(\w+: .+\).*--gpu-id -1") as info:
        require_gpu(gpu_id)
    assert info.value.__suppress_context__  # raised "from None": no traceback of the cause
    assert isinstance(get_current_ops(), NumpyOps)
