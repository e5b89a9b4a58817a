"""The ctxvec_static component: one static vector per token from a StaticVectorTable
(word2vec / GloVe / fastText file, or the transformer's input embeddings)."""

from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly
from spacy.attrs import LOWER, NORM, ORTH
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from ..attributes import STATIC_ARRAY, STATIC_KEYS, install_extensions, set_token_arrays
from ..component_names import warn_of_several
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..lexicon.export import sense_keyed
from ..ops.fingerprint import current_fingerprint, embedding_fingerprint
from ..registrations import factory
from ..static.sources import StaticSource, configure_transformer_embeddings, transformer_embeddings
from ..static.subwords import WordpieceMean
from ..static.table import (
    StaticVectorTable,
    check_lookups,
    named_arrays,
    non_finite_rows,
    row_description,
    row_key,
)
from ..static.text_vectors import MAX_DIM
from .base import STATIC_ASSIGNS, DocAnnotator, NlpRef, check_saved_directory, excluded, vector_dtype
from .transformer import register_fork_hook
from .transformer_lookup import find_transformer, no_transformer_fix

DEFAULT_STATIC_CONFIG = """
[ctxvec_static]
lookups = ["exact","lower","norm","subwords"]
dtype = "float32"
"""

FROM_TRANSFORMER = "table_from_transformer"  # cfg.json: the table is that transformer's input embeddings
STATIC_NO_TRANSFORMER_FIX = (
    'Set [initialize.components.{name}.source], e.g. @misc = "spacy-ctxvec.vectors_file.v1", '
    "or add a transformer before '{name}' to use its input embeddings."
)


STATIC_FACTORY = "ctxvec_static"


@factory(
    STATIC_FACTORY,
    default_config=Config().from_str(DEFAULT_STATIC_CONFIG)["ctxvec_static"],
    assigns=STATIC_ASSIGNS,
)
def make_static_vectors(nlp: Language, name: str, lookups: List[str], dtype: str) -> "StaticVectors":
    """Look every token up in a static vector table; see StaticVectors."""
    return StaticVectors(name=name, lookups=lookups, dtype=dtype, nlp=nlp)


