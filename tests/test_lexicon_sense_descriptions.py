"""spacy_ctxvec.lexicon.sense_descriptions: what an inventory's recorded settings say
about how its senses were split and clustered."""

from spacy_ctxvec.lexicon.sense_descriptions import describe_context, describe_split_thresholds
from spacy_ctxvec.ops.senses import SPLIT_THRESHOLDS, split_threshold_for


def test_each_split_rule_is_described_with_its_numbers():
    at_10, at_64 = (split_threshold_for(n, table=SPLIT_THRESHOLDS) for n in (10, 64))
    shipped = describe_split_thresholds({"split_percentile": 82.0, "split_calibrated_sizes": 0})
    assert (
        shipped
        == f"the shipped split thresholds (too few types to calibrate): {at_10:.3f} at n=10, {at_64:.3f} at n=64"
    )
    assert describe_split_thresholds({"split_percentile": None}).startswith(
        "the shipped split thresholds (split_percentile is null)"
    )
    assert "before calibration on the corpus existed" in describe_split_thresholds({})
    calibrated = {"split_percentile": 82.0, "split_calibrated_sizes": 3, "split_thresholds": [[4, 0.1], [64, 0.3]]}
    assert describe_split_thresholds(calibrated) == (
        "split thresholds calibrated on this corpus (percentile 82 of the spreads of types with as many "
        "occurrences, at 3 sample sizes): 0.120 at n=10, 0.300 at n=64"
    )
    assert describe_split_thresholds({"split_threshold": 0.25}) == "split threshold 0.25 at every sample size"
    by_probe = describe_split_thresholds({"split_rule": "probe", "split_senses": 2.84, "split_threshold": 0.25})
    assert by_probe.startswith("types split where the polysemy probe estimates more than 2.84 senses; elsewhere")
    assert by_probe.endswith("split threshold 0.25 at every sample size")


def test_the_context_is_described_from_the_window_and_weight():
    assert describe_context({"context_window": 5, "context_weight": 1.0}) == (
        "clustered on each occurrence joined to the mean vector of the 5 tokens either side (context weight 1)"
    )
    assert describe_context({"context_window": 0}) == (
        "clustered on the occurrences' own vectors (no context vectors in the sample, or context weight 0)"
    )
