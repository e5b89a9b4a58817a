"""Do the senses induced from a corpus agree with people? (issue 21, item 6: WiC.)
SENSE_EVIDENCE.md, "WiC: same sense, same induced sense?".

WiC pairs are the same word in two sentences, labelled by people as the same sense (T)
or not (F). The train and dev sentences (whitespace tokens, as the data gives them) are
the corpus: `spacy-ctxvec build-lexicon` with its defaults builds a pipeline with senses
from them, as a user would from their own text (no label is read for it). Then each
pair's two target tokens go through that pipeline (Docs of exactly the data's words) and
"same induced sense" is read as the prediction "T".

Printed per split, for pairs whose two targets are the same word form (the lexicon keys
forms, so "carry" and "carries" have separate senses): how many pairs have senses on both
tokens, how many of those belong to a word the corpus split; the accuracy of "same sense
means T" on those, with the share of T (the accuracy of always answering the majority),
on the confident ones (both tokens' sense_score above 0.5), and beside it, on the same
pairs, the contextual cosine with one threshold chosen on the train split's pairs. By
md5 half of the word as well (the split thresholds were measured on md5-even WordNet
words; nothing here is fitted on WordNet). Nothing is tuned on these numbers.

    export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
    python benchmarks/quality/wic_senses.py ../shared/data/wic /tmp/wic_senses [--pipeline configs/default.cfg]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import numpy as np

from spacy_ctxvec.evaluation.readers import WicData, read_wic
from spacy_ctxvec.evaluation.token_vectors import doc_from_words
from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.pipelines import load_pipeline

SPLITS = ("train", "dev")
CONFIDENT = 0.5


@dataclass
class Targets:
    """The target token of each sentence: its form, sense (-1: none), the word's number
    of senses, sense_score (NaN: none) and unit contextual vector."""

    forms: List[str]
    senses: np.ndarray
    n_senses: np.ndarray
    scores: np.ndarray
    vectors: np.ndarray


def write_corpus(data: Dict[str, WicData], path: Path) -> int:
    """Every distinct sentence of the splits as a JSON line {"words": [...]}."""
    seen = {}
    for split in SPLITS:
        for words in data[split].words1 + data[split].words2:
            seen.setdefault(" ".join(words), words)
    path.write_text("".join(json.dumps({"words": w}) + "\n" for w in seen.values()), encoding="utf8")
    return len(seen)


def read_targets(nlp, sentences: List[List[str]], positions: np.ndarray) -> Targets:
    forms, senses, n_senses, scores, vectors = [], [], [], [], []
    docs = (doc_from_words(nlp, words) for words in sentences)
    for doc, position in zip(nlp.pipe(docs, batch_size=256), positions):
        token = doc[int(position)]
        forms.append(token.lower_)
        senses.append(-1 if token._.sense is None else token._.sense)
        n_senses.append(token._.n_senses)
        scores.append(np.nan if token._.sense_score is None else token._.sense_score)
        vector = np.asarray(token._.context_vec, dtype=np.float64)
        vectors.append(vector / max(np.linalg.norm(vector), 1e-12))
    return Targets(forms, np.array(senses), np.array(n_senses), np.array(scores), np.array(vectors))


def pair_table(data: WicData, first: Targets, second: Targets) -> Dict[str, np.ndarray]:
    same_form = np.array([a == b for a, b in zip(first.forms, second.forms)])
    both_sensed = same_form & (first.senses >= 0) & (second.senses >= 0)
    split = both_sensed & (first.n_senses > 1)
    confident = split & (np.nan_to_num(first.scores) > CONFIDENT) & (np.nan_to_num(second.scores) > CONFIDENT)
    return {
        "labels": data.labels,
        "same_form": same_form,
        "sensed": both_sensed,
        "split": split,
        "confident": confident,
        "same_sense": first.senses == second.senses,
        "cosine": np.einsum("ij,ij->i", first.vectors, second.vectors),
        "even": in_fitted_half([form for form in first.forms]),
    }


def best_threshold(cosine: np.ndarray, labels: np.ndarray) -> float:
    """The cosine threshold ("T" at or above) with the highest accuracy on these pairs."""
    candidates = np.unique(cosine)
    accuracy = [np.mean((cosine >= t) == labels) for t in candidates]
    return float(candidates[int(np.argmax(accuracy))])


def row(name: str, table: Dict[str, np.ndarray], mask: np.ndarray, threshold: float) -> str:
    n = int(mask.sum())
    if n == 0:
        return f"| {name} | 0 | | | |"
    labels = table["labels"][mask]
    sense_accuracy = np.mean(table["same_sense"][mask] == labels)
    cosine_accuracy = np.mean((table["cosine"][mask] >= threshold) == labels)
    return f"| {name} | {n} | {labels.mean():.3f} | {sense_accuracy:.3f} | {cosine_accuracy:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wic_dir")
    parser.add_argument("work_dir", type=Path)
    parser.add_argument("--pipeline", default="configs/default.cfg")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args.work_dir.mkdir(parents=True, exist_ok=True)
    data = {split: read_wic(args.wic_dir, split) for split in SPLITS}
    corpus, built = args.work_dir / "wic_sentences.jsonl", args.work_dir / "pipeline"
    if not built.exists():
        print(f"corpus: {write_corpus(data, corpus)} distinct sentences of {', '.join(SPLITS)}")
        start = time.perf_counter()
        command = ["spacy-ctxvec", "build-lexicon", args.pipeline, str(corpus), str(built), "--no-progress"]
        subprocess.run(command, check=True, stdout=sys.stdout, stderr=sys.stderr)
        print(f"build-lexicon (defaults): {time.perf_counter() - start:.0f} s")
    nlp = load_pipeline(built)
    tables = {}
    for split in SPLITS:
        first = read_targets(nlp, data[split].words1, data[split].index1)
        second = read_targets(nlp, data[split].words2, data[split].index2)
        tables[split] = pair_table(data[split], first, second)
    train = tables["train"]
    threshold = best_threshold(train["cosine"][train["split"]], train["labels"][train["split"]])
    print(f"cosine threshold (train pairs of split words): {threshold:.4f}")
    for split, table in tables.items():
        print(f"\n{split}: {len(table['labels'])} pairs, {int(table['same_form'].sum())} with the same form")
        print("| pairs | n | share T | same sense = T | cosine >= threshold = T |")
        print("|---|---|---|---|---|")
        print(row("senses on both tokens", table, table["sensed"], threshold))
        print(row("of a word the corpus split", table, table["split"], threshold))
        print(row("  both sense_score > 0.5", table, table["confident"], threshold))
        print(row("  md5-even words", table, table["split"] & table["even"], threshold))
        print(row("  md5-odd words", table, table["split"] & ~table["even"], threshold))


if __name__ == "__main__":
    main()
