import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.pipelines import DEFAULT_CONFIG, load_pipeline

from .conftest import CONFIGS


def test_default_config_ships_inside_the_package():
    assert DEFAULT_CONFIG.exists()
    assert DEFAULT_CONFIG.read_text() == (CONFIGS / "default.cfg").read_text()


def test_missing_pipeline_and_missing_config_name_the_path(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E011\].*nope"):
        load_pipeline(tmp_path / "nope")
    with pytest.raises(CtxvecError, match=r"\[CTX-E011\].*missing.cfg"):
        load_pipeline(tmp_path / "missing.cfg")


def test_directory_and_config_load(tiny_nlp, tmp_path):
    tiny_nlp.to_disk(tmp_path / "p")
    assert load_pipeline(tmp_path / "p").pipe_names == ["transformer", "ctxvec_context"]
    (tmp_path / "p.cfg").write_text(tiny_nlp.config.to_str())
    assert load_pipeline(tmp_path / "p.cfg").pipe_names == ["transformer", "ctxvec_context"]
