"""Corpus split decisions against WordNet senses (issue 21): the lemmas of
../shared/data/wordnet_examples with at least 10 example sentences, 10 each (lowest md5
of the sentence), through the real pipeline (``load_pipeline``, layer 5). Each
occurrence is its token row joined to its context row (``ops.senses.sense_features``) in
sense spaces fitted on every token of these sentences. Reported per half (tune =
md5-even lemmas, held_out = md5-odd): mean ARI per lemma against the synsets, the share
of lemmas split, the mean number of senses (``--monosemous``: also the words of
``monosemous_sentences.py``, one sense each, in the same sense spaces), for today's spread rule
(``ops.senses.induce_senses``, shipped thresholds) and ``ops.sense_evidence.corpus_evidence``
(defaults; and with min_support 2, with and without resplit_z); today's rule also with
min_support 1, as it was before that setting existed.

    HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false python benchmarks/quality/sense_evidence_wordnet.py \
        ../shared/data/wordnet_examples/wordnet_examples.jsonl [--monosemous MONO.jsonl]
    # one-use real words at several n: 40 lines each, judged on their first 10, 20, 40
    python benchmarks/quality/monosemous_sentences.py ../shared/data/corpus_gutenberg \
        ../shared/data/wordnet_sense_counts/sense_counts.tsv mono40.jsonl --encoding latin-1 \
        --per-word 40 --max-words 120
    python benchmarks/quality/sense_evidence_wordnet.py --monosemous mono40.jsonl --per-lemma 40 --sizes 10,20,40

About 5 minutes on 2 shared CPU cores (4,330 sentences).
"""

import argparse
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

import numpy as np
from sklearn.metrics import adjusted_rand_score


def md5(text: str) -> int:
    return int(hashlib.md5(text.encode("utf8")).hexdigest()[:8], 16)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("examples", type=Path, nargs="?", default=None, help="wordnet_examples.jsonl")
    parser.add_argument(
        "--monosemous", type=Path, default=None, help="monosemous_sentences.py output: one-sense words, also judged"
    )
    parser.add_argument(
        "--per-lemma", type=int, default=10, help="sentences per lemma (lemmas with fewer are left out)"
    )
    parser.add_argument("--sizes", type=lambda t: [int(x) for x in t.split(",")], default=None, help="e.g. 10,20,40")
    parser.add_argument("--layer", type=int, default=5)
    args = parser.parse_args()
    args.sizes = args.sizes or [args.per_lemma]
    from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK
    from spacy_ctxvec.evaluation.token_vectors import doc_from_words
    from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
    from spacy_ctxvec.ops.context_windows import window_context_means
    from spacy_ctxvec.ops.sense_evidence import corpus_evidence
    from spacy_ctxvec.ops.senses import (
        CONTEXT_WINDOW,
        SenseInductionSettings,
        fit_sense_space,
        induce_senses,
        sense_features,
        to_sense_space,
    )
    from spacy_ctxvec.pipelines import load_pipeline

    chosen: Dict[str, List[dict]] = {}
    for source, path in (("wordnet", args.examples), ("monosemous", args.monosemous)):
        if path is None:
            continue
        by_lemma: Dict[str, List[dict]] = defaultdict(list)
        for line in path.read_text(encoding="utf8").splitlines():
            row = json.loads(line)
            row["gold"], row["source"] = row.get("synset", row.get("sense")), source
            by_lemma[f"{source}:{row['lemma']}"].append(row)
        for lemma, rows in by_lemma.items():
            if len(rows) >= args.per_lemma:
                chosen[lemma] = sorted(rows, key=lambda r: md5(" ".join(r["words"])))[: args.per_lemma]
    lemmas = sorted(chosen)
    rows = [r for lemma in lemmas for r in chosen[lemma]]
    nlp = load_pipeline(None, layer=args.layer)
    token_rows, context_rows, all_tokens, all_contexts = [], [], [], []
    for doc, row in zip(nlp.pipe(doc_from_words(nlp, r["words"]) for r in rows), rows):
        vectors, mask = np.asarray(doc._.get(CONTEXT_ARRAY)), np.asarray(doc._.get(CONTEXT_MASK), dtype=bool)
        contexts = window_context_means(vectors, mask, CONTEXT_WINDOW)
        token_rows.append(vectors[row["position"]])
        context_rows.append(contexts[row["position"]])
        all_tokens.append(vectors[mask])
        all_contexts.append(contexts[mask])
    space, context_space = fit_sense_space(np.concatenate(all_tokens)), fit_sense_space(np.concatenate(all_contexts))
    units = to_sense_space(np.stack(token_rows), space)
    features = sense_features(units, to_sense_space(np.stack(context_rows), context_space))
    fitted = dict(zip(lemmas, in_fitted_half([lemma.split(":", 1)[1] for lemma in lemmas])))
    results: Dict[str, Dict[str, List[float]]] = defaultdict(lambda: defaultdict(list))
    for i, lemma in enumerate(lemmas):
        gold_all = [r["gold"] for r in chosen[lemma]]
        half = f"{lemma.split(':')[0]} {'tune' if fitted[lemma] else 'held_out'}"
        for n in args.sizes:
            span = slice(i * args.per_lemma, i * args.per_lemma + n)
            gold = gold_all[:n]
            evidence = corpus_evidence(features[span])
            results[f"{half} n={n} evidence"]["z"].append(evidence.corpus_polysemy)
            for rule, labels in (
                ("today", induce_senses(units[span], cluster_rows=features[span]).labels),
                (
                    "today with min_support 1 (before it existed)",
                    induce_senses(
                        units[span], SenseInductionSettings(min_support=1), cluster_rows=features[span]
                    ).labels,
                ),
                ("evidence", evidence.labels),
                (
                    "evidence, min_support 2, resplit as split",
                    corpus_evidence(features[span], min_support=2, resplit_z=None).labels,
                ),
            ):
                results[f"{half} n={n} {rule}"]["ari"].append(adjusted_rand_score(gold, labels))
                results[f"{half} n={n} {rule}"]["k"].append(labels.max() + 1)
    print("data half n rule | lemmas | mean ARI | split | mean senses | corpus_polysemy 50th / 80th percentile")
    for key, values in sorted(results.items()):
        k = np.array(values["k"])
        z = np.percentile(values["z"], [50, 80]).round(2).tolist() if values.get("z") else ""
        print(f"{key} | {len(k)} | {np.mean(values['ari']):.3f} | {(k > 1).mean():.3f} | {k.mean():.2f} | {z}")


if __name__ == "__main__":
    main()
