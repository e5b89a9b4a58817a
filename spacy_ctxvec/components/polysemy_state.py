"""What a ctxvec_polysemy component saves, and how it is read back: the shared reader
behind ``Polysemy.from_disk`` / ``from_bytes`` and the saved-pipeline readers
(spacy_ctxvec.saved_pipeline), so that a command reading a saved pipeline's files
refuses exactly where ``spacy.load`` does.

On disk a component directory holds ``cfg.json`` ({"has_lexicon", "has_senses",
"has_probe", "has_inputs"}: what was saved) and one directory per saved part:
``lexicon/``, ``senses/``, ``probe/``, ``inputs/`` (each part's own .npy + JSON). A part
that cfg.json says was saved and whose directory is gone is E249, not a missing part;
a damaged part is its own coded error; parts that disagree with each other (input
embeddings of another width than the probe reads, senses of another width than the
lexicon) are E660. In bytes the parts are one msgpack dict of each part's bytes."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Optional, Union

import srsly
from spacy import util

from ..errors import CtxvecError, Errors
from ..lexicon.polysemy_probe import PolysemyProbe
from ..lexicon.sense_inventory import SenseInventory
from ..lexicon.statistics import Lexicon
from ..lexicon.storage import BYTES_SOURCE
from ..lexicon.type_inputs import TypeInputs

LEXICON_DIR = "lexicon"
SENSES_DIR = "senses"
PROBE_DIR = "probe"
INPUTS_DIR = "inputs"  # the lexicon types' input embeddings, for a probe that reads them
PARTS = (LEXICON_DIR, SENSES_DIR, PROBE_DIR, INPUTS_DIR)  # also the names ``exclude`` takes
CFG_FILE = "cfg.json"
_FLAGS = {LEXICON_DIR: "has_lexicon", SENSES_DIR: "has_senses", PROBE_DIR: "has_probe", INPUTS_DIR: "has_inputs"}
_WHAT = {
    LEXICON_DIR: "a lexicon was saved",
    SENSES_DIR: "senses were saved",
    PROBE_DIR: "a polysemy probe was saved",
    INPUTS_DIR: "input embeddings were saved",
}
_READERS: Dict[str, Callable[[Path], Any]] = {
    LEXICON_DIR: Lexicon.from_disk,
    SENSES_DIR: SenseInventory.from_disk,
    PROBE_DIR: PolysemyProbe.from_disk,
    INPUTS_DIR: TypeInputs.from_disk,
}
_BYTES_READERS: Dict[str, Callable[[bytes], Any]] = {
    LEXICON_DIR: Lexicon.from_bytes,
    SENSES_DIR: SenseInventory.from_bytes,
    PROBE_DIR: PolysemyProbe.from_bytes,
    INPUTS_DIR: TypeInputs.from_bytes,
}


def _not_bytes(name: str, value: Any) -> CtxvecError:
    problem = f"damaged component bytes (the {name} part is {type(value).__name__}, not bytes)"
    if name == SENSES_DIR:
        return CtxvecError(Errors.E601.format(path=BYTES_SOURCE, problem=problem))
    if name in (PROBE_DIR, INPUTS_DIR):
        return CtxvecError(Errors.E652.format(path=BYTES_SOURCE, problem=problem))
    return CtxvecError(Errors.E207.format(path=BYTES_SOURCE, problem=problem))


@dataclass
class SavedParts:
    """The parts read back from a saved component (None: not saved, or not read)."""

    lexicon: Optional[Lexicon] = None
    senses: Optional[SenseInventory] = None
    probe: Optional[PolysemyProbe] = None
    inputs: Optional[TypeInputs] = None

    def check_matching(self, source: str) -> None:
        """E652 for input embeddings of another lexicon's keys; E660 for parts that disagree."""
        lexicon, senses, probe, inputs = self.lexicon, self.senses, self.probe, self.inputs
        if inputs is not None and lexicon is not None:
            inputs.check_lexicon(lexicon, source)
        if inputs is not None and probe is not None and inputs.width != probe.input_width:
            reads = f"reads {probe.input_width} values per type" if probe.input_width else "reads none"
            raise CtxvecError(
                Errors.E660.format(
                    path=source, problem=f"the input embeddings have width {inputs.width} and the probe {reads}"
                )
            )
        if senses is not None and lexicon is not None and len(senses):
            _check_senses_of_lexicon(senses, lexicon, source)


def _check_senses_of_lexicon(senses: SenseInventory, lexicon: Lexicon, source: str) -> None:
    """E660 for senses not induced from ``lexicon``: another width or key mode, or words it
    does not have (a senses folder of another build, or a word renamed by hand)."""
    problem = None
    if senses.width != lexicon.width:
        problem = f"the senses have width {senses.width} and the lexicon {lexicon.width}"
    elif (senses.settings.get("key") or "lower") != (lexicon.meta.get("key") or "lower"):
        problem = f"the senses have key mode {senses.settings.get('key')!r} and the lexicon {lexicon.meta.get('key')!r}"
    else:
        missing = [key for key in senses.keys if lexicon.index(key) is None]
        if missing:
            shown = ", ".join(repr(key) for key in missing[:3])
            problem = f"{len(missing)} of the senses' {len(senses)} words are not in the lexicon ({shown})"
    if problem is not None:
        raise CtxvecError(Errors.E660.format(path=source, problem=problem))


