import json

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app

runner = CliRunner()


@pytest.mark.slow
def test_compare_table(default_pipeline_dir):
    result = runner.invoke(
        app, ["compare", "I have a apple", "I have a pen", "--word", "a", "--pipeline", str(default_pipeline_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "static cosine" in result.output and "1.000" in result.output


@pytest.mark.slow
def test_compare_json_every_shared_word(default_pipeline_dir):
    args = [
        "compare",
        "We sat on the river bank",
        "The bank approved the loan",
        "--json",
        "--pipeline",
        str(default_pipeline_dir),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert {r["word"] for r in rows} == {"the", "bank"}
    bank = next(r for r in rows if r["word"] == "bank")
    assert bank["static_cosine"] == pytest.approx(1.0)
    assert 0.0 < bank["context_cosine"] < 0.99


@pytest.mark.slow
def test_compare_missing_word_exits_with_coded_message(default_pipeline_dir):
    result = runner.invoke(app, ["compare", "a b", "c d", "--word", "zebra", "--pipeline", str(default_pipeline_dir)])
    assert result.exit_code == 1
    assert "E012" in result.output


def test_compare_bad_pipeline_path(tmp_path):
    result = runner.invoke(app, ["compare", "a", "a", "--pipeline", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert "E011" in result.output


@pytest.mark.slow
def test_module_entry_point_help():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "spacy_ctxvec", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "compare" in proc.stdout
