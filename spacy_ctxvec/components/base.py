"""Base class of the spacy-ctxvec components: a Pipe that annotates Docs one at a time."""

import os
import sys
import threading
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.util import raise_error

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_MASK,
    CONTEXT_SOURCE,
    POLYSEMY_ARRAY,
    SENSE_ARRAY,
    SENSE_LABELS,
    SENSE_VECTORS,
    STATIC_ARRAY,
    STATIC_KEYS,
    install_extensions,
)
from ..errors import CtxvecError, Errors

SUPPORTED_DTYPES = ("float32", "float16")


def assigned(doc_arrays: str, token_attrs: str, mean_attr: str) -> List[str]:
    """What a factory sets, as spaCy's ``assigns`` names it (``"token._.name"``, for nlp.analyze_pipes):
    its Doc arrays, the token attributes read from them and the span and Doc mean."""
    return (
        [f"doc._.{name}" for name in doc_arrays.split()]
        + [f"token._.{name}" for name in token_attrs.split()]
        + [f"span._.{mean_attr}", f"doc._.{mean_attr}"]
    )


CONTEXT_ASSIGNS = assigned(
    f"{CONTEXT_ARRAY} {CONTEXT_MASK} {CONTEXT_SOURCE}", "context_vec has_context_vec", "context_vec"
)
STATIC_ASSIGNS = assigned(f"{STATIC_ARRAY} {STATIC_KEYS}", "static_vec has_static_vec static_vec_key", "static_vec")
SENSE_ATTRS = "sense n_senses sense_vec sense_score sense_label corpus_polysemy"
POLYSEMY_ASSIGNS = assigned(
    f"{POLYSEMY_ARRAY} {SENSE_ARRAY} {SENSE_VECTORS} {SENSE_LABELS}",
    f"polysemy_score polysemy_count context_shift {SENSE_ATTRS}",
    "sense_vec",
)
# spaCy's Pipe keeps ``name`` in a C slot (its own methods read it there).
_PIPE_NAME: Any = Pipe.__dict__["name"]
# The Language methods that set a component's name while placing it in their pipeline: sourcing
# it (add_pipe(source=...)) and the link step after every add_pipe, remove_pipe, rename_pipe,
# replace_pipe and load.
_PLACING = ("create_pipe_from_source", "_link_components")
# spaCy tokens per batch of Docs in nlp.pipe, besides batch_size Docs: Docs holding
# transformer outputs leave a batch before long texts pile them up.
MAX_BATCH_TOKENS = 32768
# The last Doc of each buffer a ctxvec_transformer ran, held weakly: the ctxvec components close
# a batch there too, so none reads a Doc of the next buffer (which would make the transformer run
# it while this buffer's outputs are still held), whatever pipeline, copy or bounds they have.
BUFFER_ENDS: "weakref.WeakSet[Doc]" = weakref.WeakSet()
# How many calls of each component (by id) are annotating at this moment, from any thread.
_RUNNING: Dict[int, int] = {}
_RUNNING_LOCK = threading.Lock()


def _forget_running_calls() -> None:
    """A forked child (nlp.pipe(n_process=...)) runs none of its parent's calls."""
    global _RUNNING_LOCK
    _RUNNING_LOCK = threading.Lock()
    _RUNNING.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_forget_running_calls)


def vector_dtype(dtype: str, name: str) -> np.dtype:
    """The numpy dtype for component ``name``'s ``dtype`` setting; anything else is E005."""
    if dtype not in SUPPORTED_DTYPES:
        raise CtxvecError(Errors.E005.format(dtype=dtype, name=name))
    return np.dtype(dtype)


class NlpRef:
    """A weak reference to the pipeline a component belongs to (to name the real fix
    in error messages); pickles as an empty reference, never keeps nlp alive."""

    def __init__(self, nlp: Optional[Language] = None) -> None:
        self._ref = weakref.ref(nlp) if nlp is not None else None

    def __call__(self) -> Optional[Language]:
        return self._ref() if self._ref is not None else None

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self._ref = None


