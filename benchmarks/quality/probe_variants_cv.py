"""Variants of the polysemy probe compared on the md5-even half of the words only (issue 21).

The md5-odd half stays held out: every number here comes from two folds of the even
half (md5 hex digits 8-16, the folds of the probe's own split_senses cut; a word is in
one fold in every lexicon). Each variant is fitted on the even-half words of the other
fold in the --fit lexicons (pooled, as fit_shipped_probe.py does) and predicts the
even-half words of the held fold in every --evaluate lexicon; Spearman with log WordNet
sense count / partial (log frequency out) / AUC monosemous vs polysemous are taken over
the pooled out-of-fold predictions. See benchmarks/quality/SENSES.md, "Polysemy probe
variants (issue 21)".

    python benchmarks/quality/probe_variants_cv.py --fit gut_full wn_lex --evaluate gut_full wn_lex wic_scws_lex \\
        --sense-counts ../shared/data/wordnet_sense_counts/sense_counts.tsv --output probe_variants_cv.json
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
from scipy.stats import rankdata, spearmanr
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

from spacy_ctxvec.components.model_inputs import type_input_embeddings
from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.lexicon.polysemy_probe import DEFAULT_ALPHAS, in_fitted_half, probe_features, sense_counts_for
from spacy_ctxvec.pipelines import load_pipeline

MIN_COUNT = 5
ALPHAS = list(DEFAULT_ALPHAS)
WIDE_ALPHAS = list(np.logspace(-3, 5, 33))


def even_half_rows(path, sense_counts):
    """Features, log sense counts, counts and folds of the even-half types with n >= 5 and a count."""
    nlp = load_pipeline(path)
    lexicon = nlp.get_pipe("ctxvec_polysemy").lexicon
    features, valid = probe_features(lexicon, MIN_COUNT, type_input_embeddings(nlp, lexicon.keys))
    senses = sense_counts_for(lexicon.keys, sense_counts)
    rows = np.flatnonzero(valid & (senses > 0) & in_fitted_half(lexicon.keys))
    words = [lexicon.keys[row] for row in rows]
    fold = np.array([int(hashlib.md5(word.encode("utf8")).hexdigest()[8:16], 16) % 2 for word in words])
    return {
        "X": features[rows],
        "y": np.log(senses[rows].astype(np.float64)),
        "n": lexicon.counts[rows].astype(np.float64),
        "fold": fold,
        "width": lexicon.width,
        "words": words,
    }


def partial_spearman(score, target, control):
    ranks = [rankdata(values) for values in (score, target, control)]
    design = np.column_stack([np.ones(len(score)), ranks[2]])
    residuals = [r - design @ np.linalg.lstsq(design, r, rcond=None)[0] for r in ranks[:2]]
    return float(np.corrcoef(*residuals)[0, 1])


def ridge(alphas=ALPHAS, input_scale=1.0, poly_bonus=0.0, balanced=False, standardise=False):
    """A RidgeCV probe; every option still gives one linear map of the probe's features."""

    def make(X, y, width):
        scale = np.ones(X.shape[1])
        scale[width + 2 :] = input_scale
        scaler = StandardScaler().fit(X) if standardise else None
        transform = (lambda Z: scaler.transform(Z)) if scaler else (lambda Z: Z * scale)
        weights = np.where(y > 0, 1.0, (y > 0).mean() / (y == 0).mean()) if balanced else None
        model = RidgeCV(alphas=alphas).fit(transform(X), y + poly_bonus * (y > 0), sample_weight=weights)
        return lambda Z: model.predict(transform(Z))

    return make


def ridge_plus_logistic(weight):
    """Standardised ridge on log counts + ``weight`` x a logistic (mono vs poly) score at its spread."""

    def make(X, y, width):
        scaler = StandardScaler().fit(X)
        Xs = scaler.transform(X)
        regression = RidgeCV(alphas=ALPHAS).fit(Xs, y)
        classifier = LogisticRegression(C=0.01, max_iter=2000).fit(Xs, y > 0)
        ratio = regression.predict(Xs).std() / classifier.decision_function(Xs).std()
        return lambda Z: (
            regression.predict(scaler.transform(Z)) + weight * ratio * classifier.decision_function(scaler.transform(Z))
        )

    return make


