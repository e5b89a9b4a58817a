"""The split statistic (ops.split_significance): how clearly rows fall into two groups,
in standard deviations of one-Gaussian data of the same size and covariance."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from spacy_ctxvec.ops.sense_evidence import split_z_for
from spacy_ctxvec.ops.split_significance import (
    LLOYD_ITERATIONS,
    SPREAD_RESOLUTION,
    _principal_scores,
    _two_means,
    has_spread,
    one_blas_thread,
    split_evidence,
    standard_normals,
)

from .test_ops_sense_evidence import groups, one_group


def test_split_evidence_is_standardised_against_one_gaussian():
    z_one, _ = split_evidence(one_group(40, seed=7))
    z_two, group = split_evidence(groups([20, 20], seed=7)[0])
    assert z_two > 5 > split_z_for(40) > z_one
    assert group.sum() == 20


def test_split_evidence_is_deterministic_and_follows_the_seed():
    rows = one_group(24, seed=3)
    (z, group), (z_again, group_again) = split_evidence(rows), split_evidence(rows.copy())
    assert z == z_again and np.array_equal(group, group_again)
    assert split_evidence(rows, seed=1)[0] != split_evidence(rows, seed=0)[0]


def test_rows_without_spread_give_no_evidence_and_no_split():
    z, group = split_evidence(np.ones((6, 5)))
    assert z is None and not group.any() and group.shape == (6,)


def near_identical_float16(n, width=384, relative=1e-5, seed=0):
    """n copies of one unit row, each moved by ``relative`` noise and stored in float16
    (as the occurrence sample stores rows): one point at float16 precision."""
    rng = np.random.default_rng(seed)
    row = rng.standard_normal(width)
    rows = np.tile(row / np.linalg.norm(row), (n, 1)) * (1.0 + relative * rng.standard_normal((n, width)))
    return rows.astype(np.float16).astype(np.float64)


@pytest.mark.parametrize("n", [6, 8, 12, 20, 40])
@pytest.mark.parametrize("seed", range(3))
def test_rows_that_are_one_point_at_float16_precision_give_no_evidence(n, seed):
    """The z is scale-free: rounding noise around one point scored as groups (before: z
    up to 3.9 on these rows, above every SPLIT_Z_TABLE threshold)."""
    rows = near_identical_float16(n, seed=seed)
    top_sd = np.linalg.svd(rows - rows.mean(axis=0), compute_uv=False)[0] / np.sqrt(n - 1)
    assert 0.0 < top_sd < SPREAD_RESOLUTION
    for scale in (1.0, 1e-6, 1e6):  # relative to the rows' norm: any scale
        z, group = split_evidence(rows * scale)
        assert z is None and not group.any()
        assert has_spread(rows * scale, top_sd * scale) is False


def test_rows_with_measurable_spread_keep_their_z():
    rows = one_group(8, seed=2)
    z, _ = split_evidence(rows)
    assert z is not None and np.isfinite(z)
    # just above float16 resolution: still a z (one point plus a measurable shift)
    moved = near_identical_float16(8, relative=0.0)
    moved[0] += 3 * SPREAD_RESOLUTION * np.eye(1, moved.shape[1])[0]
    assert split_evidence(moved)[0] is not None


def every_lloyd_step(scores):
    """2-means with all LLOYD_ITERATIONS steps, no early stop (the reference)."""
    n = scores.shape[-2]
    group = scores[..., 0] > 0
    total = (scores * scores).sum(axis=-1).sum(axis=-1)
    for _ in range(LLOYD_ITERATIONS):
        size_1 = group.sum(axis=-1)
        sum_1 = (group[..., None, :].astype(np.float64) @ scores)[..., 0, :]
        centre_1 = sum_1 / np.maximum(size_1, 1)[..., None]
        centre_0 = -sum_1 / np.maximum(n - size_1, 1)[..., None]
        towards_1 = (scores @ (centre_1 - centre_0)[..., :, None])[..., 0]
        midpoint = 0.5 * ((centre_1 * centre_1).sum(axis=-1) - (centre_0 * centre_0).sum(axis=-1))
        group = towards_1 > midpoint[..., None]
    size_1 = group.sum(axis=-1)
    sum_1 = (group[..., None, :].astype(np.float64) @ scores)[..., 0, :]
    norm = (sum_1 * sum_1).sum(axis=-1)
    between = norm / np.maximum(size_1, 1) + norm / np.maximum(n - size_1, 1)
    return group, np.clip(1.0 - between / np.maximum(total, 1e-12), 0.0, 1.0)


@pytest.mark.parametrize("n", [6, 10, 23, 40, 64])
def test_two_means_stopping_early_gives_bitwise_the_result_of_every_step(n):
    rng = np.random.default_rng(n)
    batches = [
        rng.standard_normal((48, n, 8)) * np.linspace(2.0, 0.2, 8),  # one Gaussian: a few steps
        groups([n // 3, n - n // 3], seed=n)[0][None],  # two groups: settled at once
        np.concatenate([rng.standard_normal((n, 8)), rng.standard_normal((n, 8)) + 0.8])[None, :n],
    ]
    for points in batches:
        scores = _principal_scores(points, 8)[0]
        (group, share), (expected_group, expected_share) = _two_means(scores), every_lloyd_step(scores)
        assert np.array_equal(group, expected_group) and share.tobytes() == expected_share.tobytes()


def test_null_draws_are_those_of_the_seed_drawn_once_and_read_only():
    draws = standard_normals(0, (48, 20, 8))
    assert draws.tobytes() == np.random.default_rng(0).standard_normal((48, 20, 8)).tobytes()
    assert standard_normals(0, (48, 20, 8)) is draws and not draws.flags.writeable
    large = standard_normals(0, (48, 200, 8))  # not kept
    assert large.tobytes() == np.random.default_rng(0).standard_normal((48, 200, 8)).tobytes()


def blas_threads():
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


def test_one_blas_thread_nests_and_restores_the_threads_on_leaving():
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with one_blas_thread():
            assert set(blas_threads()) == {1}
            with one_blas_thread():
                assert set(blas_threads()) == {1}
            assert set(blas_threads()) == {1}  # the outer context still holds
        assert blas_threads() == before


def test_stored_rows_have_spread_reads_the_top_direction_of_the_rows_as_stored():
    """No spread: one point, or noise below float16 resolution spread over many directions
    (its total is above the resolution, its top direction below: the SVD decides); spread:
    one direction moved by twice the resolution."""
    from spacy_ctxvec.ops.split_significance import SPREAD_RESOLUTION, stored_rows_have_spread

    rng = np.random.default_rng(0)
    point = rng.normal(size=384)
    resolution = SPREAD_RESOLUTION * float(np.linalg.norm(point))
    assert not stored_rows_have_spread(np.tile(point, (64, 1))) and not stored_rows_have_spread(point[None])
    noise = rng.normal(size=(64, 384)) * (3 * resolution / np.sqrt(384))  # total SD about 3x the resolution
    assert not stored_rows_have_spread(point + noise)
    direction = rng.normal(size=384) / np.sqrt(384)
    along = np.outer(np.where(np.arange(64) % 2, 1.0, -1.0), direction) * 2 * resolution
    assert stored_rows_have_spread(point + along)
