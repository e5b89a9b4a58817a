"""The spacy project workflow (project.yml): every file it reads is shipped, declared as
an asset (URL, md5 checksum, licence) or made by an earlier step; the steps that need an
asset (evaluate, sense-counts) skip with one line while it is absent; and `spacy project
run all` runs end to end in a copy of the repository with no ../shared beside it, first
without the assets, then with them put in place as `spacy project assets` puts them."""

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
import srsly
from weasel.util import get_checksum

from spacy_ctxvec.evaluation.readers import read_sense_counts

from .conftest import REPO_ROOT

# Where each declared asset's local copy lives under ../shared/data (same bytes as the
# original distribution's file; see each folder's README.md). wordnet.zip has no local copy.
LOCAL_COPIES = {
    "assets/wic/train.data.txt": "wic/train.data.txt",
    "assets/wic/train.gold.txt": "wic/train.gold.txt",
    "assets/wic/dev.data.txt": "wic/dev.data.txt",
    "assets/wic/dev.gold.txt": "wic/dev.gold.txt",
    "assets/SimLex-999.txt": "simlex999/SimLex-999.txt",
}
NOT_AVAILABLE_OFFLINE = {"assets/wordnet.zip"}
ALWAYS_RUN = {"check-assets", "sense-counts"}
SAMPLE_SIZES = {
    "static_min_count": 1,
    "static_size": 16,
    "static_epochs": 2,
    "min_count": 2,
    "layer_sample": 20,
    "eval_sample": 20,
    "package_build": "none",
}


def project() -> dict:
    return srsly.read_yaml(REPO_ROOT / "project.yml")


def with_vars(text: str, variables: dict) -> str:
    return re.sub(r"\$\{vars\.(\w+)\}", lambda match: str(variables[match.group(1)]), text)


def shipped_files() -> List[str]:
    """Files a clone has: tracked, or new and not ignored (this working tree's next commit)."""
    listing = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return [line for line in listing.stdout.splitlines() if (REPO_ROOT / line).is_file()]


def run_project(project_dir: Path, args: List[str], overrides: Dict[str, object]) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "spacy", "project", *args, str(project_dir)]
    for name, value in overrides.items():
        command += [f"--vars.{name}", str(value)]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return subprocess.run(command, cwd=project_dir, env=env, capture_output=True, text=True, timeout=900)


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_dependency_and_output_stays_one_path_once_weasel_fills_in_the_vars():
    """Two "${vars...}" list entries in a row are joined by weasel's interpolation into one path
    ("a.txt, b.txt"): the plot step then failed with a missing dependency."""
    from weasel.util import load_project_config

    raw = {command["name"]: command for command in project()["commands"]}
    for command in load_project_config(REPO_ROOT)["commands"]:
        for key in ("deps", "outputs"):
            filled, given = command.get(key, []), raw[command["name"]].get(key, [])
            assert len(filled) == len(given) and not any(", " in path for path in filled), (command["name"], filled)


def test_project_yml_declares_the_documented_workflow():
    config = project()
    commands = {command["name"]: command for command in config["commands"]}
    assert config["workflows"]["all"][0] == "train-static"
    assert set(config["workflows"]["all"]) <= set(commands)
    for name in config["workflows"]["all"]:
        if name in ALWAYS_RUN:  # these must notice the assets once fetched; their records are pushed and pulled
            assert commands[name].get("no_skip") and commands[name]["outputs"], name
        else:
            assert commands[name]["deps"] and commands[name]["outputs"], name
    meta = json.loads((REPO_ROOT / "project_data" / "meta.json").read_text())
    assert any(req.startswith("spacy-ctxvec") for req in meta["requirements"])


