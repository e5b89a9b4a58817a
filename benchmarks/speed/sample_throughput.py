"""Throughput of build-lexicon's shard function with and without the occurrence sample
(issue 11 target: sampling within 1.2x of counting alone).

Runs the default pipeline (configs/default.cfg, MiniLM) over Gutenberg paragraphs:

1. end to end: ``partial_lexicon`` with sample_size 0 and K, alternated, median of
   ``--repeats`` runs each;
2. bookkeeping only: the same calls with a tokenizer-only pipeline that hands back
   the stored contextual vectors, i.e. what tokenizing, counting and sampling cost per
   token, whatever the device that runs the transformer (also the sample without
   context vectors, sample_contexts=False);
3. the sample's rows against sum(min(count, K)) over the same documents (the formula
   of benchmarks/speed/sample_memory.py).

    python benchmarks/speed/sample_throughput.py [--n-docs 300] [--sample-size 64] [--repeats 3]
"""

import argparse
import random
import re
import statistics
import time
from pathlib import Path
from typing import Callable, List

import numpy as np

from spacy_ctxvec.building.shard import partial_lexicon

REPO_ROOT = Path(__file__).resolve().parents[2]
try:  # run as a script: this checkout's benchmarks.data
    import checkout_path  # noqa: F401
except ModuleNotFoundError:  # imported as benchmarks.speed.<name>: the package is on the path
    pass

from benchmarks.data import book_files, gutenberg_dir  # noqa: E402


def paragraphs(n: int, seed: int = 0) -> List[str]:
    """``n`` paragraphs of 10 to 120 words drawn from the books (fixed seed)."""
    found: List[str] = []
    for path in book_files(gutenberg_dir()):
        body = path.read_bytes().decode("utf8", errors="replace")
        for paragraph in re.split(r"\n\s*\n", body):
            text = " ".join(paragraph.split())
            if 10 <= len(text.split()) <= 120:
                found.append(text)
    return random.Random(seed).sample(found, n)


def default_pipeline():
    from spacy.util import load_config, load_model_from_config

    nlp = load_model_from_config(load_config(REPO_ROOT / "configs" / "default.cfg"), auto_fill=True)
    nlp.initialize()
    return nlp


def replay_pipeline(docs) -> Callable:
    """A tokenizer-only pipeline whose one component hands back the stored contextual
    vectors of ``docs`` in order: partial_lexicon's own cost, without the transformer."""
    import spacy
    from spacy.language import Language

    from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK, install_extensions

    install_extensions()
    stored = [(doc._.get(CONTEXT_ARRAY), doc._.get(CONTEXT_MASK)) for doc in docs]
    position = [0]

    @Language.component("benchmark_replay_vectors")
    def replay_vectors(doc):
        vectors, mask = stored[position[0]]
        position[0] += 1
        doc._.set(CONTEXT_ARRAY, vectors)
        doc._.set(CONTEXT_MASK, mask)
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("benchmark_replay_vectors")

    def run(function, texts, **kwargs):
        position[0] = 0
        return function(nlp, texts, **kwargs)

    return run


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-docs", type=int, default=300)
    parser.add_argument("--sample-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bookkeeping-repeats", type=int, default=9)
    parser.add_argument("--skip-end-to-end", action="store_true")
    args = parser.parse_args()
    texts = paragraphs(args.n_docs)  # before the model: exits with one message without the data
    nlp = default_pipeline()
    partial_lexicon(nlp, texts[:16], sample_size=args.sample_size)  # warm up
    lexicon = partial_lexicon(nlp, texts, sample_size=args.sample_size)
    n_tokens = lexicon.n_occurrences
    print(f"{len(texts)} paragraphs, {n_tokens:,} counted tokens, {len(lexicon):,} types, K = {args.sample_size}")
    if not args.skip_end_to_end:
        counting, sampling = [], []
        for _ in range(args.repeats):  # alternated, so that load from other processes hits both alike
            counting.append(median_seconds(lambda: partial_lexicon(nlp, texts), 1))
            sampling.append(median_seconds(lambda: partial_lexicon(nlp, texts, sample_size=args.sample_size), 1))
        t0, t1 = statistics.median(counting), statistics.median(sampling)
        print(
            f"end to end: counting {t0:.2f} s ({n_tokens / t0:,.0f} tok/s), with sample {t1:.2f} s "
            f"({n_tokens / t1:,.0f} tok/s): ratio {t1 / t0:.3f}"
        )

    replay = replay_pipeline(list(nlp.pipe(texts)))
    counting, sampling, plain = [], [], []
    for _ in range(args.bookkeeping_repeats):
        counting.append(median_seconds(lambda: replay(partial_lexicon, texts), 1))
        sampling.append(median_seconds(lambda: replay(partial_lexicon, texts, sample_size=args.sample_size), 1))
        plain.append(
            median_seconds(
                lambda: replay(partial_lexicon, texts, sample_size=args.sample_size, sample_contexts=False), 1
            )
        )
    b0, b1, b2 = min(counting), min(sampling), min(plain)  # the least disturbed run of each
    print(
        f"bookkeeping only (fastest of {args.bookkeeping_repeats}): counting {b0 * 1e6 / n_tokens:.1f} "
        f"us/token, with sample {b1 * 1e6 / n_tokens:.1f} us/token "
        f"(sampling adds {(b1 - b0) * 1e6 / n_tokens:.1f} us/token; at the transformer speed R tok/s the ratio "
        f"is (1/R + {b1 / n_tokens:.2e}) / (1/R + {b0 / n_tokens:.2e})); sample without context vectors "
        f"(--no-sample-contexts) {b2 * 1e6 / n_tokens:.1f} us/token"
    )

    counts = dict(zip(lexicon.keys, lexicon.counts.tolist()))
    predicted = sum(min(n, args.sample_size) for n in counts.values())
    sample = lexicon.sample
    print(
        f"sample: {sample.n_rows:,} rows (formula sum(min(count, K)) = {predicted:,}; fewer where documents repeat), "
        f"{sample.nbytes / 2**20:.2f} MiB = {sample.nbytes / max(sample.n_rows, 1):.0f} bytes/row "
        f"(vectors {sample.vectors.nbytes / max(sample.n_rows, 1):.0f}, "
        f"snippets {np.mean([len(s.encode('utf8')) for s in sample.snippets]):.0f})"
    )


if __name__ == "__main__":
    main()
