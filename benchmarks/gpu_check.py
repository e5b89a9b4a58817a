"""GPU benchmark and GPU-vs-CPU equality check, as one prepared script.

    python benchmarks/gpu_check.py                      # on a GPU machine (needs cupy)
    python benchmarks/gpu_check.py --dry-run            # the same logic on CPU, few sentences

Steps:
1. CPU reference: configs/default.cfg assembled on CPU (float32); contextual vectors of
   the check sentences.
2. GPU pipeline (spacy.require_gpu): the same weights, spacy-transformers
   ``mixed_precision`` for fp16/bf16 (autocast; bf16 through torch's default CUDA
   autocast dtype), large nlp.pipe batches, the bucketed model's
   ``max_batch_wordpieces_gpu`` raised for the GPU (``--max-batch-wordpieces``).
3. Time nlp.pipe on the GPU and on the CPU (same sentences), tokens/s and ratio; the
   bucketed Hugging Face floor on the same device and precision as the reference row
   (the pipeline's time / the floor's, as on CPU).
4. Equality: per-token cosine between GPU and CPU vectors; fails (exit 1) below the
   threshold for the precision (fp32 0.9999, fp16/bf16 0.99 at the median, 0.95 min).
5. The GPU cap by measurement (``--gpu-caps``, fp32): the pipeline and the bucketed floor
   timed at each padded-wordpiece cap, so the default ``max_batch_wordpieces_gpu`` can be
   chosen from one run.
6. Batched device gather: the rows ctxvec_context needs, gathered and copied to the host
   Doc by Doc (before 2026-12-04), against the product's one gather and copy per batch
   (batch_trf_data_rows); time and equality.
7. Write the numbers as a "## GPU" section into --output (default benchmarks/speed/GPU.md,
   replacing an earlier section of this script there; with --dry-run only when --output is
   given). Its own file: run_all.py rewrites RESULTS.md from its JSON.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks import methods  # noqa: E402
from benchmarks.data import sample_sentences  # noqa: E402
from benchmarks.environment import environment_lines  # noqa: E402
from benchmarks.speed.pipeline_floor import int_list  # noqa: E402

SECTION_START = "<!-- gpu_check start -->"
SECTION_END = "<!-- gpu_check end -->"
THRESHOLDS = {"fp32": (0.9999, 0.999), "fp16": (0.99, 0.95), "bf16": (0.99, 0.95)}


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry-run", action="store_true", help="run the logic on CPU (no require_gpu), few sentences")
    parser.add_argument("--sentences", type=int, default=None, help="default 5000 (dry run: 40)")
    parser.add_argument("--precision", choices=sorted(THRESHOLDS), nargs="+", default=["fp32", "fp16", "bf16"])
    parser.add_argument("--batch-size", type=int, default=2048, help="nlp.pipe batch size on the GPU")
    parser.add_argument(
        "--max-batch-wordpieces", type=int, default=32768, help="padded wordpieces per forward call on the GPU"
    )
    parser.add_argument(
        "--gpu-caps",
        type=int_list,
        default=[4096, 8192, 16384, 32768, 65536],
        help="caps (padded wordpieces per forward call) to time the fp32 pipeline and floor at; empty: none",
    )
    parser.add_argument("--cpu-sentences", type=int, default=None, help="sentences timed on CPU (default: all)")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    args.sentences = args.sentences or (40 if args.dry_run else 5000)
    if args.output is None and not args.dry_run:
        args.output = REPO_ROOT / "benchmarks" / "speed" / "GPU.md"
    return args


def context_vectors(nlp, texts: Sequence[str], batch_size: Optional[int] = None) -> List[np.ndarray]:
    """Each text's ctxvec_context rows with a vector, as float32 numpy (cupy copied to host)."""
    from spacy_ctxvec.components.transformer import to_numpy

    out = []
    for doc in nlp.pipe(texts, batch_size=batch_size):
        vectors, mask = to_numpy(doc._.ctxvec_context), to_numpy(doc._.ctxvec_context_mask)
        out.append(np.asarray(vectors[mask], dtype=np.float32))
    return out


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    norms = np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1)
    return np.divide((a64 * b64).sum(1), norms, out=np.ones(len(a64)), where=norms > 0)


def agreement(reference: List[np.ndarray], other: List[np.ndarray]) -> Dict[str, float]:
    if [r.shape for r in reference] != [o.shape for o in other]:
        raise AssertionError("GPU and CPU pipelines gave vectors of different shapes")
    cosines = np.concatenate([cosine_rows(r, o) for r, o in zip(reference, other)])
    diffs = np.concatenate([np.abs(r - o).ravel() for r, o in zip(reference, other)])
    return {
        "median_cosine": float(np.median(cosines)),
        "min_cosine": float(cosines.min()),
        "max_abs_diff": float(diffs.max()),
        "n_tokens": int(len(cosines)),
    }


NO_GPU = "No GPU visible (spaCy needs CuPy and CUDA): run on a GPU machine, or --dry-run on CPU."


