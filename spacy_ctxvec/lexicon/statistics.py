"""Corpus polysemy statistics: a mergeable lexicon of contextual-vector sums per word type.

For each type w the lexicon keeps its count n_w, the sum S_w of its unit-normalised
contextual vectors and the sum R_w of its raw vectors. From these, exactly:

- self-similarity (Ethayarajh 2019), the mean cosine over pairs of distinct occurrences,
  SelfSim_w = (|S_w|^2 - n_w) / (n_w (n_w - 1)), because |S_w|^2 = sum_ij cos(i, j)
  and the n_w diagonal terms are 1;
- the anisotropy baseline B, the mean cosine over pairs of occurrences of *different*
  types, B = (|sum_w S_w|^2 - sum_w |S_w|^2) / (N^2 - sum_w n_w^2), N = sum_w n_w;
- polysemy_score_w = (1 - SelfSim_w) / (1 - B): 0 when every occurrence points the same
  way, 1 when two occurrences are as far apart as two occurrences of different words.

Sums are kept in fixed point (int64): unit vectors scaled by 2**UNIT_SCALE_BITS, raw
vectors by 2**raw_scale_bits, each rounded once per occurrence. Integer addition is
exact, so merging is associative and commutative bit for bit, and every float result
(derived on demand in float64) is identical however the corpus was split. Keys are
kept sorted, so the arrays themselves do not depend on merge order either.

Overflow guard: every rounded component of one occurrence is at most 2**30 in
magnitude and a type may hold at most MAX_COUNT = 2**32 occurrences, so every sum
stays below 2**62 < 2**63.

Optionally the lexicon also keeps an ``OccurrenceSample`` (``lexicon.sample``): up to k occurrence
vectors and snippets per type, chosen by a content hash, merged like the sums (lexicon.sample), saved in
``sample/``. A lexicon's arrays are read-only views (``ops.read_only``)."""

from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import CtxvecError, Errors
from ..ops.cosine import mean_cosine_between_groups, normalise_rows
from ..ops.fingerprint import current_label, vectors_differ
from ..ops.read_only import read_only
from .sample import OccurrenceSample
from .storage import BYTES_SOURCE, KeyedRows, load_parts, parts_from_bytes, parts_to_bytes, save_parts

UNIT_SCALE_BITS = 30
# The meta entry saying how the counted contextual vectors were made (layers, pooling,
# and the model where known): the doc._.ctxvec_context_source of the Docs the lexicon counted.
CONTEXT_VECTORS_META = "context_vectors"
# Resolution 2**-16 ~ 1.5e-5, up to 2**14 = 16384: room for the thousands reported in GPT-2's middle layers
DEFAULT_RAW_SCALE_BITS = 16  # (Sun et al. 2024, "Massive Activations in Large Language Models"; not measured here)
COMPONENT_BITS = 30  # max magnitude of one occurrence's rounded component
MAX_COUNT = 2**32
FORMAT_VERSION = 1
_ARRAY_FILES = ("counts", "unit_sums", "raw_sums")
SAMPLE_DIR = "sample"


def _lexicon_error(source: str, problem: str) -> CtxvecError:
    return CtxvecError(Errors.E207.format(path=source, problem=problem))


