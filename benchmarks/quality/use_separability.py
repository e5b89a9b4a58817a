"""How much do a word's uses show in the vectors at all? An upper bound for any split rule
on the development data of issue 21 (SENSE_EVIDENCE.md, "How far the uses show").

For each mixed corpus (pseudo-words of ``pseudowords.py``: n/2 rows of each use, ``--repeats``
random draws; with ``--wordnet``, also the mixed corpora of ``wordnet_coarse.py``: WordNet
synsets, all their rows) and each representation (token rows, context rows, feature rows:
the token joined to its context, as the product clusters them):

- ``between share``: the share of the rows' sum of squares between the true uses' centroids,
  and ``random``: the same for the true group sizes with the rows shuffled (the mean of
  ``SHUFFLES``); their ratio is how far the uses stand out of chance groupings of that size;
- ``oracle ARI``: k-means told the true number of uses (scikit-learn, 10 starts) against
  the true uses: what a rule that always picked k right could reach on those rows; and
  ``k-means``: the between share of that k-means grouping (above the true uses' share: the
  uses are not the rows' strongest grouping of that size);
- ``wired ARI``: the product's own senses (``corpus_evidence``) on the same rows.

Per half of the words (tune = md5-even, held_out = md5-odd); nothing here is fitted.

    python benchmarks/quality/use_separability.py /tmp/pw40 [--half held_out] [--sizes 10,20,40] \
        [--repeats 5] [--wordnet /tmp/c_wn/cache]
"""

import argparse
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
from spacy_ctxvec.ops.cosine import normalise_rows
from spacy_ctxvec.ops.sense_evidence import MIN_SUPPORT, corpus_evidence, self_similarity_score
from spacy_ctxvec.ops.senses import sense_features

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pseudoword_ranking import load  # noqa: E402  (the pseudo-word cache with raw rows)

SHUFFLES = 20
REPRESENTATIONS = ("token rows", "context rows", "feature rows")
# token rows, context rows, raw token rows, the anisotropy baseline, the true uses
Corpus = Tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]


def between_share(rows: np.ndarray, labels: np.ndarray) -> float:
    """Share of the total sum of squares of ``rows`` between the centroids of ``labels``."""
    centred = rows - rows.mean(axis=0)
    total = float((centred * centred).sum())
    between = sum(
        float((labels == k).sum() * (centred[labels == k].mean(axis=0) ** 2).sum()) for k in np.unique(labels)
    )
    return between / max(total, 1e-12)


def corpus_numbers(
    tokens: np.ndarray,
    contexts: np.ndarray,
    raw: np.ndarray,
    baseline: float,
    uses: np.ndarray,
    rng: np.random.Generator,
) -> Dict[str, float]:
    """The numbers of one mixed corpus (rows of the sense spaces; ``raw``: raw token rows)."""
    features = sense_features(tokens, contexts)
    out: Dict[str, float] = {}
    k = len(np.unique(uses))
    for name, rows in zip(REPRESENTATIONS, (normalise_rows(tokens), normalise_rows(contexts), features)):
        out[f"{name}: between share"] = between_share(rows, uses)
        out[f"{name}: random"] = float(np.mean([between_share(rows, rng.permutation(uses)) for _ in range(SHUFFLES)]))
        predicted = KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(rows)
        out[f"{name}: oracle ARI"] = adjusted_rand_score(uses, predicted)
        out[f"{name}: k-means share"] = between_share(rows, predicted)
    evidence = corpus_evidence(features, min_support=MIN_SUPPORT, self_similarity=self_similarity_score(raw, baseline))
    out["wired ARI"] = adjusted_rand_score(uses, evidence.labels)
    out["wired: split"] = float(evidence.split)
    return out


def pseudoword_corpora(cache: Path, half: str, n: int, repeats: int, rng: np.random.Generator) -> Iterator[Corpus]:
    baseline, words = load(cache, "mixed")
    for word in words.values():
        if word["half"] != half:
            continue
        uses = [np.flatnonzero(word["uses"] == use) for use in (0, 1)]
        if min(len(rows) for rows in uses) < n // 2:
            continue
        for _ in range(repeats):
            rows = np.sort(np.concatenate([rng.choice(use, n // 2, replace=False) for use in uses]))
            yield word["units"][rows], word["contexts"][rows], word["raw"][rows], baseline, word["uses"][rows]


def wordnet_corpora(cache: Path, half: str) -> Iterator[Corpus]:
    from wordnet_coarse import corpora, load_cache

    meta = load_cache(cache)
    groups = {key: rows for key, rows in corpora(meta).items() if key[1] == "mixed"}
    lemmas = sorted({lemma for lemma, _ in groups})
    fitted = dict(zip(lemmas, in_fitted_half(lemmas)))
    for (lemma, _), rows in sorted(groups.items()):
        if fitted[lemma] != (half == "tune"):
            continue
        gold = np.unique([meta["targets"][i]["gold"] for i in rows], return_inverse=True)[1]
        # the context half of the joined rows, a unit row again: the context's sense-space row
        contexts = normalise_rows(meta["features"][rows][:, meta["units"].shape[1] :])
        yield meta["units"][rows], contexts, meta["raw"][rows], meta["baseline"], gold


def summarise(name: str, results: List[Dict[str, float]]) -> None:
    print(f"{name} ({len(results)} corpora)")
    for representation in REPRESENTATIONS:
        share = np.mean([r[f"{representation}: between share"] for r in results])
        random = np.mean([r[f"{representation}: random"] for r in results])
        oracle = np.mean([r[f"{representation}: oracle ARI"] for r in results])
        best = np.mean([r[f"{representation}: k-means share"] for r in results])
        ratio = share / random
        shares = f"between share {share:.3f} | random {random:.3f} | x{ratio:.2f}"
        print(f"  {representation} | {shares} | k-means {best:.3f} | oracle ARI {oracle:.3f}")
    wired = np.mean([r["wired ARI"] for r in results])
    print(f"  wired senses | ARI {wired:.3f} | split {np.mean([r['wired: split'] for r in results]):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cache", type=Path, help="the directory pseudowords.py wrote")
    parser.add_argument("--half", choices=("tune", "held_out"), default="tune")
    parser.add_argument("--sizes", type=lambda t: [int(x) for x in t.split(",")], default=[10, 20, 40])
    parser.add_argument("--repeats", type=int, default=5, help="random draws per pseudo-word and size")
    parser.add_argument("--wordnet", type=Path, default=None, help="a wordnet_coarse.py cache: its mixed corpora too")
    args = parser.parse_args()
    if any(n % 2 or n < 4 for n in args.sizes) or args.repeats < 1:
        parser.error("--sizes takes even sizes of at least 4, --repeats at least 1")
    rng = np.random.default_rng(0)
    for n in args.sizes:
        results = [
            corpus_numbers(*corpus, rng) for corpus in pseudoword_corpora(args.cache, args.half, n, args.repeats, rng)
        ]
        summarise(f"{args.half} pseudo-words, n = {n}", results)
    if args.wordnet is not None:
        results = [corpus_numbers(*corpus, rng) for corpus in wordnet_corpora(args.wordnet, args.half)]
        summarise(f"{args.half} WordNet lemmas, mixed corpora (n = 6-20)", results)


if __name__ == "__main__":
    main()
