"""Evaluate corpus split decisions on the pseudo-words of ``pseudowords.py`` (issue 21).

For each pseudo-word P (words a + b) and sample size n: the ``mixed`` corpus's first n/2
rows of each use and the ``single`` corpus's first n rows. Reported per half (tune =
md5-even words, held_out = md5-odd; tune only on the first):

- ``cp higher``: how often ``corpus_polysemy`` is higher on the mixed corpus (ties half);
- ``spread higher``: the same for the plain spread (mean pairwise cosine distance, the
  self-similarity baseline);
- ``k higher``: how often the mixed corpus gets more senses (ties half);
- ``mixed split`` / ``single one sense``: share of mixed words split, of single words kept whole;
- ``ARI mixed``: mean adjusted Rand index of the senses against the true use, mixed corpus;
- ``min support``: smallest sense, in occurrences, over all words.

``today`` is ``ops.senses.induce_senses`` with the shipped spread thresholds (what
induce_inventory uses where the corpus is too small to calibrate them, as here) on the
same rows; ``evidence`` is ``ops.sense_evidence.corpus_evidence``.

    python benchmarks/quality/sense_evidence_eval.py /tmp/pseudowords [--split-z 2.0]
"""

import argparse
import json
import os
import time
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
from sklearn.metrics import adjusted_rand_score

from spacy_ctxvec.ops.cosine import normalise_rows
from spacy_ctxvec.ops.sense_evidence import RESPLIT_Z, corpus_evidence, margin_scale, sense_scores
from spacy_ctxvec.ops.sense_labels import format_label, sense_labels
from spacy_ctxvec.ops.senses import induce_senses, sense_features, spread
from spacy_ctxvec.ops.split_significance import N_COMPONENTS

SIZES = (10, 20, 40, 64)
RESPLIT = RESPLIT_Z if os.environ.get("RESPLIT_Z") is None else float(os.environ["RESPLIT_Z"])


def load(cache: Path, name: str) -> Dict[str, Dict]:
    meta = json.loads((cache / f"{name}.json").read_text())
    arrays = np.load(cache / f"{name}.npz")
    words = {}
    for pair in meta["pairs"]:
        t = pair["token"]
        words[t] = dict(pair, **{f: arrays[f"{t}.{f}"] for f in ("units", "contexts", "uses")})
    return words


