"""The GPU scripts run end to end on CPU (--dry-run), so that a session lent a GPU for a
few minutes does not spend them on a broken script."""

import json
import os
import pstats
import subprocess
import sys

import pytest
import torch

from .conftest import REPO_ROOT

SENTENCES = [
    "The bank of the river was steep and green.",
    "She paid the money into the bank on Monday.",
    "A spring of clear water rose under the old stone bridge.",
    "In spring the children play in the fields by the mill.",
    "He could not bear to see the bear in its cage.",
    "The light of the lamp fell on the open book.",
]


def run_script(args, corpus_dir):
    env = {**os.environ, "CTXVEC_GUTENBERG_DIR": str(corpus_dir), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is visible: the check would run")
def test_gpu_check_without_a_gpu_stops_at_once_with_one_line(tmp_path):
    """It timed the CPU reference (minutes at 5,000 sentences), then failed with a traceback."""
    output = tmp_path / "GPU.md"
    check = run_script(["benchmarks/gpu_check.py", "--output", str(output)], tmp_path / "no-corpus-needed")
    assert check.returncode == 1 and "Traceback" not in check.stderr and not output.exists()
    assert (
        check.stderr.strip() == "No GPU visible (spaCy needs CuPy and CUDA): run on a GPU machine, or --dry-run on CPU."
    )
    profile = run_script(["benchmarks/gpu_profile.py", "--output-dir", str(tmp_path / "profile")], tmp_path / "none")
    assert profile.returncode == 1 and profile.stderr.strip() == check.stderr.strip()
    assert not (tmp_path / "profile").exists()  # gpu_profile made its folder, then raised a traceback


def test_gpu_check_and_gpu_profile_dry_runs_write_their_outputs(tmp_path, minilm_dir):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "book.txt").write_text("title line\n\n" + "\n\n".join(SENTENCES) + "\n", encoding="utf8")
    output = tmp_path / "GPU.md"
    output.write_text("# kept above\n\n<!-- gpu_check start -->\nold\n<!-- gpu_check end -->\n\nkept below\n")
    check = run_script(
        [
            "benchmarks/gpu_check.py",
            "--dry-run",
            "--sentences",
            "6",
            "--precision",
            "fp32",
            "--gpu-caps",
            "256",
            "--output",
            str(output),
        ],
        corpus,
    )
    assert check.returncode == 0, check.stderr[-3000:]
    text = output.read_text()
    assert text.startswith("# kept above") and text.rstrip().endswith("kept below") and "\nold\n" not in text
    assert "DRY RUN on CPU" in text and "| fp32 |" in text and "| pass |" in text and "| 256 |" in text
    profile = run_script(
        [
            "benchmarks/gpu_profile.py",
            "--dry-run",
            "--sentences",
            "6",
            "--precision",
            "fp32",
            "--output-dir",
            str(tmp_path / "profile"),
        ],
        corpus,
    )
    assert profile.returncode == 0, profile.stderr[-3000:]
    assert "ctxvec_context" in profile.stdout
    frozen = [line for line in profile.stdout.splitlines() if line.startswith("fp32 gc-frozen pass")]
    assert len(frozen) == 1 and '"gc_s": ' in frozen[0] and '"gc_full_collections": ' in frozen[0]
    assert "Ordered by: cumulative time" in (tmp_path / "profile" / "profile_fp32_cumulative.txt").read_text()
    profiled = pstats.Stats(str(tmp_path / "profile" / "profile_fp32.prof")).stats  # type: ignore[attr-defined]
    assert "batch_trf_data_rows" in {name for _, _, name in profiled}


def test_gpu_lexicon_dry_run_builds_twice_and_finds_the_lexicons_equal(tmp_path, minilm_dir):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES * 2) + "\n", encoding="utf8")
    done = run_script(
        ["benchmarks/gpu_lexicon.py", str(corpus), "--output-dir", str(tmp_path / "out"), "--dry-run"], tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = [line for line in done.stdout.splitlines() if line.startswith("build-lexicon ")][-1]
    result = json.loads(line.removeprefix("build-lexicon "))
    assert result["passed"] and result["same_counts"] and result["words"] > 20
    assert result["max_self_similarity_gap"] == 0.0 and (tmp_path / "out" / "gpu" / "config.cfg").exists()
