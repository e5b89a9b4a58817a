"""spacy_ctxvec.saved_pipeline: the lexicon, senses, probe and input embeddings of a
saved pipeline read from disk without its model, refusing where spacy.load refuses
(issue 23)."""

import copy
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.saved_pipeline import load_lexicon, load_senses, pipeline_stop_words

from .test_components_polysemy_state import probe_reading_inputs


def save_with_probe(tiny_nlp, path: Path):
    """A copy of tiny_nlp with a ctxvec_polysemy component holding a lexicon, its input
    embeddings and a probe, saved to ``path``; returns what it holds."""
    from spacy_ctxvec.components.polysemy import ensure_polysemy_component

    nlp = copy.deepcopy(tiny_nlp)
    saved = probe_reading_inputs(tiny_nlp)
    component = ensure_polysemy_component(nlp, "lower", 2)
    component.set_lexicon(saved.lexicon, type_inputs=saved.type_inputs)
    component.set_probe(saved.probe)
    nlp.to_disk(path)
    return saved


def test_load_lexicon_needs_a_lexicon(tmp_path):
    with pytest.raises(CtxvecError, match="E225.*it is not a lexicon directory, nor a pipeline"):
        load_lexicon(tmp_path)
    with pytest.raises(CtxvecError, match="E225.*no such file, directory or installed pipeline package"):
        load_lexicon(tmp_path / "no_such_pipeline")


def test_a_config_file_is_named_as_one_for_the_lexicon_and_the_senses(tmp_path):
    config = tmp_path / "pipeline.cfg"
    config.write_text('[nlp]\nlang = "en"\npipeline = ["ctxvec_polysemy"]\n', encoding="utf8")
    for load in (load_lexicon, load_senses):
        with pytest.raises(CtxvecError, match=r"\[CTX-E233\] '.*pipeline\.cfg' is a config file"):
            load(config)
    (tmp_path / "dir.cfg").mkdir()  # a directory named like a config is read as a directory
    with pytest.raises(CtxvecError, match="E225"):
        load_lexicon(tmp_path / "dir.cfg")


@pytest.mark.parametrize("deleted", ["probe", "inputs", "lexicon"])
def test_the_saved_pipeline_readers_refuse_where_spacy_load_does(tiny_nlp, tmp_path, deleted):
    """rank, plot and fit-polysemy read a saved pipeline's lexicon and probe from disk:
    with probe/ or inputs/ deleted, spacy.load is E249, and so are they (before: they
    fell back to self-similarity and exited 0)."""
    import shutil

    from spacy_ctxvec.saved_pipeline import load_pipeline_inputs, load_probe

    pipeline = tmp_path / "pipeline"
    saved = save_with_probe(tiny_nlp, pipeline)
    assert load_lexicon(pipeline) == saved.lexicon and load_probe(pipeline).meta == saved.probe.meta
    np.testing.assert_array_equal(load_pipeline_inputs(pipeline, saved.lexicon), saved.type_inputs)
    shutil.rmtree(pipeline / "ctxvec_polysemy" / deleted)
    with pytest.raises(CtxvecError, match=f"E249.*{deleted}' is missing"):
        spacy.load(pipeline)
    for read in (
        lambda: load_lexicon(pipeline),
        lambda: load_probe(pipeline),
        lambda: load_pipeline_inputs(pipeline, saved.lexicon),
    ):
        with pytest.raises(CtxvecError, match=f"E249.*{deleted}' is missing"):
            read()
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    result = CliRunner().invoke(app, ["rank", str(pipeline), "--min-count", "2"])
    assert result.exit_code != 0 and "E249" in result.output


def test_a_setting_given_twice_in_a_saved_config_is_e065_for_the_readers_too(tiny_nlp, tmp_path):
    """rank, senses and export-static read the config themselves: a setting added beside the
    one there (as a warning's advice was followed) came out as configparser's traceback."""
    pipeline = tmp_path / "pipeline"
    save_with_probe(tiny_nlp, pipeline)
    config = (pipeline / "config.cfg").read_text(encoding="utf8")
    block = "[components.ctxvec_polysemy]\n"
    assert block in config
    (pipeline / "config.cfg").write_text(config.replace(block, block + 'score = "auto"\n', 1), encoding="utf8")
    for command in (["rank", str(pipeline)], ["senses", str(pipeline), "bank"]):
        result = CliRunner().invoke(app, command)
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and "[CTX-E065]" in message and "option 'score'" in message, message
        assert "Traceback" not in result.output


