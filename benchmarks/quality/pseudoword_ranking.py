"""Does corpus_polysemy rank a corpus where a word's uses differ above one where they
agree? P(mixed > single) per candidate measure on the pseudo-words of ``pseudowords.py``
(issue 21; SENSE_EVIDENCE.md, "Groups or differing uses").

For each pseudo-word and n in 10, 20, 40: the mixed corpus's first n/2 rows of each use
against the single corpus's first n rows (ties count half), each corpus with its own sense
spaces and anisotropy baseline, as two build-lexicon runs would have. With ``--repeats R``
(R > 1) each word compares R random draws of those sizes instead (seeded; a word's score is
the mean of its R comparisons, which takes most of the sampling noise of one draw out of
small n) and the standard error over words is printed beside each share. Measures: the
self-similarity score (raw rows), the split z (token + context rows), their standardised
sum (the wired corpus_polysemy before "Groups or differing uses"), the spreads of the
token, context and feature (token + context) rows, and ``corpus_polysemy`` as wired now
(``ops.sense_evidence.corpus_polysemy_of``); last, the number of senses the wired rule
gives (``corpus_evidence``: the issue's "k higher", ties half), and the shares of mixed
corpora it splits and of single corpora it keeps at one sense (over all draws). Needs a
cache written since pseudowords.py kept raw rows.

    python benchmarks/quality/pseudoword_ranking.py /tmp/pw40 [--half held_out] [--sizes 6,8,10,20,40] [--repeats 10]
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from spacy_ctxvec.ops.sense_evidence import (
    MIN_SUPPORT,
    corpus_evidence,
    corpus_polysemy_of,
    one_use_reference,
    reported_split_z,
    self_similarity_score,
)
from spacy_ctxvec.ops.senses import sense_features, spread
from spacy_ctxvec.ops.split_significance import split_evidence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sense_evidence_eval import rows_for  # noqa: E402  (the mixed / single rows of sense_evidence_eval)

SIZES = (10, 20, 40)


def load(cache: Path, name: str) -> Tuple[float, Dict[str, Dict]]:
    meta = json.loads((cache / f"{name}.json").read_text())
    if "baseline" not in meta:
        raise SystemExit(f"{cache} was written before pseudowords.py kept raw rows: embed the pseudo-words again")
    arrays = np.load(cache / f"{name}.npz")
    fields = ("raw", "units", "contexts", "uses")
    words = {p["token"]: dict(p, **{f: arrays[f"{p['token']}.{f}"] for f in fields}) for p in meta["pairs"]}
    return float(meta["baseline"]), words


def measures(word: Dict, rows: np.ndarray, baseline: float, n: int) -> Dict[str, float]:
    raw, units = word["raw"][rows].astype(np.float64), word["units"][rows].astype(np.float64)
    contexts = word["contexts"][rows].astype(np.float64)
    features = sense_features(units, contexts)
    similarity = self_similarity_score(raw, baseline)
    z = reported_split_z(split_evidence(features)[0])
    s_mean, s_sd, z_mean, z_sd = one_use_reference(n)[:4]
    wired = corpus_polysemy_of(features, min_support=MIN_SUPPORT, self_similarity=similarity)
    senses = corpus_evidence(features, min_support=MIN_SUPPORT, self_similarity=similarity).n_senses
    return {
        "self-similarity": float(similarity or 0.0),
        "split z": z,
        "self-similarity + z (before)": (float(similarity or 0.0) - s_mean) / s_sd + (z - z_mean) / z_sd,
        "spread, token rows": spread(units),
        "spread, context rows": spread(contexts),
        "spread, feature rows": spread(features),
        "corpus_polysemy (wired)": float("-inf") if wired is None else wired,
        "n_senses (wired)": float(senses),
    }


def drawn_rows(
    mixed: Dict, single: Dict, n: int, repeats: int, rng: np.random.Generator
) -> Optional[List[Tuple[np.ndarray, np.ndarray]]]:
    """(mixed rows, single rows) pairs: the first rows (``rows_for``) for one repeat, else
    ``repeats`` random draws of n/2 rows of each use and n rows of the single use; None
    where a corpus has too few rows."""
    if repeats == 1:
        in_mixed, in_single = rows_for(mixed, n, True), rows_for(single, n, False)
        return None if in_mixed is None or in_single is None else [(in_mixed, in_single)]
    uses = [np.flatnonzero(mixed["uses"] == use) for use in (0, 1)]
    one_use = np.flatnonzero(single["uses"] == 0)
    if min(len(rows) for rows in uses) < n // 2 or len(one_use) < n:
        return None
    return [
        (
            np.sort(np.concatenate([rng.choice(rows, n // 2, replace=False) for rows in uses])),
            np.sort(rng.choice(one_use, n, replace=False)),
        )
        for _ in range(repeats)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cache", type=Path, help="the directory pseudowords.py wrote")
    parser.add_argument("--half", choices=("tune", "held_out"), default="tune")
    parser.add_argument("--sizes", type=lambda t: [int(x) for x in t.split(",")], default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=1, help="random draws per word (1: the first rows)")
    args = parser.parse_args()
    if any(n % 2 or n < 2 for n in args.sizes):
        parser.error("--sizes takes even sizes: the mixed corpus holds n/2 rows of each use")
    if args.repeats < 1:
        parser.error("--repeats takes at least 1")
    mixed_baseline, mixed = load(args.cache, "mixed")
    single_baseline, single = load(args.cache, "single")
    table: Dict[str, List[str]] = {}
    counts = []
    rng = np.random.default_rng(0)
    splits: List[str] = []
    for n in args.sizes:
        higher: Dict[str, List[float]] = {}
        senses: Tuple[List[float], List[float]] = ([], [])
        for token, word in mixed.items():
            if word["half"] != args.half or token not in single:
                continue
            draws = drawn_rows(word, single[token], n, args.repeats, rng)
            if draws is None:
                continue
            wins: Dict[str, List[float]] = {}
            for in_mixed, in_single in draws:
                a = measures(word, in_mixed, mixed_baseline, n)
                b = measures(single[token], in_single, single_baseline, n)
                for name in a:
                    wins.setdefault(name, []).append(1.0 if a[name] > b[name] else 0.5 if a[name] == b[name] else 0.0)
                senses[0].append(a["n_senses (wired)"])
                senses[1].append(b["n_senses (wired)"])
            for name, values in wins.items():
                higher.setdefault(name, []).append(float(np.mean(values)))
        counts.append(str(len(next(iter(higher.values()), []))))
        for name, values in higher.items():
            error = f" ± {np.std(values) / np.sqrt(len(values)):.3f}" if args.repeats > 1 else ""
            table.setdefault(name, []).append(f"{np.mean(values):.3f}{error}")
        splits.append(f"{np.mean(np.array(senses[0]) > 1):.3f} / {np.mean(np.array(senses[1]) == 1):.3f}")
    sizes = " / ".join(map(str, args.sizes))
    print(f"{args.half}: P(mixed > single) at n = {sizes} ({' / '.join(counts)} pseudo-words)")
    for name, cells in table.items():
        print(f"{name} | {' | '.join(cells)}")
    print(f"wired rule: mixed corpora split / single corpora kept at one sense | {' | '.join(splits)}")


if __name__ == "__main__":
    main()
