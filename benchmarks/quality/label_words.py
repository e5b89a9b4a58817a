"""Do the sense labels name the uses, on lines they were not made from? (issue 21;
SENSE_EVIDENCE.md, "Labels in words").

Pseudo-words of ``pseudowords.py`` (two unrelated Gutenberg words a and b written as one
made-up token): the mixed corpus (``--per-word / 2`` lines of each) goes through the
build-lexicon pipeline (MiniLM layer 5, a sample of 64 rows a type). Each pseudo-word's
sampled occurrences are grouped by their true use (a or b) and labelled by
``ops.sense_labels.labels_by_sense`` as induction labels senses, (1) by c-TF-IDF alone
(before) and (2) with the words' ``vector_affinity`` to the two uses (the lexicon's
``word_affinity``, as wired now); (3) by that affinity alone (the three words of the use's
snippets nearest it, for comparison), and (4) three words drawn at random from the use's
snippets (what the measure gives by chance). A label word of use a is right where it is more
common on the Gutenberg lines of a than on those of b that are NOT in the corpus (share of
lines holding it; ties count half). Per half of the pairs (tune = md5-even words, held_out
= md5-odd); nothing is fitted.

    HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false python benchmarks/quality/label_words.py \
        ../shared/data/corpus_gutenberg ../shared/data/wordnet_sense_counts/sense_counts.tsv /tmp/labels \
        [--pairs 24] [--per-word 40]

The first run embeds the corpus into the cache directory (a lexicon with its sample);
later runs read it.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Set, Tuple

import numpy as np

from spacy_ctxvec.lexicon.sense_induction import word_affinity
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.sense_labels import N_LABEL_WORDS, labels_by_sense, snippet_words

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pseudowords import choose_pairs, lines_by_word, make_corpora, read_lines  # noqa: E402

RULES = ("c-TF-IDF (before)", "c-TF-IDF + affinity (wired)", "affinity alone", "any 3 words of the use (chance)")


def embed(args: argparse.Namespace, lines: Sequence[str]) -> None:
    from spacy_ctxvec.building.shard import partial_lexicon
    from spacy_ctxvec.evaluation.readers import read_sense_counts
    from spacy_ctxvec.pipelines import load_pipeline

    pairs = choose_pairs(lines, read_sense_counts(args.sense_counts), args.pairs, args.per_word)
    mixed, _, tokens = make_corpora(lines, pairs, args.per_word)
    lexicon = partial_lexicon(load_pipeline(None, layer=5), mixed, sample_size=64)
    args.cache.mkdir(parents=True, exist_ok=True)
    lexicon.to_disk(args.cache / "lexicon")
    meta = {"pairs": [list(pair) for pair in pairs], "tokens": tokens, "corpus_lines": sorted(set(mixed))}
    (args.cache / "pairs.json").write_text(json.dumps(meta), encoding="utf8")


def held_out_lines(lines: Sequence[str], found: Dict[str, List[int]], word: str, other: str, used: Set[str]):
    """The words of each Gutenberg line holding ``word`` but not ``other``, not in the corpus."""
    both = set(found[other])
    return snippet_words([lines[i] for i in found[word] if i not in both and lines[i] not in used])


def right(label: Sequence[str], own: List[Set[str]], other: List[Set[str]]) -> List[float]:
    """Per label word: 1 where it is on a larger share of ``own`` lines than of ``other``."""
    out = []
    for word in label:
        a = np.mean([word in line for line in own]) if own else 0.0
        b = np.mean([word in line for line in other]) if other else 0.0
        out.append(1.0 if a > b else 0.5 if a == b else 0.0)
    return out


def labels_of(lexicon: Lexicon, token: str) -> Tuple[Dict[str, List[List[str]]], np.ndarray]:
    """Each rule's labels of the token's two true uses (0: a, 1: b), and the uses' sizes."""
    sample = lexicon.sample
    i = sample.index(token)
    start, end = int(sample.offsets[i]), int(sample.offsets[i + 1])
    independent = sample.independent_rows(start, end)
    snippets = [sample.snippets[j] for j in range(start, end)]
    uses = np.array([1 if f"[{token.capitalize()}]" in s else 0 for s in snippets])
    raw = sample.vectors[start:end].astype(np.float64)
    means = np.stack([raw[uses == use].mean(axis=0) for use in (0, 1)])
    judged = np.where(independent, uses, -1)
    affinity = word_affinity(lexicon, means)
    labels = {
        RULES[0]: labels_by_sense(snippets, judged, exclude=[token]),
        RULES[1]: labels_by_sense(snippets, judged, exclude=[token], affinity=affinity),
    }
    nearest, drawn = [], []
    rng = np.random.default_rng(sum(map(ord, token)))
    for use in (0, 1):
        words = sorted(set().union(*snippet_words([s for s, u in zip(snippets, judged) if u == use])) - {token})
        scores = affinity(words)[use] if words else np.zeros(0)
        nearest.append([words[j] for j in np.argsort(-scores, kind="stable")[:N_LABEL_WORDS]])
        drawn.append([str(w) for w in rng.permutation(words)[:N_LABEL_WORDS]])
    labels[RULES[2]], labels[RULES[3]] = nearest, drawn
    return labels, np.bincount(uses, minlength=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="the Gutenberg text folder")
    parser.add_argument("sense_counts", type=Path)
    parser.add_argument("cache", type=Path, help="written on the first run, read after")
    parser.add_argument("--pairs", type=int, default=24, help="pairs per half (tune, held out)")
    parser.add_argument("--per-word", type=int, default=40)
    args = parser.parse_args()
    lines = read_lines(args.corpus)
    if not (args.cache / "pairs.json").exists():
        embed(args, lines)
    meta = json.loads((args.cache / "pairs.json").read_text(encoding="utf8"))
    lexicon = Lexicon.from_disk(args.cache / "lexicon")
    found, used = lines_by_word(lines), set(meta["corpus_lines"])
    results: Dict[str, Dict[str, List[float]]] = {}
    shown = 0
    for (a, b, half), token in zip(meta["pairs"], meta["tokens"]):
        if token not in lexicon.sample:
            continue
        labels, sizes = labels_of(lexicon, token)
        own = [held_out_lines(lines, found, a, b, used), held_out_lines(lines, found, b, a, used)]
        for rule, pair in labels.items():
            scores = results.setdefault(f"{half}|{rule}", {"right": [], "words": [], "empty": [], "swapped": []})
            for use in (0, 1):
                scores["right"] += right(pair[use], own[use], own[1 - use])
                scores["swapped"] += right(pair[use], own[1 - use], own[use])
                scores["words"].append(len(pair[use]))
                scores["empty"].append(float(not pair[use]))
        if half == "tune" and shown < 6:  # a few examples of the tune half
            shown += 1
            print(f"{token} = {a} ({sizes[0]}) + {b} ({sizes[1]}): " + "; ".join(f"{r}: {labels[r]}" for r in RULES))
    print("half | rule | label words right (held-out lines) | words per use | uses without a label")
    for half in ("tune", "held_out"):
        for rule in RULES:
            scores = results.get(f"{half}|{rule}")
            if scores is None:
                continue
            n_right = len(scores["right"])
            print(
                f"{half} | {rule} | {np.mean(scores['right']):.3f} of {n_right} | "
                f"{np.mean(scores['words']):.2f} | {np.mean(scores['empty']):.3f} of {len(scores['empty'])}"
            )
            if rule == RULES[1]:
                swapped = np.mean(scores["swapped"])
                print(f"{half} | {rule}, each use's label scored against the other use | {swapped:.3f}")


if __name__ == "__main__":
    main()
