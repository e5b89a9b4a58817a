"""A polysemy probe: a linear map from a word type's lexicon statistics to its log
number of dictionary senses (issue 11; benchmarks/quality/SENSES.md, "A polysemy probe").

Features of a type w (``FEATURES``), all read from the Lexicon:

- the unit centroid S_w / |S_w| (width values): where the word's occurrences point;
- log relative frequency log(n_w / N): a constant shift for a bigger corpus, so the
  ranking does not depend on corpus size;
- the self-similarity score (1 - SelfSim_w) / (1 - B): how far its occurrences spread.

The probe is fitted with scikit-learn's RidgeCV on types whose sense count is known
(WordNet: ``scripts/wordnet_sense_counts.py``); ``polysemy_score`` is then
exp(prediction), an estimate of the number of senses on the dictionary's scale, and a
type is split into senses where the estimate exceeds ``split_senses`` (see
SPLIT_PERCENTILE; sense_induction.induce_inventory). A probe
belongs to one model, layer selection, pooling and key mode: ``problem_with`` says why a
probe does not fit a lexicon, and ``find_shipped_probe`` looks one up among the probes
that come with the package (``spacy_ctxvec/probes``)."""

import hashlib
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import CtxvecError, Errors, Warnings
from ..ops.fingerprint import current_fingerprint, vectors_differ
from ..ops.read_only import read_only
from ..ops.senses import is_word
from .statistics import CONTEXT_VECTORS_META, Lexicon
from .storage import BYTES_SOURCE, ArrayWithHeader, check_header, parts_from_bytes

PROBE_FORMAT_VERSION = 1
FEATURES = ("unit_centroid", "log_relative_frequency", "self_similarity")
# optional: the model's input embedding of the type (mean of its wordpieces' rows),
# which the lexicon does not hold; the component computes it (component.type_inputs)
INPUT_FEATURE = "input_embedding"
# polysemy_score definitions: "auto" = the probe where one fits the lexicon, else self-similarity
SCORE_CHOICES = ("auto", "probe", "self_similarity")
PROBE = "probe"
SELF_SIMILARITY = "self_similarity"
# lexicon.meta entries a probe must share with the lexicon it scores
MATCHED_META = ("key", "layers", "pooling")
DEFAULT_ALPHAS = tuple(float(a) for a in np.logspace(-2, 4, 13))
MIN_TRAINING_WORDS = 20
# meta["split_senses"]: a type is split into senses where the probe estimates more senses
# than this; the estimate below which this percentile of the monosemous training words
# fall (cross-fitted, two folds), so about as many held-out monosemous words keep one
# sense (measured: 76.1% of 255 Gutenberg words; benchmarks/quality/SENSES.md)
SPLIT_PERCENTILE = 80.0
MIN_MONOSEMOUS_FOR_SPLIT = 10
# The shipped probe was measured on lexicons of 125k to 1.28M tokens; below this the
# log relative frequency feature inflates the estimates (build-lexicon warns, W006).
SMALL_CORPUS_TOKENS = 100_000
# probe.meta["fitted_words"]: "all" types with a sense count, or only FITTED_HALF (in_fitted_half)
FITTED_ALL = "all"
FITTED_HALF = "md5-even half"
# probe.meta[HALVES_META] = LOWER_CASE: the halves were taken on each word's lower-case form.
HALVES_META, LOWER_CASE = "halves", "lower case"
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "probes"
_HEADER_FILE = "probe.json"
_WEIGHTS = "weights"


def sense_counts_for(words: Sequence[str], sense_counts: Mapping[str, int]) -> np.ndarray:
    """Sense count per word (exact lemma first, then lower case); 0 = unknown."""
    return np.array([sense_counts.get(word, sense_counts.get(word.lower(), 0)) for word in words], dtype=np.int64)


