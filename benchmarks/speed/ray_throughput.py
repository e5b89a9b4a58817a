"""Tokens/s of lexicon building: local engine vs Ray engine (1 and 2 local workers).

    python benchmarks/speed/ray_throughput.py --n-docs 600 --out benchmarks/speed/RAY.md

Pipeline: configs/default.cfg (MiniLM). Corpus: the first N Gutenberg sentences
(benchmarks/data.py), one document per line in a temporary .txt. Every Ray run uses one
local Ray instance started once (its start-up is not counted); a run's time includes
starting its actors, which load the pipeline. ``--startup-docs`` runs each setting once
more on that many documents to estimate that fixed cost; "marginal tokens/s" is
(tokens(N) - tokens(small)) / (seconds(N) - seconds(small)).
"""

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.data import corpus_sentences  # noqa: E402
from spacy_ctxvec.building.local import build_lexicon_local  # noqa: E402
from spacy_ctxvec.building.ray_engine import MERGE_GROUP, build_lexicon_ray  # noqa: E402
from spacy_ctxvec.pipelines import load_pipeline  # noqa: E402

SETTINGS = [
    ("local engine (nlp.pipe, torch 2 threads)", "local", {}),
    ("ray, 1 worker x 2 CPUs", "ray", {"num_workers": 1, "num_cpus_per_worker": 2}),
    ("ray, 1 worker x 1 CPU", "ray", {"num_workers": 1, "num_cpus_per_worker": 1}),
    ("ray, 2 workers x 1 CPU", "ray", {"num_workers": 2, "num_cpus_per_worker": 1}),
]


def write_corpus(directory: Path, sentences: List[str], name: str) -> Path:
    path = directory / f"{name}.txt"
    path.write_text("\n".join(sentences) + "\n", encoding="utf8")
    return path


def run(
    engine: str, nlp: Any, corpus: Path, options: Dict[str, Any], shard_size: int, batch_size: int
) -> Dict[str, float]:
    if engine == "local":
        result = build_lexicon_local(nlp, corpus, shard_size=shard_size, batch_size=batch_size, progress=False)
    else:
        result = build_lexicon_ray(nlp, corpus, shard_size=shard_size, batch_size=batch_size, progress=False, **options)
    return {"docs": result.n_docs, "tokens": result.n_tokens, "seconds": result.seconds, "lexicon": result.lexicon}


def merge_seconds(n_types: int, n_partial_types: int, width: int, repeats: int = 3) -> float:
    """Seconds for one driver-side merge of a partial into a running lexicon of n_types."""
    import numpy as np

    from spacy_ctxvec.lexicon.statistics import Lexicon

    rng = np.random.default_rng(0)

    def lexicon(keys: List[str]) -> Lexicon:
        sums = rng.integers(-(2**30), 2**30, size=(len(keys), width), dtype=np.int64)
        return Lexicon(sorted(keys), np.ones(len(keys), dtype=np.int64), sums, sums.copy(), width=width)

    running = lexicon([f"w{i:07d}" for i in range(n_types)])
    partial = lexicon([f"w{i:07d}" for i in rng.choice(n_types, n_partial_types, replace=False)])
    start = time.perf_counter()
    for _ in range(repeats):
        running.merge(partial)
    return (time.perf_counter() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-docs", type=int, default=600)
    parser.add_argument("--startup-docs", type=int, default=20)
    parser.add_argument("--shard-size", type=int, default=100, help="docs per partial lexicon (Ray batch)")
    parser.add_argument("--batch-size", type=int, default=32, help="docs per nlp.pipe batch")
    parser.add_argument(
        "--merge-types", type=int, default=50_000, help="types of the running lexicon in the merge timing"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    import ray
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    sentences = corpus_sentences()
    nlp = load_pipeline(None)
    rows = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        big = write_corpus(Path(tmp), sentences[: args.n_docs], "big")
        small = write_corpus(Path(tmp), sentences[: args.startup_docs], "small")
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
        try:
            reference = None
            for label, engine, options in SETTINGS:
                full = run(engine, nlp, big, options, args.shard_size, args.batch_size)
                fixed = run(engine, nlp, small, options, args.shard_size, args.batch_size)
                marginal = (full["tokens"] - fixed["tokens"]) / max(full["seconds"] - fixed["seconds"], 1e-9)
                if reference is None:
                    reference = full["lexicon"]
                same = full["lexicon"].keys == reference.keys and (full["lexicon"].counts == reference.counts).all()
                rows.append(
                    (
                        label,
                        full["docs"],
                        full["tokens"],
                        full["seconds"],
                        full["tokens"] / full["seconds"],
                        fixed["seconds"],
                        marginal,
                        same,
                    )
                )
                print(
                    f"{label}: {full['tokens']} tokens in {full['seconds']:.1f} s "
                    f"({full['tokens'] / full['seconds']:.0f} tokens/s); "
                    f"{args.startup_docs} docs: {fixed['seconds']:.1f} s; marginal {marginal:.0f} tokens/s; "
                    f"same counts as local: {same}",
                    flush=True,
                )
        finally:
            ray.shutdown()

    lines = [
        "# Ray engine throughput",
        "",
        f"Command: `python benchmarks/speed/ray_throughput.py --n-docs {args.n_docs} --startup-docs "
        f"{args.startup_docs} "
        f"--shard-size {args.shard_size} --batch-size {args.batch_size}`",
        "",
        f"Machine: {os.cpu_count()} CPU cores, no GPU, {platform.python_implementation()} {platform.python_version()}, "
        f"ray {ray.__version__}, torch {torch.__version__}. Pipeline: configs/default.cfg (all-MiniLM-L6-v2, 384-d). "
        f"Corpus: first {args.n_docs} Gutenberg sentences (benchmarks/data.py). Tokens = tokens counted into "
        "the lexicon.",
        f"1-minute load average before / after the runs: {load_before:.1f} / {os.getloadavg()[0]:.1f} "
        f"(other processes share the {os.cpu_count()} cores; a load above {os.cpu_count()} slows every setting).",
        "",
        f"| setting | docs | tokens | seconds | tokens/s | seconds for {args.startup_docs} docs (start-up) | "
        "marginal tokens/s | counts equal local |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, docs, tokens, seconds, rate, fixed_seconds, marginal, same in rows:
        lines.append(
            f"| {label} | {docs} | {tokens} | {seconds:.1f} | {rate:.0f} | {fixed_seconds:.1f} | "
            f"{marginal:.0f} | {same} |"
        )
    width = reference.width
    seconds = merge_seconds(args.merge_types, 3000, width)
    lines += [
        "",
        f"Reduce cost: one merge of a 3,000-type partial into a running lexicon of {args.merge_types:,} types "
        f"(width {width}) takes {seconds:.2f} s here. A merge rewrites the whole running lexicon; the driver first "
        f"merges partials in groups of {MERGE_GROUP}, so it does one such pass per {MERGE_GROUP} shards: "
        f"O(types x width x shards / {MERGE_GROUP}) in total.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf8")


if __name__ == "__main__":
    main()
