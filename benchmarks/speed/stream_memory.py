"""Transient memory of streaming long texts through the default pipeline, by nlp.pipe batch size.

    python benchmarks/speed/stream_memory.py [--paragraphs 1000] [--batch-sizes 1000,256,64] [--upstream]
    python benchmarks/speed/stream_memory.py --sentences 8000 --batch-sizes 1000,4096   # short texts

nlp.pipe hands the transformer buffers of ``batch_size`` Docs, and every Doc of a buffer
holds its transformer output (doc._.trf_data) until ctxvec_context has pooled it, so the
peak memory of a stream grows with the buffer even when no Doc is kept. Each batch size
runs in a fresh process: the default pipeline, a warm-up on other paragraphs, then the peak
resident memory is reset (/proc/self/clear_refs) and the paragraphs (Gutenberg, 800-4000
characters, from ../shared/data) are streamed with every Doc dropped after reading its
vectors. Printed per batch size: the peak resident memory above the memory before the
stream, the wall and CPU time. The default pipeline's transformer (ctxvec_transformer) also
closes a buffer at max_buffer_tokens spaCy tokens; ``--upstream`` adds the same runs with
spacy-transformers' own transformer component, whose buffers are batch_size Docs.
``--sentences N`` streams the first N unique WiC train sentences instead (short texts,
whose buffers close at batch_size Docs before max_buffer_tokens).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.data import gutenberg_dir, shared_data  # noqa: E402
from benchmarks.speed.fresh_process import current_rss_mb, peak_rss_mb  # noqa: E402
from benchmarks.speed.pipeline_floor import gutenberg_paragraphs, int_list, wic_sentences  # noqa: E402

FACTORY = "ctxvec_transformer"  # the default pipeline's


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux 4.0+); False where that is not possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def default_pipeline(factory: str):
    """The default pipeline with its transformer made by ``factory``."""
    from spacy.util import load_config, load_model_from_config

    from spacy_ctxvec.pipelines import DEFAULT_CONFIG

    config = load_config(DEFAULT_CONFIG)
    block = config["components"]["transformer"]
    if block["factory"] != factory:
        block["factory"] = factory
        block.pop("max_buffer_tokens", None)
    nlp = load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    return nlp


def stream_once(paragraphs: int, batch_size: int, factory: str, sentences: int = 0) -> Dict[str, Any]:
    """In this process: the peak memory above the start and the time of one stream (of
    ``sentences`` WiC sentences where that is above 0, else of Gutenberg paragraphs)."""
    import gc

    texts = wic_sentences(sentences + 16) if sentences > 0 else gutenberg_paragraphs(paragraphs + 16)
    warm_up, texts = texts[:16], texts[16:]
    nlp = default_pipeline(factory)
    list(nlp.pipe(warm_up, batch_size=batch_size))
    gc.collect()
    before = current_rss_mb()
    resettable = reset_peak_rss()
    wall, cpu = time.perf_counter(), time.process_time()
    tokens = 0
    for doc in nlp.pipe(texts, batch_size=batch_size):
        tokens += sum(1 for token in doc if token._.context_vec is not None)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "factory": factory,
        "batch_size": batch_size,
        "texts": len(texts),
        "tokens": tokens,
        "peak_above_start_mib": peak_rss_mb() - before if resettable else float("nan"),
        "wall_s": wall,
        "cpu_s": cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paragraphs", type=int, default=1000)
    parser.add_argument("--sentences", type=int, default=0, help="stream WiC sentences instead of paragraphs")
    parser.add_argument("--batch-sizes", type=int_list, default=[1000, 256, 64])
    parser.add_argument("--upstream", action="store_true", help="also with spacy-transformers' transformer")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--factory", default=FACTORY, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(stream_once(args.paragraphs, args.child, args.factory, args.sentences)))
        return
    # The data before any child loads a model: without it, one message and a non-zero exit.
    if args.sentences > 0:
        shared_data("wic", "train.data.txt")
    else:
        gutenberg_dir()
    rows: List[Dict[str, Any]] = []
    for factory in [FACTORY] + (["transformer"] if args.upstream else []):
        for batch_size in args.batch_sizes:
            command = [sys.executable, __file__, "--paragraphs", str(args.paragraphs), "--child", str(batch_size)]
            command += ["--sentences", str(args.sentences)]
            done = subprocess.run(command + ["--factory", factory], capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"the run at batch size {batch_size} ({factory}) failed:\n{done.stderr[-3000:]}")
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    kind = "WiC sentences" if args.sentences > 0 else "paragraphs"
    print(f"{rows[0]['texts']} {kind}, {rows[0]['tokens']} tokens; torch threads at their default")
    print(
        f"{'transformer factory':>20} {'nlp.pipe batch_size':>19} {'peak MiB above start':>21} "
        f"{'wall s':>7} {'CPU s':>7}"
    )
    for row in rows:
        print(
            f"{row['factory']:>20} {row['batch_size']:19d} {row['peak_above_start_mib']:21.0f} "
            f"{row['wall_s']:7.1f} {row['cpu_s']:7.1f}"
        )


if __name__ == "__main__":
    main()
