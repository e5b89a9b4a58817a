"""Evidence for polysemy_score and the sense defaults (issue 11): benchmarks/quality/SENSES.md.

Usage (after `spacy-ctxvec build-lexicon ... --sample-size 64`, see SENSES.md):

    python benchmarks/quality/senses_validation.py PIPELINE_WITH_LEXICON \
        --sense-counts /work/shared/data/wordnet_sense_counts/sense_counts.tsv \
        --examples /work/shared/data/wordnet_examples/wordnet_examples.jsonl \
        --output benchmarks/quality/senses_validation.json

1. Candidate polysemy scores of every type seen >= --min-count times with a sample and
   a WordNet sense count, against log WordNet sense counts: Spearman raw and with log
   corpus frequency partialled out, and AUC monosemous (1 sense) vs polysemous (>= 2).
   The scores read from the sample take the rows induction judges (the first occurrence
   of the type in each passage; all rows of a sample saved before passages, format 1).
2. The one-sense fraction for monosemous words from the lexicon's inventory.
3. `evaluate senses` on WordNet examples: --per-lemma sentences of each lemma with at
   least that many.
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from spacy_ctxvec.analysis.occurrences import sense_counts_for
from spacy_ctxvec.evaluation.metrics import partial_spearman, spearman
from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.evaluation.sense_sentences import SenseSentences, read_sense_sentences
from spacy_ctxvec.evaluation.tasks import evaluate_senses, polysemy_component
from spacy_ctxvec.ops.cosine import normalise_rows
from spacy_ctxvec.ops.senses import SenseInductionSettings, sense_entropy, spread
from spacy_ctxvec.pipelines import load_pipeline


def judged_rows(sample, key: str):
    """(token rows, context rows or None) of one type's sampled occurrences that induction
    judges: the first in each passage (``OccurrenceSample.independent_rows``)."""
    start, end = int(sample.offsets[sample.index(key)]), int(sample.offsets[sample.index(key) + 1])
    judged = start + np.flatnonzero(sample.independent_rows(start, end))
    contexts = None if sample.contexts is None else sample.contexts[judged].astype(np.float64)
    return sample.vectors[judged].astype(np.float64), contexts


def candidate_scores(lexicon, inventory, min_count: int):
    """Keys and per-candidate scores of the types with n >= min_count, a sample and senses."""
    whole, valid = lexicon.polysemy_scores(min_count)
    baseline_spread = 1.0 - lexicon.anisotropy_baseline()
    sample = lexicon.sample
    keys, rows = [], []
    for i, key in enumerate(lexicon.keys):
        if not valid[i] or key not in sample or inventory.index(key) is None:
            continue
        vectors, _ = judged_rows(sample, key)
        if len(vectors) < 2:
            continue
        keys.append(key)
        rows.append(i)
    rows = np.array(rows, dtype=np.int64)
    sample_ss = np.array([spread(normalise_rows(judged_rows(sample, k)[0])) / baseline_spread for k in keys])
    n_senses = np.array([inventory.n_senses(k) for k in keys], dtype=np.float64)
    entropy = np.array([sense_entropy([s.share for s in inventory.senses_of(k)]) for k in keys])
    n_sampled = np.array([len(sample.rows_of(k)[0]) for k in keys])  # all sampled rows: the sample's own size
    scores = {}
    if inventory.context_space is not None and sample.contexts is not None:

        def joined_spread(key):
            return spread(inventory.features(*judged_rows(sample, key)))

        scores["sample spread of token + context (sense features)"] = np.array([joined_spread(k) for k in keys])
    scores.update(
        {
            "self_similarity (today: whole corpus)": whole[rows],
            "sample_self_similarity (<= K sampled occurrences)": sample_ss,
            "n_senses (induced)": n_senses,
            "sense_entropy (of shares)": entropy,
            "combination: mean rank of sample_self_similarity and sense_entropy": (
                rankdata(sample_ss) + rankdata(entropy)
            )
            / 2,
        }
    )
    return keys, lexicon.counts[rows], n_sampled, scores


def score_table(keys, counts, scores, sense_counts, subset=None):
    senses = sense_counts_for(keys, sense_counts)
    known = senses > 0
    if subset is not None:
        known &= subset
    log_senses, log_freq = np.log(senses[known]), np.log(counts[known])
    poly = senses[known] >= 2
    table = {}
    for name, values in {**scores, "log frequency (reference)": np.log(counts)}.items():
        v = np.asarray(values, dtype=np.float64)[known]
        table[name] = {
            "spearman": spearman(v, log_senses),
            "partial_spearman": partial_spearman(v, log_senses, log_freq) if "frequency" not in name else None,
            "auc_mono_vs_poly": float(roc_auc_score(poly, v)) if 0 < poly.sum() < len(poly) else None,
        }
    return {
        "n_types": int(known.sum()),
        "n_monosemous": int((~poly).sum()),
        "n_polysemous": int(poly.sum()),
        "scores": table,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline")
    parser.add_argument("--sense-counts", type=Path, required=True)
    parser.add_argument("--examples", type=Path)
    parser.add_argument("--per-lemma", type=int, default=10)
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--output", type=Path)
    parser.add_argument(
        "--reinduce",
        action="store_true",
        help="induce the senses again with this package's default settings (not the saved ones)",
    )
    args = parser.parse_args()

    nlp = load_pipeline(args.pipeline)
    component = polysemy_component(nlp)
    lexicon = component.lexicon
    inventory = component.senses
    started = time.perf_counter()
    if args.reinduce:
        component.induction = SenseInductionSettings()
    if inventory is None or args.reinduce:
        inventory = component.build_senses()
    result = {
        "pipeline": args.pipeline,
        "lexicon": {
            "types": len(lexicon),
            "occurrences": lexicon.n_occurrences,
            "sample_k": lexicon.sample.k,
            "sampled_types": len(lexicon.sample),
            "sampled_rows": lexicon.sample.n_rows,
        },
        "inventory": {
            "types": len(inventory),
            "senses": inventory.n_senses_total,
            "settings": inventory.settings,
            "induction_seconds": round(time.perf_counter() - started, 1),
        },
    }
    sense_counts = read_sense_counts(args.sense_counts)
    keys, counts, n_sampled, scores = candidate_scores(lexicon, inventory, args.min_count)
    result["polysemy_scores"] = {
        f"n >= {args.min_count}": score_table(keys, counts, scores, sense_counts),
        f"n >= {lexicon.sample.k} (fixed-size sample)": score_table(
            keys, counts, scores, sense_counts, n_sampled >= lexicon.sample.k
        ),
    }
    senses = sense_counts_for(keys, sense_counts)
    mono = senses == 1
    n_induced = scores["n_senses (induced)"]
    result["monosemous_one_sense"] = {
        "n_monosemous": int(mono.sum()),
        "fraction_one_sense": float(np.mean(n_induced[mono] == 1)) if mono.any() else None,
        "fraction_one_sense_polysemous": float(np.mean(n_induced[senses >= 2] == 1)) if (senses >= 2).any() else None,
        "fraction_one_sense_all_types": float(np.mean(n_induced == 1)),
    }
    if args.examples is not None:
        data = read_sense_sentences(args.examples)
        groups = data.by_lemma(args.per_lemma, min_sentences=args.per_lemma)
        chosen = sorted(row for rows in groups.values() for row in rows)
        subset = SenseSentences(
            [data.lemmas[i] for i in chosen],
            [data.words[i] for i in chosen],
            data.positions[chosen],
            [data.senses[i] for i in chosen],
        )
        started = time.perf_counter()
        report = evaluate_senses(nlp, subset, per_lemma=args.per_lemma)
        result["evaluate_senses"] = {**report.to_dict(), "seconds": round(time.perf_counter() - started, 1)}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.output is not None:
        args.output.write_text(text + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
