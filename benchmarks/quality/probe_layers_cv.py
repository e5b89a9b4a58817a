"""Does another MiniLM layer help the polysemy probe? (issue 21; md5-even half of the words only)

One pass of the default pipeline (build-lexicon's: default.cfg, layer -2, lower-cased keys,
mean pooling, nlp.pipe with batch 1000, polysemy component off) per corpus, with every hidden
state on: each Doc's tokens are pooled at every layer 0..6 (evaluation.token_vectors
``pool_every_layer``, the pooling ctxvec_context uses) and summed per type at every layer as
the Lexicon sums them (analysis.occurrences ``lexicons_by_layer``, ``Lexicon.merge``). The
layer -2 rows are checked against the pipeline's own token vectors (bit for bit), and with
``--compare`` against a lexicon that build-lexicon made from the same corpus. The per-layer
lexicons (.npy + JSON) and the types' input embeddings are cached under ``--work``, so a
rerun only redoes the cross-validation.

Cross-validation as probe_variants_cv.py: the md5-even words with n >= 5 and a WordNet count,
two folds by md5 hex digits 8-16, RidgeCV (the shipped alphas) fitted on the other fold of the
two corpora pooled, predicting the held fold of each; Spearman / partial (log frequency out) /
AUC mono vs poly on the pooled out-of-fold predictions; a paired bootstrap (1,000 draws of
words) of the AUC difference against layer 5 for the best rows. The md5-odd half is never
scored. See benchmarks/quality/SENSES.md, "Other layers for the polysemy probe (issue 21)".

    HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false nice -n 19 python benchmarks/quality/probe_layers_cv.py \\
        --gutenberg ../shared/data/corpus_gutenberg --every 4 \\
        --wordnet-examples ../shared/data/wordnet_examples/wordnet_examples.jsonl \\
        --sense-counts ../shared/data/wordnet_sense_counts/sense_counts.tsv \\
        --compare wn_lex=/tmp/probe_work/wn_lex --reproduce /tmp/probe_work/gut_full /tmp/probe_work/wn_lex \\
        --work /tmp/layers_work --output benchmarks/quality/probe_layers_cv.json

and the same with ``--every 1`` (the whole corpus; --compare/--reproduce need not be repeated).
"""

import argparse
import hashlib
import json
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Dict, Iterable, Iterator, List

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score
from spacy.attrs import LOWER

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from probe_variants_cv import MIN_COUNT, cross_validate, even_half_rows, partial_spearman, ridge  # noqa: E402

from spacy_ctxvec.analysis.occurrences import lexicons_by_layer  # noqa: E402
from spacy_ctxvec.attributes import CONTEXT_MASK  # noqa: E402
from spacy_ctxvec.building.corpus import iter_corpus  # noqa: E402
from spacy_ctxvec.building.shard import doc_occurrences, polysemy_components  # noqa: E402
from spacy_ctxvec.components.context import keep_trf_data  # noqa: E402
from spacy_ctxvec.components.model_inputs import type_input_embeddings  # noqa: E402
from spacy_ctxvec.evaluation.readers import read_sense_counts  # noqa: E402
from spacy_ctxvec.evaluation.token_vectors import pool_every_layer  # noqa: E402
from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half, probe_features, sense_counts_for  # noqa: E402
from spacy_ctxvec.lexicon.statistics import Lexicon, merge  # noqa: E402
from spacy_ctxvec.pipelines import DEFAULT_CONFIG, load_pipeline  # noqa: E402

SHIPPED_LAYER = 5  # hidden state -2 of MiniLM's 7 (embeddings + 6 layers)
CHUNK_TOKENS = 20_000
N_BOOTSTRAP = 1000


# Corpora -------------------------------------------------------------------------------


def gutenberg_subset(folder: Path, every: int) -> Iterator[str]:
    """Every ``every``-th document (non-blank line, counted per book from the first) of each
    book of the NLTK Gutenberg folder, books in name order, the two README files left out."""
    for book in sorted(folder.glob("*.txt")):
        if book.name.startswith("NLTK_") or book.name == "README.md":
            continue
        for number, text in enumerate(iter_corpus(book, encoding="latin-1")):
            if number % every == 0:
                yield str(text)


def wordnet_sentences(path: Path, work: Path) -> Iterator[str]:
    """The distinct WordNet example sentences, words joined by spaces, one a line in
    ``work/wn_examples.txt`` (SENSES.md's file), read back as build-lexicon reads it."""
    with path.open(encoding="utf8") as handle:
        sentences = dict.fromkeys(" ".join(json.loads(line)["words"]) for line in handle)
    text_file = work / "wn_examples.txt"
    text_file.write_text("\n".join(sentences) + "\n", encoding="utf8")
    return (str(text) for text in iter_corpus(text_file))


