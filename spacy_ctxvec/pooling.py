"""Registered pooling functions, chosen in config under [components.ctxvec_context.pooling]."""
from spacy.util import registry

from .ops.pooling import pool_first, pool_first_last, pool_last, pool_max, pool_mean
from .types import PoolingFn


@registry.misc("spacy-ctxvec.mean_pooling.v1")
def configure_mean_pooling() -> PoolingFn:
    """Mean of the token's wordpiece vectors (the default)."""
    return pool_mean


@registry.misc("spacy-ctxvec.first_pooling.v1")
def configure_first_pooling() -> PoolingFn:
    """The token's first wordpiece vector."""
    return pool_first


@registry.misc("spacy-ctxvec.last_pooling.v1")
def configure_last_pooling() -> PoolingFn:
    """The token's last wordpiece vector."""
    return pool_last


@registry.misc("spacy-ctxvec.max_pooling.v1")
def configure_max_pooling() -> PoolingFn:
    """Element-wise maximum over the token's wordpiece vectors."""
    return pool_max


@registry.misc("spacy-ctxvec.first_last_pooling.v1")
def configure_first_last_pooling() -> PoolingFn:
    """First and last wordpiece vectors concatenated (twice the width)."""
    return pool_first_last
