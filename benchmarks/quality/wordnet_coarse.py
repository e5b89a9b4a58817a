"""Does the corpus decide, on real words? (issue 21; SENSE_EVIDENCE.md, "Real words: WordNet
coarse senses").

Development data with known answers from ../shared/data/wordnet_examples: every lemma with
at least two synsets of at least 3 example sentences each gets a ``mixed`` corpus (its
sentences of those synsets); where one synset has at least 6 sentences, the mixed corpus
is cut to n = min(its size, that synset's size) sentences (round robin over the synsets,
each keeping at least 3) and a ``single`` corpus of the same n from that one synset.
WordNet-monosemous Gutenberg words (``monosemous_sentences.py``) give the one-use words.

``embed``: these sentences and 1,500 other WordNet example sentences go through
``load_pipeline`` (MiniLM layer 5) once; the sense spaces are fitted on all their tokens
(as build-lexicon fits them on a whole corpus); the cache keeps each target's token and
context rows, the spaces, the anisotropy baseline and what the shipped probe reads.
``evaluate``: the split rules and corpus_polysemy measures on the cache, per md5 half of
the lemma (``in_fitted_half``: tune = even, held_out = odd).

    export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=1
    python benchmarks/quality/wordnet_coarse.py embed ../shared/data/wordnet_examples/wordnet_examples.jsonl \
        MONO.jsonl ../shared/data/corpus_gutenberg CACHE_DIR
    python benchmarks/quality/wordnet_coarse.py evaluate CACHE_DIR [--half tune]  # table CACHE_DIR: ONE_USE_TABLE
(MONO.jsonl: ``monosemous_sentences.py ... --per-word 40 --max-words 120``.)
"""

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

from spacy_ctxvec.ops.senses import CONTEXT_WEIGHT

MIN_PER_SYNSET = 3
MIN_SINGLE = 6
MONO_LINES = 20
BACKGROUND_LINES = 1500


def md5(text: str) -> int:
    return int(hashlib.md5(text.encode("utf8")).hexdigest()[:8], 16)


def _by_md5(rows: List[dict]) -> List[dict]:
    return sorted(rows, key=lambda r: md5(" ".join(r["words"])))


