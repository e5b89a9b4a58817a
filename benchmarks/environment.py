"""The machine and the versions, for RESULTS.md."""

import os
import platform
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import List

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["spacy", "spacy-transformers", "transformers", "torch", "numpy", "spacy-ctxvec", "flair"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def total_ram_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return float("nan")


def git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (uncommitted changes in the tree)" if dirty else "")


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def environment_lines() -> List[str]:
    import torch

    lines = [
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; RAM {total_ram_gib():.1f} GiB; GPU: "
        + (
            "none (torch.cuda.is_available() is False)"
            if not torch.cuda.is_available()
            else torch.cuda.get_device_name(0)
        ),
        f"- OS: {platform.platform()}",
        f"- python {platform.python_version()} ({sys.executable})",
        "- " + ", ".join(f"{name} {package_version(name)}" for name in PACKAGES),
        f"- torch threads: {torch.get_num_threads()}",
        f"- git commit: {git_commit()}",
    ]
    return lines