def rows_for(word: Dict, n: int, mixed: bool) -> np.ndarray:
    """Positions of the first n rows (mixed: n/2 of each use), None where there are too few."""
    uses = word["uses"]
    if mixed:
        a, b = np.flatnonzero(uses == 0)[: n // 2], np.flatnonzero(uses == 1)[: n // 2]
        return np.sort(np.concatenate([a, b])) if len(a) == len(b) == n // 2 else None
    rows = np.flatnonzero(uses == 0)[:n]
    return rows if len(rows) == n else None


def decide(word: Dict, rows: np.ndarray, rule: str, split_z: Optional[float], n_components: int) -> Dict:
    units = word["units"][rows].astype(np.float64)
    features = sense_features(units, word["contexts"][rows].astype(np.float64))
    if rule == "today":
        model = induce_senses(units, cluster_rows=features)
        return {"labels": model.labels, "measure": model.spread}
    evidence = corpus_evidence(features, split_z=split_z, n_components=n_components, resplit_z=RESPLIT)
    labels = evidence.labels
    centroids = normalise_rows(np.stack([features[labels == k].sum(axis=0) for k in range(labels.max() + 1)]))
    scores = sense_scores(features, centroids, margin_scale(features, centroids))
    return {"labels": labels, "measure": evidence.corpus_polysemy, "scores": scores}


def token_accuracy(labels: np.ndarray, uses: np.ndarray) -> np.ndarray:
    """Per token: whether its true use is the majority use of its sense."""
    majority = {k: np.bincount(uses[labels == k], minlength=2).argmax() for k in np.unique(labels)}
    return np.array([uses[i] == majority[k] for i, k in enumerate(labels)])


def compare(first: float, second: float) -> float:
    return 1.0 if first > second else 0.5 if first == second else 0.0


def evaluate(mixed: Dict, single: Dict, split_z: Optional[float], n_components: int) -> List[Dict]:
    results: List[Dict] = []
    confidence: List = []
    for half in ("tune", "held_out"):
        tokens = [t for t in mixed if mixed[t]["half"] == half and t in single]
        for n in SIZES:
            for rule in ("today", "evidence"):
                rows = {"cp": [], "spread": [], "k": [], "split": [], "whole": [], "ari": [], "support": []}
                seconds = 0.0
                for t in tokens:
                    rm, rs = rows_for(mixed[t], n, True), rows_for(single[t], n, False)
                    if rm is None or rs is None:
                        continue
                    start = time.perf_counter()
                    dm = decide(mixed[t], rm, rule, split_z, n_components)
                    ds = decide(single[t], rs, rule, split_z, n_components)
                    seconds += time.perf_counter() - start
                    km, ks = dm["labels"].max() + 1, ds["labels"].max() + 1
                    rows["cp"].append(compare(dm["measure"] or 0.0, ds["measure"] or 0.0))
                    rows["spread"].append(
                        compare(
                            spread(mixed[t]["units"][rm].astype(float)), spread(single[t]["units"][rs].astype(float))
                        )
                    )
                    rows["k"].append(compare(km, ks))
                    rows["split"].append(km > 1)
                    rows["whole"].append(ks == 1)
                    rows["ari"].append(adjusted_rand_score(mixed[t]["uses"][rm], dm["labels"]))
                    rows["support"].append(min(np.bincount(dm["labels"]).min(), np.bincount(ds["labels"]).min()))
                    if rule == "evidence" and km > 1:
                        confidence.append((dm["scores"], token_accuracy(dm["labels"], mixed[t]["uses"][rm]), half))
                count = len(rows["k"])
                if not count:
                    continue
                results.append(
                    {
                        "half": half,
                        "n": n,
                        "rule": rule,
                        "words": count,
                        "cp higher": round(float(np.mean(rows["cp"])), 3),
                        "spread higher": round(float(np.mean(rows["spread"])), 3),
                        "k higher": round(float(np.mean(rows["k"])), 3),
                        "mixed split": round(float(np.mean(rows["split"])), 3),
                        "single one sense": round(float(np.mean(rows["whole"])), 3),
                        "ARI mixed": round(float(np.mean(rows["ari"])), 3),
                        "min support": int(min(rows["support"])),
                        "ms per word": round(1000 * seconds / (2 * count), 1),
                    }
                )
    for half in ("tune", "held_out"):
        scores = np.concatenate([c[0] for c in confidence if c[2] == half] or [np.zeros(0)])
        right = np.concatenate([c[1] for c in confidence if c[2] == half] or [np.zeros(0, dtype=bool)])
        for low, high in ((0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.01)):
            band = (scores >= low) & (scores < high)
            if band.any():
                results.append(
                    {
                        "half": half,
                        "sense_score": f"[{low}, {min(high, 1.0)})",
                        "tokens": int(band.sum()),
                        "in their sense's majority use": round(float(right[band].mean()), 3),
                    }
                )
    return results


def show_labels(mixed: Dict, n_words: int) -> None:
    """Labels of the senses found in the first ``n_words`` split mixed pseudo-words (40 rows),
    beside the labels of the true uses."""
    shown = 0
    for word in mixed.values():
        rows = rows_for(word, 40, True)
        if rows is None or shown >= n_words:
            continue
        found = decide(word, rows, "evidence", None, N_COMPONENTS)["labels"]
        if found.max() < 1:
            continue
        shown += 1
        snippets = [word["snippets"][i] for i in rows]
        by_sense = [[s for s, k in zip(snippets, found) if k == sense] for sense in range(found.max() + 1)]
        by_use = [[s for s, u in zip(snippets, word["uses"][rows]) if u == use] for use in (0, 1)]
        print(f"{word['token']} = {word['a']} + {word['b']}")
        for sense, label in enumerate(sense_labels(by_sense)):
            uses = np.bincount(word["uses"][rows][found == sense], minlength=2)
            print(f"  sense {sense} ({uses[0]} {word['a']}, {uses[1]} {word['b']}): {format_label(label)}")
        for use, label in zip((word["a"], word["b"]), sense_labels(by_use)):
            print(f"  true use {use}: {format_label(label)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cache", type=Path, help="the directory pseudowords.py wrote")
    parser.add_argument("--split-z", type=float, default=None, help="one threshold for every n (default: by n)")
    parser.add_argument("--n-components", type=int, default=N_COMPONENTS)
    parser.add_argument("--output", type=Path, default=None, help="a JSON file for the table")
    parser.add_argument("--show-labels", type=int, default=0, help="print the sense labels of this many split words")
    args = parser.parse_args()
    if args.show_labels:
        show_labels(load(args.cache, "mixed"), args.show_labels)
    results = evaluate(load(args.cache, "mixed"), load(args.cache, "single"), args.split_z, args.n_components)
    columns: List[str] = []
    for row in results:
        if list(row) != columns:
            columns = list(row)
            print(" | ".join(columns))
        print(" | ".join(str(row[c]) for c in columns))
    if args.output is not None:
        args.output.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
