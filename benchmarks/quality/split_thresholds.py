"""Calibrate the split thresholds of ops/senses.py on a pipeline's own lexicon sample
(issue 11): benchmarks/quality/SENSES.md.

Monosemous words (WordNet gives one sense, alphabetic) with a lexicon sample are split
into a tune and a test half by md5 parity of the word. For every n of the grid, each
word with at least n sampled rows is subsampled to n rows (--draws random draws, seed
0) in the pipeline's sense space; the threshold is the --percentile of the tune
spreads, and the test column is the fraction of test draws at or under it (kept at one
sense). The shipped SPLIT_THRESHOLDS and the thresholds the pipeline's inventory was
induced with (calibrated on its own corpus by default) are shown beside.

    python benchmarks/quality/split_thresholds.py PIPELINE_WITH_LEXICON \
        --sense-counts ../shared/data/wordnet_sense_counts/sense_counts.tsv
"""

import argparse
import json
from typing import Dict, List

import numpy as np

from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.evaluation.tasks import polysemy_component
from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.ops.senses import split_threshold_for, spread, to_sense_space, voting_rows
from spacy_ctxvec.pipelines import load_pipeline

GRID = (4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64)


def is_tune(word: str) -> bool:
    """The md5-even half, as the shipped probe's (in_fitted_half: the lower-case form)."""
    return bool(in_fitted_half([word])[0])


def draw_spreads(units_by_word: Dict[str, np.ndarray], n: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    spreads: List[float] = []
    for units in units_by_word.values():
        if len(units) < n:
            continue
        for _ in range(draws if len(units) > n else 1):
            spreads.append(spread(units[rng.choice(len(units), n, replace=False)]))
    return np.array(spreads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("--sense-counts", required=True)
    parser.add_argument("--percentile", type=float, default=75.0, help="75: the shipped SPLIT_THRESHOLDS")
    parser.add_argument("--draws", type=int, default=20)
    args = parser.parse_args()
    component = polysemy_component(load_pipeline(args.pipeline))
    sample, inventory = component.lexicon.sample, component.senses
    if sample is None or inventory is None:
        parser.error(
            f"{args.pipeline}: its lexicon has no occurrence sample or no senses "
            "(build it with `spacy-ctxvec build-lexicon`, which samples and induces by default)"
        )
    counts = read_sense_counts(args.sense_counts)
    halves: Dict[str, Dict[str, np.ndarray]] = {"tune": {}, "test": {}}
    for i, key in enumerate(sample.keys):
        if not key.isalpha() or counts.get(key, counts.get(key.lower())) != 1:
            continue
        rows = sample.vectors[int(sample.offsets[i]) : int(sample.offsets[i + 1])].astype(np.float64)
        units = to_sense_space(rows, inventory.space)
        units = units[voting_rows(units)]
        halves["tune" if is_tune(key) else "test"][key] = units
    inventory_table = [(int(n), float(t)) for n, t in inventory.settings.get("split_thresholds") or []]
    rng = np.random.default_rng(0)
    table = []
    for n in GRID:
        tune, test = draw_spreads(halves["tune"], n, args.draws, rng), draw_spreads(halves["test"], n, args.draws, rng)
        if len(tune) == 0:
            continue
        threshold = float(np.percentile(tune, args.percentile))
        current = split_threshold_for(n)
        own = split_threshold_for(n, table=inventory_table) if inventory_table else None
        table.append(
            {
                "n": n,
                "tune_words": sum(len(u) >= n for u in halves["tune"].values()),
                "test_words": sum(len(u) >= n for u in halves["test"].values()),
                "threshold": round(threshold, 4),
                "test_kept_one": round(float(np.mean(test <= threshold)), 3),
                "current_threshold": round(current, 4),
                "test_kept_one_current": round(float(np.mean(test <= current)), 3),
                "inventory_threshold": None if own is None else round(own, 4),
                "test_kept_one_inventory": None if own is None else round(float(np.mean(test <= own)), 3),
            }
        )
    print(
        json.dumps(
            {
                "pipeline": args.pipeline,
                "percentile": args.percentile,
                "draws": args.draws,
                "monosemous_words": {h: len(w) for h, w in halves.items()},
                "grid": table,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
