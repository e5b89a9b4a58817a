"""The Ray session of a build and what can go wrong on a cluster: joining or starting
Ray, checking its resources, telling node loss and stalls from other failures
(``NodeLossWatch``), and stopping Ray Data's executors before shutdown."""

import logging
import math
import os
import re
import signal
import socket
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from ..errors import CtxvecError, Errors, Warnings
from ..interrupts import interrupts_held
from ..ops.text import count_of
from .ray_failures import coded_error

# A node that dies takes its actors with it. Ray restarts them on the nodes left when
# those have room, or once Ray Data releases an actor that ran out of input; when neither
# happens the shard the dead actor held would wait forever. The driver looks at the
# cluster every NODE_CHECK_S seconds and stops with E520 once nodes were lost, the nodes
# left are too small for the actor pool, and no shard has finished for NODE_LOSS_GRACE_S
# seconds (time enough for an autoscaler to replace the node, or for a restart).
NODE_CHECK_S = 2.0
NODE_LOSS_GRACE_S = 60.0
# How long joining a cluster waits for its address to accept a connection: Ray itself
# retries an address where nothing listens for over 90 s, printing warnings.
CONNECT_TIMEOUT_S = 5.0


def import_ray() -> Any:
    """The ray module, or E502 naming the optional extra."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as err:
        raise CtxvecError(Errors.E502.format(error=err)) from err
    return ray


def given_address(address: Optional[str]) -> Optional[str]:
    """``address``, else the RAY_ADDRESS environment variable (Ray's own way to name a
    cluster), else None: a local Ray of this build's own ("local" is that too)."""
    given = address if address is not None else os.environ.get("RAY_ADDRESS", "").strip() or None
    return None if given is not None and given.strip() == "local" else given


@contextmanager
def ray_session(
    address: Optional[str], num_workers: int, num_cpus_per_worker: float, from_environment: bool = False
) -> Iterator[Any]:
    """Join the cluster at ``address``, reuse an initialised Ray, or start a local one
    with this machine's CPUs (E503 if the pool needs more); shut down only what was
    started here."""
    ray = import_ray()
    started, stopped = False, []
    if ray.is_initialized():
        check_same_ray(ray, address)
    else:
        # ray.init sets SIGTERM to exit at once; the build's own handler (a stop like Ctrl-C) is kept
        on_sigterm = signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() else None
        # Ctrl-C inside ray.init crashed Ray's core worker (a segmentation fault): held, then a stop
        with interrupts_held(sigterm=False) as stopped, tokenizers_quiet_at_fork():
            try:
                if address is None:  # "local": a Ray of its own, also beside a cluster `ray start` started
                    cpus = local_cpus(num_workers, num_cpus_per_worker)
                    ray.init(address="local", num_cpus=cpus, include_dashboard=False)
                else:
                    join_cluster(ray, address, from_environment)
            finally:  # also where Ray could not start (E232): it set its handler first
                if on_sigterm is not None and on_sigterm is not signal.SIG_DFL:
                    signal.signal(signal.SIGTERM, on_sigterm)
        started = True
    try:
        if stopped:
            raise KeyboardInterrupt
        yield ray
    finally:
        if started:
            ray.shutdown()


TOKENIZERS_PARALLELISM = "TOKENIZERS_PARALLELISM"


@contextmanager
def tokenizers_quiet_at_fork() -> Iterator[None]:
    """TOKENIZERS_PARALLELISM=false while Ray starts its processes, unless it is set: each
    fork after a fast tokenizer ran its threads here printed Hugging Face's five-line
    warning (five of them). Ray's processes, and the workers they start, keep it (one thread
    per worker, as its CPU share is); this process's environment is as before."""
    if TOKENIZERS_PARALLELISM in os.environ:
        yield
        return
    os.environ[TOKENIZERS_PARALLELISM] = "false"
    try:
        yield
    finally:
        os.environ.pop(TOKENIZERS_PARALLELISM, None)


