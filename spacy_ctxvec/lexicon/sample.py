"""A bounded, mergeable sample of each word type's occurrences (issue 11).

For every type the sample keeps up to ``k`` occurrences: contextual vector (float16),
a 64-bit priority, a short context snippet and, optionally, the occurrence's context
vector (float16: the mean vector of the tokens around it, ``ops.context_windows.window_context_means``),
which sense induction clusters on beside the token's own vector. The priority is a hash of the
occurrence's content (the document text and the token's position), so it does not
depend on how the corpus was split, in what order the parts were processed or on
which machine. A sample keeps, per type, the ``k`` occurrences with the lowest
(priority, snippet); two rows with the same type, priority and snippet are the same
occurrence (a repeated document) and are kept once. Samples made by the shard (format 3)
keep each snippet once (``distinct_snippets``): copies of a line the corpus repeats do
not crowd out the word's other occurrences. Merging is therefore the union
of two sets cut back to the ``k`` lowest: exact, associative and commutative, and the
arrays are bitwise identical whatever the grouping (rows tied on priority and snippet
keep the smallest vector bytes, a total order).

Pure numpy + stdlib (no spaCy): the shard function (``building.shard``) computes priorities and
snippets from Docs (``occurrence_keys``) and calls ``OccurrenceSample.from_occurrences``.
"""

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import CtxvecError, Errors
from ..ops.read_only import read_only, read_only_or_none
from .occurrence_keys import first_in_passage
from .sample_checks import check_finite, header_settings, sorted_within_types
from .sample_rows import first_of_each_snippet, lowest_rows
from .storage import (
    BYTES_SOURCE,
    KeyedRows,
    check_header,
    check_strings,
    load_parts,
    parts_from_bytes,
    parts_to_bytes,
    save_parts,
)

# 2: by_passage in the header; 3: distinct_snippets. Samples of versions 1 and 2 still load.
SAMPLE_FORMAT_VERSION = 3
_READ_VERSIONS = (1, 2, 3)
SAMPLE_VECTOR_DTYPE = np.float16
_ARRAY_FILES = ("offsets", "priorities", "vectors")
_ARRAY_DTYPES = {
    "offsets": np.int64,
    "priorities": np.uint64,
    "vectors": SAMPLE_VECTOR_DTYPE,
    "contexts": SAMPLE_VECTOR_DTYPE,
}
_CONTEXTS = "contexts"  # optional array: samples made before context vectors have none
_HEADER_FILE, _KEYS_FILE, _SNIPPETS_FILE = "sample.json", "keys.json", "snippets.json"


def _sample_error(source: str, problem: str) -> CtxvecError:
    return CtxvecError(Errors.E262.format(path=source, problem=problem))


def _check(condition: bool, problem: str) -> None:
    if not condition:
        raise CtxvecError(Errors.E260.format(problem=problem))


