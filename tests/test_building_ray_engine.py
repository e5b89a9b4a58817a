"""The Ray engine against the local engine, on a 2-CPU local Ray cluster with the tiny
random BERT pipeline saved to disk: equal lexicons, a worker killed mid-run retried
without double counting, unreadable corpus files named, nothing left running."""

import json
import os
import signal
import socket
import sys
import time
import warnings
from pathlib import Path
from typing import List, Set

import numpy as np
import pytest

from spacy_ctxvec.building import ray_cluster, ray_engine
from spacy_ctxvec.building.corpus import corpus_files
from spacy_ctxvec.building.engines import get_engine
from spacy_ctxvec.building.local import build_lexicon_local
from spacy_ctxvec.building.ray_cluster import NodeLossWatch, local_cpus
from spacy_ctxvec.building.ray_engine import (
    MERGE_GROUP,
    build_lexicon_ray,
    merge_partials,
    merge_watching,
    resolve_corpus_files,
)
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon, merge_all
from spacy_ctxvec.pipelines import load_pipeline

from .conftest import TINY_SENTENCES

pytestmark = pytest.mark.slow

SENTENCES = TINY_SENTENCES
SHARD_SIZE = 20
CRASH_LINE = 70  # a.txt line that kills its worker the first time a worker sees it


def write_corpus(directory: Path) -> Path:
    """A .txt (with blank and whitespace-only lines) and a .jsonl ("text" and "words" rows)."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f"{SENTENCES[i % len(SENTENCES)]} {'and the bank' * (i % 3)}".strip() for i in range(120)]
    lines[10], lines[11] = "", "   "
    (directory / "a.txt").write_text("\n".join(lines) + "\n", encoding="utf8")
    rows = [
        {"text": SENTENCES[i % len(SENTENCES)]}
        if i % 3
        else {"words": SENTENCES[i % len(SENTENCES)].split(), "spaces": None}
        for i in range(45)
    ]
    (directory / "b.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf8")
    return directory


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def local_result(tiny_pipeline_dir, corpus_dir):
    import spacy

    return build_lexicon_local(spacy.load(tiny_pipeline_dir), corpus_dir, shard_size=50, progress=False)


def ray_processes(parent: int) -> Set[int]:
    """Live (not zombie) processes started by ``parent`` whose command line mentions ray."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == parent and state != "Z" and "ray" in cmdline:
            found.add(int(entry.name))
    return found