def random_fourier(n_features, gamma, seed=0):
    """Ridge on the standardised features plus random Fourier features of an RBF kernel."""

    def make(X, y, width):
        scaler = StandardScaler().fit(X)
        rng = np.random.default_rng(seed)
        projection = rng.normal(0.0, np.sqrt(2 * gamma), (X.shape[1], n_features))
        phase = rng.uniform(0, 2 * np.pi, n_features)

        def expand(Z):
            Zs = scaler.transform(Z) / np.sqrt(X.shape[1])
            return np.column_stack([Zs, np.sqrt(2.0 / n_features) * np.cos(Zs @ projection + phase)])

        model = RidgeCV(alphas=ALPHAS).fit(expand(X), y)
        return lambda Z: model.predict(expand(Z))

    return make


def cross_validate(data, fit_names, make):
    predictions = {name: np.zeros(len(entry["y"])) for name, entry in data.items()}
    width = next(iter(data.values()))["width"]
    for held in (0, 1):
        X = np.concatenate([data[name]["X"][data[name]["fold"] != held] for name in fit_names])
        y = np.concatenate([data[name]["y"][data[name]["fold"] != held] for name in fit_names])
        predict = make(X, y, width)
        for name, entry in data.items():
            in_fold = entry["fold"] == held
            predictions[name][in_fold] = predict(entry["X"][in_fold])
    return {
        name: {
            "spearman": float(spearmanr(predictions[name], entry["y"])[0]),
            "partial": partial_spearman(predictions[name], entry["y"], np.log(entry["n"])),
            "auc": float(roc_auc_score(entry["y"] > 0, predictions[name])),
        }
        for name, entry in data.items()
    }


VARIANTS = {
    "shipped: RidgeCV, default alphas": ridge(),
    "RidgeCV, alphas 1e-3..1e5": ridge(WIDE_ALPHAS),
    "standardised features": ridge(WIDE_ALPHAS, standardise=True),
    "target log count + 0.5 x polysemous": ridge(poly_bonus=0.5),
    "target log count + 1.0 x polysemous": ridge(poly_bonus=1.0),
    "balanced monosemous / polysemous weights": ridge(balanced=True),
    "ridge + 0.5 x logistic": ridge_plus_logistic(0.5),
    "ridge + 1.0 x logistic": ridge_plus_logistic(1.0),
    **{f"input_scale {scale}": ridge(WIDE_ALPHAS, input_scale=scale) for scale in (0.25, 0.35, 0.5, 0.7, 1.4)},
    **{f"random Fourier features (2000, gamma {gamma})": random_fourier(2000, gamma) for gamma in (0.05, 0.2)},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", nargs="+", required=True, help="Pipelines to fit on (pooled)")
    parser.add_argument("--evaluate", nargs="+", required=True, help="Pipelines to score")
    parser.add_argument("--sense-counts", required=True)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    sense_counts = read_sense_counts(args.sense_counts)
    paths = list(dict.fromkeys(args.fit + args.evaluate))
    data = {Path(path).name: even_half_rows(path, sense_counts) for path in paths}
    fit_names = [Path(path).name for path in args.fit]
    for name, entry in data.items():
        print(f"{name}: {len(entry['y'])} even-half words, {int((entry['y'] == 0).sum())} monosemous")
    variants = {**VARIANTS, "fitted on every --evaluate lexicon too": (ridge(), list(data))}
    results = {}
    for label, variant in variants.items():
        make, names = variant if isinstance(variant, tuple) else (variant, fit_names)
        results[label] = cross_validate(data, names, make)
        cells = "  ".join(
            f"{n} {m['spearman']:.3f}/{m['partial']:.3f}/{m['auc']:.3f}" for n, m in results[label].items()
        )
        print(f"{label:48s} {cells}", flush=True)
    if args.output:
        args.output.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
