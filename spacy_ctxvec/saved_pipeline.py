"""Read the ctxvec_polysemy parts of a saved pipeline from disk, without loading its
model: the lexicon, senses, polysemy probe and the types' input embeddings, for the
commands that only need those (rank, word-senses, export-static, plot...).

A saved pipeline's component is read by the reader behind ``Polysemy.from_disk``
(components.polysemy_state.read_saved_parts), and every part its cfg.json lists must
be there, so a command refuses (E249, E652, E660...) exactly where ``spacy.load``
refuses for a missing or mismatched part, instead of falling back from the probe to
self-similarity. Each reader also takes the part's own directory (e.g. ``lexicon/``), and
the name of an installed pipeline package (as spacy.load does)."""

import configparser
import difflib
import re
from pathlib import Path
from typing import Any, Collection, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, Union

import numpy as np
from spacy.util import get_lang_class, get_model_meta, get_package_path, is_package, load_config
from thinc.api import ConfigValidationError

from .attributes import POLYSEMY_FACTORY
from .catalogue.command_errors import BUILD_SENSES_FIX, SENSES_FROM_SAMPLE_FIX
from .components import polysemy_state
from .components.induction_config import configured_induction
from .errors import CtxvecError, Errors, Warnings, warn_at_user_line
from .lexicon.induction_checks import has_context_rows, induced_otherwise
from .lexicon.polysemy_probe import PolysemyProbe, english_probe_warning
from .lexicon.sense_inventory import SENSES_FILE, SenseInventory
from .lexicon.statistics import Lexicon
from .lexicon.type_inputs import HEADER_FILE as INPUTS_HEADER
from .lexicon.type_inputs import TypeInputs


def pipeline_path(path: Union[str, Path]) -> Path:
    """``path``; or, where it names an installed pipeline package (``spacy package``), the package's
    data directory, the one spacy.load reads (which, as spaCy's, wins over a folder of that name here)."""
    path = Path(path)
    found = installed_pipeline(str(path)) if len(path.parts) == 1 else None
    return path if found is None else found[1]


def installed_pipeline(name: str) -> Optional[Tuple[str, Path]]:
    """(module, data directory) of the installed pipeline package ``name``, also given as pip names it
    ("en-core-web-sm" for en_core_web_sm); None where no pipeline package has that name (an installed
    package of another kind, such as numpy, included: spaCy's E053 there became a traceback)."""
    for module in dict.fromkeys((name, name.replace("-", "_"))):
        if not module.isidentifier() or not is_package(module):
            continue
        try:
            package = get_package_path(module)
            meta = get_model_meta(package)
            data = package / f"{meta['lang']}_{meta['name']}-{meta['version']}"
        except (ImportError, OSError, KeyError, ValueError, TypeError):
            continue
        if data.is_dir():
            return module, data
    return None


def saved_config(path: Path) -> Any:
    """The config file at ``path``, not interpolated (read_config's errors: they reached users
    as tracebacks)."""
    return read_config(path, path)


def read_config(path: Path, name: Union[str, Path]) -> Any:
    """spaCy's load_config(path), not interpolated; E065 where a section or setting is given twice, E029 where a section
    comes before its parent or without it (misplaced or misspelt), naming the config ``name``."""
    try:
        return load_config(path)
    except configparser.Error as err:
        raise given_twice(name, err) from err
    except (KeyError, ConfigValidationError) as err:  # confection: a [a.b] section before its parent [a]
        text = path.read_text(encoding="utf8")
        orphan = section_before_parent(text, err)
        if orphan is None:
            raise
        parents = ", ".join(f"[{parent}]" for parent in orphan[1]) + (", in this order," if len(orphan[1]) > 1 else "")
        misspelt = misspelt_parent(text, orphan[1])
        raise CtxvecError(Errors.E029.format(name=name, section=orphan[0], parents=parents, misspelt=misspelt)) from err


_SECTION_HEADER = re.compile(r"(?m)^\s*\[([^\]\n]+)\]")  # a header may have a comment after it