def check_same_ray(ray: Any, address: Optional[str]) -> None:
    """E507 where ``address`` names a cluster other than the Ray already initialised in this
    process: ray.init is not called again, so the build would run on that Ray. Compared by
    host and port ("auto" as Ray resolves it, where it can tell; a ray:// client address
    is not compared)."""
    if address is None or address.strip().startswith("ray://"):
        return
    running = ray.get_runtime_context().gcs_address
    try:
        target = auto_address() if address.strip() == "auto" else address
    except ConnectionError:  # no cluster on this machine for "auto" to join
        target = ""
    here = frozenset({ray.util.get_node_ip_address()})  # the address Ray gives this machine (not its loopback)
    if target is not None and not same_place(host_and_port(target), host_and_port(running), here):
        raise CtxvecError(Errors.E507.format(address=address, running=running))


Place = Optional[Tuple[str, int]]  # (host, port), as host_and_port gives it


def same_place(first: Place, second: Place, here: FrozenSet[str] = frozenset()) -> bool:
    """Whether two (host, port) name one place: the same port, and hosts with an address in
    common, or both this machine ("localhost", 127.0.0.1, its own names, and ``here``)."""
    if first is None or second is None or first[1] != second[1]:
        return False
    firsts, seconds = host_addresses(first[0]), host_addresses(second[0])
    local = here | host_addresses(socket.gethostname()) | {"127.0.0.1", "::1"}

    def on_this_machine(found: Set[str]) -> bool:
        return bool(found) and all(ip in local or ip.startswith("127.") for ip in found)

    return bool(firsts & seconds) or (on_this_machine(firsts) and on_this_machine(seconds))


def host_addresses(host: str) -> Set[str]:
    """The IP addresses ``host`` resolves to (itself where it does not resolve)."""
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return {host}


def check_local_pool(
    address: Optional[str], num_workers: int, num_cpus_per_worker: float, num_gpus_per_worker: float = 0.0
) -> None:
    """E503 (CPUs) or E504 (GPUs) before any model loads, where the build would start a local
    Ray too small for its pool (no address given and no Ray initialised in this process)."""
    ray = sys.modules.get("ray")
    if address is None and not (ray is not None and ray.is_initialized()):
        local_cpus(num_workers, num_cpus_per_worker)
        if num_gpus_per_worker > 0:
            where = "A local Ray on this machine (its GPUs as torch sees them)"
            check_enough(local_gpus(), "GPU", num_workers, num_gpus_per_worker, where)


def local_gpus() -> int:
    """The GPUs a worker on this machine could use: those torch sees (CUDA_VISIBLE_DEVICES
    applied); a GPU that torch cannot use (a CPU build of torch) does not count."""
    import torch

    return int(torch.cuda.device_count())


def local_cpus(num_workers: int, num_cpus_per_worker: float) -> int:
    """The CPUs a local Ray gets: this machine's, or E503 where the pool needs more
    (Ray would start them all, each loading a pipeline, on cores they can only share)."""
    have = os.cpu_count() or 1
    need = num_workers * num_cpus_per_worker
    if need > have:
        fit = math.floor(have / num_cpus_per_worker)
        raise CtxvecError(
            Errors.E503.format(
                have=have,
                workers=count_of(num_workers, "worker"),
                per_worker=f"{num_cpus_per_worker:g}",  # 1, not 1.0
                need=f"{need:g}",
                advice=f"--num-workers {fit} or fewer" if fit >= 1 else f"num_cpus_per_worker {have} or fewer",
            )
        )
    return have


def host_and_port(address: str) -> Optional[Tuple[str, int]]:
    """(host, port) of a "host:port", "ray://host:port" or "[ipv6]:port" address; None
    for other forms ("auto", "local", a name without a port)."""
    match = re.fullmatch(r"(?:[a-z]+://)?\[?([^\[\]/]*?)\]?:(\d+)/?", address.strip())
    if match is None or not match.group(1):
        return None
    return match.group(1), int(match.group(2))


def auto_address() -> Optional[str]:
    """The address Ray would join for "auto" (RAY_ADDRESS, the last `ray start`, a running
    GCS), None when it cannot tell (its lookup is not public API); ConnectionError when
    no Ray runs on this machine."""
    try:
        from ray._private.services import get_ray_address_from_environment
    except ImportError:
        return None
    return get_ray_address_from_environment("auto", None)


