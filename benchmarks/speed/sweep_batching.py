"""Sweep the default pipeline's batching settings against the length-sorted floor.

    python benchmarks/speed/sweep_batching.py --sentences 600 --rounds 3

Each setting is ([nlp] batch_size, [components.transformer] max_batch_items);
spacy-transformers sorts the Docs of one nlp.pipe batch by length and cuts them
into sub-batches of at most max_batch_items (longest Doc x number of Docs), so a
bigger nlp batch sorts over more Docs. Prints median ratios (wall and CPU time).
"""

import argparse
import os
import sys
from pathlib import Path
from statistics import median

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import methods  # noqa: E402
from benchmarks.data import sample_sentences  # noqa: E402
from benchmarks.speed.run_all import FLOOR_SORTED, interleaved_rounds  # noqa: E402

SETTINGS = [(64, 4096), (1000, 2048), (1000, 4096), (1000, 8192)]


def main() -> None:
    with methods.temp_pipeline_dir() as work:  # the assembled pipeline is removed at the end, on errors too
        _main(work)


def _main(work: Path) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    texts = sample_sentences(args.sentences)
    pipeline_dir = methods.assemble_default(work)
    runs = {FLOOR_SORTED: methods.make_floor(sort_by_length=True)}
    for batch_size, max_items in SETTINGS:
        runs[f"nlp {batch_size} / max_batch_items {max_items}"] = methods.make_pipeline(
            pipeline_dir, nlp_batch_size=batch_size, max_batch_items=max_items
        )
    for run in runs.values():
        run(texts[:32])
    rounds = interleaved_rounds(runs, texts, args.rounds)
    print(f"{len(texts)} sentences, {args.rounds} rounds, {args.threads} threads, load {os.getloadavg()}")
    for name in runs:
        wall = median(r[name]["wall"] / r[FLOOR_SORTED]["wall"] for r in rounds)
        cpu = median(r[name]["cpu"] / r[FLOOR_SORTED]["cpu"] for r in rounds)
        print(f"{name:40s} wall x sorted floor {wall:.3f}   cpu x sorted floor {cpu:.3f}")


if __name__ == "__main__":
    main()
