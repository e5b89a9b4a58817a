"""Corpus split decisions against WordNet senses (issue 21): the lemmas of
../shared/data/wordnet_examples with at least 10 example sentences, 10 each (lowest md5
of the sentence), through the real pipeline (``load_pipeline``, layer 5). Each
occurrence is its token row joined to its context row (``ops.senses.sense_features``) in
sense spaces fitted on every token of these sentences. Reported per half (tune =
md5-even lemmas, held_out = md5-odd): mean ARI per lemma against the synsets, the share
of lemmas split, the mean number of senses, for today's spread rule
(``ops.senses.induce_senses``, shipped thresholds) and ``ops.sense_evidence.corpus_evidence``
(defaults; and with min_support 2, with and without resplit_z).

    HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false python benchmarks/quality/sense_evidence_wordnet.py \
        ../shared/data/wordnet_examples/wordnet_examples.jsonl

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

PER_LEMMA = 10


def md5(text: str) -> int:
    return int(hashlib.md5(text.encode("utf8")).hexdigest()[:8], 16)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("examples", type=Path)
    parser.add_argument("--layer", type=int, default=5)
    args = parser.parse_args()
    from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK
    from spacy_ctxvec.evaluation.token_vectors import doc_from_words
    from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
    from spacy_ctxvec.ops.sense_evidence import corpus_evidence
    from spacy_ctxvec.ops.senses import (
        CONTEXT_WINDOW,
        fit_sense_space,
        induce_senses,
        sense_features,
        to_sense_space,
        window_context_means,
    )
    from spacy_ctxvec.pipelines import load_pipeline

    by_lemma: Dict[str, List[dict]] = defaultdict(list)
    for line in args.examples.read_text(encoding="utf8").splitlines():
        row = json.loads(line)
        by_lemma[row["lemma"]].append(row)
    chosen = {
        lemma: sorted(rows, key=lambda r: md5(" ".join(r["words"])))[:PER_LEMMA]
        for lemma, rows in by_lemma.items()
        if len(rows) >= PER_LEMMA
    }
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
    fitted = dict(zip(lemmas, in_fitted_half(lemmas)))
    results: Dict[str, Dict[str, List[float]]] = defaultdict(lambda: defaultdict(list))
    for i, lemma in enumerate(lemmas):
        span = slice(i * PER_LEMMA, (i + 1) * PER_LEMMA)
        gold = [r["synset"] for r in chosen[lemma]]
        half = "tune" if fitted[lemma] else "held_out"
        for rule, labels in (
            ("today", induce_senses(units[span], cluster_rows=features[span]).labels),
            ("evidence", corpus_evidence(features[span]).labels),
            ("evidence, min_support 2", corpus_evidence(features[span], min_support=2).labels),
            (
                "evidence, min_support 2, resplit as split",
                corpus_evidence(features[span], min_support=2, resplit_z=None).labels,
            ),
        ):
            results[f"{half} {rule}"]["ari"].append(adjusted_rand_score(gold, labels))
            results[f"{half} {rule}"]["k"].append(labels.max() + 1)
    print("half rule | lemmas | mean ARI | split | mean senses")
    for key, values in results.items():
        k = np.array(values["k"])
        print(f"{key} | {len(k)} | {np.mean(values['ari']):.3f} | {(k > 1).mean():.3f} | {k.mean():.2f}")


if __name__ == "__main__":
    main()
