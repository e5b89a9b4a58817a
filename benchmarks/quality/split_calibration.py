"""Split thresholds calibrated on the corpus against the shipped table (issue 11):
benchmarks/quality/SENSES.md, "Split thresholds calibrated on the corpus".

For one pipeline with a lexicon sample, the senses are induced again under the shipped
SPLIT_THRESHOLDS (split_percentile null) and under each --percentiles value, and each
inventory is measured the way the issue's target is: the fraction of the lexicon's
monosemous and polysemous types (WordNet 1 / 2+ senses, alphabetic) with one sense, and
the "induced" rows of `evaluate senses` on sense-labelled files, over the words of one md5 half
(--half; even by default: the half settings are chosen on) (the pipeline's target
vectors are computed once; each setting induces on them with its own thresholds). With
--context-weights, every percentile is also run at each context weight (0: clusters on
the token vectors alone; "Clustering with the context" in SENSES.md). Nothing is saved.

    python benchmarks/quality/split_calibration.py PIPELINE \\
        --sense-counts ../shared/data/wordnet_sense_counts/sense_counts.tsv \\
        --labelled wordnet=../shared/data/wordnet_examples/wordnet_examples.jsonl \\
        --labelled monosemous=mono_test.jsonl --percentiles 78 80 82 85 [--context-weights 0 1]
        [--min-shares 0.05 0.1] [--rule spread|probe|evidence] [--half even]
"""

import argparse
import json
import os
import time
from typing import Dict, List, Optional

import numpy as np

from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.evaluation.sense_scores import clustering_scores
from spacy_ctxvec.evaluation.sense_sentences import SenseSentences, read_sense_sentences
from spacy_ctxvec.evaluation.tasks import induced_labels, lemma_split_decisions, polysemy_component, sense_targets
from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.lexicon.sense_descriptions import describe_split_thresholds
from spacy_ctxvec.ops.senses import CONTEXT_WINDOW, SPLIT_PERCENTILE, split_threshold_for
from spacy_ctxvec.pipelines import load_pipeline


def in_half(words: List[str], half: str) -> List[bool]:
    """Whether each word is in ``half`` ("even": the md5-even half settings are chosen on,
    "odd": the held-out half, "all")."""
    if half == "all":
        return [True] * len(words)
    return [bool(even) == (half == "even") for even in in_fitted_half(words)]


