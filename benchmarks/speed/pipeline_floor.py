"""The default pipeline against bare Hugging Face floors, side by side in one process.

    python benchmarks/speed/pipeline_floor.py [--rounds 5] [--sentences 1200] [--paragraphs 120]
        [--caps 1024,4096] [--pipeline-caps 1024,4096] [--span-caps 2048:32] [--buffers 2000]
        [--buffer-costs 128,256,1000] [--stages] [--cprofile] [--json PATH]

Texts: short sentences (the first unique WiC train sentences) and long paragraphs
(Gutenberg paragraphs of 800-4000 characters), from ../shared/data. The pipeline is
configs/default.cfg assembled in memory, run with nlp.pipe. Each floor runs the bare
Hugging Face AutoModel (the same MiniLM weights, fast tokenizer, torch.inference_mode,
default torch threads) over the same forward inputs as the pipeline (the texts of its
strided spans: whole sentences, or windows of 128 spaCy tokens for paragraphs), and
includes its own tokenisation:

- ``sorted, cap N``: spans sorted by wordpiece count, batches of at most N padded wordpieces;
- ``sorted, cap N, <= S texts`` (``--span-caps N:S``): the same, and at most S spans a batch;
- ``sorted, 32 texts``: sorted by wordpiece count, 32 spans a batch;
- ``unsorted, 32 texts``: 32 spans a batch in text order.

Where there are more texts than ``nlp.batch_size``, the row ``HF sorted in buffers of B
texts, cap N`` runs the sorted floor at the pipeline's (first) cap on buffers of B texts in order, as nlp.pipe
hands them to the transformer: what a streaming pipeline can reach. It is a reference,
not a floor of the ratios.

The pipeline runs at its configured CPU cap, or at each of ``--pipeline-caps``. Methods
run interleaved in every round, in a shuffled order (seeded), each after a full garbage
collection; the table gives medians of wall and CPU seconds and each one's ratio to the
fastest floor (by wall, and by CPU time), and beside them the same for each
method's fastest round (other work on the machine only adds time), and the median of each
method's per-round ratios to the floor with the fastest median (paired within a round). The row
``control: HF sorted, cap N wordpieces, run again`` runs the first floor a second time: an A/A test;
its paired ratio is to that twin (the same work), so it shows how far this machine's noise alone
moves a paired ratio, and whether the bootstrap interval covers 1. ``--json PATH`` writes every
round's times. ``--buffer-costs B,...`` prints, without timing, what the bucket cut costs (padded
wordpieces plus a fixed cost per forward call) when the texts come in buffers of B texts, and exits.
``--buffers B,...`` adds the pipeline at other nlp.pipe batch sizes (a buffer of
all the texts takes the stream's split out). ``--stages`` adds the
pipeline with the garbage collector off, its transformer component alone (spaCy Docs +
the transformer pipe), its Hugging Face model with the floor's batching and the pipeline
with the greedy bucket cut it used before (each bucket filled until the next span would
not fit); the floors'
ratio still compares floors only). ``--cprofile`` profiles one extra nlp.pipe pass over
each text set afterwards.
"""

import argparse
import cProfile
import functools
import gc
import io
import os
import pstats
import random
import re
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import srsly

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

try:  # run as a script: this checkout's benchmarks.data
    import checkout_path  # noqa: F401
except ModuleNotFoundError:  # imported as benchmarks.speed.<name>: the package is on the path
    pass

from benchmarks.data import book_files, gutenberg_dir, shared_data  # noqa: E402

PIPELINE = "pipeline (nlp.pipe)"
STREAMING = "HF sorted in buffers of"
CONTROL = "control:"
CONTROL_SUFFIX = ", run again"


def wic_sentences(n: int) -> List[str]:
    seen: Dict[str, None] = {}
    for line in shared_data("wic", "train.data.txt").read_text(encoding="utf8").splitlines():
        for sentence in line.split("\t")[3:5]:
            seen.setdefault(sentence.strip(), None)
    return list(seen)[:n]