# One forward pass, every layer -----------------------------------------------------------


def every_layer_lexicons(nlp, texts: Iterable[str], batch_size: int = 1000) -> Dict[str, object]:
    """One Lexicon per hidden layer from one pass; the layer -2 rows must equal token._.context_vec."""
    pooling = nlp.get_pipe("ctxvec_context").pooling
    merged: Dict[int, Lexicon] = {}
    keys: List[str] = []
    rows: List[np.ndarray] = []
    n_docs = n_tokens = n_mismatched = 0

    def flush() -> None:
        if rows:
            stacked = np.concatenate(rows).transpose(1, 0, 2)  # (n_layers, n_occ, width)
            for layer, lexicon in lexicons_by_layer(keys, stacked).items():
                merged[layer] = lexicon if layer not in merged else merge(merged[layer], lexicon)
        keys.clear()
        rows.clear()

    with keep_trf_data(nlp):
        for doc in nlp.pipe(texts, batch_size=batch_size, disable=polysemy_components(nlp)):
            n_docs += 1
            ids, vectors = doc_occurrences(doc, LOWER, nlp.pipe_names)
            layers = pool_every_layer(doc._.trf_data, pooling).astype(vectors.dtype, copy=False)
            layers = layers[np.asarray(doc._.get(CONTEXT_MASK), dtype=bool)]
            n_mismatched += int((layers[:, SHIPPED_LAYER] != vectors).any(axis=1).sum())
            keys.extend(nlp.vocab.strings[int(i)] for i in ids)
            rows.append(layers)
            n_tokens += len(ids)
            if len(keys) >= CHUNK_TOKENS:
                flush()
    flush()
    return {"lexicons": merged, "n_docs": n_docs, "n_tokens": n_tokens, "n_mismatched_layer5_rows": n_mismatched}


def cached_corpus(nlp, name: str, texts: Iterable[str], work: Path) -> Dict[str, object]:
    """Per-layer lexicons and input embeddings of a corpus, from ``work/name`` when cached."""
    folder = work / name
    info_file = folder / "info.json"
    if not info_file.exists():
        folder.mkdir(parents=True, exist_ok=True)
        started, cpu = time.perf_counter(), time.process_time()
        built = every_layer_lexicons(nlp, texts)
        info = {key: value for key, value in built.items() if key != "lexicons"}
        info.update(wall_s=round(time.perf_counter() - started, 1), cpu_s=round(time.process_time() - cpu, 1))
        lexicons = built["lexicons"]
        for layer, lexicon in lexicons.items():
            lexicon.to_disk(folder / f"layer_{layer}")
        np.save(folder / "inputs.npy", type_input_embeddings(nlp, lexicons[0].keys))
        info_file.write_text(json.dumps(info, indent=2) + "\n")
    info = json.loads(info_file.read_text())
    layer_dirs = sorted(folder.glob("layer_*"), key=lambda path: int(path.name.split("_")[1]))
    lexicons = [Lexicon.from_disk(path) for path in layer_dirs]
    if any(lexicon.keys != lexicons[0].keys for lexicon in lexicons):
        raise SystemExit(f"{folder}: the layers' lexicons do not have the same types")
    return {"lexicons": lexicons, "inputs": np.load(folder / "inputs.npy"), "info": info}


def compare_with_build(lexicon: Lexicon, pipeline_dir: str) -> Dict[str, object]:
    """How the layer -2 lexicon of this pass compares with build-lexicon's lexicon of the same corpus."""
    built = load_pipeline(pipeline_dir).get_pipe("ctxvec_polysemy").lexicon
    same_keys = built.keys == lexicon.keys
    return {
        "pipeline": pipeline_dir,
        "same_types": same_keys,
        "same_counts": bool(same_keys and np.array_equal(built.counts, lexicon.counts)),
        "same_unit_sums": bool(same_keys and np.array_equal(built.unit_sums, lexicon.unit_sums)),
        "max_unit_centroid_difference": float(np.abs(built.unit_centroids() - lexicon.unit_centroids()).max())
        if same_keys
        else None,
    }


# Feature sets ---------------------------------------------------------------------------


