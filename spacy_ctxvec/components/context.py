"""The ctxvec_context component: one contextual vector per token, pooled from the
wordpiece outputs that the transformer component already computed."""

from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
import srsly
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_COMPONENT,
    CONTEXT_MASK,
    CONTEXT_SOURCE,
    TRANSFORMER_MODEL,
    install_extensions,
    set_doc_value,
    set_token_arrays,
    stored_array,
)
from ..component_names import warn_of_several
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..ops.alignment import read_with_another_as
from ..ops.layers import repeated_layer
from ..ops.text import has_word_character, printable
from ..registrations import factory
from ..types import PoolingFn
from . import vector_hooks
from .base import CONTEXT_ASSIGNS, DocAnnotator, NlpRef, excluded, read_cfg, vector_dtype
from .choices import LayerSelection, checked_choices, stored_vectors, vectors_label
from .lost_tokens import N_EXAMPLES, warn_of_lost_tokens
from .model_inputs import FingerprintCache, transformer_fingerprint
from .tokenizer_checks import check_transformer_tokenizer
from .transformer import (
    all_hidden_states,
    check_no_retokenizer_between,
    outputs_hidden_states,
    pool_batch,
    pool_trf_data,
    register_fork_hook,
    to_numpy,
    wordpiece_alignment,
)
from .transformer_lookup import find_transformer, missing_trf_data_error, unknown_piece_of, warn_if_not_thread_safe
from .trf_data_readers import has_listener_layer, linked_readers, pipeline_key, readers_in, trf_data_readers_after
from .vector_hooks import add_vector_hooks

DEFAULT_CONTEXT_CONFIG = """
[ctxvec_context]
dtype = "float32"
drop_trf_data = false
set_vector_hooks = false

[ctxvec_context.pooling]
@misc = "spacy-ctxvec.mean_pooling.v1"

[ctxvec_context.layers]
@misc = "spacy-ctxvec.last_layer.v1"
"""


@factory(
    "ctxvec_context",
    default_config=Config().from_str(DEFAULT_CONTEXT_CONFIG)["ctxvec_context"],
    assigns=CONTEXT_ASSIGNS,
    requires=["doc._.trf_data"],
)
def make_context_vectors(
    nlp: Language,
    name: str,
    pooling: PoolingFn,
    layers: LayerSelection,
    dtype: str,
    drop_trf_data: bool,
    set_vector_hooks: bool,
) -> "ContextVectors":
    """Pool doc._.trf_data into token._.context_vec; see ContextVectors."""
    return ContextVectors(
        name=name,
        pooling=pooling,
        layers=layers,
        dtype=dtype,
        drop_trf_data=drop_trf_data,
        set_vector_hooks=set_vector_hooks,
        nlp=nlp,
    )