def labelled_groups(nlp, path: str, per_lemma: int, half: str = "all", context_window: int = CONTEXT_WINDOW):
    """(target vectors, their context vectors (``context_window`` tokens either side, as the
    pipeline's sample was built), row groups per lemma, gold labels per lemma) of the lemmas
    (of ``half``) with at least ``per_lemma`` sentences, their first ``per_lemma`` each."""
    data = read_sense_sentences(path)
    groups = data.by_lemma(per_lemma, min_sentences=per_lemma)
    groups = {lemma: rows for lemma, rows in groups.items() if in_half([lemma], half)[0]}
    rows = sorted(row for rows in groups.values() for row in rows)
    position = {row: i for i, row in enumerate(rows)}
    subset = SenseSentences(
        [data.lemmas[i] for i in rows],
        [data.words[i] for i in rows],
        data.positions[rows],
        [data.senses[i] for i in rows],
    )
    targets = sense_targets(nlp, subset.words, subset.positions, context_window=context_window)
    lemmas = list(groups)
    return (
        targets.vectors,
        targets.contexts,
        [[position[row] for row in groups[lemma]] for lemma in lemmas],
        [[data.senses[row] for row in groups[lemma]] for lemma in lemmas],
        lemmas,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("--sense-counts", required=True)
    parser.add_argument(
        "--labelled",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="sense-labelled sentences (evaluate senses format); repeatable",
    )
    parser.add_argument("--per-lemma", type=int, default=10)
    parser.add_argument(
        "--half",
        choices=("all", "even", "odd"),
        default="even",
        help="the md5 half of the words measured: even (choose settings here), odd (held out: score once), all",
    )
    parser.add_argument("--percentiles", type=float, nargs="*", default=[SPLIT_PERCENTILE])
    parser.add_argument(
        "--context-weights",
        type=float,
        nargs="*",
        default=None,
        help="context weights to induce with (default: the component's setting)",
    )
    parser.add_argument(
        "--min-shares", type=float, nargs="*", default=None, help="min_share values (default: the component's)"
    )
    parser.add_argument(
        "--rule",
        choices=("component", "evidence", "probe", "spread"),
        default="component",
        help="split rule: the component's, the corpus evidence, the polysemy probe, or the spread test (no probe)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    nlp = load_pipeline(args.pipeline)
    component = polysemy_component(nlp)
    if component.lexicon is None or component.lexicon.sample is None:
        parser.error(
            f"{args.pipeline}: its lexicon has no occurrence sample (build it with `spacy-ctxvec build-lexicon`)"
        )
    counts = read_sense_counts(args.sense_counts)
    # the window the sample was built with (0 for senses induced without contexts: the default then)
    window = (component.senses.context_window if component.senses is not None else 0) or CONTEXT_WINDOW
    files = {}
    for item in args.labelled:
        name, _, path = item.partition("=")
        if not path:
            parser.error(f"--labelled {item!r}: expected NAME=FILE")
        files[name] = labelled_groups(nlp, path, args.per_lemma, args.half, window)
    settings: List[Optional[float]] = [None, *args.percentiles]
    weights = args.context_weights if args.context_weights else [component.induction.context_weight]
    shares = args.min_shares if args.min_shares else [component.induction.min_share]
    rule = (
        {}
        if args.rule == "component"
        else {"split_by_evidence": args.rule == "evidence", "split_by_probe": args.rule == "probe"}
    )
    for percentile, weight, share in ((p, w, m) for p in settings for w in weights for m in shares):
        component.induction = component.induction.replace(
            split_threshold=None, split_percentile=percentile, context_weight=weight, min_share=share, **rule
        )
        started = time.perf_counter()
        inventory = component.build_senses()
        seconds = time.perf_counter() - started
        table = [(int(n), float(t)) for n, t in inventory.settings["split_thresholds"]]
        keys = [k for k, keep in zip(inventory.keys, in_half(list(inventory.keys), args.half)) if keep]
        mono = [k for k in keys if k.isalpha() and counts.get(k) == 1]
        poly = [k for k in keys if k.isalpha() and counts.get(k, 0) >= 2]
        row: Dict[str, object] = {
            "pipeline": args.pipeline,
            "half": args.half,
            "split_rule": inventory.settings.get("split_rule"),
            "split_percentile": percentile,
            "context_weight": inventory.settings["context_weight"],
            "min_share": inventory.settings["min_share"],
            "induction_seconds": round(seconds, 1),
            "thresholds": describe_split_thresholds(inventory.settings),
            "threshold_n10": round(split_threshold_for(10, table=table), 4),
            "threshold_n64": round(split_threshold_for(64, table=table), 4),
            "lexicon_monosemous_one_sense": round(float(np.mean([inventory.n_senses(k) == 1 for k in mono])), 3)
            if mono
            else None,
            "lexicon_polysemous_one_sense": round(float(np.mean([inventory.n_senses(k) == 1 for k in poly])), 3)
            if poly
            else None,
            "n_monosemous": len(mono),
            "n_polysemous": len(poly),
        }
        for name, (vectors, contexts, groups, gold, lemmas) in files.items():
            by_probe = inventory.settings.get("split_rule") == "probe"  # as `evaluate senses`: the probe decides
            labels, _ = induced_labels(
                vectors,
                groups,
                inventory.space,
                inventory.settings,
                contexts=contexts,
                context_space=inventory.context_space,
                split_decisions=lemma_split_decisions(nlp, lemmas) if by_probe else None,
            )
            scores = clustering_scores(gold, labels)
            row[name] = {
                "lemmas": scores.n_lemmas,
                "mean_ari": round(scores.mean_ari, 4),
                "f1": round(scores.f1, 4),
                "one_sense": round(scores.one_sense_fraction, 3),
            }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
