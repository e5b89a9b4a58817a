"""The Ray engine against a cluster of two Ray nodes on this machine, joined by address:
`ray start --head --num-cpus 1` plus `ray start --address HEAD --num-cpus 1 --resources
'{"ctxvec_node_b": 1}'`, each node with its own temp dir, every process on a loopback
address (127.0.0.2).

- `build-lexicon --engine ray --address HEAD --num-workers 2` (one actor per node) saves a
  lexicon whose arrays (keys, counts, fixed-point sums) are bitwise equal to the local
  engine's.
- A node stopped mid-build (its raylet, agents and workers killed by PID while its actor
  holds a shard): the node left finishes its shards, Ray Data releases its idle actor,
  the lost actor restarts there and reruns the lost shard, and the lexicon equals the
  local engine's bit for bit (nothing counted twice, nothing lost).
- The same loss while the node left is stuck too: no shard finishes, so the build stops
  with E520 naming the lost node and what to rerun, instead of waiting forever; that
  rerun gives the local engine's lexicon bit for bit.

The cluster is torn down by PID (every process whose command line names one of the two
temp dirs, and their children), never with a machine-wide `ray stop`, which would also
stop other Ray clusters on this machine.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set

import numpy as np
import pytest

from spacy_ctxvec.building.local import build_lexicon_local
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.pipelines import load_pipeline

from .conftest import TINY_SENTENCES

pytestmark = pytest.mark.slow

NODE_B_RESOURCE = "ctxvec_node_b"
LOOPBACK = "127.0.0.2"
SHARD_SIZE = 20
BATCH_SIZE = 8
SENTENCES = [*TINY_SENTENCES, "the hotel is on the river"]
# Every process of the cluster: no usage stats, no token authentication, quick detection
# of a dead node.
CLUSTER_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def processes_naming(text: str) -> Set[int]:
    """Live processes whose command line contains ``text``, and their children."""
    found: Set[int] = set()
    parents: Dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue
        if state == "Z":
            continue
        parents[int(entry.name)] = int(ppid)
        if text in cmdline:
            found.add(int(entry.name))
    grown = True
    while grown:
        children = {pid for pid, ppid in parents.items() if ppid in found} - found
        found |= children
        grown = bool(children)
    return found


def kill_all(pids: Set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class TwoNodeCluster:
    """A head node and one worker node started with the `ray` CLI, 1 CPU each."""

    def __init__(self) -> None:
        self.port = free_port()
        self.address = f"{LOOPBACK}:{self.port}"
        # Short paths: Ray's unix socket paths must stay under 108 characters.
        self.head_dir = tempfile.mkdtemp(prefix="ctxh", dir="/tmp")
        self.node_dir = tempfile.mkdtemp(prefix="ctxn", dir="/tmp")
        self.env = {**os.environ, **CLUSTER_ENV}

    def _ray_start(self, *args: str, env: Optional[Dict[str, str]] = None) -> None:
        result = subprocess.run(
            ["ray", "start", "--disable-usage-stats", *args],
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]

    def start(self) -> "TwoNodeCluster":
        # Loopback only, on 127.0.0.2: Ray replaces "127.0.0.1" and "localhost" by the
        # machine's outward address, but takes any other address as given.
        self._ray_start(
            "--head",
            "--num-cpus",
            "1",
            "--port",
            str(self.port),
            "--node-ip-address",
            LOOPBACK,
            "--temp-dir",
            self.head_dir,
            "--include-dashboard",
            "false",
        )
        self._ray_start(
            "--address",
            self.address,
            "--num-cpus",
            "1",
            "--node-ip-address",
            LOOPBACK,
            "--resources",
            json.dumps({NODE_B_RESOURCE: 1}),
            "--temp-dir",
            self.node_dir,
        )
        return self

    def node_b_processes(self) -> Set[int]:
        return processes_naming(self.node_dir)

    def stop_node_b(self) -> Set[int]:
        """Kill the worker node: its raylet, agents and workers, by PID."""
        pids = self.node_b_processes()
        kill_all(pids)
        return pids

    def stop(self) -> None:
        """Kill every process of both nodes by PID, then remove their temp dirs."""
        # Under load a dying raylet can still fork a worker after the last look, so keep
        # killing until a look finds nothing (bounded: the fixture asserts after this).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pids = processes_naming(self.head_dir) | processes_naming(self.node_dir)
            if not pids:
                break
            kill_all(pids)
            time.sleep(0.5)
        for directory in (self.head_dir, self.node_dir):
            shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def cluster(ray, monkeypatch) -> Iterator[TwoNodeCluster]:
    """A fresh two-node cluster per test (one test stops a node), torn down by PID."""
    for name, value in CLUSTER_ENV.items():
        monkeypatch.setenv(name, value)
    two_nodes = TwoNodeCluster()
    try:
        yield two_nodes.start()
    finally:
        if ray.is_initialized():
            ray.shutdown()
        two_nodes.stop()
    assert not processes_naming(two_nodes.head_dir) and not processes_naming(two_nodes.node_dir)


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory) -> Path:
    """One .txt file of 200 documents: 10 shards of SHARD_SIZE."""
    path = tmp_path_factory.mktemp("cluster_corpus") / "corpus.txt"
    lines = [f"{SENTENCES[i % len(SENTENCES)]} {'and the bank ' * (i % 4)}".strip() for i in range(200)]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return path


@pytest.fixture(scope="module")
def local_result(tiny_pipeline_dir, corpus_file):
    import spacy

    return build_lexicon_local(
        spacy.load(tiny_pipeline_dir), corpus_file, shard_size=SHARD_SIZE, batch_size=BATCH_SIZE, progress=False
    )


def assert_bitwise_equal(a: Lexicon, b: Lexicon) -> None:
    """Same keys, and the same integers in every count and fixed-point sum."""
    assert list(a.keys) == list(b.keys)
    for name in ("counts", "unit_sums", "raw_sums"):
        first, second = getattr(a, name), getattr(b, name)
        assert first.dtype == second.dtype == np.int64, name
        np.testing.assert_array_equal(first, second, err_msg=name)


def test_cli_address_of_a_two_node_cluster_equals_local_engine(
    ray, cluster, tiny_pipeline_dir, corpus_file, local_result, tmp_path
):
    """`build-lexicon --engine ray --address HEAD --num-workers 2`: one actor on each node
    (1 CPU each), the saved lexicon bitwise equal to the local engine's."""
    import spacy
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    output = tmp_path / "with_lexicon"
    args = [
        "build-lexicon",
        str(tiny_pipeline_dir),
        str(corpus_file),
        str(output),
        "--engine",
        "ray",
        "--address",
        cluster.address,
        "--num-workers",
        "2",
        "--checkpoint-every",
        str(SHARD_SIZE),
        "--batch-size",
        str(BATCH_SIZE),
        "--no-progress",
        "--keep-layer",
    ]
    outcome = CliRunner().invoke(app, args)
    assert outcome.exit_code == 0, outcome.output
    assert not ray.is_initialized()  # the driver left the cluster; the cluster stays up
    assert cluster.node_b_processes()
    lexicon = spacy.load(output).get_pipe("ctxvec_polysemy").lexicon
    assert lexicon.n_occurrences == local_result.n_tokens
    assert_bitwise_equal(lexicon, local_result.lexicon)
    nodes = ray_nodes(cluster.address)
    assert len(nodes) == 2 and {node["NodeManagerAddress"] for node in nodes} == {LOOPBACK}


