"""What a command-line run costs at start-up, in fresh processes.

    python benchmarks/speed/cli_startup.py [--rounds 5] [--help-only]

First ``spacy-ctxvec --help`` beside its floor and its old cost, interleaved in a
shuffled order every round:

- ``--help``: ``python -m spacy_ctxvec --help`` (the console script's code), which imports
  the commands but not the transformer stack, scikit-learn or scipy
  (tests/test_cli_imports.py);
- ``import spacy``: the floor; spaCy's thinc imports torch when it is installed;
- ``+ transformers``: spaCy plus ``spacy_ctxvec.components.buffered_transformer``
  (spacy-transformers, transformers), which every start-up imported before the package
  loaded its names lazily.

Then (without --help-only) what freezing the imports' objects saves a real command:

Runs ``spacy-ctxvec compare "I have a apple" "I have a pen" --word a`` (load the offline
default pipeline, two texts) in a fresh Python process per run, three ways, interleaved in
a shuffled order every round:

- ``as shipped``: the console script (``spacy_ctxvec.cli:main``), which freezes what the
  imports made (spaCy, torch, the commands) before the command runs, and again once the
  pipeline's load has imported spacy-transformers and transformers (about 450,000 objects
  in all), so the collector's full passes while the pipeline loads and runs skip them;
- ``no freeze``: the Typer app called directly, as the console script did before;
- ``eager, freeze``: the transformer stack imported before the one freeze, as every start-up
  did while ``import spacy_ctxvec`` imported the components.

Prints the median wall and CPU seconds (the child's user + system time) and each one's
ratio to ``--help`` and to ``no freeze``.
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
EAGER = "import gc, spacy_ctxvec.components.buffered_transformer, spacy_ctxvec.components.context; gc.freeze(); "
HELP_VARIANTS = {
    "--help": [sys.executable, "-m", "spacy_ctxvec", "--help"],
    "import spacy": [sys.executable, "-c", "import spacy"],
    "+ transformers": [sys.executable, "-c", "import spacy, spacy_ctxvec.components.buffered_transformer"],
}
VARIANTS = {
    "as shipped": [sys.executable, "-m", "spacy_ctxvec", *ARGS],
    "no freeze": [sys.executable, "-c", RUN_APP, *ARGS],
    "eager, freeze": [sys.executable, "-c", EAGER + RUN_APP, *ARGS],
}


def timed_run(command: List[str]) -> Tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(variants: Dict[str, List[str]], rounds: int) -> Dict[str, List[Tuple[float, float]]]:
    """Wall and CPU seconds of every variant, ``rounds`` times, in a shuffled order each round."""
    times: Dict[str, List[Tuple[float, float]]] = {name: [] for name in variants}
    rng = random.Random(0)
    for _ in range(rounds):
        order = list(variants)
        rng.shuffle(order)
        for name in order:
            times[name].append(timed_run(variants[name]))
    return times


def print_table(title: str, times: Dict[str, List[Tuple[float, float]]], base: str) -> None:
    base_wall = median(wall for wall, _ in times[base])
    base_cpu = median(cpu for _, cpu in times[base])
    print(f"{title}, {len(times[base])} rounds, load average {os.getloadavg()[0]:.1f}")
    print(f"{'variant':15s} {'wall s':>7s} {'x':>5s} {'CPU s':>7s} {'x':>5s}")
    for name, rows in times.items():
        wall, cpu = median(w for w, _ in rows), median(c for _, c in rows)
        print(f"{name:15s} {wall:7.2f} {wall / base_wall:5.2f} {cpu:7.2f} {cpu / base_cpu:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--help-only", action="store_true", help="Only the --help table")
    args = parser.parse_args()
    print_table("spacy-ctxvec --help", measure(HELP_VARIANTS, args.rounds), "--help")
    if not args.help_only:
        print()
        print_table(f"spacy-ctxvec {ARGS[0]}", measure(VARIANTS, args.rounds), "no freeze")


if __name__ == "__main__":
    main()