class ContextVectors(DocAnnotator):
    """Sets doc._.ctxvec_context (n_tokens, width) and doc._.ctxvec_context_mask from
    doc._.trf_data. Tokens with no wordpiece get zeros and a False mask, as do tokens the
    tokenizer read together with another as one unknown piece ('bank\U0001f602', [CTX-W070]).

    ``drop_trf_data`` empties doc._.trf_data once the vectors are pooled, unless a
    later component reads it (a TransformerListener, e.g. an NER head, or a component
    that requires doc._.trf_data): then it is kept (``trf_data_readers`` names them)."""

    # spaCy's link step (Language._link_components, run by add_pipe, remove_pipe,
    # replace_pipe, rename_pipe and loading) resets ``listener_map`` and hands every later
    # component to ``find_listeners``, for the components others listen to
    # (spacy.ty.ListenedToComponent). ctxvec_context takes part to learn what follows it
    # in the pipeline it was last linked into, also when it is sourced into another
    # pipeline; nothing listens to it, and it has no model.
    model = None

    def __init__(
        self,
        *,
        name: str = "ctxvec_context",
        pooling: PoolingFn,
        layers: LayerSelection,
        dtype: str = "float32",
        drop_trf_data: bool = False,
        set_vector_hooks: bool = False,
        nlp: Optional[Language] = None,
    ) -> None:
        self.dtype = vector_dtype(dtype, name)
        self.name = name
        self.pooling, self.layers = checked_choices(name, pooling, layers)
        self.drop_trf_data = drop_trf_data
        self.set_vector_hooks = set_vector_hooks
        self.width: Optional[int] = None
        self.transformer_name: Optional[str] = None
        # Later components that read doc._.trf_data, with the pipeline they were found in.
        self._readers: List[str] = []
        self._readers_key: Any = None
        # The components after this one where it was last linked: (name, id, kind), kind
        # "transformer", "reader" or "other" (linked_kind); None before any link step.
        self._linked: Optional[List[Tuple[str, int, str]]] = None
        # ((hidden states, model fingerprint), vectors_label) of the last batch
        self._label: Optional[Tuple[Tuple[Optional[int], Optional[str]], str]] = None
        self._warned_lost_tokens = False  # W046 once per component (lost_tokens)
        self._warned_glued = False  # W070 once per component
        # (id, text) of the transformer tokenizer's unknown piece, as last found (_unknown_piece)
        self._unknown: Optional[Tuple[int, str]] = None
        # Only to name the real fix when trf_data is missing (E001); never keeps nlp alive.
        self._nlp_ref = NlpRef(nlp)
        install_extensions()
        register_fork_hook()

    def set_annotations(self, docs: Sequence[Doc]) -> None:
        emptied = None
        if self.drop_trf_data and not self._readers_of(docs):
            from spacy_transformers.data_classes import TransformerData

            emptied = TransformerData.empty()  # one per batch: it holds nothing
        pooled, label = self._pool_batch(docs)
        if not getattr(self, "_warned_lost_tokens", False):  # absent in a component pickled before
            self._warned_lost_tokens = warn_of_lost_tokens(docs, [mask for _, mask, _ in pooled], self.name)
        self._warn_of_glued(docs, [glued for _, _, glued in pooled])
        for doc, (vectors, mask, glued) in zip(docs, pooled):
            vectors[glued] = 0
            set_token_arrays(doc, {CONTEXT_ARRAY: vectors, CONTEXT_MASK: mask & ~glued})
            set_doc_value(doc, CONTEXT_SOURCE, label if len(doc) else None)  # an empty Doc: none, alone or not
            if self.set_vector_hooks:
                add_vector_hooks(doc)
        if emptied is not None:  # only once every Doc is annotated: a failing batch is tried again Doc by Doc
            for doc in docs:
                doc._.trf_data = emptied

    @property
    def trf_data_readers(self) -> List[str]:
        """The components after this one (in its pipeline as it runs now) that read
        doc._.trf_data; drop_trf_data frees it only when there are none. In a pipeline
        it was sourced into, the components after it (those whose reading is not known,
        e.g. plain function components, count as readers); held by several pipelines,
        those of every one; in a pickled copy, the readers when it was pickled."""
        return self._readers_of(())

    def _own_readers(self) -> List[str]:
        nlp = self.running_pipeline()  # its own pipeline, holding it: a copy's link record is stale
        linked = getattr(self, "_linked", None)
        if nlp is not None:
            key = pipeline_key(nlp)
            if key != getattr(self, "_readers_key", None):
                self._readers = trf_data_readers_after(nlp, self.name)
                self._readers_key = key
            return self._readers
        if linked is not None:
            return linked_readers(linked)
        return getattr(self, "_readers", [])

    def _readers_of(self, docs: Sequence[Doc]) -> List[str]:
        """trf_data_readers where ``docs`` run: a component several pipelines hold (add_pipe(source=...))
        was last linked in one of them, so each is asked: the one of the Docs' vocab, else every one;
        one pipeline that is not its own (that one is gone) is asked itself, not the last link."""
        holders, own = self.holding_pipelines(), self.pipeline()
        if len(holders) > 1:
            of_docs = [nlp for nlp in holders if docs and nlp.vocab is docs[0].vocab]
            return readers_in(of_docs if len(of_docs) == 1 else holders, self, own=own, kind=linked_kind)
        if holders and holders[0] is not own:
            return readers_in(holders, self, own=own, kind=linked_kind)
        return self._own_readers()

    def _linked_in(self, nlp: Language, linked: List[Tuple[str, int, str]]) -> bool:
        """Whether ``nlp`` holds this component followed, in order, by every component it
        was last linked with: the pipeline it was last linked into. Components disabled
        when it was linked (spacy.load(disable=...)) are not linked, and enabling them
        does not link again, so they may come in between."""
        components = nlp.components  # disabled ones too
        position = next((i for i, (_, pipe) in enumerate(components) if pipe is self), None)
        if position is None:
            return False
        after = iter(id(pipe) for _, pipe in components[position + 1 :])
        return all(any(pipe_id == other for other in after) for _, pipe_id, _ in linked)

    # spacy.ty.ListenedToComponent, see ``model`` above.
    @property
    def vectors_label(self) -> Optional[str]:
        """How the last batch's vectors were made ("the last layer, pooled by pool_mean,
        model 234c..."), as doc._.ctxvec_context_source records it; None before any batch."""
        label = getattr(self, "_label", None)
        return None if label is None else label[1]

    @property
    def listener_map(self) -> Dict[str, List[Any]]:
        return {}

    @listener_map.setter
    def listener_map(self, value: Dict[str, List[Any]]) -> None:
        self._linked = []  # a link step starts

    @property
    def listeners(self) -> List[Any]:
        return []

    @property
    def listening_components(self) -> List[str]:
        return []

    def add_listener(self, listener: Any, component_name: str) -> None:
        """Nothing listens to ctxvec_context."""

    def remove_listener(self, listener: Any, component_name: str) -> bool:
        return False

    def find_listeners(self, component: Any) -> None:
        """Record a component that comes after this one in the pipeline being linked."""
        linked = getattr(self, "_linked", None)
        if linked is None:
            linked = self._linked = []
        # A function component has no name of its own: its function's name stands in.
        name = getattr(component, "name", None) or getattr(component, "__name__", type(component).__name__)
        linked.append((str(name), id(component), linked_kind(component)))

    def on_overlapping_calls(self) -> None:
        if not getattr(self, "_threads_checked", False):  # W088 at most once
            self._threads_checked = True
            warn_if_not_thread_safe(self.running_pipeline(), self.transformer_name, self.name)

    def _trf_data(self, doc: Doc) -> Any:
        trf_data = doc._.get("trf_data") if Doc.has_extension("trf_data") else None
        if trf_data is not None and not hasattr(trf_data, "align"):  # spacy-curated-transformers' output
            raise CtxvecError(Errors.E057.format(name=self.name, kind=type(trf_data).__qualname__))
        n_aligned = 0 if trf_data is None else len(trf_data.align.lengths)
        if trf_data is not None and n_aligned == len(doc):
            return trf_data
        if n_aligned == 0:  # none, or spacy-transformers' empty default (a Doc it never saw)
            nlp = self.running_pipeline()  # a Doc of another vocab: this component was sourced into another pipeline
            raise missing_trf_data_error(doc, nlp if nlp is not None and doc.vocab is nlp.vocab else None, self.name)
        raise CtxvecError(Errors.E045.format(name=self.name, n_tokens=len(doc), n_aligned=n_aligned))

    def _pool_batch(self, docs: Sequence[Doc]) -> Tuple[List[Tuple[np.ndarray, np.ndarray, np.ndarray]], Optional[str]]:
        """(vectors, whether each token has wordpieces, whether it was read with another as
        one unknown piece) of each Doc, and how they were made (vectors_label; None for
        a batch of empty Docs): the rows of all Docs gathered, combined and pooled at once
        (pooling and layer combination work token by token)."""
        trf_datas = [self._trf_data(doc) for doc in docs]
        lengths = [np.asarray(to_numpy(trf_data.align.lengths), dtype=np.int64) for trf_data in trf_datas]
        filled = [k for k, doc in enumerate(docs) if len(doc)]
        pooled = np.zeros((0, 0), dtype=self.dtype)
        if filled:
            transformer = self.transformer_name or "transformer"
            pooled = pool_batch([trf_datas[k] for k in filled], self.pooling, self.layers, transformer, self.name)
            pooled = stored_vectors(self.name, pooled, self.dtype)
            self.width = pooled.shape[1]
        results, start, width = [], 0, self.width  # an empty Doc: the width of the others
        unknown = self._unknown_piece()
        for doc, trf_data, doc_lengths in zip(docs, trf_datas, lengths):
            if len(doc) == 0:
                none = np.zeros(0, dtype=bool)
                results.append((np.zeros((0, width or 0), dtype=self.dtype), none, none))
                continue
            glued = _read_with_another_as_unknown(doc, trf_data, unknown)
            results.append((pooled[start : start + len(doc)].copy(), doc_lengths > 0, glued))
            start += len(doc)
        return results, self._vectors_label(docs[filled[0]], trf_datas[filled[0]]) if filled else None

    def _unknown_piece(self) -> Optional[Tuple[int, str]]:
        """(id, text) of the unknown piece of the tokenizer of the transformer this component
        reads, found in the pipeline it runs in (in a pickled copy, as found when pickled);
        None where it has none or no pipeline is known."""
        nlp = self.running_pipeline()
        if nlp is not None:
            try:
                transformer = nlp.get_pipe(find_transformer(nlp, self.name))
            except CtxvecError:  # none before it: E001 or E008 tell the user elsewhere
                return None
            self._unknown = unknown_piece_of(transformer)
        return getattr(self, "_unknown", None)  # absent in a component pickled before

    def _warn_of_glued(self, docs: Sequence[Doc], glued: Sequence[np.ndarray]) -> None:
        """W070 once per component, for the first Doc with tokens read with another as one unknown piece."""
        found = next(((doc, flags) for doc, flags in zip(docs, glued) if flags.any()), None)
        if found is None or getattr(self, "_warned_glued", False):
            return
        doc, flags = found
        words = dict.fromkeys(doc[int(i)].text[:20] for i in np.flatnonzero(flags))
        examples = ", ".join(f"'{printable(word)}'" for word in list(words)[:N_EXAMPLES])
        unk = (self._unknown_piece() or (0, "[UNK]"))[1]
        warn_at_user_line(Warnings.W070.format(component=self.name, examples=examples, unk=unk))
        self._warned_glued = True

    def _vectors_label(self, doc: Doc, trf_data: Any) -> str:
        """vectors_label of ``doc``'s vectors, naming the transformer's model where it
        marked the Doc (ctxvec_transformer does)."""
        hidden_states = trf_data.model_output.get("hidden_states") if self.layers.needs_hidden_states else None
        n_hidden = None if hidden_states is None else len(hidden_states)
        model = stored_array(doc, TRANSFORMER_MODEL)
        if model is None:  # a transformer that marks nothing (spacy-transformers' own)
            model = self._transformer_model(doc)
        label = getattr(self, "_label", None)  # pickled by an earlier version: none
        if label is None or label[0] != (n_hidden, model):
            label = self._label = ((n_hidden, model), vectors_label(self.layers, self.pooling, n_hidden, model))
        return label[1]

    def _transformer_model(self, doc: Optional[Doc] = None) -> Optional[str]:
        """The fingerprint of the weights of the transformer before this component in the
        pipeline it runs ``doc`` in, for Docs their transformer did not mark: the one pipeline
        holding it, or, copied into others (add_pipe(source=...)), the one of ``doc``'s vocab
        (None and W073 where several share it); else the one it was last initialized or
        linked in; in a pickled copy (nlp.pipe(n_process=...) with spawn), the one found when
        it was pickled; None where that pipeline or its model is not known."""
        cache = getattr(self, "_model_fingerprints", None)  # pickled by an earlier version: none
        copied_into, shared = self.copied_pipeline(doc)
        if shared:
            self._warn_shared()
            return None
        nlp = copied_into if copied_into is not None else self.pipeline()
        if nlp is None:
            return None if cache is None else cache.last
        if copied_into is None:
            linked = getattr(self, "_linked", None)
            if not (
                self._linked_in(nlp, linked) if linked is not None else any(pipe is self for _, pipe in nlp.components)
            ):
                return None
        if cache is None:
            cache = self._model_fingerprints = FingerprintCache()
        return transformer_fingerprint(nlp, self.name, cache)

    def _warn_shared(self) -> None:
        if not getattr(self, "_warned_shared", False):  # W073 once per component
            names = "; ".join(str(nlp.pipe_names) for nlp in self.holding_pipelines())
            warn_at_user_line(Warnings.W073.format(name=self.name, pipelines=names))
            self._warned_shared = True

    def initialize(
        self, get_examples: Optional[Callable[[], Iterable[Any]]] = None, *, nlp: Optional[Language] = None
    ) -> None:
        if nlp is None:
            return
        self._nlp_ref = NlpRef(nlp)  # the pipeline it runs in, also when sourced from another
        warn_of_several(nlp, self.name, CONTEXT_COMPONENT, Warnings.W065)
        transformer_name = find_transformer(nlp, self.name)
        self.transformer_name = transformer_name
        check_no_retokenizer_between(nlp, transformer_name, self.name)
        if self.layers.needs_hidden_states:
            if not outputs_hidden_states(nlp, transformer_name):
                raise CtxvecError(
                    Errors.E002.format(
                        layers=list(self.layers.layers), transformer=transformer_name, component=self.name
                    )
                )
            hf_model = getattr(getattr(nlp.get_pipe(transformer_name), "model", None), "transformer", None)
            n_layers = getattr(getattr(hf_model, "config", None), "num_hidden_layers", None)
            if n_layers is not None and (repeated := repeated_layer(self.layers.layers, n_layers + 1)) is not None:
                first, second, index = repeated
                named = {"first": first, "second": second, "layers": list(self.layers.layers), "name": self.name}
                warn_at_user_line(Warnings.W079.format(**named, index=index, last=n_layers))
        check_transformer_tokenizer(nlp, self.name)
        # Learn the output width once, so that empty Docs get (0, width) arrays too.
        probe = nlp.get_pipe(transformer_name)(nlp.make_doc("width"))
        self.width = pool_trf_data(probe._.trf_data, self.pooling, self.layers).shape[1]

    def __reduce__(self) -> Any:
        # A pickled copy (nlp.pipe(n_process=...) with spawn) has no pipeline to look at: it keeps the readers,
        # the transformer's model and its unknown piece found now; no model where several pipelines hold it.
        self._readers = list(self.trf_data_readers)
        if not (shared := len(self.holding_pipelines()) > 1):
            self._transformer_model()
        self._unknown_piece()
        reconstruct, args, (name, state) = cast(Tuple[Any, Any, Tuple[str, Dict[str, Any]]], super().__reduce__())
        left_out = {"_linked", "_placements"} | ({"_model_fingerprints"} if shared else set())
        return reconstruct, args, (name, {key: value for key, value in state.items() if key not in left_out})

    # Serialization: only the output width in "cfg" (the component has no weights), with how the
    # vectors were made: loaded with other layers or pooling (a config override), the width is
    # learned anew from the first Doc, so that an empty Doc gets the width of the others.
    def _cfg(self) -> Dict[str, Any]:
        return {"width": self.width, "made_by": vectors_label(self.layers, self.pooling, None)}

    def _saved_width(self, cfg: Any) -> Optional[int]:
        made_by = cfg.get("made_by")  # none in a cfg saved before it was recorded
        return cfg.get("width") if made_by in (None, vectors_label(self.layers, self.pooling, None)) else None

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps({} if excluded("cfg", exclude) else self._cfg())

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "ContextVectors":
        if not excluded("cfg", exclude):
            self.width = self._saved_width(srsly.msgpack_loads(bytes_data))
        check_transformer_tokenizer(self.pipeline(), self.name, loading=True)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if not excluded("cfg", exclude):
            srsly.write_json(path / "cfg.json", self._cfg())

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "ContextVectors":
        if not excluded("cfg", exclude):
            self.width = self._saved_width(read_cfg(Path(path) / "cfg.json", self.name))
        # spaCy loads the components in pipeline order: the transformer before this one is loaded
        check_transformer_tokenizer(self.pipeline(), self.name, loading=True)
        return self