def read_cfg(path: Path, name: str) -> Dict[str, Any]:
    """A component's saved ``cfg.json`` at ``path`` ({} where there is none); E062 naming the
    file where it is damaged (spacy.load said only "Expected object or value")."""
    if not path.exists():
        return {}
    try:
        cfg = srsly.read_json(path)
    except (OSError, ValueError, RecursionError) as err:
        raise CtxvecError(Errors.E062.format(path=path, name=name, problem=f"{type(err).__name__}: {err}")) from None
    if not isinstance(cfg, dict):
        raise CtxvecError(Errors.E062.format(path=path, name=name, problem=f"not a JSON object: {str(cfg)[:60]}"))
    return cfg


def check_saved_directory(path: Union[str, Path], name: str) -> Path:
    """``path``, a component's saved directory; E068 where it is missing (spaCy's own components fail
    there too; ours loaded empty or blamed a damaged file)."""
    if not Path(path).is_dir():
        raise CtxvecError(Errors.E068.format(path=path, name=name))
    return Path(path)


def excluded(field: str, exclude: Iterable[str]) -> bool:
    """Whether a serialisation ``exclude`` list leaves out ``field``."""
    return field in set(exclude)


def unpickled(reconstruct: Callable[..., Any], args: Sequence[Any]) -> Any:
    """A component made by unpickling (a pipeline sent to another process): its factory,
    which registers the token attributes, does not run there, so this does."""
    install_extensions()
    return reconstruct(*args)


class RegistersOnUnpickle:
    """Mixin of our components: unpickled, they register the token attributes (``unpickled``)."""

    def __reduce__(self) -> Any:
        reduced = cast(Tuple[Any, ...], super().__reduce__())  # spaCy's Pipe: (reconstruct, args, state)
        return (unpickled, (reduced[0], reduced[1]), *reduced[2:])