def gpu_visible() -> bool:
    """Whether spaCy (CuPy) and torch can both use a GPU here."""
    import torch
    from thinc.util import has_cupy_gpu

    return bool(has_cupy_gpu) and torch.cuda.is_available()


def load_on_device(pipeline_dir: Path, precision: str, batch_size: int, max_batch_wordpieces: int, dry_run: bool):
    """The assembled pipeline loaded for the GPU (dry run: CPU) with mixed precision."""
    import spacy
    import torch

    if not dry_run:
        spacy.require_gpu()
    if precision == "bf16" and torch.cuda.is_available():
        torch.set_autocast_dtype("cuda", torch.bfloat16)
    elif precision == "fp16" and torch.cuda.is_available():
        torch.set_autocast_dtype("cuda", torch.float16)
    overrides = {
        "nlp.batch_size": batch_size,
        # the GPU reads max_batch_wordpieces_gpu; the dry run (CPU) reads max_batch_wordpieces
        "components.transformer.model.max_batch_wordpieces_gpu": max_batch_wordpieces,
        "components.transformer.model.max_batch_wordpieces": max_batch_wordpieces,
        "components.transformer.model.mixed_precision": precision != "fp32",
    }
    return spacy.load(pipeline_dir, config=overrides)


def timed_pipe(nlp, texts: Sequence[str]) -> float:
    started = time.perf_counter()
    for _ in nlp.pipe(texts):
        pass
    _synchronize()
    return time.perf_counter() - started


def _synchronize() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def timed_floor(texts: Sequence[str], precision: str, max_batch_wordpieces: int, dry_run: bool) -> float:
    """The bucketed Hugging Face floor on the pipeline's device and precision."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    device = "cpu" if dry_run or not torch.cuda.is_available() else "cuda"
    tokenizer = AutoTokenizer.from_pretrained(methods.model_dir())
    model = AutoModel.from_pretrained(methods.model_dir()).eval().to(device)
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    lengths = [len(ids) for ids in tokenizer(list(texts))["input_ids"]]

    def run() -> None:
        with (
            torch.inference_mode(),
            torch.autocast(device_type=device, dtype=dtype, enabled=dtype is not None and device == "cuda"),
        ):
            for batch in methods.length_buckets(lengths, max_batch_wordpieces):
                encoding = tokenizer([texts[i] for i in batch], padding=True, return_tensors="pt").to(device)
                model(**encoding).last_hidden_state.float().cpu().numpy()

    run()  # warm-up
    _synchronize()
    started = time.perf_counter()
    run()
    _synchronize()
    return time.perf_counter() - started


def cap_sweep(
    pipeline_dir: Path, texts: Sequence[str], caps: Sequence[int], batch_size: int, dry_run: bool
) -> List[Dict[str, float]]:
    """The fp32 pipeline and the bucketed floor timed at each cap (after a warm-up)."""
    rows = []
    for cap in caps:
        nlp = load_on_device(pipeline_dir, "fp32", batch_size, cap, dry_run)
        warm_up(nlp, texts)
        seconds = timed_pipe(nlp, texts)
        floor_seconds = timed_floor(texts, "fp32", cap, dry_run)
        rows.append({"cap": cap, "seconds": seconds, "floor_seconds": floor_seconds})
        print("cap", json.dumps(rows[-1]), flush=True)
    return rows


def gather_check(nlp, texts: Sequence[str]) -> Dict[str, Any]:
    """Rows of the last hidden state that ctxvec_context pools: gathered and copied to the
    host Doc by Doc (the way before the GPU check of 2026-12-04) against what the product
    does, one gather over the batch's outputs and one copy (batch_trf_data_rows)."""
    from spacy_ctxvec.components.choices import configure_last_layer
    from spacy_ctxvec.components.transformer import batch_trf_data_rows, to_numpy

    docs = list(nlp.get_pipe("transformer").pipe(nlp.make_doc(text) for text in texts))
    data = [doc._.trf_data for doc in docs if len(doc._.trf_data.align.dataXd)]

    def rows(trf_data):
        from thinc.api import get_array_module

        hidden = trf_data.model_output["last_hidden_state"]
        xp = get_array_module(hidden)
        flat = hidden.reshape(-1, hidden.shape[-1])
        return flat[xp.asarray(trf_data.align.dataXd.ravel())]

    _synchronize()
    started = time.perf_counter()
    per_doc = [to_numpy(rows(d)) for d in data]
    _synchronize()
    per_doc_s = time.perf_counter() - started
    started = time.perf_counter()
    stacked = batch_trf_data_rows(data, configure_last_layer())[0] if data else np.zeros((0, 0), np.float32)
    _synchronize()
    batched_s = time.perf_counter() - started
    equal = bool(np.array_equal(np.concatenate(per_doc) if per_doc else stacked, stacked))
    return {
        "gather_per_doc_s": per_doc_s,
        "gather_batched_s": batched_s,
        "gather_equal": equal,
        "gather_docs": len(data),
    }


