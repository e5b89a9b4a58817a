"""Load the pipeline a command works on: a directory, a package, or a config."""
from pathlib import Path
from typing import Optional, Union

from spacy.language import Language

from .attributes import install_extensions
from .errors import CtxvecError, Errors

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.cfg"


def load_pipeline(name: Optional[Union[str, Path]] = None) -> Language:
    """spacy.load for a directory or package; a .cfg file is assembled and
    initialized in memory; None means the offline default config."""
    import spacy
    from spacy.util import load_config, load_model_from_config

    install_extensions()
    path = DEFAULT_CONFIG if name is None else Path(name)
    try:
        if path.suffix == ".cfg":
            if not path.exists():
                raise FileNotFoundError(f"config file {path} does not exist")
            nlp = load_model_from_config(load_config(path), auto_fill=True)
            nlp.initialize()
            return nlp
        return spacy.load(str(name))
    except CtxvecError:
        raise
    except (OSError, ValueError) as err:
        raise CtxvecError(Errors.E011.format(name=name or path, error=err)) from err


def rebuild_pipeline(config_str: str, nlp_bytes: bytes, *, num_threads: int, use_gpu: bool = False) -> Language:
    """A worker's copy of the driver's pipeline, from its config and bytes (same weights
    everywhere, nothing read from disk)."""
    import spacy
    import torch
    from spacy.util import load_model_from_config
    from thinc.api import Config

    if use_gpu:
        spacy.require_gpu()
    torch.set_num_threads(num_threads)
    install_extensions()
    nlp = load_model_from_config(Config().from_str(config_str), auto_fill=False, validate=False)
    return nlp.from_bytes(nlp_bytes)
