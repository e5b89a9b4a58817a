"""WiC accuracy of the default pipeline in float32 and after quantize_pipeline (int8).

    python benchmarks/quality/wic_quantized.py [--data-dir DIR] [--split dev] [--max-examples N] [--output JSON]

--data-dir defaults to the wic folder of benchmarks.data's SHARED_DATA (CTXVEC_SHARED_DATA). The
results are printed; written only with --output (the committed wic_quantized.json is such a run).

Uses the evaluation engineer's evaluate_wic (the same code as `spacy-ctxvec evaluate
wic`); the decision is fitted on the train split each time.
"""

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=None, help="WiC folder (default: the shared data's wic)")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--max-examples", type=int, default=None)
    parser.add_argument("--output", type=Path, default=None, help="also write the results to this JSON file")
    args = parser.parse_args()
    from benchmarks.data import shared_data
    from spacy_ctxvec.evaluation.readers import read_wic
    from spacy_ctxvec.evaluation.tasks import evaluate_wic
    from spacy_ctxvec.pipelines import load_pipeline
    from spacy_ctxvec.quantize import quantize_pipeline

    data_dir = args.data_dir if args.data_dir is not None else shared_data("wic")
    train, evaluated = read_wic(data_dir, "train"), read_wic(data_dir, args.split)
    if args.max_examples is not None:  # smoke runs: the first N examples of both splits
        train, evaluated = train.head(args.max_examples), evaluated.head(args.max_examples)
    results = {}
    for name in ("float32", "int8"):
        nlp = load_pipeline(None)
        if name == "int8":
            quantize_pipeline(nlp)
        report, n_missing = evaluate_wic(nlp, train, evaluated, args.split)
        results[name] = {
            "accuracy": report.accuracy,
            "chosen": report.chosen,
            "n_examples": report.n_examples,
            "n_train": report.n_train,
            "targets_without_vector": n_missing,
        }
        print(name, json.dumps(results[name]), flush=True)
    command = "python benchmarks/quality/wic_quantized.py " + " ".join(sys.argv[1:])
    if args.output is not None:
        record = {"command": command.strip(), "split": args.split, "results": results}
        args.output.write_text(json.dumps(record, indent=1))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
