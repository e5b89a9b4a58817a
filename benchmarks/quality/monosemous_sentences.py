"""Sense-labelled sentences of monosemous words, for the one-sense half of the
sense-induction target (issue 11): benchmarks/quality/SENSES.md.

Every word of the corpus that WordNet gives one sense (alphabetic, at least 3
letters) and that occurs on at least --per-word lines gets --per-word of its lines,
chosen by md5 of the line (deterministic); the gold label is the word itself, so each
lemma carries one gold sense and `spacy-ctxvec evaluate senses` reports it in the
`one sense (1 gold)` column. At most --max-words words, the lowest md5 first; --half
even / odd then keeps the words of one md5 half (``polysemy_probe.in_fitted_half``):
settings are chosen on the even half, the odd half is held out.

    python benchmarks/quality/monosemous_sentences.py CORPUS_DIR SENSE_COUNTS OUTPUT.jsonl \
        --encoding latin-1 [--half even|odd]
    spacy-ctxvec evaluate senses PIPELINE OUTPUT.jsonl --per-lemma 10
"""

import argparse
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

import spacy

from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.outputs import check_output


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf8")).hexdigest()


def monosemous_lines(
    files: List[Path], counts: Dict[str, int], per_word: int, encoding: str
) -> Dict[str, List[Tuple[str, List[str], int]]]:
    """Word -> (md5, words, position) of every line it occurs on (first occurrence per line)."""
    tokenizer = spacy.blank("en").tokenizer
    found: Dict[str, List[Tuple[str, List[str], int]]] = defaultdict(list)
    for path in files:
        for line in path.read_text(encoding=encoding).splitlines():
            line = line.strip()
            if not line:
                continue
            words = [token.text for token in tokenizer(line) if not token.is_space]
            seen = set()
            for position, word in enumerate(words):
                key = word.lower()
                if key in seen or not key.isalpha() or len(key) < 3 or counts.get(key) != 1:
                    continue
                seen.add(key)
                found[key].append((_md5(line), words, position))
    return {word: rows for word, rows in found.items() if len(rows) >= per_word}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="a text file or a directory of .txt files (one document per line)")
    parser.add_argument("sense_counts", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--per-word", type=int, default=10)
    parser.add_argument("--max-words", type=int, default=500)
    parser.add_argument("--encoding", default="utf8")
    parser.add_argument("--half", choices=("all", "even", "odd"), default="all")
    args = parser.parse_args()
    files = sorted(args.corpus.glob("*.txt")) if args.corpus.is_dir() else [args.corpus]
    if not all(path.is_file() for path in files) or not files:
        parser.error(f"{args.corpus}: no such text file, or a directory without .txt files")
    check_output(args.output, what="output file", inputs=[args.corpus, args.sense_counts, *files], overwrite=True)
    found = monosemous_lines(files, read_sense_counts(args.sense_counts), args.per_word, args.encoding)
    chosen = sorted(found, key=_md5)[: args.max_words]
    if args.half != "all":
        chosen = [word for word, even in zip(chosen, in_fitted_half(chosen)) if even == (args.half == "even")]
    with args.output.open("w", encoding="utf8") as out:
        for word in sorted(chosen):
            for _, words, position in sorted(found[word], key=lambda row: row[0])[: args.per_word]:
                out.write(json.dumps({"lemma": word, "words": words, "position": position, "sense": word}) + "\n")
    print(
        f"{len(found)} monosemous words on >= {args.per_word} lines; wrote {len(chosen)} x {args.per_word} "
        f"sentences to {args.output}"
    )


if __name__ == "__main__":
    main()
