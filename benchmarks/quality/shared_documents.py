"""Do occurrences that share a document look like distinct uses? (issue 21;
SENSE_EVIDENCE.md, "Occurrences that share a line").

The one-use table and every split measurement take one occurrence per line. Here the same
lines of md5-even WordNet-monosemous words (``monosemous_sentences.py``; the first
``--words`` such words, ``--lines`` lines each) are written as corpora that differ only in
how many lines of the same word make one document (``--per-doc``, e.g. 1, 2, 7, 14), each
built with ``build-lexicon``'s defaults; how many of the words have a ``corpus_polysemy``
(None: fewer than 6 sampled occurrences in distinct passages), its quartiles, the share
kept at one sense and the mean number of senses are printed per corpus.

    HF_HUB_OFFLINE=1 python benchmarks/quality/shared_documents.py MONO20.jsonl OUT_DIR
(MONO20.jsonl: ``monosemous_sentences.py ... --per-word 20 --max-words 5000``.)
"""

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

import numpy as np

from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.lexicon.sense_inventory import SenseInventory

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "default.cfg"


def even_word_lines(mono: Path, n_words: int, n_lines: int) -> Dict[str, List[str]]:
    """The first ``n_words`` md5-even words (sorted) with their first ``n_lines`` lines."""
    lines: Dict[str, List[str]] = defaultdict(list)
    for line in mono.read_text(encoding="utf8").splitlines():
        row = json.loads(line)
        lines[row["lemma"]].append(" ".join(row["words"]))
    words = sorted(word for word in lines if len(lines[word]) >= n_lines)
    even = [word for word, fitted in zip(words, in_fitted_half(words)) if fitted][:n_words]
    return {word: lines[word][:n_lines] for word in even}


def build(corpus: List[str], output: Path) -> SenseInventory:
    """build-lexicon with its defaults on these documents; the pipeline's sense inventory."""
    text = output.with_suffix(".txt")
    text.write_text("\n".join(corpus) + "\n", encoding="utf8")
    command = [sys.executable, "-m", "spacy_ctxvec", "build-lexicon", str(CONFIG), str(text), str(output)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"build-lexicon failed on {text}:\n{done.stderr}{done.stdout}")
    return SenseInventory.from_disk(output / "ctxvec_polysemy" / "senses")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mono", type=Path)
    parser.add_argument("out", type=Path, help="new directory for the corpora and pipelines")
    parser.add_argument("--words", type=int, default=80)
    parser.add_argument("--lines", type=int, default=14)
    parser.add_argument("--per-doc", type=lambda t: [int(x) for x in t.split(",")], default=[1, 2, 7, 14])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=False)
    lines = even_word_lines(args.mono, args.words, args.lines)
    print(f"{len(lines)} md5-even monosemous words, {args.lines} lines each")
    print("lines per document | documents | with corpus_polysemy | its quartiles | kept at one sense | mean senses")
    for per_doc in args.per_doc:
        corpus = [" ".join(rows[i : i + per_doc]) for rows in lines.values() for i in range(0, len(rows), per_doc)]
        inventory = build(corpus, args.out / f"per_doc_{per_doc}")
        keys = [inventory.key_of(word) for word in lines if inventory.word_index(word) is not None]
        scores = [inventory.corpus_polysemy_of(key) for key in keys]
        values = np.array([score for score in scores if score is not None])
        senses = np.array([inventory.n_senses(key) for key in keys])
        quartiles = " / ".join(f"{q:.2f}" for q in np.percentile(values, [25, 50, 75])) if len(values) else "-"
        shares = f"{np.mean(senses == 1):.3f} | {senses.mean():.2f}"
        print(f"{per_doc} | {len(corpus)} | {len(values)} of {len(keys)} | {quartiles} | {shares}")


if __name__ == "__main__":
    main()