def test_every_file_the_workflow_reads_is_shipped_declared_or_made():
    """With the default vars: each dep, and each repository file a script line names, is
    shipped in the repository, an asset's dest, or an output of an earlier step; no var
    points outside the project."""
    config = project()
    variables = config["vars"]
    assert not [name for name, value in variables.items() if str(value).startswith(("..", "/"))]
    shipped = set(shipped_files())
    assets = {asset["dest"] for asset in config["assets"]}
    commands = {command["name"]: command for command in config["commands"]}
    made: set = set()
    for name in config["workflows"]["all"]:
        command = commands[name]
        for dep in command.get("deps", []):
            path = with_vars(dep, variables)
            assert path in shipped or path in assets or path in made, (name, path)
        for line in command["script"]:
            for word in shlex.split(with_vars(line, variables)):
                if word.startswith(("configs/", "project_data/", "scripts/")):
                    assert word in shipped, (name, word)
        made |= {with_vars(output, variables) for output in command.get("outputs", [])}
    # The evaluate step reads the WiC files from wic_dir and the SimLex-999 file: assets.
    assert {
        f"{variables['wic_dir']}/{split}.{kind}.txt" for split in ("train", "dev") for kind in ("data", "gold")
    } <= assets
    assert variables["word_sim"] in assets and variables["wordnet_zip"] in assets
    # Every file the asset gate checks is a declared asset, and evaluate reruns when the record changes.
    for name in ("check-assets", "evaluate"):
        for line in commands[name]["script"]:
            words = shlex.split(with_vars(line, variables))
            gated = words[words.index("record") + 2 :] if "record" in words else words[3 : words.index("--")]
            assert gated and set(gated) <= assets, (name, gated)
    record = shlex.split(with_vars(commands["check-assets"]["script"][0], variables))[3]
    assert record in commands["evaluate"]["deps"] and record in commands["check-assets"]["outputs"]
    # plot reruns when the sense-count table it reads appears or changes
    counts = shlex.split(with_vars(commands["sense-counts"]["script"][1], variables))
    assert counts[4:] == [variables["sense_counts"]] and counts[3] in commands["plot"]["deps"]


def test_script_lines_keep_a_var_with_spaces_as_one_argument(tmp_path):
    """weasel splits each script line with shlex after substituting the vars: a corpus
    path with a space (`--vars.corpus "my corpus/x y.txt"`) was two arguments."""
    from weasel.util import load_project_config, split_command

    shutil.copyfile(REPO_ROOT / "project.yml", tmp_path / "project.yml")
    variables = project()["vars"]
    spaced = {name: f"/my data/{name} x.txt" for name, value in variables.items() if isinstance(value, str)}
    assert {"corpus", "plot_sentences", "plot_word", "wic_dir", "word_sim", "sense_counts", "wordnet_zip"} <= set(
        spaced
    )
    loaded = load_project_config(tmp_path, overrides={f"vars.{name}": value for name, value in spaced.items()})
    commands = {command["name"]: command for command in loaded["commands"]}
    for template in project()["commands"]:
        for raw, line in zip(template["script"], commands[template["name"]]["script"]):
            expected = [with_vars(word, {**variables, **spaced}) for word in shlex.split(raw)]
            assert split_command(line) == expected, (template["name"], raw)
    train = split_command(commands["train-static"]["script"][0])
    assert train[2] == "/my data/corpus x.txt"
    assert commands["train-static"]["deps"] == ["/my data/corpus x.txt"]  # deps stay paths, unquoted


def test_spacy_project_document_leaves_the_readme_alone(tmp_path):
    """`spacy project document --output README.md` replaced the whole README (331 lines)."""
    readme = tmp_path / "README.md"
    shutil.copyfile(REPO_ROOT / "README.md", readme)
    shutil.copyfile(REPO_ROOT / "project.yml", tmp_path / "project.yml")
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "project", "document", str(tmp_path), "--output", str(readme)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert readme.read_bytes() == (REPO_ROOT / "README.md").read_bytes() and "ignore marker" in result.stdout


def test_assets_have_url_checksum_licence_and_original_names():
    for asset in project()["assets"]:
        assert asset["dest"].startswith("assets/"), asset
        assert asset["url"].startswith("https://"), asset
        assert re.fullmatch(r"[0-9a-f]{32}", asset["checksum"]), asset
        assert "Licence" in asset["description"], asset
        assert Path(asset["dest"]).name == Path(asset["url"]).name  # the distribution's file name
    assert {asset["dest"] for asset in project()["assets"]} == set(LOCAL_COPIES) | NOT_AVAILABLE_OFFLINE