def section_before_parent(text: str, err: Union[KeyError, ConfigValidationError]) -> Optional[Tuple[str, List[str]]]:
    """(section, the sections it belongs under that are not above it, topmost first) of a
    section of config ``text`` placed before its parents or without them: what confection's
    KeyError or "Section 'X' is not defined" ``err`` (each names only one key) is about; the
    first such section with a parent ending in that key, else the first; None where ``err``
    is another error."""
    if isinstance(err, KeyError):
        key = str(err.args[0]) if err.args else "?"
    else:
        undefined = [re.match(r"Section '(.+)' is not defined", str(e.get("msg", ""))) for e in err.errors or []]
        key = next((found.group(1) for found in undefined if found), "")
        if not key:
            return None
    above: Set[str] = set()
    orphans: List[Tuple[str, List[str]]] = []
    for header in _SECTION_HEADER.findall(text):
        header = header.strip()
        parts = header.split(".")
        ancestors = [".".join(parts[:n]) for n in range(1, len(parts))]
        missing = [ancestor for ancestor in ancestors if ancestor not in above]
        if missing:
            orphans.append((header, missing))
        above.add(header)
    named = [orphan for orphan in orphans if any(parent.rpartition(".")[2] == key for parent in orphan[1])]
    return (named or orphans or [(f"{key}.…", [key])])[0]


def misspelt_parent(text: str, parents: List[str]) -> str:
    """E029's hint where the nearest missing parent reads like a misspelling of a section config
    ``text`` has at the same depth (``[components.transformerr.model]`` beside
    ``[components.transformer]``, or ``[componets]`` above ``[components.transformer]``); which
    of the two is misspelt is the user's to say. "" where no section is that close."""
    parent = parents[-1]
    headers = {header.strip() for header in _SECTION_HEADER.findall(text)}
    peers = sorted(header for header in headers if header.count(".") == parent.count(".") and header != parent)
    close = difflib.get_close_matches(parent, peers, n=1, cutoff=0.85)
    if not close:
        return ""
    return f" The config has no [{parent}] but has [{close[0]}]: if one of those two names is misspelt, correct it."


def given_twice(config: Union[str, Path], err: configparser.Error) -> CtxvecError:
    """E065 for a config whose section or setting is given twice (configparser's ``err``)."""
    error = re.sub(r"^While reading from '<string>' \[line\s+(\d+)\]", r"line \1", str(err)).rstrip(".")
    return CtxvecError(Errors.E065.format(name=config, error=error))


def check_component_names(config: Any, pipeline: Union[str, Path]) -> None:
    """E064 where a component name of ``config`` (a pipeline's config) is a path (absolute, with a
    separator, "." or ".."): spaCy reads and writes a component's files at the pipeline's folder /
    name, which then lies elsewhere. Also the components it sources (``source = ...``): the name
    taken from each, and the names of the saved pipeline it is taken from, which spaCy loads whole."""
    _check_names(_component_names(config), pipeline)
    for name, block in config.get("components", {}).items():
        if isinstance(block, dict) and isinstance(block.get("source"), str):
            _check_names([block.get("component", name)], pipeline)
            source = pipeline_path(block["source"])
            if (source / "config.cfg").is_file():
                _check_names(_component_names(saved_config(source / "config.cfg")), source)


def _component_names(config: Any) -> List[Any]:
    """The names a config gives its components: its [components.NAME] sections and [nlp] pipeline."""
    return [*config.get("components", {}), *config.get("nlp", {}).get("pipeline", [])]


def _check_names(names: Iterable[Any], pipeline: Union[str, Path]) -> None:
    for name in names:
        if (
            not isinstance(name, str)
            or name in ("", ".", "..")
            or "/" in name
            or "\\" in name
            or Path(name).name != name
        ):
            raise CtxvecError(Errors.E064.format(pipeline=pipeline, component=name))


def polysemy_component_dir(path: Union[str, Path]) -> Optional[Tuple[Path, str]]:
    """(directory, name) of the first ctxvec_polysemy component of the saved pipeline at
    ``path`` (or installed package) that saved a directory; None if it is not such a pipeline."""
    found = _polysemy_component(path)
    return None if found is None else found[:2]


