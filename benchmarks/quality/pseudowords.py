"""Pseudo-words (Schütze 1998) from the Gutenberg corpus: development data with known
answers for the corpus split test (issue 21), no dictionary in the loop.

Two unrelated words a and b (WordNet gives each at most ``MAX_WORDNET_SENSES`` senses,
each on at least ``--per-word`` lines) are replaced by one made-up token P. Two corpora
are made of the same pipeline's input:

- ``mixed``: ``--per-word / 2`` lines of a and as many of b, both written P: P has two uses;
- ``single``: ``--per-word`` lines of a (the same first half, then more), written P: one use.

a is written in lower case and b capitalised: the model (all-MiniLM-L6-v2) is uncased, so
the vectors are the same, and the snippet the sample keeps tells which word a row was.
Pairs of md5-even words are the tuning pairs, pairs of md5-odd words the held-out ones
(``in_fitted_half``). Each corpus goes through the real pipeline (``load_pipeline``, the
build-lexicon layer 5) and ``building.shard.partial_lexicon`` with a sample; the cache
keeps, per pseudo-word and corpus, its sampled rows in the corpus's sense spaces
(``lexicon.sense_inventory.fit_corpus_sense_space``, as ``induce_inventory`` fits them):
token unit rows, context unit rows, snippets and the true use (0: a, 1: b) of the rows
induction judges (the first occurrence of the token in each passage; ``sampled_rows``
counts all its sampled rows), plus the n_senses that today's ``induce_inventory`` (spread
rule) gives. Caches written before this kept every sampled row (about 1% more: a second
occurrence in a line).

    HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false python benchmarks/quality/pseudowords.py \
        ../shared/data/corpus_gutenberg ../shared/data/wordnet_sense_counts/sense_counts.tsv \
        /tmp/pseudowords --pairs 15 --per-word 40

Then ``benchmarks/quality/sense_evidence_eval.py /tmp/pseudowords`` evaluates. About 3
minutes for 15 + 15 pairs x 40 lines on 2 shared CPU cores (embedding 2,400 lines).
"""

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

MAX_WORDNET_SENSES = 3
MIN_LENGTH = 4
_WORD = re.compile(r"[A-Za-z]+")
_SYLLABLES = ("ba", "ko", "ri", "zu", "me", "ta", "ni", "go", "pe", "lu", "da", "vi", "so", "fe", "mu", "xi")


def md5_number(text: str) -> int:
    return int(hashlib.md5(text.encode("utf8")).hexdigest()[:8], 16)


def made_up_token(index: int, vocabulary: set) -> str:
    """A letters-only token not in the corpus: syllables from the index, then 'x'."""
    n, syllables = index + 37, []
    for _ in range(3):
        syllables.append(_SYLLABLES[n % len(_SYLLABLES)])
        n //= len(_SYLLABLES)
    token = "".join(syllables) + "x"
    while token in vocabulary:
        token += "x"
    return token


def read_lines(corpus: Path) -> List[str]:
    files = sorted(p for p in corpus.glob("*.txt") if "README" not in p.name)
    lines: List[str] = []
    for path in files:
        lines.extend(line.strip() for line in path.read_text(encoding="latin-1").splitlines() if line.strip())
    return lines


def lines_by_word(lines: Sequence[str]) -> Dict[str, List[int]]:
    found: Dict[str, List[int]] = {}
    for i, line in enumerate(lines):
        for word in {w.lower() for w in _WORD.findall(line)}:
            found.setdefault(word, []).append(i)
    return found


def mostly_lower_case(lines: Sequence[str]) -> set:
    """Words written in lower case at least 90% of the time (not names)."""
    lower: Dict[str, int] = {}
    total: Dict[str, int] = {}
    for line in lines:
        for word in _WORD.findall(line):
            key = word.lower()
            total[key] = total.get(key, 0) + 1
            lower[key] = lower.get(key, 0) + (word == key)
    return {w for w, n in total.items() if lower[w] >= 0.9 * n}


