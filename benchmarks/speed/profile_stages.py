"""Where the default pipeline's time goes, before and after issue 13, without a profiler.

    python benchmarks/speed/profile_stages.py --sentences 1200 --rounds 3 [--cprofile]

Per stage (spaCy tokenizer, each component's pipe, and inside the transformer the
Hugging Face forward calls), wall and CPU seconds, medians over interleaved rounds;
also the number of forward calls and the padded wordpieces they processed. "before":
the saved default pipeline loaded with the previous transformer settings
(benchmarks/methods.py BEFORE_ISSUE_13); "after": as saved. ``--cprofile`` adds the
functions with the most own time under cProfile (for the ranking only: the profiler
inflates Python-heavy code).
"""

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any, Dict, List, Tuple

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import methods  # noqa: E402
from benchmarks.data import sample_sentences  # noqa: E402

FORWARD = "  of which HF forward"
OTHER = "  of which transformer outside the forward"


def count_forward(nlp, totals: Dict[str, float]) -> None:
    """Wrap the Hugging Face module's forward to add its wall/CPU time, calls and padded wordpieces."""
    hf = nlp.get_pipe("transformer").model.transformer
    original = hf.forward

    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            totals["wall"] += time.perf_counter() - wall
            totals["cpu"] += time.process_time() - cpu
            totals["calls"] += 1
            ids = kwargs.get("input_ids", args[0] if args else None)
            totals["wordpieces"] += int(ids.numel()) if ids is not None else 0

    hf.forward = timed


def stages(nlp, texts: List[str], totals: Dict[str, float]) -> Dict[str, Tuple[float, float]]:
    for key in totals:
        totals[key] = 0
    row: Dict[str, Tuple[float, float]] = {}
    wall, cpu = time.perf_counter(), time.process_time()
    docs = [nlp.make_doc(text) for text in texts]
    row["spaCy tokenizer"] = (time.perf_counter() - wall, time.process_time() - cpu)
    for name, proc in nlp.pipeline:
        wall, cpu = time.perf_counter(), time.process_time()
        docs = list(proc.pipe(docs, batch_size=nlp.batch_size))
        row[name] = (time.perf_counter() - wall, time.process_time() - cpu)
    row[FORWARD] = (totals["wall"], totals["cpu"])
    row[OTHER] = (row["transformer"][0] - totals["wall"], row["transformer"][1] - totals["cpu"])
    row["forward calls"] = (totals["calls"], totals["calls"])
    row["padded wordpieces"] = (totals["wordpieces"], totals["wordpieces"])
    return row


def main() -> None:
    with methods.temp_pipeline_dir() as work:  # the assembled pipeline is removed at the end, on errors too
        _main(work)


def _main(work: Path) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args()
    texts = sample_sentences(args.sentences)
    pipeline_dir = methods.assemble_default(work)
    variants = {
        "before": methods.load_pipeline(pipeline_dir, before_issue_13=True),
        "after": methods.load_pipeline(pipeline_dir),
    }
    totals = {name: {"wall": 0.0, "cpu": 0.0, "calls": 0, "wordpieces": 0} for name in variants}
    for name, nlp in variants.items():
        count_forward(nlp, totals[name])
        list(nlp.pipe(texts[:64]))
    rows: Dict[str, Dict[str, List[Tuple[float, float]]]] = {name: {} for name in variants}
    for round_index in range(args.rounds):
        names = list(variants)
        for name in names[round_index % 2 :] + names[: round_index % 2]:
            for stage, value in stages(variants[name], texts, totals[name]).items():
                rows[name].setdefault(stage, []).append(value)
    print(f"{len(texts)} sentences, {args.rounds} interleaved rounds, load average {os.getloadavg()}")
    print("| stage | before wall s | before CPU s | after wall s | after CPU s |")
    print("|---|---|---|---|---|")
    for stage in rows["after"]:
        cells = []
        for name in ("before", "after"):
            values = rows[name].get(stage, [(float("nan"), float("nan"))])
            wall, cpu = median(v[0] for v in values), median(v[1] for v in values)
            cells += (
                [f"{wall:.0f}", f"{cpu:.0f}"]
                if stage in ("forward calls", "padded wordpieces")
                else [f"{wall:.2f}", f"{cpu:.2f}"]
            )
        if stage in ("forward calls", "padded wordpieces"):
            cells = [cells[0], "", cells[2], ""]
        print(f"| {stage} | " + " | ".join(cells) + " |")
    for name in ("before", "after") if args.cprofile else ():
        profiler = cProfile.Profile()
        profiler.enable()
        list(variants[name].pipe(texts))
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
        print(f"\n### cProfile, {name} (top 12 by own time)\n\n```")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:4000])
        print("```")


if __name__ == "__main__":
    main()
