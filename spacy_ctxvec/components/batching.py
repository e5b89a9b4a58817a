"""A spacy-transformers model whose inference batches by padded wordpieces.

spacy-transformers' own pipe sorts Docs by spaCy token count and pads each
forward call to its longest span, so short texts that split into many
wordpieces inflate every call. ``BucketedTransformerModel`` keeps
``TransformerModel`` (same config keys, weights, serialisation and training
path) and replaces only the inference forward:

1. all spans of the Docs handed to ``predict`` are tokenised once (fast
   tokenizer, offsets, no padding);
2. spans are sorted by wordpiece count and cut into buckets whose
   longest span x size stays within ``max_batch_wordpieces``, where the padded
   wordpieces plus a fixed cost per forward call are least;
3. each bucket runs under ``torch.inference_mode`` in eval mode (forward_lock);
4. each Doc gets a ``TransformerData`` trimmed to its own wordpiece length (a
   one-span Doc gets a view into its bucket's output, so nothing is copied).

A span longer than the model's maximum is cut as Hugging Face cuts it (its first
wordpieces and the closing special token). Training, slow tokenizers and
``output_attentions`` use the upstream forward unchanged (it cuts a span without
its closing token). On the bucketed path the batch-level ``wordpieces``,
``model_output`` and ``align`` of the returned ``FullTransformerBatch`` are empty:
read ``doc_data`` (as the pipe's ``set_annotations`` does) in a custom
``set_extra_annotations``.
"""

import copy
from itertools import chain
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np
from spacy.attrs import IDX, LENGTH
from spacy.tokens import Doc, Span
from spacy_transformers.data_classes import FullTransformerBatch, TransformerData, WordpieceBatch
from spacy_transformers.layers._util import replace_listener_cfg as upstream_replace_listener_cfg
from spacy_transformers.layers.transformer_model import TransformerModel
from spacy_transformers.layers.transformer_model import forward as upstream_forward
from spacy_transformers.layers.transformer_model import init as upstream_init
from thinc.api import Model, get_array_module
from thinc.types import Floats2d, Ints1d, Ints2d, Ragged

from ..catalogue.pipeline_errors import NO_VOCAB_FILE
from ..errors import CtxvecError, Errors
from ..locks import forward_lock
from ..ops.offsets import align_batch
from ..registrations import registered
from .model_config import cap_model_max_length, restore_saved_floats
from .span_settings import checked_span_getter
from .tokenizer_checks import raise_run_failure
from .transformer import deferred_model_name, name_as_configured

ARCHITECTURE = "spacy-ctxvec.BucketedTransformerModel.v1"
# Padded wordpieces per forward call, chosen per device by measurement
# (benchmarks/speed/pipeline_floor.py --pipeline-caps): on CPU 1024 was within a few per cent
# of the best cap on short sentences (512-768) and on long paragraphs (2048), where 4096 was
# 1.31x the best floor on sentences (docs/benchmarks.md); on an H200 every cap from 4096 to
# 65536 timed within 0.23 s of each other, 4096 the fastest (benchmarks/speed/GPU.md).
DEFAULT_MAX_BATCH_WORDPIECES = 1024
DEFAULT_MAX_BATCH_WORDPIECES_GPU = 4096
# The fixed cost of one forward call on CPU, in padded wordpieces, when choosing where to cut
# buckets: MiniLM on 2 cores took 13 ms for one 12-wordpiece row and about 0.2-0.25 ms per
# further padded wordpiece, and small calls are also slower per wordpiece.
CALL_COST_WORDPIECES = 100

BATCHING_SETTINGS = ("max_batch_wordpieces", "max_batch_wordpieces_gpu")

SpanGetter = Callable[[List[Doc]], List[List[Span]]]


@registered("misc", "spacy-ctxvec.replace_listener_cfg.v1")
def replace_listener_cfg(tok2vec_model_cfg: Dict[str, Any], listener_model_cfg: Dict[str, Any]) -> Dict[str, Any]:
    """The config that ``nlp.replace_listeners`` writes in a listener's place: spacy-transformers'
    (a TransformerListener becomes its ``Tok2VecTransformer.v3``, the other keys kept) without
    this model's batching settings, which that architecture does not take (the listener's copy
    then loads with the upstream forward; the weights are the same)."""
    result = upstream_replace_listener_cfg(tok2vec_model_cfg, listener_model_cfg)
    if result["@architectures"] != tok2vec_model_cfg["@architectures"]:
        for key in BATCHING_SETTINGS:
            result.pop(key, None)
    return result


