"""Sampled occurrences moved to their nearest sense after the split (issue 21):
benchmarks/quality/SENSE_EVIDENCE.md, "Sampled occurrences in the sense a token would get".

Synthetic words of three overlapping uses (``--n`` unit rows in ``--width`` dimensions around
three random directions plus Gaussian noise, one word per seed) go through
``induce_senses_by_evidence`` as shipped and with ``nearest_centroid_groups`` left out (the
split's groups kept as they are). For each noise level it prints how many split words keep a
row nearer another sense's centroid than its own, and the mean ARI against the true use.

    python benchmarks/quality/sense_refinement_synthetic.py [--seeds 200] [--noise 0.25 0.35 0.5]
"""

import argparse
from typing import List, Tuple

import numpy as np
from sklearn.metrics import adjusted_rand_score

import spacy_ctxvec.ops.sense_evidence as sense_evidence
from spacy_ctxvec.ops.cosine import normalise_rows


def three_uses(seed: int, n: int, width: int, noise: float) -> Tuple[np.ndarray, np.ndarray]:
    """(unit rows (n, width), true use (n,)) of one synthetic word."""
    rng = np.random.default_rng(seed)
    centres = normalise_rows(rng.normal(size=(3, width)))
    truth = rng.integers(0, 3, size=n)
    return normalise_rows(centres[truth] + rng.normal(scale=noise, size=(n, width))), truth


def measure(seeds: int, n: int, width: int, noise: float) -> Tuple[int, float]:
    """(words keeping a row nearer another centroid, mean ARI) over ``seeds`` words."""
    disagreeing, scores = 0, []
    for seed in range(seeds):
        rows, truth = three_uses(seed, n, width, noise)
        model, _ = sense_evidence.induce_senses_by_evidence(rows)
        if model.n_senses > 1 and (np.argmax(rows @ model.centroids.T, axis=1) != model.labels).any():
            disagreeing += 1
        scores.append(adjusted_rand_score(truth, model.labels))
    return disagreeing, float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--n", type=int, default=48, help="sampled occurrences per word")
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.25, 0.35, 0.5])
    args = parser.parse_args()
    shipped = sense_evidence.nearest_centroid_groups
    rows: List[str] = []
    for noise in args.noise:
        sense_evidence.nearest_centroid_groups = lambda rows, groups, min_support, rounds=0: list(groups)
        before = measure(args.seeds, args.n, args.width, noise)
        sense_evidence.nearest_centroid_groups = shipped
        after = measure(args.seeds, args.n, args.width, noise)
        rows.append(
            f"| {noise:g} | {before[0]} / {args.seeds} | {after[0]} / {args.seeds} | {before[1]:.3f} | {after[1]:.3f} |"
        )
    print("| noise | rows nearer another sense, before | after | mean ARI before | after |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
