"""Ctrl-C and SIGTERM around the steps a command must not leave half done.

``interrupts_held`` holds them while a block runs (an output being renamed into place);
``termination_as_interrupt`` makes SIGTERM (plain `kill`, `docker stop`, batch schedulers)
stop a long command as Ctrl-C does, and marks its handler (``STOPS_LIKE_CTRL_C``) so that
``interrupts_held`` holds and reports it like Ctrl-C."""

import os
import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator, List

# Set on a SIGTERM handler that raises KeyboardInterrupt (build-lexicon's): interrupts_held holds it too.
STOPS_LIKE_CTRL_C = "stops_like_ctrl_c"


@contextmanager
def interrupts_held(sigterm: bool = True) -> Iterator[List[int]]:
    """Hold Ctrl-C (SIGINT) while the block runs, and SIGTERM where its handler stops like
    Ctrl-C (``STOPS_LIKE_CTRL_C``): the list yielded collects them, for the caller to act on
    after. A SIGTERM with its default action is held too and ends the process after the block.
    Without ``sigterm``, SIGTERM is left as it is. Holds nothing outside the main thread or
    where Python does not handle SIGINT."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield []
        return
    received: List[int] = []  # for the caller: Ctrl-C, and SIGTERM where it stops like Ctrl-C
    on_sigterm = signal.getsignal(signal.SIGTERM)
    stops = getattr(on_sigterm, STOPS_LIKE_CTRL_C, False)  # build-lexicon's
    held = [signal.SIGINT, signal.SIGTERM] if sigterm and (stops or on_sigterm is signal.SIG_DFL) else [signal.SIGINT]
    terminated: List[int] = []

    def hold(signum: int, frame: Any) -> None:
        (received if signum == signal.SIGINT or stops else terminated).append(signum)

    previous = [signal.signal(signum, hold) for signum in held]
    try:
        yield received
    finally:
        for signum, handler in zip(held, previous):
            signal.signal(signum, handler)
        if terminated:
            os.kill(os.getpid(), signal.SIGTERM)  # its default action, now that the block is done


@contextmanager
def termination_as_interrupt() -> Iterator[None]:
    """SIGTERM (plain `kill`, `docker stop`, batch schedulers) stops the block as Ctrl-C does,
    with KeyboardInterrupt (build-lexicon then keeps its checkpoint and prints the resume command,
    where the default action ended the process without a word). Main thread only, and only where SIGTERM has its
    default action: a handler the caller installed, or SIGTERM ignored, is left as it is."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is not (
        signal.SIG_DFL
    ):
        yield
        return

    owner = os.getpid()

    def interrupt(signum: int, frame: Any) -> None:
        if os.getpid() != owner:  # a worker forked with the handler (--n-process): ends as before
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        raise KeyboardInterrupt

    setattr(interrupt, STOPS_LIKE_CTRL_C, True)
    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def interrupts_blocked_for_children() -> Iterator[None]:
    """Ctrl-C (SIGINT) blocked in this thread while the block starts worker processes: they
    start with it blocked (the signal mask is inherited), so one pressed while they import
    leaves no traceback there; this process receives it when the block ends. Workers call
    ``workers_ignore_interrupts`` first. Where there is no signal mask (Windows), nothing is
    blocked."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def workers_ignore_interrupts() -> None:
    """In a worker process, first: Ctrl-C is ignored (one pressed while it started too), so it
    neither prints a traceback while the worker loads nor breaks the pool; it stops a task's
    work only (``interrupts_raised``), whose KeyboardInterrupt goes back to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def interrupts_raised() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt while the block runs (a worker's task)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