def warm_up(nlp, texts: Sequence[str]) -> None:
    """One untimed pass over the timed texts (as the floor gets): the GPU's kernels for
    each padded shape are chosen on first use, which would otherwise be timed."""
    for _ in nlp.pipe(texts):
        pass
    _synchronize()


def write_section(path: Path, lines: List[str]) -> None:
    text = path.read_text(encoding="utf8") if path.exists() else ""
    section = "\n".join([SECTION_START, *lines, SECTION_END])
    if SECTION_START in text and SECTION_END in text:
        head, rest = text.split(SECTION_START, 1)
        text = head + section + rest.split(SECTION_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf8")


def main(argv: Optional[Sequence[str]] = None) -> int:
    with methods.temp_pipeline_dir() as work:  # the assembled pipeline is removed at the end, on errors too
        return _main(argv, work)


def _main(argv: Optional[Sequence[str]], work: Path) -> int:
    args = parse_args(argv)
    import spacy

    if not args.dry_run and not gpu_visible():  # before minutes of CPU reference, not a traceback after
        raise SystemExit(NO_GPU)
    texts = sample_sentences(args.sentences)
    n_tokens = sum(methods.token_counts(texts))
    pipeline_dir = methods.assemble_default(work)
    cpu_nlp = spacy.load(pipeline_dir)
    cpu_texts = texts[: args.cpu_sentences] if args.cpu_sentences else texts
    cpu_tokens = sum(methods.token_counts(cpu_texts))
    reference = context_vectors(cpu_nlp, texts)
    cpu_seconds = timed_pipe(cpu_nlp, cpu_texts)
    cpu_tps = cpu_tokens / cpu_seconds
    results: Dict[str, Any] = {
        "n_sentences": len(texts),
        "n_tokens": n_tokens,
        "cpu_tokens_per_s": cpu_tps,
        "precisions": {},
    }
    failed = []
    for precision in args.precision:
        nlp = load_on_device(pipeline_dir, precision, args.batch_size, args.max_batch_wordpieces, args.dry_run)
        warm_up(nlp, texts)
        seconds = timed_pipe(nlp, texts)
        floor_seconds = timed_floor(texts, precision, args.max_batch_wordpieces, args.dry_run)
        gather = gather_check(nlp, texts[: min(len(texts), args.batch_size)])
        check = agreement(reference, context_vectors(nlp, texts))
        median_min, min_min = THRESHOLDS[precision]
        check["passed"] = check["median_cosine"] >= median_min and check["min_cosine"] >= min_min
        check.update(
            {
                "seconds": seconds,
                "tokens_per_s": n_tokens / seconds,
                "speedup_vs_cpu": (n_tokens / seconds) / cpu_tps,
                "floor_seconds": floor_seconds,
                "vs_bucketed_floor": seconds / floor_seconds,
                **gather,
            }
        )
        check["passed"] = check["passed"] and gather["gather_equal"]
        results["precisions"][precision] = check
        if not check["passed"]:
            failed.append(precision)
        print(precision, json.dumps(check), flush=True)
    sweep = cap_sweep(pipeline_dir, texts, args.gpu_caps, args.batch_size, args.dry_run)
    lines = [
        "## GPU" + (" (DRY RUN on CPU: logic check only, not GPU numbers)" if args.dry_run else ""),
        "",
        f"`python benchmarks/gpu_check.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        "",
        *environment_lines(),
        "",
        f"{len(texts):,} sentences ({n_tokens:,} tokens); nlp.pipe batch {args.batch_size},"
        f" max_batch_wordpieces {args.max_batch_wordpieces}; CPU reference {cpu_tps:,.0f} tokens/s.",
        "",
        "| precision | tokens/s | x CPU | x bucketed HF floor (same device, precision) | median cosine vs CPU "
        "| min cosine"
        " | max abs diff | gather per Doc s | gather batched s | check |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for precision, check in results["precisions"].items():
        lines.append(
            f"| {precision} | {check['tokens_per_s']:,.0f} | {check['speedup_vs_cpu']:.1f} | "
            f"{check['vs_bucketed_floor']:.2f}"
            f" | {check['median_cosine']:.6f} | {check['min_cosine']:.6f} | {check['max_abs_diff']:.2e}"
            f" | {check['gather_per_doc_s']:.4f} | {check['gather_batched_s']:.4f} | "
            f"{'pass' if check['passed'] else 'FAIL'} |"
        )
    if sweep:
        lines += [
            "",
            "The cap by measurement (fp32): seconds for the same sentences.",
            "",
            "| cap (padded wordpieces per call) | pipeline s | bucketed HF floor s | pipeline / floor |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {row['cap']} | {row['seconds']:.3f} | {row['floor_seconds']:.3f} | "
            f"{row['seconds'] / row['floor_seconds']:.2f} |"
            for row in sweep
        ]
    if args.output is not None:
        write_section(args.output, lines)
        print(f"wrote the GPU section of {args.output}")
    else:
        print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