def ray_nodes(address: str) -> List[dict]:
    import ray

    ray.init(address=address)
    try:
        return [node for node in ray.nodes() if node["Alive"]]
    finally:
        ray.shutdown()


def stall_on_node_worker_class(node_b_id: str, holding: Path, stuck_elsewhere: bool = False):
    """A PartialLexiconWorker whose actor on node b holds its first shard until the node
    is stopped (writing ``holding`` when it starts to hold it), and whose actors on other
    nodes wait for that moment before they start, so that node b surely has work when it
    is stopped. With ``stuck_elsewhere`` the other actors then hold their shard too."""
    from spacy_ctxvec.building.ray_workers import PartialLexiconWorker

    class StallOnNodeB(PartialLexiconWorker):
        def __call__(self, batch):
            import ray as ray_in_actor

            if ray_in_actor.get_runtime_context().get_node_id() == node_b_id:
                holding.write_text(str(os.getpid()), encoding="utf8")
                time.sleep(600)  # killed with its node long before
            deadline = time.monotonic() + 300
            while not holding.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            if stuck_elsewhere:
                time.sleep(600)  # killed with the build's job long before
            return super().__call__(batch)

    return StallOnNodeB


def build_on_cluster(cluster: TwoNodeCluster, tiny_pipeline_dir: Path, corpus_file: Path, num_workers: int, **settings):
    """build_lexicon_ray of the tiny pipeline on ``cluster`` with ``num_workers``, in
    SHARD_SIZE-document shards and BATCH_SIZE batches, no progress bar."""
    from spacy_ctxvec.building import ray_engine

    return ray_engine.build_lexicon_ray(
        load_pipeline(tiny_pipeline_dir),
        corpus_file,
        address=cluster.address,
        num_workers=num_workers,
        shard_size=SHARD_SIZE,
        batch_size=BATCH_SIZE,
        progress=False,
        **settings,
    )


