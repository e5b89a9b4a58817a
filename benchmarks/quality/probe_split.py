"""Senses split by the polysemy probe against the spread test (issue 11, session 7).

For each pipeline, `evaluate senses` on the lemmas of a sense-labelled file with at
least --per-lemma sentences (their first --per-lemma), on all of them and on those in
the probe's held-out half (md5 odd: the probe never saw their sense counts), plus the
share of lemmas given one sense; and on a file of monosemous words' sentences
(benchmarks/quality/monosemous_sentences.py) the share given one sense. See
benchmarks/quality/SENSES.md, "The probe decides which words split".

    python benchmarks/quality/probe_split.py spread=gut_full probe=gut_full_probe \\
        --examples ../shared/data/wordnet_examples/wordnet_examples.jsonl --monosemous mono_test.jsonl
"""

import argparse
import json
from pathlib import Path

import numpy as np

from spacy_ctxvec.evaluation.sense_sentences import SenseSentences, read_sense_sentences
from spacy_ctxvec.evaluation.tasks import evaluate_senses
from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.pipelines import load_pipeline


def first_sentences(data: SenseSentences, per_lemma: int, held_out_only: bool = False) -> SenseSentences:
    groups = data.by_lemma(per_lemma, min_sentences=per_lemma)
    lemmas = [lemma for lemma in groups if not held_out_only or not in_fitted_half([lemma.lower()])[0]]
    rows = sorted(row for lemma in lemmas for row in groups[lemma])
    return SenseSentences(
        [data.lemmas[i] for i in rows],
        [data.words[i] for i in rows],
        data.positions[rows],
        [data.senses[i] for i in rows],
    )


def summary(report) -> dict:
    induced = report.methods["induced"]
    return {
        "lemmas": report.n_lemmas,
        "mean_ari": induced.mean_ari,
        "f1": induced.f1,
        "one_sense": induced.one_sense_fraction,
        "mean_senses": induced.mean_senses,
        "probe_decided": report.details.get("split_by_probe_lemmas"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipelines", nargs="+", metavar="NAME=PIPELINE")
    parser.add_argument("--examples", required=True, help="Sense-labelled sentences (WordNet examples)")
    parser.add_argument("--monosemous", required=True, help="Sentences of monosemous words (evaluate senses format)")
    parser.add_argument("--per-lemma", type=int, default=10)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    examples, monosemous = read_sense_sentences(args.examples), read_sense_sentences(args.monosemous)
    sets = {
        "WordNet, all lemmas": first_sentences(examples, args.per_lemma),
        "WordNet, held-out lemmas": first_sentences(examples, args.per_lemma, held_out_only=True),
        "monosemous words": first_sentences(monosemous, args.per_lemma),
    }
    results = {}
    for spec in args.pipelines:
        name, path = spec.split("=", 1)
        nlp = load_pipeline(path)
        results[name] = {
            label: summary(evaluate_senses(nlp, data, per_lemma=args.per_lemma)) for label, data in sets.items()
        }
        for label, row in results[name].items():
            print(
                f"{name:8s} {label:26s} lemmas {row['lemmas']:4d}  ARI {row['mean_ari']:.3f}  F1 {row['f1']:.3f}  "
                f"one sense {row['one_sense']:.3f}  mean senses {row['mean_senses']:.2f}  probe decided "
                f"{row['probe_decided']}"
            )
    if args.output:
        args.output.write_text(
            json.dumps(results, indent=2, default=lambda v: float(v) if isinstance(v, np.floating) else v) + "\n"
        )


if __name__ == "__main__":
    main()
