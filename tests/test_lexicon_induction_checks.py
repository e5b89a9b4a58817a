import warnings

import pytest

from spacy_ctxvec.lexicon.induction_checks import induced_otherwise, induction_warnings, unread_settings
from spacy_ctxvec.lexicon.sense_induction import induce_inventory
from spacy_ctxvec.ops.senses import SenseInductionSettings

from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic, with_context_meanings

EVIDENCE = SenseInductionSettings()
SPREAD = SenseInductionSettings(split_by_evidence=False, split_by_probe=False)


def test_settings_the_evidence_rule_does_not_read_are_named_when_set():
    assert unread_settings(EVIDENCE) == {}
    given = EVIDENCE.replace(cut_distance=0.9, min_share=0.4, max_senses=3, split_threshold=0.05)
    # max_senses is read by every rule; the others only by the probe and spread rules
    assert unread_settings(given) == {"split_threshold": 0.05, "cut_distance": 0.9, "min_share": 0.4}
    assert unread_settings(SPREAD.replace(cut_distance=0.9)) == {}
    # every pipeline saved before the default became 80 carries 82 in its config
    assert unread_settings(EVIDENCE.replace(split_percentile=82.0)) == {}
    assert unread_settings(EVIDENCE.replace(split_percentile=50.0)) == {"split_percentile": 50.0}


def test_unread_settings_warn_w061_when_senses_are_induced():
    keys, vectors, _, _ = synthetic()
    lexicon = lexicon_with_sample(keys, vectors)
    (message,) = induction_warnings(EVIDENCE.replace(cut_distance=0.9), lexicon, "senses_here")
    assert "W061" in message and "'senses_here'" in message and "cut_distance = 0.9" in message
    with pytest.warns(UserWarning, match=r"W061.*min_share = 0\.4"):
        induce_inventory(lexicon, EVIDENCE.replace(min_share=0.4), min_count=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        induce_inventory(lexicon, SPREAD.replace(min_share=0.4), min_count=5)  # read there: no warning
        induce_inventory(lexicon, EVIDENCE.replace(min_share=0.4), min_count=5, warn=False)


def test_context_weight_off_the_tables_warns_w060_from_the_python_api():
    keys, vectors, contexts, _, _ = with_context_meanings()
    lexicon = lexicon_with_sample(keys, vectors, contexts=contexts)
    with pytest.warns(UserWarning, match=r"W060.*context_weight = 1\.0; these settings give 0\.5"):
        induce_inventory(lexicon, EVIDENCE.replace(context_weight=0.5), min_count=5)
    assert induction_warnings(SPREAD.replace(context_weight=0.5), lexicon, "n") == []


def test_an_inventory_induced_with_other_settings_than_given_is_told_apart():
    keys, vectors, contexts, _, _ = with_context_meanings()
    lexicon = lexicon_with_sample(keys, vectors, contexts=contexts)
    record = induce_inventory(lexicon, EVIDENCE, min_count=5).settings
    assert induced_otherwise(EVIDENCE, record, with_contexts=True) == []
    # settings the rule did not read differ without consequence
    assert induced_otherwise(EVIDENCE.replace(cut_distance=0.9), record, with_contexts=True) == []
    assert induced_otherwise(EVIDENCE.replace(max_senses=2), record, with_contexts=True) == ["max_senses: 7 -> 2"]
    assert induced_otherwise(SPREAD, record, with_contexts=True) == ["split_by_evidence: True -> False"]
    assert induced_otherwise(EVIDENCE.replace(context_weight=0.0), record, with_contexts=True) == [
        "context_weight: 1.0 -> 0.0"
    ]
    # a sample without context rows records weight 0 whatever the setting: nothing to compare
    plain = induce_inventory(lexicon_with_sample(keys, vectors), EVIDENCE, min_count=5).settings
    assert induced_otherwise(EVIDENCE, plain, with_contexts=False) == []
    spread_record = induce_inventory(lexicon, SPREAD, min_count=5).settings
    assert induced_otherwise(SPREAD, spread_record, with_contexts=True) == []
    assert induced_otherwise(SPREAD.replace(cut_distance=0.9), spread_record, with_contexts=True) == [
        "cut_distance: 0.1 -> 0.9"
    ]


def test_records_of_earlier_versions_compare_what_they_name_and_damaged_ones_nothing():
    keys, vectors, contexts, _, _ = with_context_meanings()
    record = dict(induce_inventory(lexicon_with_sample(keys, vectors, contexts=contexts), SPREAD, min_count=5).settings)
    older = {k: v for k, v in record.items() if k not in ("split_rule", "min_support", "words_only")}
    # a config saved before split_by_evidence existed takes the evidence default: told where the record says;
    # so do settings recorded since: senses induced before min_support and words_only rested on single
    # occurrences and came to punctuation too (build_senses with today's defaults drops both)
    assert induced_otherwise(EVIDENCE, {**older, "split_rule": "spread"}, with_contexts=True) == [
        "min_support: 1 -> 3",
        "split_by_evidence: False -> True",
        "words_only: False -> True",
    ]
    before = SPREAD.replace(min_support=1, words_only=False)  # the block that keeps such senses as they are
    assert induced_otherwise(before, older, with_contexts=True) == []
    # a record from before split_rule was recorded was induced by the spread test: the evidence rule a
    # config of then takes is told (it was not, and build_senses changed 258 of 572 types' senses unsaid)
    assert induced_otherwise(before.replace(split_by_evidence=True), older, with_contexts=True) == [
        "split_by_evidence: False -> True"
    ]
    assert induced_otherwise(SPREAD, older, with_contexts=True) == ["min_support: 1 -> 3", "words_only: False -> True"]
    assert induced_otherwise(before.replace(max_senses=3), older, with_contexts=True) == ["max_senses: 7 -> 3"]
    assert induced_otherwise(SPREAD, {**record, "min_tokens": 2}, with_contexts=True) == []  # damaged: not compared
    # configs from before split_percentile existed fold it to null: unread under the evidence rule, no W061
    assert unread_settings(EVIDENCE.replace(split_percentile=None)) == {}