class BucketedTransformerModel(TransformerModel):
    """``TransformerModel`` with the bucketed inference forward (module docstring).

    ``max_batch_wordpieces`` (on CPU) and ``max_batch_wordpieces_gpu`` (on a GPU) are
    Python attributes, not thinc attrs, so the serialised bytes equal
    TransformerModel's and the values always come from the config (a saved pipeline
    loaded with other values uses the new ones)."""

    def __init__(
        self,
        name: str,
        get_spans: SpanGetter,
        tokenizer_config: Dict[str, Any] = {},  # noqa: B006 (TransformerModel.v3's signature; never mutated)
        transformer_config: Dict[str, Any] = {},  # noqa: B006 (TransformerModel.v3's signature; never mutated)
        mixed_precision: bool = False,
        grad_scaler_config: Dict[str, Any] = {},  # noqa: B006 (TransformerModel.v3's signature; never mutated)
        max_batch_wordpieces: int = DEFAULT_MAX_BATCH_WORDPIECES,
        max_batch_wordpieces_gpu: int = DEFAULT_MAX_BATCH_WORDPIECES_GPU,
    ) -> None:
        for setting, value, default in (
            ("max_batch_wordpieces", max_batch_wordpieces, DEFAULT_MAX_BATCH_WORDPIECES),
            ("max_batch_wordpieces_gpu", max_batch_wordpieces_gpu, DEFAULT_MAX_BATCH_WORDPIECES_GPU),
        ):
            if int(value) < 1:
                raise CtxvecError(Errors.E040.format(setting=setting, value=value, default=default))
        get_spans = checked_span_getter(get_spans)  # E047 now, E055 for each batch's spans
        if isinstance(name, str):  # a plain name in the config: checked as spacy-ctxvec.model_name.v1 checks it
            name = deferred_model_name(name)
        configs = dict(tokenizer_config), dict(transformer_config), mixed_precision, dict(grad_scaler_config)
        super().__init__(name, get_spans, *configs)  # copies: spacy-transformers' HFShim sets 'enabled' in one
        self._func = bucketed_forward
        self.init = init_naming_the_folder
        self.attrs["replace_listener_cfg"] = replace_listener_cfg
        self.max_batch_wordpieces = int(max_batch_wordpieces)
        self.max_batch_wordpieces_gpu = int(max_batch_wordpieces_gpu)

    def from_dict(self, msg: Dict[str, Any]) -> "BucketedTransformerModel":
        """thinc's from_dict, then the config values spacy-transformers' load rounded (model_config)."""
        super().from_dict(msg)
        restore_saved_floats(self, msg)
        return self

    def batch_cap(self, device_type: str) -> int:
        """The padded-wordpiece cap of one forward call on this device type."""
        return self.max_batch_wordpieces if device_type == "cpu" else self.max_batch_wordpieces_gpu

    def call_cost(self, device_type: str) -> int:
        """What one forward call costs, in padded wordpieces, when cutting buckets: measured
        on CPU; on a GPU (unmeasured) a whole bucket, so the fewest calls come first."""
        return CALL_COST_WORDPIECES if device_type == "cpu" else self.max_batch_wordpieces_gpu

    @property
    def mixed_precision(self) -> bool:
        return bool(getattr(self.layers[0].shims[0], "_mixed_precision", False))

    def copy(self) -> "BucketedTransformerModel":
        """A deep copy that keeps the bucketed forward, the attrs and the weights."""
        copied = BucketedTransformerModel(
            self.attrs["name"],
            self.attrs["get_spans"],
            max_batch_wordpieces=self.max_batch_wordpieces,
            max_batch_wordpieces_gpu=self.max_batch_wordpieces_gpu,
        )
        copied.attrs.update(self.attrs)
        for name in self.param_names:
            if self.has_param(name):
                copied.set_param(name, copy.deepcopy(self.get_param(name)))
        for name in self.dim_names:
            if self.has_dim(name):
                copied.set_dim(name, self.get_dim(name), force=True)
        copied.layers[0] = copy.deepcopy(self.layers[0])
        for name in self.grad_names:
            copied.set_grad(name, self.get_grad(name).copy())
        return copied


