"""Senses per type of a pipeline's saved inventory beside those induced again with
today's defaults (benchmarks/quality/SENSES.md).

Usage: python benchmarks/quality/senses_histogram.py PIPELINE_WITH_LEXICON
"""

import argparse

import numpy as np

from spacy_ctxvec.evaluation.tasks import polysemy_component
from spacy_ctxvec.lexicon.sense_induction import induce_inventory
from spacy_ctxvec.pipelines import load_pipeline


def describe(name: str, inventory, sample) -> str:
    keys = list(inventory.keys)
    n_senses = np.array([inventory.n_senses(key) for key in keys])
    full = np.array([len(sample.rows_of(key)[0]) == sample.k for key in keys])
    smallest = [
        min(s.share for s in inventory.senses_of(key)) for key, k, f in zip(keys, n_senses, full) if k > 1 and f
    ]
    return (
        f"{name}: {len(keys)} types, k = 1..8: {np.bincount(n_senses, minlength=9)[1:9].tolist()}; "
        f"{int(full.sum())} types with K = {sample.k} rows, k = 1..8: "
        f"{np.bincount(n_senses[full], minlength=9)[1:9].tolist()}, "
        f"mean smallest share of those split: {np.mean(smallest) if smallest else float('nan'):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline", help="a pipeline directory whose ctxvec_polysemy holds a lexicon")
    component = polysemy_component(load_pipeline(parser.parse_args().pipeline))
    lexicon = component.lexicon
    if component.senses is not None:
        print(describe("saved", component.senses, lexicon.sample))
    print(describe("today's defaults", induce_inventory(lexicon, min_count=component.min_count), lexicon.sample))


if __name__ == "__main__":
    main()
