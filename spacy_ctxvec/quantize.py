"""int8 weights for a pipeline's transformer, for faster CPU inference.

Every ``torch.nn.Linear`` of the Hugging Face model is replaced in place by a
:class:`DynamicInt8Linear`: int8 weights (one scale per output row by default),
activations quantised to int8 on the fly, computed by torch's dynamic int8 CPU
kernels (``torch.ops.quantized.linear_dynamic``, fbgemm / x86). No
``torch.ao.quantization`` flow and no private spacy-transformers attribute is used.

Use it from a config so that a saved pipeline quantises itself on load::

    [nlp.after_pipeline_creation]
    @callbacks = "spacy-ctxvec.quantize_int8.v1"

or call :func:`quantize_pipeline` after ``spacy.load``. A quantised pipeline is for
inference (it cannot be trained); saving it writes the de-quantised float weights
under the Linear layers' own names, so any float pipeline can load them back and the
callback quantises them again to the same int8 values.

Why not torchao: torchao's ``quantize_`` (``Int8DynamicActivationInt8WeightConfig``)
is the maintained route that torch 2.13 recommends, but its PyPI wheel has no x86
CPU int8 kernels: on MiniLM it ran 4-16x slower than float32 here (README, "int8
on CPU"), so it cannot give the CPU speed-up this module is for. torch 2.13 also
marks its quantised tensor dtypes deprecated (a one-time UserWarning); the kernels
used here are the same ones ``quantize_dynamic`` used.
"""

import inspect
from typing import Any, Callable, Dict, List, Optional

import torch
from spacy.language import Language

from .errors import CtxvecError, Errors
from .registrations import registered


def _int8_weight(weight: torch.Tensor, per_channel: bool) -> torch.Tensor:
    """A qint8 tensor of ``weight`` with symmetric scales (per output row or one)."""
    weight = weight.detach().float()
    if per_channel:
        scales = (weight.abs().amax(dim=1) / 127.0).clamp(min=1e-12).double()
        zero_points = torch.zeros(weight.shape[0], dtype=torch.long)
        return torch.quantize_per_channel(weight, scales, zero_points, 0, torch.qint8)
    scale = float(max(weight.abs().max().item() / 127.0, 1e-12))
    return torch.quantize_per_tensor(weight, scale, 0, torch.qint8)


class DynamicInt8Linear(torch.nn.Module):
    """A Linear with int8 weights and dynamically quantised int8 activations."""

    def __init__(self, linear: torch.nn.Linear, per_channel: bool = True) -> None:
        super().__init__()
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        self.per_channel = per_channel
        self._pack(linear.weight, linear.bias)

    def _pack(self, weight: torch.Tensor, bias: Optional[torch.Tensor]) -> None:
        self.int8_weight = _int8_weight(weight, self.per_channel)
        self.float_bias = None if bias is None else bias.detach().float().clone()
        self._packed = torch.ops.quantized.linear_prepack(self.int8_weight, self.float_bias)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        shape = inputs.shape
        flat = inputs.reshape(-1, shape[-1]).float().contiguous()
        # reduce_range=True: 7-bit activations, as fbgemm needs on CPUs without VNNI.
        out = torch.ops.quantized.linear_dynamic(flat, self._packed, True)
        out = out.reshape(*shape[:-1], self.out_features).to(inputs.dtype)
        # a backward pass (spacy train) would silently skip these layers: E060 there, not on inference
        return _NoGradients.apply(out, inputs) if torch.is_grad_enabled() and inputs.requires_grad else out

    # Pickles (nlp.pipe(n_process=2) sends the pipeline to spawned workers) hold the float
    # weights, as the state dict does, by value: torch's packed int8 objects cannot be sent,
    # and a tensor made here would be shared through a file descriptor closed before the
    # worker starts ("bad value(s) in fds_to_keep").
    def __getstate__(self) -> Dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("int8_weight", "_packed")}
        return {**state, "_float_weight": self.int8_weight.dequantize().numpy()}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        state = dict(state)
        weight = torch.from_numpy(state.pop("_float_weight"))
        super().__setstate__(state)
        self._pack(weight, self.float_bias)

    # The state dict holds float weight/bias under torch.nn.Linear's names.
    def _save_to_state_dict(self, destination: Dict[str, Any], prefix: str, keep_vars: bool) -> None:
        destination[prefix + "weight"] = self.int8_weight.dequantize()
        if self.float_bias is not None:
            destination[prefix + "bias"] = self.float_bias

    def _load_from_state_dict(
        self,
        state_dict: Dict[str, Any],
        prefix: str,
        local_metadata: Dict[str, Any],
        strict: bool,
        missing_keys: List[str],
        unexpected_keys: List[str],
        error_msgs: List[str],
    ) -> None:
        if prefix + "weight" not in state_dict:
            missing_keys.append(prefix + "weight")
            return
        self._pack(state_dict[prefix + "weight"], state_dict.get(prefix + "bias"))

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, per_channel={self.per_channel}"


