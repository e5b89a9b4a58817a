import numpy as np
import pytest

from spacy_ctxvec.ops.projection import choose_clusters, kmeans_cosine, pca_2d, repel_labels, silhouette_cosine


def two_directions(n_per_side: int = 8, width: int = 16, noise: float = 0.1, seed: int = 0):
    rng = np.random.default_rng(seed)
    a, b = np.eye(width)[0], np.eye(width)[1]
    rows = np.vstack(
        [a + noise * rng.normal(size=(n_per_side, width)), b + noise * rng.normal(size=(n_per_side, width))]
    )
    return rows, np.repeat([0, 1], n_per_side)


def test_pca_2d_matches_covariance_eigenvectors():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(30, 5)) * np.array([5.0, 2.0, 1.0, 0.5, 0.1])
    coords, components, mean, explained = pca_2d(vectors)
    assert np.allclose(mean, vectors.mean(axis=0))
    eigenvalues, eigenvectors = np.linalg.eigh(np.cov(vectors.T, bias=True))
    for axis in range(2):
        expected = eigenvectors[:, -1 - axis]
        assert abs(abs(components[axis] @ expected) - 1) < 1e-8
    assert np.allclose(explained, eigenvalues[::-1][:2] / eigenvalues.sum())
    assert np.allclose(coords, (vectors - mean) @ components.T)


def test_pca_2d_degenerate_inputs_give_zeros_not_nan():
    coords, _, _, explained = pca_2d(np.ones((4, 3)))
    assert np.array_equal(coords, np.zeros((4, 2)))
    assert np.array_equal(explained, np.zeros(2))
    coords, _, _, _ = pca_2d(np.array([[1.0, 2.0, 3.0]]))
    assert coords.shape == (1, 2) and np.isfinite(coords).all()


def test_pca_2d_sign_is_deterministic_under_row_order():
    vectors, _ = two_directions()
    _, components_a, _, _ = pca_2d(vectors)
    _, components_b, _, _ = pca_2d(vectors[::-1])
    assert np.allclose(components_a, components_b)


def test_kmeans_cosine_separates_two_directions_and_numbers_by_first_appearance():
    vectors, truth = two_directions()
    labels = kmeans_cosine(vectors, 2)
    assert np.array_equal(labels, truth)
    # Reversed rows: the first row now belongs to the other cluster, which becomes 0.
    assert np.array_equal(kmeans_cosine(vectors[::-1], 2), np.repeat([0, 1], 8))


def test_kmeans_cosine_ignores_vector_length():
    vectors, truth = two_directions()
    scaled = vectors * np.random.default_rng(3).uniform(0.1, 10, size=(len(vectors), 1))
    assert np.array_equal(kmeans_cosine(scaled, 2), truth)


def test_silhouette_cosine_matches_brute_force():
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(12, 4))
    labels = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3])  # cluster 3 is a singleton
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    distance = 1 - unit @ unit.T
    expected = []
    for i in range(12):
        own = labels == labels[i]
        if own.sum() == 1:
            expected.append(0.0)
            continue
        a = distance[i, own & (np.arange(12) != i)].mean()
        b = min(distance[i, labels == c].mean() for c in set(labels) if c != labels[i])
        expected.append((b - a) / max(a, b))
    assert silhouette_cosine(vectors, labels) == pytest.approx(np.mean(expected))
    assert silhouette_cosine(vectors, np.zeros(12)) == 0.0


def test_choose_clusters_picks_the_true_k_and_respects_a_fixed_k():
    rng = np.random.default_rng(4)
    centres = np.eye(10)[:3]
    vectors = np.repeat(centres, 6, axis=0) + 0.05 * rng.normal(size=(18, 10))
    labels, k, score = choose_clusters(vectors)
    assert k == 3 and score > 0.8
    assert len(set(zip(labels, np.repeat([0, 1, 2], 6)))) == 3
    labels, k, _ = choose_clusters(vectors, k=2)
    assert k == 2 and set(labels) == {0, 1}
    labels, k, score = choose_clusters(vectors[:2])
    assert k == 1 and score == 0.0 and np.array_equal(labels, [0, 0])


@pytest.mark.parametrize("spread", [0.3, 0.1])
def test_repel_labels_separates_labels_for_40_points(spread):
    rng = np.random.default_rng(5)
    anchors = rng.uniform(0.5 - spread, 0.5 + spread, size=(40, 2))
    positions = repel_labels(anchors, min_distance=0.045, offset=0.03)
    gaps = np.linalg.norm(positions[:, None] - positions[None], axis=2) + np.eye(40)
    assert gaps.min() > 0.03
    assert ((positions >= 0.02 - 1e-12) & (positions <= 0.98 + 1e-12)).all()
    assert np.linalg.norm(positions - anchors, axis=1).max() < 0.2


def test_repel_labels_separates_coincident_points():
    positions = repel_labels(np.full((5, 2), 0.5), min_distance=0.05)
    gaps = np.linalg.norm(positions[:, None] - positions[None], axis=2) + np.eye(5)
    assert gaps.min() > 0.04