def ray_processes_after_exit(parent: int, wait_s: float = 30.0) -> Set[int]:
    """ray_processes, polled until they are gone or ``wait_s`` passed (shutdown signals
    its processes and returns before they have all exited)."""
    deadline = time.monotonic() + wait_s
    while (alive := ray_processes(parent)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


def build_on_ray(tiny_pipeline_dir: Path, corpus, **settings):
    """build_lexicon_ray of the tiny pipeline with 2 workers, SHARD_SIZE documents a
    shard and no progress bar, unless ``settings`` say otherwise."""
    settings = {"num_workers": 2, "shard_size": SHARD_SIZE, "progress": False, **settings}
    return build_lexicon_ray(load_pipeline(tiny_pipeline_dir), corpus, **settings)


def assert_same_lexicon(a, b) -> None:
    assert a.keys == b.keys
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_allclose(a.unit_vector_sums(), b.unit_vector_sums(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(a.raw_vector_sums(), b.raw_vector_sums(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(a.self_similarity().filled(0.0), b.self_similarity().filled(0.0), atol=1e-9)


def test_ray_reads_the_local_engines_files_subfolders_included(tmp_path):
    """The driver gives Ray the files the local reader reads, in its order: subfolders
    too, a binary file left out under on_error="skip" (named in W021) and E234 otherwise."""
    for name in ("b.txt", "a/z.txt", "a.txt", ".hidden/h.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("a doc\n", encoding="utf8")
    (tmp_path / "a" / "x.txt").write_bytes(b"ELF\x00\x00\nstrings\n")
    with pytest.warns(UserWarning, match=r"W021.*: a/x\.txt\."):
        files = resolve_corpus_files(tmp_path, on_error="skip")
    assert files == [(str(f.resolve()), str(f)) for f in corpus_files(tmp_path, on_error="skip")]
    assert [Path(f).relative_to(tmp_path.resolve()).as_posix() for f, _ in files] == ["a/z.txt", "a.txt", "b.txt"]
    with pytest.raises(CtxvecError, match=r"E234.*a/x\.txt"):
        resolve_corpus_files(tmp_path)
    # A build passes on the listing its request check made: read as given, not listed again.
    listed = corpus_files(tmp_path, on_error="skip")[1:]
    assert [read for read, _ in resolve_corpus_files(tmp_path, listed=listed)] == [str(f.resolve()) for f in listed]
    (tmp_path / "b_again.txt").symlink_to(tmp_path / "b.txt")  # read twice, as the local engine reads it
    read = [Path(read).name for read, _ in resolve_corpus_files(tmp_path, on_error="skip")]
    assert read == ["z.txt", "a.txt", "b.txt", "b.txt"]


def test_ray_engine_is_registered():
    assert get_engine("ray") is build_lexicon_ray


def test_merge_partials_in_groups_equals_merging_all():
    rng = np.random.default_rng(0)
    words = np.array(["bank", "river", "loan", "pen", "apple", "the"])
    parts = [
        Lexicon.from_occurrences(words[rng.integers(0, len(words), 30)], rng.normal(size=(30, 8)))
        for _ in range(2 * MERGE_GROUP + 3)
    ]
    rows = [
        {
            "lexicon": part.to_bytes(),
            "n_docs": 3,
            "skipped": json.dumps([["f.jsonl", 40 - i, "why"]] if i % 10 == 0 else []),
        }
        for i, part in enumerate(parts)
    ]
    lexicon, n_docs, skipped = merge_partials(rows)
    assert lexicon == merge_all(parts)  # bitwise: grouping does not change the sums
    assert n_docs == 3 * len(parts)
    assert skipped == [("f.jsonl", 10, "why"), ("f.jsonl", 20, "why"), ("f.jsonl", 30, "why"), ("f.jsonl", 40, "why")]
    assert skipped[0].reason == "why"  # SkippedLine, as the local engine reports them


def test_progress_shows_no_token_rate_from_partials_that_arrive_together(capsys):
    """Two actors finishing together gave tokens_per_s=87,320 for 2,026 tokens in 21 s: the
    rate was measured over the milliseconds between their partials."""
    part = Lexicon.from_occurrences(np.array(["bank", "river"] * 50), np.ones((100, 4)))
    rows = [{"lexicon": part.to_bytes(), "n_docs": 5, "skipped": "[]"} for _ in range(3)]
    lexicon, n_docs, _ = merge_partials(rows, progress=True)
    shown = capsys.readouterr().err
    assert n_docs == 15 and lexicon is not None and lexicon.n_occurrences == 300
    assert "15doc" in shown and "tokens_per_s" not in shown, shown


class ClusterState:
    """What NodeLossWatch reads from Ray: ``nodes()``, a list of node dicts, set by the test."""

    def __init__(self, cpus_per_node: List[float]) -> None:
        self.node_list = [
            {
                "NodeID": f"node{i:02d}" + "0" * 20,
                "NodeManagerAddress": f"10.0.0.{i}",
                "Alive": True,
                "Resources": {"CPU": cpus},
            }
            for i, cpus in enumerate(cpus_per_node)
        ]

    def nodes(self) -> List[dict]:
        return self.node_list

    def lose(self, index: int) -> None:
        self.node_list[index] = {**self.node_list[index], "Alive": False}


def test_node_loss_is_an_error_only_when_the_pool_is_short_and_nothing_moves(monkeypatch):
    monkeypatch.setattr(ray_cluster, "NODE_LOSS_GRACE_S", 0.3)
    cluster = ClusterState([1.0, 1.0])
    watch = NodeLossWatch(cluster, num_workers=2, num_cpus_per_worker=1.0, num_gpus_per_worker=0.0)
    time.sleep(0.4)
    watch.check()  # nobody lost: a quiet build is not a node loss
    cluster.lose(1)
    watch.check()  # lost, and short of a CPU: the grace period starts now
    for _ in range(4):  # shards keep finishing on the node left: the build is moving
        time.sleep(0.15)
        watch.saw_progress()
        watch.check()
    time.sleep(0.4)
    with pytest.raises(CtxvecError, match=r"^\[CTX-E520\]") as caught:
        watch.check()
    message = str(caught.value)
    assert "node01" in message and "10.0.0.1" in message and "--num-workers 1" in message
    assert "left have 1 CPU: 2 workers with 1 CPU each need 2," in message and "has 2 CPU again" in message


def test_the_grace_period_is_a_setting_of_the_watch(monkeypatch):
    monkeypatch.setattr(ray_cluster, "NODE_LOSS_GRACE_S", 1000.0)
    cluster = ClusterState([1.0, 1.0])
    patient = NodeLossWatch(cluster, num_workers=2, num_cpus_per_worker=1.0, num_gpus_per_worker=0.0)
    brief = NodeLossWatch(cluster, num_workers=2, num_cpus_per_worker=1.0, num_gpus_per_worker=0.0, grace_s=0.1)
    cluster.lose(1)
    patient.check(), brief.check()
    time.sleep(0.2)
    patient.check()  # the module default (here 1000 s) has not run out
    with pytest.raises(CtxvecError, match=r"^\[CTX-E520\]"):
        brief.check()


def test_a_stopped_merge_lets_go_of_the_rows_before_the_error_goes_on(monkeypatch):
    """E520 from the watch: ``stop`` ends the row iterator and the merge thread has
    finished by the time merge_watching raises (the caller then shuts Ray down)."""
    import threading

    monkeypatch.setattr(ray_engine, "NODE_CHECK_S", 0.05)
    stopped = threading.Event()
    reading = []

    def rows():  # stands for Ray Data's iterator: blocks until the executor is stopped
        reading.append(threading.current_thread())
        stopped.wait(10)
        return
        yield

    class FailingWatch:
        def saw_progress(self) -> None:
            pass

        def check(self) -> None:
            raise CtxvecError("[CTX-E520] lost")

    with pytest.raises(CtxvecError, match="E520"):
        merge_watching(rows(), FailingWatch(), stop=stopped.set)
    assert stopped.is_set() and reading and not reading[0].is_alive()


def watch_past_grace_after_losing_node_1(monkeypatch, cpus_per_node: List[float]) -> NodeLossWatch:
    """A watch over a 2-worker pool (1 CPU each) whose node 1 was lost more than the
    grace period (0.1 s) ago, with no shard finished since."""
    monkeypatch.setattr(ray_cluster, "NODE_LOSS_GRACE_S", 0.1)
    cluster = ClusterState(cpus_per_node)
    watch = NodeLossWatch(cluster, num_workers=2, num_cpus_per_worker=1.0, num_gpus_per_worker=0.0)
    cluster.lose(1)
    watch.check()
    time.sleep(0.2)
    return watch


def test_node_loss_with_room_left_is_not_an_error(monkeypatch):
    watch = watch_past_grace_after_losing_node_1(monkeypatch, [2.0, 1.0])
    watch.check()  # the node left holds both actors: Ray restarts the lost one there


def test_node_loss_leaving_no_room_for_one_worker_names_no_smaller_pool(monkeypatch):
    watch = watch_past_grace_after_losing_node_1(monkeypatch, [0.0, 2.0])
    with pytest.raises(CtxvecError, match=r"^\[CTX-E520\]") as caught:
        watch.check()
    assert "--num-workers" not in str(caught.value)  # no pool size fits on 0 CPUs


def test_missing_ray_names_the_extra(tiny_pipeline_dir, corpus_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setitem(sys.modules, "ray.data", None)
    with pytest.raises(CtxvecError, match=r'\[CTX-E502\].*pip install "spacy-ctxvec\[ray\]"'):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), corpus_dir, progress=False)


@pytest.mark.parametrize(
    "setting,match",
    [
        ({"num_workers": 0}, r"\[CTX-E228\] num_workers"),
        ({"num_gpus_per_worker": -1}, r"\[CTX-E228\] num_gpus_per_worker"),
        ({"num_gpus_per_worker": float("nan")}, r"\[CTX-E228\] num_gpus_per_worker"),
        ({"num_cpus_per_worker": float("inf")}, r"\[CTX-E228\] num_cpus_per_worker"),
        ({"n_process": 2}, r"\[CTX-E505\].*--n-process"),
        ({"resume": True}, r"\[CTX-E505\].*--resume"),
        ({"max_docs": 5}, r"\[CTX-E505\].*--max-docs"),
        ({"node_loss_grace_s": 0}, r"\[CTX-E228\] node_loss_grace_s must be a number of seconds above 0, got 0"),
        ({"node_loss_grace_s": float("nan")}, r"\[CTX-E228\] node_loss_grace_s"),
    ],
)
def test_bad_settings_are_coded_errors(tiny_pipeline_dir, corpus_dir, setting, match):
    with pytest.raises(CtxvecError, match=match):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), corpus_dir, progress=False, **setting)


def test_missing_corpus_file_is_named_before_starting(tiny_pipeline_dir, corpus_dir, tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(CtxvecError, match=r"\[CTX-E210\].*missing\.txt"):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), [corpus_dir / "a.txt", missing], progress=False)


@pytest.mark.skipif(getattr(os, "geteuid", lambda: -1)() == 0, reason="root reads files whatever their permissions")
def test_unreadable_corpus_file_is_named_before_starting(tiny_pipeline_dir, corpus_dir, tmp_path):
    locked = tmp_path / "locked.txt"
    locked.write_text("the bank\n", encoding="utf8")
    locked.chmod(0)
    with pytest.raises(CtxvecError, match=r"\[CTX-E501\].*locked\.txt"):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), [corpus_dir / "a.txt", locked], progress=False)