def feature_sets(lexicons: List[Lexicon]) -> Dict[str, np.ndarray]:
    """Probe features (unit centroid, log relative frequency, self-similarity) per row
    name, without the input embedding; the caller adds it."""
    per_layer = [probe_features(lexicon, MIN_COUNT)[0] for lexicon in lexicons]
    width = lexicons[0].width
    shipped = per_layer[SHIPPED_LAYER]
    sets = {f"layer {k}": features for k, features in enumerate(per_layer)}
    for k, features in enumerate(per_layer):
        if k != SHIPPED_LAYER:  # centroid and self-similarity of layer k beside layer 5's features
            sets[f"layer 5 + layer {k}"] = np.column_stack([shipped, features[:, :width], features[:, width + 1]])
    middle = range(2, 6)
    for label, chosen in (("mean of layers 0-6", range(len(per_layer))), ("mean of layers 2-5", middle)):
        centroid = np.mean([per_layer[k][:, :width] for k in chosen], axis=0)
        centroid /= np.maximum(np.linalg.norm(centroid, axis=1, keepdims=True), 1e-12)
        self_similarity = np.mean([per_layer[k][:, width + 1] for k in chosen], axis=0)
        sets[label] = np.column_stack([centroid, shipped[:, width], self_similarity])
    sets["layers 0-6 concatenated"] = np.column_stack(
        [shipped[:, width]] + [np.column_stack([f[:, :width], f[:, width + 1]]) for f in per_layer]
    )
    return sets


def even_half(corpus: Dict[str, object], sense_counts) -> Dict[str, object]:
    """Rows (md5-even, n >= 5, a sense count), targets, counts and folds, as probe_variants_cv."""
    lexicons: List[Lexicon] = corpus["lexicons"]
    keys = lexicons[0].keys
    valid = np.logical_and.reduce([probe_features(lexicon, MIN_COUNT)[1] for lexicon in lexicons])
    senses = sense_counts_for(keys, sense_counts)
    rows = np.flatnonzero(valid & (senses > 0) & in_fitted_half(keys))
    words = [keys[row] for row in rows]
    fold = np.array([int(hashlib.md5(word.encode("utf8")).hexdigest()[8:16], 16) % 2 for word in words])
    sets = feature_sets(lexicons)
    inputs = np.asarray(corpus["inputs"], dtype=np.float64)[rows]
    return {
        "sets": {name: features[rows] for name, features in sets.items()},
        "inputs": inputs,
        "y": np.log(senses[rows].astype(np.float64)),
        "n": lexicons[0].counts[rows].astype(np.float64),
        "fold": fold,
    }


# Cross-validation -----------------------------------------------------------------------


def out_of_fold(data: Dict[str, Dict], name: str, with_inputs: bool) -> Dict[str, np.ndarray]:
    """Out-of-fold predictions per corpus, fitted on the other fold of every corpus pooled."""

    def X(entry: Dict, rows: np.ndarray) -> np.ndarray:
        features = entry["sets"][name][rows]
        return np.column_stack([features, entry["inputs"][rows]]) if with_inputs else features

    predictions = {corpus: np.zeros(len(entry["y"])) for corpus, entry in data.items()}
    for held in (0, 1):
        fit_rows = {corpus: entry["fold"] != held for corpus, entry in data.items()}
        predict = ridge()(
            np.concatenate([X(entry, fit_rows[corpus]) for corpus, entry in data.items()]),
            np.concatenate([entry["y"][fit_rows[corpus]] for corpus, entry in data.items()]),
            0,
        )
        for corpus, entry in data.items():
            predictions[corpus][~fit_rows[corpus]] = predict(X(entry, ~fit_rows[corpus]))
    return predictions


def scores(prediction: np.ndarray, entry: Dict) -> Dict[str, float]:
    return {
        "spearman": float(spearmanr(prediction, entry["y"])[0]),
        "partial": partial_spearman(prediction, entry["y"], np.log(entry["n"])),
        "auc": float(roc_auc_score(entry["y"] > 0, prediction)),
    }


