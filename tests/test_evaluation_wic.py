import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.evaluation.moments import Moments
from spacy_ctxvec.evaluation.wic import (
    ALL_FAMILIES,
    PairVectors,
    candidate_settings,
    check_wic_train,
    cosine_families,
    cross_validated_accuracy,
    evaluate_wic_features,
    feature_matrix,
)

VIEWS = ["layer_0", "layer_1"]


def toy_families(n, seed, informative="whitened"):
    """Random cosines per family; one family's layer_1 decides the label."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.5
    families = {name: rng.normal(size=(n, 2)) for name in ALL_FAMILIES}
    families[informative][:, 1] = np.where(labels, 0.8, 0.2) + 0.1 * rng.normal(size=n)
    return families, labels


def test_candidate_settings_cover_every_family_view_and_logistic_group():
    names = [s.name for s in candidate_settings(list(ALL_FAMILIES), VIEWS)]
    assert "threshold[cosine/layer_0]" in names and "threshold[context/layer_1]" in names
    assert "logistic[whitened+shift+context]" in names
    target_only = [s.name for s in candidate_settings(["cosine", "whitened", "shift"], VIEWS)]
    assert not any("context" in name for name in target_only)


def test_evaluate_chooses_informative_setting_on_train():
    train, train_labels = toy_families(300, 0)
    test, test_labels = toy_families(100, 1)
    groups = [f"w{i % 40}" for i in range(300)]
    report = evaluate_wic_features(train, train_labels, groups, test, test_labels, VIEWS, "dev")
    assert "whitened" in report.chosen
    assert report.accuracy > 0.95
    assert report.settings[report.chosen]["accuracy"] == report.accuracy
    assert report.per_family("cosine")["layer_0"] == pytest.approx(0.5, abs=0.15)
    assert report.to_dict()["n_train"] == 300


def test_choice_ignores_evaluated_labels():
    train, train_labels = toy_families(300, 0)
    test, test_labels = toy_families(100, 1)
    groups = [f"w{i % 40}" for i in range(300)]
    first = evaluate_wic_features(train, train_labels, groups, test, test_labels, VIEWS, "dev")
    flipped = evaluate_wic_features(train, train_labels, groups, test, ~test_labels, VIEWS, "dev")
    assert first.chosen == flipped.chosen
    assert flipped.accuracy == pytest.approx(1 - first.accuracy)


def test_cross_validation_is_held_out():
    rng = np.random.default_rng(0)
    features, labels = rng.normal(size=(200, 4)), rng.random(200) < 0.5
    folds = np.arange(200) % 5
    setting = candidate_settings(["cosine", "shift"], VIEWS)[-1]  # a logistic regression on noise
    assert abs(cross_validated_accuracy(setting, features, labels, folds) - 0.5) < 0.12


def test_one_class_train_is_refused():
    train, _ = toy_families(20, 0)
    with pytest.raises(CtxvecError, match=r"\[CTX-E306\].*20 T and 0 F"):
        evaluate_wic_features(train, np.ones(20, bool), ["a"] * 20, train, np.ones(20, bool), VIEWS, "dev")


def test_check_wic_train_needs_only_labels_and_targets():
    check_wic_train(np.array([True, False, True, False]), ["bank", "bank", "play", "play"])
    # every fold but one of the 2 holds one label: fitting on the others would see one class
    with pytest.raises(CtxvecError, match=r"\[CTX-E310\] .*2-fold .*leaves only T examples of the 3"):
        check_wic_train(np.array([True, False, True]), ["bank", "bank", "play"])
    with pytest.raises(CtxvecError, match=r"\[CTX-E306\].*0 T and 3 F"):
        check_wic_train(np.zeros(3, bool), ["bank", "play", "pen"])
    with pytest.raises(CtxvecError, match=r"\[CTX-E309\].*has 1"):
        check_wic_train(np.array([True, False]), ["bank", "bank"])


def test_one_target_word_in_train_is_refused():
    train, labels = toy_families(20, 0)
    mixed = np.arange(20) % 2 == 0
    with pytest.raises(CtxvecError, match=r"\[CTX-E309\].*has 1"):
        evaluate_wic_features(train, mixed, ["bank"] * 20, train, mixed, VIEWS, "dev")


def test_cosine_families_by_hand():
    target1 = np.array([[[1.0, 0.0]], [[1.0, 1.0]]])
    target2 = np.array([[[0.0, 1.0]], [[1.0, 1.0]]])
    type_vectors = np.array([[[1.0, 1.0]], [[0.0, 0.0]]])
    moments = Moments.empty(1, 2)
    moments.add(np.random.default_rng(0).normal(size=(100, 1, 2)))
    pairs = PairVectors(target1, target2, target1, target2, type_vectors)
    families = cosine_families(pairs, moments)
    np.testing.assert_allclose(families["cosine"][:, 0], [0.0, 1.0])
    # Shift from (1, 1): (0, -1) and (-1, 0) are orthogonal.
    np.testing.assert_allclose(families["shift"][:, 0], [0.0, 1.0])
    assert families["whitened"].shape == (2, 1) and np.isfinite(families["context"]).all()
    assert feature_matrix(families, ALL_FAMILIES).shape == (2, 4)
