"""spacy_ctxvec.ops.senses: sense space, induction with a one-sense answer, assignment."""
import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from spacy_ctxvec.ops.senses import (
    SenseSpace,
    assign_senses,
    fit_sense_space,
    induce_senses,
    sense_entropy,
    spread,
    to_sense_space,
)


def blobs(centres: np.ndarray, n_each: int, noise: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.repeat(centres, n_each, axis=0) + noise * rng.normal(size=(len(centres) * n_each, centres.shape[1]))


def test_two_separated_meanings_give_two_senses_with_shares():
    centres = np.eye(16)[:2]
    rows = to_sense_space(blobs(centres, 10, 0.05), SenseSpace(np.zeros(16), np.zeros((0, 16))))
    model = induce_senses(rows)
    assert model.n_senses == 2
    assert adjusted_rand_score(np.repeat([0, 1], 10), model.labels) == 1.0
    np.testing.assert_allclose(model.shares, [0.5, 0.5])
    np.testing.assert_allclose(np.linalg.norm(model.centroids, axis=1), 1.0)


def test_one_tight_meaning_is_one_sense():
    rows = to_sense_space(blobs(np.eye(16)[:1], 30, 0.05), SenseSpace(np.zeros(16), np.zeros((0, 16))))
    model = induce_senses(rows)
    assert model.n_senses == 1 and model.shares.tolist() == [1.0] and (model.labels == 0).all()


def test_largest_sense_first_and_assignment_to_nearest_centroid():
    centres = np.eye(8)[:2]
    rows = np.vstack([blobs(centres[:1], 4, 0.02, 1), blobs(centres[1:], 12, 0.02, 2)])
    model = induce_senses(normalise(rows))
    assert model.n_senses == 2 and model.shares[0] == pytest.approx(0.75)
    assert (model.labels[4:] == 0).all() and (model.labels[:4] == 1).all()
    np.testing.assert_array_equal(assign_senses(normalise(centres), model.centroids), [1, 0])


def normalise(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_small_empty_and_zero_inputs_never_nan():
    empty = induce_senses(np.zeros((0, 4)))
    assert empty.n_senses == 0
    zeros = induce_senses(np.zeros((5, 4)))
    assert zeros.n_senses == 1 and np.isfinite(zeros.centroids).all()
    few = induce_senses(normalise(np.eye(4)[:3]))  # below min_tokens
    assert few.n_senses == 1
    assert spread(np.zeros((0, 3))) == 0.0 and sense_entropy(np.array([1.0])) == 0.0
    assert sense_entropy(np.array([0.5, 0.5])) == pytest.approx(np.log(2))


def test_sense_space_removes_the_common_direction():
    rng = np.random.default_rng(3)
    common = np.zeros(10)
    common[0] = 1.0
    vectors = 5.0 * rng.normal(size=(200, 1)) * common + 0.1 * rng.normal(size=(200, 10))
    space = fit_sense_space(vectors, n_directions=1)
    assert abs(space.directions[0] @ common) > 0.99
    moved = to_sense_space(vectors, space)
    assert np.abs(moved @ space.directions[0]).max() < 1e-9 and np.abs(moved @ common).max() < 0.01
    weighted = fit_sense_space(np.array([[0.0, 0.0], [2.0, 2.0]]), n_directions=0, weights=np.array([3.0, 1.0]))
    np.testing.assert_allclose(weighted.mean, [0.5, 0.5])