def _polysemy_component(path: Union[str, Path]) -> Optional[Tuple[Path, str, Dict[str, Any]]]:
    """polysemy_component_dir plus the component's config block (config.cfg read once)."""
    path = pipeline_path(path)
    if not (path / "config.cfg").is_file():
        return None
    config = saved_config(path / "config.cfg")
    check_component_names(config, path)
    ours = [
        (name, block)
        for name, block in config.get("components", {}).items()
        if isinstance(block, dict) and block.get("factory") == POLYSEMY_FACTORY
    ]
    for name, block in ours:
        if (path / name).is_dir():
            return path / name, name, block
    lost = [name for name, _ in ours if name in config.get("nlp", {}).get("pipeline", [])]
    if lost:  # as spacy.load says (E068), not "no such component" (E225) or "no senses" (E606)
        raise CtxvecError(Errors.E068.format(path=path / lost[0], name=lost[0]))
    return None


def polysemy_setting(path: Union[str, Path], key: str, default: Any) -> Any:
    """A setting of the saved pipeline's ctxvec_polysemy block in its config.cfg (such as
    ``score`` or ``min_count``); ``default`` where it is not set or ``path`` is not such a
    pipeline (a bare lexicon directory)."""
    found = _polysemy_component(path)
    value = None if found is None else found[2].get(key)
    return default if value is None else value


DEFAULT_MIN_COUNT = 5  # for a lexicon directory, which has no component settings


def scoring_min_count(path: Union[str, Path], given: Optional[int]) -> int:
    """``given`` (--min-count), else the saved pipeline's ctxvec_polysemy min_count (at
    least 2), else DEFAULT_MIN_COUNT for a lexicon directory: what `rank` and `plot
    polysemy` score words from."""
    if given is not None:  # 0 or 1 too: the scoring refuses them (E208), never replaced silently
        return given
    return max(2, int(polysemy_setting(path, "min_count", DEFAULT_MIN_COUNT)))


def english_probe_note(path: Union[str, Path], probe: Any, used: str) -> Optional[str]:
    """W058 where the saved pipeline at ``path`` scores words of another language than English with
    ``probe`` fitted on English sense counts (``used``: the score used); None for a lexicon directory."""
    found = _polysemy_component(path)
    return None if found is None else english_probe_warning(probe, used, pipeline_lang(path), found[1])


def pipeline_stop_words(path: Union[str, Path]) -> FrozenSet[str]:
    """The stop words of the saved pipeline's language (``[nlp] lang`` of its config.cfg:
    spaCy's ``Defaults.stop_words``, lowercase); E264 where ``path`` is not such a pipeline, W082
    where the language has no list."""
    lang = pipeline_lang(path)
    if not lang:
        raise CtxvecError(Errors.E264.format(path=path))
    stop_words = frozenset(get_lang_class(lang).Defaults.stop_words)
    if not stop_words:
        warn_at_user_line(Warnings.W082.format(lang=lang, where=path, effect="no word is left out as a stop word"))
    return stop_words


def pipeline_lang(path: Union[str, Path]) -> Optional[str]:
    """``[nlp] lang`` of the saved pipeline's config.cfg, None where ``path`` has none."""
    config = pipeline_path(path) / "config.cfg"
    lang = saved_config(config).get("nlp", {}).get("lang") if config.is_file() else None
    return lang if isinstance(lang, str) and lang else None


def read_pipeline_parts(path: Union[str, Path], wanted: Collection[str]) -> Optional[polysemy_state.SavedParts]:
    """The ``wanted`` parts (of PARTS) of the saved pipeline at ``path``, None if it is
    not a pipeline with a ctxvec_polysemy directory. Every part its cfg.json lists is
    checked to be there (E249), as spacy.load does, and the parts read must match."""
    found = polysemy_component_dir(path)
    return None if found is None else _read_component_parts(found, wanted)


def _read_component_parts(found: Tuple[Path, str], wanted: Collection[str]) -> polysemy_state.SavedParts:
    directory, name = found
    return polysemy_state.read_saved_parts(
        directory, name=name, exclude=[p for p in polysemy_state.PARTS if p not in wanted], check_all=True
    )


def load_lexicon(path: Union[str, Path]) -> Lexicon:
    """A Lexicon from a lexicon directory, or from the ctxvec_polysemy component of a
    saved pipeline directory; E322 if that component has no lexicon yet, E225 if there
    is no such component; E233 for a config file."""
    path = not_a_config(pipeline_path(path))
    if (path / "lexicon.json").exists():
        return Lexicon.from_disk(path)
    found = polysemy_component_dir(path)  # read once: the component's name is in E322
    if found is None:
        why = (
            "it is not a lexicon directory, nor a pipeline with a 'ctxvec_polysemy' component"
            if path.exists()
            else "no such file, directory or installed pipeline package"
        )
        raise CtxvecError(Errors.E225.format(path=path, why=why))
    parts = _read_component_parts(found, (polysemy_state.LEXICON_DIR,))
    if parts.lexicon is None:
        raise CtxvecError(Errors.E322.format(path=path, name=found[1]))
    return parts.lexicon


