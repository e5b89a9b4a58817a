"""The device a command runs on."""

from .errors import CtxvecError, Errors


def require_gpu(gpu_id: int) -> None:
    """spacy.require_gpu(gpu_id), or a coded error when that GPU cannot be used (CuPy
    missing, no CUDA device, an id that does not exist)."""
    import spacy

    try:
        spacy.require_gpu(gpu_id)
    except (ValueError, ImportError, RuntimeError, OSError, AssertionError) as err:
        raise CtxvecError(Errors.E136.format(gpu_id=gpu_id, error=f"{type(err).__name__}: {err}")) from None