@registered("architectures", ARCHITECTURE)
def create_bucketed_transformer_model(
    name: str,
    get_spans: SpanGetter,
    tokenizer_config: Dict[str, Any] = {},  # noqa: B006 (TransformerModel.v3's signature; never mutated)
    transformer_config: Dict[str, Any] = {},  # noqa: B006 (TransformerModel.v3's signature; never mutated)
    mixed_precision: bool = False,
    grad_scaler_config: Dict[str, Any] = {},  # noqa: B006 (TransformerModel.v3's signature; never mutated)
    max_batch_wordpieces: int = DEFAULT_MAX_BATCH_WORDPIECES,
    max_batch_wordpieces_gpu: int = DEFAULT_MAX_BATCH_WORDPIECES_GPU,
) -> Model[List[Doc], FullTransformerBatch]:
    """spacy-transformers.TransformerModel.v3 (same settings) whose inference cuts
    forward calls of at most ``max_batch_wordpieces`` padded wordpieces, spans sorted
    by wordpiece count. Set the pipe's ``max_batch_items`` large, so that the pipe
    hands the model whole ``nlp.batch_size`` buffers to sort."""
    configs = tokenizer_config, transformer_config, mixed_precision, grad_scaler_config
    return BucketedTransformerModel(name, get_spans, *configs, max_batch_wordpieces, max_batch_wordpieces_gpu)


