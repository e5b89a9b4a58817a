"""Load the pipeline a command works on: a directory, a package, or a config."""

import configparser
import re
import traceback
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from thinc.api import ConfigValidationError

from .attributes import CONTEXT_COMPONENT, POLYSEMY_FACTORY, install_extensions
from .component_names import context_name_in_config
from .components.transformer import set_hidden_states, set_hidden_states_in_config, transformer_in_config
from .errors import PREFIX, CtxvecError, Errors
from .saved_pipeline import check_component_names, given_twice, installed_pipeline, pipeline_path, read_config
from .user_code import code_option

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.cfg"


def _packaged_hint(path: Path) -> str:
    """Where the installed package keeps a config of this name (the repository's configs/
    folder is not installed), for the error of a missing one; "" if it has none."""
    packaged = DEFAULT_CONFIG.parent / path.name
    if not packaged.is_file() or packaged.resolve() == path.resolve():
        return ""
    return f"; the installed package ships a {path.name} at {packaged}: pass that path"


def layer_override(layer: int) -> Dict[str, Any]:
    """ctxvec_context layers block that reads one hidden state (0 = input embeddings)."""
    return {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [layer]}


def load_pipeline(
    name: Optional[Union[str, Path]] = None, *, layer: Optional[int] = None, initialize_lexicons: bool = True
) -> Language:
    """spacy.load for a directory or package; a .cfg file is assembled and initialized
    in memory; None means the offline default config. With ``layer``, ctxvec_context
    reads that hidden state instead of its configured layers, and the transformer
    outputs every hidden state for this pipeline (live model and nlp.config, so a
    pipeline saved from it keeps them on); without it nothing changes.
    ``initialize_lexicons=False``: a .cfg's ctxvec_polysemy components are initialized
    without the lexicon its [initialize.components] names or builds (build-lexicon makes
    a new one: the old one is neither built nor checked against the vectors), and a saved
    pipeline's senses induced otherwise than its config says are not warned about (W062)."""
    import spacy
    from spacy.util import load_model_from_config

    install_extensions()
    path = DEFAULT_CONFIG if name is None else Path(name)
    try:
        if path.suffix == ".cfg":
            if not path.is_file():
                raise FileNotFoundError(f"config file {path} does not exist{_packaged_hint(path)}")
            config = read_config(path, name or path)
            missing = [section for section in ("nlp", "components") if section not in config]
            if missing:  # spaCy's KeyError said "'components'" alone
                raise CtxvecError(Errors.E063.format(name=name or path, section=missing[0]))
            check_component_names(config, name or path)
            context = context_name_in_config(config)
            transformer = transformer_in_config(config, context)
            if layer is not None:
                if context not in config.get("components", {}):
                    raise CtxvecError(Errors.E058.format(name=name or path, layer=layer))
                config["components"][context]["layers"] = layer_override(layer)
                if transformer is not None:
                    set_hidden_states_in_config(config, transformer, True)
            if not initialize_lexicons:
                _without_initialize_lexicons(config)
            nlp = load_model_from_config(config, auto_fill=True)
            nlp.initialize()
            # initialize's optimizer holds a learning-rate generator, which cannot be pickled: without
            # it, nlp.pipe(n_process=2) under spawn (macOS, Windows) can send the pipeline to workers
            nlp._optimizer = None
            return nlp
        installed = installed_pipeline(str(path)) if len(path.parts) == 1 else None  # "en-core-web-sm" too
        context = _saved_context_name(path if installed is None else installed[1])  # as pipeline_path gives
        overrides = {} if layer is None else {"components": {context: {"layers": layer_override(layer)}}}
        with warnings.catch_warnings():
            if not initialize_lexicons:  # the senses are induced again: W062 about the saved ones is noise
                warnings.filterwarnings("ignore", message=re.escape(f"[{PREFIX}W062]"))
            nlp = spacy.load(_spacy_load_name(path, installed), config=overrides)
        if layer is not None and context in nlp.pipe_names:
            # The saved Hugging Face config wins over config overrides on load: switch the live one.
            set_hidden_states(nlp, context, True)
            _learn_width(nlp, context)
        return nlp
    except CtxvecError:
        raise
    except ConfigValidationError as err:
        saved = pipeline_path(path) / "config.cfg"  # a saved pipeline's: the file spaCy's commands take
        config_name = saved if path.suffix != ".cfg" and saved.is_file() else name or path
        errors = _config_errors(err, _components_by_factory(path if path.suffix == ".cfg" else saved))
        if layer is not None and "-> layers: not a section value" in errors:
            raise CtxvecError(Errors.E058.format(name=name or path, layer=layer)) from err
        raise CtxvecError(
            Errors.E028.format(name=config_name, errors=errors, code=code_option(), hint=_registered_itself(errors))
        ) from err
    except configparser.Error as err:  # a saved pipeline's config.cfg
        raise given_twice(Path(str(name)) / "config.cfg", err) from err
    except (OSError, ValueError, KeyError, ImportError) as err:  # ImportError: a package's entry point
        # E011 ends spaCy's sentence with its own period: drop the one spaCy's message ends in.
        error = str(err).rstrip().rstrip(".") + _file_read(err) + _model_folder_hint(path)
        fix = _unregistered_hint(err) or _interpolation_hint(err) or _missing_block_hint(err) or LOAD_FIX
        raise CtxvecError(Errors.E011.format(name=name or path, error=error, fix=fix)) from err