class DocAnnotator(RegistersOnUnpickle, Pipe):
    """__call__ and pipe over ``set_annotations``; subclasses implement that."""

    _nlp_ref: Optional[NlpRef] = None  # set by the factory: the pipeline it runs in

    @property  # type: ignore[override]
    def name(self) -> str:
        return _PIPE_NAME.__get__(self)

    @name.setter
    def name(self, value: str) -> None:
        """spaCy names a component as it places it in a pipeline and passes no pipeline: the
        caller that places it is that pipeline, noted so that a component copied into another
        pipeline (add_pipe(source=...), the same object in both) knows both (holding_pipelines)."""
        _PIPE_NAME.__set__(self, value)
        caller = sys._getframe(1)
        placing = caller.f_locals.get("self") if caller.f_code.co_name in _PLACING else None
        if isinstance(placing, Language):
            kept = [ref for ref in getattr(self, "_placements", []) if ref() is not None and ref() is not placing]
            self._placements = [*kept, NlpRef(placing)]

    def holding_pipelines(self) -> List[Language]:
        """The live pipelines that hold this component (enabled or not): the one it was made or
        last initialized in and those spaCy placed it in since; none in a pickled copy."""
        found: List[Language] = []
        for ref in (getattr(self, "_nlp_ref", None), *getattr(self, "_placements", ())):
            nlp = None if ref is None else ref()
            if nlp is None or any(nlp is other for other in found):
                continue
            if any(pipe is self for _, pipe in nlp.components):
                found.append(nlp)
        return found

    def copied_pipeline(self, doc: Optional[Doc] = None) -> Tuple[Optional[Language], bool]:
        """Where pipelines other than the one this component was made in hold it (copied with
        add_pipe(source=...)): (the one of ``doc``'s vocab, or the one copy alone; False), or
        (None, True) where several hold it and ``doc``'s vocab does not tell which; else (None, False)."""
        holders = self.holding_pipelines()
        if len(holders) > 1:
            of_doc = [nlp for nlp in holders if doc is not None and nlp.vocab is doc.vocab]
            return (of_doc[0], False) if len(of_doc) == 1 else (None, True)
        if len(holders) == 1 and holders[0] is not self.pipeline():
            return holders[0], False
        return None, False

    def __call__(self, doc: Doc) -> Doc:
        install_extensions()
        self._annotate([doc])
        return doc

    def _annotate(self, docs: Sequence[Doc]) -> None:
        """``set_annotations``, noting calls that overlap (threads sharing this component):
        ``on_overlapping_calls`` is told of each, while both run."""
        with _counted_call(id(self)) as running:
            if running > 1:
                self.on_overlapping_calls()
            self.set_annotations(docs)

    def on_overlapping_calls(self) -> None:
        """Called where two calls of this component run at once (threads sharing a pipeline)."""

    def pipeline(self) -> Optional[Language]:
        """The pipeline this component runs in (its NlpRef), None where it has none (a
        component made outside a pipeline, or a pickled copy)."""
        ref = getattr(self, "_nlp_ref", None)
        return None if ref is None else ref()

    def listed_frozen(self) -> bool:
        """Whether its pipeline's [training] frozen_components lists it: spaCy (spacy train's
        init_nlp) does not initialize those, so what its [initialize] block asks for is not made."""
        nlp = self.pipeline()
        return nlp is not None and self.name in nlp.config.get("training", {}).get("frozen_components", [])

    def running_pipeline(self) -> Optional[Language]:
        """``pipeline()`` where this component is one of its components (enabled or not): a
        component sourced into another pipeline (add_pipe(source=...)) is the same object."""
        nlp = self.pipeline()
        return nlp if nlp is not None and any(pipe is self for _, pipe in nlp.components) else None

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Annotate batches of at most ``batch_size`` Docs and MAX_BATCH_TOKENS tokens, each closed at
        the end of a ctxvec_transformer buffer too (BUFFER_ENDS). Where
        a batch fails and a handler is set with nlp.set_error_handler, its Docs are tried
        one at a time, so that the handler gets only the Docs that fail and the others come
        through (spaCy's default handler re-raises at once)."""
        error_handler = self.get_error_handler()
        name = getattr(self, "name", type(self).__name__)
        for docs in token_bounded_batches(stream, batch_size, MAX_BATCH_TOKENS, ends=BUFFER_ENDS):
            install_extensions()  # E022 where an attribute was registered again since (force=True): it read None
            try:
                self._annotate(docs)
                failed = None
            except Exception as err:
                failed = err
            if failed is None:
                yield from docs
            elif error_handler is raise_error or len(docs) == 1:
                error_handler(name, self, docs, failed)
            else:  # outside the except block: a handler that raises shows its own error alone
                yield from self._one_at_a_time(docs, name, error_handler)

    def _one_at_a_time(self, docs: Sequence[Doc], name: str, error_handler: Callable) -> Iterator[Doc]:
        for doc in docs:
            try:
                self._annotate([doc])
            except Exception as err:
                error_handler(name, self, [doc], err)
                continue
            yield doc

    def set_annotations(self, docs: Sequence[Doc]) -> None:  # type: ignore[override]
        raise NotImplementedError


@contextmanager
def _counted_call(key: int) -> Iterator[int]:
    """Count a call of the component ``key`` while it runs; yields how many run now, this one included."""
    with _RUNNING_LOCK:
        running = _RUNNING[key] = _RUNNING.get(key, 0) + 1
    try:
        yield running
    finally:
        with _RUNNING_LOCK:
            left = _RUNNING.pop(key, 1) - 1  # none where a fork in between forgot the parent's calls
            if left > 0:
                _RUNNING[key] = left


def token_bounded_batches(
    docs: Iterable[Doc], max_docs: int, max_tokens: int, ends: Optional["weakref.WeakSet[Doc]"] = None
) -> Iterator[List[Doc]]:
    """Consecutive Docs in order; a batch closes once it holds ``max_docs`` Docs or at least
    ``max_tokens`` tokens (so at most ``max_tokens`` plus its last Doc's), or at a Doc in
    ``ends``. It never reads the Doc after it to decide (which would make the component
    before run its next batch)."""
    batch: List[Doc] = []
    tokens = 0
    for doc in docs:
        batch.append(doc)
        tokens += len(doc)
        if len(batch) >= max_docs or tokens >= max_tokens or (ends is not None and doc in ends):
            yield batch
            batch, tokens = [], 0
    if batch:
        yield batch