def linked_kind(component: Any) -> str:
    """How a component known only as an object (linked after ctxvec_context) treats
    doc._.trf_data: "transformer" writes it anew; "reader": a TransformerListener in its
    model, another ctxvec_context, or a component neither spaCy's nor this package's, whose
    reading is not known (kept rather than starved); "other"."""
    from spacy_transformers import Transformer

    if isinstance(component, Transformer):
        return "transformer"
    if isinstance(component, ContextVectors) or has_listener_layer(component):
        return "reader"
    module = type(component).__module__
    return "other" if module.split(".")[0] in ("spacy", "spacy_ctxvec") else "reader"


@contextmanager
def keep_trf_data(nlp: Language, *, hidden_states: bool = True) -> Iterator[None]:
    """doc._.trf_data kept after ctxvec_context (drop_trf_data off) and, with
    ``hidden_states``, every hidden state output while the block runs: what the per-layer
    evaluation and plots read (compare reads only the wordpieces: hidden_states=False)."""
    contexts = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, ContextVectors)]
    dropping = [pipe.drop_trf_data for pipe in contexts]
    for pipe in contexts:
        pipe.drop_trf_data = False
    try:
        with all_hidden_states(nlp) if hidden_states else nullcontext():
            yield
    finally:
        for pipe, drop in zip(contexts, dropping):
            pipe.drop_trf_data = drop


