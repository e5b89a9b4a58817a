"""What freezing the imports' objects saves a command-line run, in fresh processes.

    python benchmarks/speed/cli_startup.py [--rounds 5]

Runs ``spacy-ctxvec compare "I have a apple" "I have a pen" --word a`` (load the offline
default pipeline, two texts) in a fresh Python process per run, two ways, interleaved in
a shuffled order every round:

- ``as shipped``: the console script (``spacy_ctxvec.cli:main``), which freezes what the
  imports made (spaCy, spacy-transformers, torch: about 460,000 objects) before the command
  runs, so the collector's full passes while the pipeline loads and runs skip them;
- ``no freeze``: the Typer app called directly, as the console script did before.

Prints the median wall and CPU seconds (the child's user + system time) and each one's
ratio to ``no freeze``.
"""

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from statistics import median
from typing import Dict, List, Tuple

ARGS = ["compare", "I have a apple", "I have a pen", "--word", "a"]
RUN_APP = "import sys; from spacy_ctxvec.cli import app; sys.argv = ['spacy-ctxvec'] + sys.argv[1:]; app()"
VARIANTS = {
    "as shipped": [sys.executable, "-m", "spacy_ctxvec", *ARGS],
    "no freeze": [sys.executable, "-c", RUN_APP, *ARGS],
}


def timed_run(command: List[str]) -> Tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    times: Dict[str, List[Tuple[float, float]]] = {name: [] for name in VARIANTS}
    rng = random.Random(0)
    for _ in range(args.rounds):
        order = list(VARIANTS)
        rng.shuffle(order)
        for name in order:
            times[name].append(timed_run(VARIANTS[name]))
    base_wall = median(wall for wall, _ in times["no freeze"])
    base_cpu = median(cpu for _, cpu in times["no freeze"])
    print(f"spacy-ctxvec {' '.join(ARGS[:1])}, {args.rounds} rounds, load average {os.getloadavg()[0]:.1f}")
    print(f"{'variant':12s} {'wall s':>7s} {'x':>5s} {'CPU s':>7s} {'x':>5s}")
    for name, rows in times.items():
        wall, cpu = median(w for w, _ in rows), median(c for _, c in rows)
        print(f"{name:12s} {wall:7.2f} {wall / base_wall:5.2f} {cpu:7.2f} {cpu / base_cpu:5.2f}")


if __name__ == "__main__":
    main()
