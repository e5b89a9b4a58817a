"""The bucket cut's fixed cost per forward call, checked by timing the forward alone.

    python benchmarks/speed/bucket_call_cost.py [--sentences 1200] [--rounds 11]
        [--call-costs 0,25,50,100,200,400] [--buffers 1000,100000] [--cap 1024]

The pipeline cuts each buffer's spans, sorted by wordpiece count, where padded wordpieces
plus a fixed cost per forward call are least (``wordpiece_buckets``; the CPU default is
``CALL_COST_WORDPIECES``). Here the same Hugging Face model (MiniLM, the pipeline's
tokenizer, torch.inference_mode, default threads) runs only the forward calls of each cut,
tensors built beforehand, interleaved in a shuffled order every round, beside the
sorted floor capped at ``--cap`` padded wordpieces (``pipeline_floor.py``'s fastest floor on
short sentences). Texts: the first unique WiC train sentences, in buffers of B texts as
nlp.pipe hands them to the transformer (a buffer larger than the texts: one buffer).
Prints each cut's forward calls and padded wordpieces, median and fastest wall seconds,
and the median per-round ratio to the floor with its 95% bootstrap interval.
"""

import argparse
import os
import random
import sys
import time
from pathlib import Path
from statistics import median
from typing import Dict, List, Tuple

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pipeline_floor import (  # noqa: E402
    bootstrap_median_interval,
    floor_batches,
    int_list,
    span_texts_by_doc,
    wic_sentences,
)

FLOOR = "floor: sorted, cap {cap}"


def cut_batches(ids_by_buffer: List[List[List[int]]], cap: int, call_cost: int) -> List[List[List[int]]]:
    """The pipeline's cut of every buffer at this call cost."""
    from spacy_ctxvec.components.batching import wordpiece_buckets

    return [
        [ids[i] for i in bucket]
        for ids in ids_by_buffer
        for bucket in wordpiece_buckets([len(row) for row in ids], cap, call_cost)
    ]


def as_tensors(batches: List[List[List[int]]], pad_id: int) -> List[Tuple["object", "object"]]:
    import torch

    tensors = []
    for batch in batches:
        width = max(len(row) for row in batch)
        input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for r, row in enumerate(batch):
            input_ids[r, : len(row)] = torch.tensor(row)
            mask[r, : len(row)] = 1
        tensors.append((input_ids, mask))
    return tensors


def main() -> None:
    import torch
    from transformers import AutoModel

    from spacy_ctxvec.pipelines import load_pipeline

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--cap", type=int, default=1024)
    parser.add_argument("--call-costs", type=int_list, default=[1, 25, 50, 100, 200, 400])
    parser.add_argument("--buffers", type=int_list, default=[1000, 100000])
    args = parser.parse_args()

    sentences = wic_sentences(args.sentences)  # before the model: exits with one message without the data
    nlp = load_pipeline()
    transformer = nlp.get_pipe("transformer").model
    tokenizer = transformer.tokenizer
    model = AutoModel.from_pretrained(transformer.transformer.name_or_path).eval()
    spans_by_doc = span_texts_by_doc(nlp, sentences)

    def ids_of(spans: List[str]) -> List[List[int]]:
        return tokenizer(spans, add_special_tokens=True)["input_ids"]

    all_ids = ids_of([s for doc in spans_by_doc for s in doc])
    floor_indices = floor_batches(all_ids, "cap", args.cap, max_spans=len(all_ids))
    floor_rows = [[all_ids[i] for i in batch] for batch in floor_indices]
    methods = {FLOOR.format(cap=args.cap): floor_rows}
    for buffer in args.buffers:
        ids_by_buffer = [
            ids_of([s for doc in spans_by_doc[start : start + buffer] for s in doc])
            for start in range(0, len(spans_by_doc), buffer)
        ]
        for call_cost in args.call_costs:
            name = f"cut, buffers of {buffer}, call cost {call_cost}"
            methods[name] = cut_batches(ids_by_buffer, args.cap, call_cost)
    tensors = {name: as_tensors(batches, tokenizer.pad_token_id or 0) for name, batches in methods.items()}

    times: Dict[str, List[float]] = {name: [] for name in methods}
    rng = random.Random(0)
    with torch.inference_mode():
        for _ in range(args.rounds):
            order = list(methods)
            rng.shuffle(order)
            for name in order:
                start = time.perf_counter()
                for input_ids, mask in tensors[name]:
                    model(input_ids=input_ids, attention_mask=mask)
                times[name].append(time.perf_counter() - start)

    floor = times[FLOOR.format(cap=args.cap)]
    print(
        f"{len(spans_by_doc)} WiC sentences, {args.rounds} rounds, torch threads {torch.get_num_threads()}, "
        f"load average {os.getloadavg()[0]:.1f}; forward calls only"
    )
    print(f"{'method':44s} {'calls':>5s} {'padded':>7s} {'median s':>8s} {'min s':>6s}  paired x floor [95% CI]")
    for name, batches in methods.items():
        ratios = [a / b for a, b in zip(times[name], floor)]
        low, high = bootstrap_median_interval(ratios)
        padded = sum(len(batch) * max(len(row) for row in batch) for batch in batches)
        print(
            f"{name:44s} {len(batches):5d} {padded:7d} {median(times[name]):8.3f} {min(times[name]):6.3f}  "
            f"{median(ratios):.3f} [{low:.3f}, {high:.3f}]"
        )


if __name__ == "__main__":
    main()
