"""The polysemy probe (issue 11): fitted on one half of the words, scored on the other.

Fits `spacy_ctxvec.lexicon.polysemy_probe.fit_probe` on the md5-even half of the words
of the --fit lexicons (pooled), and reports Spearman with log WordNet sense counts (raw
and with log frequency partialled out) and the monosemous-vs-polysemous AUC on the
md5-odd half of every --evaluate lexicon, beside self-similarity, log frequency, the
probe fitted on each --fit lexicon alone (transfer between corpora), the probe without
the types' input embeddings, and ablations: the unit centroid alone, log frequency +
self-similarity alone, and the model's static input embedding of the word alone (no
corpus at all). See benchmarks/quality/SENSES.md, "A polysemy
probe (session 7)".

    python benchmarks/quality/fit_shipped_probe.py --fit gut_full wn_lex --evaluate gut_full wn_lex wic_scws_lex \\
        --sense-counts ../shared/data/wordnet_sense_counts/sense_counts.tsv \\
        [--input-scale 1.0] [--compare-probe spacy_ctxvec/probes/all-MiniLM-L6-v2.layer-2] \\
        [--write-probe spacy_ctxvec/probes/all-MiniLM-L6-v2.layer-2 --trained-on "..."] \\
        --output benchmarks/quality/fit_shipped_probe.json

--input-scale multiplies the input embeddings before the ridge fit (fit_probe's
input_scale); --compare-probe also scores a saved probe (e.g. the one shipped before)
on the same held-out words. Choosing the scale: probe_variants_cv.py (even half only).
"""

import argparse
import json
from pathlib import Path

import numpy as np
from sklearn.linear_model import RidgeCV

from spacy_ctxvec.components.model_inputs import pipeline_model_fingerprint, type_input_embeddings
from spacy_ctxvec.evaluation.correlation import polysemy_report
from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.lexicon.polysemy_probe import (
    DEFAULT_ALPHAS,
    PolysemyProbe,
    fit_probe,
    in_fitted_half,
    probe_features,
    training_rows,
)
from spacy_ctxvec.pipelines import load_pipeline

MIN_COUNT = 5


def load(path):
    nlp = load_pipeline(path)
    component = nlp.get_pipe("ctxvec_polysemy")
    return {
        "name": Path(path).name,
        "lexicon": component.lexicon,
        "model": pipeline_model_fingerprint(nlp),
        "inputs": type_input_embeddings(nlp, component.lexicon.keys),
        "static": nlp.get_pipe("ctxvec_static").table if "ctxvec_static" in nlp.pipe_names else None,
    }


