"""Where the GPU pipeline's time goes: seconds per component and a cProfile of nlp.pipe.

    python benchmarks/gpu_profile.py --output-dir DIR          # on a GPU machine (needs cupy)
    python benchmarks/gpu_profile.py --dry-run --sentences 40  # the same logic on CPU

For each precision: configs/default.cfg assembled, loaded as gpu_check loads it, warmed on
the texts, then each component timed on its own over all texts (twice: the second pass is
the steady state; a third after ``gc.freeze()``, as the CLI runs), with the seconds Python's
garbage collector took in each pass, then nlp.pipe under cProfile. Writes profile_<precision>_tottime.txt,
profile_<precision>_cumulative.txt and profile_<precision>.prof into --output-dir.
"""

import argparse
import cProfile
import gc
import io
import json
import pstats
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import methods  # noqa: E402
from benchmarks.data import sample_sentences  # noqa: E402
from benchmarks.gpu_check import NO_GPU, _synchronize, gpu_visible, load_on_device, warm_up  # noqa: E402


@contextmanager
def garbage_collection_time() -> Iterator[Dict[str, float]]:
    """Seconds spent in Python's garbage collector inside the block, and collections of
    the oldest generation (the ones that walk every object)."""
    spent = {"gc_s": 0.0, "gc_full_collections": 0.0}
    started = [0.0]

    def callback(phase: str, info: Dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        spent["gc_s"] += time.perf_counter() - started[0]
        spent["gc_full_collections"] += info["generation"] == 2

    gc.callbacks.append(callback)
    try:
        yield spent
    finally:
        gc.callbacks.remove(callback)


def component_seconds(nlp, texts: Sequence[str], batch_size: int) -> Dict[str, float]:
    """make_doc and each pipe over all texts, the GPU synchronised around each."""
    times = {}
    started = time.perf_counter()
    docs: List = [nlp.make_doc(text) for text in texts]
    times["make_doc"] = time.perf_counter() - started
    for name, proc in nlp.pipeline:
        _synchronize()
        started = time.perf_counter()
        if hasattr(proc, "pipe"):
            docs = list(proc.pipe(docs, batch_size=batch_size))
        else:
            docs = [proc(doc) for doc in docs]
        _synchronize()
        times[name] = time.perf_counter() - started
    return times


def main(argv: Optional[Sequence[str]] = None) -> int:
    with methods.temp_pipeline_dir() as work:  # the assembled pipeline is removed at the end, on errors too
        return _main(argv, work)


def _main(argv: Optional[Sequence[str]], work: Path) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry-run", action="store_true", help="run on CPU (no require_gpu)")
    parser.add_argument("--sentences", type=int, default=5000)
    parser.add_argument("--precision", nargs="+", default=["fp32", "fp16"], choices=["fp32", "fp16", "bf16"])
    parser.add_argument("--batch-size", type=int, default=2048)
    parser.add_argument("--max-batch-wordpieces", type=int, default=32768)
    parser.add_argument("--output-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    if not args.dry_run and not gpu_visible():  # before the folder and the pipeline, not a traceback after
        raise SystemExit(NO_GPU)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    texts = sample_sentences(args.sentences)
    pipeline_dir = methods.assemble_default(work)
    for precision in args.precision:
        nlp = load_on_device(pipeline_dir, precision, args.batch_size, args.max_batch_wordpieces, args.dry_run)
        warm_up(nlp, texts)
        for label in ["first", "second", "gc-frozen"]:
            if label == "gc-frozen":
                gc.freeze()
            with garbage_collection_time() as collected:
                seconds = component_seconds(nlp, texts, args.batch_size)
            seconds.update({key: round(value, 4) for key, value in collected.items()})
            print(precision, label, "pass, seconds per component", json.dumps(seconds), flush=True)
        gc.unfreeze()
        profiler = cProfile.Profile()
        _synchronize()
        started = time.perf_counter()
        profiler.enable()
        for _ in nlp.pipe(texts):
            pass
        _synchronize()
        profiler.disable()
        print(precision, "nlp.pipe under cProfile, s", round(time.perf_counter() - started, 3), flush=True)
        for key in ["tottime", "cumulative"]:
            stream = io.StringIO()
            pstats.Stats(profiler, stream=stream).sort_stats(key).print_stats(45)
            (args.output_dir / f"profile_{precision}_{key}.txt").write_text(stream.getvalue(), encoding="utf8")
        profiler.dump_stats(str(args.output_dir / f"profile_{precision}.prof"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
