"""A static vector table (sense2vec style): string keys -> rows of a float32 matrix.

Lookup of a token tries, in order: the exact text, its lower-case form, its norm, then subwords (fastText
character n-grams, or the mean of a transformer's wordpiece input embeddings), and finally gives up ("none": zero
vector, code 0). Codes index ``attributes.STATIC_KEY_NAMES``. No spaCy import: strings in, arrays out. Blank
(empty or whitespace-only) strings are never looked up: they get code "none".
"""

import logging
import tempfile
from itertools import islice
from pathlib import Path
from typing import Any, Collection, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import srsly

from ..attributes import STATIC_KEY_NAMES
from ..data_files import read_npy, save_npy
from ..errors import CtxvecError, Errors, Warnings
from ..ops.read_only import ReadOnlyArrays, read_only
from ..paths import composed, composed_keys
from ..types import PathLike
from .subwords import FastTextNgrams, Subwords, WordpieceMean

logger = logging.getLogger(__name__)

KEY_CODES: Dict[str, int] = {name: code for code, name in enumerate(STATIC_KEY_NAMES)}
LOOKUPS: Tuple[str, ...] = ("exact", "lower", "norm", "subwords")
DEFAULT_LOOKUPS: Tuple[str, ...] = LOOKUPS
# Which string of a (text, lower, norm) triple each key lookup uses.
_LOOKUP_FIELD = {"exact": 0, "lower": 1, "norm": 2}
SUBWORD_CACHE_SIZE = 20_000

Triple = Tuple[str, str, str]


def check_lookups(lookups: Iterable[str]) -> Tuple[str, ...]:
    """Validate a lookup order, e.g. ("exact", "lower", "norm", "subwords")."""
    lookups = tuple(lookups)
    if not lookups:  # every token would silently get the zero vector
        raise CtxvecError(Errors.E120.format(choices=list(LOOKUPS)))
    for lookup in lookups:
        if lookup not in LOOKUPS:
            raise CtxvecError(Errors.E112.format(lookup=lookup, choices=list(LOOKUPS)))
    return lookups