def bootstrap_auc_difference(a: np.ndarray, b: np.ndarray, positive: np.ndarray, seed: int = 0) -> Dict[str, float]:
    """AUC(a) - AUC(b) on the same words, and its 95% interval over N_BOOTSTRAP resamples of words."""
    rng = np.random.default_rng(seed)
    differences = []
    while len(differences) < N_BOOTSTRAP:
        draw = rng.integers(0, len(a), len(a))
        if positive[draw].all() or not positive[draw].any():
            continue  # one class only: no AUC
        differences.append(roc_auc_score(positive[draw], a[draw]) - roc_auc_score(positive[draw], b[draw]))
    low, high = np.percentile(differences, [2.5, 97.5])
    return {
        "difference": float(roc_auc_score(positive, a) - roc_auc_score(positive, b)),
        "low": float(low),
        "high": float(high),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gutenberg", type=Path, required=True, help="The NLTK Gutenberg folder")
    parser.add_argument("--every", type=int, default=4, help="Keep every EVERY-th line of each book")
    parser.add_argument("--wordnet-examples", type=Path, required=True)
    parser.add_argument("--sense-counts", required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/layers_work"), help="Cache of the per-layer sums")
    parser.add_argument("--compare", nargs="*", default=[], help="NAME=PIPELINE: build-lexicon's lexicon of a corpus")
    parser.add_argument("--reproduce", nargs="*", default=[], help="build-lexicon pipelines: the shipped CV row")
    parser.add_argument("--best", type=int, default=4, help="Bootstrap this many best rows against layer 5")
    parser.add_argument("--output", type=Path)
    parser.add_argument(
        "--limit", type=int, default=0, help="Only the first LIMIT documents of each corpus (a smoke test)"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sense_counts = read_sense_counts(args.sense_counts)
    corpora = {
        f"gut_every{args.every}": lambda: gutenberg_subset(args.gutenberg, args.every),
        "wn_lex": lambda: wordnet_sentences(args.wordnet_examples, args.work),
    }
    nlp = None
    if not all((args.work / name / "info.json").exists() for name in corpora):
        nlp = load_pipeline(DEFAULT_CONFIG, layer=-2)
    passes = {
        name: cached_corpus(nlp, name, islice(texts(), args.limit or None), args.work)
        for name, texts in corpora.items()
    }
    report: Dict[str, object] = {"passes": {name: corpus["info"] for name, corpus in passes.items()}}
    for name, corpus in passes.items():
        print(f"{name}: {corpus['info']}", flush=True)
    if args.reproduce:
        # the shipped setting on build-lexicon's own lexicons, as probe_variants_cv.py's first row
        built = {Path(path).name: even_half_rows(path, sense_counts) for path in args.reproduce}
        report["reproduce_shipped_row"] = cross_validate(built, list(built), ridge())
        print(f"shipped row on {args.reproduce}: {report['reproduce_shipped_row']}", flush=True)
    report["compare"] = {}
    for item in args.compare:
        name, pipeline_dir = item.split("=", 1)
        report["compare"][name] = compare_with_build(passes[name]["lexicons"][SHIPPED_LAYER], pipeline_dir)
        print(f"{name} layer 5 vs build-lexicon: {report['compare'][name]}", flush=True)
    data = {name: even_half(corpus, sense_counts) for name, corpus in passes.items()}
    report["words"] = {
        name: {"even_half": len(entry["y"]), "monosemous": int((entry["y"] == 0).sum())} for name, entry in data.items()
    }
    print(report["words"], flush=True)
    rows, predictions = {}, {}
    for with_inputs in (True, False):
        for name in next(iter(data.values()))["sets"]:
            label = f"{name}{' + input embedding' if with_inputs else ''}"
            predictions[label] = out_of_fold(data, name, with_inputs)
            rows[label] = {corpus: scores(predictions[label][corpus], data[corpus]) for corpus in data}
            cells = "  ".join(
                f"{c} {m['spearman']:.3f}/{m['partial']:.3f}/{m['auc']:.3f}" for c, m in rows[label].items()
            )
            print(f"{label:48s} {cells}", flush=True)
    report["rows"] = rows
    report["bootstrap"] = bootstrap_best_rows(rows, predictions, data, args.best)
    if args.output:  # one entry per Gutenberg setting, so runs with other --every values add theirs
        results = json.loads(args.output.read_text()) if args.output.exists() else {}
        results[next(iter(data))] = report
        args.output.write_text(json.dumps(results, indent=2) + "\n")


def bootstrap_best_rows(rows: Dict, predictions: Dict, data: Dict, n_best: int) -> Dict[str, Dict]:
    """The ``n_best`` rows of highest Gutenberg AUC with and without the input embedding,
    each against layer 5 with the same features and against the shipped setting
    (layer 5 + input embedding): paired bootstrap of the AUC difference per corpus."""
    gut, shipped, inputs = next(iter(data)), f"layer {SHIPPED_LAYER} + input embedding", " + input embedding"
    results: Dict[str, Dict] = {}
    for with_inputs in (True, False):
        own = shipped if with_inputs else f"layer {SHIPPED_LAYER}"
        candidates = [label for label in rows if label.endswith(inputs) == with_inputs and label != own]
        for label in sorted(candidates, key=lambda label: -rows[label][gut]["auc"])[:n_best]:
            for reference in dict.fromkeys((own, shipped)):
                results[f"{label} vs {reference}"] = {
                    corpus: bootstrap_auc_difference(
                        predictions[label][corpus], predictions[reference][corpus], data[corpus]["y"] > 0
                    )
                    for corpus in data
                }
                cells = "  ".join(
                    f"{c} {d['difference']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}]"
                    for c, d in results[f"{label} vs {reference}"].items()
                )
                print(f"bootstrap {label} vs {reference}: {cells}", flush=True)
    return results


if __name__ == "__main__":
    main()