def gutenberg_paragraphs(n: int) -> List[str]:
    paragraphs: List[str] = []
    if n <= 0:
        return paragraphs
    for path in book_files(gutenberg_dir()):
        if "README" in path.name:
            continue
        for block in re.split(r"\n\s*\n", path.read_text(encoding="utf8", errors="replace")):
            text = " ".join(block.split())
            if 800 <= len(text) <= 4000:
                paragraphs.append(text)
    step = max(1, len(paragraphs) // n)
    return paragraphs[::step][:n]


def span_texts(nlp, texts: List[str]) -> List[str]:
    """The texts of the spans the pipeline's transformer runs forward on."""
    return [span for doc_spans in span_texts_by_doc(nlp, texts) for span in doc_spans]


def span_texts_by_doc(nlp, texts: List[str]) -> List[List[str]]:
    """span_texts, one list per text."""
    get_spans = nlp.get_pipe("transformer").model.attrs["get_spans"]
    docs = [nlp.make_doc(text) for text in texts]
    return [[span.text for span in doc_spans] for doc_spans in get_spans(docs)]


def hf_floor_in_buffers(model, tokenizer, spans_by_doc: List[List[str]], buffer: int, cap: int) -> None:
    """The sorted, capped floor run on buffers of ``buffer`` texts in order, as a
    streaming pipeline sees them (nlp.pipe sorts within each nlp.batch_size buffer)."""
    for start in range(0, len(spans_by_doc), buffer):
        chunk = [span for doc_spans in spans_by_doc[start : start + buffer] for span in doc_spans]
        hf_floor(model, tokenizer, chunk, "cap", cap, max_spans=len(chunk))


def floor_batches(ids: List[List[int]], batching: str, cap: int = 0, max_spans: int = 32) -> List[List[int]]:
    """The floors' batches of row indices: sorted by length unless ``batching`` is
    "unsorted", each filled until the next row would pass ``max_spans`` rows or, for
    "cap", ``cap`` padded wordpieces."""
    order = list(range(len(ids)))
    if batching != "unsorted":
        order.sort(key=lambda i: len(ids[i]))
    batches: List[List[int]] = []
    current: List[int] = []
    for i in order:
        longest = max([len(ids[j]) for j in current] + [len(ids[i])])
        full = len(current) >= max_spans or (batching == "cap" and longest * (len(current) + 1) > cap)
        if current and full:
            batches.append(current)
            current = []
        current.append(i)
    batches.append(current)
    return batches


def hf_floor(model, tokenizer, texts: List[str], batching: str, cap: int = 0, max_spans: int = 32) -> None:
    import torch

    ids = tokenizer(texts, add_special_tokens=True)["input_ids"]
    batches = floor_batches(ids, batching, cap, max_spans)
    pad = tokenizer.pad_token_id or 0
    with torch.inference_mode():
        for batch in batches:
            width = max(len(ids[i]) for i in batch)
            input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                input_ids[row, : len(ids[i])] = torch.tensor(ids[i])
                mask[row, : len(ids[i])] = 1
            model(input_ids=input_ids, attention_mask=mask).last_hidden_state.numpy()


def capped_floor(cap: int) -> str:
    """The name of the sorted floor capped at ``cap`` padded wordpieces (the control's twin)."""
    return f"HF sorted, cap {cap} wordpieces"


@functools.lru_cache(maxsize=1)
def floor_model() -> Tuple[Any, Any]:
    """The floors' Hugging Face model and tokenizer, loaded once: the warm-up runs the model that is timed."""
    from transformers import AutoModel, AutoTokenizer

    from spacy_ctxvec.components.transformer import resolve_model_name

    folder = resolve_model_name()
    return AutoModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder, use_fast=True)