def unreachable(host: str, port: int, timeout_s: float = CONNECT_TIMEOUT_S) -> Optional[str]:
    """Why nothing accepts a TCP connection at host:port within ``timeout_s`` (None if it does)."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as err:
        return f"no answer within {timeout_s:g} s" if isinstance(err, socket.timeout) else str(err)


def join_cluster(ray: Any, address: str, from_environment: bool = False) -> None:
    """ray.init(address=address), or E232 at once where no Ray runs there (Ray itself
    raises a bare ConnectionError for "auto", and retries a silent host:port for minutes)."""
    target: Optional[str] = address
    answered = False  # something listens there: Ray refused to join (token authentication, another version)
    try:
        if address.strip() == "auto":
            target = auto_address()
        where = host_and_port(target) if target else None
        reason = unreachable(*where) if where else None
        if reason is None:
            answered = where is not None  # the TCP check ran: something listens at host:port
            ray.init(address=address)
            return
    except ConnectionError as err:
        reason = str(err).strip().split(". ")[0] or type(err).__name__  # Ray's advice names RAY_ADDRESS
    except ValueError as err:  # not an address at all ("foo", ""): Ray's own words
        reason = f"{str(err).strip() or type(err).__name__} (give host:port, ray://host:port or auto)"
    reason = reason.rstrip(".")
    shown = address if target in (None, address) else f"{address} (found: {target})"
    named, local = ("RAY_ADDRESS", "unset RAY_ADDRESS") if from_environment else ("--address", "leave out --address")
    auth = AUTH_HINT if answered and os.environ.get("RAY_AUTH_MODE", "").lower() != "token" else ""
    raise CtxvecError(Errors.E232.format(address=f"{named} {shown}", reason=reason, local=local, auth=auth))


# Ray 2.5x clusters started by `ray start --head` use token authentication by default; a driver that
# names their address joins only with the token mode and the token (their error reads as no cluster)
AUTH_HINT = (
    " Something answers there: where that cluster uses token authentication (`ray start` printed "
    '"Token authentication is enabled"), set RAY_AUTH_MODE=token here, with the head\'s token in '
    "~/.ray/auth_token (copy it from the head) or in RAY_AUTH_TOKEN."
)


def check_cluster_resources(
    ray: Any, num_workers: int, num_cpus_per_worker: float, num_gpus_per_worker: float, address: Optional[str] = None
) -> None:
    """E504 if the actor pool can never be placed on this Ray (Ray would wait for it
    forever); on a cluster joined at ``address``, whose autoscaler may add nodes, W080
    where not one worker fits now (where some fit, Ray Data starts those)."""
    resources = ray.cluster_resources()
    nodes = [node.get("Resources", {}) for node in ray.nodes() if node.get("Alive")] if address is not None else []
    for resource, per_worker in (("CPU", num_cpus_per_worker), ("GPU", num_gpus_per_worker)):
        have = resources.get(resource, 0.0)
        largest = max((node.get(resource, 0.0) for node in nodes), default=0.0)  # a worker runs on one node
        if address is not None and per_worker > largest:
            shown = Warnings.W080.format(
                address=address,
                have=f"{have:g}",
                resource=resource,
                per_worker=f"{per_worker:g}",
                largest=f"{largest:g}",
            )
            warnings.warn(shown, stacklevel=2)
        if address is None:
            check_enough(have, resource, num_workers, per_worker)


def check_enough(
    have: float, resource: str, num_workers: int, per_worker: float, where: str = "The Ray cluster"
) -> None:
    """E504 where ``num_workers`` workers with ``per_worker`` of ``resource`` each need more than ``have``."""
    need = num_workers * per_worker
    if need > have:
        each = _amount(per_worker, resource)
        demand = f"1 worker with {each} needs" if num_workers == 1 else f"{num_workers} workers with {each} each need"
        advice = f"fewer {resource}s per worker" + ("" if num_workers == 1 else " or fewer workers")
        if resource == "GPU" and have == 0:
            advice = "--gpus-per-worker 0 (workers on CPUs)"
        have_shown = _amount(have, resource)
        raise CtxvecError(Errors.E504.format(where=where, have=have_shown, demand=f"{demand} {need:g}", advice=advice))


def _amount(value: float, resource: str) -> str:
    """ "1 GPU", "0 GPUs", "1.5 CPUs": a resource count as a message shows it."""
    return f"{value:g} {resource}" + ("" if value == 1 else "s")


# Where Ray Data logs an error raised in a read task or actor, with its whole traceback, as a bug of its own
RAY_DATA_ERROR_LOGGERS = ("ray.data.exceptions", "ray.data._internal.execution.streaming_executor_state")


class CodedErrorsLeftOut(logging.Filter):
    """Leaves out Ray Data's log records of a coded error (bad input: the command says it in one line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        raised = record.exc_info[1] if record.exc_info else sys.exc_info()[1]  # logged inside its except block
        return raised is None or coded_error(raised) is None


