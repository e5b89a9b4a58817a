"""building/replicas.py: a worker's copy of the driver's pipeline, rebuilt from its config
and bytes alone, gives the driver's vectors bit for bit."""

import shutil

import numpy as np
import pytest
import torch

from spacy_ctxvec.attributes import CONTEXT_ARRAY
from spacy_ctxvec.building.replicas import rebuild_pipeline

from .conftest import build_tiny_bert, make_trf_nlp

TEXTS = ["the bank of the river", "i took a loan from the bank and ate an apple", "unbelievable !"]


@pytest.fixture
def restore_torch_threads():
    threads = torch.get_num_threads()
    yield threads
    torch.set_num_threads(threads)


def test_rebuilt_pipeline_gives_identical_vectors_without_the_model_files(tmp_path, restore_torch_threads):
    """The model directory is deleted before the rebuild: everything comes from the bytes."""
    model_dir = build_tiny_bert(tmp_path / "model")
    driver = make_trf_nlp(str(model_dir), window=8, stride=6)
    config_str, nlp_bytes = driver.config.to_str(), driver.to_bytes()
    expected = [doc._.get(CONTEXT_ARRAY) for doc in driver.pipe(TEXTS, batch_size=2)]
    shutil.rmtree(model_dir)

    replica = rebuild_pipeline(config_str, nlp_bytes, num_threads=restore_torch_threads)
    assert replica is not driver and replica.pipe_names == driver.pipe_names
    assert replica.config.to_str() == config_str
    for doc, vectors in zip(replica.pipe(TEXTS, batch_size=2), expected):
        assert doc._.get(CONTEXT_ARRAY).dtype == vectors.dtype
        assert np.array_equal(doc._.get(CONTEXT_ARRAY), vectors)


def test_rebuild_sets_the_thread_count(tiny_nlp, restore_torch_threads):
    wanted = 1 if restore_torch_threads != 1 else 2
    rebuild_pipeline(tiny_nlp.config.to_str(), tiny_nlp.to_bytes(), num_threads=wanted)
    assert torch.get_num_threads() == wanted


def test_a_rebuilt_pipeline_keeps_the_drivers_max_length(tiny_nlp, restore_torch_threads):
    """nlp.max_length is in neither the config nor the bytes: a limit raised from Python was spaCy's
    default again in the workers, and a document the driver's reader let through stopped the build (E270)."""
    rebuilt = rebuild_pipeline(tiny_nlp.config.to_str(), tiny_nlp.to_bytes(), num_threads=1, max_length=2_000_000)
    assert rebuilt.max_length == 2_000_000
    default = rebuild_pipeline(tiny_nlp.config.to_str(), tiny_nlp.to_bytes(), num_threads=1)
    assert default.max_length == 1_000_000
