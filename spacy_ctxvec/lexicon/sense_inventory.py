"""Induced word senses per type: the ``SenseInventory`` (from ``sense_induction.induce_inventory``)
and its storage. The senses of ``keys[i]`` are rows ``offsets[i]:offsets[i + 1]`` of the arrays: per
sense its unit centroid in the sense space (assignment), the mean RAW contextual vector of its members
(the sense's static vector), its share of the type's sample, up to three example snippets, and a label
of a few context words (issue 21). Per type, optionally, ``corpus_polysemy`` (``ops.sense_evidence``;
NaN: None), ``margin_scales`` (the median margin of its sampled rows, for ``sense_scores``), ``judged``
(sampled rows judged: one per passage and snippet) and ``split_thresholds`` (the ``corpus_polysemy``
above which the evidence rule split it; NaN: another rule); inventories saved before these load with
None. ``assign`` gives a new occurrence the nearest centroid among its own type's senses;
``assign_scored`` adds a confidence. Pure numpy; no spaCy. Saved as .npy + JSON, no pickle; every
damaged file is E601 naming its path, and arrays of the wrong shape are refused on load."""

from functools import partial
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import CtxvecError, Errors
from ..ops.read_only import read_only, read_only_or_none
from ..ops.sense_labels import format_label
from ..ops.senses import SenseSpace, sense_features, to_sense_space
from ..paths import composed
from .sense import InventoryProblem, Sense
from .storage import (
    BYTES_SOURCE,
    KeyedRows,
    check_header,
    check_string_lists,
    check_strings,
    is_positive_number,
    load_parts,
    parts_from_bytes,
    parts_to_bytes,
    save_parts,
)

SENSES_FORMAT_VERSION = 1
SENSES_FILE, _KEYS_FILE, _EXAMPLES_FILE = "senses.json", "keys.json", "examples.json"  # SENSES_FILE: a senses dir


def _senses_error(source: str, problem: str) -> CtxvecError:
    return CtxvecError(Errors.E601.format(path=source, problem=problem))


_ARRAY_DTYPES = {
    "mean": np.float64,
    "directions": np.float64,
    "offsets": np.int64,
    "centroids": np.float32,
    "vectors": np.float32,
    "shares": np.float64,
    "context_mean": np.float64,
    "context_directions": np.float64,
    "corpus_polysemy": np.float64,
    "margin_scales": np.float64,
    "judged": np.int64,
    "split_thresholds": np.float64,
}
_CONTEXT_ARRAYS = ("context_mean", "context_directions")  # absent: induced on token rows alone
_TYPE_ARRAYS = ("corpus_polysemy", "margin_scales", "judged", "split_thresholds")  # absent: saved before
_OPTIONAL_ARRAYS = _CONTEXT_ARRAYS + _TYPE_ARRAYS
_REQUIRED_ARRAYS = tuple(name for name in _ARRAY_DTYPES if name not in _OPTIONAL_ARRAYS)


def _check(condition: bool, problem: str) -> None:
    if not condition:
        raise InventoryProblem(problem)


def _read_only_space(space: SenseSpace) -> SenseSpace:
    return SenseSpace(read_only(space.mean, np.float64), read_only(space.directions, np.float64))