def _sorted_unique_keys(keys: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
    key_array = np.asarray(list(keys) if not isinstance(keys, np.ndarray) else keys, dtype=str)
    return np.unique(key_array, return_inverse=True)


def _to_fixed(values: np.ndarray, scale_bits: int) -> np.ndarray:
    return np.rint(np.ldexp(values, scale_bits)).astype(np.int64)


def _from_fixed(values: np.ndarray, scale_bits: int) -> np.ndarray:
    return np.ldexp(np.asarray(values, dtype=np.float64), -scale_bits)


def _sum_by_group(values: np.ndarray, inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """Exact int64 sums of rows of ``values`` grouped by ``inverse``."""
    order = np.argsort(inverse, kind="stable")
    sorted_groups = inverse[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sums = np.zeros((n_groups,) + values.shape[1:], dtype=np.int64)
    if len(order):
        sums[sorted_groups[starts]] = np.add.reduceat(values[order], starts, axis=0)
    return sums


class Lexicon(KeyedRows):
    """Per word type: count, fixed-point sum of unit vectors, fixed-point sum of raw vectors.
    ``n_skipped_zero``: the occurrences not counted for want of a direction (a zero vector, or
    a word token a build met without a contextual vector: building.shard.unread_words).

    Build with ``from_occurrences`` and combine with ``merge``; memory is
    O(types x width) whatever the corpus size. ``meta`` is free-form JSON describing
    how the vectors were made (key mode, model, layers); merge keeps it and refuses to
    mix lexicons whose meta disagree.
    """

    def __init__(
        self,
        keys: Sequence[str],
        counts: np.ndarray,
        unit_sums: np.ndarray,
        raw_sums: np.ndarray,
        *,
        width: int,
        raw_scale_bits: int = DEFAULT_RAW_SCALE_BITS,
        n_skipped_zero: int = 0,
        meta: Optional[Dict[str, Any]] = None,
        sample: Optional[OccurrenceSample] = None,
    ) -> None:
        self.keys: List[str] = list(keys)
        self.counts = read_only(counts, np.int64)
        self.unit_sums = read_only(unit_sums, np.int64)
        self.raw_sums = read_only(raw_sums, np.int64)
        self.width = int(width)
        self.raw_scale_bits = int(raw_scale_bits)
        self.n_skipped_zero = int(n_skipped_zero)
        self.meta: Dict[str, Any] = dict(meta or {})
        self.sample = sample
        self._index = None
        n = len(self.keys)
        if (
            self.counts.shape != (n,)
            or self.unit_sums.shape != (n, self.width)
            or self.raw_sums.shape != (n, self.width)
        ):
            raise CtxvecError(
                Errors.E201.format(
                    n_keys=n,
                    counts=self.counts.shape,
                    unit_sums=self.unit_sums.shape,
                    raw_sums=self.raw_sums.shape,
                    width=self.width,
                )
            )
        if len(set(self.keys)) != n:
            key, count = Counter(self.keys).most_common(1)[0]
            raise CtxvecError(Errors.E231.format(key=key, n=count))
        if sample is not None and sample.width != self.width:
            raise CtxvecError(Errors.E261.format(what="width (lexicon vs its sample)", a=self.width, b=sample.width))

    # Construction
    @classmethod
    def empty(
        cls,
        width: int,
        *,
        raw_scale_bits: int = DEFAULT_RAW_SCALE_BITS,
        meta: Optional[Dict[str, Any]] = None,
        sample_size: int = 0,
    ) -> "Lexicon":
        """An empty lexicon; with ``sample_size`` > 0 it carries an empty sample of that k."""
        zeros = np.zeros((0, width), dtype=np.int64)
        sample = OccurrenceSample.empty(width, k=sample_size) if sample_size > 0 else None
        return cls(
            [],
            np.zeros(0, dtype=np.int64),
            zeros,
            zeros.copy(),
            width=width,
            raw_scale_bits=raw_scale_bits,
            meta=meta,
            sample=sample,
        )

    @classmethod
    def from_occurrences(
        cls,
        keys: Union[Sequence[str], np.ndarray],
        vectors: np.ndarray,
        *,
        raw_scale_bits: int = DEFAULT_RAW_SCALE_BITS,
        meta: Optional[Dict[str, Any]] = None,
    ) -> "Lexicon":
        """A lexicon from one key per row of ``vectors`` (n_occ, width).

        Rows whose norm is zero have no direction: they are not counted, and their
        number is kept in ``n_skipped_zero``. Non-finite rows are an error.
        """
        vectors = np.asarray(vectors, dtype=np.float64)
        if vectors.ndim != 2 or vectors.shape[0] != len(keys):
            raise CtxvecError(Errors.E202.format(n_keys=len(keys), shape=vectors.shape))
        width = vectors.shape[1]
        if not np.isfinite(vectors).all():
            bad = int(np.flatnonzero(~np.isfinite(vectors).all(axis=1))[0])
            raise CtxvecError(Errors.E203.format(row=bad))
        limit = 2.0 ** (COMPONENT_BITS - raw_scale_bits)
        if vectors.size and np.abs(vectors).max() > limit:
            raise CtxvecError(Errors.E204.format(value=float(np.abs(vectors).max()), limit=limit, bits=raw_scale_bits))
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
        nonzero = norms > 0
        if len(keys) == 0:
            return cls.empty(width, raw_scale_bits=raw_scale_bits, meta=meta)
        unique_keys, inverse = _sorted_unique_keys(np.asarray(keys, dtype=str)[nonzero])
        vectors, norms = vectors[nonzero], norms[nonzero]
        unit_fixed = _to_fixed(vectors / norms[:, None], UNIT_SCALE_BITS)
        raw_fixed = _to_fixed(vectors, raw_scale_bits)
        n_types = len(unique_keys)
        counts = np.bincount(inverse, minlength=n_types).astype(np.int64)
        _check_counts(counts)
        return cls(
            unique_keys.tolist(),
            counts,
            _sum_by_group(unit_fixed, inverse, n_types),
            _sum_by_group(raw_fixed, inverse, n_types),
            width=width,
            raw_scale_bits=raw_scale_bits,
            n_skipped_zero=int((~nonzero).sum()),
            meta=meta,
        )

    # Merging
    def merge(self, other: "Lexicon") -> "Lexicon":
        """Exact sum of two lexicons (associative and commutative, bit for bit)."""
        return merge(self, other)

    def with_sample(self, sample: Optional[OccurrenceSample]) -> "Lexicon":
        """The same statistics with ``sample`` (None: without a sample)."""
        return Lexicon(
            self.keys,
            self.counts,
            self.unit_sums,
            self.raw_sums,
            width=self.width,
            raw_scale_bits=self.raw_scale_bits,
            n_skipped_zero=self.n_skipped_zero,
            meta=self.meta,
            sample=sample,
        )

    def prune_sample(self, min_count: int) -> "Lexicon":
        """Drop the sampled rows of types seen fewer than ``min_count`` times (the
        counts and sums stay whole). No-op without a sample."""
        if self.sample is None or min_count <= 1:
            return self
        counts = dict(zip(self.keys, self.counts.tolist()))
        keep = np.array([counts.get(key, 0) >= min_count for key in self.sample.keys], dtype=bool)
        return self.with_sample(self.sample.prune(keep))

    # Lookup
    @property
    def n_occurrences(self) -> int:
        return int(self.counts.sum())

    def count_of(self, key: str) -> int:
        """How often the lexicon saw ``key`` (0: never); in any letter case where the lexicon
        was built under key mode "lower" (meta), as SenseInventory finds words ("Bank": "bank")."""
        row = self.index(key)
        if row is None and self.meta.get("key") == "lower" and isinstance(key, str):
            row = self.index(key.lower())
        return 0 if row is None else int(self.counts[row])

    def keys_seen(self, min_count: int) -> List[str]:
        """The keys of the types seen at least ``min_count`` times, in key order."""
        return [key for key, count in zip(self.keys, self.counts.tolist()) if count >= min_count]

    # Derived statistics (float64, computed on demand)
    def unit_vector_sums(self) -> np.ndarray:
        """S_w: sum of unit-normalised vectors per type, (n_types, width) float64."""
        return _from_fixed(self.unit_sums, UNIT_SCALE_BITS)

    def raw_vector_sums(self) -> np.ndarray:
        return _from_fixed(self.raw_sums, self.raw_scale_bits)

    def self_similarity(self) -> np.ma.MaskedArray:
        """Mean pairwise cosine between a type's occurrences, masked where n < 2."""
        sums = self.unit_vector_sums()
        sq_norms = np.einsum("ij,ij->i", sums, sums)
        n = self.counts.astype(np.float64)
        defined = self.counts >= 2
        values = np.zeros(len(self), dtype=np.float64)
        values[defined] = (sq_norms[defined] - n[defined]) / (n[defined] * (n[defined] - 1))
        return np.ma.masked_array(np.clip(values, -1.0, 1.0), mask=~defined)

    def anisotropy_baseline(self) -> float:
        """Mean cosine between occurrences of different types (0.0 if there are no such pairs:
        ``has_baseline`` says whether there are, and the commands print B as undefined where not)."""
        return mean_cosine_between_groups(self.unit_vector_sums(), self.counts)

    def has_baseline(self) -> bool:
        """Whether B is defined: occurrences of two types or more (a corpus of one word has none)."""
        return int(np.count_nonzero(self.counts)) >= 2

    def polysemy_scores(self, min_count: int = 2) -> Tuple[np.ndarray, np.ndarray]:
        """(scores, valid): (1 - SelfSim) / (1 - B) per type; valid where n >= min_count.

        Invalid entries hold 0.0, never NaN.
        """
        if min_count < 2:
            raise CtxvecError(Errors.E208.format(min_count=min_count))
        self_sim = self.self_similarity()
        spread = 1.0 - self.anisotropy_baseline()
        valid = (self.counts >= min_count) & (spread > 1e-12)
        scores = np.zeros(len(self), dtype=np.float64)
        scores[valid] = (1.0 - self_sim.data[valid]) / spread
        return scores, valid

    def centroids(self) -> np.ndarray:
        """Mean raw contextual vector per type (n_types, width) float64."""
        return self.raw_vector_sums() / np.maximum(self.counts, 1)[:, None]

    def unit_centroids(self) -> np.ndarray:
        """S_w / |S_w|: the direction of the mean unit vector per type (zeros if |S_w| = 0).

        The mean of cos(occurrence, unit centroid) over a type's occurrences is |S_w| / n_w.
        """
        return normalise_rows(self.unit_vector_sums())

    # Serialisation: .npy + JSON on disk, msgpack of arrays in bytes; no pickle.
    def _header(self) -> Dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "width": self.width,
            "unit_scale_bits": UNIT_SCALE_BITS,
            "raw_scale_bits": self.raw_scale_bits,
            "n_skipped_zero": self.n_skipped_zero,
            "meta": self.meta,
            "sample_k": None if self.sample is None else self.sample.k,
        }

    @classmethod
    def _from_parts(
        cls,
        header: Any,
        keys: Any,
        arrays: Dict[str, np.ndarray],
        source: str,
        sample: Optional[OccurrenceSample] = None,
    ) -> "Lexicon":
        """A Lexicon from loaded parts, every part checked (E207 naming ``source``)."""

        def bad(problem: str) -> CtxvecError:
            return CtxvecError(Errors.E207.format(path=source, problem=problem))

        if not isinstance(header, dict):
            raise bad("lexicon.json does not hold an object")
        if header.get("unit_scale_bits") != UNIT_SCALE_BITS or header.get("format_version") != FORMAT_VERSION:
            raise bad(f"unsupported format {str(header)[:200]}")
        for name in ("width", "raw_scale_bits"):
            if not _is_int(header.get(name)):
                raise bad(f"lexicon.json has no integer '{name}'")
        if header["width"] < 1 or not 0 <= header["raw_scale_bits"] <= COMPONENT_BITS:
            raise bad(f"width {header['width']} or raw_scale_bits {header['raw_scale_bits']} out of range")
        if not _is_int(header.get("n_skipped_zero", 0)) or not isinstance(header.get("meta", {}), dict):
            raise bad("lexicon.json has an invalid 'n_skipped_zero' or 'meta'")
        sample_k = header.get("sample_k")  # absent in lexicons saved before samples existed
        if sample_k is not None and (not _is_int(sample_k) or sample_k < 1):
            raise bad(f"lexicon.json has an invalid 'sample_k' {sample_k!r}")
        if (sample_k is None) != (sample is None):
            raise bad(
                "the occurrence sample is missing"
                if sample is None
                else "it holds an occurrence sample that lexicon.json does not declare"
            )
        if sample is not None and sample.k != sample_k:
            raise bad(f"lexicon.json declares sample_k={sample_k}, the sample has k={sample.k}")
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise bad("keys.json is not a list of strings")
        for name, array in arrays.items():
            if array.dtype != np.int64:
                raise bad(f"{name}.npy holds {array.dtype}, not int64")
        try:
            lexicon = cls(
                keys,
                arrays["counts"],
                arrays["unit_sums"],
                arrays["raw_sums"],
                width=header["width"],
                raw_scale_bits=header["raw_scale_bits"],
                n_skipped_zero=header.get("n_skipped_zero", 0),
                meta=header.get("meta", {}),
                sample=sample,
            )
        except CtxvecError as err:
            raise bad(str(err).split("] ", 1)[-1]) from None
        if len(lexicon) and int(np.min(lexicon.counts)) < 1:
            raise bad("counts.npy holds counts below 1")
        return lexicon

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        if self.sample is not None:
            self.sample.to_disk(path / SAMPLE_DIR)
        arrays = {name: getattr(self, name) for name in _ARRAY_FILES}
        save_parts(path, arrays, {"keys.json": self.keys, "lexicon.json": self._header()})

    @classmethod
    def from_disk(cls, path: Union[str, Path], *, mmap: bool = True) -> "Lexicon":
        path = Path(path)
        documents, arrays = load_parts(path, _ARRAY_FILES, ("lexicon.json", "keys.json"), _lexicon_error, mmap=mmap)
        header = documents["lexicon.json"]
        sample = None
        if isinstance(header, dict) and header.get("sample_k") is not None:
            if not (path / SAMPLE_DIR).is_dir():
                raise _lexicon_error(
                    str(path), f"lexicon.json declares an occurrence sample but '{SAMPLE_DIR}/' is missing"
                )
            sample = OccurrenceSample.from_disk(path / SAMPLE_DIR)
        return cls._from_parts(header, documents["keys.json"], arrays, str(path), sample)

    def to_bytes(self) -> bytes:
        arrays = {name: getattr(self, name) for name in _ARRAY_FILES}
        sample = None if self.sample is None else self.sample.to_bytes()
        return parts_to_bytes(arrays, {"header": self._header(), "keys": self.keys, "sample": sample})

    @classmethod
    def from_bytes(cls, data: bytes) -> "Lexicon":
        documents, arrays = parts_from_bytes(
            data, _ARRAY_FILES, ("header", "keys"), _lexicon_error, what="lexicon", optional=("sample",)
        )
        sample_bytes = documents["sample"]
        if sample_bytes is not None and not isinstance(sample_bytes, bytes):
            raise _lexicon_error(BYTES_SOURCE, "damaged serialised lexicon (sample is not bytes)")
        sample = None if sample_bytes is None else OccurrenceSample.from_bytes(sample_bytes)
        return cls._from_parts(documents["header"], documents["keys"], arrays, BYTES_SOURCE, sample)

    def __eq__(self, other: object) -> bool:
        """Bitwise equality of keys, sums and settings."""
        if not isinstance(other, Lexicon):
            return NotImplemented
        return (
            self.keys == other.keys
            and self._header() == other._header()
            and all(np.array_equal(getattr(self, a), getattr(other, a)) for a in _ARRAY_FILES)
            and self.sample == other.sample
        )

    def __repr__(self) -> str:
        sample = "" if self.sample is None else f", sample_k={self.sample.k}"
        return f"Lexicon(types={len(self)}, occurrences={self.n_occurrences}, width={self.width}{sample})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_counts(counts: np.ndarray) -> None:
    if len(counts) and int(counts.max()) > MAX_COUNT:
        raise CtxvecError(Errors.E205.format(count=int(counts.max()), limit=MAX_COUNT))


def _merged_meta(a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
    """The meta of both (E206 where they disagree). CONTEXT_VECTORS_META comes from the
    Docs a part counted: a part that counted none (or was built before it was recorded)
    takes the other's, and one that does not name the model takes the label that does."""
    made = [meta[CONTEXT_VECTORS_META] for meta in (a, b) if meta and meta.get(CONTEXT_VECTORS_META)]
    if made and not (len(made) == 2 and vectors_differ(*made)):
        made_from = current_label(max(made, key=len))
        a, b = ({**meta, CONTEXT_VECTORS_META: made_from} if meta else meta for meta in (a, b))
    if a and b and a != b:
        raise CtxvecError(Errors.E206.format(what="meta", a=a, b=b))
    return dict(a or b)


def merge(a: Lexicon, b: Lexicon) -> Lexicon:
    """Exact sum of two lexicons: the union of types, counts and sums added in int64."""
    if a.width != b.width:
        raise CtxvecError(Errors.E206.format(what="width", a=a.width, b=b.width))
    if a.raw_scale_bits != b.raw_scale_bits:  # earlier versions summed at 2**-20
        raise CtxvecError(Errors.E274.format(a=a.raw_scale_bits, b=b.raw_scale_bits))
    keys = np.union1d(np.asarray(a.keys, dtype=str), np.asarray(b.keys, dtype=str))
    arrays = {}
    for name in _ARRAY_FILES:
        shape = (len(keys),) + getattr(a, name).shape[1:]
        total = np.zeros(shape, dtype=np.int64)
        for part in (a, b):
            if len(part):
                total[np.searchsorted(keys, np.asarray(part.keys, dtype=str))] += getattr(part, name)
        arrays[name] = total
    _check_counts(arrays["counts"])
    return Lexicon(
        keys.tolist(),
        arrays["counts"],
        arrays["unit_sums"],
        arrays["raw_sums"],
        width=a.width,
        raw_scale_bits=a.raw_scale_bits,
        n_skipped_zero=a.n_skipped_zero + b.n_skipped_zero,
        meta=_merged_meta(a.meta, b.meta),
        sample=_merged_sample(a.sample, b.sample),
    )


def _merged_sample(a: Optional[OccurrenceSample], b: Optional[OccurrenceSample]) -> Optional[OccurrenceSample]:
    """Both samples merged; E263 for a sampled and an unsampled lexicon or different k."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        k = (a or b).k  # type: ignore[union-attr]
        raise CtxvecError(Errors.E263.format(a=k, b="without a sample"))
    if a.k != b.k:
        raise CtxvecError(Errors.E263.format(a=a.k, b=f"with k={b.k}"))
    return a.merge(b)


def merge_all(lexicons: Iterable[Lexicon], width: Optional[int] = None) -> Lexicon:
    """Merge any number of lexicons (an empty one of ``width`` if there are none)."""
    result: Optional[Lexicon] = None
    for lexicon in lexicons:
        result = lexicon if result is None else merge(result, lexicon)
    if result is None:
        if width is None:
            raise CtxvecError(Errors.E209)
        return Lexicon.empty(width)
    return result
