"""One forward call at a time per transformer model. Threads sharing a pipeline share its
model, and an inference call switches the model to eval mode and back (thinc's
PyTorchShim.predict switches it to train mode afterwards, whatever it was), so calls that
overlap would run with dropout on once another thread switched it back: silently other
vectors; and a Hugging Face fast tokenizer is not safe to call from two threads at once
either ("RuntimeError: Already borrowed" where one call changes its padding). A forward
call holds its model's lock and its tokenizer's from tokenisation to the last copy, and
any other use of a transformer's tokenizer (ctxvec_static's subword lookups, which share
the tokenizer object in a pipeline initialised in memory) holds the tokenizer's lock.
Different models (two pipelines in one process) keep their own locks. Lives at layer 0:
`static/` takes the tokenizer's lock as well as `components/`."""

import os
import threading
from typing import Any
from weakref import WeakKeyDictionary

_LOCKS: "WeakKeyDictionary[Any, threading.RLock]" = WeakKeyDictionary()
_GUARD = threading.Lock()


def forward_lock(model: Any) -> "threading.RLock":
    """The lock of ``model`` (a torch module or a tokenizer), made on first use;
    reentrant (a forward holding it calls parts that take it too). A caller holding both
    takes the module's first."""
    with _GUARD:
        lock = _LOCKS.get(model)
        if lock is None:
            lock = _LOCKS[model] = threading.RLock()
        return lock


def forget_locks() -> None:
    """Start afresh: what a forked child does (a thread of the parent may have held a lock
    at the fork, and that thread does not exist in the child)."""
    global _GUARD
    _GUARD = threading.Lock()
    _LOCKS.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=forget_locks)
