"""One method, once, in a fresh process: prints JSON with the load and run time and
the peak resident memory (resource.getrusage). Used by run_all.py for clean memory
numbers; the Docs are kept (list(nlp.pipe(texts))), as a user collecting them would.

    python benchmarks/speed/fresh_process.py pipeline --pipeline-dir DIR --sentences 2000
    python benchmarks/speed/fresh_process.py pipeline --pipeline-dir DIR --tokens 100000
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import methods  # noqa: E402
from benchmarks.data import corpus_sentences, sample_sentences  # noqa: E402


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # kB
    raise RuntimeError(f"{field} not in /proc/self/status")


def peak_rss_mb() -> float:
    """Peak RSS of this process. VmHWM, not getrusage's ru_maxrss: ru_maxrss survives
    fork + exec, so a child of a large parent would report the parent's size."""
    try:
        return _status_mb("VmHWM")
    except (OSError, RuntimeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def current_rss_mb() -> float:
    return _status_mb("VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "method",
        choices=[
            "floor_fixed",
            "floor_sorted",
            "pipeline",
            "pipeline_int8",
            "pipeline_drop_trf_data",
            "pipeline_keep_trf_data",
            "pipeline_before",
            "flair",
        ],
    )
    parser.add_argument("--pipeline-dir", type=Path, required=True)
    parser.add_argument("--sentences", type=int, default=0)
    parser.add_argument("--tokens", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    if args.tokens:
        pool = sample_sentences(min(len(corpus_sentences()), args.tokens // 4 + 100))
        texts = methods.texts_for_tokens(pool, args.tokens)
    else:
        texts = sample_sentences(args.sentences)
    n_tokens = sum(methods.token_counts(texts))
    loaded = time.perf_counter()
    if args.method.startswith("floor"):
        run = methods.make_floor(sort_by_length=args.method == "floor_sorted")
    elif args.method == "flair":
        run = methods.make_flair()
    else:
        run = methods.make_pipeline(
            args.pipeline_dir,
            quantize=args.method == "pipeline_int8",
            drop_trf_data={"pipeline_drop_trf_data": True, "pipeline_keep_trf_data": False}.get(args.method),
            before_issue_13=args.method == "pipeline_before",
        )
    load_s = time.perf_counter() - loaded
    rss_loaded, peak_loaded = current_rss_mb(), peak_rss_mb()
    # Warm up on other sentences (allocator pools, torch workspaces), then measure what the
    # kept Docs hold: RSS growth after trimming freed memory, per spaCy token.
    run(sample_sentences(200, seed=1))
    trim_freed_memory()
    rss_before_run = current_rss_mb()
    started = time.perf_counter()
    kept = []
    if args.method.startswith("pipeline"):
        kept = list(run.nlp.pipe(texts))  # type: ignore[attr-defined]
    else:
        run(texts)
    run_s = time.perf_counter() - started
    trim_freed_memory()
    rss_end = current_rss_mb()
    print(
        json.dumps(
            {
                "n_sentences": len(texts),
                "n_tokens": n_tokens,
                "n_docs_kept": len(kept),
                "load_s": load_s,
                "run_s": run_s,
                "rss_after_load_mb": rss_loaded,
                "peak_after_load_mb": peak_loaded,
                "rss_before_run_mb": rss_before_run,
                "peak_rss_mb": peak_rss_mb(),
                "rss_end_mb": rss_end,
                "kept_kib_per_token": (rss_end - rss_before_run) * 1024 / n_tokens if kept else None,
            }
        )
    )


def trim_freed_memory() -> None:
    """Collect garbage and hand freed heap pages back to the OS (glibc), so RSS counts
    only what is still referenced."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


if __name__ == "__main__":
    main()