class _NoGradients(torch.autograd.Function):
    """``out`` as it is, tied to the layer's ``inputs`` (torch's int8 kernel has no autograd:
    its output alone is not in the graph); a backward pass through it is E060."""

    @staticmethod
    def forward(ctx: Any, out: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        return out.detach().clone()

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        raise CtxvecError(Errors.E060)


def quantize_transformer(module: torch.nn.Module, per_channel: bool = True) -> torch.nn.Module:
    """``module`` with every torch.nn.Linear inside it replaced by a DynamicInt8Linear,
    in place (the module object itself stays the same). ``per_channel`` scales each
    output row separately, which keeps the vectors closer to float32 than one scale
    per weight matrix. Calling it again changes nothing."""
    for parent in list(module.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.Linear:
                setattr(parent, name, DynamicInt8Linear(child, per_channel=per_channel))
    return module.eval()  # the new layers too


def _transformer_names(nlp: Language, transformer: Optional[str]) -> List[str]:
    from spacy_transformers import Transformer

    if transformer is None:
        return [name for name, pipe in nlp.components if isinstance(pipe, Transformer)]
    if transformer not in nlp.component_names or not isinstance(nlp.get_pipe(transformer), Transformer):
        raise CtxvecError(Errors.E025.format(name=transformer, pipe_names=nlp.component_names))
    return [transformer]


def _quantize_pipe(pipe: Any, per_channel: bool) -> None:
    hf_model = pipe.model.transformer  # None until initialize or from_disk loads weights
    if hf_model is not None:
        quantize_transformer(hf_model, per_channel=per_channel)


def quantize_pipeline(nlp: Language, transformer: Optional[str] = None, per_channel: bool = True) -> Language:
    """Quantise the Hugging Face model of the ``transformer`` component of ``nlp`` (by
    default every spacy-transformers component) to int8, on CPU, in place. Calling
    it twice is harmless. Returns ``nlp``."""
    for name in _transformer_names(nlp, transformer):
        _quantize_pipe(nlp.get_pipe(name), per_channel)
    return nlp


def is_quantized(nlp: Language, transformer: str = "transformer") -> bool:
    """Whether the component ``transformer`` runs int8 Linear layers (E025 if it is not
    a spacy-transformers component)."""
    from spacy_transformers.layers.transformer_model import TransformerModel

    model = getattr(nlp.get_pipe(_transformer_names(nlp, transformer)[0]), "model", None)
    hf_model = model.transformer if isinstance(model, TransformerModel) else None
    return hf_model is not None and any(isinstance(m, DynamicInt8Linear) for m in hf_model.modules())


class _QuantizeAfter:
    """Runs the pipe's own ``method`` (from_disk, from_bytes, initialize), then
    quantises the weights it loaded. A class, not a closure, so nlp stays picklable."""

    def __init__(self, pipe: Any, method: str, per_channel: bool) -> None:
        self.pipe = pipe
        self.method = method
        self.per_channel = per_channel

    @property
    def __signature__(self) -> inspect.Signature:
        # spaCy validates [initialize.components] settings against this signature.
        return inspect.signature(getattr(type(self.pipe), self.method).__get__(self.pipe))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = getattr(type(self.pipe), self.method)(self.pipe, *args, **kwargs)
        _quantize_pipe(self.pipe, self.per_channel)
        return result


@registered("callbacks", "spacy-ctxvec.quantize_int8.v1")
def configure_int8_quantization(
    transformer: Optional[str] = None, per_channel: bool = True
) -> Callable[[Language], Language]:
    """For [nlp.after_pipeline_creation]: the transformer(s) quantise their weights to
    int8 as soon as they are loaded (spacy.load, from_bytes) or initialized."""

    def quantize_after_creation(nlp: Language) -> Language:
        for name in _transformer_names(nlp, transformer):
            pipe = nlp.get_pipe(name)
            for method in ("from_disk", "from_bytes", "initialize"):
                setattr(pipe, method, _QuantizeAfter(pipe, method, per_channel))
            _quantize_pipe(pipe, per_channel)
        return nlp

    return quantize_after_creation
