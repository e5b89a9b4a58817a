"""spacy_ctxvec.ops.fingerprint: the model fingerprint and the vectors labels that name it."""

import hashlib

import numpy as np
import pytest

from spacy_ctxvec.ops.fingerprint import (
    EARLIER_FINGERPRINTS,
    current_fingerprint,
    current_label,
    embedding_fingerprint,
    pooling_of,
    vectors_differ,
    with_model,
)

HOW = "layer 5 of 6, pooled by pool_mean"


def test_embedding_fingerprint_follows_the_values():
    table = np.random.default_rng(0).normal(size=(50, 8)).astype(np.float32)
    assert (
        embedding_fingerprint(table)
        == embedding_fingerprint(table.astype(np.float64))
        == embedding_fingerprint(table.copy())
    )
    changed = table.copy()
    changed[10, 3] += 1e-3
    assert embedding_fingerprint(changed) != embedding_fingerprint(table)
    assert embedding_fingerprint(table.reshape(100, 4)) != embedding_fingerprint(table)


def test_a_zeros_sign_does_not_change_the_fingerprint():
    table = np.random.default_rng(1).normal(size=(20, 4)).astype(np.float32)
    table[3, 2] = 0.0
    negative = table.copy()
    negative[3, 2] = -0.0
    assert np.signbit(negative[3, 2]) and negative.tobytes() != table.tobytes()
    assert embedding_fingerprint(negative) == embedding_fingerprint(table)
    assert np.signbit(negative[3, 2])  # the caller's table is not touched
    tiny = table.copy()
    tiny[3, 2] = np.float32(1e-38)  # the smallest values are values, not zeros
    assert embedding_fingerprint(tiny) != embedding_fingerprint(table)


def test_the_default_models_earlier_fingerprint_is_its_raw_table_hash(minilm_dir):
    """EARLIER_FINGERPRINTS maps what earlier versions recorded for all-MiniLM-L6-v2 (a
    hash of the table's raw bytes, its one -0.0 included) to today's fingerprint, the one
    the shipped tables and probe record."""
    from transformers import AutoModel

    from spacy_ctxvec.lexicon.polysemy_probe import PolysemyProbe, shipped_probe_dirs
    from spacy_ctxvec.ops.sense_evidence_tables import TABLES_MODEL

    table = AutoModel.from_pretrained(str(minilm_dir)).get_input_embeddings().weight.detach().numpy()
    assert int((np.signbit(table) & (table == 0)).sum()) == 1
    raw = hashlib.sha256(str(table.shape).encode("ascii"))
    raw.update(np.ascontiguousarray(table, dtype=np.float32).tobytes())
    earlier = raw.hexdigest()[:16]
    assert EARLIER_FINGERPRINTS == {earlier: embedding_fingerprint(table)}
    assert current_fingerprint(earlier) == embedding_fingerprint(table) == TABLES_MODEL
    assert {PolysemyProbe.from_disk(path).model for path in shipped_probe_dirs()} == {TABLES_MODEL}


@pytest.mark.parametrize(
    "expected,found,differ",
    [
        (with_model(HOW, "aaaa"), with_model(HOW, "aaaa"), False),
        (with_model(HOW, "aaaa"), with_model(HOW, "bbbb"), True),
        (with_model(HOW, "aaaa"), HOW, False),  # a label without a model matches any model
        (HOW, with_model("the last layer, pooled by pool_mean", "aaaa"), True),
        (with_model(HOW, "97d6177f612cc2be"), with_model(HOW, "234c5e47902457b9"), False),
        (with_model(HOW, "97d6177f612cc2be"), with_model(HOW, "bbbb"), True),
        # a custom pooling's settings: two settings differ; a label saved before settings were
        # named matches the same pooling with any (it was E043 on every Doc after an upgrade)
        ("the last layer, pooled by pool_x (w=0.5)", "the last layer, pooled by pool_x (w=1.0)", True),
        ("the last layer, pooled by pool_x", "the last layer, pooled by pool_x (w=1.0)", False),
        ("the last layer, pooled by pool_x", "the last layer, pooled by pool_y (w=1.0)", True),
        ("layer 3 of 6, pooled by pool_x", "the last layer, pooled by pool_x (w=1.0)", True),
    ],
)
def test_labels_differ_by_pooling_or_model_and_earlier_fingerprints_are_todays(expected, found, differ):
    assert vectors_differ(expected, found) is differ
    assert vectors_differ(found, expected) is differ


def test_label_parts():
    assert with_model(HOW, None) == HOW and pooling_of(with_model(HOW, "aaaa")) == HOW
    assert current_label(with_model(HOW, "97d6177f612cc2be")) == with_model(HOW, "234c5e47902457b9")
    assert current_label(HOW) == HOW and current_label(with_model(HOW, "aaaa")) == with_model(HOW, "aaaa")


def test_a_label_from_before_a_layer_combination_named_its_settings_matches_it():
    """A lexicon built with a combination object before its attributes were in the label was
    refused (E043) by its own pipeline; two settings of it still differ."""
    from spacy_ctxvec.ops.fingerprint import vectors_differ

    before = "layers 4, 5 of 6 combined by WeightedLayers, pooled by pool_mean, model abc"
    now = "layers 4, 5 of 6 combined by WeightedLayers (weights=(0.5, 0.5)), pooled by pool_mean, model abc"
    other = "layers 4, 5 of 6 combined by WeightedLayers (weights=(0.2, 0.8)), pooled by pool_mean, model abc"
    assert not vectors_differ(before, now) and not vectors_differ(now, before)
    assert vectors_differ(now, other)
    assert vectors_differ(before.replace("WeightedLayers", "MaxLayers"), now)


def test_a_label_from_before_list_settings_were_named_matches_the_same_plain_settings():
    """An upgrade walkthrough: a pooling closing over a number and a list was labelled with the
    number only, and its lexicon was refused (E043) after lists came into labels."""
    from spacy_ctxvec.ops.fingerprint import vectors_differ

    before = "the last layer, pooled by pool_mixed (weight=0.5), model abc"
    now = "the last layer, pooled by pool_mixed (mix=[0.25, 0.25], weight=0.5), model abc"
    assert not vectors_differ(before, now) and not vectors_differ(now, before)
    assert vectors_differ(before, now.replace("weight=0.5", "weight=0.7"))  # a plain setting still counts
    assert vectors_differ(now, now.replace("[0.25, 0.25]", "[0.5, 0.5]"))  # and both lists named
