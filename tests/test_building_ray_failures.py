"""building.ray_failures: what a failed Ray build raised, as the coded error a user reads."""

import pytest

from spacy_ctxvec.building.ray_failures import coded_error, exception_chain, worker_start_error
from spacy_ctxvec.errors import CtxvecError, Errors

ray_exceptions = pytest.importorskip("ray.exceptions")


def test_workers_that_cannot_import_spacy_ctxvec_on_a_node_are_e509_saying_to_install_it():
    """A node without spacy-ctxvec: Ray's RaySystemError (the actor class could not be loaded
    there) came out as a 450-line traceback (a Ray auditor)."""
    failed = ray_exceptions.RaySystemError(
        "System error: No module named 'spacy_ctxvec'\ntraceback: ModuleNotFoundError: No module named 'spacy_ctxvec'"
    )
    wrapped = RuntimeError("the dataset failed")
    wrapped.__cause__ = failed
    error = worker_start_error(wrapped)
    assert error is not None and "[CTX-E509]" in str(error)
    assert "ModuleNotFoundError: No module named 'spacy_ctxvec'" in str(error) and "install the same" in str(error)


def test_workers_without_a_usable_gpu_on_a_node_are_e509_naming_cupy_and_the_cpu():
    raised = ValueError("Cannot use GPU, CuPy is not installed")  # spaCy's require_gpu in the worker
    creation = ray_exceptions.RayTaskError("ReplicaActor.__init__", f"Traceback ...\nValueError: {raised}", raised)
    died = ray_exceptions.ActorDiedError(cause=creation)  # how Ray reports an actor whose __init__ raised
    assert died.actor_init_failed
    error = worker_start_error(died)
    assert error is not None and "Cannot use GPU, CuPy is not installed" in str(error)
    assert "--gpus-per-worker 0" in str(error)


def test_other_failures_are_not_taken_for_a_worker_that_could_not_start():
    assert worker_start_error(ValueError("Cannot use GPU")) is None  # not from Ray's workers
    died = ray_exceptions.ActorDiedError()  # died later, not at its start: E522's, not this
    died.__cause__ = ImportError("x")
    assert worker_start_error(died) is None
    system = ray_exceptions.RaySystemError("System error: out of memory")
    assert worker_start_error(system) is None  # nothing it could advise on


def test_a_coded_error_inside_rays_wrapping_is_found_once_per_exception():
    inner = CtxvecError(Errors.E522.format(error_type="NodeDiedError", error="node 1"))
    outer = RuntimeError("wrapped")
    outer.__cause__, outer.__context__ = inner, inner
    assert [type(e) for e in exception_chain(outer)] == [RuntimeError, CtxvecError]
    found = coded_error(outer)
    assert found is not None and str(found).startswith("[CTX-E522]")
