"""user_code: `spacy-ctxvec --code FILE.py` imports a file of registered functions, in the
command's process and in the worker processes it starts."""

import json

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.user_code import CODE_VARIABLE

CODE_POOLING = """
import spacy
from spacy_ctxvec.ops.pooling import pool_mean


@spacy.registry.misc("test-ctxvec.code_file_pooling.v1")
def configure(weight: float):
    def pool_weighted(rows, lengths):
        return pool_mean(rows, lengths) * weight

    return pool_weighted
"""


@pytest.fixture
def code_files(tiny_nlp, tmp_path, monkeypatch):
    """A config naming a pooling that only functions.py registers, and that file."""
    monkeypatch.setenv(CODE_VARIABLE, "")  # restored after the test: --code sets it
    config = tiny_nlp.config.copy()
    config["components"]["ctxvec_context"]["pooling"] = {"@misc": "test-ctxvec.code_file_pooling.v1", "weight": 2.0}
    (tmp_path / "custom.cfg").write_text(config.to_str(), encoding="utf8")
    (tmp_path / "functions.py").write_text(CODE_POOLING, encoding="utf8")
    return tmp_path / "custom.cfg", tmp_path / "functions.py"


def test_a_function_registered_in_a_code_file_is_found_with_code_and_named_without(code_files, tmp_path):
    """The commands had no --code: a pooling registered by a plain import could not be used
    with them, and E011's advice (pass a pipeline directory...) did not fit."""
    (tmp_path / "broken.py").write_text("import spacy\n\nraise RuntimeError('no model here')\n", encoding="utf8")
    compare = ["compare", "the bank", "a river bank", "--word", "bank", "--pipeline", str(tmp_path / "custom.cfg")]
    runner = CliRunner()
    without = runner.invoke(app, compare)
    assert without.exit_code == 1 and "CTX-E011" in without.output
    assert "spacy-ctxvec --code FILE.py COMMAND" in " ".join(without.output.split())
    assert "Pass a pipeline directory" not in " ".join(without.output.split())  # the path was right
    found = runner.invoke(app, ["--code", str(tmp_path / "functions.py"), *compare])
    assert found.exit_code == 0, found.output
    assert "pooled by pool_weighted (weight=2.0)" in " ".join(found.output.split())
    broken = runner.invoke(app, ["--code", str(tmp_path / "broken.py"), *compare])
    message = " ".join(broken.output.split())
    assert broken.exit_code == 1 and "[CTX-E419]" in message
    assert "raised RuntimeError (line 3): no model here" in message
    missing = runner.invoke(app, ["--code", str(tmp_path / "none.py"), *compare])
    assert missing.exit_code == 1 and "none.py: no such file" in " ".join(missing.output.split())


def test_a_saved_pipeline_with_a_component_factory_of_ones_own_code_names_code(tiny_nlp, tmp_path):
    """A factory of one's own code missing (spaCy's E002) said only "Pass a pipeline directory", which
    the path was: it names --code as for a missing registered function."""
    config = tiny_nlp.config.copy()
    config["nlp"]["pipeline"] = [*config["nlp"]["pipeline"], "mine"]
    config["components"]["mine"] = {"factory": "test_ctxvec_factory_not_imported"}
    (tmp_path / "custom.cfg").write_text(config.to_str(), encoding="utf8")
    compare = ["compare", "the bank", "a bank", "--word", "bank", "--pipeline", str(tmp_path / "custom.cfg")]
    result = CliRunner().invoke(app, compare)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E011]" in message and "[E002]" in message
    assert "The component factory 'test_ctxvec_factory_not_imported' is registered by nothing imported" in message
    assert "--code FILE.py COMMAND" in message and "Pass a pipeline directory" not in message


def test_worker_processes_import_the_code_file_too(code_files, tmp_path):
    """build-lexicon --n-process 2 rebuilt the pipeline in workers where the file was never
    imported: E893 in a worker and a BrokenProcessPool traceback."""
    config, functions = code_files
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(["the bank of the river", "the bank lent money", "a river bank"] * 4) + "\n")
    build = ["build-lexicon", str(config), str(corpus), str(tmp_path / "out"), "--min-count", "2", "--no-progress"]
    result = CliRunner().invoke(app, ["--code", str(functions), *build, "--n-process", "2"])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out" / "ctxvec_polysemy" / "lexicon" / "lexicon.json").read_text())["meta"]
    assert "pooled by pool_weighted (weight=2.0)" in meta["context_vectors"]


def test_the_code_file_is_named_for_workers_only_while_its_command_runs(code_files, tmp_path, monkeypatch):
    """The path stayed in os.environ: a later build without --code in the same process (a
    notebook, a test) had its workers import the file again, or fail where it was gone."""
    import os

    monkeypatch.delenv(CODE_VARIABLE, raising=False)
    config, functions = code_files
    compare = ["compare", "the bank", "a river bank", "--word", "bank", "--pipeline", str(config)]
    assert CliRunner().invoke(app, ["--code", str(functions), *compare]).exit_code == 0
    assert CODE_VARIABLE not in os.environ


def test_a_folder_or_a_file_that_is_not_python_is_named_as_such(tmp_path):
    """A folder was "no such file", a text file "'NoneType' object has no attribute 'loader'"."""
    from spacy_ctxvec.user_code import import_code

    (tmp_path / "notes.txt").write_text("import spacy\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E419\] --code .*: a folder, not a file"):
        import_code(tmp_path)
    with pytest.raises(CtxvecError, match=r"\[CTX-E419\] --code .*notes.txt: not a .py file"):
        import_code(tmp_path / "notes.txt")
    (tmp_path / "code.PY").write_text("import spacy\n", encoding="utf8")  # Python's importer reads .py alone
    with pytest.raises(CtxvecError, match=r"\[CTX-E419\] --code .*code.PY: not a .py file"):
        import_code(tmp_path / "code.PY")
