"""A renamed ctxvec_context is found by its factory: loading with another layer, building
a lexicon and the records that name how vectors were made read the renamed component."""

import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.component_names import context_name, context_name_in_config
from spacy_ctxvec.evaluation.provenance import pipeline_record
from spacy_ctxvec.pipelines import load_pipeline

from .conftest import transformer_config

runner = CliRunner()


def renamed_pipeline(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context", name="context")
    nlp.initialize()
    return nlp


def test_the_context_component_is_found_by_factory_in_a_pipeline_and_its_config(tiny_bert_dir):
    nlp = renamed_pipeline(tiny_bert_dir)
    assert context_name(nlp) == context_name_in_config(nlp.config) == "context"
    nlp.rename_pipe("context", "vectors")
    assert context_name(nlp) == context_name_in_config(nlp.config) == "vectors"
    assert context_name(spacy.blank("en")) == context_name_in_config(spacy.blank("en").config) == "ctxvec_context"
    nlp("the bank of the river")
    assert pipeline_record(nlp, "given")["context_vectors"] == nlp.get_pipe("vectors").vectors_label is not None


def test_a_renamed_context_component_loads_with_another_layer_and_builds_a_lexicon(
    tiny_bert_dir, tmp_path, monkeypatch
):
    from .conftest import install_as_package

    renamed_pipeline(tiny_bert_dir).to_disk(tmp_path / "renamed")
    install_as_package(tmp_path / "renamed", "renamed_context_test", tmp_path, monkeypatch)
    for name in (tmp_path / "renamed", "en_renamed_context_test"):  # a directory, an installed package
        nlp = load_pipeline(name, layer=1)
        assert nlp.get_pipe("context").layers.layers == (1,)
        assert "layer 1" in nlp("the bank of the river")._.ctxvec_context_source
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank of the river\nwe took a loan from the bank\n" * 3, encoding="utf8")
    built = runner.invoke(app, ["build-lexicon", str(tmp_path / "renamed"), str(corpus), str(tmp_path / "built")])
    assert built.exit_code == 0, built.output
    lexicon_nlp = spacy.load(tmp_path / "built")
    assert lexicon_nlp.pipe_names[-2:] == ["context", "ctxvec_polysemy"]
    assert lexicon_nlp("the bank")[1]._.polysemy_count == 6


def test_the_context_a_component_reads_is_the_last_enabled_one_before_it():
    nlp = spacy.blank("en")
    for name in ("first", "second"):
        nlp.add_pipe("ctxvec_context", name=name)
    nlp.add_pipe("ctxvec_polysemy")
    nlp.add_pipe("ctxvec_context", name="after")
    assert context_name(nlp) == "after" and context_name(nlp, "ctxvec_polysemy") == "second"
    nlp.disable_pipe("second")  # frozen in spacy train's initialize: an enabled one comes first
    assert context_name(nlp, "ctxvec_polysemy") == "first"
    nlp.disable_pipe("first")
    assert context_name(nlp, "ctxvec_polysemy") == "second"
    assert context_name(nlp, "first") == "ctxvec_context"  # none before it: the default name