def methods(
    nlp,
    texts: List[str],
    caps: List[int],
    pipeline_caps: List[int],
    span_caps: Sequence[Tuple[int, int]] = (),
    stages: bool = False,
    buffers: Sequence[int] = (),
) -> Dict[str, Callable[[], None]]:
    model, tokenizer = floor_model()
    spans = span_texts(nlp, texts)
    runs: Dict[str, Callable[[], None]] = {}
    for cap in caps:
        runs[capped_floor(cap)] = lambda cap=cap: hf_floor(model, tokenizer, spans, "cap", cap, max_spans=len(spans))
    for cap, max_spans in span_caps:
        runs[f"HF sorted, cap {cap}, <= {max_spans} texts"] = lambda cap=cap, max_spans=max_spans: hf_floor(
            model, tokenizer, spans, "cap", cap, max_spans=max_spans
        )
    if len(texts) > nlp.batch_size:  # the reference a streaming pipeline can reach (not a floor of the table)
        by_doc = span_texts_by_doc(nlp, texts)
        cap = pipeline_caps[0]
        runs[f"{STREAMING} {nlp.batch_size} texts, cap {cap}"] = lambda: hf_floor_in_buffers(
            model, tokenizer, by_doc, nlp.batch_size, cap
        )
    # The first floor once more, not a floor of the ratios: an A/A test of the measurement itself.
    runs[f"{CONTROL} {capped_floor(caps[0])}{CONTROL_SUFFIX}"] = lambda: hf_floor(
        model, tokenizer, spans, "cap", caps[0], max_spans=len(spans)
    )
    runs["HF sorted, 32 texts"] = lambda: hf_floor(model, tokenizer, spans, "sorted")
    runs["HF unsorted, 32 texts"] = lambda: hf_floor(model, tokenizer, spans, "unsorted")
    for cap in pipeline_caps:
        runs[f"{PIPELINE}, cap {cap}"] = lambda cap=cap: run_pipeline(nlp, texts, cap)
    for buffer in buffers:  # at the first pipeline cap
        runs[f"{PIPELINE}, cap {pipeline_caps[0]}, batch_size {buffer}"] = lambda buffer=buffer: run_pipeline(
            nlp, texts, pipeline_caps[0], buffer
        )
    if stages:  # at the last pipeline cap
        runs[f"{PIPELINE}, gc off"] = lambda: without_gc(lambda: run_pipeline(nlp, texts, pipeline_caps[-1]))
        runs[f"{PIPELINE}: transformer only"] = lambda: transformer_only(nlp, texts, pipeline_caps[-1])
        runs[f"{PIPELINE}: its HF model, floor batches"] = lambda: pipeline_model_floor(
            nlp, tokenizer, spans, pipeline_caps[-1]
        )
        runs[f"{PIPELINE}, greedy bucket cut"] = lambda: with_greedy_cut(
            lambda: run_pipeline(nlp, texts, pipeline_caps[-1])
        )
    return runs


def greedy_buckets(lengths: Sequence[int], max_wordpieces: int, call_cost: int = 0) -> List[np.ndarray]:
    """The cut the pipeline used before: each bucket filled until the next span would not fit."""
    order = np.argsort(np.asarray(lengths, dtype=np.int64), kind="stable")
    buckets, start = [], 0
    for end in range(1, len(order) + 1):
        if end == len(order) or lengths[order[end]] * (end - start + 1) > max_wordpieces:
            buckets.append(order[start:end])
            start = end
    return buckets


def with_greedy_cut(run: Callable[[], None]) -> None:
    from spacy_ctxvec.components import batching

    chosen = batching.wordpiece_buckets
    batching.wordpiece_buckets = greedy_buckets
    try:
        run()
    finally:
        batching.wordpiece_buckets = chosen


def pipeline_model_floor(nlp, tokenizer, spans: List[str], cap: int) -> None:
    """The floor's own batching (sorted, cap) run on the pipeline's Hugging Face model, in
    eval mode as the pipeline runs it: is the forward itself slower in the pipeline?"""
    hf_model = nlp.get_pipe("transformer").model.transformer
    was_training = hf_model.training
    hf_model.eval()
    try:
        hf_floor(hf_model, tokenizer, spans, "cap", cap, max_spans=len(spans))
    finally:
        hf_model.train(was_training)


def without_gc(run: Callable[[], None]) -> None:
    gc.disable()
    try:
        run()
    finally:
        gc.enable()


def transformer_only(nlp, texts: List[str], cap: int) -> None:
    """The pipeline's first component alone: spaCy Docs, the transformer pipe and its model."""
    transformer = nlp.get_pipe("transformer")
    transformer.model.max_batch_wordpieces = cap
    list(transformer.pipe((nlp.make_doc(text) for text in texts), batch_size=nlp.batch_size))


def run_pipeline(nlp, texts: List[str], cap: int, batch_size: Optional[int] = None) -> None:
    """nlp.pipe over the texts with the transformer's CPU cap set to ``cap`` (and the
    pipeline's batch_size, unless ``batch_size`` is given)."""
    nlp.get_pipe("transformer").model.max_batch_wordpieces = cap
    list(nlp.pipe(texts, batch_size=batch_size))