def choose_pairs(
    lines: Sequence[str], senses: Dict[str, int], n_pairs: int, per_word: int
) -> List[Tuple[str, str, str]]:
    """(a, b, half) pairs: ``n_pairs`` of md5-even words ('tune'), as many md5-odd ('held_out')."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half

    found = lines_by_word(lines)
    common = mostly_lower_case(lines)
    candidates = sorted(
        (
            w
            for w, rows in found.items()
            if len(rows) >= per_word + 5
            and len(w) >= MIN_LENGTH
            and 1 <= senses.get(w, 0) <= MAX_WORDNET_SENSES
            and w not in ENGLISH_STOP_WORDS
            and w in common
        ),
        key=md5_number,
    )
    even = in_fitted_half(candidates)
    pairs: List[Tuple[str, str, str]] = []
    for half, words in (
        ("tune", [w for w, e in zip(candidates, even) if e]),
        ("held_out", [w for w, e in zip(candidates, even) if not e]),
    ):
        words = words[: 2 * n_pairs]
        pairs.extend((a, b, half) for a, b in zip(words[0::2], words[1::2]))
    return pairs


def replaced(line: str, word: str, token: str) -> str:
    return re.sub(rf"\b{word}\b", token, line, flags=re.IGNORECASE)


def make_corpora(
    lines: Sequence[str], pairs: Sequence[Tuple[str, str, str]], per_word: int
) -> Tuple[List[str], List[str], List[str]]:
    """(mixed lines, single lines, pseudo tokens) for the pairs, lines chosen by md5."""
    found = lines_by_word(lines)
    vocabulary = set(found)
    mixed: List[str] = []
    single: List[str] = []
    tokens: List[str] = []
    for index, (a, b, _) in enumerate(pairs):
        token = made_up_token(index, vocabulary)
        tokens.append(token)
        both = set(found[a]) & set(found[b])
        rows_a = sorted((i for i in found[a] if i not in both), key=lambda i: md5_number(lines[i]))[:per_word]
        rows_b = sorted((i for i in found[b] if i not in both), key=lambda i: md5_number(lines[i]))[: per_word // 2]
        mixed.extend(replaced(lines[i], a, token) for i in rows_a[: per_word // 2])
        mixed.extend(replaced(lines[i], b, token.capitalize()) for i in rows_b)
        single.extend(replaced(lines[i], a, token) for i in rows_a)
    return mixed, single, tokens


def embed_corpus(nlp, texts: Sequence[str], tokens: Sequence[str], sample_size: int) -> Dict[str, Dict]:
    """Per pseudo token, its rows that induction judges (first in their passage): raw token
    rows (what self-similarity reads), unit token rows, unit context rows, snippets, true
    use; the number of rows sampled; today's n_senses."""
    from spacy_ctxvec.building.shard import partial_lexicon
    from spacy_ctxvec.lexicon.sense_induction import fit_corpus_sense_space, induce_inventory
    from spacy_ctxvec.ops.senses import N_REMOVED_DIRECTIONS, SenseInductionSettings, to_sense_space

    lexicon = partial_lexicon(nlp, texts, sample_size=sample_size)
    sample = lexicon.sample
    counts = np.array([lexicon.counts[lexicon.index(k)] for k in sample.keys], dtype=np.float64)
    rows = sample.counts()
    weights = np.repeat(counts / np.maximum(rows, 1), rows)
    space = fit_corpus_sense_space(sample.vectors, weights, n_directions=N_REMOVED_DIRECTIONS)
    context_space = fit_corpus_sense_space(sample.contexts, weights, n_directions=N_REMOVED_DIRECTIONS)
    today = induce_inventory(lexicon, SenseInductionSettings(split_by_probe=False), min_count=1)
    out: Dict[str, Dict] = {}
    for token in tokens:
        i = sample.index(token)
        if i is None:
            continue
        start, end = int(sample.offsets[i]), int(sample.offsets[i + 1])
        # the rows induction judges: the first occurrence in each passage (about 1% of these
        # rows are a second occurrence in a line; they would join a sense, not decide one)
        judged = start + np.flatnonzero(sample.independent_rows(start, end))
        vectors, contexts = sample.vectors[judged], sample.contexts[judged]
        snippets = [sample.snippets[j] for j in judged]
        uses = [1 if f"[{token.capitalize()}]" in s else 0 for s in snippets]
        row = today.index(token)
        features = today.features(vectors, contexts)
        today_labels = today.assign(np.full(len(judged), row), vectors, contexts)
        out[token] = {
            "raw": np.asarray(vectors, dtype=np.float32),
            "units": to_sense_space(vectors, space).astype(np.float32),
            "contexts": to_sense_space(contexts, context_space).astype(np.float32),
            "sampled": end - start,
            "snippets": snippets,
            "uses": np.array(uses, dtype=np.int64),
            "today_n_senses": today.n_senses(token),
            "today_labels": np.asarray(today_labels, dtype=np.int64),
            "today_features": features.astype(np.float32),
        }
    settings = today.settings
    return {
        "words": out,
        "baseline": float(lexicon.anisotropy_baseline()),
        "today_settings": {
            "split_rule": settings.get("split_rule"),
            "calibrated": settings.get("split_calibrated_sizes"),
        },
    }


def save(cache: Path, name: str, embedded: Dict, pairs: Sequence[Tuple[str, str, str]], tokens: Sequence[str]) -> None:
    arrays: Dict[str, np.ndarray] = {}
    meta = []
    for (a, b, half), token in zip(pairs, tokens):
        row = embedded["words"].get(token)
        if row is None:
            continue
        for field in ("raw", "units", "contexts", "uses", "today_labels", "today_features"):
            arrays[f"{token}.{field}"] = row[field]
        meta.append(
            {
                "token": token,
                "a": a,
                "b": b,
                "half": half,
                "snippets": row["snippets"],
                "sampled_rows": row["sampled"],
                "today_n_senses": row["today_n_senses"],
            }
        )
    np.savez_compressed(cache / f"{name}.npz", **arrays)
    (cache / f"{name}.json").write_text(
        json.dumps({"pairs": meta, "baseline": embedded["baseline"], "today": embedded["today_settings"]}, indent=1)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("sense_counts", type=Path)
    parser.add_argument("cache", type=Path, help="a new directory for the embedded pseudo-words")
    parser.add_argument("--pairs", type=int, default=20, help="pairs per half (tune, held out)")
    parser.add_argument("--per-word", type=int, default=40)
    parser.add_argument("--layer", type=int, default=5)
    args = parser.parse_args()
    from spacy_ctxvec.evaluation.readers import read_sense_counts
    from spacy_ctxvec.pipelines import load_pipeline

    if args.cache.exists() and any(args.cache.iterdir()):
        sys.exit(f"{args.cache} exists and is not empty: give a new directory")
    args.cache.mkdir(parents=True, exist_ok=True)
    lines = read_lines(args.corpus)
    pairs = choose_pairs(lines, read_sense_counts(args.sense_counts), args.pairs, args.per_word)
    mixed, single, tokens = make_corpora(lines, pairs, args.per_word)
    print(f"{len(pairs)} pairs; {len(mixed)} mixed lines, {len(single)} single lines", flush=True)
    nlp = load_pipeline(None, layer=args.layer)
    for name, texts in (("mixed", mixed), ("single", single)):
        save(args.cache, name, embed_corpus(nlp, texts, tokens, sample_size=64), pairs, tokens)
        print(f"{name}: embedded", flush=True)


if __name__ == "__main__":
    main()
