"""Load the pipeline a command works on: a directory, a package, or a config."""

from pathlib import Path
from typing import Any, Dict, Optional, Union

from spacy.language import Language

from .attributes import CONTEXT_COMPONENT, install_extensions
from .components.batching import set_hidden_states
from .errors import CtxvecError, Errors

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.cfg"


def layer_override(layer: int) -> Dict[str, Any]:
    """ctxvec_context layers block that reads one hidden state (0 = input embeddings)."""
    return {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [layer]}


def _transformer_in_config(config: Dict[str, Any], before: str) -> Optional[str]:
    """The last "transformer" factory component listed before ``before``."""
    found = None
    for pipe_name in config["nlp"]["pipeline"]:
        if pipe_name == before:
            break
        if config["components"].get(pipe_name, {}).get("factory") == "transformer":
            found = pipe_name
    return found


def load_pipeline(name: Optional[Union[str, Path]] = None, *, layer: Optional[int] = None) -> Language:
    """spacy.load for a directory or package; a .cfg file is assembled and initialized
    in memory; None means the offline default config. With ``layer``, ctxvec_context
    reads that hidden state instead of its configured layers, and the transformer
    outputs every hidden state for this pipeline (live model and nlp.config, so a
    pipeline saved from it keeps them on); without it nothing changes."""
    import spacy
    from spacy.util import load_config, load_model_from_config

    install_extensions()
    path = DEFAULT_CONFIG if name is None else Path(name)
    try:
        if path.suffix == ".cfg":
            if not path.is_file():
                raise FileNotFoundError(f"config file {path} does not exist")
            config = load_config(path)
            transformer = _transformer_in_config(config, CONTEXT_COMPONENT)
            if layer is not None:
                config["components"][CONTEXT_COMPONENT]["layers"] = layer_override(layer)
                if transformer is not None:
                    model_cfg = config["components"][transformer]["model"]
                    model_cfg.setdefault("transformer_config", {})["output_hidden_states"] = True
            nlp = load_model_from_config(config, auto_fill=True)
            nlp.initialize()
            return nlp
        overrides = {} if layer is None else {"components": {CONTEXT_COMPONENT: {"layers": layer_override(layer)}}}
        nlp = spacy.load(str(name), config=overrides)
        if layer is not None and CONTEXT_COMPONENT in nlp.pipe_names:
            # The saved Hugging Face config wins over config overrides on load: switch the live one.
            set_hidden_states(nlp, CONTEXT_COMPONENT, True)
        return nlp
    except CtxvecError:
        raise
    except (OSError, ValueError, KeyError) as err:
        raise CtxvecError(Errors.E011.format(name=name or path, error=err)) from err
