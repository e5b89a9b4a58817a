"""spacy_ctxvec.locks: one lock per transformer model, fresh after a fork."""

import torch

from spacy_ctxvec import locks as module
from spacy_ctxvec.locks import forget_locks, forward_lock


def test_one_lock_per_model_and_another_for_another_model():
    first, second = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    assert forward_lock(first) is forward_lock(first)
    assert forward_lock(second) is not forward_lock(first)  # two pipelines in one process run side by side


def test_a_forked_child_forgets_the_locks_a_parent_thread_may_hold():
    model = torch.nn.Linear(2, 2)
    held = forward_lock(model)
    held.acquire()  # as by a parent thread in the middle of a forward call at the fork
    try:
        forget_locks()  # what os.register_at_fork runs in the child
        fresh = forward_lock(model)
        assert fresh is not held and fresh.acquire(blocking=False)
        fresh.release()
    finally:
        held.release()


def test_a_model_gone_takes_its_lock_with_it():
    model = torch.nn.Linear(2, 2)
    forward_lock(model)
    n = len(module._LOCKS)
    del model
    assert len(module._LOCKS) == n - 1