def timed(run: Callable[[], None]) -> Tuple[float, float]:
    """Wall and CPU seconds of ``run``, started from a collected heap: a full collection
    of this process's objects (about 0.4 s with the model loaded) otherwise falls into
    whichever method's round crosses the collector's threshold, as other rounds' garbage
    decides; collections the method's own objects cause are still timed."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def table(title: str, times: Dict[str, List[Tuple[float, float]]]) -> str:
    """Per method: the median of the rounds and its ratio to the fastest floor's median; the
    fastest round and its ratio to the fastest floor's fastest round (other work on the machine
    only ever adds time, so the fastest round is the least disturbed one, as ``timeit``
    reports); and the median of the per-round ratios to the floor with the fastest median, in
    the same round (paired, so a minute when the whole machine runs slower cancels out)."""
    stats = {
        "median": {name: (median(w for w, _ in rows), median(c for _, c in rows)) for name, rows in times.items()},
        "min": {name: (min(w for w, _ in rows), min(c for _, c in rows)) for name, rows in times.items()},
    }
    not_floors = (PIPELINE, STREAMING, CONTROL)
    best = {}
    for statistic, values in stats.items():
        floors = [value for name, value in values.items() if not name.startswith(not_floors)]
        best[statistic] = (min(w for w, _ in floors), min(c for _, c in floors))
    floor = min((name for name in times if not name.startswith(not_floors)), key=lambda name: stats["median"][name][0])
    header = f"{'method':50} {'wall s':>7} {'x best':>6} {'CPU s':>7} {'x best':>6} | {'min wall':>8} {'x best':>6}"
    lines = [
        f"\n{title}",
        header + f" {'min CPU':>7} {'x best':>6} | {'paired x wall [95% CI]':>22} {'x CPU [95% CI]':>22}",
    ]
    for name, rows in times.items():
        cells = []
        for statistic in ("median", "min"):
            wall, cpu = stats[statistic][name]
            best_wall, best_cpu = best[statistic]
            width = 7 if statistic == "median" else 8
            cells.append(f"{wall:{width}.2f} {wall / best_wall:6.2f} {cpu:7.2f} {cpu / best_cpu:6.2f}")
        # The control is paired with its twin (the same work), every other row with the floor.
        reference = name[len(CONTROL) + 1 : -len(CONTROL_SUFFIX)] if name.startswith(CONTROL) else floor
        paired = []
        for column in (0, 1):
            ratios = [row[column] / ref_row[column] for row, ref_row in zip(rows, times[reference])]
            low, high = bootstrap_median_interval(ratios)
            paired.append(f"{median(ratios):6.2f} [{low:.2f}, {high:.2f}]")
        lines.append(f"{name:50} {cells[0]} | {cells[1]} | {paired[0]:>22} {paired[1]:>22}")
    lines.append(
        f"(paired: per-round ratio to '{floor}', median over rounds, the control's to its twin; "
        "95% CI: bootstrap over rounds, which the control row checks)"
    )
    return "\n".join(lines)


def bootstrap_median_interval(values: Sequence[float], resamples: int = 4000, seed: int = 0) -> Tuple[float, float]:
    """The 95% percentile-bootstrap interval of the median of ``values`` (rounds resampled with replacement)."""
    from scipy.stats import bootstrap

    data = np.asarray(values, dtype=np.float64)
    if np.ptp(data) == 0:  # one value (a floor paired with itself): the interval is that value
        return float(data[0]), float(data[0])
    result = bootstrap((data,), np.median, n_resamples=resamples, method="percentile", random_state=seed)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def int_list(text: str) -> List[int]:
    """A comma-separated list of positive integers (argparse type)."""
    try:
        values = [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers such as 1024,4096, got '{text}'") from None
    if any(value <= 0 for value in values):
        raise argparse.ArgumentTypeError(f"every value must be positive, got '{text}'")
    return values


def cap_pairs(text: str) -> List[Tuple[int, int]]:
    """Comma-separated CAP:TEXTS pairs such as 2048:32 (argparse type)."""
    pairs = []
    for item in (item for item in text.split(",") if item.strip()):
        cap, _, max_spans = item.partition(":")
        try:
            pairs.append((int(cap), int(max_spans)))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected CAP:TEXTS pairs such as 2048:32,1024:32, got '{text}'"
            ) from None
    return pairs


def buffer_costs(nlp, texts: List[str], buffers: Sequence[int], cap: int) -> str:
    """No timing: for each buffer size (Docs), the cost the bucket cut minimises (padded wordpieces
    plus CALL_COST_WORDPIECES per forward call) of the texts' spans cut buffer by buffer, as a
    ratio to their real wordpieces."""
    from spacy_ctxvec.components.batching import CALL_COST_WORDPIECES, wordpiece_buckets

    tokenizer = nlp.get_pipe("transformer").model.tokenizer
    lengths = [
        [len(ids) for ids in tokenizer(spans)["input_ids"]] if spans else [] for spans in span_texts_by_doc(nlp, texts)
    ]
    real = sum(map(sum, lengths))
    lines = [f"{'buffer (texts)':>14} {'padded':>8} {'calls':>6} {'cost':>8} {'cost / real':>11}"]
    for buffer in buffers:
        padded = calls = 0
        for start in range(0, len(lengths), buffer):
            spans = [n for doc_lengths in lengths[start : start + buffer] for n in doc_lengths]
            for bucket in wordpiece_buckets(spans, cap, CALL_COST_WORDPIECES):
                padded += max(spans[i] for i in bucket) * len(bucket)
                calls += 1
        cost = padded + CALL_COST_WORDPIECES * calls
        lines.append(f"{buffer:14d} {padded:8d} {calls:6d} {cost:8d} {cost / real:11.3f}")
    return "\n".join(lines)


def profile(nlp, texts: List[str], top: int = 25) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    list(nlp.pipe(texts))
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    import torch

    from spacy_ctxvec.pipelines import load_pipeline

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=1200)
    parser.add_argument("--paragraphs", type=int, default=120)
    parser.add_argument(
        "--caps", type=int_list, default=[1024, 4096], help="padded-wordpiece caps of the sorted floors"
    )
    parser.add_argument(
        "--pipeline-caps",
        type=int_list,
        default=[],
        help="CPU caps to run the pipeline at (default: its configured cap)",
    )
    parser.add_argument(
        "--span-caps",
        type=cap_pairs,
        default=[],
        help="floors with a wordpiece cap and a span limit, e.g. 2048:32,1024:32",
    )
    parser.add_argument(
        "--stages",
        action="store_true",
        help="also the pipeline with the garbage collector off, and its transformer alone",
    )
    parser.add_argument(
        "--buffers",
        type=int_list,
        default=[],
        help="also the pipeline at these nlp.pipe batch sizes (the default buffers nlp.batch_size texts)",
    )
    parser.add_argument(
        "--buffer-costs",
        type=int_list,
        default=[],
        help="print the bucket cut's cost at these buffer sizes (texts) and exit, no timing",
    )
    parser.add_argument("--cprofile", action="store_true")
    parser.add_argument("--json", type=Path, help="write every round's wall and CPU seconds here")
    args = parser.parse_args()

    # The texts first: without the data folder this exits with one message, before any model loads.
    sentences, paragraphs = wic_sentences(args.sentences), gutenberg_paragraphs(args.paragraphs)
    nlp = load_pipeline()
    caps, span_caps = args.caps, args.span_caps
    model_cfg = nlp.config["components"]["transformer"]["model"]
    pipeline_caps = args.pipeline_caps or [model_cfg["max_batch_wordpieces"]]
    load_start = os.getloadavg()[0]
    print(
        f"torch threads {torch.get_num_threads()}, CPU cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}, "
        f"pipeline max_batch_wordpieces {model_cfg['max_batch_wordpieces']} (CPU)"
    )
    sets = {  # the counts found: WiC train has fewer unique sentences than a large --sentences asks
        f"short sentences: {len(sentences)} WiC train sentences": sentences,
        f"long paragraphs: {len(paragraphs)} Gutenberg paragraphs": paragraphs,
    }
    raw: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    for title, texts in sets.items():
        if not texts:
            continue
        if args.buffer_costs:
            print(f"\n{title}\n" + buffer_costs(nlp, texts, args.buffer_costs, pipeline_caps[0]))
            continue
        for run in methods(
            nlp, texts[:64], caps, pipeline_caps, span_caps, args.stages, args.buffers
        ).values():  # warm up
            run()
        runs = methods(nlp, texts, caps, pipeline_caps, span_caps, args.stages, args.buffers)
        times: Dict[str, List[Tuple[float, float]]] = {name: [] for name in runs}
        order = random.Random(0)
        started = time.perf_counter()
        for round_number in range(1, args.rounds + 1):
            names = list(runs)
            order.shuffle(names)  # no method always runs right after the same one
            for name in names:
                times[name].append(timed(runs[name]))
            elapsed = time.perf_counter() - started
            print(f"{title}: round {round_number}/{args.rounds} done ({elapsed:.0f} s)", file=sys.stderr, flush=True)
        n_words = sum(len(nlp.make_doc(text)) for text in texts)
        print(table(f"{title} ({n_words} spaCy tokens), medians and fastest of {args.rounds} rounds", times))
        raw[title] = times
        print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)
        if args.cprofile:
            nlp.get_pipe("transformer").model.max_batch_wordpieces = model_cfg["max_batch_wordpieces"]
            print(profile(nlp, texts))
    if args.json:
        srsly.write_json(args.json, {"load_average_start": load_start, "rounds": raw})


if __name__ == "__main__":
    main()
