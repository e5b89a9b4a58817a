"""The polysemy probe plus each word's place in the model's own wordpiece vocabulary, on the
md5-even half of the words only (two folds, as probe_variants_cv.py; issue 21).

Zipf's meaning-frequency law says frequent words have more senses. BERT-style vocabularies
list whole words roughly by their frequency in the pre-training text, so a word's id is a
free estimate of its frequency in the language (no dictionary, no extra package): for a
word that is one wordpiece, log(id + 1); for a word of several wordpieces, log(vocabulary
size) and log(number of pieces). See benchmarks/quality/SENSES.md, "Polysemy probe variants".

    python benchmarks/quality/probe_vocab_rank_cv.py gut_full wn_lex \\
        --sense-counts ../shared/data/wordnet_sense_counts/sense_counts.tsv
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import RidgeCV

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.quality import probe_variants_cv as variants  # noqa: E402
from spacy_ctxvec.evaluation.readers import read_sense_counts  # noqa: E402
from spacy_ctxvec.pipelines import load_pipeline  # noqa: E402

N_VOCAB_COLUMNS = 2


def vocabulary_features(path: str, words) -> np.ndarray:
    """(log id + 1, 0) for one-wordpiece words; (log vocabulary size, log pieces) otherwise."""
    tokenizer = load_pipeline(path).get_pipe("transformer").model.tokenizer
    size = len(tokenizer)
    rows = []
    for word in words:
        ids = tokenizer(word, add_special_tokens=False)["input_ids"]
        rows.append([np.log(ids[0] + 1.0), 0.0] if len(ids) == 1 else [np.log(size), np.log(len(ids))])
    return np.array(rows)


def rows_with_vocabulary(path: str, sense_counts) -> dict:
    entry = variants.even_half_rows(path, sense_counts)
    entry["X"] = np.column_stack([entry["X"], vocabulary_features(path, entry["words"])])
    return entry


def variant(use_vocabulary: bool, input_scale: float = 1.0, alphas=variants.ALPHAS):
    def make(X, y, width):
        def transform(Z):
            base, vocabulary = Z[:, :-N_VOCAB_COLUMNS], Z[:, -N_VOCAB_COLUMNS:]
            scale = np.ones(base.shape[1])
            scale[width + 2 :] = input_scale  # the input-embedding block, as fit_probe(input_scale=...)
            return np.column_stack([base * scale, vocabulary]) if use_vocabulary else base * scale

        model = RidgeCV(alphas=alphas).fit(transform(X), y)
        return lambda Z: model.predict(transform(Z))

    return make


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lexicons", nargs="+", help="pipelines with a lexicon; gut_full and wn_lex are fitted on")
    parser.add_argument("--sense-counts", type=Path, required=True)
    args = parser.parse_args()
    sense_counts = read_sense_counts(args.sense_counts)
    data = {Path(path).name: rows_with_vocabulary(path, sense_counts) for path in args.lexicons}
    fit = [name for name in data if name in ("gut_full", "wn_lex")]
    for name, entry in data.items():
        print(f"{name}: {len(entry['y'])} even-half words, {int((entry['X'][:, -1] == 0).sum())} of one wordpiece")
    runs = {
        "shipped": variant(False),
        "shipped, input_scale 0.5": variant(False, 0.5, variants.WIDE_ALPHAS),
        "+ vocabulary place": variant(True),
        "+ vocabulary place, input_scale 0.5": variant(True, 0.5, variants.WIDE_ALPHAS),
    }
    print("Spearman / partial (log frequency out) / AUC monosemous vs polysemous, out-of-fold")
    for label, make in runs.items():
        scores = variants.cross_validate(data, fit, make)
        cells = "  ".join(f"{name} {m['spearman']:.3f}/{m['partial']:.3f}/{m['auc']:.3f}" for name, m in scores.items())
        print(f"{label:38s} {cells}", flush=True)


if __name__ == "__main__":
    main()