def wordpiece_buckets(
    lengths: Sequence[int], max_wordpieces: int, call_cost: int = CALL_COST_WORDPIECES
) -> List[np.ndarray]:
    """Indices sorted by length, cut into runs whose longest x size <= max_wordpieces (a
    span longer than that gets a bucket of its own), the cuts chosen to minimise the padded
    wordpieces plus ``call_cost`` per forward call (dynamic programming over the sorted
    lengths: a greedy fill leaves a few long spans, or the tail of a buffer, padded in a
    bucket of their own)."""
    sizes = np.asarray(lengths, dtype=np.int64).reshape(-1)
    order = np.argsort(sizes, kind="stable")
    ordered = np.maximum(sizes[order], 1)
    n = len(order)
    best = np.zeros(n + 1, dtype=np.float64)  # best[i]: cheapest cut of the i shortest spans
    first = np.zeros(n + 1, dtype=np.int64)
    for end in range(1, n + 1):
        width = int(ordered[end - 1])
        low = max(0, end - max(1, max_wordpieces // width))
        costs = best[low:end] + width * (end - np.arange(low, end)) + call_cost
        k = int(np.argmin(costs))
        best[end], first[end] = costs[k], low + k
    buckets: List[np.ndarray] = []
    end = n
    while end > 0:
        buckets.append(order[first[end] : end])
        end = int(first[end])
    return buckets[::-1]


def _pad_rows(rows: Sequence[Sequence[Any]], lengths: Sequence[int], width: int, fill: Any, dtype: Any) -> np.ndarray:
    out = np.full((len(rows), width) + np.shape(rows[0])[1:], fill, dtype=dtype)
    for r, (row, n) in enumerate(zip(rows, lengths)):
        out[r, :n] = row
    return out


def batch_alignment(
    docs: Sequence[Doc], nested_spans: Sequence[Sequence[Span]], offset_mapping: Sequence[Any], lengths: Sequence[int]
) -> List[Ragged]:
    """spacy-transformers' get_alignment_via_offset_mapping for each Doc, from the
    Docs' token offsets for the whole batch at once (ops.offsets.align_batch)
    instead of Token objects. ``offset_mapping`` and ``lengths``: every span's
    wordpiece offsets and count, spans end to end in Doc order."""
    tokens = [doc.to_array([IDX, LENGTH]).reshape(len(doc), 2) for doc in docs]
    bounds = [np.array([(span.start, span.end) for span in spans], dtype=np.int64) for spans in nested_spans]
    ends = np.cumsum([len(spans) for spans in nested_spans]).tolist()
    span_lengths = [np.asarray(lengths[end - len(spans) : end]) for spans, end in zip(nested_spans, ends)]
    offsets = np.fromiter(chain.from_iterable(chain.from_iterable(offset_mapping)), dtype=np.int64).reshape(-1, 2)
    aligned = align_batch([t[:, 0] for t in tokens], [t[:, 1] for t in tokens], bounds, span_lengths, offsets)
    return [Ragged(cast(Any, flat), cast(Any, token_lengths)) for flat, token_lengths in aligned]


def _to_xp(tensor: Any) -> Any:
    """A float32 numpy (CPU, zero-copy) or cupy (GPU) array from a torch tensor."""
    tensor = tensor.float()
    if tensor.device.type == "cpu":
        return tensor.numpy()
    from thinc.api import torch2xp

    return torch2xp(tensor)


def init_naming_the_folder(model: TransformerModel, X: Any = None, Y: Any = None) -> Any:
    """spacy-transformers' init; a model that does not load (E027) or run (E053, E054) is a coded error."""
    from safetensors import SafetensorError

    try:
        initialised = upstream_init(model, X, Y)
        name_as_configured(model)
        return initialised
    except CtxvecError:
        raise
    except (RuntimeError, OSError, ValueError, TypeError, SafetensorError) as err:  # TypeError: a tokenizer file
        error = " ".join(str(err).split())[:600].rstrip(".")
        if model.attrs.get("has_transformer"):  # the weights loaded: a later step failed
            raise_run_failure(model, err, error)  # E053, E054 where it is one of them
            raise
        if isinstance(err, TypeError) and "NoneType" in error:  # spacy-transformers opened vocab_file None
            error = f"{NO_VOCAB_FILE} ({error})"
        raise CtxvecError(Errors.E027.format(name=str(model.attrs["name"]), error=error)) from err


def _uses_upstream(model: TransformerModel, is_train: bool) -> bool:
    from transformers.tokenization_utils_fast import PreTrainedTokenizerFast

    config = model.transformer.config
    return (
        is_train
        or not isinstance(model.tokenizer, PreTrainedTokenizerFast)
        or bool(getattr(config, "output_attentions", False))
    )


def _run_buckets(
    model: BucketedTransformerModel, ids: List[List[int]], type_ids: Optional[List[List[int]]], lengths: List[int]
) -> Tuple[List[Tuple[int, int]], List[Dict[str, Any]]]:
    """Forward every bucket in eval mode (bucketed_forward holds the model's forward_lock); (bucket,
    row) of each span and each bucket's outputs as xp arrays: 3-d per-wordpiece, 2-d per-span, lists of 3-d."""
    hf = model.transformer
    was_training = hf.training
    hf.eval()
    try:
        return _forward_buckets(model, ids, type_ids, lengths)
    finally:
        hf.train(was_training)


def _forward_buckets(
    model: BucketedTransformerModel, ids: List[List[int]], type_ids: Optional[List[List[int]]], lengths: List[int]
) -> Tuple[List[Tuple[int, int]], List[Dict[str, Any]]]:
    import torch

    hf = model.transformer
    device = hf.device
    pad_id = model.tokenizer.pad_token_id or 0
    where: List[Tuple[int, int]] = [(0, 0)] * len(ids)
    outputs: List[Dict[str, Any]] = []
    autocast = torch.autocast(device_type=device.type, enabled=model.mixed_precision and device.type == "cuda")
    with torch.inference_mode(), autocast:
        for b, bucket in enumerate(
            wordpiece_buckets(lengths, model.batch_cap(device.type), model.call_cost(device.type))
        ):
            bucket_lengths = [lengths[i] for i in bucket]
            width = max(bucket_lengths)
            kwargs = {
                "input_ids": _pad_rows([ids[i] for i in bucket], bucket_lengths, width, pad_id, np.int64),
                "attention_mask": _pad_rows([[1] * n for n in bucket_lengths], bucket_lengths, width, 0, np.int64),
            }
            if type_ids is not None:
                kwargs["token_type_ids"] = _pad_rows([type_ids[i] for i in bucket], bucket_lengths, width, 0, np.int64)
            for r, i in enumerate(bucket):
                where[i] = (b, r)
            output = hf(**{key: torch.from_numpy(value).to(device) for key, value in kwargs.items()})
            outputs.append(_as_xp_arrays(output))
    return where, outputs


def _as_xp_arrays(output: Dict[str, Any]) -> Dict[str, Any]:
    """A model output's 2-d and 3-d tensors (and lists of 3-d tensors) as xp arrays."""
    import torch

    converted: Dict[str, Any] = {}
    for key, value in output.items():
        if isinstance(value, torch.Tensor) and value.dim() in (2, 3):
            converted[key] = _to_xp(value)
        elif (
            isinstance(value, (tuple, list))
            and value
            and all(isinstance(v, torch.Tensor) and v.dim() == 3 for v in value)
        ):
            converted[key] = [_to_xp(v) for v in value]
    return converted


def _nth_output(key: str, n: Optional[int]) -> Callable[[Dict[str, Any]], Any]:
    """A getter of one model-output field (its n-th array where the field is a list)."""

    def get(output: Dict[str, Any]) -> Any:
        return output[key] if n is None else output[key][n]

    return get


def _span_output(output: Dict[str, Any], row: int, width: int) -> Any:
    """A one-span Doc's model output: views of row ``row`` of its bucket's arrays, cut
    to the span's ``width`` wordpieces (nothing copied)."""
    from transformers.file_utils import ModelOutput

    model_output = ModelOutput()
    for key, value in output.items():
        if isinstance(value, list):
            model_output[key] = [array[row : row + 1, :width] for array in value]
        else:
            model_output[key] = value[row : row + 1, :width] if value.ndim == 3 else value[row : row + 1]
    return model_output


def _doc_output(
    outputs: List[Dict[str, Any]], where: List[Tuple[int, int]], rows: range, lengths: List[int], width: int
) -> Any:
    """One Doc's model output: a view of its bucket for one span, else rows copied
    into (n_spans, width) arrays (zeros past each span's end)."""
    from transformers.file_utils import ModelOutput

    if len(rows) == 1:
        return _span_output(outputs[where[rows[0]][0]], where[rows[0]][1], width)
    model_output = ModelOutput()
    for key, first in outputs[where[rows[0]][0]].items():

        def take(get: Callable[[Dict[str, Any]], Any]) -> Any:
            sample = get(outputs[where[rows[0]][0]])
            xp = get_array_module(sample)
            shape = (len(rows), width) + sample.shape[2:] if sample.ndim == 3 else (len(rows),) + sample.shape[1:]
            out = xp.zeros(shape, dtype=sample.dtype)
            for j, i in enumerate(rows):
                b, r = where[i]
                source = get(outputs[b])
                if source.ndim == 3:
                    out[j, : lengths[i]] = source[r, : lengths[i]]
                else:
                    out[j] = source[r]
            return out

        if isinstance(first, list):
            model_output[key] = [take(_nth_output(key, n)) for n in range(len(first))]
        else:
            model_output[key] = take(_nth_output(key, None))
    return model_output


def _doc_wordpieces(
    encoding: Any,
    ids: List[List[int]],
    type_ids: Optional[List[List[int]]],
    rows: range,
    row_lengths: List[int],
    width: int,
    pad_id: int,
    pad_token: str,
) -> WordpieceBatch:
    """One Doc's WordpieceBatch: its spans' wordpieces padded to ``width``."""
    if len(rows) == 1:  # most Docs: no padding, built straight from the lists
        i = rows[0]
        return WordpieceBatch(
            strings=[encoding.encodings[i].tokens],
            input_ids=cast(Ints2d, np.array([ids[i]], dtype=np.int64)),
            attention_mask=cast(Floats2d, np.ones((1, width), dtype=np.float32)),
            lengths=row_lengths,
            token_type_ids=None if type_ids is None else cast(Ints2d, np.array([type_ids[i]], dtype=np.int64)),
        )
    return WordpieceBatch(
        strings=[encoding.encodings[i].tokens + [pad_token] * (width - n) for i, n in zip(rows, row_lengths)],
        input_ids=cast(Ints2d, _pad_rows([ids[i] for i in rows], row_lengths, width, pad_id, np.int64)),
        attention_mask=cast(
            Floats2d, (np.arange(width)[None, :] < np.asarray(row_lengths)[:, None]).astype(np.float32)
        ),
        lengths=row_lengths,
        token_type_ids=None
        if type_ids is None
        else cast(Ints2d, _pad_rows([type_ids[i] for i in rows], row_lengths, width, 0, np.int64)),
    )


def bucketed_forward(
    model: BucketedTransformerModel, docs: List[Doc], is_train: bool
) -> Tuple[FullTransformerBatch, Callable]:
    """The thinc forward of BucketedTransformerModel (inference only; see the module docstring),
    at inference under the model's forward_lock from tokenisation on."""
    if model.transformer is None:
        raise CtxvecError(Errors.E044)
    if is_train:
        return _forward(model, docs, is_train)
    with forward_lock(model.transformer), forward_lock(model.tokenizer):
        return _forward(model, docs, is_train)


def _encode(tokenizer: Any, texts: List[str]) -> Any:
    """The wordpieces of ``texts``, cut at the model's length; the fast tokenizer's own truncation setting is
    put back after (the call leaves it on, and the pipeline saved after any text held another tokenizer.json)."""
    backend = getattr(tokenizer, "_tokenizer", None)
    before = getattr(backend, "truncation", None)
    try:
        return tokenizer(
            texts,
            add_special_tokens=True,
            return_attention_mask=False,
            return_offsets_mapping=True,
            return_token_type_ids=None,
            truncation=tokenizer.model_max_length < 1 << 63,  # not ~1e30 (no cap known): the tokenizer refuses it
            max_length=min(tokenizer.model_max_length, (1 << 63) - 1),
        )
    finally:
        if backend is not None and getattr(backend, "truncation", None) != before:
            if before is None:
                backend.no_truncation()
            else:
                backend.enable_truncation(**before)


def _forward(model: BucketedTransformerModel, docs: List[Doc], is_train: bool) -> Tuple[FullTransformerBatch, Callable]:
    cap_model_max_length(model)
    if _uses_upstream(model, is_train):
        return upstream_forward(model, docs, is_train)
    tokenizer = model.tokenizer
    nested_spans = model.attrs["get_spans"](docs)
    kept = [n for n, doc_spans in enumerate(nested_spans) if len(doc_spans) > 0 and len(doc_spans[0]) > 0]
    flat_spans = [span for n in kept for span in nested_spans[n]]
    doc_data: List[Optional[TransformerData]] = [None] * len(docs)
    if flat_spans:
        encoding = _encode(tokenizer, [span.text for span in flat_spans])
        ids: List[List[int]] = encoding["input_ids"]
        lengths = [len(row) for row in ids]
        type_ids: Optional[List[List[int]]] = encoding.get("token_type_ids")
        where, outputs = _run_buckets(model, ids, type_ids, lengths)
        pad_id, pad_token = tokenizer.pad_token_id or 0, tokenizer.pad_token or ""
        aligns = batch_alignment(
            [docs[n] for n in kept], [nested_spans[n] for n in kept], encoding["offset_mapping"], lengths
        )
        start = 0
        for n, align in zip(kept, aligns):
            rows = range(start, start + len(nested_spans[n]))
            start += len(rows)
            row_lengths = [lengths[i] for i in rows]
            width = max(row_lengths)
            doc_data[n] = TransformerData(
                wordpieces=_doc_wordpieces(encoding, ids, type_ids, rows, row_lengths, width, pad_id, pad_token),
                model_output=_doc_output(outputs, where, rows, lengths, width),
                align=align,
            )
    from transformers.file_utils import ModelOutput

    batch = FullTransformerBatch(
        spans=nested_spans,
        wordpieces=WordpieceBatch.empty(),
        model_output=ModelOutput(),
        align=Ragged(cast(Ints1d, np.zeros((0,), dtype="i")), cast(Ints1d, np.zeros((0,), dtype="i"))),
        cached_doc_data=[data if data is not None else TransformerData.empty() for data in doc_data],
    )

    def backprop(d_output: FullTransformerBatch) -> List[Doc]:
        raise NotImplementedError("the bucketed forward is inference-only; training uses the upstream forward")

    return batch, backprop