class SenseInventory(KeyedRows):
    """The induced senses of every type that has them.

    ``keys`` are sorted and unique; the senses of ``keys[i]`` are the rows
    ``offsets[i]:offsets[i + 1]`` of ``centroids`` (unit rows in ``space``; with a
    ``context_space``, unit rows of ``ops.senses.sense_features``: token and context
    joined, twice the width), ``vectors`` (mean raw contextual vector), ``shares`` and
    ``examples``; within a type, sense 0 is the largest.
    """

    def __init__(
        self,
        space: SenseSpace,
        keys: Sequence[str],
        offsets: np.ndarray,
        centroids: np.ndarray,
        vectors: np.ndarray,
        shares: np.ndarray,
        examples: Sequence[Sequence[str]],
        settings: Optional[Dict[str, Any]] = None,
        context_space: Optional[SenseSpace] = None,
        *,
        labels: Optional[Sequence[Sequence[str]]] = None,
        corpus_polysemy: Optional[np.ndarray] = None,
        margin_scales: Optional[np.ndarray] = None,
        judged: Optional[np.ndarray] = None,
        split_thresholds: Optional[np.ndarray] = None,
    ) -> None:
        self.space = _read_only_space(space)
        self.context_space = None if context_space is None else _read_only_space(context_space)
        self.keys: List[str] = list(keys)
        self.offsets = read_only(offsets, np.int64)
        self.centroids = read_only(centroids, np.float32)
        self.vectors = read_only(vectors, np.float32)
        self.shares = read_only(shares, np.float64)
        self.examples: List[List[str]] = [list(e) for e in examples]
        self.settings: Dict[str, Any] = dict(settings or {})
        _check(labels is None or not any(isinstance(words, str) for words in labels), "labels must be lists of words")
        self.labels: Optional[List[List[str]]] = None if labels is None else [list(words) for words in labels]
        self.corpus_polysemy = read_only_or_none(corpus_polysemy, np.float64)
        self.margin_scales = read_only_or_none(margin_scales, np.float64)
        self.judged = read_only_or_none(judged, np.int64)
        self.split_thresholds = read_only_or_none(split_thresholds, np.float64)
        self._index = None
        self._validate()

    def _validate(self) -> None:
        width, n_types = self.width, len(self.keys)
        _check(
            self.space.mean.ndim == 1 and width >= 1,
            f"the sense space mean must be a non-empty vector, got shape {self.space.mean.shape}",
        )
        _check(
            self.space.directions.ndim == 2 and self.space.directions.shape[1] == width,
            f"the sense space directions have shape {self.space.directions.shape}, expected (m, {width})",
        )
        _check(
            self.offsets.shape == (n_types + 1,),
            f"offsets has shape {self.offsets.shape}, expected ({n_types + 1},) for {n_types} keys",
        )
        n_senses = int(self.offsets[-1]) if len(self.offsets) else -1
        _check(int(self.offsets[0]) == 0 if len(self.offsets) else False, "offsets must start at 0")
        _check(bool((np.diff(self.offsets) >= 1).all()), "every key must have at least one sense")
        if self.context_space is not None:
            _check(
                self.context_space.mean.shape == (width,)
                and self.context_space.directions.ndim == 2
                and self.context_space.directions.shape[1] == width,
                f"the context space has shapes {self.context_space.mean.shape} and "
                f"{self.context_space.directions.shape}, expected ({width},) and (m, {width})",
            )
            _check(
                is_positive_number(self.settings.get("context_weight")),
                "an inventory with a context space needs a positive 'context_weight' setting",
            )
            _check(
                isinstance(self.settings.get("context_window"), int) and self.settings["context_window"] >= 1,
                "an inventory with a context space needs a positive integer 'context_window' setting",
            )
        for name, expected in (("centroids", self.feature_width), ("vectors", width)):
            array = getattr(self, name)
            _check(
                array.shape == (n_senses, expected),
                f"{name} has shape {array.shape}, expected ({n_senses}, {expected})",
            )
        _check(self.shares.shape == (n_senses,), f"shares has shape {self.shares.shape}, expected ({n_senses},)")
        _check(len(self.examples) == n_senses, f"{len(self.examples)} example lists for {n_senses} senses")
        _check(all(isinstance(s, str) for e in self.examples for s in e), "examples must be lists of strings")
        if self.labels is not None:
            _check(len(self.labels) == n_senses, f"{len(self.labels)} labels for {n_senses} senses")
            _check(all(isinstance(w, str) for words in self.labels for w in words), "labels must be lists of strings")
        for name in _TYPE_ARRAYS:
            array = getattr(self, name)
            _check(
                array is None or array.shape == (n_types,),
                f"{name} has shape {None if array is None else array.shape}, expected ({n_types},)",
            )
        _check(
            self.margin_scales is None or bool((np.isfinite(self.margin_scales) & (self.margin_scales > 0)).all()),
            "margin_scales must be positive numbers",
        )
        for name in ("corpus_polysemy", "split_thresholds"):
            array = getattr(self, name)
            _check(array is None or not bool(np.isinf(array).any()), f"{name} holds infinite values")
        _check(self.judged is None or bool((self.judged >= 0).all()), "judged holds negative counts")
        _check(all(a < b for a, b in zip(self.keys, self.keys[1:])), "keys must be sorted and unique")
        _check(all(isinstance(key, str) for key in self.keys), "keys must be strings")
        for name in ("centroids", "vectors", "shares"):
            _check(bool(np.isfinite(getattr(self, name)).all()), f"{name} holds NaN or infinite values")
        for what, space in (("the sense space", self.space), ("the context space", self.context_space)):
            finite = space is None or bool(np.isfinite(space.mean).all() and np.isfinite(space.directions).all())
            _check(finite, f"{what} holds NaN or infinite values")
        _check(bool(((self.shares > 0) & (self.shares <= 1)).all()), "shares must lie in (0, 1]")
        norms = np.sqrt(np.einsum("ij,ij->i", self.centroids.astype(np.float64), self.centroids.astype(np.float64)))
        _check(bool((norms <= 1.0 + 1e-3).all()), "centroids must be unit (or zero) rows")

    # Lookup
    @property
    def width(self) -> int:
        return int(self.space.mean.shape[0]) if self.space.mean.ndim == 1 else 0

    @property
    def feature_width(self) -> int:
        """Width of the centroids: the token width, twice that with a context space."""
        return self.width * (1 if self.context_space is None else 2)

    @property
    def context_window(self) -> int:
        """Tokens either side that make an occurrence's context (0: no context space)."""
        return 0 if self.context_space is None else int(self.settings["context_window"])

    def features(self, vectors: np.ndarray, contexts: Optional[np.ndarray] = None) -> np.ndarray:
        """Rows in the space of the centroids, from raw contextual ``vectors`` (n, width)
        and, with a context space, their raw ``contexts`` (n, width; see
        ``ops.context_windows.window_context_means`` with ``context_window``)."""
        units = to_sense_space(vectors, self.space)
        if self.context_space is None:
            return units
        _check(contexts is not None, "these senses were induced with context vectors: give each occurrence's context")
        contexts = np.asarray(contexts).reshape(len(units), -1)
        _check(contexts.shape[1] == self.width, f"contexts have width {contexts.shape[1]}, the senses {self.width}")
        return sense_features(
            units, to_sense_space(contexts, self.context_space), float(self.settings["context_weight"])
        )

    @property
    def n_senses_total(self) -> int:
        return int(self.offsets[-1])

    def type_rows(self, keys: Sequence[str]) -> np.ndarray:
        """Position in ``keys`` of each given key, -1 where it has no senses (int64)."""
        return np.array([-1 if (i := self.index(key)) is None else i for key in keys], dtype=np.int64)

    def counts(self) -> np.ndarray:
        """Senses per type, (n_types,) int64."""
        return np.diff(self.offsets)

    def key_of(self, word: str) -> str:
        """``word`` as this inventory keys it: lower case under key mode 'lower' (the
        default), unchanged under 'text'."""
        return word.lower() if self.settings.get("key", "lower") == "lower" else word

    def word_index(self, word: str) -> Optional[int]:
        """``index(word)``, else ``index(key_of(word))`` ("Very" finds "very" in lower key
        mode), else the same for ``word`` as build-lexicon reads corpora (``paths.composed``:
        NFC, invisible characters such as U+200B dropped), as the token attributes find it."""
        for form in dict.fromkeys((word, composed(word))):
            i = self.index(form)
            i = self.index(self.key_of(form)) if i is None else i
            if i is not None:
                return i
        return None

    def __contains__(self, word: object) -> bool:
        """Whether ``word`` has senses, found as ``senses_of`` finds it (any letter case)."""
        return isinstance(word, str) and self.word_index(word) is not None

    def n_senses(self, key: str) -> int:
        """Number of senses of ``key`` (0 if it has none; any letter case: ``word_index``)."""
        i = self.word_index(key)
        return 0 if i is None else int(self.offsets[i + 1] - self.offsets[i])

    def senses_of(self, key: str) -> List[Sense]:
        """The senses of ``key``, largest first ([] if it has none). ``key`` is looked up
        as the inventory's keys are made: an inventory keyed in lower case (key mode
        'lower', the default) finds "Very" as "very"; under key mode 'text' case counts."""
        i = self.word_index(key)
        if i is None:
            return []
        start = int(self.offsets[i])
        return [
            Sense(
                row - start,
                float(self.shares[row]),
                self.vectors[row],
                self.centroids[row],
                list(self.examples[row]),
                [] if self.labels is None else list(self.labels[row]),
                self.keys[i],
            )
            for row in range(start, int(self.offsets[i + 1]))
        ]

    def corpus_polysemy_of(self, key: str) -> Optional[float]:
        """``key``'s corpus_polysemy (None: no senses, too few occurrences, or not stored;
        any letter case: ``word_index``)."""
        i = self.word_index(key)
        if i is None or self.corpus_polysemy is None or not np.isfinite(self.corpus_polysemy[i]):
            return None
        return float(self.corpus_polysemy[i])

    def evidence_of(self, key: str) -> Tuple[Optional[int], Optional[float]]:
        """(sampled rows judged, the corpus_polysemy above which the evidence rule split)
        of ``key``; None where not stored, not the evidence rule, or the word has no corpus_polysemy."""
        i = self.word_index(key)
        judged = None if i is None or self.judged is None else int(self.judged[i])
        stored = None if i is None or self.split_thresholds is None else float(self.split_thresholds[i])
        if stored is not None and (self.corpus_polysemy is None or not np.isfinite(self.corpus_polysemy[i])):
            stored = None  # nothing was compared with it (saved so by an earlier version)
        return judged, (stored if stored is not None and np.isfinite(stored) else None)

    def sense_labels(self, rows: np.ndarray) -> List[Optional[str]]:
        """The label string of each global sense row (None where the row is -1 or the
        inventory has no labels)."""
        return [None if row < 0 or self.labels is None else format_label(self.labels[row]) for row in rows.tolist()]

    def assign(self, type_rows: np.ndarray, vectors: np.ndarray, contexts: Optional[np.ndarray] = None) -> np.ndarray:
        """The sense of each occurrence (see ``assign_scored``, which adds a confidence)."""
        return self._assign(type_rows, vectors, contexts)[0]

    def assign_scored(
        self, type_rows: np.ndarray, vectors: np.ndarray, contexts: Optional[np.ndarray] = None
    ) -> Tuple[np.ndarray, np.ndarray]:
        """(senses as ``assign``, confidence (n,) float64 in [0, 1] or NaN): how clearly
        each occurrence belongs to its sense rather than the runner-up,
        ``ops.sense_evidence.sense_scores``: 1 - 2 ** (-margin / the type's margin scale),
        so 0.5 is as clear as the type's median sampled occurrence, 0.0 on the boundary
        between two senses. 1.0 for a type with one sense; NaN where the sense is -1, or
        the type has several senses and the inventory no margin scales."""
        senses, margins, several = self._assign(type_rows, vectors, contexts)
        scores = np.where(senses >= 0, 1.0, np.nan)
        if len(several):
            if self.margin_scales is None:
                scores[several] = np.nan
            else:
                scale = np.maximum(self.margin_scales[np.asarray(type_rows, dtype=np.int64)[several]], 1e-3)
                scores[several] = np.clip(1.0 - np.exp2(-margins / scale), 0.0, 1.0)
        return senses, scores

    def _assign(
        self, type_rows: np.ndarray, vectors: np.ndarray, contexts: Optional[np.ndarray] = None
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sense index (within its type) of each occurrence: ``type_rows`` (n,) the
        type's position in ``keys`` (-1: none), ``vectors`` (n, width) its raw
        contextual vector, ``contexts`` (n, width) its raw context vector (needed when
        the inventory has a context space, see ``features``). Nearest centroid (cosine) in the sense space among the
        type's own senses; ties go to the larger sense. -1 where the type has no
        senses; a zero vector gets sense 0 (the largest). Vectorised, int64."""
        type_rows = np.asarray(type_rows, dtype=np.int64).reshape(-1)
        result = np.full(len(type_rows), -1, dtype=np.int64)
        known = type_rows >= 0
        nothing = (np.zeros(0), np.zeros(0, dtype=np.int64))
        if not known.any():
            return (result, *nothing)
        _check(bool((type_rows < len(self.keys)).all()), f"type rows must be below {len(self.keys)}")
        vectors = np.asarray(vectors).reshape(len(type_rows), -1)
        _check(vectors.shape[1] == self.width, f"vectors have width {vectors.shape[1]}, the senses {self.width}")
        result[known] = 0
        sizes = np.zeros(len(type_rows), dtype=np.int64)
        sizes[known] = self.offsets[type_rows[known] + 1] - self.offsets[type_rows[known]]
        several = np.flatnonzero(sizes > 1)  # only these need a comparison
        if len(several) == 0:
            return (result, *nothing)
        units = self.features(
            vectors[several], None if contexts is None else np.asarray(contexts).reshape(len(type_rows), -1)[several]
        )
        starts, sizes = self.offsets[type_rows[several]], sizes[several]
        best, second = np.full(len(several), -np.inf), np.full(len(several), -np.inf)
        chosen = np.zeros(len(several), dtype=np.int64)
        for slot in range(int(sizes.max())):  # one pass per sense slot (<= max_senses), (n, d) at a time
            rows = np.flatnonzero(sizes > slot)
            similarity = np.einsum("nd,nd->n", units[rows], self.centroids[starts[rows] + slot].astype(np.float64))
            better = similarity > best[rows]  # strictly: ties keep the larger (earlier) sense
            second[rows] = np.where(better, best[rows], np.maximum(second[rows], similarity))
            best[rows[better]] = similarity[better]
            chosen[rows[better]] = slot
        result[several] = chosen
        return result, np.clip(best - second, 0.0, 2.0), several

    def sense_rows(self, type_rows: np.ndarray, senses: np.ndarray) -> np.ndarray:
        """Global rows (into centroids / vectors / shares) of (type, sense) pairs; -1
        where either is -1."""
        type_rows, senses = np.asarray(type_rows, dtype=np.int64), np.asarray(senses, dtype=np.int64)
        defined = (type_rows >= 0) & (senses >= 0)
        return np.where(defined, self.offsets[np.maximum(type_rows, 0)] + senses, -1)

    # Serialisation: .npy + JSON on disk, msgpack of .npy buffers in bytes; no pickle.
    def _arrays(self) -> Dict[str, np.ndarray]:
        arrays = {
            "mean": self.space.mean,
            "directions": self.space.directions,
            "offsets": self.offsets,
            "centroids": self.centroids,
            "vectors": self.vectors,
            "shares": self.shares,
        }
        if self.context_space is not None:
            arrays.update(context_mean=self.context_space.mean, context_directions=self.context_space.directions)
        for name in _TYPE_ARRAYS:
            if getattr(self, name) is not None:
                arrays[name] = getattr(self, name)
        return arrays

    def _header(self) -> Dict[str, Any]:
        return {
            "format_version": SENSES_FORMAT_VERSION,
            "width": self.width,
            "n_types": len(self.keys),
            "n_senses": self.n_senses_total,
            "settings": self.settings,
            **({} if self.labels is None else {"labels": self.labels}),
        }

    def to_disk(self, path: Union[str, Path]) -> None:
        save_parts(
            path, self._arrays(), {_KEYS_FILE: self.keys, _EXAMPLES_FILE: self.examples, SENSES_FILE: self._header()}
        )

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "SenseInventory":
        """Load a saved inventory; E601 naming ``path`` for anything missing or damaged."""
        documents, arrays = load_parts(
            path,
            _REQUIRED_ARRAYS,
            (SENSES_FILE, _KEYS_FILE, _EXAMPLES_FILE),
            _senses_error,
            optional_arrays=_OPTIONAL_ARRAYS,
        )
        return cls._from_parts(
            documents[SENSES_FILE], documents[_KEYS_FILE], documents[_EXAMPLES_FILE], arrays, str(path)
        )

    def to_bytes(self) -> bytes:
        return parts_to_bytes(self._arrays(), {"header": self._header(), "keys": self.keys, "examples": self.examples})

    @classmethod
    def from_bytes(cls, data: bytes) -> "SenseInventory":
        documents, arrays = parts_from_bytes(
            data,
            _REQUIRED_ARRAYS,
            ("header", "keys", "examples"),
            _senses_error,
            what="senses",
            optional_arrays=_OPTIONAL_ARRAYS,
        )
        return cls._from_parts(documents["header"], documents["keys"], documents["examples"], arrays, BYTES_SOURCE)

    @classmethod
    def _from_parts(
        cls, header: Any, keys: Any, examples: Any, arrays: Dict[str, np.ndarray], source: str
    ) -> "SenseInventory":
        bad = partial(_senses_error, source)

        check_header(header, SENSES_FORMAT_VERSION, bad)
        if not isinstance(header.get("settings", {}), dict):
            raise bad(f"{SENSES_FILE} has invalid 'settings'")
        check_strings(keys, _KEYS_FILE, bad)
        check_string_lists(examples, _EXAMPLES_FILE, bad, "each sense's list of snippets")
        for name, dtype in _ARRAY_DTYPES.items():
            if arrays.get(name) is not None and arrays[name].dtype != dtype:
                raise bad(f"{name}.npy holds {arrays[name].dtype}, not {np.dtype(dtype)}")
        present = [arrays.get(name) is not None for name in _CONTEXT_ARRAYS]
        if any(present) and not all(present):
            raise bad(f"{' and '.join(_CONTEXT_ARRAYS)} must be saved together")
        context_space = SenseSpace(arrays["context_mean"], arrays["context_directions"]) if all(present) else None
        labels = header.get("labels")
        if labels is not None:
            check_string_lists(labels, f"{SENSES_FILE}'s 'labels'", bad, "each sense's label is a list of words")
        for name in ("width", "n_types", "n_senses"):
            if not isinstance(header.get(name), int) or isinstance(header.get(name), bool):
                raise bad(f"{SENSES_FILE} has no integer '{name}'")
        try:
            inventory = cls(
                SenseSpace(arrays["mean"], arrays["directions"]),
                keys,
                arrays["offsets"],
                arrays["centroids"],
                arrays["vectors"],
                arrays["shares"],
                examples,
                header.get("settings", {}),
                context_space,
                labels=labels,
                corpus_polysemy=arrays.get("corpus_polysemy"),
                margin_scales=arrays.get("margin_scales"),
                judged=arrays.get("judged"),
                split_thresholds=arrays.get("split_thresholds"),
            )
        except CtxvecError as err:  # E600's problem alone: its "rather than by hand." does not fit E601
            raise bad(err.problem if isinstance(err, InventoryProblem) else str(err).split("] ", 1)[-1]) from None
        declared = (header["width"], header["n_types"], header["n_senses"])
        if declared != (inventory.width, len(inventory), inventory.n_senses_total):
            raise bad(
                f"{SENSES_FILE} declares width, types, senses {declared}, the arrays hold "
                f"{(inventory.width, len(inventory), inventory.n_senses_total)}"
            )
        return inventory

    def __eq__(self, other: object) -> bool:
        """Bitwise equality of keys, arrays, examples and settings."""
        if not isinstance(other, SenseInventory):
            return NotImplemented
        mine, theirs = self._arrays(), other._arrays()
        return (
            self.keys == other.keys
            and self.examples == other.examples
            and self._header() == other._header()
            and mine.keys() == theirs.keys()
            and all(mine[n].shape == theirs[n].shape and mine[n].tobytes() == theirs[n].tobytes() for n in mine)
        )

    def __repr__(self) -> str:
        return f"SenseInventory(types={len(self)}, senses={self.n_senses_total}, width={self.width})"
