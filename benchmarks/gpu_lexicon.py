"""build-lexicon with --gpu-id 0 against the same build on CPU, as one prepared script.

    python benchmarks/gpu_lexicon.py CORPUS.txt --output-dir DIR            # on a GPU machine
    python benchmarks/gpu_lexicon.py CORPUS.txt --output-dir DIR --dry-run  # both builds on CPU

Assembles configs/default.cfg, runs ``spacy-ctxvec build-lexicon`` on the corpus twice (GPU,
then CPU; each timed as a user runs it, start-up included) and compares the two lexicons: the
same words with the same counts, and per-word self-similarity and polysemy scores within a
tolerance (the GPU's float32 sums differ from the CPU's in the last bits). Prints one JSON
line; exit 1 where the lexicons disagree.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks import methods  # noqa: E402


def build(pipeline_dir: Path, corpus: Path, output: Path, gpu_id: int) -> float:
    """Seconds ``spacy-ctxvec build-lexicon`` took (it must succeed)."""
    cli = "import sys; from spacy_ctxvec.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", cli, "build-lexicon", str(pipeline_dir), str(corpus), str(output)]
    started = time.perf_counter()
    done = subprocess.run([*command, "--gpu-id", str(gpu_id)], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"build-lexicon --gpu-id {gpu_id} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def compare(gpu_output: Path, cpu_output: Path) -> dict:
    """Words, counts and scores of the two saved lexicons."""
    import spacy

    gpu, cpu = (spacy.load(path).get_pipe("ctxvec_polysemy").lexicon for path in (gpu_output, cpu_output))
    same_words = gpu.keys == cpu.keys
    same_counts = same_words and all(gpu.count_of(key) == cpu.count_of(key) for key in cpu.keys)
    similarity_gap = float(np.ma.max(np.ma.abs(gpu.self_similarity() - cpu.self_similarity()))) if same_words else None
    gpu_scores, cpu_scores = gpu.polysemy_scores(), cpu.polysemy_scores()
    score_gap = float(np.nanmax(np.abs(gpu_scores[0] - cpu_scores[0]))) if same_words else None
    return {
        "words": len(cpu.keys),
        "same_words": same_words,
        "same_counts": same_counts,
        "max_self_similarity_gap": similarity_gap,
        "max_polysemy_score_gap": score_gap,
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--dry-run", action="store_true", help="build both lexicons on CPU")
    parser.add_argument("--tolerance", type=float, default=1e-3)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args.output_dir.mkdir(parents=True, exist_ok=True)
    pipeline_dir = methods.assemble_default(args.output_dir / "pipeline")
    result: dict = {"gpu_s": build(pipeline_dir, args.corpus, args.output_dir / "gpu", -1 if args.dry_run else 0)}
    result["cpu_s"] = build(pipeline_dir, args.corpus, args.output_dir / "cpu", -1)
    result.update(compare(args.output_dir / "gpu", args.output_dir / "cpu"))
    gaps = [result["max_self_similarity_gap"], result["max_polysemy_score_gap"]]
    result["passed"] = bool(result["same_counts"]) and all(gap is not None and gap <= args.tolerance for gap in gaps)
    print("build-lexicon", json.dumps(result), flush=True)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