def build_losing_node_b(
    cluster: TwoNodeCluster, tiny_pipeline_dir: Path, corpus_file: Path, holding: Path, stuck_elsewhere: bool
) -> Dict[str, object]:
    """Run a 2-worker build in which node b is stopped while its actor holds a shard.
    Returns what happened: "result" or "error", "stopped_pids", and "seconds" from the
    stop to the end of the build."""
    import ray

    node_b_id = next(node["NodeID"] for node in ray_nodes(cluster.address) if NODE_B_RESOURCE in node["Resources"])
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    outcome: Dict[str, object] = {"node_b_id": node_b_id}

    def stop_node_b_when_it_holds_a_shard() -> None:
        deadline = time.monotonic() + 400
        while not holding.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        if holding.exists():
            outcome["stopped_pids"] = cluster.stop_node_b()
            outcome["stopped_at"] = time.monotonic()

    killer = threading.Thread(target=stop_node_b_when_it_holds_a_shard, daemon=True)
    killer.start()
    try:
        worker_class = stall_on_node_worker_class(node_b_id, holding, stuck_elsewhere)
        outcome["result"] = build_on_cluster(cluster, tiny_pipeline_dir, corpus_file, 2, worker_class=worker_class)
    except CtxvecError as err:
        outcome["error"] = err
    outcome["seconds"] = time.monotonic() - float(outcome.get("stopped_at", 0.0))
    killer.join(timeout=5)
    return outcome


def test_node_stopped_mid_build_the_node_left_finishes_and_counts_once(
    ray, cluster, tiny_pipeline_dir, corpus_file, local_result, tmp_path, monkeypatch
):
    """Node b is stopped (all its processes killed) while its actor holds a shard. The head
    (1 CPU) cannot hold a second actor, but once its own actor runs out of input Ray Data
    releases it and the lost actor restarts in its place, reruns the lost shard, and the
    lexicon is the local engine's bit for bit. The default grace period (60 s) is not
    reached: shards keep finishing."""
    # If the build ever stalls for another reason, fail in minutes, not after Ray's 30.
    monkeypatch.setattr(ray.data.DataContext.get_current(), "execution_no_progress_timeout_s", 600)
    outcome = build_losing_node_b(cluster, tiny_pipeline_dir, corpus_file, tmp_path / "holding", stuck_elsewhere=False)
    assert outcome.get("stopped_pids"), "node b never held a shard"
    assert not cluster.node_b_processes()
    assert "error" not in outcome, str(outcome.get("error"))
    result = outcome["result"]
    assert (result.n_docs, result.n_tokens) == (local_result.n_docs, local_result.n_tokens)
    assert_bitwise_equal(result.lexicon, local_result.lexicon)
    assert not ray.is_initialized()


def test_node_stopped_while_the_node_left_is_stuck_is_a_coded_error_and_the_rerun_counts_once(
    ray, cluster, tiny_pipeline_dir, corpus_file, local_result, tmp_path, monkeypatch
):
    """Node b is stopped while its actor holds a shard, and the head's actor holds its own
    shard and never finishes it. No shard finishes and the head cannot hold a second
    actor, so after the grace period the build stops with E520 instead of waiting
    forever, and says what to rerun; that rerun (--num-workers 1 on the node left) gives
    the local engine's lexicon bit for bit."""
    from spacy_ctxvec.building import ray_cluster

    monkeypatch.setattr(ray_cluster, "NODE_LOSS_GRACE_S", 10.0)
    monkeypatch.setattr(ray.data.DataContext.get_current(), "execution_no_progress_timeout_s", 600)
    outcome = build_losing_node_b(cluster, tiny_pipeline_dir, corpus_file, tmp_path / "holding", stuck_elsewhere=True)
    assert outcome.get("stopped_pids"), "node b never held a shard"
    assert not cluster.node_b_processes()
    assert "result" not in outcome, "the build finished although no actor could work"
    message = str(outcome["error"])
    assert message.startswith("[CTX-E520]"), message
    assert str(outcome["node_b_id"])[:12] in message and "Rerun the same build-lexicon command" in message
    assert "--num-workers 1" in message and "nothing was saved" in message
    assert float(outcome["seconds"]) < 10.0 + 60.0  # the grace period and a few checks, not forever
    time.sleep(5)  # the stopped build's Ray Data executor must not start a local Ray
    assert not ray.is_initialized()

    rerun = build_on_cluster(cluster, tiny_pipeline_dir, corpus_file, 1)
    assert (rerun.n_docs, rerun.n_tokens) == (local_result.n_docs, local_result.n_tokens)
    assert_bitwise_equal(rerun.lexicon, local_result.lexicon)
    assert not ray.is_initialized()