def build_corpora(examples: Path, mono: Path, mono_lines: int = MONO_LINES) -> Tuple[List[dict], List[List[str]]]:
    """(targets, background sentences): targets are rows {lemma, corpus (mixed / single /
    mono), gold, words, position}; the background holds WordNet example sentences of
    other lemmas."""
    by_lemma: Dict[str, Dict[str, List[dict]]] = defaultdict(lambda: defaultdict(list))
    for line in examples.read_text(encoding="utf8").splitlines():
        row = json.loads(line)
        by_lemma[row["lemma"]][row["synset"]].append(row)
    targets: List[dict] = []
    used = set()
    for lemma in sorted(by_lemma):
        synsets = sorted(
            ((s, _by_md5(rows)) for s, rows in by_lemma[lemma].items() if len(rows) >= MIN_PER_SYNSET),
            key=lambda item: (-len(item[1]), item[0]),
        )
        if len(synsets) < 2:
            continue
        used.add(lemma)
        largest = len(synsets[0][1])
        if largest >= MIN_SINGLE:
            n = min(largest, sum(len(rows) for _, rows in synsets))
            kept = synsets[: max(2, n // MIN_PER_SYNSET)]
            mixed = _round_robin([rows for _, rows in kept], n)
            single = synsets[0][1][:n]
            targets += [dict(r, corpus="single", gold=r["synset"]) for r in single]
        else:
            mixed = [r for _, rows in synsets for r in rows]
        targets += [dict(r, corpus="mixed", gold=r["synset"]) for r in mixed]
    mono_rows: Dict[str, List[dict]] = defaultdict(list)
    for line in mono.read_text(encoding="utf8").splitlines():
        row = json.loads(line)
        mono_rows[row["lemma"]].append(row)
    for lemma, rows in sorted(mono_rows.items()):
        targets += [dict(r, corpus="mono", gold=lemma) for r in rows[:mono_lines]]
    others = [
        json.loads(line)
        for line in examples.read_text(encoding="utf8").splitlines()
        if json.loads(line)["lemma"] not in used
    ]
    background = [r["words"] for r in _by_md5(others)[:BACKGROUND_LINES]]
    return targets, background


def _round_robin(groups: List[List[dict]], n: int) -> List[dict]:
    out: List[dict] = []
    for i in range(max(len(g) for g in groups)):
        out += [g[i] for g in groups if i < len(g)]
    return out[:n]


def _corpus_sample(keys: List[str], k: int = 64, min_rows: int = 6) -> np.ndarray:
    """Row indices of the corpus's own sample: up to ``k`` occurrences (the first) of every
    alphabetic type with at least ``min_rows``, the target occurrences left out ("" keys),
    grouped by type."""
    positions: Dict[str, List[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        if key.isalpha() and len(positions[key]) < k:
            positions[key].append(i)
    return np.array([i for key in sorted(positions) if len(positions[key]) >= min_rows for i in positions[key]])


def gutenberg_log_frequency(corpus: Path, words: List[str]) -> Dict[str, float]:
    """log(count / tokens) of each word (lower case) in the Gutenberg files (count at least 1)."""
    counts: Counter = Counter()
    for path in sorted(corpus.glob("*.txt")):
        if path.name.startswith("NLTK"):
            continue
        counts.update(re.findall(r"[a-z]+(?:[-'][a-z]+)*", path.read_text(encoding="latin-1").lower()))
    total = sum(counts.values())
    return {word: float(np.log(max(counts[word], 1) / total)) for word in words}


def embed(args: argparse.Namespace) -> None:
    from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK
    from spacy_ctxvec.components.model_inputs import type_input_embeddings
    from spacy_ctxvec.evaluation.token_vectors import doc_from_words
    from spacy_ctxvec.ops.context_windows import window_context_means
    from spacy_ctxvec.ops.cosine import normalise_rows
    from spacy_ctxvec.ops.senses import CONTEXT_WINDOW, fit_sense_space
    from spacy_ctxvec.pipelines import load_pipeline

    targets, background = build_corpora(args.examples, args.mono, args.mono_lines)
    print(f"{len(targets)} target rows, {len(background)} background sentences")
    nlp = load_pipeline(None, layer=args.layer)
    sentences = [t["words"] for t in targets] + background
    token_rows, context_rows, all_tokens, all_contexts = [], [], [], []
    all_keys: List[str] = []
    sample_keys: List[str] = []
    for i, doc in enumerate(nlp.pipe(doc_from_words(nlp, words) for words in sentences)):
        vectors, mask = np.asarray(doc._.get(CONTEXT_ARRAY)), np.asarray(doc._.get(CONTEXT_MASK), dtype=bool)
        contexts = window_context_means(vectors, mask, CONTEXT_WINDOW)
        if i < len(targets):
            token_rows.append(vectors[targets[i]["position"]])
            context_rows.append(contexts[targets[i]["position"]])
        all_tokens.append(vectors[mask])
        all_contexts.append(contexts[mask])
        all_keys += [t.lower_ for t in doc if mask[t.i]]
        target = targets[i]["position"] if i < len(targets) else -1
        sample_keys += [t.lower_ if t.i != target else "" for t in doc if mask[t.i]]
    tokens = np.concatenate(all_tokens).astype(np.float64)
    space, context_space = fit_sense_space(tokens), fit_sense_space(np.concatenate(all_contexts))
    units = normalise_rows(tokens)
    sums: Dict[str, np.ndarray] = {}
    for key, row in zip(all_keys, units):
        sums[key] = sums.get(key, 0.0) + row
    counts = Counter(all_keys)
    total = units.sum(axis=0)
    same_type = sum(float(s @ s) for s in sums.values())
    n_pairs = len(units) ** 2 - sum(c * c for c in counts.values())
    baseline = float((total @ total - same_type) / n_pairs)
    lemmas = sorted({t["lemma"] for t in targets})
    inputs = type_input_embeddings(nlp, lemmas)
    args.cache.mkdir(parents=True, exist_ok=True)
    np.save(args.cache / "tokens.npy", np.stack(token_rows).astype(np.float32))
    np.save(args.cache / "contexts.npy", np.stack(context_rows).astype(np.float32))
    np.save(args.cache / "inputs.npy", np.zeros((len(lemmas), 0)) if inputs is None else inputs.astype(np.float32))
    for name, sp in (("space", space), ("context_space", context_space)):
        np.save(args.cache / f"{name}_mean.npy", sp.mean)
        np.save(args.cache / f"{name}_directions.npy", sp.directions)
    sample_rows = _corpus_sample(sample_keys)
    np.save(args.cache / "sample_tokens.npy", tokens[sample_rows].astype(np.float32))
    np.save(args.cache / "sample_contexts.npy", np.concatenate(all_contexts)[sample_rows].astype(np.float32))
    meta = {
        "sample_keys": [sample_keys[i] for i in sample_rows],
        "targets": [{k: t[k] for k in ("lemma", "corpus", "gold")} for t in targets],
        "lemmas": lemmas,
        "baseline": baseline,
        "log_frequency": gutenberg_log_frequency(args.gutenberg, lemmas),
        "n_background": len(background),
        "n_tokens": len(tokens),
        "mono_lines": args.mono_lines,
    }
    (args.cache / "meta.json").write_text(json.dumps(meta), encoding="utf8")
    print(f"cache written: {len(tokens)} tokens, baseline {baseline:.4f}")


def load_cache(cache: Path, context_weight: float = CONTEXT_WEIGHT) -> dict:
    """The cache's rows in the sense spaces: ``units`` (token), ``features`` (token joined
    to context at ``context_weight``), ``raw`` (unit raw token rows, what self-similarity
    and the probe read)."""
    from spacy_ctxvec.ops.cosine import normalise_rows
    from spacy_ctxvec.ops.senses import SenseSpace, sense_features, to_sense_space

    meta = json.loads((cache / "meta.json").read_text(encoding="utf8"))
    tokens = np.load(cache / "tokens.npy").astype(np.float64)
    contexts = np.load(cache / "contexts.npy").astype(np.float64)
    space, context_space = (
        SenseSpace(np.load(cache / f"{name}_mean.npy"), np.load(cache / f"{name}_directions.npy"))
        for name in ("space", "context_space")
    )

    def rows_of(tokens: np.ndarray, contexts: np.ndarray) -> Dict[str, np.ndarray]:
        units = to_sense_space(tokens, space)
        return {
            "units": units,
            "features": sense_features(units, to_sense_space(contexts, context_space), context_weight),
            "raw": normalise_rows(tokens),
            "raw_contexts": normalise_rows(contexts),
        }

    meta.update(rows_of(tokens, contexts), inputs=np.load(cache / "inputs.npy").astype(np.float64))
    sample = [np.load(cache / f"sample_{name}.npy").astype(np.float64) for name in ("tokens", "contexts")]
    meta["sample"] = rows_of(*sample)
    return meta


def self_similarity_score(raw: np.ndarray, baseline: float) -> float:
    """The lexicon's polysemy_score by self-similarity: (1 - SelfSim) / (1 - B)."""
    from spacy_ctxvec.ops.sense_evidence import self_similarity_score as score

    return float(score(raw, baseline) or 0.0)


def probe_estimate(probe, raw: np.ndarray, score: float, log_frequency: float, inputs: np.ndarray) -> float:
    """The shipped probe's estimate from the type's statistics in this corpus."""
    from spacy_ctxvec.ops.cosine import normalise_rows

    centroid = normalise_rows(raw.sum(axis=0, keepdims=True))[0]
    features = np.concatenate([centroid, [log_frequency, score], inputs])
    return float(np.exp(probe.log_senses(features[None, :])[0]))


def corpora(meta: dict) -> Dict[Tuple[str, str], np.ndarray]:
    """(lemma, corpus) -> target row indices; the monosemous words judged on their first
    7 (``mono7``, the size of most paired corpora) and all their lines (``mono_all``: 20 by
    default, ``embed --mono-lines``)."""
    groups: Dict[Tuple[str, str], List[int]] = defaultdict(list)
    for i, target in enumerate(meta["targets"]):
        groups[(target["lemma"], target["corpus"])].append(i)
    out = {}
    for (lemma, corpus), rows in groups.items():
        if corpus == "mono":
            out[(lemma, "mono7")] = np.array(rows[:7])
            out[(lemma, "mono_all")] = np.array(rows)
        else:
            out[(lemma, corpus)] = np.array(rows)
    return out


def measures(rows: Dict[str, np.ndarray], index: np.ndarray, baseline: float) -> Dict[str, float]:
    """Candidate corpus_polysemy measures of one word's occurrences ``index`` of ``rows``."""
    from spacy_ctxvec.ops.cosine import normalise_rows
    from spacy_ctxvec.ops.sense_evidence import corpus_evidence, reported_split_z
    from spacy_ctxvec.ops.senses import spread
    from spacy_ctxvec.ops.split_significance import split_evidence

    def split_z(x: np.ndarray) -> float:
        return reported_split_z(split_evidence(x)[0])

    raw, units, features = rows["raw"][index], rows["units"][index], rows["features"][index]
    raw_joined = normalise_rows(np.hstack([raw, rows["raw_contexts"][index]]))
    return {
        "selfsim": self_similarity_score(raw, baseline),
        "spread_units": spread(units),
        "spread_features": spread(features),
        "spread_context": spread(rows["raw_contexts"][index]),
        "z_features": corpus_evidence(features).corpus_polysemy or 0.0,
        "z_units": split_z(units),
        "z_raw_joined": split_z(raw_joined),
    }


def target_measures(meta: dict, index: np.ndarray, lemma: str, probe) -> Dict[str, float]:
    """``measures`` of a target corpus, the shipped probe's estimate and the product's
    corpus_polysemy."""
    from spacy_ctxvec.ops.sense_evidence import MIN_SUPPORT, corpus_polysemy_of

    values = measures(meta, index, meta["baseline"])
    position = meta["lemmas"].index(lemma)
    inputs = meta["inputs"][position] if meta["inputs"].size else np.zeros(0)
    values["probe"] = probe_estimate(probe, meta["raw"][index], values["selfsim"], meta["log_frequency"][lemma], inputs)
    wired = corpus_polysemy_of(meta["features"][index], min_support=MIN_SUPPORT, self_similarity=values["selfsim"])
    values["corpus_polysemy (wired)"] = float("-inf") if wired is None else wired
    return values


def silhouette_labels(features: np.ndarray, max_senses: int, min_support: int) -> np.ndarray:
    """k = 2 .. max by the best cosine silhouette of the average-linkage cuts whose
    clusters all keep ``min_support`` rows (none: one sense)."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform
    from sklearn.metrics import silhouette_score

    n = len(features)
    distances = np.clip(1.0 - features @ features.T, 0.0, 2.0)
    np.fill_diagonal(distances, 0.0)
    tree = linkage(squareform(distances, checks=False), method="average")
    best, best_labels = -1.0, np.zeros(n, dtype=np.int64)
    for k in range(2, min(max_senses, n // min_support) + 1):
        labels = fcluster(tree, t=k, criterion="maxclust")
        sizes = np.bincount(labels)[1:]
        if (sizes > 0).sum() < 2 or sizes[sizes > 0].min() < min_support:
            continue
        score = silhouette_score(distances, labels, metric="precomputed")
        if score > best:
            best, best_labels = score, labels - 1
    return best_labels


def rule_labels(
    meta: dict, rows: np.ndarray, values: Dict[str, float], probe, split: Dict[str, bool], args: argparse.Namespace
) -> dict:
    """Labels per split rule for one corpus; ``split``: the decisions of the candidate
    thresholded measures (name -> split?), each followed by the evidence's bisection
    (resplit at ``args.resplit_z``) and, with ``args.silhouette``, by k from the silhouette."""
    from spacy_ctxvec.ops.sense_evidence import corpus_evidence, probe_prior_shift
    from spacy_ctxvec.ops.senses import SPLIT_THRESHOLDS, induce_senses

    units, features = meta["units"][rows], meta["features"][rows]
    evidence = corpus_evidence(features).labels
    wired = corpus_evidence(features, self_similarity=values["selfsim"]).labels
    out = {
        "wired: corpus_evidence(self_similarity)": wired,
        **{
            f"wired + probe prior {weight:g}": corpus_evidence(
                features,
                self_similarity=values["selfsim"],
                prior_shift=probe_prior_shift(values["probe"], probe.split_senses, weight),
            ).labels
            for weight in args.prior_weights
        },
        "today (probe)": induce_senses(
            units, cluster_rows=features, thresholds=SPLIT_THRESHOLDS, split=values["probe"] > probe.split_senses
        ).labels,
        "spread (shipped table)": induce_senses(units, cluster_rows=features, thresholds=SPLIT_THRESHOLDS).labels,
        "evidence": evidence,
    }
    forced = corpus_evidence(features, split_z=-np.inf, resplit_z=args.resplit_z).labels
    sil = silhouette_labels(features, 7, 3) if args.silhouette else None
    linked = induce_senses(units, cluster_rows=features, split=True).labels
    for name, decision in split.items():
        one = np.zeros(len(rows), dtype=np.int64)
        out[f"{name} > t, bisect"] = forced if decision else one
        out[f"{name} > t, linkage"] = linked if decision else one
        if sil is not None:
            out[f"{name} > t, silhouette"] = sil if decision else one
    return out


COMBINATIONS = "selfsim+z_features:1,selfsim+z_raw_joined:1,spread_features+z_features:1"
KEEP_PERCENTILE = {"mono": 80.0, "corpus": 82.0}  # corpus: ops.senses.SPLIT_PERCENTILE when measured
MAX_BASELINE_TYPES = 300


def baseline_stats(meta: dict, source: str, sizes: List[int], mono: List[str]) -> Dict[int, Dict[str, np.ndarray]]:
    """n -> measure -> values over one-use-like words at n: ``mono``, the given monosemous
    words' first n rows; ``corpus``, up to MAX_BASELINE_TYPES of the corpus's own sampled
    types with at least n rows (lowest md5 first), their first n rows."""
    if source == "mono":
        groups = {lemma: [i for i, t in enumerate(meta["targets"]) if t["lemma"] == lemma] for lemma in mono}
        rows = meta
    else:
        groups = defaultdict(list)
        for i, key in enumerate(meta["sample_keys"]):
            groups[key].append(i)
        rows = meta["sample"]
    out: Dict[int, Dict[str, np.ndarray]] = {}
    for n in sizes:
        chosen = sorted((key for key, index in groups.items() if len(index) >= n), key=md5)[:MAX_BASELINE_TYPES]
        values: Dict[str, List[float]] = defaultdict(list)
        for key in chosen:
            for name, value in measures(rows, np.array(groups[key][:n]), meta["baseline"]).items():
                values[name].append(value)
        out[n] = {name: np.array(v) for name, v in values.items()}
    return out


def standardised(values: Dict[str, float], stats: Dict[str, np.ndarray], combos: List[str]) -> Dict[str, float]:
    """Each measure as standard deviations above the one-use words of the same n, and the
    ``combos`` ("a+b:w") as a + w x b of those."""
    z = {name: v for name, v in values.items()}
    for name, known in stats.items():
        z[name] = (values[name] - known.mean()) / max(known.std(), 1e-9)
    for combo in combos:
        pair, weight = combo.split(":")
        a, b = pair.split("+")
        z[combo] = z[a] + float(weight) * z[b]
    return z


def evaluate(args: argparse.Namespace) -> None:
    from sklearn.metrics import adjusted_rand_score

    from spacy_ctxvec.lexicon.polysemy_probe import PolysemyProbe, in_fitted_half, shipped_probe_dirs

    probe = PolysemyProbe.from_disk(shipped_probe_dirs()[0])
    meta = load_cache(args.cache, args.context_weight)
    groups = corpora(meta)
    lemmas = sorted({lemma for lemma, _ in groups})
    tune = dict(zip(lemmas, in_fitted_half(lemmas)))
    mono_tune = sorted({lemma for lemma, c in groups if c == "mono7" and tune[lemma]})
    sizes = sorted({min(len(rows), MONO_LINES) for rows in groups.values()})
    stats = baseline_stats(meta, args.baseline, sizes, mono_tune)
    results: Dict[Tuple[str, str], dict] = {}
    for (lemma, corpus), rows in sorted(groups.items()):
        n = min(len(rows), MONO_LINES)
        raw = target_measures(meta, rows, lemma, probe)
        z = standardised(raw, stats[n], args.combos)
        percentile = args.percentile or KEEP_PERCENTILE[args.baseline]
        thresholds = {
            name: float(np.percentile(standardised_all(stats[n], args.combos)[name], percentile))
            for name in args.measures + args.combos
        }
        split = {name: z[name] > thresholds[name] for name in thresholds}
        labels = rule_labels(meta, rows, raw, probe, split, args)
        gold = [meta["targets"][i]["gold"] for i in rows]
        results[(lemma, corpus)] = {"z": z, "raw": raw, "labels": labels, "gold": gold}
    halves = {"tune": True, "held_out": False}
    for half, flag in halves.items():
        if args.half not in (half, "both"):
            continue
        report(results, {lemma for lemma in lemmas if tune[lemma] == flag}, half, adjusted_rand_score)


def standardised_all(stats: Dict[str, np.ndarray], combos: List[str]) -> Dict[str, np.ndarray]:
    """The standardised values of the one-use words themselves (for their percentile)."""
    z = {k: (v - v.mean()) / max(v.std(), 1e-9) for k, v in stats.items()}
    for combo in combos:
        pair, weight = combo.split(":")
        a, b = pair.split("+")
        z[combo] = z[a] + float(weight) * z[b]
    return z


def _higher(pairs: List[Tuple[float, float]]) -> float:
    return float(np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs])) if pairs else float("nan")


def report(results: Dict[Tuple[str, str], dict], lemmas: set, half: str, ari) -> None:
    """Print the measures' and the rules' numbers for one half."""
    paired = sorted(lemma for lemma, c in results if c == "single" and lemma in lemmas)
    mixed = sorted(lemma for lemma, c in results if c == "mixed" and lemma in lemmas)
    mono = sorted(lemma for lemma, c in results if c == "mono7" and lemma in lemmas)
    print(f"== {half}: {len(paired)} paired lemmas, {len(mixed)} mixed corpora, {len(mono)} monosemous words")
    print("measure | P(mixed > single)")
    for name in results[(paired[0], "mixed")]["z"]:
        pairs = [(results[(w, "mixed")]["z"][name], results[(w, "single")]["z"][name]) for w in paired]
        print(f"{name} | {_higher(pairs):.3f}")
    print("rule | k higher | mixed split | single one | ARI mixed | mean k mixed | mono7 one | mono all one | min size")
    for rule in results[(paired[0], "mixed")]["labels"]:

        def k(key: Tuple[str, str], rule: str = rule) -> int:
            return int(results[key]["labels"][rule].max()) + 1

        higher = _higher([(k((w, "mixed")), k((w, "single"))) for w in paired])
        aris = [ari(results[(w, "mixed")]["gold"], results[(w, "mixed")]["labels"][rule]) for w in mixed]
        min_size = min(int(np.bincount(r["labels"][rule]).min()) for (w, _), r in results.items() if w in lemmas)
        print(
            f"{rule} | {higher:.3f} | {np.mean([k((w, 'mixed')) > 1 for w in paired]):.3f} | "
            f"{np.mean([k((w, 'single')) == 1 for w in paired]):.3f} | {np.mean(aris):.3f} | "
            f"{np.mean([k((w, 'mixed')) for w in mixed]):.2f} | {np.mean([k((w, 'mono7')) == 1 for w in mono]):.3f} | "
            f"{np.mean([k((w, 'mono_all')) == 1 for w in mono]):.3f} | {min_size}"
        )


TABLE_SIZES = tuple(range(6, 41))  # every n: the split z has its own offset at each n (n = 9: -3.07)


def one_use_table(args: argparse.Namespace) -> None:
    """Print ONE_USE_TABLE of ops.sense_evidence: at each n, the mean and standard
    deviation of the self-similarity score, of the SigClust z and of the spread of the
    feature rows (token joined to context) of the md5-even monosemous words' first n rows,
    the standard deviation of their self-similarity + z (each standardised), and the
    KEEP_PERCENTILE of their corpus_polysemy (the larger of that sum, standardised, and the
    standardised spread), pooled over the sizes within ``args.pool`` of n."""
    from spacy_ctxvec.lexicon.polysemy_probe import in_fitted_half
    from spacy_ctxvec.ops.sense_evidence import combined_polysemy

    meta = load_cache(args.cache, args.context_weight)
    mono = sorted({t["lemma"] for t in meta["targets"] if t["corpus"] == "mono"})
    even = [lemma for lemma, fitted in zip(mono, in_fitted_half(mono)) if fitted]
    stats = baseline_stats(meta, "mono", list(args.sizes), even)

    def standard(values: np.ndarray) -> np.ndarray:
        return (values - values.mean()) / values.std()

    rows, polysemy_at = {}, {}
    for n in args.sizes:
        s, z, f = stats[n]["selfsim"], stats[n]["z_features"], stats[n]["spread_features"]
        summed_sd = (standard(s) + standard(z)).std()
        rows[n] = (n, s.mean(), s.std(), z.mean(), z.std(), f.mean(), f.std(), summed_sd, 0.0)
        # the words' corpus_polysemy by the product's own formula, on this table's statistics
        polysemy_at[n] = np.array([combined_polysemy(*values, n, table=[rows[n]]) for values in zip(s, z, f)])
    print(
        f"# {len(even)} md5-even monosemous words; (n, self-similarity mean, sd, split z mean, sd, "
        "spread mean, sd, self-similarity + z sd, threshold)"
    )
    for n in args.sizes:
        pooled = np.concatenate([polysemy_at[m] for m in args.sizes if abs(m - n) <= args.pool])
        threshold = np.percentile(pooled, KEEP_PERCENTILE["mono"])
        numbers = (*rows[n][1:-1], threshold)
        print(f"    ({n}, {', '.join(f'{v:.4f}' for v in numbers)}),  # {len(stats[n]['selfsim'])} words")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    embedding = commands.add_parser("embed")
    embedding.add_argument("examples", type=Path)
    embedding.add_argument("mono", type=Path)
    embedding.add_argument("gutenberg", type=Path)
    embedding.add_argument("cache", type=Path)
    embedding.add_argument("--layer", type=int, default=5)
    embedding.add_argument("--mono-lines", type=int, default=MONO_LINES, help="lines per monosemous word")
    tabling = commands.add_parser("table", help="the one-use table of ops.sense_evidence from the md5-even words")
    tabling.add_argument("cache", type=Path)
    tabling.add_argument("--sizes", type=lambda t: [int(x) for x in t.split(",")], default=list(TABLE_SIZES))
    tabling.add_argument("--pool", type=int, default=0, help="threshold from the sizes within this of n (0: n only)")
    evaluating = commands.add_parser("evaluate")
    evaluating.add_argument("cache", type=Path)
    evaluating.add_argument("--half", choices=("tune", "held_out", "both"), default="tune")
    evaluating.add_argument("--baseline", choices=("mono", "corpus"), default="mono")
    evaluating.add_argument("--combos", type=lambda t: t.split(","), default=COMBINATIONS.split(","))
    measures = ["selfsim", "z_features", "z_raw_joined"]
    evaluating.add_argument("--measures", type=lambda t: t.split(","), default=measures)
    evaluating.add_argument("--percentile", type=float, default=None, help="default: KEEP_PERCENTILE of the baseline")
    evaluating.add_argument("--resplit-z", type=float, default=0.0)
    evaluating.add_argument(
        "--prior-weights",
        type=lambda t: [float(x) for x in t.split(",")] if t else [],
        default=[],
        help="also the wired rule with the probe as a prior (probe_prior_shift), at these weights",
    )
    evaluating.add_argument("--silhouette", action="store_true", help="also k by the silhouette")
    for subcommand in (tabling, evaluating):
        subcommand.add_argument(
            "--context-weight", type=float, default=CONTEXT_WEIGHT, help="the context's weight in the feature rows"
        )
    args = parser.parse_args()
    if args.command == "embed":
        embed(args)
    elif args.command == "table":
        one_use_table(args)
    else:
        evaluate(args)


if __name__ == "__main__":
    main()
