"""Peak memory of `build-lexicon` against corpus size, and the pickled size of the
pipeline it saves (what an `n_process` spawn or a Ray worker receives).

For each size N it writes N Gutenberg paragraphs of 10 to 120 words (drawn with a fixed
seed, one per line: `sample_throughput.paragraphs`) to a temporary corpus, runs

    /usr/bin/time -v spacy-ctxvec build-lexicon configs/default.cfg CORPUS OUT

in a fresh process, and prints its peak RSS and seconds, the tokens and types it counted,
and `len(pickle.dumps(...))` of each component of the pipeline it saved. Linux only (GNU
time's -v). Reads the books from `data.py`'s GUTENBERG_DIR.

    python benchmarks/speed/build_memory.py [--sizes 300 1000 2000] [--keep DIR]
"""

import argparse
import json
import pickle
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO_ROOT = Path(__file__).resolve().parents[2]
try:  # run as a script: this checkout's benchmarks.data
    import checkout_path  # noqa: F401
except ModuleNotFoundError:  # imported as benchmarks.speed.<name>: the package is on the path
    pass

from benchmarks.speed.sample_throughput import paragraphs  # noqa: E402

GNU_TIME = Path("/usr/bin/time")
PEAK_RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")


def saved_pipeline(pipeline: Path) -> Dict[str, object]:
    """The saved lexicon's tokens and types, and the bytes of ``pickle.dumps`` of each component."""
    import spacy

    nlp = spacy.load(pipeline)
    lexicon = nlp.get_pipe("ctxvec_polysemy").lexicon
    return {
        "n_tokens": lexicon.n_occurrences,
        "n_types": len(lexicon),
        "pickled_bytes": {name: len(pickle.dumps(component)) for name, component in nlp.pipeline},
    }


def build_once(n_paragraphs: int, workdir: Path) -> Dict[str, object]:
    """One build of ``n_paragraphs`` paragraphs: peak RSS (MiB), counts, seconds, pickled sizes."""
    corpus = workdir / f"paragraphs_{n_paragraphs}.txt"
    corpus.write_text("\n".join(paragraphs(n_paragraphs)) + "\n", encoding="utf8")
    output = workdir / f"lexicon_{n_paragraphs}"
    command = [str(GNU_TIME), "-v", "spacy-ctxvec", "build-lexicon", str(REPO_ROOT / "configs" / "default.cfg")]
    start = time.perf_counter()
    done = subprocess.run([*command, str(corpus), str(output)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"build-lexicon failed on {n_paragraphs} paragraphs:\n{done.stderr[-3000:]}")
    peak = PEAK_RSS.search(done.stderr)
    return {
        "paragraphs": n_paragraphs,
        "peak_rss_mib": round(int(peak.group(1)) / 1024) if peak else None,
        "seconds": round(seconds, 1),
        **saved_pipeline(output),
    }


def main(argv: List[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 2000])
    parser.add_argument("--keep", type=Path, help="write corpora and pipelines here (default: a temp dir)")
    args = parser.parse_args(argv)
    if not GNU_TIME.exists():
        raise SystemExit("GNU time (/usr/bin/time) is needed for the peak RSS: install it (Debian: apt install time)")
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.keep or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        for size in args.sizes:
            row = build_once(size, workdir)
            sizes = ", ".join(f"{name} {value / 1e6:.1f} MB" for name, value in row.pop("pickled_bytes").items())
            print(json.dumps(row), flush=True)
            print(f"  pickled: {sizes}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