class OccurrenceSample(KeyedRows):
    """Up to k occurrence vectors per word type, the k with the lowest priority; exact,
    associative, commutative merge.

    ``keys`` are sorted and unique; the rows of ``keys[i]`` are
    ``offsets[i]:offsets[i + 1]``, sorted by (priority, snippet). ``contexts`` (rows,
    width) or None: each row's context vector. ``by_passage``: the priorities are
    ``occurrence_keys.passage_priorities`` (one occurrence per passage first; which rows
    share a passage is known: ``independent_rows``); False for samples saved before them.
    ``distinct_snippets``: each snippet is kept once (``sample_rows.lowest_rows``).
    """

    def __init__(
        self,
        keys: Sequence[str],
        offsets: np.ndarray,
        priorities: np.ndarray,
        vectors: np.ndarray,
        snippets: Sequence[str],
        *,
        k: int,
        width: int,
        contexts: Optional[np.ndarray] = None,
        by_passage: bool = False,
        distinct_snippets: bool = False,
    ) -> None:
        self.keys: List[str] = list(keys)
        self.by_passage, self.distinct_snippets = bool(by_passage), bool(distinct_snippets)
        self.offsets = read_only(offsets, np.int64)
        self.priorities = read_only(priorities, np.uint64)
        self.vectors = read_only(vectors, SAMPLE_VECTOR_DTYPE)
        self.contexts = read_only_or_none(contexts, SAMPLE_VECTOR_DTYPE)
        self.snippets: List[str] = list(snippets)
        self.k = int(k)
        self._width = int(width)
        self._index = None
        self._validate()

    def _validate(self) -> None:
        n_types, n_rows = len(self.keys), len(self.priorities)
        _check(self.k >= 1, f"k must be at least 1, got {self.k}")
        _check(self._width >= 1, f"width must be at least 1, got {self._width}")
        _check(
            self.offsets.shape == (n_types + 1,),
            f"offsets has shape {self.offsets.shape}, expected ({n_types + 1},) for {n_types} keys",
        )
        _check(
            self.vectors.shape == (n_rows, self._width),
            f"vectors has shape {self.vectors.shape}, expected ({n_rows}, {self._width})",
        )
        _check(len(self.snippets) == n_rows, f"{len(self.snippets)} snippets for {n_rows} rows")
        _check(
            self.contexts is None or self.contexts.shape == self.vectors.shape,
            f"contexts has shape {None if self.contexts is None else self.contexts.shape}, "
            f"expected {self.vectors.shape}",
        )
        if n_types:
            sizes = np.diff(self.offsets)
            _check(
                int(self.offsets[0]) == 0 and int(self.offsets[-1]) == n_rows,
                "offsets must run from 0 to the number of rows",
            )
            _check(bool((sizes >= 1).all()) and int(sizes.max()) <= self.k, f"every key must hold 1 to k={self.k} rows")
            _check(all(a < b for a, b in zip(self.keys, self.keys[1:])), "keys must be sorted and unique")
        else:
            _check(n_rows == 0 and int(self.offsets[0]) == 0, "rows without keys")

    # Construction
    @property
    def has_contexts(self) -> bool:
        return self.contexts is not None

    @classmethod
    def empty(
        cls, width: int, *, k: int, contexts: bool = False, by_passage: bool = False, distinct_snippets: bool = False
    ) -> "OccurrenceSample":
        return cls(
            [],
            np.zeros(1, dtype=np.int64),
            np.zeros(0, dtype=np.uint64),
            np.zeros((0, width), dtype=SAMPLE_VECTOR_DTYPE),
            [],
            k=k,
            width=width,
            contexts=np.zeros((0, width), dtype=SAMPLE_VECTOR_DTYPE) if contexts else None,
            by_passage=by_passage,
            distinct_snippets=distinct_snippets,
        )

    @classmethod
    def from_occurrences(
        cls,
        keys: Sequence[str],
        vectors: np.ndarray,
        priorities: np.ndarray,
        snippets: Sequence[str],
        *,
        k: int,
        contexts: Optional[np.ndarray] = None,
        by_passage: bool = False,
        distinct_snippets: bool = False,
    ) -> "OccurrenceSample":
        """The sample of occurrences given one key, vector row, priority and snippet
        each (and a context vector row each, when ``contexts`` is given; ``by_passage``:
        the priorities are ``passage_priorities``; ``distinct_snippets``: keep each
        snippet once)."""
        vectors = np.asarray(vectors)
        _check(vectors.ndim == 2, f"vectors must be 2-d (n_occurrences, width), got shape {vectors.shape}")
        n = vectors.shape[0]
        _check(
            len(keys) == n and len(priorities) == n and len(snippets) == n,
            f"{len(keys)} keys, {len(priorities)} priorities and {len(snippets)} snippets for {n} vector rows",
        )
        _check(k >= 1, f"k must be at least 1, got {k}")
        priorities = np.asarray(priorities)
        _check(priorities.dtype == np.uint64 or n == 0, f"priorities must be uint64, got {priorities.dtype}")
        if contexts is not None:
            contexts = np.asarray(contexts)
            _check(contexts.shape == vectors.shape, f"contexts has shape {contexts.shape}, the vectors {vectors.shape}")
        if n == 0:
            return cls.empty(
                vectors.shape[1],
                k=k,
                contexts=contexts is not None,
                by_passage=by_passage,
                distinct_snippets=distinct_snippets,
            )
        _check(all(isinstance(s, str) for s in snippets), "snippets must be strings")
        with np.errstate(over="ignore", invalid="ignore"):
            half = vectors.astype(SAMPLE_VECTOR_DTYPE)
            half_contexts = None if contexts is None else contexts.astype(SAMPLE_VECTOR_DTYPE, copy=False)
        check_finite(half)
        if half_contexts is not None:
            check_finite(half_contexts, "context")
        unique_keys, type_ids = np.unique(np.asarray(keys, dtype=str), return_inverse=True)
        return _select(
            unique_keys,
            type_ids.ravel().astype(np.int64),
            priorities.astype(np.uint64),
            half,
            list(snippets),
            k=k,
            width=vectors.shape[1],
            contexts=half_contexts,
            by_passage=by_passage,
            distinct_snippets=distinct_snippets,
        )

    # Merging
    def merge(self, other: "OccurrenceSample") -> "OccurrenceSample":
        """Union per key, cut back to the k lowest (priority, snippet): exact,
        associative and commutative, bit for bit."""
        for what, a, b in (("k", self.k, other.k), ("width", self.width, other.width)):
            if a != b:
                raise CtxvecError(Errors.E261.format(what=what, a=a, b=b))
        if self.n_rows == 0 and other.n_rows == 0:  # the same result in either order
            return max(self, other, key=lambda part: (part.by_passage, part.distinct_snippets, part.has_contexts))
        if other.n_rows == 0:
            return self
        if self.n_rows == 0:
            return other
        for what, a, b in (
            ("context vectors (kept or not)", self.has_contexts, other.has_contexts),
            ("priorities (by passage or not)", self.by_passage, other.by_passage),
            ("snippets (each kept once or not)", self.distinct_snippets, other.distinct_snippets),
        ):
            if a != b:
                raise CtxvecError(Errors.E261.format(what=what, a=a, b=b))
        keys = np.union1d(np.asarray(self.keys, dtype=str), np.asarray(other.keys, dtype=str))
        type_ids = np.concatenate(
            [
                np.repeat(np.searchsorted(keys, np.asarray(part.keys, dtype=str)), np.diff(part.offsets))
                for part in (self, other)
            ]
        ).astype(np.int64)
        return _select(
            keys,
            type_ids,
            np.concatenate([self.priorities, other.priorities]),
            np.concatenate([self.vectors, other.vectors]),
            self.snippets + other.snippets,
            k=self.k,
            width=self.width,
            contexts=np.concatenate([self.contexts, other.contexts]) if self.has_contexts else None,
            by_passage=self.by_passage,
            distinct_snippets=self.distinct_snippets,
        )

    # Lookup
    @property
    def width(self) -> int:
        return self._width

    @property
    def n_rows(self) -> int:
        return int(len(self.priorities))

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays and the snippets' UTF-8 text."""
        text = sum(len(s.encode("utf8", errors="surrogatepass")) for s in self.snippets)
        contexts = 0 if self.contexts is None else self.contexts.nbytes
        return int(self.offsets.nbytes + self.priorities.nbytes + self.vectors.nbytes + contexts + text)

    def counts(self) -> np.ndarray:
        """Rows per key, (n_types,) int64."""
        return np.diff(self.offsets)

    def rows_of(self, key: str) -> Tuple[np.ndarray, List[str]]:
        """(vectors (n, width) float16, snippets) of one type in priority order;
        (0, width) and [] if the type has no rows."""
        i = self.index(key)
        if i is None:
            return np.zeros((0, self.width), dtype=SAMPLE_VECTOR_DTYPE), []
        start, end = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.vectors[start:end], self.snippets[start:end]

    def prune(self, keep: Union[Callable[[str], bool], np.ndarray]) -> "OccurrenceSample":
        """The sample of the keys where ``keep`` holds: a boolean mask over ``keys``,
        or a function key -> bool."""
        if callable(keep):
            mask = np.array([bool(keep(key)) for key in self.keys], dtype=bool)
        else:
            mask = np.asarray(keep)
            _check(
                mask.dtype == bool and mask.shape == (len(self.keys),),
                f"prune needs a boolean mask of shape ({len(self.keys)},), got {mask.dtype} {mask.shape}",
            )
        sizes = np.diff(self.offsets)
        rows = np.repeat(mask, sizes)
        row_ids = np.flatnonzero(rows)
        return OccurrenceSample(
            [key for key, kept in zip(self.keys, mask) if kept],
            np.concatenate([[0], np.cumsum(sizes[mask])]).astype(np.int64),
            self.priorities[rows],
            self.vectors[rows],
            [self.snippets[i] for i in row_ids],
            k=self.k,
            width=self.width,
            contexts=None if self.contexts is None else self.contexts[rows],
            by_passage=self.by_passage,
            distinct_snippets=self.distinct_snippets,
        )

    def without_contexts(self) -> "OccurrenceSample":
        """The same rows without their context vectors (half the vector memory; senses
        are then clustered on the token vectors alone)."""
        if self.contexts is None:
            return self
        return OccurrenceSample(
            self.keys,
            self.offsets,
            self.priorities,
            self.vectors,
            self.snippets,
            k=self.k,
            width=self.width,
            by_passage=self.by_passage,
            distinct_snippets=self.distinct_snippets,
        )

    def independent_rows(self, start: int, end: int) -> np.ndarray:
        """Bool per row of ``start:end`` (one type's rows): the first occurrence of the type
        in its passage (``first_in_passage``; all rows without ``by_passage`` or where none
        is first), and of those the first with its snippet: a line the corpus repeats (a
        set phrase, header or template) is one piece of evidence, not one per copy."""
        first = first_in_passage(self.priorities[start:end]) if self.by_passage else np.zeros(0, dtype=bool)
        independent = first if first.any() else np.ones(end - start, dtype=bool)
        rows = np.flatnonzero(independent)
        snippets = [self.snippets[start + row] for row in rows.tolist()]  # an empty one: nothing to compare
        independent[rows] = first_of_each_snippet(np.zeros(len(rows), dtype=np.int64), snippets)
        return independent

    # Serialisation: .npy + JSON on disk, msgpack of .npy buffers in bytes; no pickle.
    def _header(self) -> Dict[str, Any]:
        return {
            "format_version": SAMPLE_FORMAT_VERSION,
            "k": self.k,
            "width": self.width,
            "vector_dtype": "float16",
            "n_rows": self.n_rows,
            "contexts": self.has_contexts,
            "by_passage": self.by_passage,
            "distinct_snippets": self.distinct_snippets,
        }

    def _array_parts(self) -> Dict[str, np.ndarray]:
        arrays = {name: getattr(self, name) for name in _ARRAY_FILES}
        if self.contexts is not None:
            arrays[_CONTEXTS] = self.contexts
        return arrays

    def to_disk(self, path: Union[str, Path]) -> None:
        save_parts(
            path,
            self._array_parts(),
            {_KEYS_FILE: self.keys, _SNIPPETS_FILE: self.snippets, _HEADER_FILE: self._header()},
        )

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "OccurrenceSample":
        documents, arrays = load_parts(
            path, _ARRAY_FILES, (_HEADER_FILE, _KEYS_FILE, _SNIPPETS_FILE), _sample_error, optional_arrays=(_CONTEXTS,)
        )
        return cls._from_parts(
            documents[_HEADER_FILE], documents[_KEYS_FILE], documents[_SNIPPETS_FILE], arrays, str(path)
        )

    def to_bytes(self) -> bytes:
        return parts_to_bytes(
            self._array_parts(), {"header": self._header(), "keys": self.keys, "snippets": self.snippets}
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> "OccurrenceSample":
        documents, arrays = parts_from_bytes(
            data,
            _ARRAY_FILES,
            ("header", "keys", "snippets"),
            _sample_error,
            what="sample",
            optional_arrays=(_CONTEXTS,),
        )
        return cls._from_parts(documents["header"], documents["keys"], documents["snippets"], arrays, BYTES_SOURCE)

    @classmethod
    def _from_parts(
        cls, header: Any, keys: Any, snippets: Any, arrays: Dict[str, np.ndarray], source: str
    ) -> "OccurrenceSample":
        def bad(problem: str) -> CtxvecError:
            return CtxvecError(Errors.E262.format(path=source, problem=problem))

        check_header(header, _READ_VERSIONS, bad)
        settings = header_settings(header, _HEADER_FILE, bad, has_contexts=arrays.get(_CONTEXTS) is not None)
        check_strings(keys, _KEYS_FILE, bad)
        check_strings(snippets, _SNIPPETS_FILE, bad)
        for name, dtype in _ARRAY_DTYPES.items():
            if arrays.get(name) is not None and arrays[name].dtype != dtype:
                raise bad(f"{name}.npy holds {arrays[name].dtype}, not {np.dtype(dtype)}")
        try:
            sample = cls(
                keys,
                arrays["offsets"],
                arrays["priorities"],
                arrays["vectors"],
                snippets,
                k=settings["k"],
                width=settings["width"],
                contexts=arrays.get(_CONTEXTS),
                by_passage=settings["by_passage"],
                distinct_snippets=settings["distinct_snippets"],
            )
        except CtxvecError as err:
            raise bad(str(err).split("] ", 1)[-1]) from None
        try:
            check_finite(sample.vectors)
            if sample.contexts is not None:
                check_finite(sample.contexts, "context")
        except CtxvecError as err:
            raise bad(str(err).split("] ", 1)[-1]) from None
        if not sorted_within_types(sample.offsets, sample.priorities):
            raise bad("rows are not in priority order within their key")
        return sample

    def __eq__(self, other: object) -> bool:
        """Bitwise equality of keys, rows and settings."""
        if not isinstance(other, OccurrenceSample):
            return NotImplemented
        return (
            self.k == other.k
            and self.width == other.width
            and self.keys == other.keys
            and self.snippets == other.snippets
            and all(np.array_equal(getattr(self, a), getattr(other, a)) for a in ("offsets", "priorities"))
            and self.vectors.shape == other.vectors.shape
            and np.array_equal(self.vectors.view(np.uint16), other.vectors.view(np.uint16))
            and self.has_contexts == other.has_contexts
            and self.by_passage == other.by_passage
            and self.distinct_snippets == other.distinct_snippets
            and (
                self.contexts is None
                or other.contexts is None
                or np.array_equal(self.contexts.view(np.uint16), other.contexts.view(np.uint16))
            )
        )

    def __repr__(self) -> str:
        return (
            f"OccurrenceSample(types={len(self)}, rows={self.n_rows}, k={self.k}, width={self.width}, "
            f"contexts={self.has_contexts}, by_passage={self.by_passage}, distinct_snippets={self.distinct_snippets})"
        )


def _select(
    keys: np.ndarray,
    type_ids: np.ndarray,
    priorities: np.ndarray,
    vectors: np.ndarray,
    snippets: List[str],
    *,
    k: int,
    width: int,
    contexts: Optional[np.ndarray] = None,
    by_passage: bool = False,
    distinct_snippets: bool = False,
) -> OccurrenceSample:
    """Per type, the k lowest distinct (priority, snippet) rows of the given rows
    (``contexts`` rows travel with their vector rows; ``sample_rows.lowest_rows``)."""
    kept, present, counts = lowest_rows(
        type_ids, priorities, snippets, vectors, k=k, n_types=len(keys), distinct_snippets=distinct_snippets
    )
    return OccurrenceSample(
        keys[present].tolist(),
        np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        priorities[kept],
        vectors[kept],
        [snippets[i] for i in kept.tolist()],
        k=k,
        width=width,
        contexts=None if contexts is None else contexts[kept],
        by_passage=by_passage,
        distinct_snippets=distinct_snippets,
    )


def merge_samples(samples: Sequence[OccurrenceSample]) -> OccurrenceSample:
    """Merge any non-empty sequence of samples."""
    _check(len(samples) > 0, "merge_samples needs at least one sample")
    result = samples[0]
    for sample in samples[1:]:
        result = result.merge(sample)
    return result
