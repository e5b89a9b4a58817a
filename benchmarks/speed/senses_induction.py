"""Time and memory of induce_inventory (issue 11 part 2).

    python benchmarks/speed/senses_induction.py synthetic [N_TYPES] [K] [WIDTH]
    python benchmarks/speed/senses_induction.py real CACHE_DIR [LAYER]

synthetic: N_TYPES types x K sampled rows (float16), 70% one-meaning types (centre +
noise), 30% with 2-3 meanings. real: the sampled Gutenberg occurrences embedded for
the sense research (corp_vecs.npy (M, 7, 384) float16 + corp_meta.npz; rows with
``sel``: up to 64 per type of subset frequency >= 10), hidden state LAYER (default 4).
Prints wall time, CPU time, peak RSS growth and the sense counts.
"""

import argparse
import resource
import time

import numpy as np

from spacy_ctxvec.lexicon.sample import OccurrenceSample
from spacy_ctxvec.lexicon.sense_induction import induce_inventory
from spacy_ctxvec.lexicon.statistics import Lexicon


def synthetic(n_types: int, k: int, width: int):
    rng = np.random.default_rng(0)
    keys, blocks = [], []
    for t in range(n_types):
        n_meanings = 1 if t % 10 < 7 else 2 + t % 2
        centres = rng.normal(size=(n_meanings, width))
        which = rng.integers(0, n_meanings, size=k)
        blocks.append((centres[which] + 0.6 * rng.normal(size=(k, width))).astype(np.float16))
        keys += [f"w{t:06d}"] * k
    counts = {f"w{t:06d}": int(k * (1 + t % 50)) for t in range(n_types)}
    return keys, np.concatenate(blocks), counts


def real(cache: str, layer: int):
    meta = np.load(f"{cache}/corp_meta.npz")
    vectors = np.load(f"{cache}/corp_vecs.npy", mmap_mode="r")
    rows = np.flatnonzero(meta["sel"])
    types = meta["types"]
    keys = types[meta["type"][rows]].tolist()
    counts = dict(zip(types.tolist(), meta["freq"].tolist()))
    return keys, np.asarray(vectors[rows, layer], dtype=np.float16), counts


def build_lexicon(keys, vectors, counts, k: int) -> Lexicon:
    unique = sorted(set(keys))
    priorities = np.arange(len(keys), dtype=np.uint64)
    sample = OccurrenceSample.from_occurrences(keys, vectors, priorities, [""] * len(keys), k=k)
    # statistics part: only the counts matter for induction (weights); sums are placeholders
    lexicon = Lexicon(
        unique,
        np.array([counts[u] for u in unique], dtype=np.int64),
        np.zeros((len(unique), vectors.shape[1]), dtype=np.int64),
        np.zeros((len(unique), vectors.shape[1]), dtype=np.int64),
        width=vectors.shape[1],
        meta={"key": "lower"},
    )
    return lexicon.with_sample(sample)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    data = parser.add_subparsers(dest="data", required=True)
    synthetic_args = data.add_parser("synthetic", help="made-up types with one to three meanings")
    synthetic_args.add_argument("n_types", type=int, nargs="?", default=5000)
    synthetic_args.add_argument("k", type=int, nargs="?", default=64)
    synthetic_args.add_argument("width", type=int, nargs="?", default=384)
    real_args = data.add_parser("real", help="the sampled Gutenberg occurrences of the sense research")
    real_args.add_argument("cache_dir")
    real_args.add_argument("layer", type=int, nargs="?", default=4)
    args = parser.parse_args()
    if args.data == "synthetic":
        k = args.k
        keys, vectors, counts = synthetic(args.n_types, k, args.width)
    else:
        keys, vectors, counts = real(args.cache_dir, args.layer)
        k = 64
    lexicon = build_lexicon(keys, vectors, counts, k)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    inventory = induce_inventory(lexicon, min_count=5)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n = inventory.counts()
    print(
        f"{len(lexicon.sample)} sampled types, {lexicon.sample.n_rows} rows x {lexicon.width}: "
        f"{len(inventory)} types with senses, {int((n > 1).sum())} with > 1 ({inventory.n_senses_total} senses, "
        f"mean {n[n > 1].mean() if (n > 1).any() else 0:.2f} where > 1)"
    )
    print(
        f"induce_inventory: wall {wall:.1f} s, CPU {cpu:.1f} s ({1000 * cpu / max(len(inventory), 1):.2f} ms "
        "CPU per type), "
        f"peak RSS growth {(rss_after - rss_before) / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
