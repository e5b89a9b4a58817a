"""interrupts: SIGTERM that stops a command as Ctrl-C does, and Ctrl-C/SIGTERM held while
a block that must not be left half done runs."""

import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from spacy_ctxvec.interrupts import (
    interrupts_blocked_for_children,
    interrupts_held,
    interrupts_raised,
    termination_as_interrupt,
    workers_ignore_interrupts,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is not deliverable to oneself on Windows")


@pytest.fixture
def default_sigterm():
    """SIGTERM with its default action for the test (a Ray test may have left its handler)."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGTERM, previous)


def test_sigterm_stops_the_block_as_ctrl_c_and_its_default_comes_back(default_sigterm):
    with pytest.raises(KeyboardInterrupt):
        with termination_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 1) if hasattr(signal, "sigtimedwait") else None
            pytest.fail("SIGTERM did not stop the block")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_handler_the_caller_installed_is_left_alone(default_sigterm):
    received = []
    mine = signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum)) or signal.SIG_DFL
    try:
        with termination_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
        assert received == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, mine)


def test_ctrl_c_and_a_stopping_sigterm_are_held_until_the_block_is_done(default_sigterm):
    finished = []
    with pytest.raises(KeyboardInterrupt):  # raised after the block, by the caller acting on what was held
        with termination_as_interrupt():
            with interrupts_held() as held:
                os.kill(os.getpid(), signal.SIGINT)
                os.kill(os.getpid(), signal.SIGTERM)
                finished.append(True)
            assert held == [signal.SIGINT, signal.SIGTERM] and finished == [True]
            raise KeyboardInterrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_nothing_is_held_outside_the_block(default_sigterm):
    with interrupts_held() as held:
        pass
    assert held == [] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        signal.sigtimedwait([], 1) if hasattr(signal, "sigtimedwait") else None


def _ready_after_init() -> int:
    return os.getpid()


def _wait_for_ctrl_c(seconds: float) -> str:
    with interrupts_raised():
        try:
            time.sleep(seconds)
        except KeyboardInterrupt:
            return "stopped"
    return "slept"


def _slow_init() -> None:
    workers_ignore_interrupts()
    time.sleep(1.0)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_workers_ignore_ctrl_c_while_they_start_and_stop_a_task_on_it():
    """build-lexicon --n-process 2 stopped with Ctrl-C printed the workers' tracebacks (a
    KeyboardInterrupt during their imports, "Exception in initializer"); now a worker started
    with SIGINT blocked ignores it until a task runs, and a task's Ctrl-C goes back as its result."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context, initializer=_slow_init) as pool:
        with interrupts_blocked_for_children():
            started = pool.submit(_ready_after_init)
        (worker,) = [p.pid for p in multiprocessing.active_children()]
        os.kill(worker, signal.SIGINT)  # while it imports or initialises: ignored, no traceback
        assert started.result(timeout=120) == worker
        task = pool.submit(_wait_for_ctrl_c, 30.0)
        time.sleep(1.0)
        os.kill(worker, signal.SIGINT)
        assert task.result(timeout=60) == "stopped"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process's own handler


def test_sigterm_stops_any_command_as_ctrl_c_does_and_leaves_no_staged_output(tmp_path):
    """`kill` (SIGTERM) of export-static or fit-polysemy mid-write left its hidden staged file
    (.v.tmp-PID-HEX.txt, or a staged pipeline copy): only build-lexicon turned SIGTERM into the
    Ctrl-C that cleans up. The console script now does it for every command."""
    import subprocess

    script = f"""
import os, signal, sys
from pathlib import Path
import spacy_ctxvec.cli as cli
from spacy_ctxvec.outputs import write_file

def write(staged):
    staged.write_text("half of it")
    os.kill(os.getpid(), signal.SIGTERM)

def command(args=None):  # cli.main calls app(args=...)
    write_file(Path({str(tmp_path / "v.txt")!r}), write, what="OUTPUT")

cli.app = command
try:
    cli.main()
except SystemExit as stop:  # 130 without a traceback, also where Typer builds the commands (no command's own handler)
    print("interrupted", stop.code, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "interrupted 130 True" and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []  # no staged file, no output