def test_a_local_pool_larger_than_the_machine_is_refused_before_ray_starts(
    ray, tiny_pipeline_dir, corpus_dir, monkeypatch
):
    """A local Ray was sized to the pool: --num-workers 1000 started 1000 pipeline
    copies on 2 cores and hung. It gets this machine's CPUs, and a larger pool is E503."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert local_cpus(2, 1.0) == 2 and local_cpus(4, 0.5) == 2
    with pytest.raises(CtxvecError, match=r"\[CTX-E503\].*has 2 CPUs.*1000 workers.*--num-workers 2 or fewer"):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), corpus_dir, num_workers=1000, progress=False)
    assert not ray.is_initialized()
    with pytest.raises(
        CtxvecError, match=r"\[CTX-E503\].*has 2 CPUs, but 1 worker with 4 CPU each need 4\..*per_worker 2 or"
    ):
        local_cpus(1, 4.0)


def test_too_small_cluster_is_an_error_not_a_hang(ray_cluster, tiny_pipeline_dir, corpus_dir):
    with pytest.raises(
        CtxvecError,
        match=r"\[CTX-E504\] The Ray cluster has 2 CPUs, but 3 workers with 1 CPU each need 3\. Use fewer CPUs per "
        r"worker or fewer workers",
    ):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), corpus_dir, num_workers=3, progress=False)


def test_a_joined_cluster_where_no_worker_fits_warns_at_once(ray_cluster):
    """On a cluster (--address), GPU workers on nodes without GPUs waited in silence until the
    no-progress limit (30 minutes); an autoscaler may still add nodes, so it is a warning."""
    from spacy_ctxvec.building.ray_cluster import check_cluster_resources

    with pytest.warns(
        UserWarning, match=r"\[CTX-W080\] The Ray cluster at HEAD:6379 has 0 GPU now, at most 0 on one node.*needs 1 on"
    ):
        check_cluster_resources(ray_cluster, 16, 1.0, 1.0, address="HEAD:6379")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 3 CPU workers on 2 CPUs: Ray Data starts the two that fit
        check_cluster_resources(ray_cluster, 3, 1.0, 0.0, address="HEAD:6379")
    with pytest.raises(
        CtxvecError,
        match=r"\[CTX-E504\] The Ray cluster has 0 GPUs, but 1 worker with 1 GPU needs 1\. Use --gpus-per-worker 0 ",
    ):  # this process's own Ray: nothing joins
        check_cluster_resources(ray_cluster, 1, 1.0, 1.0)


def test_an_address_beside_an_initialised_ray_or_a_pipeline_path_is_a_coded_error(
    ray_cluster, tiny_pipeline_dir, corpus_dir
):
    """With Ray initialised, an address was ignored and the build ran on the local Ray; a
    pipeline path (which the docstring offered) was an AttributeError once Ray had started."""
    nlp = load_pipeline(tiny_pipeline_dir)
    with pytest.raises(CtxvecError, match=r"\[CTX-E507\].*address '127\.0\.0\.1:1' is not joined.*ray\.shutdown\(\)"):
        build_lexicon_ray(nlp, corpus_dir, address="127.0.0.1:1", progress=False)
    running = ray_cluster.get_runtime_context().gcs_address  # the same cluster, named: no error
    result = build_lexicon_ray(nlp, corpus_dir, address=running, progress=False, shard_size=200)
    assert result.n_docs == 118 + 45
    from spacy_ctxvec.building.ray_cluster import check_same_ray, same_place

    port = int(running.rsplit(":", 1)[1])  # named as the user named it in ray.init: the same cluster
    for alias in ("localhost", "127.0.0.1", socket.gethostname()):
        check_same_ray(ray_cluster, f"{alias}:{port}")
    assert same_place(("localhost", 6379), ("127.0.0.1", 6379)) and not same_place(("localhost", 1), ("localhost", 2))
    assert not same_place(("192.0.2.99", 6379), ("127.0.0.1", 6379))
    with pytest.raises(CtxvecError, match=r"\[CTX-E508\].*got str.*load_pipeline\(PATH\)"):
        build_lexicon_ray(str(tiny_pipeline_dir), corpus_dir, progress=False)


def test_ray_equals_local_with_two_workers(ray_cluster, tiny_pipeline_dir, corpus_dir, local_result):
    result = build_on_ray(tiny_pipeline_dir, corpus_dir)
    assert (result.n_docs, result.n_tokens) == (local_result.n_docs, local_result.n_tokens)
    assert result.n_docs == 118 + 45  # two blank lines skipped
    assert_same_lexicon(result.lexicon, local_result.lexicon)
    assert result.lexicon.meta == local_result.lexicon.meta


def test_ray_sample_equals_local_sample(ray_cluster, tiny_pipeline_dir, corpus_dir):
    """The occurrence sample (issue 11): the same rows chosen as by the local engine with
    other shards; vectors equal up to float noise between processes."""
    import spacy

    local = build_lexicon_local(
        spacy.load(tiny_pipeline_dir), corpus_dir, shard_size=50, progress=False, sample_size=3
    ).lexicon
    result = build_on_ray(tiny_pipeline_dir, corpus_dir, sample_size=3)
    a, b = result.lexicon.sample, local.sample
    assert a is not None and a.n_rows > 0 and set(a.keys) == set(local.keys)
    assert (a.k, a.keys, a.snippets) == (b.k, b.keys, b.snippets)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.priorities, b.priorities)
    np.testing.assert_allclose(a.vectors.astype(np.float32), b.vectors.astype(np.float32), atol=2e-3, rtol=2e-3)
    assert a.has_contexts and b.has_contexts  # each row's context vector travels with it through the actors
    np.testing.assert_allclose(a.contexts.astype(np.float32), b.contexts.astype(np.float32), atol=2e-3, rtol=2e-3)
    plain = build_on_ray(tiny_pipeline_dir, corpus_dir, sample_size=3, sample_contexts=False).lexicon.sample
    assert not plain.has_contexts and (plain.keys, plain.snippets) == (a.keys, a.snippets)


def crash_worker_class(marker: Path, init_log: Path):
    """A PartialLexiconWorker that logs every start and kills its process (os._exit)
    on the batch holding a.txt line CRASH_LINE, the first time any worker sees it."""
    from spacy_ctxvec.building.ray_workers import PartialLexiconWorker, shard_entries

    class CrashOnceWorker(PartialLexiconWorker):
        def __init__(self, *args, **kwargs):
            with init_log.open("a", encoding="utf8") as handle:
                handle.write(f"{os.getpid()}\n")
            super().__init__(*args, **kwargs)

        def __call__(self, batch):
            hit = any(path.endswith("a.txt") and line == CRASH_LINE for _, _, path, line in shard_entries(batch))
            if hit and not marker.exists():
                marker.write_text(str(os.getpid()), encoding="utf8")
                os._exit(1)
            return super().__call__(batch)

    return CrashOnceWorker


def test_killed_worker_is_retried_without_double_counting(
    ray_cluster, tiny_pipeline_dir, corpus_dir, local_result, tmp_path
):
    ray_cluster.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker, init_log = tmp_path / "crashed", tmp_path / "inits"
    worker_class = crash_worker_class(marker, init_log)
    result = build_on_ray(tiny_pipeline_dir, corpus_dir, worker_class=worker_class)
    assert marker.exists(), "the marked batch never killed a worker"
    assert len(init_log.read_text(encoding="utf8").split()) >= 3  # two workers + the restarted one
    assert (result.n_docs, result.n_tokens) == (local_result.n_docs, local_result.n_tokens)
    assert_same_lexicon(result.lexicon, local_result.lexicon)


def pool_spread_worker_class(started: Path, calls: Path):
    """A PartialLexiconWorker that writes its pid to ``started`` when created and, on
    every call, waits (up to 120 s) until two actors exist, then logs its pid to ``calls``."""
    from spacy_ctxvec.building.ray_workers import PartialLexiconWorker

    class SpreadWorker(PartialLexiconWorker):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            (started / str(os.getpid())).touch()

        def __call__(self, batch):
            deadline = time.monotonic() + 120
            while len(list(started.iterdir())) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            with calls.open("a", encoding="utf8") as handle:
                handle.write(f"{os.getpid()}\n")
            return super().__call__(batch)

    return SpreadWorker


def test_one_file_is_shared_by_the_actor_pool(ray_cluster, tiny_pipeline_dir, corpus_dir, local_result, tmp_path):
    """One corpus file of 6 shards: each shard is its own task, so both actors get work
    (Ray Data used to pack a file into one block, and one actor took every shard)."""
    ray_cluster.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    started, calls = tmp_path / "started", tmp_path / "calls"
    started.mkdir()
    result = build_on_ray(
        tiny_pipeline_dir, corpus_dir / "a.txt", worker_class=pool_spread_worker_class(started, calls)
    )
    pids = calls.read_text(encoding="utf8").split()
    assert len(pids) == 6  # 118 documents in shards of 20
    assert len(set(pids)) == 2
    assert result.n_docs == 118


def stalling_worker_class(seconds: float):
    from spacy_ctxvec.building.ray_workers import PartialLexiconWorker

    class StallingWorker(PartialLexiconWorker):
        def __call__(self, batch):
            time.sleep(seconds)
            return super().__call__(batch)

    return StallingWorker


def test_a_stalled_build_is_a_coded_error(ray_cluster, tiny_pipeline_dir, corpus_dir, monkeypatch):
    """Ray Data's own no-progress timeout (shortened to 5 s) ends the build with E523."""
    ray_cluster.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    monkeypatch.setattr(ray_cluster.data.DataContext.get_current(), "execution_no_progress_timeout_s", 5)
    with pytest.raises(CtxvecError, match=r"\[CTX-E523\] Ray Data made no progress for 5 s"):
        build_on_ray(tiny_pipeline_dir, corpus_dir / "a.txt", num_workers=1, worker_class=stalling_worker_class(60.0))


