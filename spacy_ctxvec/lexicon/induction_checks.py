"""What the sense-induction settings say against the data and the saved senses: the
warnings of an induction (W033, W060: the evidence rule off the scale its thresholds were
measured on; W061: settings its split rule does not read) and the settings a saved
inventory was induced with that differ from a pipeline's (W062)."""

import dataclasses
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ..errors import CtxvecError, Warnings
from ..ops.fingerprint import vectors_differ, with_model
from ..ops.sense_evidence_tables import TABLES_CONTEXT_WEIGHT, TABLES_MODEL, TABLES_VECTORS
from ..ops.senses import SenseInductionSettings
from .statistics import CONTEXT_VECTORS_META, Lexicon

# The settings the evidence rule (split_by_evidence) does not read: the probe and spread rules do.
EVIDENCE_UNREAD = ("split_threshold", "split_percentile", "cut_distance", "min_tokens", "min_share", "split_by_probe")
# Defaults of earlier versions, which pipelines saved then carry in their config (spaCy saves the
# block whole; configs from before split_percentile existed fold it to null): no warning where unread.
_FORMER_DEFAULTS: Mapping[str, Tuple[Any, ...]] = {"split_percentile": (82.0, None)}
_DEFAULTS = SenseInductionSettings()
# How senses were induced before a setting existed (and was recorded): every type had senses,
# a sense could rest on one occurrence, and the spread test split (split_rule was recorded before
# the probe or evidence rules could split). A record without the setting was induced so.
BEFORE_RECORDED: Mapping[str, Any] = {"words_only": False, "min_support": 1, "split_rule": "spread"}


def has_context_rows(lexicon: Optional[Lexicon]) -> bool:
    """Whether ``lexicon``'s sample keeps context vectors (what context_weight weighs)."""
    return lexicon is not None and lexicon.sample is not None and lexicon.sample.contexts is not None


def unread_settings(settings: SenseInductionSettings) -> Dict[str, Any]:
    """The settings set away from their defaults that ``settings``' split rule does not read
    (under ``split_by_evidence``: EVIDENCE_UNREAD); empty under the probe and spread rules."""
    if not settings.split_by_evidence:
        return {}
    return {
        name: getattr(settings, name)
        for name in EVIDENCE_UNREAD
        if getattr(settings, name) != getattr(_DEFAULTS, name)
        and getattr(settings, name) not in _FORMER_DEFAULTS.get(name, ())
    }


def induction_warnings(
    settings: SenseInductionSettings, lexicon: Optional[Lexicon], name: str, model: Optional[str] = None
) -> List[str]:
    """The warnings of inducing ``lexicon``'s senses with ``settings``: W033 where the
    evidence rule meets a lexicon of other vectors than its thresholds were measured on (or
    a pipeline of another ``model``, an embedding fingerprint, where known; lexicons that do
    not record their vectors are not checked), W060 where it weighs context rows at another
    weight, W061 for settings the split rule does not read."""
    found = []
    unread = unread_settings(settings)
    if unread:
        given = ", ".join(f"{setting} = {value!r}" for setting, value in unread.items())
        found.append(Warnings.W061.format(name=name, given=given))
    if not settings.split_by_evidence or lexicon is None:
        return found
    made = lexicon.meta.get(CONTEXT_VECTORS_META)
    other_model = model not in (None, TABLES_MODEL)
    if made is not None and (vectors_differ(with_model(TABLES_VECTORS, TABLES_MODEL), made) or other_model):
        of_model = " of another model (or of all-MiniLM-L6-v2 with other weights, e.g. fine-tuned)"
        of_model = of_model if other_model else ""
        found.append(Warnings.W033.format(name=name, measured=TABLES_VECTORS, vectors=made, model=of_model))
    if has_context_rows(lexicon) and settings.context_weight != TABLES_CONTEXT_WEIGHT:
        found.append(Warnings.W060.format(name=name, measured=TABLES_CONTEXT_WEIGHT, weight=settings.context_weight))
    return found


def induced_otherwise(settings: SenseInductionSettings, record: Mapping[str, Any], with_contexts: bool) -> List[str]:
    """The settings (as "name: recorded -> given") that differ between ``settings`` and
    those a saved inventory's ``record`` was induced with, among those the record names
    and its split rule read (a sample without context rows has nothing to weigh), the split
    rule too (a config saved before split_by_evidence existed
    takes today's default, the evidence rule, while its senses were induced by another: told,
    so that build_senses does not switch the rule unsaid; so are the settings BEFORE_RECORDED
    gives where the record predates them). A record out of range (damaged)
    is left to the inventory's own checks: nothing is compared."""
    unrecorded = {name: value for name, value in BEFORE_RECORDED.items() if name not in record}
    try:
        recorded = SenseInductionSettings.from_record({**record, **unrecorded})
    except CtxvecError:
        return []
    compared = {**record, **unrecorded, "split_by_evidence": None}
    names = [field.name for field in dataclasses.fields(SenseInductionSettings) if field.name in compared]
    if recorded.split_by_evidence and settings.split_by_evidence:
        names = [name for name in names if name not in EVIDENCE_UNREAD]
    if not with_contexts:
        names = [name for name in names if name != "context_weight"]
    return [
        f"{name}: {getattr(recorded, name)!r} -> {getattr(settings, name)!r}"
        for name in names
        if getattr(recorded, name) != getattr(settings, name)
    ]
