"""What build-lexicon's shard merges and checkpoints cost as the lexicon grows.

A local build merges each shard's partial lexicon into the lexicon counted so far and
writes a checkpoint after shards. Merging one shard costs the running lexicon's size, and
so does a checkpoint, which grows with the corpus (a large corpus: hundreds of MiB of
sample). This script makes synthetic partial lexicons of the shape one shard of
``--docs-per-shard`` Gutenberg-like documents gives (random keys from a Zipf vocabulary,
random vectors), runs them through the engine's running lexicon two ways, one shard at a
time (every shard merged at once) and grouped (``local.PENDING_SHARE``), checks that both
give the same lexicon, and times one checkpoint write of the result:

    python benchmarks/speed/checkpoint_cost.py [--shards 40] [--vocabulary 40000] [--width 384]

Compare the seconds per shard it prints with the counting time of a shard on your
machine (``build-lexicon`` prints tokens/s): the per-shard merge and write are the
overhead over counting. The engine writes a checkpoint after every shard only while a
write takes under ``local.SLOW_WRITE_S``; slower ones follow ``local.CHECKPOINT_RATIO``.
"""

import argparse
import tempfile
import time
from pathlib import Path

try:  # run as a script: this checkout's benchmarks.data
    import checkout_path  # noqa: F401
except ModuleNotFoundError:  # imported as benchmarks.speed.<name>: the package is on the path
    pass
import numpy as np

from spacy_ctxvec.building import local
from spacy_ctxvec.building.checkpoints import Checkpoint, open_checkpoint_dir, write_checkpoint
from spacy_ctxvec.lexicon.sample import OccurrenceSample
from spacy_ctxvec.lexicon.statistics import Lexicon

K = 64


def shard_lexicon(rng: np.random.Generator, vocabulary: int, tokens: int, width: int) -> Lexicon:
    """A partial lexicon of ``tokens`` occurrences drawn from a Zipf vocabulary."""
    ids = np.minimum(rng.zipf(1.2, size=tokens), vocabulary) - 1
    type_ids, counts = np.unique(ids, return_counts=True)
    keys = [f"w{i:07d}" for i in type_ids.tolist()]
    sums = rng.integers(-(2**20), 2**20, size=(len(keys), width), dtype=np.int64)
    rows = np.minimum(counts, K)
    offsets = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)
    n_rows = int(offsets[-1])
    sample = OccurrenceSample(
        keys,
        offsets,
        rng.integers(0, 2**63, size=n_rows, dtype=np.uint64),
        rng.standard_normal((n_rows, width)).astype(np.float16),
        ["a snippet of about forty characters here"] * n_rows,
        k=K,
        width=width,
        contexts=rng.standard_normal((n_rows, width)).astype(np.float16),
    )
    return Lexicon(keys, counts, sums, sums, width=width, sample=sample)


def run(shards, merge_each: bool) -> tuple:
    counted = local._Counted(None)
    before = local.PENDING_SHARE
    local.PENDING_SHARE = 0.0 if merge_each else before
    start = time.perf_counter()
    try:
        for shard in shards:
            counted.add(shard)
        lexicon = counted.lexicon()
    finally:
        local.PENDING_SHARE = before
    return lexicon, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shards", type=int, default=40)
    parser.add_argument("--vocabulary", type=int, default=40000)
    parser.add_argument("--docs-per-shard", type=int, default=1000)
    parser.add_argument("--tokens-per-doc", type=int, default=13)
    parser.add_argument("--width", type=int, default=384)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    tokens = args.docs_per_shard * args.tokens_per_doc
    shards = [shard_lexicon(rng, args.vocabulary, tokens, args.width) for _ in range(args.shards)]
    each, each_s = run(shards, merge_each=True)
    grouped, grouped_s = run(shards, merge_each=False)
    assert each == grouped, "grouped merging changed the lexicon"
    assert grouped is not None and grouped.sample is not None
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder) / "checkpoints"
        open_checkpoint_dir(directory, resume=False)
        start = time.perf_counter()
        write_checkpoint(directory, Checkpoint(args.shards, grouped, grouped.n_occurrences, "0" * 64), {})
        write_s = time.perf_counter() - start
    mib = local._held_bytes(grouped) / 2**20
    rows = grouped.sample.n_rows
    print(f"{args.shards} shards of {tokens:,} tokens: {len(grouped):,} types, {rows:,} sample rows, {mib:,.0f} MiB")
    print(f"merging one shard at a time: {each_s / args.shards:.3f} s per shard")
    print(
        f"merging in groups (PENDING_SHARE {local.PENDING_SHARE}): {grouped_s / args.shards:.3f} s per shard"
        f" ({each_s / max(grouped_s, 1e-9):.1f}x less)"
    )
    print(
        f"one checkpoint of the final lexicon: {write_s:.2f} s (written after every shard while under "
        f"{local.SLOW_WRITE_S} s, else after {local.CHECKPOINT_RATIO}x its time of counting)"
    )


if __name__ == "__main__":
    main()
