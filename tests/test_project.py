"""The spacy project workflow (project.yml) end to end on a tiny corpus, in a copy of
the project in a temporary directory (so the repository stays clean)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import srsly

from .conftest import REPO_ROOT, SHARED_DATA

TINY_CORPUS = [
    "We sat on the bank of the river.",
    "She walked to the bank to pay in her wages.",
    "The bank raised its rates.",
    "I want to eat an apple.",
    "Apple released a new laptop.",
    "The apple was sweet.",
    "The river ran past the old bank.",
    "The dog sat by the river.",
]


def run_project(project_dir: Path, target: str, overrides: dict) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "spacy", "project", "run", target, str(project_dir)]
    for name, value in overrides.items():
        args += [f"--vars.{name}", str(value)]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return subprocess.run(args, cwd=project_dir, env=env, capture_output=True, text=True, timeout=900)


def test_project_yml_declares_the_documented_workflow():
    project = srsly.read_yaml(REPO_ROOT / "project.yml")
    commands = {command["name"]: command for command in project["commands"]}
    assert project["workflows"]["all"][0] == "train-static"
    assert set(project["workflows"]["all"]) <= set(commands)
    for name in project["workflows"]["all"]:
        assert commands[name]["deps"] and commands[name]["outputs"], name
    assert Path(REPO_ROOT / project["vars"]["corpus"]).exists()
    assert Path(REPO_ROOT / project["vars"]["plot_sentences"]).exists()
    meta = json.loads((REPO_ROOT / "project_data" / "meta.json").read_text())
    assert any(req.startswith("spacy-ctxvec") for req in meta["requirements"])


@pytest.mark.slow
def test_project_workflow_all_on_a_tiny_corpus(tmp_path):
    if not (SHARED_DATA / "wordnet_sense_counts").exists():
        pytest.skip(f"{SHARED_DATA} not present")
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    shutil.copy(REPO_ROOT / "project.yml", project_dir)
    shutil.copytree(REPO_ROOT / "configs", project_dir / "configs")
    shutil.copytree(REPO_ROOT / "project_data", project_dir / "project_data")
    (project_dir / "tiny.txt").write_text("\n".join(TINY_CORPUS) + "\n", encoding="utf8")
    overrides = {
        "corpus": "tiny.txt",
        "static_min_count": 1,
        "static_size": 16,
        "static_epochs": 2,
        "min_count": 2,
        "layer_sample": 20,
        "eval_sample": 20,
        "package_build": "none",
        "wic_dir": SHARED_DATA / "wic",
        "word_sim": SHARED_DATA / "simlex999" / "EN-SIMLEX-999.txt",
        "sense_counts": SHARED_DATA / "wordnet_sense_counts" / "sense_counts.tsv",
    }
    result = run_project(project_dir, "all", overrides)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]

    assert (project_dir / "training" / "word2vec.txt").stat().st_size > 0
    lexicon_pipeline = project_dir / "training" / "pipeline_lexicon"
    config = (lexicon_pipeline / "config.cfg").read_text()
    assert "ctxvec_static" in config and "ctxvec_polysemy" in config
    assert (lexicon_pipeline / "ctxvec_polysemy" / "lexicon" / "lexicon.json").exists()
    header = (project_dir / "training" / "context_centroids.txt").read_text().splitlines()[0].split()
    assert int(header[0]) > 0 and int(header[1]) == 384
    wic = json.loads((project_dir / "metrics" / "wic.json").read_text())
    assert 0.0 <= wic["accuracy"] <= 1.0 and wic["n_examples"] == 20
    word_sim = json.loads((project_dir / "metrics" / "word_sim.json").read_text())
    assert len(word_sim) == 1
    for picture in ("word_apple.png", "layers.png", "polysemy.png"):
        assert (project_dir / "plots" / picture).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), picture
    package_meta = json.loads((project_dir / "packages" / "en_ctxvec_demo-0.0.1" / "meta.json").read_text())
    assert any(req.startswith("spacy-ctxvec") for req in package_meta["requirements"])

    # Nothing changed: weasel skips the step.
    again = run_project(project_dir, "train-static", overrides)
    assert again.returncode == 0 and "nothing changed" in again.stdout.lower()