def _learn_width(nlp: Language, context: str) -> None:
    """The output width of ``context`` loaded with other layers than it was saved with (its saved
    width is dropped): from one short text, so that an empty first Doc, and the pipeline saved
    from this one before any Doc ran (a Ray build's driver), have it."""
    from .components.transformer_lookup import find_transformer

    pipe = nlp.get_pipe(context)
    if getattr(pipe, "width", 0) is None:
        pipe(nlp.get_pipe(find_transformer(nlp, context))(nlp.make_doc("width")))


def _spacy_load_name(path: Path, installed: Optional[Tuple[str, Path]]) -> Union[str, Path]:
    """What spacy.load gets for ``path``: the module name of the installed pipeline package it names
    (``installed``, from installed_pipeline), which wins as in spaCy; else the path itself, which spaCy then
    reads as a directory even where an installed package of another kind has its name ("lexicon")."""
    return installed[0] if installed is not None else path if path.exists() else str(path)


def _saved_context_name(path: Path) -> str:
    """context_name_in_config of the pipeline saved in directory ``path`` ("ctxvec_context"
    where it has no readable config.cfg: spacy.load names what is wrong); E064 for a
    component named by a path, before spacy.load reads or anything writes there."""
    config_file = path / "config.cfg"
    if not config_file.is_file():
        return CONTEXT_COMPONENT
    try:
        config = read_config(config_file, config_file)
    except CtxvecError:  # E065, E029: a section given twice, misplaced or misspelt
        raise
    except (OSError, ValueError, KeyError):  # spacy.load names what is wrong with it
        return CONTEXT_COMPONENT
    check_component_names(config, path)
    return context_name_in_config(config)


LOAD_FIX = (
    "Pass a pipeline directory, an installed pipeline package, or a .cfg config file (it is assembled in memory)."
)


def _unregistered_hint(err: Exception) -> str:
    """Where a registered function (spaCy's E893) or a component factory (E002) is missing, how to
    provide it (instead of LOAD_FIX: the path was right)."""
    from catalogue import RegistryError

    factory = re.search(r"\[E002\] Can't find factory for '([^']+)'", str(err))
    if not factory and not isinstance(err, RegistryError) and "[E893]" not in str(err):
        return ""
    what = f"The component factory '{factory.group(1)}' is" if factory else "A function the config names is"
    return (
        f"{what} registered by nothing imported: where it is in your own code, import that file first "
        "(spacy-ctxvec --code FILE.py COMMAND ...), or install the package that registers it through its entry points."
    )


def _interpolation_hint(err: Exception) -> str:
    """How to write a ${section.setting} reference, where confection found one it cannot read
    (an unclosed "${system.seed"; instead of LOAD_FIX: the path was right)."""
    if not isinstance(err, ValueError) or "invalid interpolation syntax" not in str(err):
        return ""
    return (
        'A reference to another setting is written ${section.setting}, with its closing brace (a "$" meant '
        'literally is written "$$"): mend that value in the config and load it again.'
    )


def _missing_block_hint(err: Exception) -> str:
    """Where [nlp] pipeline names a component the config has no block for (spaCy's E956),
    how to mend the config (instead of LOAD_FIX: the path was right)."""
    missing = re.search(r"\[E956\] Can't find component '([^']+)'", str(err))
    if missing is None:
        return ""
    name = missing.group(1)
    return (
        f"[nlp] pipeline lists '{name}', and the config has no [components.{name}] block: add that block (with its "
        f'factory, e.g. factory = "{name}" for a ctxvec component; spacy-ctxvec\'s configs/default.cfg has one '
        f"for each), or take '{name}' out of [nlp] pipeline."
    )


