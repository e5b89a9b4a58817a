"""Cost of sense induction in `build-lexicon` (issue 21: "with induction within 1.2x of
counting alone; memory documented").

    python benchmarks/speed/lexicon_induction_cost.py [--books N] [--max-lines N] [--rounds N]

Builds the same corpus (the first ``--max-lines`` non-blank lines of each of the first
``--books`` Gutenberg books in ../shared/data/corpus_gutenberg, in name order) through
``build_lexicon_pipeline`` (the function `spacy-ctxvec build-lexicon` calls) with
configs/default.cfg and its defaults, twice per round, interleaved: counting alone
(``senses=False``, i.e. ``--no-senses``: the same count and occurrence sample) and with
the default induction. Each build runs in a fresh child process (this script with
``--child``), so its peak RSS is its own. Prints per build kind the medians of: wall and
CPU seconds of the whole build, of the counting (the engine run) and of the induction
(``induce_inventory``), the ratio with/without, the types induced, ms per type, the peak
RSS of the process and the extra RSS during induction (sampled every 5 ms), and the size
on disk of the saved sense inventory. On a shared machine the counting time varies most,
so it also prints 1 + induce_inventory / (the whole counting-alone build), medians.
Threads as a user gets them (OMP_NUM_THREADS untouched); the load average before and
after is printed. ``--work DIR`` keeps the corpus, the results and the built pipelines.
"""

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parents[2]
try:  # run as a script: this checkout's benchmarks.data
    import checkout_path  # noqa: F401
except ModuleNotFoundError:  # imported as benchmarks.speed.<name>: the package is on the path
    pass

from benchmarks.data import book_files, gutenberg_dir  # noqa: E402

CONFIG = REPO / "configs" / "default.cfg"
KINDS = ("counting", "induction")


class RssSampler:
    """Peak resident set size (bytes) of this process while active, from /proc/self/statm."""

    def __init__(self, every_s: float = 0.005) -> None:
        self.every_s, self.peak, self.start = every_s, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def rss() -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.rss())
            time.sleep(self.every_s)

    def __enter__(self) -> "RssSampler":
        self.start = self.peak = self.rss()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())