def load_senses(path: Union[str, Path]) -> SenseInventory:
    """A SenseInventory from a senses directory, or from the ctxvec_polysemy component
    of a saved pipeline directory (checked against its lexicon); E606 if there are none
    (E616 if ``path`` does not exist)."""
    return load_senses_and_lexicon(path)[0]


def not_a_config(path: Path) -> Path:
    """``path``; E233 where it is a config file (.cfg): it holds no lexicon or senses, and
    build-lexicon makes a pipeline that does from it."""
    if path.suffix == ".cfg" and path.is_file():
        raise CtxvecError(Errors.E233.format(path=path))
    return path


def existing_path(path: Union[str, Path]) -> Path:
    """pipeline_path(path); E616 where no such path or installed package exists."""
    found = pipeline_path(path)
    if not found.exists():
        raise CtxvecError(Errors.E616.format(path=path))
    return found


def load_senses_and_lexicon(path: Union[str, Path]) -> Tuple[SenseInventory, Optional[Lexicon]]:
    """load_senses, and the lexicon read with them from a saved pipeline (None from a
    senses directory, which holds none); E616 if ``path`` does not exist, E233 for a config file."""
    path = not_a_config(existing_path(path))
    if (path / SENSES_FILE).exists():
        return SenseInventory.from_disk(path), None
    found = _polysemy_component(path)  # read here, not by read_pipeline_parts: E606 names the component
    if found is None:
        raise CtxvecError(Errors.E606.format(path=path, fix=BUILD_SENSES_FIX))
    parts = _read_component_parts(found[:2], (polysemy_state.SENSES_DIR, polysemy_state.LEXICON_DIR))
    if parts.senses is None:
        sample = None if parts.lexicon is None else parts.lexicon.sample
        from_sample = sample is not None and len(sample.keys) > 0
        fix = SENSES_FROM_SAMPLE_FIX.format(path=path, name=found[1]) if from_sample else BUILD_SENSES_FIX
        raise CtxvecError(Errors.E606.format(path=path, fix=fix))
    _warn_if_induced_otherwise(found[1], found[2], parts.senses, parts.lexicon)
    return parts.senses, parts.lexicon


def _warn_if_induced_otherwise(
    name: str, block: Dict[str, Any], senses: SenseInventory, lexicon: Optional[Lexicon]
) -> None:
    """W062, as spacy.load warns, where the saved senses were induced with other settings than
    the component's config ``block`` gives (edited since, or saved before a setting existed)."""
    settings = configured_induction(block, name)
    if settings is None:
        return
    differences = induced_otherwise(settings, senses.settings, has_context_rows(lexicon))
    if differences:
        warn_at_user_line(Warnings.W062.format(name=name, differences="; ".join(differences)))


def load_probe(path: Union[str, Path]) -> Optional[PolysemyProbe]:
    """A polysemy probe from a probe directory, or the one saved beside the lexicon of a
    saved pipeline (checked against the input embeddings saved for it); None if there is none."""
    path = pipeline_path(path)
    if (path / "probe.json").exists():
        return PolysemyProbe.from_disk(path)
    parts = read_pipeline_parts(path, (polysemy_state.PROBE_DIR, polysemy_state.INPUTS_DIR))
    return None if parts is None else parts.probe


def load_pipeline_inputs(path: Union[str, Path], lexicon: Lexicon) -> Optional[np.ndarray]:
    """The input embeddings saved beside ``lexicon`` (an inputs directory, or a saved
    pipeline's, checked against its probe), or None; E652 if they belong to other keys."""
    path = pipeline_path(path)
    if (path / INPUTS_HEADER).exists():
        return TypeInputs.from_disk(path).check_lexicon(lexicon, str(path))
    parts = read_pipeline_parts(path, (polysemy_state.INPUTS_DIR, polysemy_state.PROBE_DIR))
    if parts is None or parts.inputs is None:
        return None
    return parts.inputs.check_lexicon(lexicon, str(path))
