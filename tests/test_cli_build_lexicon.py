from pathlib import Path

import pytest
import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.table import Lexicon

runner = CliRunner()
CORPUS = ["the bank of the river", "we took out a loan at the bank", "i have an apple", "the bank", "play the pen"]


@pytest.fixture(scope="module")
def tiny_pipeline_dir(tiny_nlp, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tiny_pipeline")
    tiny_nlp.to_disk(path)
    return path


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf8")
    return path


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_build_from_directory_gives_a_loadable_pipeline_with_scores(tiny_pipeline_dir, corpus, tmp_path):
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--min-count", "2", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "5 docs" in result.output
    nlp = spacy.load(tmp_path / "out")
    assert nlp.config["components"]["ctxvec_context"]["layers"] == {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": [-2]}
    assert nlp.pipe_names[-1] == "ctxvec_polysemy"
    doc = nlp("the bank")
    assert doc[1]._.polysemy_count == 3 and doc[1]._.polysemy_score is not None
    assert doc[1]._.context_shift is not None
    assert not (tmp_path / "out.checkpoint").exists()


def test_keep_layer_keeps_the_pipeline_setting(tiny_pipeline_dir, corpus, tmp_path):
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--min-count", "2", "--no-progress", "--keep-layer")
    assert result.exit_code == 0, result.output
    nlp = spacy.load(tmp_path / "out")
    assert nlp.config["components"]["ctxvec_context"]["layers"] == {"@misc": "spacy-ctxvec.last_layer.v1"}


def test_build_from_config_with_layer_and_text_key(tiny_nlp, corpus, tmp_path):
    config_path = tmp_path / "tiny.cfg"
    tiny_nlp.config.to_disk(config_path)
    result = invoke("build-lexicon", config_path, corpus, tmp_path / "out", "--layer", "1", "--key", "text", "--min-count", "3", "--no-progress")
    assert result.exit_code == 0, result.output
    nlp = spacy.load(tmp_path / "out")
    assert nlp.config["components"]["ctxvec_context"]["layers"]["layers"] == [1]
    assert nlp.config["components"]["ctxvec_polysemy"]["key"] == "text"
    lexicon = Lexicon.from_disk(tmp_path / "out" / "ctxvec_polysemy" / "lexicon")
    assert lexicon.meta["layers"]["layers"] == [1] and lexicon.meta["key"] == "text"


def test_invalid_json_line_error_and_skip_flag(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "the bank"}\n{"text": oops}\n{"words": ["the", "river", "bank"]}\n', encoding="utf8")
    failed = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--layer", "2")
    assert failed.exit_code == 1 and "E212" in failed.output and "line 2" in failed.output
    skipped = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--on-error", "skip", "--no-progress", "--min-count", "2", "--layer", "2")
    assert skipped.exit_code == 0, skipped.output
    assert "c.jsonl:2" in skipped.output and "2 docs" in skipped.output


def test_bad_inputs(tiny_pipeline_dir, corpus, tmp_path):
    (tmp_path / "empty.txt").write_text("\n", encoding="utf8")
    missing_layer = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o0", "--no-progress", "--layer", "5")
    assert missing_layer.exit_code == 1 and "E003" in missing_layer.output  # a 2-layer model has hidden states 0..2
    empty = invoke("build-lexicon", tiny_pipeline_dir, tmp_path / "empty.txt", tmp_path / "o1", "--no-progress")
    assert empty.exit_code == 1 and "E211" in empty.output
    lemma = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o2", "--key", "lemma", "--no-progress")
    assert lemma.exit_code == 1 and "E217" in lemma.output
    engine = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o3", "--engine", "no-such-engine")
    assert engine.exit_code == 1 and "E223" in engine.output
    not_pipeline = invoke("build-lexicon", corpus, corpus, tmp_path / "o4")
    assert not_pipeline.exit_code == 1 and "E011" in not_pipeline.output
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("x")
    taken = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "taken")
    assert taken.exit_code == 1 and "E226" in taken.output
    gpu = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o5", "--gpu-id", "0", "--n-process", "2")
    assert gpu.exit_code == 1 and "E222" in gpu.output
