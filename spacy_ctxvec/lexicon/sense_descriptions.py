"""One-line descriptions of how a SenseInventory was induced, from its recorded
``settings`` (what build-lexicon, fit-polysemy and evaluate senses print)."""

from typing import Any, Dict

from ..ops.senses import SPLIT_THRESHOLDS, split_threshold_for


def describe_context(settings: Dict[str, Any]) -> str:
    """What an inventory's senses were clustered on (its ``settings``)."""
    if settings.get("context_window"):
        return (
            f"clustered on each occurrence joined to the mean vector of the {settings['context_window']} tokens "
            f"either side (context weight {settings['context_weight']:g})"
        )
    return "clustered on the occurrences' own vectors (no context vectors in the sample, or context weight 0)"


def describe_split_thresholds(settings: Dict[str, Any]) -> str:
    """One line on how an inventory decided which types split (its ``settings``), with the
    spread thresholds that ``evaluate senses`` uses where the probe scores no word."""
    if settings.get("split_rule") == "probe":
        return (
            f"{describe_split_rule(settings)}; "
            f"elsewhere (in evaluate senses: words the probe does not score) {_describe_thresholds(settings)}"
        )
    if settings.get("split_rule") == "evidence":
        return describe_split_rule(settings)
    return _describe_thresholds(settings)


def describe_split_rule(settings: Dict[str, Any]) -> str:
    """The split rule an inventory's senses were induced by, named, in one clause."""
    if settings.get("split_rule") == "evidence":
        return (
            "types split where this corpus's evidence says their uses form groups or differ (split_by_evidence; "
            f"at least {settings.get('min_support', 3)} occurrences per sense)"
        )
    if settings.get("split_rule") == "probe":
        return f"types split where the polysemy probe estimates more than {settings['split_senses']:.2f} senses"
    return f"types split where their sample's spread exceeds the threshold ({_describe_thresholds(settings)})"


def _describe_thresholds(settings: Dict[str, Any]) -> str:
    if settings.get("split_threshold") is not None:
        return f"split threshold {settings['split_threshold']:g} at every sample size"
    table = [(int(n), float(t)) for n, t in settings.get("split_thresholds") or SPLIT_THRESHOLDS]
    values = ", ".join(f"{split_threshold_for(n, table=table):.3f} at n={n}" for n in (10, 64))
    if settings.get("split_calibrated_sizes"):
        return (
            f"split thresholds calibrated on this corpus (percentile {settings['split_percentile']:g} of the "
            f"spreads of types with as many occurrences, at {settings['split_calibrated_sizes']} sample sizes): "
            f"{values}"
        )
    if "split_percentile" not in settings:
        reason = "induced before calibration on the corpus existed"
    else:
        reason = "split_percentile is null" if settings["split_percentile"] is None else "too few types to calibrate"
    return f"the shipped split thresholds ({reason}): {values}"