def timed(function: Any, record: Dict[str, Any], name: str, *, rss: bool = False) -> Any:
    """``function`` wrapped so that each call adds its wall and CPU seconds (and, with
    ``rss``, its extra peak RSS) to ``record[name]``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        sampler = RssSampler() if rss else None
        if sampler is not None:
            sampler.__enter__()
        try:
            return function(*args, **kwargs)
        finally:
            if sampler is not None:
                sampler.__exit__()
                record[f"{name}_extra_rss_mib"] = (sampler.peak - sampler.start) / 2**20
            record[f"{name}_wall_s"] = time.perf_counter() - wall
            record[f"{name}_cpu_s"] = time.process_time() - cpu

    return wrapper


def child(kind: str, corpus: Path, output: Path, result_file: Path) -> None:
    """One build in this process; its measurements as JSON in ``result_file``."""
    import spacy_ctxvec.components.polysemy as polysemy_module
    import spacy_ctxvec.workflows.lexicon_build as workflow

    record: Dict[str, Any] = {"kind": kind}
    workflow._count = timed(workflow._count, record, "counting")
    polysemy_module.induce_inventory = timed(polysemy_module.induce_inventory, record, "induction", rss=True)
    request = workflow.LexiconBuildRequest(CONFIG, corpus, output, senses=kind == "induction", progress=False)
    wall, cpu = time.perf_counter(), time.process_time()
    build = workflow.build_lexicon_pipeline(request)
    record.update(build_wall_s=time.perf_counter() - wall, build_cpu_s=time.process_time() - cpu)
    record["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    record["n_documents"] = build.result.n_docs
    record["n_tokens"] = int(build.lexicon.n_occurrences)
    record["n_valid_types"] = build.n_valid
    sample = build.lexicon.sample
    record["sample_rows"], record["sample_mib"] = int(sample.n_rows), sample.nbytes / 2**20
    component = [pipe for name, pipe in _load_components(output) if name == "ctxvec_polysemy"]
    senses = component[0].senses if component else None
    record["n_types_induced"] = 0 if senses is None else len(senses)
    record["n_senses"] = 0 if senses is None else int(senses.n_senses_total)
    record["senses_on_disk_mib"] = _senses_bytes(output) / 2**20
    result_file.write_text(json.dumps(record))


def _load_components(output: Path) -> List[Any]:
    import spacy

    return list(spacy.load(output).pipeline)


def _senses_bytes(output: Path) -> int:
    """Bytes of the saved sense inventory: the directories holding a senses.json."""
    return sum(
        f.stat().st_size for header in output.rglob("senses.json") for f in header.parent.rglob("*") if f.is_file()
    )


def make_corpus(books: int, max_lines: int, path: Path) -> int:
    """The first ``max_lines`` non-blank lines of each of the first ``books`` books."""
    lines: List[str] = []
    for book in book_files(gutenberg_dir())[:books]:
        text = [line.strip() for line in book.read_text(encoding="latin-1").splitlines()]
        lines += [line for line in text if line][:max_lines]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return len(lines)


def run_build(kind: str, corpus: Path, work: Path, index: int) -> Dict[str, Any]:
    output, result = work / f"out_{kind}_{index}", work / f"result_{kind}_{index}.json"
    if output.exists():
        shutil.rmtree(output)  # made by an earlier run of this script in --work
    command = [sys.executable, __file__, "--child", kind, str(corpus), str(output), str(result)]
    subprocess.run(command, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return json.loads(result.read_text())


def report(records: Dict[str, List[Dict[str, Any]]], n_lines: int, load: tuple) -> None:
    def median(kind: str, name: str) -> float:
        values = [r[name] for r in records[kind] if r.get(name) is not None]
        return statistics.median(values) if values else float("nan")

    rows = [
        ("whole build, wall s", "build_wall_s"),
        ("whole build, CPU s", "build_cpu_s"),
        ("counting (engine), wall s", "counting_wall_s"),
        ("counting (engine), CPU s", "counting_cpu_s"),
        ("induce_inventory, wall s", "induction_wall_s"),
        ("induce_inventory, CPU s", "induction_cpu_s"),
        ("peak RSS of the build, MiB", "peak_rss_mib"),
        ("extra RSS during induction, MiB", "induction_extra_rss_mib"),
        ("occurrence sample in memory, MiB", "sample_mib"),
        ("sense inventory on disk, MiB", "senses_on_disk_mib"),
        ("types induced", "n_types_induced"),
        ("senses", "n_senses"),
    ]
    first = records["induction"][0]
    print(
        f"\ncorpus: {n_lines} lines, {first['n_tokens']} tokens; sample {first['sample_rows']} rows; "
        f"{first['n_valid_types']} types >= min_count; rounds: {len(records['induction'])} (medians)"
    )
    print(f"{'':36s}{'counting alone':>16s}{'with induction':>16s}")

    def cell(kind: str, name: str) -> str:
        value = median(kind, name)
        return f"{'-':>16s}" if math.isnan(value) else f"{value:16.2f}"

    for label, name in rows:
        print(f"{label:36s}{cell('counting', name)}{cell('induction', name)}")
    for clock in ("wall", "cpu"):
        ratio = median("induction", f"build_{clock}_s") / median("counting", f"build_{clock}_s")
        print(f"ratio with/without induction, whole build {clock}: {ratio:.3f}")
    for clock in ("wall", "cpu"):  # less sensitive to the load than two whole builds' ratio
        added = median("induction", f"induction_{clock}_s") / median("counting", f"build_{clock}_s")
        print(f"1 + induce_inventory / build counting alone, {clock}: {1 + added:.3f}")
    n_types = median("induction", "n_types_induced")
    print(f"induction per type: {1000 * median('induction', 'induction_wall_s') / max(n_types, 1):.2f} ms wall")
    print(f"load average before {load[0]}, after {tuple(round(x, 2) for x in os.getloadavg())}; cores {os.cpu_count()}")
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--books", type=int, default=2)
    parser.add_argument("--max-lines", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--work", type=Path, help="keep the corpus and the built pipelines here (default: a temporary directory)"
    )
    parser.add_argument("--child", nargs=4, metavar=("KIND", "CORPUS", "OUTPUT", "RESULT"))
    args = parser.parse_args()
    if args.child:
        kind, corpus, output, result = args.child
        child(kind, Path(corpus), Path(output), Path(result))
        return
    gutenberg_dir()  # exits with one message without the data, before any build starts
    load = (tuple(round(x, 2) for x in os.getloadavg()),)
    records: Dict[str, List[Dict[str, Any]]] = {kind: [] for kind in KINDS}
    with tempfile.TemporaryDirectory(prefix="induction_cost_") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        n_lines = make_corpus(args.books, args.max_lines, work / "corpus.txt")
        for index in range(args.rounds):
            for kind in KINDS:
                record = run_build(kind, work / "corpus.txt", work, index)
                records[kind].append(record)
                print(json.dumps(record), flush=True)
    report(records, n_lines, load)


if __name__ == "__main__":
    main()