# Docs pickled before the vector hooks moved to vector_hooks.py name them here.
_MOVED_HOOKS = (
    "_doc_vector",
    "_span_vector",
    "_token_vector",
    "_doc_has_vector",
    "_span_has_vector",
    "_token_has_vector",
    "_similarity",
)


def __getattr__(name: str) -> Any:
    if name in _MOVED_HOOKS:
        return getattr(vector_hooks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _read_with_another_as_unknown(doc: Doc, trf_data: Any, unknown: Optional[Tuple[int, str]]) -> np.ndarray:
    """Per token of ``doc``, whether it holds a letter or digit and the tokenizer read it with
    another token as one ``unknown`` piece (ops.alignment.read_with_another_as): 'bank' of
    'bank\U0001f602' (the emoji keeps the unknown piece's vector, as an emoji alone does). All False
    where the tokenizer has no unknown piece or the Doc's wordpiece ids are not at hand."""
    none = np.zeros(len(doc), dtype=bool)
    if unknown is None:
        return none
    pieces = wordpiece_alignment(trf_data)
    if pieces is None or (len(pieces[1]) and int(pieces[1].max()) >= pieces[0].size):
        return none
    glued = read_with_another_as(*pieces, unknown[0])
    for i in np.flatnonzero(glued):
        glued[i] = has_word_character(doc[int(i)].text)
    return glued