def test_undecodable_file_and_bad_line_are_named_from_ray(ray_cluster, tiny_pipeline_dir, corpus_dir, tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_bytes(b"the bank of the river\n\xff\xfe not utf-8\n")
    with pytest.raises(CtxvecError, match=r"\[CTX-E240\].*broken\.txt, line 2"):
        build_lexicon_ray(
            load_pipeline(tiny_pipeline_dir), [corpus_dir / "a.txt", broken], num_workers=2, progress=False
        )
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"text": "the bank"}\n{"text": 3}\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E213\].*rows\.jsonl, line 2"):
        build_lexicon_ray(load_pipeline(tiny_pipeline_dir), [corpus_dir / "a.txt", rows], num_workers=2, progress=False)


def test_a_bad_line_read_by_ray_is_one_coded_line_naming_the_file_as_given(
    ray_cluster, tiny_pipeline_dir, tmp_path, monkeypatch, capfd
):
    """Ray Data logged the coded error three times with its traceback, as a bug to report to
    Ray, and the message named the file by its resolved path, unlike the local engine."""
    monkeypatch.chdir(tmp_path)
    Path("rows.jsonl").write_text('{"text": "the bank"}\n{"text": broken\n', encoding="utf8")
    nlp = load_pipeline(tiny_pipeline_dir)
    with pytest.raises(CtxvecError, match=r"^\[CTX-E212\] rows\.jsonl, line 2: not valid JSON"):
        build_lexicon_ray(nlp, "rows.jsonl", num_workers=1, progress=False)
    printed = capfd.readouterr().err
    assert "Traceback" not in printed and "open an issue on the Ray project" not in printed, printed[-3000:]