def test_asset_checksums_are_those_of_the_local_copies(shared_data):
    for asset in project()["assets"]:
        if asset["dest"] in NOT_AVAILABLE_OFFLINE:
            continue
        assert get_checksum(shared_data / LOCAL_COPIES[asset["dest"]]) == asset["checksum"], asset["dest"]


def test_gitignore_keeps_assets_and_outputs_out_of_the_repository():
    config = project()
    probes = [asset["dest"] for asset in config["assets"]]
    probes += [
        "training/wordnet_sense_counts.tsv",
        "metrics/wic.json",
        "plots/layers.png",
        "packages/en_ctxvec_demo-0.0.1/meta.json",
        "project.lock",
    ]
    checked = subprocess.run(
        ["git", "check-ignore", "--no-index", *probes], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert sorted(checked.stdout.split()) == sorted(probes)


def write_wordnet_zip(path: Path) -> Path:
    """A small zip laid out like NLTK's wordnet.zip: index.POS files in WordNet's format
    (licence header lines start with two spaces)."""
    header = "  1 This software and database is being provided to you, the LICENSEE, by  \n"
    index = {
        "noun": [
            "bank n 10 6 @ ~ #m #p %m + 10 1 09213565 08420278",
            "bank_account n 1 2 @ ~ 1 0 13354420",
            "run n 16 5 @ ~ #m + ; 16 4 00795720",
        ],
        "verb": ["bank v 8 4 @ ~ + $ 8 0 02787772", "run v 41 5 @ ~ * > + 41 9 01926311"],
        "adj": ["able a 4 4 ! & = + 4 2 00001740"],
        "adv": [],
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("wordnet/LICENSE", "WordNet Release 3.0\n")
        for pos, lines in index.items():
            archive.writestr(f"wordnet/index.{pos}", header + "".join(line + "  \n" for line in lines))
    return path


def test_wordnet_sense_counts_from_the_wordnet_package(tmp_path, capsys):
    script = load_script("wordnet_sense_counts")
    output = tmp_path / "training" / "wordnet_sense_counts.tsv"
    assert script.main(write_wordnet_zip(tmp_path / "wordnet.zip"), output) == 0
    assert output.read_text(encoding="utf8").splitlines() == [
        "lemma\ttotal\tn\tv\ta\tr",
        "able\t4\t0\t0\t4\t0",
        "bank\t18\t10\t8\t0\t0",
        "bank account\t1\t1\t0\t0\t0",
        "run\t57\t16\t41\t0\t0",
    ]
    assert read_sense_counts(output) == {"able": 4, "bank": 18, "bank account": 1, "run": 57}
    assert "4 lemmas" in capsys.readouterr().out


def test_wordnet_sense_counts_skip_cleanly_without_the_asset(tmp_path, capsys):
    script = load_script("wordnet_sense_counts")
    output = tmp_path / "sense_counts.tsv"
    assert script.main(tmp_path / "assets" / "wordnet.zip", output) == 0
    assert not output.exists()
    message = capsys.readouterr().out
    assert message.startswith("Skipped: no WordNet package") and "spacy project assets" in message
    # the workflow's default table is this step's own output: the same message
    assert script.main(tmp_path / "assets" / "wordnet.zip", output, output) == 0
    assert "spacy project assets" in capsys.readouterr().out
    # a table given with --vars.sense_counts is named as the one the plot uses (it said "without sense counts")
    table = tmp_path / "my_counts.tsv"
    table.write_text("lemma\ttotal\nbank\t18\n", encoding="utf8")
    assert script.main(tmp_path / "assets" / "wordnet.zip", output, table) == 0
    message = capsys.readouterr().out
    assert message.startswith("Skipped: no WordNet package") and f"the polysemy plot uses the table {table}" in message
    assert not output.exists()


def test_wordnet_sense_counts_skip_a_zip_that_is_not_wordnet(tmp_path, capsys):
    """A damaged zip stopped `spacy project run all` (exit 1); it is skipped like an absent
    one, saying why, and the table an earlier run derived is removed."""
    script = load_script("wordnet_sense_counts")
    other = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("wordnet/index.noun", "bank n ten\n")
    output = tmp_path / "sense_counts.tsv"
    assert script.main(other, output) == 0
    assert not output.exists()
    out = capsys.readouterr().out
    assert f"not used: {other}: [CTX-E521] Not a WordNet package" in out
    assert f"Skipped: the WordNet package at {other} is not usable" in out and "without sense counts" in out
    assert script.main(write_wordnet_zip(tmp_path / "good.zip"), output) == 0 and output.is_file()
    other.write_bytes(b"PK\x03\x04 cut short")  # not a zip at all (e.g. a truncated download)
    assert script.main(other, output, output) == 0
    out = capsys.readouterr().out
    assert "[CTX-E521]" in out and f"Skipped: the WordNet package at {other} is not usable" in out
    assert not output.exists() and f"Removed {output}" in out


def test_wordnet_sense_counts_never_unpack_a_zip_bomb(tmp_path, capsys):
    """A 200 KB zip whose index.noun unpacks to 200 MiB of spaces was read whole (469 MB peak)."""
    import tracemalloc

    script = load_script("wordnet_sense_counts")
    bomb = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("wordnet/index.noun", b" " * (200 * 2**20))
    output = tmp_path / "sense_counts.tsv"
    tracemalloc.start()
    try:
        assert script.main(bomb, output) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "[CTX-E521]" in capsys.readouterr().out and not output.exists()
    assert peak < 16 * 2**20


def test_wordnet_sense_counts_remove_their_own_stale_table_without_the_zip(tmp_path, capsys):
    """The zip gone after an earlier run: its table stayed and the plot drew a Spearman
    over it. Only this script's own table at its output path is removed."""
    script = load_script("wordnet_sense_counts")
    wordnet = write_wordnet_zip(tmp_path / "wordnet.zip")
    output = tmp_path / "training" / "wordnet_sense_counts.tsv"
    assert script.main(wordnet, output, output) == 0 and output.is_file()
    wordnet.unlink()
    capsys.readouterr()
    assert script.main(wordnet, output, output) == 0  # the workflow's default: TABLE is the output
    assert not output.exists()
    out = capsys.readouterr().out
    assert out.startswith("Skipped: no WordNet package") and "drawn without sense counts" in out
    assert f"Removed {output}: the table an earlier run derived" in out
    # a table given with --vars.sense_counts, even in this script's format, is the plot's and stays
    mine = tmp_path / "my_counts.tsv"
    mine.write_text("lemma\ttotal\tn\tv\ta\tr\nbank\t18\t10\t8\t0\t0\n", encoding="utf8")
    assert script.main(wordnet, output, mine) == 0
    assert mine.is_file() and f"the polysemy plot uses the table {mine}" in capsys.readouterr().out
    # a user's table at the output path (the default --vars.sense_counts), in any format, even this
    # script's own, is not this script's: left alone, and used (it was deleted as an earlier run's)
    for table in ("lemma\tcount\nbank\t18\n", "lemma\ttotal\tn\tv\ta\tr\nbank\t18\t10\t8\t0\t0\n"):
        output.write_text(table, encoding="utf8")
        assert script.main(wordnet, output, output) == 0
        out = capsys.readouterr().out
        assert output.read_text(encoding="utf8") == table and "Removed" not in out
        assert f"the polysemy plot uses the table {output}" in out


def test_wordnet_sense_counts_skip_a_zip_other_than_the_declared_asset(tmp_path, monkeypatch, capsys):
    """The zip was never checked against project.yml's checksum (the evaluation assets are)."""
    script = load_script("wordnet_sense_counts")
    monkeypatch.chdir(tmp_path)
    Path("assets").mkdir()
    wordnet = write_wordnet_zip(Path("assets") / "wordnet.zip")
    md5 = get_checksum(wordnet)
    declared = {"dest": "assets/wordnet.zip", "url": "https://example.org/wordnet.zip", "checksum": "0" * 32}
    srsly.write_yaml("project.yml", {"assets": [declared]})
    output = Path("training") / "wordnet_sense_counts.tsv"
    assert script.main(write_wordnet_zip(tmp_path / "good.zip"), output) == 0 and output.is_file()  # an earlier run's
    for given in ("assets/wordnet.zip", "./assets/wordnet.zip", str(tmp_path / "assets" / "wordnet.zip")):
        assert script.main(Path(given), output, output) == 0
        out = capsys.readouterr().out
        assert f"is not the asset project.yml declares (md5 {md5}, expected {'0' * 32})" in out, given
        assert "correct its checksum in project.yml" in out, given  # the file may be right, the checksum not
        assert "Skipped: the WordNet package at" in out and not output.exists(), given
    declared["checksum"] = md5
    srsly.write_yaml("project.yml", {"assets": [declared]})
    assert script.main(wordnet, output, output) == 0
    assert read_sense_counts(output)["run"] == 57 and "Wrote" in capsys.readouterr().out


def test_asset_gate_records_presence_and_md5(tmp_path, monkeypatch, capsys):
    gate = load_script("asset_gate")
    monkeypatch.chdir(tmp_path)
    Path("present.txt").write_text("data\n", encoding="utf8")
    status = Path("training") / "evaluation_assets.json"
    assert gate.main(["record", str(status), "present.txt", "absent.txt"]) == 0
    recorded = json.loads(status.read_text(encoding="utf8"))
    assert recorded == {"present.txt": get_checksum(Path("present.txt")), "absent.txt": None}
    assert "1 of 2 assets present" in capsys.readouterr().out
    Path("absent.txt").write_text("now here\n", encoding="utf8")
    gate.main(["record", str(status), "present.txt", "absent.txt"])
    assert json.loads(status.read_text(encoding="utf8"))["absent.txt"] == get_checksum(Path("absent.txt"))


def test_asset_gate_skips_with_one_line_or_runs_the_command(tmp_path, monkeypatch, capsys):
    gate = load_script("asset_gate")
    monkeypatch.chdir(tmp_path)
    write = ["python", "-c", "import pathlib; pathlib.Path('out.txt').write_text('ran')"]
    assert gate.main(["run", "data.txt", "--", *write]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skipped `python -c")
    # data.txt is no declared asset: `project assets` would not fetch it (a typo in --vars.wic_dir said so)
    assert "no file at data.txt (check the path given in --vars)." in lines[0] and "project assets" not in lines[0]
    # `run evaluate` alone after the data came was "nothing changed": the line says how the data is seen
    assert "`python -m spacy project run all` runs it" in lines[0] and "after `run check-assets`" in lines[0]
    assert not Path("out.txt").exists()
    Path("data.txt").write_text("x", encoding="utf8")
    assert gate.main(["run", "data.txt", "--", *write]) == 0
    assert Path("out.txt").read_text() == "ran"
    assert gate.main(["run", "data.txt", "--", "python", "-c", "raise SystemExit(3)"]) == 3
    assert gate.main(["run", "data.txt"]) == 2  # no command: usage


def test_asset_gate_removes_the_report_of_an_earlier_run_when_it_skips(tmp_path, monkeypatch, capsys):
    """Data there, then gone (or the vars no longer point at it): the step's old report
    would stand beside a rebuilt pipeline it was not measured on."""
    gate = load_script("asset_gate")
    monkeypatch.chdir(tmp_path)
    Path("metrics").mkdir()
    Path("data.txt").write_text("x", encoding="utf8")
    write = "import pathlib; pathlib.Path('metrics/wic.json').write_text('{\\n  \"accuracy\": 0.6\\n}\\n')"
    command = ["python", "-c", write, "--output", "metrics/wic.json"]  # stands for evaluate --output
    assert gate.main(["run", "data.txt", "--", *command]) == 0 and Path("metrics/wic.json.md5").is_file()
    Path("data.txt").unlink()
    assert gate.main(["run", "data.txt", "--", *command]) == 0
    assert not Path("metrics/wic.json").exists() and "removed metrics/wic.json" in capsys.readouterr().out
    assert not Path("metrics/wic.json.md5").exists()
    # a JSON object of the user's own at that path (no run through the gate wrote it) is left alone
    for name, text in (("mine.json", '{"my": "notes"}'), ("notes.json", "not json")):
        Path("metrics", name).write_text(text, encoding="utf8")
        assert gate.main(["run", "data.txt", "--", "spacy-ctxvec", "evaluate", "--output", f"metrics/{name}"]) == 0
        assert Path("metrics", name).read_text(encoding="utf8") == text and "removed" not in capsys.readouterr().out


def test_asset_gate_checks_the_declared_asset_however_its_path_is_written(tmp_path, monkeypatch, capsys):
    """`--vars.word_sim ./assets/SimLex-999.txt` or an absolute path bypassed the checksum:
    the path was compared as written with the dest of project.yml."""
    gate = load_script("asset_gate")
    monkeypatch.chdir(tmp_path)
    Path("assets").mkdir()
    Path("assets/pairs.txt").write_text("a\tb\t1.0\n", encoding="utf8")
    declared = {"dest": "assets/pairs.txt", "url": "https://example.org/pairs.txt", "checksum": "0" * 32}
    srsly.write_yaml("project.yml", {"assets": [declared]})
    for given in ("./assets/pairs.txt", str(tmp_path / "assets" / "pairs.txt"), "assets/../assets/pairs.txt"):
        assert gate.main(["record", "status.json", given]) == 0
        assert json.loads(Path("status.json").read_text(encoding="utf8")) == {given: None}, given
        assert gate.main(["run", given, "--", "python", "-c", "raise SystemExit(3)"]) == 0, given
        out = capsys.readouterr().out
        assert f"not used: {given} is not the asset project.yml declares" in out and "skipped" in out, given
    declared["checksum"] = get_checksum(Path("assets/pairs.txt"))
    srsly.write_yaml("project.yml", {"assets": [declared]})
    assert gate.main(["run", "./assets/pairs.txt", "--", "python", "-c", "raise SystemExit(3)"]) == 3


def copy_as_fresh_clone(destination: Path) -> Path:
    for name in shipped_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, target)
    return destination


def put_assets_in_place(project_dir: Path, shared_data: Path) -> None:
    """What `spacy project assets` leaves: each file at its dest, checked against its md5."""
    for asset in project()["assets"]:
        if asset["dest"] in NOT_AVAILABLE_OFFLINE:
            continue
        dest = project_dir / asset["dest"]
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_data / LOCAL_COPIES[asset["dest"]], dest)
        assert get_checksum(dest) == asset["checksum"], asset["dest"]


@pytest.fixture(scope="module")
def run_without_assets(tmp_path_factory) -> Tuple[Path, subprocess.CompletedProcess]:
    """A fresh clone's `spacy project run all` offline, without assets: (the clone, its run)."""
    project_dir = copy_as_fresh_clone(tmp_path_factory.mktemp("project") / "clone")
    assert not (project_dir.parent / "shared").exists() and not (project_dir / "assets").exists()
    return project_dir, run_project(project_dir, ["run", "all"], dict(SAMPLE_SIZES))


@pytest.mark.slow
def test_project_run_all_in_a_fresh_clone_finishes_without_assets(run_without_assets):
    """Without assets (a fresh clone, offline): the workflow finishes; evaluate says it skipped."""
    project_dir, result = run_without_assets
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    skipped = [line for line in result.stdout.splitlines() if line.startswith("skipped `spacy-ctxvec evaluate")]
    assert len(skipped) == 2 and all("run `python -m spacy project assets` for assets/" in s for s in skipped)
    assert not (project_dir / "metrics").exists() or not list((project_dir / "metrics").iterdir())
    assert (project_dir / "training" / "pipeline_lexicon" / "config.cfg").exists()
    assert "drawing polysemy scores without WordNet sense counts" in result.stdout


@pytest.mark.slow
def test_project_run_all_again_with_the_assets_in_place(run_without_assets, shared_data):
    """Then with the assets (copies from the shared data): evaluate runs, the rest is skipped."""
    project_dir, first = run_without_assets
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    overrides = dict(SAMPLE_SIZES)  # the shipped sample corpus; sample sizes only, no data paths

    # With the assets in place: `run all` again runs evaluate (its record changed) and
    # skips the steps whose inputs did not change.
    put_assets_in_place(project_dir, shared_data)
    result = run_project(project_dir, ["run", "all"], overrides)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for name in ("train-static", "assemble", "build-lexicon", "export-static", "plot", "package"):
        assert f"Skipping '{name}': nothing changed" in result.stdout, name
    assert "skipped `" not in result.stdout

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
    assert list(word_sim) == ["assets/SimLex-999.txt"]  # the asset, not a ../shared copy
    assert word_sim["assets/SimLex-999.txt"]["n_covered"] >= 3
    # No wordnet.zip offline: the sense-count step and the plot say so and go on.
    assert "Skipped: no WordNet package at assets/wordnet.zip" in result.stdout
    assert not (project_dir / "training" / "wordnet_sense_counts.tsv").exists()
    for picture in ("word_apple.png", "layers.png", "polysemy.png"):
        assert (project_dir / "plots" / picture).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), picture
    package_meta = json.loads((project_dir / "packages" / "en_ctxvec_demo-0.0.1" / "meta.json").read_text())
    assert any(req.startswith("spacy-ctxvec") for req in package_meta["requirements"])

    # Nothing changed: weasel skips evaluate too.
    again = run_project(project_dir, ["run", "evaluate"], overrides)
    assert again.returncode == 0 and "nothing changed" in again.stdout.lower()

    # The offline override of the README: a local sense-count table instead of the asset.
    table = shared_data / "wordnet_sense_counts" / "sense_counts.tsv"
    plot = run_project(project_dir, ["run", "plot"], {**overrides, "sense_counts": table})
    assert plot.returncode == 0, plot.stdout[-3000:] + plot.stderr[-3000:]
    assert "Spearman rho with the sense counts of sense_counts.tsv" in plot.stdout


def test_package_pipeline_leaves_the_output_marker_out_of_the_package(tmp_path):
    """The package step: build-lexicon's output marker stays in the pipeline directory
    (its --overwrite still works) and out of the package `spacy package` makes of it."""
    import spacy

    from spacy_ctxvec.outputs import OUTPUT_MARKER, check_replaceable, write_directory

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    pipeline = tmp_path / "training" / "pipeline_lexicon"
    write_directory(pipeline, nlp.to_disk, what="pipeline", made_by="build-lexicon")
    before = {path.relative_to(pipeline): path.stat().st_mtime_ns for path in pipeline.rglob("*")}
    packages = tmp_path / "packages"
    packages.mkdir()
    args = [str(pipeline), str(packages), "--name", "marker_test", "--version", "0.0.1", "--build", "none"]
    assert load_script("package_pipeline").main(args) == 0
    data = packages / "en_marker_test-0.0.1" / "en_marker_test" / "en_marker_test-0.0.1"
    assert (data / "config.cfg").is_file() and (data / "sentencizer.json").is_file()
    assert list(packages.rglob(OUTPUT_MARKER)) == []
    assert {path.relative_to(pipeline): path.stat().st_mtime_ns for path in pipeline.rglob("*")} == before
    assert Path(OUTPUT_MARKER) in before and [p.name for p in pipeline.parent.iterdir()] == ["pipeline_lexicon"]
    check_replaceable(pipeline, "pipeline")  # no error: build-lexicon --overwrite may replace it


def test_package_pipeline_removes_the_copies_a_killed_run_left(tmp_path):
    """spacy project run kills a command 0.25 s after Ctrl-C: each stop of the package step left
    its staged copy (94 MB of hard links to an earlier pipeline), and no later run removed it."""
    import subprocess
    import sys

    script = load_script("package_pipeline")
    pipeline = tmp_path / "training" / "pipeline_lexicon"
    pipeline.mkdir(parents=True)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = pipeline.parent / f".pipeline_lexicon.package-{gone.stdout.strip()}-abcd1234"
    older = pipeline.parent / ".pipeline_lexicon.package-x1y2z3"  # named before the process id was
    running = pipeline.parent / f".pipeline_lexicon.package-{os.getpid()}-efgh5678"  # a run going on now
    other = pipeline.parent / ".other.package-1-abcd"
    for folder in (killed, older, running, other):
        (folder / "pipeline_lexicon").mkdir(parents=True)
    assert script.remove_killed_copies(pipeline) == [killed, older]
    assert sorted(p.name for p in pipeline.parent.iterdir()) == sorted([running.name, other.name, "pipeline_lexicon"])


def test_package_pipeline_writes_the_readme_again_from_a_changed_meta(tmp_path):
    """spacy package --force kept the README.md of an earlier run ("Using existing README.md
    from pipeline directory"): a changed meta.json description never reached the package's
    long description. A README edited by hand is kept."""
    import spacy

    nlp = spacy.blank("en")
    pipeline = tmp_path / "training" / "pipeline_lexicon"
    pipeline.parent.mkdir()
    nlp.to_disk(pipeline)
    packages = tmp_path / "packages"
    packages.mkdir()
    meta = tmp_path / "meta.json"
    args = [str(pipeline), str(packages), "--name", "readme_test", "--version", "0.0.1", "--meta-path", str(meta)]
    args += ["--build", "none", "--force"]
    folder = packages / "en_readme_test-0.0.1"
    for description in ("The first description.", "The second description."):
        meta.write_text(json.dumps({"description": description}), encoding="utf8")
        assert load_script("package_pipeline").main(args) == 0
        for readme in (folder / "README.md", folder / "en_readme_test" / "en_readme_test-0.0.1" / "README.md"):
            assert description in readme.read_text(encoding="utf8"), readme
    assert "The first description." not in (folder / "README.md").read_text(encoding="utf8")
    (folder / "README.md").write_text("# My own README\n", encoding="utf8")
    assert load_script("package_pipeline").main(args) == 0
    assert (folder / "README.md").read_text(encoding="utf8") == "# My own README\n"

    # a wheel an earlier run built stayed beside this run's sdist, of the same version with the old pipeline
    (folder / "dist").mkdir()
    earlier = [
        folder / "dist" / "en_readme_test-0.0.1-py3-none-any.whl",
        folder / "dist" / "en_readme_test-0.0.1.tar.gz",
    ]
    for path in [*earlier, folder / "dist" / "notes.txt", folder / "build" / "lib" / "x.py"]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("earlier", encoding="utf8")
    assert load_script("package_pipeline").main(args) == 0
    assert not any(path.exists() for path in earlier) and not (folder / "build").exists()
    assert (folder / "dist" / "notes.txt").read_text(encoding="utf8") == "earlier"  # not a build of this package


def test_the_package_step_goes_through_package_pipeline():
    (package,) = [command for command in project()["commands"] if command["name"] == "package"]
    assert [line.split()[:2] for line in package["script"]] == [["python", "scripts/package_pipeline.py"]]
    assert "scripts/package_pipeline.py" in package["deps"]


def test_asset_gate_does_not_use_a_file_other_than_the_declared_asset(tmp_path, monkeypatch, capsys):
    """spacy project assets only warns when a download's checksum differs and keeps the file:
    a truncated SimLex-999 was recorded as present and evaluated."""
    gate = load_script("asset_gate")
    monkeypatch.chdir(tmp_path)
    Path("assets").mkdir()
    Path("assets/pairs.txt").write_text("a\tb\t1.0\n", encoding="utf8")
    Path("mine.txt").write_text("a user's own file\n", encoding="utf8")
    declared = {"dest": "assets/pairs.txt", "url": "https://example.org/pairs.txt", "checksum": "0" * 32}
    srsly.write_yaml("project.yml", {"assets": [declared]})
    status = Path("status.json")
    assert gate.main(["record", str(status), "assets/pairs.txt", "mine.txt"]) == 0
    assert json.loads(status.read_text(encoding="utf8")) == {
        "assets/pairs.txt": None,
        "mine.txt": get_checksum(Path("mine.txt")),
    }
    out = capsys.readouterr().out
    assert "not used: assets/pairs.txt is not the asset project.yml declares" in out and "1 of 2 assets present" in out
    assert gate.main(["run", "assets/pairs.txt", "--", "python", "-c", "raise SystemExit(3)"]) == 0
    assert "skipped" in capsys.readouterr().out
    declared["checksum"] = get_checksum(Path("assets/pairs.txt"))
    srsly.write_yaml("project.yml", {"assets": [declared]})
    assert gate.main(["run", "assets/pairs.txt", "--", "python", "-c", "raise SystemExit(3)"]) == 3
