"""What a failed Ray build raised, as the coded error a user reads: a coded error one of its
tasks raised (``coded_error``), a lost node or worker (E522), a stall (E523), or workers that
could not start on a node (E509: spacy-ctxvec missing there, or a GPU it cannot use). Each looks
through the chain of exceptions Ray wraps around the first one."""

import re
from typing import Iterator, List, Optional

from ..errors import PREFIX, CtxvecError, Errors


def exception_chain(err: BaseException) -> Iterator[BaseException]:
    """``err`` and every exception it wraps (causes, contexts, Ray's ``cause``), once each."""
    seen = set()
    stack: List[Optional[BaseException]] = [err]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend([current.__cause__, current.__context__, getattr(current, "cause", None)])


def coded_error(err: BaseException) -> Optional[CtxvecError]:
    """The CtxvecError a Ray task raised, found in the chain of wrapping exceptions."""
    for current in exception_chain(err):
        if isinstance(current, CtxvecError) and str(current).startswith("[" + PREFIX):
            # Ray appends its own retry and traceback text after the coded (one-line) message.
            return CtxvecError(str(current).splitlines()[0])
    return None


def node_loss_error(err: BaseException) -> Optional[CtxvecError]:
    """E522 when a chain of exceptions holds Ray's word that a node, worker process or
    object died and could not be recovered (not when an actor's own __init__ failed)."""
    try:
        from ray import exceptions as ray_errors
    except ImportError:
        return None
    lost = (
        ray_errors.NodeDiedError,
        ray_errors.WorkerCrashedError,
        ray_errors.ObjectLostError,
        ray_errors.LocalRayletDiedError,
        ray_errors.RayActorError,
    )
    for current in exception_chain(err):
        if isinstance(current, lost) and not getattr(current, "actor_init_failed", False):
            first_line = (str(current).strip().splitlines() or [""])[0][:300]
            return CtxvecError(Errors.E522.format(error_type=type(current).__name__, error=first_line))
    return None


def stall_error(err: BaseException) -> Optional[CtxvecError]:
    """E523 when Ray Data gave up on a dataset that made no progress (its own timeout)."""
    try:
        from ray.data import DataContext
        from ray.data.exceptions import ExecutionTimeoutError
    except ImportError:
        return None
    for current in exception_chain(err):
        if isinstance(current, ExecutionTimeoutError):
            first_line = (str(current).strip().splitlines() or [""])[0][:300]
            stated = re.search(r"at least (\d+(?:\.\d+)?)\s*s", first_line)
            seconds = (
                float(stated.group(1)) if stated else float(DataContext.get_current().execution_no_progress_timeout_s)
            )
            return CtxvecError(Errors.E523.format(seconds=seconds, error=first_line))
    return None


def worker_start_error(err: BaseException) -> Optional[CtxvecError]:
    """E509 when Ray's workers could not start on a node (an actor's __init__ or its class
    failed there): spacy-ctxvec or a package it imports is missing on that node, or the GPU
    --gpus-per-worker asks for cannot be used there; None for anything else."""
    try:
        from ray import exceptions as ray_errors
    except ImportError:
        return None
    chain = list(exception_chain(err))
    if not any(
        isinstance(current, ray_errors.RaySystemError)
        or (isinstance(current, ray_errors.RayActorError) and getattr(current, "actor_init_failed", False))
        for current in chain
    ):
        return None
    text = "\n".join(str(current) for current in chain)
    for pattern, advice in (
        (r"(?:ModuleNotFoundError|ImportError): [^\n]+", INSTALL_ON_EVERY_NODE),
        (r"Cannot use GPU[^\n]*", GPU_ON_EVERY_NODE),
    ):
        found = re.search(pattern, text)
        if found:
            return CtxvecError(Errors.E509.format(reason=found.group(0).strip()[:300], advice=advice))
    return None


INSTALL_ON_EVERY_NODE = (
    "Every node runs spacy-ctxvec's workers: install the same spacy-ctxvec, spaCy, spacy-transformers, torch, "
    'transformers and Ray there as here (docs/scaling.md, "What every node needs")'
)
GPU_ON_EVERY_NODE = (
    "--gpus-per-worker runs each worker on a GPU of its node, which needs CuPy for its CUDA version there "
    "(e.g. pip install cupy-cuda12x); or run the workers on CPUs with --gpus-per-worker 0"
)