def _registered_itself(errors: str) -> str:
    """Where a setting asks for the arguments a pooling or layer combination is called with,
    the function itself was registered, not one that returns it."""
    if not re.search(r"-> (rows|lengths|arrays): (missing required argument|field required)", errors):
        return ""
    return (
        " If a function of your own asks for the arguments its result is called with (rows, lengths), register "
        "a function that returns it (def configure_my_pooling(): return my_pooling), not the function itself."
    )


def _components_by_factory(config_path: Path) -> Dict[str, str]:
    """factory -> the one component of ``config_path`` made by it (factories of several left out);
    {} where the config cannot be read (its refused settings are told without)."""
    try:
        components = read_config(config_path, config_path).get("components", {})
    except (CtxvecError, OSError):
        return {}
    names: Dict[str, List[str]] = {}
    for name, block in components.items():
        if isinstance(block, dict) and isinstance(block.get("factory"), str):
            names.setdefault(block["factory"], []).append(name)
    return {factory: found[0] for factory, found in names.items() if len(found) == 1}


def _config_errors(err: ConfigValidationError, component_of: Optional[Dict[str, str]] = None) -> str:
    """Each refused setting as 'section -> setting: what is wrong', without spaCy's dump of the values;
    spaCy names a component's section by its factory ("ctxvec_transformer.model"): with
    ``component_of`` (factory -> component), by the config's section ("components.transformer.model")."""

    component_of = component_of or {}

    def section(part: object) -> str:
        factory, dot, rest = str(part).partition(".")
        return f"components.{component_of[factory]}{dot}{rest}" if factory in component_of else str(part)

    parent = f"{section(err.parent)} -> " if getattr(err, "parent", None) else ""

    def located(loc: Sequence[object]) -> str:
        first = str(loc[0]) if parent else section(loc[0])
        return " -> ".join([first, *map(str, loc[1:])]) if loc else ""

    described = [f"{located(error.get('loc') or [])}: {error.get('msg', '')}".strip(": ") for error in err.errors or []]
    # no errors list: a ${section.value} naming nothing says so in the description alone
    alone = str(getattr(err, "desc", None) or err.title or "invalid settings").strip().rstrip(".")
    return "; ".join(parent + text for text in described) or alone


def _file_read(err: BaseException) -> str:
    """ " (reading 'FILE')" for the file spaCy was reading when ``err`` was raised (a damaged
    meta.json or component cfg: srsly's "Expected object or value" names none): the path the
    innermost srsly reader or spacy.util.from_disk's loop held in its traceback; "" where none did."""
    for frame, _ in reversed(list(traceback.walk_tb(err.__traceback__))):
        module, local = frame.f_globals.get("__name__", ""), frame.f_locals
        if module.startswith("srsly.") and isinstance(local.get("path"), (str, Path)):
            return f" (reading '{local['path']}')"
        if module == "spacy.util" and frame.f_code.co_name == "from_disk" and isinstance(local.get("key"), str):
            return f" (reading '{Path(local['path']) / local['key']}')"
    return ""


def _model_folder_hint(path: Path) -> str:
    """Where ``path`` is a Hugging Face model folder (config.json, no spaCy config.cfg), how to use it."""
    if not (path.is_dir() and (path / "config.json").is_file() and not (path / "config.cfg").is_file()):
        return ""
    return (
        f" ('{path}' is a Hugging Face model folder, not a spaCy pipeline: name it in a config, e.g. a copy "
        f'of configs/default.cfg with name = "{path.resolve()}" in [components.transformer.model.name], '
        "and pass that .cfg)"
    )


def _without_initialize_lexicons(config: Any) -> None:
    """Drop the lexicon_path and corpus of every ctxvec_polysemy component's
    [initialize.components.NAME] from ``config``."""
    settings = config.get("initialize", {}).get("components", {})
    for name, component in config.get("components", {}).items():
        if component.get("factory") == POLYSEMY_FACTORY and name in settings:
            settings[name] = {
                key: value for key, value in settings[name].items() if key not in ("lexicon_path", "corpus")
            }