def unique_rows(ids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(unique rows, inverse) of an (n, 3) ORTH/LOWER/NORM array. Deduplicates on
    ORTH alone (fast) unless some token's norm differs from another with the same text."""
    _, first, inverse = np.unique(ids[:, 0], return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if np.array_equal(ids[first][inverse], ids):
        return ids[first], inverse
    unique, inverse = np.unique(ids, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)


class StaticVectors(DocAnnotator):
    """Sets doc._.ctxvec_static (n_tokens, dim) and doc._.ctxvec_static_keys (int8
    codes into STATIC_KEY_NAMES: which lookup found each token; 0 = none, zero row).

    The table comes from the `source` given to initialize() (default: the input
    embeddings of the transformer before this component) and is saved with the
    pipeline as .npy + JSON."""

    def __init__(
        self,
        *,
        name: str = "ctxvec_static",
        lookups: Sequence[str] = ("exact", "lower", "norm", "subwords"),
        dtype: str = "float32",
        nlp: Optional[Language] = None,
    ) -> None:
        self.name = name
        self.lookups = check_lookups(lookups)
        self.dtype = vector_dtype(dtype, name)
        self.table: Optional[StaticVectorTable] = None
        # Only to name the real fix when the table is missing (E023); never keeps nlp alive.
        self._nlp_ref = NlpRef(nlp)
        install_extensions()
        register_fork_hook()

    def set_annotations(self, docs: Sequence[Doc]) -> None:
        for doc, (vectors, codes) in zip(docs, self.lookup_docs(docs)):
            set_token_arrays(doc, {STATIC_ARRAY: vectors, STATIC_KEYS: codes})

    def lookup_docs(self, docs: Sequence[Doc]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """(vectors (n_tokens, dim), codes (n_tokens,) int8) for each Doc; each unique
        (text, lower, norm) of the whole batch is looked up once."""
        table = self._require_table()
        if not docs:
            return []
        ids = np.concatenate([doc.to_array([ORTH, LOWER, NORM]).reshape(len(doc), 3) for doc in docs])
        unique, inverse = unique_rows(ids)
        owners = _owners(docs, inverse)
        texts, lowers, norms = (_strings_of(docs, unique[:, col], owners) for col in range(3))
        vectors, codes = table.lookup_batch(texts, lowers, norms, lookups=self.lookups)
        vectors = vectors.astype(self.dtype, copy=False)
        starts = np.cumsum([0] + [len(doc) for doc in docs])
        return [(vectors[inverse[a:b]], codes[inverse[a:b]]) for a, b in zip(starts[:-1], starts[1:])]

    def _require_table(self) -> StaticVectorTable:
        if self.table is None:
            if self.listed_frozen():
                raise CtxvecError(Errors.E023.format(name=self.name))
            raise CtxvecError(Errors.E114.format(name=self.name))
        return self.table

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        source: Optional[StaticSource] = None,
    ) -> None:
        """Build the table with ``source(nlp)``; without a source, use the input
        embeddings of the transformer before this component."""
        if nlp is not None:
            warn_of_several(nlp, self.name, STATIC_FACTORY, Warnings.W081)
        if source is None:
            if nlp is None:
                raise CtxvecError(
                    Errors.E008.format(
                        name=self.name, pipe_names=[], fix=STATIC_NO_TRANSFORMER_FIX.format(name=self.name)
                    )
                )
            source = configure_transformer_embeddings(self._transformer_before(nlp))
        elif nlp is not None:
            self._check_configured_path(nlp)
        if not callable(source):
            raise CtxvecError(Errors.E118.format(name=self.name, got=f"is {type(source).__name__}"))
        try:  # another kind of registered function named as the source (a pooling) fails here
            table = source(nlp)  # type: ignore[arg-type]  # a source may read files only, without nlp
        except (TypeError, AttributeError) as err:
            got = f"raised {type(err).__name__} when called with nlp ({err})"
            raise CtxvecError(Errors.E118.format(name=self.name, got=got)) from err  # a bug inside: its traceback
        if not isinstance(table, StaticVectorTable):
            raise CtxvecError(Errors.E118.format(name=self.name, got=f"returned {type(table).__name__}"))
        if len(table) == 0 or not 1 <= table.vectors.shape[1] <= MAX_DIM:  # the file readers' limits (E137, E132)
            problem = "of no words" if len(table) == 0 else f"of width {table.vectors.shape[1]:,}"
            raise CtxvecError(Errors.E146.format(name=self.name, problem=problem))
        if table.subwords is None and set(self.lookups) == {"subwords"}:
            warn_at_user_line(Warnings.W089.format(name=self.name, lookups=list(self.lookups)))
        if sense_keyed(table.keys):
            warn_at_user_line(Warnings.W093.format(name=self.name, example=table.keys[0]))
        found = non_finite_rows(table)
        if found is not None:  # saved, it would be refused at load as damaged (E134)
            named = getattr(source, "__qualname__", type(source).__name__)
            block = self._source_block(nlp)
            if isinstance(block, dict) and block.get("@misc"):
                named += f"; [initialize.components.{self.name}.source] names {block['@misc']}"
            raise CtxvecError(Errors.E141.format(name=self.name, source=named, n_bad=found[0], first=found[1]))
        self.table = self._fitting_dtype(table)

    def _source_block(self, nlp: Optional[Language]) -> Any:
        """[initialize.components.NAME.source] of the config, or None."""
        try:
            return nlp.config.interpolate()["initialize"]["components"][self.name]["source"]  # type: ignore[union-attr]
        except Exception:  # no pipeline, no such block, or a config that cannot be interpolated here
            return None

    def _check_configured_path(self, nlp: Language) -> None:
        """E024 when the config's vectors_file source has no path (configs/word2vec.cfg
        without --paths.static_vectors), instead of "'None' does not exist"."""
        block = self._source_block(nlp)
        if (
            isinstance(block, dict)
            and block.get("@misc") == "spacy-ctxvec.vectors_file.v1"
            and block.get("path") is None
        ):
            raise CtxvecError(Errors.E024.format(name=self.name))

    def _transformer_before(self, nlp: Language) -> str:
        try:
            return find_transformer(nlp, self.name)
        except CtxvecError as err:
            fix = f"{STATIC_NO_TRANSFORMER_FIX.format(name=self.name)} {no_transformer_fix(nlp, self.name)}"
            raise CtxvecError(Errors.E008.format(name=self.name, pipe_names=nlp.pipe_names, fix=fix)) from err

    # Serialization: .npy + JSON on disk (memory-mapped on load), msgpack in bytes.
    # exclude=["table"] leaves the table out when saving and keeps the current one when loading.
    # A table holding exactly the input embeddings of the transformer before this component
    # does not write them twice: cfg.json names that transformer; from_disk takes them from it.
    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        table = None if excluded("table", exclude) else self.table
        shared = self._transformer_copy(table)
        cfg: Dict[str, Any] = {"has_table": table is not None}
        if shared is not None:
            cfg[FROM_TRANSFORMER] = {"transformer": shared[0], "fingerprint": shared[1]}
        srsly.write_json(path / "cfg.json", cfg)
        if table is not None:
            table.to_disk(path / "table", with_vectors=shared is None)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "StaticVectors":
        if excluded("table", exclude):
            return self
        path = check_saved_directory(path, self.name)
        try:
            cfg = srsly.read_json(path / "cfg.json")
        except (ValueError, OSError) as err:
            raise CtxvecError(Errors.E134.format(path=path, problem=f"cfg.json cannot be read ({err})")) from None
        if not _has_table(cfg, path):
            self.table = None
        elif FROM_TRANSFORMER in cfg:
            vectors, tokenizer = self._transformer_parts(cfg[FROM_TRANSFORMER], path)
            self.table = self._fitting_dtype(
                StaticVectorTable.from_disk(path / "table", vectors=vectors, tokenizer=tokenizer)
            )
        else:
            self.table = self._fitting_dtype(StaticVectorTable.from_disk(path / "table"))
        return self

    def _transformer_copy(self, table: Optional[StaticVectorTable]) -> Optional[Tuple[str, str]]:
        """(transformer name, embedding fingerprint) where ``table`` holds exactly the input
        embeddings and tokenizer of the transformer before this component, in the one pipeline
        holding it; else None (the table is saved whole): copied into another pipeline
        (add_pipe(source=...)), the same object is in both, and either may be the one saved."""
        holders = self.holding_pipelines()
        if len(holders) != 1 or table is None or not isinstance(table.subwords, WordpieceMean):
            return None
        nlp = holders[0]
        try:
            transformer = find_transformer(nlp, self.name)
            pipe: Any = nlp.get_pipe(transformer)
            hf_model, tokenizer = pipe.model.transformer, pipe.model.tokenizer
        except (CtxvecError, AttributeError, ValueError):  # no transformer, or its model is not loaded
            return None
        if hf_model is None or tokenizer is not table.subwords.tokenizer:
            return None
        weight = hf_model.get_input_embeddings().weight.detach().float().cpu().numpy()
        if weight.shape != table.vectors.shape or not np.array_equal(weight, table.vectors):
            return None
        return transformer, embedding_fingerprint(weight)

    def _transformer_parts(self, saved: Any, path: Union[Path, str]) -> Tuple[np.ndarray, Any]:
        """The vectors and tokenizer to_disk (or to_bytes) left with the transformer, from the loaded one."""
        if not isinstance(saved, dict) or not isinstance(saved.get("transformer"), str):
            where = "cfg.json: " if path != "<bytes>" else ""
            raise CtxvecError(Errors.E134.format(path=path, problem=f"{where}{FROM_TRANSFORMER} is {saved!r}"))
        transformer = saved["transformer"]

        def fail(problem: str) -> CtxvecError:
            return CtxvecError(Errors.E140.format(name=self.name, path=path, transformer=transformer, problem=problem))

        nlp = self.pipeline()
        if nlp is None:
            raise fail("this component was loaded outside a pipeline")
        try:
            vectors, tokenizer = transformer_embeddings(nlp, transformer)
        except CtxvecError as err:
            raise fail(f"the pipeline's '{transformer}' cannot give them ({err})") from None
        if embedding_fingerprint(vectors) != current_fingerprint(str(saved.get("fingerprint"))):
            raise fail("the loaded transformer's input embeddings are not the ones saved with it")
        return vectors, tokenizer

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        table = None if excluded("table", exclude) else self.table
        shared = self._transformer_copy(table)
        msg: Dict[str, Any] = {"table": None if table is None else table.to_bytes(with_vectors=shared is None)}
        if shared is not None:  # as to_disk: the transformer's bytes hold them
            msg[FROM_TRANSFORMER] = {"transformer": shared[0], "fingerprint": shared[1]}
        return srsly.msgpack_dumps(msg)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "StaticVectors":
        if excluded("table", exclude):
            return self
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except (ValueError, TypeError) as err:
            raise CtxvecError(
                Errors.E134.format(path="<bytes>", problem=f"the bytes cannot be decoded ({err})")
            ) from None
        if not isinstance(msg, dict) or not (msg.get("table") is None or isinstance(msg.get("table"), bytes)):
            raise CtxvecError(
                Errors.E134.format(path="<bytes>", problem="expected a mapping with the table's bytes under 'table'")
            )
        if msg["table"] is None:
            self.table = None
        elif FROM_TRANSFORMER in msg:
            vectors, tokenizer = self._transformer_parts(msg[FROM_TRANSFORMER], "<bytes>")
            self.table = self._fitting_dtype(
                StaticVectorTable.from_bytes(msg["table"], vectors=vectors, tokenizer=tokenizer)
            )
        else:
            self.table = self._fitting_dtype(StaticVectorTable.from_bytes(msg["table"]))
        return self

    def _fitting_dtype(self, table: StaticVectorTable) -> StaticVectorTable:
        """``table``, or E139 where a value would not fit this component's dtype (float16),
        E142 where a row's values are all too small for it (a zero vector in float16)."""
        limit = float(np.finfo(self.dtype).max)
        for array_name, array in named_arrays(table):
            largest_in_row = np.abs(array).max(axis=1) if array.size else np.zeros(0)
            with np.errstate(over="ignore"):  # a value beyond the dtype is E139 below, not numpy's overflow warning
                vanished = np.flatnonzero((largest_in_row > 0) & (largest_in_row.astype(self.dtype) == 0))
            too_large = np.flatnonzero(largest_in_row > limit)
            for rows, error in ((too_large, Errors.E139), (vanished, Errors.E142)):
                if len(rows):
                    row = int(largest_in_row.argmax()) if error is Errors.E139 else int(rows[0])
                    key = row_key(table, array_name, row)
                    where = f"key {key!r}" if key is not None else row_description(table, array_name, row)
                    details = {"largest": float(largest_in_row[row]), "where": where, "n_rows": len(rows)}
                    raise CtxvecError(error.format(name=self.name, dtype=self.dtype.name, limit=limit, **details))
        return table


def _has_table(cfg: Any, path: Path) -> bool:
    """cfg.json's has_table flag, checked (a damaged file is E134, not a KeyError)."""
    if not isinstance(cfg, dict) or not isinstance(cfg.get("has_table"), bool):
        raise CtxvecError(
            Errors.E134.format(path=path, problem=f'cfg.json needs "has_table": true or false, got {str(cfg)[:100]!r}')
        )
    return cfg["has_table"]


def _owners(docs: Sequence[Doc], inverse: np.ndarray) -> Optional[np.ndarray]:
    """For each unique row of the Docs' tokens laid end to end (``inverse`` maps each token
    to its row), a Doc that holds it; None where all the Docs share one vocab."""
    if all(doc.vocab is docs[0].vocab for doc in docs):
        return None
    doc_of_token = np.repeat(np.arange(len(docs)), [len(doc) for doc in docs])
    return doc_of_token[np.unique(inverse, return_index=True)[1]]


def _strings_of(docs: Sequence[Doc], hashes: np.ndarray, owners: Optional[np.ndarray]) -> List[str]:
    """The string of each of ``hashes``, read in the vocab of the Doc that holds it
    (``_owners``): a batch may mix Docs of several vocabs (nlp.pipe over Docs made elsewhere)."""
    if owners is None:
        strings = docs[0].vocab.strings
        return [strings[int(h)] for h in hashes]
    return [docs[int(d)].vocab.strings[int(h)] for h, d in zip(hashes, owners)]