def ablation_scores(fit, target, counts, columns):
    """Ridge on a subset of the probe's feature columns ("centroid", "stats") or on the
    static input embedding ("static"), fitted on the even half of the --fit lexicons."""

    def features(entry):
        lexicon = entry["lexicon"]
        all_features, valid = probe_features(lexicon, MIN_COUNT)
        if columns == "centroid":
            return all_features[:, :-2], valid
        if columns == "stats":
            return all_features[:, -2:], valid
        vectors, _ = entry["static"].lookup_batch(lexicon.keys)
        return vectors.astype(np.float64), valid

    xs, ys = [], []
    for entry in fit:
        rows, _, targets = training_rows(entry["lexicon"], counts, MIN_COUNT)
        keep = in_fitted_half([entry["lexicon"].keys[row] for row in rows])
        xs.append(features(entry)[0][rows[keep]])
        ys.append(targets[keep])
    ridge = RidgeCV(alphas=list(DEFAULT_ALPHAS)).fit(np.concatenate(xs), np.concatenate(ys))
    x, valid = features(target)
    return ridge.predict(x), valid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--fit", nargs="+", required=True, help="Pipelines with a lexicon to fit on (even half of the words)"
    )
    parser.add_argument(
        "--evaluate", nargs="+", required=True, help="Pipelines with a lexicon to score (odd half of the words)"
    )
    parser.add_argument("--sense-counts", required=True)
    parser.add_argument("--write-probe", type=Path, help="Save the pooled probe here (the shipped probe)")
    parser.add_argument(
        "--trained-on", help="What the saved probe's meta says it was fitted on (default: the pipeline names)"
    )
    parser.add_argument("--output", type=Path)
    parser.add_argument("--input-scale", type=float, default=1.0, help="fit_probe's input_scale (default 1.0)")
    parser.add_argument("--compare-probe", type=Path, help="Also score this saved probe on the held-out words")
    args = parser.parse_args()
    counts = read_sense_counts(args.sense_counts)
    loaded = {path: load(path) for path in dict.fromkeys(args.fit + args.evaluate)}
    fit = [loaded[path] for path in args.fit]
    models = {entry["model"] for entry in loaded.values()}
    if len(models) != 1:
        raise SystemExit(f"the pipelines hold different models: {models}")
    model = models.pop()
    names = " + ".join(entry["name"] for entry in fit)
    lexicons, inputs = [entry["lexicon"] for entry in fit], [entry["inputs"] for entry in fit]
    pooled = fit_probe(
        lexicons,
        counts,
        min_count=MIN_COUNT,
        model=model,
        half=True,
        inputs=inputs,
        trained_on=args.trained_on or f"sense counts of the md5-even half of the words of {names}",
        input_scale=args.input_scale,
    )
    compared = PolysemyProbe.from_disk(args.compare_probe) if args.compare_probe else None
    without_inputs = fit_probe(lexicons, counts, min_count=MIN_COUNT, model=model, half=True)
    singles = {
        entry["name"]: fit_probe(
            entry["lexicon"],
            counts,
            min_count=MIN_COUNT,
            model=model,
            half=True,
            inputs=[entry["inputs"]],
            input_scale=args.input_scale,
        )
        for entry in fit
    }
    results = {"probe": pooled.meta, "evaluated": {}}
    for path in args.evaluate:
        entry = loaded[path]
        lexicon = entry["lexicon"]
        held_out = ~in_fitted_half(lexicon.keys)
        self_similarity, valid = lexicon.polysemy_scores(MIN_COUNT)
        rows = {
            f"probe fitted on {names} (the shipped probe)": pooled.scores(lexicon, MIN_COUNT, entry["inputs"])[0],
            **{
                f"probe fitted on {name} alone": probe.scores(lexicon, MIN_COUNT, entry["inputs"])[0]
                for name, probe in singles.items()
            },
            **(
                {f"saved probe {args.compare_probe}": compared.scores(lexicon, MIN_COUNT, entry["inputs"])[0]}
                if compared is not None
                else {}
            ),
            f"probe without the input embeddings, fitted on {names}": without_inputs.scores(lexicon, MIN_COUNT)[0],
            "self_similarity": self_similarity,
            "log frequency": np.log(np.maximum(lexicon.counts, 1)),
            "ablation: unit centroid alone": ablation_scores(fit, entry, counts, "centroid")[0],
            "ablation: log frequency + self-similarity alone": ablation_scores(fit, entry, counts, "stats")[0],
        }
        if all(e["static"] is not None for e in fit + [entry]):
            rows["diagnostic: the model's static input embedding of the word"] = ablation_scores(
                fit, entry, counts, "static"
            )[0]
        table = {}
        print(
            f"\n{entry['name']}: {len(lexicon)} types, held-out half (md5 odd) with n >= {MIN_COUNT} and a sense count"
        )
        for name, scores in rows.items():
            report = polysemy_report(lexicon.keys, scores, valid, lexicon.counts, counts, words=held_out)
            table[name] = report.to_dict()
            print(
                f"  {name:72s} spearman {report.spearman:.3f}  partial {report.partial_spearman:.3f}  "
                f"AUC {report.auc:.3f}  ({report.n_covered} words, {report.n_monosemous} monosemous)"
            )
        results["evaluated"][entry["name"]] = table
    if args.write_probe:
        pooled.to_disk(args.write_probe)
        print(f"\nwrote {args.write_probe}")
    if args.output:
        args.output.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