def in_fitted_half(words: Sequence[str], *, lower: bool = True) -> np.ndarray:
    """True for the words of the half a FITTED_HALF probe is fitted on: the md5 of the
    word in lower case (the form ``sense_counts_for`` falls back to, so "Bank" and "bank"
    are in one half; ``lower=False``: as written, as probes fitted before HALVES_META
    were), read as a number, is even. Deterministic, so the other half stays held out on
    any corpus."""
    forms = [word.lower() for word in words] if lower else list(words)
    return np.array([int(hashlib.md5(form.encode("utf8")).hexdigest()[:8], 16) % 2 == 0 for form in forms], dtype=bool)


def lower_case_halves(meta: Mapping[str, Any]) -> bool:
    """Whether a half-fitted probe's halves were taken on the lower-case form (HALVES_META);
    those fitted before took them as written, the same for lower-case keys."""
    return meta.get(HALVES_META) == LOWER_CASE or meta.get("key", "lower") == "lower"


def probe_features(
    lexicon: Lexicon, min_count: int, inputs: Optional[np.ndarray] = None
) -> Tuple[np.ndarray, np.ndarray]:
    """((n_types, width + 2 [+ input width]) float64 features, valid): valid where
    n >= min_count; ``inputs`` (n_types, input width): the types' input embeddings."""
    scores, valid = lexicon.polysemy_scores(min_count)
    counts = lexicon.counts.astype(np.float64)
    log_frequency = np.log(np.maximum(counts, 1.0) / max(counts.sum(), 1.0))
    columns = [lexicon.unit_centroids(), log_frequency, scores]
    if inputs is not None:
        inputs = np.asarray(inputs, dtype=np.float64)
        if inputs.shape[0] != len(lexicon) or inputs.ndim != 2:
            raise CtxvecError(
                Errors.E650.format(problem=f"input embeddings of shape {inputs.shape} for {len(lexicon)} lexicon types")
            )
        columns.append(inputs)
    return np.column_stack(columns), valid


def _read_error(source: str, problem: str) -> CtxvecError:
    return CtxvecError(Errors.E652.format(path=source, problem=problem))


def first_difference(
    fitted: Dict[str, Any], found: Dict[str, Any], strict: bool = False
) -> Optional[Tuple[str, Any, Any]]:
    """(name, fitted value, found value) of the first MATCHED_META entry in which a lexicon
    meta ``found`` differs from ``fitted`` (only those ``fitted`` names, unless ``strict``);
    None if none does. Where both record how their vectors were made
    (CONTEXT_VECTORS_META) that decides instead of the layer and pooling settings: layer 5
    and layer -2 of 6 are one layer."""
    names: Tuple[str, ...] = MATCHED_META
    if fitted.get(CONTEXT_VECTORS_META) is not None and found.get(CONTEXT_VECTORS_META) is not None:
        names = ("key", CONTEXT_VECTORS_META)
    for name in names:
        if not (strict or name in fitted):
            continue
        if name == CONTEXT_VECTORS_META:
            differs = vectors_differ(fitted[name], found[name])
        else:
            differs = found.get(name) != fitted.get(name)
        if differs:
            return name, fitted.get(name), found.get(name)
    return None