class StaticVectorTable(ReadOnlyArrays):
    """String keys -> rows of a float32 (n_rows, dim) matrix, with optional subwords.

    keys[i] names row rows[i] (rows defaults to 0..n-1). If a key occurs twice the
    first one wins (logged as a warning)."""

    def __init__(
        self,
        keys: Sequence[str],
        vectors: np.ndarray,
        *,
        rows: Optional[np.ndarray] = None,
        subwords: Optional[Subwords] = None,
    ) -> None:
        with np.errstate(over="ignore"):  # a float64 beyond float32 becomes inf, refused where tables are checked
            vectors = vectors if getattr(vectors, "dtype", None) == np.float32 else np.asarray(vectors, np.float32)
        if vectors.ndim != 2:
            raise CtxvecError(Errors.E106.format(path="<array>", shape=vectors.shape, dtype=vectors.dtype))
        keys = [key.decode("utf8") if isinstance(key, bytes) else str(key) for key in keys]  # not "b'apple'"
        rows = np.arange(len(keys), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        max_row = int(rows.max()) if len(rows) else -1
        if len(rows) != len(keys) or max_row >= vectors.shape[0] or (len(rows) and rows.min() < 0):
            raise CtxvecError(Errors.E110.format(n_keys=len(keys), n_rows=vectors.shape[0], max_row=max_row))
        if isinstance(subwords, FastTextNgrams) and subwords.vectors_ngrams.shape[1] != vectors.shape[1]:
            raise CtxvecError(
                Errors.E111.format(shape=subwords.vectors_ngrams.shape, bucket=subwords.bucket, dim=vectors.shape[1])
            )
        self.keys = keys
        self.rows = read_only(rows)
        self.vectors = read_only(vectors)
        self.subwords = subwords
        self._share_embeddings()
        self._key_to_row: Dict[str, int] = dict(zip(reversed(keys), reversed(rows.tolist())))  # the first one wins
        n_duplicates = len(keys) - len(self._key_to_row)
        if n_duplicates:
            repeated = next(key for key, row in zip(keys, rows.tolist()) if self._key_to_row[key] != row)
            named = f"{n_duplicates} duplicated key" + "s" * (n_duplicates != 1)
            logger.warning(Warnings.W001.format(n_duplicates=named, word=repeated))
        self._subword_cache: Dict[str, Optional[np.ndarray]] = {}
        self._composed_keys: Optional[Dict[str, int]] = None  # NFD keys by their NFC form, made when first needed

    # Constructors
    @classmethod
    def from_keyed_vectors(cls, keyed_vectors: Any) -> "StaticVectorTable":
        """From gensim KeyedVectors; FastTextKeyedVectors keep their n-grams. NaN or inf is E109."""
        subwords = None
        if getattr(keyed_vectors, "bucket", 0) and getattr(keyed_vectors, "vectors_ngrams", None) is not None:
            ngrams, kv = np.asarray(keyed_vectors.vectors_ngrams, dtype=np.float32), keyed_vectors
            subwords = FastTextNgrams(ngrams, kv.min_n, kv.max_n, kv.bucket)
        table = cls(keyed_vectors.index_to_key, np.asarray(keyed_vectors.vectors, dtype=np.float32), subwords=subwords)
        check_finite(table, "<KeyedVectors>")
        return table

    @classmethod
    def from_transformer(
        cls, embeddings: np.ndarray, tokenizer: Any, only: Optional[Collection[str]] = None
    ) -> "StaticVectorTable":
        """From a transformer's input-embedding matrix (vocab_size, dim) and its tokenizer.

        Keys are the words that are a single wordpiece in running text: the vocab entries that the tokenizer
        turns into exactly themselves (one piece, same id) or, for a tokenizer with a word-start marker ("Ġbank",
        "▁bank"), the marked entries' words ("bank"); unmarked entries there are word continuations, not keys.
        Everything else is looked up as the mean of its wordpieces ("subwords").
        Given ``only``, the keys are those words in it: a smaller table made faster that
        looks up every string of ``only`` as the whole table does."""
        embeddings = np.asarray(embeddings, dtype=np.float32)
        subwords = WordpieceMean(tokenizer, embeddings)
        special = set(tokenizer.all_special_tokens)
        vocab = sorted(
            (
                (piece, idx)
                for piece, idx in tokenizer.get_vocab().items()
                if piece not in special and idx < len(embeddings)
            ),
            key=lambda item: item[1],
        )
        single = subwords.single_piece_words(vocab, only)
        keys = [piece for piece, _ in single]
        rows = np.asarray([idx for _, idx in single], dtype=np.int64)
        return cls(keys, embeddings, rows=rows, subwords=subwords)

    # Introspection
    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def kind(self) -> str:
        return "plain" if self.subwords is None else self.subwords.kind

    def __len__(self) -> int:
        return len(self._key_to_row)

    def __contains__(self, key: str) -> bool:
        return key in self._key_to_row

    def get(self, key: str) -> Optional[np.ndarray]:
        """The row stored under exactly this key, or None."""
        row = self._key_to_row.get(key)
        return None if row is None else np.array(self.vectors[row])

    # Lookup
    def lookup(
        self,
        text: str,
        lower: Optional[str] = None,
        norm: Optional[str] = None,
        *,
        lookups: Sequence[str] = DEFAULT_LOOKUPS,
    ) -> Tuple[np.ndarray, str]:
        """(vector, name of the lookup that succeeded) for one token."""
        vectors, codes = self.lookup_batch(
            [text], None if lower is None else [lower], None if norm is None else [norm], lookups=lookups
        )
        return vectors[0], STATIC_KEY_NAMES[int(codes[0])]

    def lookup_batch(
        self,
        texts: Sequence[str],
        lowers: Optional[Sequence[str]] = None,
        norms: Optional[Sequence[str]] = None,
        *,
        lookups: Sequence[str] = DEFAULT_LOOKUPS,
    ) -> Tuple[np.ndarray, np.ndarray]:
        """(vectors (n, dim) float32, codes (n,) int8) for n tokens given as parallel
        lists of text, lower-case form and norm (lowers default to text.lower(),
        norms to the lower forms). Each unique triple is looked up once; misses get
        a zero vector and code 0."""
        lowers = [text.lower() for text in texts] if lowers is None else lowers
        norms = lowers if norms is None else norms
        if not len(texts) == len(lowers) == len(norms):
            raise CtxvecError(Errors.E113.format(n_texts=len(texts), n_lowers=len(lowers), n_norms=len(norms)))
        unique: Dict[Triple, int] = {}
        inverse = np.fromiter(
            (unique.setdefault(triple, len(unique)) for triple in zip(texts, lowers, norms)),
            dtype=np.int64,
            count=len(texts),
        )
        vectors, codes = self._lookup_unique(list(unique), check_lookups(lookups))
        return vectors[inverse], codes[inverse]

    def _lookup_unique(self, triples: List[Triple], lookups: Tuple[str, ...]) -> Tuple[np.ndarray, np.ndarray]:
        vectors = np.zeros((len(triples), self.dim), dtype=np.float32)
        codes = np.zeros(len(triples), dtype=np.int8)
        remaining = np.fromiter((i for i, triple in enumerate(triples) if triple[0].strip()), dtype=np.int64)
        for lookup in lookups:
            if len(remaining) == 0:
                break
            if lookup == "subwords":
                if self.subwords is None:
                    continue
                found_vectors, found = self._subword_vectors([triples[i][0] for i in remaining])
            else:
                field = _LOOKUP_FIELD[lookup]
                rows = np.fromiter((self._row_of(triples[i][field]) for i in remaining), np.int64, len(remaining))
                found = rows >= 0
                found_vectors = np.zeros((len(remaining), self.dim), dtype=np.float32)
                found_vectors[found] = self.vectors[rows[found]]
            hits = remaining[found]
            vectors[hits] = found_vectors[found]
            codes[hits] = KEY_CODES[lookup]
            remaining = remaining[~found]
        return vectors, codes

    def _row_of(self, key: str) -> int:
        """The row of ``key``, or of its form as texts are read (NFC, no invisible characters:
        "e" + U+0301 finds "é", and "é" a key written "e" + U+0301) where only that is a key; -1 for neither."""
        row = self._key_to_row.get(key, -1)
        if row < 0 and not key.isascii():
            read_as = composed(key)
            if self._composed_keys is None:  # at the first lookup that needs it, not at load
                self._composed_keys = composed_keys(self._key_to_row)
            row = self._key_to_row.get(read_as, self._composed_keys.get(read_as, -1))
        return row

    def _subword_vectors(self, texts: List[str]) -> Tuple[np.ndarray, np.ndarray]:
        """Subword vectors with a bounded per-string cache (None = no subwords). The vectors
        come from what this call found or made, never from the cache read back: a full cache
        is replaced by a new one (not cleared, which emptied it under this call's own words and
        another thread's), so a word's vector never depends on what was looked up before."""
        cache = self._subword_cache  # entries are never removed from one cache: safe to read from threads
        unique = dict.fromkeys(texts)
        known = {text: cache[text] for text in unique if text in cache}
        missing = [text for text in unique if text not in known]
        if missing and self.subwords is not None:
            new_vectors, found = self.subwords.vectors_for(missing)
            retry = [j for j, text in enumerate(missing) if not found[j] and composed(text) != text]  # as _row_of
            if retry:  # "a" + U+0308, all [UNK] to a cased tokenizer, is read as "ä"
                new_vectors[retry], found[retry] = self.subwords.vectors_for([composed(missing[j]) for j in retry])
            # copies: a row view would keep this call's whole array alive, and a new cache carries old entries over
            made = {text: (vector.copy() if ok else None) for text, vector, ok in zip(missing, new_vectors, found)}
            known.update(made)
            if len(cache) + len(made) > SUBWORD_CACHE_SIZE:  # a new cache, with this call's words (as many as fit)
                self._subword_cache = dict(islice(known.items(), SUBWORD_CACHE_SIZE))
            else:
                cache.update(made)
        cached = [known.get(text) for text in texts]
        found = np.fromiter((vector is not None for vector in cached), dtype=bool, count=len(texts))
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        if found.any():
            vectors[found] = np.stack([vector for vector in cached if vector is not None])
        return vectors, found

    def _share_embeddings(self) -> None:
        """A wordpiece table's embeddings and vectors as one object, so that a pickle (what an
        n_process or Ray worker receives, and any copy of it it pickles again) holds them once."""
        if isinstance(self.subwords, WordpieceMean) and _same_array(self.subwords.embeddings, self.vectors):
            self.subwords.embeddings = self.vectors

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)  # each object's arrays frozen apart: two views of the one array again
        self._share_embeddings()

    # Serialization: .npy + JSON on disk, msgpack of arrays in bytes; never pickle.
    def _cfg(self) -> Dict[str, Any]:
        cfg = {"kind": self.kind, "dim": self.dim, "n_rows": int(self.vectors.shape[0]), "n_keys": len(self.keys)}
        cfg["key_rows"] = not self._identity_rows()  # a key_rows file is then needed: without it, keys are rows
        if self.subwords is not None:
            cfg.update(self.subwords.cfg())
        return cfg

    def _identity_rows(self) -> bool:
        return bool(np.array_equal(self.rows, np.arange(len(self.keys))))

    def to_disk(self, path: PathLike, *, with_vectors: bool = True) -> None:
        """Save as JSON + .npy; ``with_vectors=False`` leaves out the vectors (and a
        wordpiece table's tokenizer): from_disk then needs them given back."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if with_vectors:  # the arrays first: a failed write leaves the old JSON beside them
            save_npy(path / "vectors.npy", self.vectors)
        if not self._identity_rows():
            save_npy(path / "key_rows.npy", self.rows)
        if self.subwords is not None:
            for name, array in self.subwords.arrays().items():
                save_npy(path / f"{name}.npy", array)
        srsly.write_json(path / "keys.json", self.keys)
        srsly.write_json(path / "cfg.json", self._cfg())
        if with_vectors and isinstance(self.subwords, WordpieceMean):
            self.subwords.tokenizer.save_pretrained(str(path / "tokenizer"))

    @classmethod
    def from_disk(
        cls, path: PathLike, *, mmap: bool = True, vectors: Optional[np.ndarray] = None, tokenizer: Any = None
    ) -> "StaticVectorTable":
        """Load what to_disk wrote; the big arrays are memory-mapped (read-only). Damaged
        data (unreadable JSON or .npy, wrong shapes or dtypes, NaN) is a coded error.
        ``vectors`` / ``tokenizer``: those to_disk(with_vectors=False) left out."""
        path = Path(path)

        def need(name: str) -> Path:
            if not (path / name).exists():
                raise CtxvecError(Errors.E119.format(path=path, missing=name))
            return path / name

        def need_file(name: str) -> Path:
            file = need(name)  # E119 (a CtxvecError is a ValueError: not the except's)
            if not file.is_file():  # a directory, or a device such as /dev/zero, which reads without end
                raise CtxvecError(Errors.E134.format(path=path, problem=f"{name} is not a regular file"))
            return file

        def read_json(name: str) -> Any:
            file = need_file(name)
            try:
                return srsly.read_json(file)
            except ValueError as err:
                raise CtxvecError(Errors.E134.format(path=path, problem=f"{name} is not valid JSON ({err})")) from None

        def read_array(name: str) -> np.ndarray:
            file = need_file(name)
            try:
                return read_npy(file, mmap=mmap)
            except ValueError as err:
                raise CtxvecError(Errors.E134.format(path=path, problem=f"{name} cannot be read ({err})")) from None

        cfg, keys = read_json("cfg.json"), read_json("keys.json")
        kind = cfg.get("kind") if isinstance(cfg, dict) else None
        arrays = {"vectors": read_array("vectors.npy") if vectors is None else vectors}
        if (path / "key_rows.npy").exists() or (isinstance(cfg, dict) and cfg.get("key_rows") is True):
            arrays["key_rows"] = read_array("key_rows.npy")  # E119 where cfg says it was written
        if kind == "fasttext":
            arrays["ngrams"] = read_array("ngrams.npy")
        if kind == "wordpieces" and tokenizer is None:
            tokenizer = _load_tokenizer(need("tokenizer"), path)
        return cls._from_parts(path, cfg, keys, arrays, tokenizer)

    @classmethod
    def _from_parts(
        cls, where: Any, cfg: Any, keys: Any, arrays: Dict[str, Any], tokenizer: Any
    ) -> "StaticVectorTable":
        """A table from saved parts, each checked: cfg (dict), keys (list of str),
        arrays "vectors", optional "key_rows", "ngrams" (fastText)."""

        def damaged(problem: str) -> CtxvecError:
            return CtxvecError(Errors.E134.format(path=where, problem=problem))

        if not isinstance(cfg, dict) or cfg.get("kind") not in ("plain", "fasttext", "wordpieces"):
            raise damaged(f"the configuration {str(cfg)[:100]!r} has no valid 'kind' (plain, fasttext or wordpieces)")
        needed = ("dim", "n_rows", "n_keys") + (("min_n", "max_n", "bucket") if cfg["kind"] == "fasttext" else ())
        for name in needed:
            if not isinstance(cfg.get(name), int) or isinstance(cfg.get(name), bool) or cfg[name] < 0:
                raise damaged(f"the configuration needs a whole number '{name}' >= 0, got {cfg.get(name)!r}")
        if not isinstance(keys, list) or len(keys) != cfg["n_keys"] or not all(isinstance(key, str) for key in keys):
            raise damaged(f"the keys must be a list of {cfg['n_keys']} strings")
        vectors = _checked_array(arrays.get("vectors"), "vectors", (cfg["n_rows"], cfg["dim"]), np.float32, damaged)
        rows = arrays.get("key_rows")
        if rows is None and cfg.get("key_rows") is True:  # keys taken as rows would look up wrong vectors
            raise CtxvecError(Errors.E119.format(path=where, missing="key_rows"))
        if rows is not None:
            rows = _checked_array(rows, "key_rows", (len(keys),), np.int64, damaged)
            if len(rows) and (rows.min() < 0 or rows.max() >= len(vectors)):
                raise damaged(f"key_rows points outside the {len(vectors)} vector rows")
        subwords: Optional[Subwords] = None
        if cfg["kind"] == "fasttext":
            ngrams = _checked_array(arrays.get("ngrams"), "ngrams", (cfg["bucket"], cfg["dim"]), np.float32, damaged)
            subwords = FastTextNgrams(ngrams, cfg["min_n"], cfg["max_n"], cfg["bucket"])
        elif cfg["kind"] == "wordpieces":
            subwords = WordpieceMean(tokenizer, vectors)
        table = cls(keys, vectors, rows=rows, subwords=subwords)
        for name, array in [("vectors", vectors)] + list(table.subwords.arrays().items() if table.subwords else []):
            n_bad, first = _non_finite_rows(array)
            if n_bad:
                raise damaged(f"{name} holds NaN or infinite values in {n_bad} row(s), the first at row {first}")
        return table

    def to_bytes(self, *, with_vectors: bool = True) -> bytes:
        """msgpack of what to_disk writes; ``with_vectors=False`` leaves out the vectors (and a
        wordpiece table's tokenizer): from_bytes then needs them given back."""
        msg: Dict[str, Any] = {
            "cfg": self._cfg(),
            "keys": self.keys,
            "vectors": np.ascontiguousarray(self.vectors) if with_vectors else None,
            "key_rows": None if self._identity_rows() else self.rows,
            "arrays": {}
            if self.subwords is None
            else {k: np.ascontiguousarray(v) for k, v in self.subwords.arrays().items()},
            "tokenizer": None,
        }
        if with_vectors and isinstance(self.subwords, WordpieceMean):
            with tempfile.TemporaryDirectory() as tmp:
                self.subwords.tokenizer.save_pretrained(tmp)
                msg["tokenizer"] = {f.name: f.read_bytes() for f in Path(tmp).iterdir() if f.is_file()}
        return srsly.msgpack_dumps(msg)

    @classmethod
    def from_bytes(
        cls, data: bytes, *, vectors: Optional[np.ndarray] = None, tokenizer: Any = None
    ) -> "StaticVectorTable":
        """Load what to_bytes wrote; damaged data is a coded error. ``vectors`` /
        ``tokenizer``: those to_bytes(with_vectors=False) left out."""
        where = "<bytes>"
        try:
            msg = srsly.msgpack_loads(data)
            if not isinstance(msg, dict):
                raise ValueError(f"expected a mapping, got {type(msg).__name__}")
            cfg, keys, extra = msg["cfg"], msg["keys"], msg["arrays"]
            arrays = {
                "vectors": msg["vectors"] if vectors is None else vectors,
                "key_rows": msg["key_rows"],
                "ngrams": extra.get("ngrams") if isinstance(extra, dict) else None,
            }
            files = msg["tokenizer"]
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
            raise CtxvecError(
                Errors.E134.format(path=where, problem=f"the bytes cannot be decoded ({type(err).__name__}: {err})")
            ) from None
        if isinstance(cfg, dict) and cfg.get("kind") == "wordpieces" and tokenizer is None:
            if not isinstance(files, dict) or not all(
                isinstance(k, str) and isinstance(v, bytes) for k, v in files.items()
            ):
                raise CtxvecError(Errors.E134.format(path=where, problem="the tokenizer files are missing"))
            with tempfile.TemporaryDirectory() as tmp:
                for name, content in files.items():
                    (Path(tmp) / Path(name).name).write_bytes(content)
                tokenizer = _load_tokenizer(Path(tmp), where)
        return cls._from_parts(where, cfg, keys, arrays, tokenizer)


def _checked_array(array: Any, name: str, shape: Tuple[int, ...], dtype: Any, damaged: Any) -> np.ndarray:
    """``array`` if it is an ndarray of this shape and dtype, else damaged(problem)."""
    if not isinstance(array, np.ndarray) or array.shape != shape or array.dtype != dtype:
        got = f"{array.shape} {array.dtype}" if isinstance(array, np.ndarray) else type(array).__name__
        raise damaged(f"{name} must be a {np.dtype(dtype).name} array of shape {shape}, got {got}")
    return array


def _same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays are views of the same memory with the same layout."""
    return (
        a.shape == b.shape
        and a.strides == b.strides
        and a.dtype == b.dtype
        and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    )


def _non_finite_rows(array: np.ndarray, chunk_rows: int = 65536) -> Tuple[int, int]:
    """(number of rows holding NaN or inf, index of the first), in chunks of rows."""
    n_bad, first = 0, -1
    for start in range(0, array.shape[0], chunk_rows):
        bad = np.flatnonzero(~np.isfinite(np.asarray(array[start : start + chunk_rows])).all(axis=1))
        if len(bad) and first < 0:
            first = start + int(bad[0])
        n_bad += len(bad)
    return n_bad, first


def _load_tokenizer(path: Path, where: Any) -> Any:
    from transformers import AutoTokenizer

    try:
        # a saved table is data: code its tokenizer_config.json names ("auto_map") never runs, asked or not
        return AutoTokenizer.from_pretrained(str(path), local_files_only=True, trust_remote_code=False)
    except Exception as err:  # the tokenizers library raises a bare Exception for a damaged tokenizer.json
        raise CtxvecError(
            Errors.E134.format(path=where, problem=f"the saved tokenizer cannot be loaded ({err})")
        ) from None


def named_arrays(table: StaticVectorTable) -> List[Tuple[str, np.ndarray]]:
    """The table's vector arrays by name: ("", the vectors), then its subword arrays."""
    return [("", table.vectors)] + list(table.subwords.arrays().items() if table.subwords else [])


def row_key(table: StaticVectorTable, array_name: str, row: int) -> Optional[str]:
    """The key of a row of ``named_arrays`` (a vectors row that has one), else None."""
    if array_name:
        return None
    return {r: key for key, r in zip(table.keys, table.rows.tolist())}.get(row)  # the last key of a shared row


def row_description(table: StaticVectorTable, array_name: str, row: int) -> str:
    """A row of ``named_arrays``, for an error: its key, else "row N" / "NAME row N"."""
    key = row_key(table, array_name, row)
    return key if key is not None else f"{array_name} row {row}" if array_name else f"row {row}"


def non_finite_rows(table: StaticVectorTable) -> Optional[Tuple[int, str]]:
    """(how many rows hold NaN or inf, the first of them described) of the first array of
    ``table`` that has such rows; None where every value is finite."""
    for name, array in named_arrays(table):
        n_bad, first_row = _non_finite_rows(array)
        if n_bad:
            return n_bad, row_description(table, name, first_row)
    return None


def check_finite(table: StaticVectorTable, path: PathLike) -> None:
    """Raise a coded error naming the file if any vector holds NaN or inf."""
    found = non_finite_rows(table)
    if found is not None:
        raise CtxvecError(Errors.E109.format(path=path, n_bad=found[0], first=found[1]))