def flags_of(cfg: Any) -> Optional[Dict[str, bool]]:
    """What a cfg ({"has_lexicon": bool, ...}) says was saved; None if it is damaged."""
    if not isinstance(cfg, dict) or not isinstance(cfg.get("has_lexicon"), bool):
        return None
    if not all(isinstance(cfg.get(flag, False), bool) for flag in _FLAGS.values()):
        return None
    return {part: cfg.get(flag, False) for part, flag in _FLAGS.items()}


def saved_flags(path: Path, name: str) -> Dict[str, bool]:
    """What the component directory ``path`` says was saved (cfg.json; without one, as
    in saves older than it, the directories present). E249 for a damaged cfg.json."""
    if not (path / CFG_FILE).exists():
        return {part: (path / part).exists() for part in PARTS}
    try:
        flags = flags_of(srsly.read_json(path / CFG_FILE))
    except ValueError:
        flags = None
    if flags is None:
        raise CtxvecError(Errors.E249.format(name=name, path=path, problem=f"{CFG_FILE} is damaged"))
    return flags


def read_saved_parts(
    path: Union[str, Path], *, name: str, exclude: Iterable[str] = (), check_all: bool = False
) -> SavedParts:
    """The parts saved in the component directory ``path``, but those in ``exclude``,
    read through spaCy's ``util.from_disk``. E249 when a saved part's directory is gone
    (for every part with ``check_all``, else for those read); then each part's own
    checks, then ``SavedParts.check_matching``."""
    path, exclude = Path(path), set(exclude)
    saved = saved_flags(path, name)
    for part in PARTS:
        if saved[part] and (check_all or part not in exclude) and not (path / part).is_dir():
            problem = f"{_WHAT[part]} but the directory '{path / part}' is missing"
            raise CtxvecError(Errors.E249.format(name=name, path=path, problem=problem))
    parts = SavedParts()

    def reader(part: str) -> Callable[[Path], None]:
        return lambda part_path: setattr(parts, part, _READERS[part](part_path))

    util.from_disk(path, {part: reader(part) for part in PARTS if saved[part]}, exclude)
    parts.check_matching(str(path))
    return parts


def parts_from_bytes(bytes_data: bytes, exclude: Iterable[str] = ()) -> SavedParts:
    """The parts in component bytes (``Polysemy.to_bytes``: a "cfg" entry as on disk,
    then each part's bytes), but those in ``exclude``, read through spaCy's
    ``util.from_dict``; damaged bytes, or a part the cfg lists and the bytes lack, are
    coded errors (E207, or the part's own)."""

    def damaged(problem: str) -> CtxvecError:
        return CtxvecError(Errors.E207.format(path=BYTES_SOURCE, problem=f"damaged component bytes ({problem})"))

    try:
        message = srsly.msgpack_loads(bytes_data)
    except Exception as err:  # msgpack: truncated, garbage, empty
        raise damaged(type(err).__name__) from None
    if not isinstance(message, dict) or not ("cfg" in message or LEXICON_DIR in message):  # older bytes: no cfg
        raise damaged("not the bytes of a ctxvec_polysemy component")
    if "cfg" in message:
        flags = flags_of(message["cfg"])
        if flags is None:
            raise damaged("the cfg entry is damaged")
        missing = [part for part in PARTS if flags[part] and part not in exclude and message.get(part) is None]
        if missing:
            raise damaged(f"{', '.join(missing)} listed as saved but absent")
    parts = SavedParts()

    def setter(part: str) -> Callable[[Any], None]:
        def set_part(value: Any) -> None:
            if value is not None and not isinstance(value, bytes):
                raise _not_bytes(part, value)
            setattr(parts, part, None if value is None else _BYTES_READERS[part](value))

        return set_part

    util.from_dict(message, {part: setter(part) for part in PARTS}, exclude)
    parts.check_matching(BYTES_SOURCE)
    return parts


def lexicon_directory(path: Union[str, Path], factory: str) -> Path:
    """``path`` (an initialize lexicon_path), or E237 naming the lexicon folder inside where it
    is a saved pipeline (``factory``: the component's, whose folder holds it)."""
    path = Path(path)
    if (path / "config.cfg").is_file() and not (path / "lexicon.json").is_file():
        inside = sorted(path.glob("*/lexicon/lexicon.json"))
        lexicon = inside[0].parent if inside else path / factory / "lexicon"
        raise CtxvecError(Errors.E237.format(path=path, lexicon=lexicon))
    return path