class PolysemyProbe(ArrayWithHeader):
    """``weights`` (width + 2 [+ input_width],) and ``intercept`` of the linear map to
    log sense counts; ``meta``: width (and input_width when the probe reads the types'
    input embeddings), the lexicon meta it was fitted for (MATCHED_META), the model
    fingerprint, and how it was fitted."""

    ARRAY_NAME = _WEIGHTS
    HEADER_FILE = _HEADER_FILE
    read_error = staticmethod(_read_error)

    def __init__(self, weights: np.ndarray, intercept: float, meta: Dict[str, Any]) -> None:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.ndim != 1 or len(weights) < 3 or not np.isfinite(weights).all() or not np.isfinite(intercept):
            raise CtxvecError(
                Errors.E650.format(
                    problem=f"weights must be a finite vector of width + 2 values, got shape {weights.shape}"
                )
            )
        input_width = meta.get("input_width", 0) if isinstance(meta, dict) else 0
        if not isinstance(input_width, int) or isinstance(input_width, bool) or input_width < 0:
            raise CtxvecError(
                Errors.E650.format(problem=f"meta input_width must be a whole number, got {input_width!r}")
            )
        if not isinstance(meta, dict) or meta.get("width") != len(weights) - 2 - input_width:
            raise CtxvecError(
                Errors.E650.format(
                    problem=f"meta must give width = {len(weights) - 2 - input_width} (len(weights) - 2 - input_width)"
                )
            )
        self.weights = read_only(weights)
        self.intercept = float(intercept)
        self.meta = dict(meta)

    @property
    def width(self) -> int:
        return int(self.meta["width"])

    @property
    def input_width(self) -> int:
        """Width of the input embeddings the probe reads (0: it reads none)."""
        return int(self.meta.get("input_width", 0))

    @property
    def features(self) -> Tuple[str, ...]:
        return FEATURES + ((INPUT_FEATURE,) if self.input_width else ())

    @property
    def model(self) -> Optional[str]:
        """Fingerprint of the model the probe was fitted on (None: not recorded)."""
        model = self.meta.get("model")
        return None if model is None else current_fingerprint(model)

    def problem_with(
        self, lexicon: Lexicon, model: Optional[str] = None, inputs: Optional[np.ndarray] = None
    ) -> Optional[str]:
        """Why this probe cannot score ``lexicon`` (None if it can); ``model``: the
        fingerprint of the pipeline's model, checked when given; ``inputs``: the
        types' input embeddings, needed by a probe that reads them."""
        if lexicon.width != self.width:
            return f"the probe has width {self.width} and the lexicon {lexicon.width}"
        if self.input_width and (inputs is None or np.shape(inputs) != (len(lexicon), self.input_width)):
            return (
                f"the probe reads the types' input embeddings ({self.input_width} values each) and "
                f"{'none were given' if inputs is None else f'they have shape {np.shape(inputs)}'}"
            )
        differing = first_difference(self.meta, lexicon.meta)
        if differing is not None:
            name, fitted, found = differing
            return f"the probe was fitted for {name} = {fitted!r} and the lexicon has {found!r}"
        if model is not None and self.model is not None and current_fingerprint(model) != self.model:
            return f"the probe was fitted on model {self.model} and the pipeline's model is {model}"
        return None

    def log_senses(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(features, dtype=np.float64) @ self.weights + self.intercept

    def scores(
        self, lexicon: Lexicon, min_count: int, inputs: Optional[np.ndarray] = None
    ) -> Tuple[np.ndarray, np.ndarray]:
        """(estimated sense counts, valid) per type; invalid entries hold 0.0."""
        problem = self.problem_with(lexicon, inputs=inputs)
        if problem:
            raise CtxvecError(Errors.E651.format(problem=problem))
        features, valid = probe_features(lexicon, min_count, inputs if self.input_width else None)
        scores = np.zeros(len(lexicon), dtype=np.float64)
        # clipped so that exp never overflows, whatever the vectors
        scores[valid] = np.exp(np.clip(self.log_senses(features[valid]), -50.0, 50.0))
        return scores, valid

    @property
    def split_senses(self) -> Optional[float]:
        """Split a type into senses where the estimate exceeds this (None: the probe
        does not decide splits; see SPLIT_PERCENTILE)."""
        value = self.meta.get("split_senses")
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None

    # Serialisation: weights.npy + probe.json, or msgpack in bytes; never pickle.
    def _header(self) -> Dict[str, Any]:
        return {
            "format_version": PROBE_FORMAT_VERSION,
            "features": list(self.features),
            "intercept": self.intercept,
            "meta": self.meta,
        }

    def _array(self) -> np.ndarray:
        return self.weights

    @classmethod
    def from_bytes(cls, data: bytes) -> "PolysemyProbe":
        documents, arrays = parts_from_bytes(data, (_WEIGHTS,), ("header",), _read_error, what="polysemy probe")
        return cls._from_parts(documents["header"], arrays[_WEIGHTS], BYTES_SOURCE)

    @classmethod
    def _from_parts(cls, header: Any, weights: np.ndarray, source: str) -> "PolysemyProbe":
        header = check_header(header, PROBE_FORMAT_VERSION, lambda problem: _read_error(source, problem))
        if header.get("features") not in (list(FEATURES), list(FEATURES) + [INPUT_FEATURE]):
            raise _read_error(
                source, f"features {header.get('features')!r} are not {list(FEATURES)} (+ {INPUT_FEATURE!r})"
            )
        intercept = header.get("intercept")
        if not isinstance(intercept, (int, float)) or isinstance(intercept, bool):
            raise _read_error(source, "the intercept is not a number")
        if weights.dtype.kind != "f":
            raise _read_error(source, f"weights.npy has dtype {weights.dtype}, not float")
        try:
            probe = cls(np.array(weights, dtype=np.float64), float(intercept), header.get("meta"))
        except CtxvecError as err:
            raise _read_error(source, str(err)) from None
        if list(probe.features) != header["features"]:
            raise _read_error(source, f"features {header['features']!r} disagree with input_width {probe.input_width}")
        return probe

    def __repr__(self) -> str:
        return f"PolysemyProbe(width={self.width}, model={self.model}, trained_on={self.meta.get('trained_on')!r})"


def training_rows(
    lexicon: Lexicon, sense_counts: Mapping[str, int], min_count: int, inputs: Optional[np.ndarray] = None
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(type rows, features, log sense counts) of the types with n >= min_count and a known count."""
    features, valid = probe_features(lexicon, min_count, inputs)
    senses = sense_counts_for(lexicon.keys, sense_counts)
    rows = np.flatnonzero(valid & (senses > 0))
    return rows, features[rows], np.log(senses[rows].astype(np.float64))


def unfittable(log_senses: np.ndarray) -> Optional[Tuple[str, Optional[int]]]:
    """Why a probe cannot be fitted on these training targets (log sense counts): ("too_few",
    None) with fewer than MIN_TRAINING_WORDS (E653), ("one_count", that count) where they
    all have one sense count (E655); None where it can."""
    if len(log_senses) < MIN_TRAINING_WORDS:
        return "too_few", None
    if np.ptp(log_senses) == 0:
        return "one_count", round(float(np.exp(log_senses[0])))
    return None


def fit_probe(
    lexicons: Union[Lexicon, Sequence[Lexicon]],
    sense_counts: Mapping[str, int],
    *,
    min_count: int,
    model: Optional[str] = None,
    half: bool = False,
    inputs: Optional[Sequence[np.ndarray]] = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    trained_on: str = "",
    input_scale: float = 1.0,
) -> PolysemyProbe:
    """Fit a probe on the types with n >= min_count and a sense count of one lexicon,
    or of several (one training row per type and lexicon; they must share width and
    MATCHED_META). ``half``: only the types in_fitted_half, so the others stay held out.
    ``inputs``: per lexicon, its types' input embeddings (the probe then reads them);
    ``input_scale``: they are multiplied by this before the ridge fit (below 1: a
    heavier penalty on their weights than on the centroid's), and the weights are
    scaled back, so the probe reads the embeddings as given.
    E653 with fewer than MIN_TRAINING_WORDS rows, E655 when they all have one sense count."""
    from sklearn.linear_model import RidgeCV

    lexicons = [lexicons] if isinstance(lexicons, Lexicon) else list(lexicons)
    if not lexicons:
        raise CtxvecError(Errors.E650.format(problem="no lexicon to fit on"))
    first = lexicons[0]
    for other in lexicons[1:]:
        if other.width != first.width or first_difference(first.meta, other.meta, strict=True) is not None:
            raise CtxvecError(
                Errors.E650.format(problem="the lexicons to fit on differ in width, key, layers or pooling")
            )
    if isinstance(input_scale, bool) or not isinstance(input_scale, (int, float)) or not 0 < input_scale < np.inf:
        raise CtxvecError(Errors.E650.format(problem=f"input_scale must be a positive number, got {input_scale!r}"))
    if inputs is not None and len(inputs) != len(lexicons):
        raise CtxvecError(
            Errors.E650.format(problem=f"{len(inputs)} input-embedding arrays for {len(lexicons)} lexicons")
        )
    parts = []
    for j, lexicon in enumerate(lexicons):
        rows, features, targets = training_rows(lexicon, sense_counts, min_count, None if inputs is None else inputs[j])
        words = [lexicon.keys[row] for row in rows]
        keep = in_fitted_half(words) if half else np.ones(len(rows), dtype=bool)
        parts.append((features[keep], targets[keep], [word for word, kept in zip(words, keep) if kept]))
    features = np.concatenate([part[0] for part in parts])
    targets = np.concatenate([part[1] for part in parts])
    words = [word for part in parts for word in part[2]]
    fitted_on = f"of the {FITTED_HALF} fitted on" if half else "in the lexicon"
    refusal = unfittable(targets)
    if refusal is not None and refusal[0] == "too_few":
        raise CtxvecError(
            Errors.E653.format(
                n_words=len(targets),
                fitted_on=fitted_on,
                minimum=MIN_TRAINING_WORDS,
                min_count=min_count,
                lower=", lower --min-count" if min_count > 2 else "",  # 2 is the least a score needs
            )
        )
    if refusal is not None:
        raise CtxvecError(
            Errors.E655.format(n_words=len(targets), fitted_on=fitted_on, min_count=min_count, value=refusal[1])
        )
    scale = np.ones(features.shape[1])
    scale[first.width + 2 :] = input_scale  # the input-embedding columns, if any
    features = features * scale
    ridge = RidgeCV(alphas=list(alphas)).fit(features, targets)
    meta = {
        "width": first.width,
        **{name: first.meta[name] for name in (*MATCHED_META, CONTEXT_VECTORS_META) if name in first.meta},
        **(
            {"input_width": int(np.shape(inputs[0])[1]), "input_scale": float(input_scale)}
            if inputs is not None
            else {}
        ),
        "model": model,
        "target": "log sense count",
        "trained_on": trained_on,
        "n_words": int(len(targets)),
        "n_polysemous": int((targets > 0).sum()),
        "alpha": float(ridge.alpha_),
        "min_count": int(min_count),
        "fitted_words": FITTED_HALF if half else FITTED_ALL,
        **({HALVES_META: LOWER_CASE} if half else {}),
        "split_senses": split_senses(features, targets, words, float(ridge.alpha_)),
    }
    return PolysemyProbe(ridge.coef_ * scale, float(ridge.intercept_), meta)


def split_senses(features: np.ndarray, log_senses: np.ndarray, words: Sequence[str], alpha: float) -> Optional[float]:
    """The estimate below which SPLIT_PERCENTILE % of the monosemous training words fall,
    from predictions cross-fitted on two folds of the words (a word is in one fold in
    every lexicon); None with fewer than MIN_MONOSEMOUS_FOR_SPLIT monosemous words."""
    from sklearn.linear_model import Ridge

    monosemous = log_senses == 0
    fold = np.array([int(hashlib.md5(word.encode("utf8")).hexdigest()[8:16], 16) % 2 for word in words], dtype=np.int64)
    if monosemous.sum() < MIN_MONOSEMOUS_FOR_SPLIT or len(np.unique(fold)) < 2:
        return None
    predictions = np.zeros(len(log_senses))
    for held in (0, 1):
        ridge = Ridge(alpha=alpha).fit(features[fold != held], log_senses[fold != held])
        predictions[fold == held] = ridge.predict(features[fold == held])
    return float(np.exp(np.percentile(predictions[monosemous], SPLIT_PERCENTILE)))


def type_polysemy_scores(
    lexicon: Lexicon,
    probe: Optional[PolysemyProbe],
    min_count: int,
    score: str = "auto",
    inputs: Optional[np.ndarray] = None,
    words_only: bool = False,
) -> Tuple[np.ndarray, np.ndarray, str]:
    """(scores, valid, the definition used: PROBE or SELF_SIMILARITY) per type.

    ``score``: "self_similarity"; "probe" (E651 without a probe that fits); "auto": the
    probe if it fits the lexicon (and ``inputs``, the types' input embeddings, where it
    reads them), else self-similarity. ``words_only``: types without a letter
    (punctuation, numbers) are not valid, as in the rankings and plots."""
    if score not in SCORE_CHOICES:
        raise CtxvecError(Errors.E654.format(score=score, choices=", ".join(SCORE_CHOICES)))
    if score == SELF_SIMILARITY or (score == "auto" and (probe is None or probe.problem_with(lexicon, inputs=inputs))):
        scores, valid, used = (*lexicon.polysemy_scores(min_count), SELF_SIMILARITY)
    elif probe is None:
        problem = "no probe is saved with it (a lexicon directory alone holds none: give the pipeline folder)"
        raise CtxvecError(Errors.E651.format(problem=problem))
    else:
        scores, valid, used = (*probe.scores(lexicon, min_count, inputs), PROBE)
    if words_only:
        valid = valid & np.array([is_word(key) for key in lexicon.keys], dtype=bool)
    return scores, valid, used


def shipped_probe_dirs() -> List[Path]:
    return sorted(path for path in SHIPPED_DIR.glob("*") if (path / _HEADER_FILE).is_file())


def small_lexicon_warning(lexicon: Lexicon, used: str) -> Optional[str]:
    """W054 where ``used`` is the probe's score on a lexicon smaller than the probe's
    smallest measured corpus (its scores then run high); None otherwise."""
    if used != PROBE or lexicon.n_occurrences >= SMALL_CORPUS_TOKENS:
        return None
    return Warnings.W054.format(n_tokens=lexicon.n_occurrences, minimum=SMALL_CORPUS_TOKENS)


def describe_shipped_probes() -> List[str]:
    """Each shipped probe as its model and the vectors it reads, e.g. "all-MiniLM-L6-v2
    (layer 5 of 6, pooled by pool_mean)": the directory's "layer-2" counts from the end."""
    described = []
    for path in shipped_probe_dirs():
        vectors = PolysemyProbe.from_disk(path).meta.get("context_vectors")
        name = path.name.split(".layer")[0]
        described.append(f"{name} ({vectors})" if vectors else path.name)
    return described


def shipped_probes(model: str) -> List[PolysemyProbe]:
    """The shipped probes fitted on ``model`` (a fingerprint)."""
    model = current_fingerprint(model)
    return [probe for probe in map(PolysemyProbe.from_disk, shipped_probe_dirs()) if probe.model == model]


def find_shipped_probe(lexicon: Lexicon, model: str, inputs: Optional[np.ndarray] = None) -> Optional[PolysemyProbe]:
    """The shipped probe fitted on ``model`` (a fingerprint) that fits ``lexicon`` (and
    ``inputs``), or None."""
    return next((probe for probe in shipped_probes(model) if probe.problem_with(lexicon, model, inputs) is None), None)


def fitted_on_english(probe: Optional["PolysemyProbe"]) -> bool:
    """Whether ``probe`` was fitted on English sense counts (the shipped probes: WordNet)."""
    return probe is not None and "WordNet" in str(probe.meta.get("trained_on", ""))


def english_probe_warning(probe: Optional["PolysemyProbe"], used: str, lang: Optional[str], name: str) -> Optional[str]:
    """W058 where the scores ``used`` come from ``probe``, fitted on English sense counts, and the
    pipeline's language ``lang`` is another (None: not known, as for a lexicon directory)."""
    if used == PROBE and lang and lang != "en" and fitted_on_english(probe):
        return Warnings.W058.format(lang=lang, name=name)
    return None