def test_a_misspelt_section_in_a_saved_config_is_e029_for_the_readers_and_the_loader(tiny_nlp, tmp_path):
    """[components] written [componets] in a saved pipeline's config.cfg: rank, senses and
    export-static printed confection's traceback, and loading it was E028 without the hint."""
    from spacy_ctxvec.pipelines import load_pipeline

    pipeline = tmp_path / "pipeline"
    save_with_probe(tiny_nlp, pipeline)
    config = (pipeline / "config.cfg").read_text(encoding="utf8")
    (pipeline / "config.cfg").write_text(config.replace("[components]\n", "[componets]\n", 1), encoding="utf8")
    hint = "The config has no [components] but has [componets]: if one of those two names is misspelt, correct it."
    for command in (
        ["rank", str(pipeline)],
        ["senses", str(pipeline), "bank"],
        ["export-static", str(pipeline), str(tmp_path / "v.txt")],
    ):
        result = CliRunner().invoke(app, command)
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and "[CTX-E029]" in message and hint in message, (command, message)
    with pytest.raises(CtxvecError, match=r"\[CTX-E029\] The config '.*config\.cfg' could not be read") as raised:
        load_pipeline(pipeline)
    assert hint in str(raised.value)


def test_the_readers_check_the_probe_against_its_saved_input_embeddings(tiny_nlp, tmp_path):
    from spacy_ctxvec.lexicon.type_inputs import TypeInputs
    from spacy_ctxvec.saved_pipeline import load_pipeline_inputs, load_probe

    saved = save_with_probe(tiny_nlp, tmp_path / "pipeline")
    inputs_dir = tmp_path / "pipeline" / "ctxvec_polysemy" / "inputs"
    inputs = TypeInputs.from_disk(inputs_dir)
    TypeInputs(np.hstack([inputs.vectors, inputs.vectors[:, :1]]), inputs.digest).to_disk(inputs_dir)
    for read in (
        lambda: spacy.load(tmp_path / "pipeline"),
        lambda: load_probe(tmp_path / "pipeline"),
        lambda: load_pipeline_inputs(tmp_path / "pipeline", saved.lexicon),
    ):
        with pytest.raises(CtxvecError, match="E660.*width 33 and the probe reads 32"):
            read()


def test_an_installed_pipeline_package_is_read_by_its_name(tiny_nlp, tmp_path, monkeypatch):
    """rank, senses, export-static and plot read an installed pipeline package by name,
    as spacy.load does (they said E225 "no ctxvec_polysemy component" for one). The
    package comes from `spacy package`, laid out as pip installs it."""
    from spacy_ctxvec.pipelines import load_pipeline
    from spacy_ctxvec.saved_pipeline import load_probe, pipeline_path

    from .conftest import install_as_package

    saved = save_with_probe(tiny_nlp, tmp_path / "pipeline")
    site = install_as_package(tmp_path / "pipeline", "ctxvec_pkg_test", tmp_path, monkeypatch)

    assert spacy.load("en_ctxvec_pkg_test").pipe_names == tiny_nlp.pipe_names + ["ctxvec_polysemy"]
    assert pipeline_path("en_ctxvec_pkg_test") == site / "en_ctxvec_pkg_test" / "en_ctxvec_pkg_test-0.0.1"
    assert load_lexicon("en_ctxvec_pkg_test") == saved.lexicon
    assert load_probe("en_ctxvec_pkg_test") is not None
    monkeypatch.chdir(tmp_path)
    ranked = CliRunner().invoke(app, ["rank", "en_ctxvec_pkg_test", "--top-k", "2", "--format", "json"])
    assert ranked.exit_code == 0, ranked.output
    assert json.loads(ranked.stdout)["score"] == "probe"  # the package's lexicon and probe
    # pip's name for it ("Successfully installed en-ctxvec-pkg-test") was a ModuleNotFoundError traceback
    assert load_lexicon("en-ctxvec-pkg-test") == saved.lexicon
    assert load_pipeline("en-ctxvec-pkg-test").pipe_names == tiny_nlp.pipe_names + ["ctxvec_polysemy"]
    # a folder of that name here (the one `spacy package` made) does not hide it: spacy.load reads the package
    (tmp_path / "en_ctxvec_pkg_test").mkdir()
    assert load_lexicon("en_ctxvec_pkg_test") == saved.lexicon
    # an installed package of another kind was spaCy's E053 as a traceback
    with pytest.raises(CtxvecError, match="E225.*'numpy'"):
        load_lexicon("numpy")


def test_a_language_without_stop_words_says_so(tmp_path):
    """rank --skip-stop-words on a "xx" pipeline left nothing out and said nothing (W082)."""
    for lang, n_stop_words in (("xx", 0), ("de", len(spacy.blank("de").Defaults.stop_words))):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "config.cfg").write_text(f'[nlp]\nlang = "{lang}"\n', encoding="utf8")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert len(pipeline_stop_words(tmp_path / lang)) == n_stop_words
        said = [str(w.message) for w in caught if "CTX-W082" in str(w.message)]
        assert bool(said) == (n_stop_words == 0) and all("language 'xx'" in message for message in said)
    assert spacy.blank("de").Defaults.stop_words  # the list W082 misses for "xx"
