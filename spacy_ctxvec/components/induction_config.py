"""[components.ctxvec_polysemy.induction] in config: the registered function that builds
the sense-induction settings (spacy_ctxvec.ops.senses.SenseInductionSettings, in the
manner of curated-transformers' config dataclasses), and the migration of the flat keys
that pipelines saved before that block carry (W010)."""

from typing import Any, Dict, Optional

from spacy.language import Language
from spacy.util import registry

from ..errors import Warnings, warn_at_user_line
from ..ops.senses import SenseInductionSettings
from ..registrations import registered

_DEFAULT_INDUCTION = SenseInductionSettings()
_NULLABLE_SETTINGS = ("split_threshold", "split_percentile")
_FUNCTION = "spacy-ctxvec.sense_induction.v1"
# The flat keys of configs saved before the [induction] block (make_polysemy folds them in, W010)
_LEGACY_SETTINGS = (
    "split_threshold",
    "split_percentile",
    "cut_distance",
    "max_senses",
    "min_tokens",
    "min_share",
    "n_directions",
    "context_weight",
    "split_by_probe",
)


@registered("misc", _FUNCTION)
def configure_sense_induction(
    split_threshold: Optional[float] = _DEFAULT_INDUCTION.split_threshold,
    split_percentile: Optional[float] = _DEFAULT_INDUCTION.split_percentile,
    cut_distance: float = _DEFAULT_INDUCTION.cut_distance,
    max_senses: int = _DEFAULT_INDUCTION.max_senses,
    min_tokens: int = _DEFAULT_INDUCTION.min_tokens,
    min_share: float = _DEFAULT_INDUCTION.min_share,
    min_support: int = _DEFAULT_INDUCTION.min_support,
    n_directions: int = _DEFAULT_INDUCTION.n_directions,
    context_weight: float = _DEFAULT_INDUCTION.context_weight,
    split_by_probe: bool = _DEFAULT_INDUCTION.split_by_probe,
    split_by_evidence: bool = _DEFAULT_INDUCTION.split_by_evidence,
    words_only: bool = _DEFAULT_INDUCTION.words_only,
) -> SenseInductionSettings:
    """[components.ctxvec_polysemy.induction]: the sense-induction settings (see
    spacy_ctxvec.ops.senses.SenseInductionSettings; E603 for a value out of range)."""
    return SenseInductionSettings(
        split_threshold=split_threshold,
        split_percentile=split_percentile,
        cut_distance=cut_distance,
        max_senses=max_senses,
        min_tokens=min_tokens,
        min_share=min_share,
        min_support=min_support,
        n_directions=n_directions,
        context_weight=context_weight,
        split_by_probe=split_by_probe,
        split_by_evidence=split_by_evidence,
        words_only=words_only,
    )


def fold_legacy_settings(
    induction: SenseInductionSettings, legacy: Dict[str, Any], name: str = "ctxvec_polysemy"
) -> SenseInductionSettings:
    """``induction`` with the flat settings of an older config (W010) put in. None is
    "not given", except that ``split_percentile = null`` keeps its meaning (the shipped
    thresholds) in a config that gives every other flat setting but ``split_threshold``,
    as every saved pipeline's does."""
    given = {setting: value for setting, value in legacy.items() if value is not None}
    whole = all(legacy.get(setting) is not None for setting in legacy if setting not in _NULLABLE_SETTINGS)
    if whole and legacy.get("split_percentile") is None:
        given["split_percentile"] = None
    if not given:
        return induction
    warn_at_user_line(Warnings.W010.format(name=name, settings=", ".join(sorted(given))))
    return induction.replace(**given)


def configured_induction(block: Dict[str, Any], name: str) -> Optional[SenseInductionSettings]:
    """The sense-induction settings a saved pipeline's ctxvec_polysemy config ``block`` gives
    (its [induction] block, flat keys folded in as make_polysemy does); None where the block
    cannot be resolved on its own (a reference to another section, a value out of range:
    spacy.load says so)."""
    try:
        induction = registry.resolve({"induction": block.get("induction", {"@misc": _FUNCTION})})["induction"]
    except ValueError:  # confection's, catalogue's and the settings' own (E603) errors alike
        return None
    if not isinstance(induction, SenseInductionSettings):
        return None
    return fold_legacy_settings(induction, {setting: block.get(setting) for setting in _LEGACY_SETTINGS}, name)


def write_induction_config(nlp: Language, name: str, settings: SenseInductionSettings) -> None:
    """Write ``settings`` as component ``name``'s [induction] block in ``nlp``'s config (the
    flat keys of an older config cleared: they would fold over the block on loading)."""
    block = nlp.get_pipe_config(name)
    block["induction"] = {"@misc": _FUNCTION, **settings.to_dict()}
    for setting in _LEGACY_SETTINGS:
        if block.get(setting) is not None:
            block[setting] = None
