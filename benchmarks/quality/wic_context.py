"""Does an occurrence's context help tell its senses apart? (issue 11): benchmarks/quality/SENSES.md,
"Clustering with the context".

WiC pairs (the same word in two sentences, labelled same sense or not) are a sense test
within one kind of text. Every target goes through the whole pipeline (the product's
path: `evaluation.tasks.sense_targets`, token._.context_vec and the mean vector of the
tokens up to CONTEXT_WINDOW either side); the rows are taken into the pipeline's sense
space (its SenseInventory's, else one fitted on the targets) and joined to the context
rows at each --weights value (ops.senses.sense_features; 0 = the token rows alone,
"context only" = the context rows alone). Printed: the AUC of the pair's cosine for
"same sense", per weight. Nothing is saved.

    python benchmarks/quality/wic_context.py PIPELINE ../shared/data/wic [--splits train dev]
"""

import argparse
import json
import os

import numpy as np
from sklearn.metrics import roc_auc_score

from spacy_ctxvec.evaluation.readers import read_wic
from spacy_ctxvec.evaluation.tasks import pipeline_senses, sense_targets
from spacy_ctxvec.ops.senses import (
    CONTEXT_WINDOW,
    N_REMOVED_DIRECTIONS,
    fit_sense_space,
    sense_features,
    to_sense_space,
)
from spacy_ctxvec.pipelines import load_pipeline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("wic_dir")
    parser.add_argument("--splits", nargs="+", default=["train", "dev"])
    parser.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.5, 0.7, 1.0, 1.4, 2.0])
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    nlp = load_pipeline(args.pipeline)
    words, positions, labels = [], [], []
    for split in args.splits:
        data = read_wic(args.wic_dir, split)
        for k in range(len(data)):
            words += [data.words1[k], data.words2[k]]
            positions += [int(data.index1[k]), int(data.index2[k])]
        labels.append(data.labels)
    labels = np.concatenate(labels)
    inventory = pipeline_senses(nlp)
    window = (inventory.context_window if inventory is not None else 0) or CONTEXT_WINDOW  # as its sample was built
    targets = sense_targets(nlp, words, np.array(positions), context_window=window)
    if inventory is not None and inventory.context_space is not None:
        space, context_space, where = inventory.space, inventory.context_space, "the pipeline's sense inventory"
    else:
        space = fit_sense_space(targets.vectors, n_directions=N_REMOVED_DIRECTIONS)
        context_space = fit_sense_space(targets.contexts, n_directions=N_REMOVED_DIRECTIONS)
        where = "fitted on the WiC targets"
    units, contexts = to_sense_space(targets.vectors, space), to_sense_space(targets.contexts, context_space)
    rows = {f"weight {w:g}": sense_features(units, contexts, w) for w in args.weights}
    rows["context only"] = contexts
    result = {"pipeline": args.pipeline, "pairs": int(len(labels)), "same_sense": int(labels.sum()), "space": where}
    for name, x in rows.items():
        cosine = np.einsum("ij,ij->i", x[0::2], x[1::2])
        result[name] = round(float(roc_auc_score(labels, cosine)), 4)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
