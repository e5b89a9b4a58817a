"""The split statistic (ops.split_significance): how clearly rows fall into two groups,
in standard deviations of one-Gaussian data of the same size and covariance."""

import numpy as np

from spacy_ctxvec.ops.sense_evidence import split_z_for
from spacy_ctxvec.ops.split_significance import split_evidence

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
    assert z == 0.0 and not group.any() and group.shape == (6,)