def test_nothing_left_running_after_shutdown(ray_cluster):
    started: List[int] = sorted(ray_processes(os.getpid()))
    assert started, "the module's Ray cluster should have processes while it runs"
    ray_cluster.shutdown()
    assert not ray_processes_after_exit(os.getpid())


def test_cli_engine_ray_starts_and_stops_its_own_cluster(
    ray, tiny_pipeline_dir, corpus_dir, local_result, tmp_path, monkeypatch
):
    """After the module cluster is gone: --engine ray starts a local cluster, saves the
    same lexicon as the local engine, and leaves no Ray process behind."""
    import spacy
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert not ray.is_initialized()
    output = tmp_path / "with_lexicon"
    args = [
        "build-lexicon",
        str(tiny_pipeline_dir),
        str(corpus_dir),
        str(output),
        "--engine",
        "ray",
        "--num-workers",
        "1",
        "--checkpoint-every",
        str(SHARD_SIZE),
        "--no-progress",
        "--keep-layer",
    ]
    outcome = CliRunner().invoke(app, args)
    assert outcome.exit_code == 0, outcome.output
    assert not ray.is_initialized()
    assert not ray_processes_after_exit(os.getpid())
    component = spacy.load(output).get_pipe("ctxvec_polysemy")
    assert_same_lexicon(component.lexicon, local_result.lexicon)


def test_starting_ray_keeps_the_sigterm_handler_the_build_set(ray, monkeypatch):
    """ray.init sets SIGTERM to exit at once; build-lexicon's handler (a stop like Ctrl-C that
    prints the resume command) is put back for the build, and stays after it, also where Ray
    cannot start."""
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert not ray.is_initialized()  # ray_session starts Ray here: the case where Ray replaces the handler

    def builds_handler(signum, frame):
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, builds_handler)
    try:
        with ray_cluster.ray_session(None, 1, 1.0):
            assert ray.is_initialized() and signal.getsignal(signal.SIGTERM) is builds_handler
        assert signal.getsignal(signal.SIGTERM) is builds_handler

        def init_fails(*args, **kwargs):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # as Ray does, before it fails to connect
            raise ConnectionError("no Ray there")

        monkeypatch.setattr(ray, "init", init_fails)
        with pytest.raises(ConnectionError), ray_cluster.ray_session(None, 1, 1.0):
            pass
        assert signal.getsignal(signal.SIGTERM) is builds_handler
    finally:
        signal.signal(signal.SIGTERM, before)