@contextmanager
def coded_errors_unlogged() -> Iterator[None]:
    """Ray Data's tracebacks (and its advice to report a Ray bug) left out for coded errors
    while the block runs; any other error is logged as Ray logs it."""
    left_out = CodedErrorsLeftOut()
    loggers = [logging.getLogger(name) for name in RAY_DATA_ERROR_LOGGERS]
    for logger in loggers:
        logger.addFilter(left_out)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(left_out)


@contextmanager
def data_context_settings(ray: Any, **settings: Any) -> Iterator[None]:
    """Ray Data's current DataContext with ``settings`` for the datasets made inside,
    restored afterwards (datasets copy the context when they are created)."""
    context = ray.data.DataContext.get_current()
    before = {name: getattr(context, name) for name in settings}
    for name, value in settings.items():
        setattr(context, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(context, name, value)


class NodeLossWatch:
    """Notices nodes that leave the cluster during a build; E520 once the nodes left are
    too small for the actor pool and no shard has finished for ``grace_s`` seconds (None:
    NODE_LOSS_GRACE_S).

    ``ray`` needs only ``nodes()``, Ray's list of node dicts. Call ``saw_progress`` for
    every finished shard and ``check`` periodically.
    """

    def __init__(
        self,
        ray: Any,
        num_workers: int,
        num_cpus_per_worker: float,
        num_gpus_per_worker: float,
        grace_s: Optional[float] = None,
    ) -> None:
        self.ray = ray
        self.grace_s = grace_s
        self.num_workers = num_workers
        self.per_worker = {"CPU": num_cpus_per_worker, "GPU": num_gpus_per_worker}
        self.start_nodes = {node["NodeID"]: node.get("NodeManagerAddress", "?") for node in self._alive()}
        self.short_since: Optional[float] = None
        self.last_progress = time.monotonic()

    def saw_progress(self) -> None:
        """A shard finished: the build is moving, whatever the cluster looks like."""
        self.last_progress = time.monotonic()

    def _alive(self) -> List[Dict[str, Any]]:
        return [node for node in self.ray.nodes() if node.get("Alive")]

    def check(self) -> None:
        alive = self._alive()
        lost = sorted(set(self.start_nodes) - {node["NodeID"] for node in alive})
        shortfall = None
        if lost:
            for resource, per_worker in self.per_worker.items():
                need = self.num_workers * per_worker
                have = sum(float(node.get("Resources", {}).get(resource, 0.0)) for node in alive)
                if need > have:
                    shortfall = (resource, per_worker, need, have)
                    break
        if shortfall is None:
            self.short_since = None
            return
        now = time.monotonic()
        self.short_since = self.short_since if self.short_since is not None else now
        grace_s = NODE_LOSS_GRACE_S if self.grace_s is None else self.grace_s
        if now - max(self.short_since, self.last_progress) < grace_s:
            return
        resource, per_worker, need, have = shortfall
        nodes = ", ".join(f"{node_id[:12]} ({self.start_nodes[node_id]})" for node_id in lost)
        fit = int(have // per_worker)
        raise CtxvecError(
            Errors.E520.format(
                nodes=nodes,
                n_left=len(alive),
                have=f"{have:g}",
                resource=resource,
                workers=count_of(self.num_workers, "worker"),
                per_worker=f"{per_worker:g}",
                need=f"{need:g}",
                seconds=grace_s,
                or_fewer=f", or with --num-workers {fit}" if fit >= 1 else "",
            )
        )


def running_executors() -> set:
    """Ray Data's streaming executors running in this process (each is a thread)."""
    try:
        from ray.data._internal.execution.streaming_executor import StreamingExecutor
    except ImportError:  # another Ray Data layout: nothing to stop
        return set()
    return {thread for thread in threading.enumerate() if isinstance(thread, StreamingExecutor)}


def stop_executors(executors: set) -> None:
    """Stop the given executors before Ray is shut down: a stopped build must not keep
    scheduling (an executor that outlives ray.shutdown would start a local Ray)."""
    for executor in executors:
        try:
            executor.shutdown(force=True)
        except Exception:  # best effort: the build has already failed
            pass
