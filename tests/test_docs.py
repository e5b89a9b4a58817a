"""Every code block of README.md and docs/*.md runs, so no snippet can rot.

A block runs unless the comment right before it says why not (``<!-- not-run: why -->``).
python blocks run in one process per file (tests/docs_runner.py, one shared namespace),
shell blocks line by line, in a temporary directory linked to configs/, project_data/,
scripts/, tests/ and pyproject.toml; ini blocks are parsed as spaCy config; a text block
after ``<!-- output-of: COMMAND -->`` is compared with what COMMAND prints. Other text
blocks are output or listings. A fenced block without a language, or in a language that
is not run, fails unless marked.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import List, Optional

import pytest
from thinc.api import Config

from spacy_ctxvec.analysis.comparison import legend

from .conftest import CONFIGS, REPO_ROOT

DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
RUN_LANGS = {"python", "bash", "sh", "console", "shell"}
CONFIG_LANGS = {"ini", "cfg"}
MARKER = re.compile(r"^<!--\s*(not-run|output-of):\s*(.*?)\s*-->$")
FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")
LINKS_TO_REPO = ("configs", "project_data", "scripts", "tests", "pyproject.toml")


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    code: str
    not_run: Optional[str] = None
    output_of: Optional[str] = None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO_ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.not_run is None and (self.lang in RUN_LANGS or self.output_of is not None)


def read_blocks(path: Path) -> List[Block]:
    lines = path.read_text(encoding="utf8").splitlines()
    blocks: List[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = next(n for n in range(index + 1, len(lines)) if lines[n].startswith("```"))
        block = Block(path, index + 1, opening.group(1), "\n".join(lines[index + 1 : end]) + "\n")
        before = next((lines[n].strip() for n in range(index - 1, -1, -1) if lines[n].strip()), "")
        marker = MARKER.match(before)
        if marker and marker.group(1) == "not-run":
            block.not_run = marker.group(2)
        elif marker:
            block.output_of = marker.group(2)
        blocks.append(block)
        index = end + 1
    return blocks


ALL_BLOCKS = [block for path in DOCS for block in read_blocks(path)]


def test_every_block_runs_or_says_why_not():
    unmarked = [
        block.where
        for block in ALL_BLOCKS
        if block.not_run is None and block.output_of is None and block.lang not in RUN_LANGS | CONFIG_LANGS | {"text"}
    ]
    assert not unmarked, f"blocks that neither run nor say why (<!-- not-run: why -->): {unmarked}"
    assert all(block.not_run for block in ALL_BLOCKS if block.not_run is not None)  # a reason each
    not_run = [block for block in ALL_BLOCKS if block.not_run is not None]
    runnable = [block for block in ALL_BLOCKS if block.runs]
    print(f"{len(runnable)} blocks run, {len(not_run)} marked not-run: " + ", ".join(b.where for b in not_run))
    assert len(runnable) >= len(not_run)  # marking is the exception, not the way out
    assert any(block.output_of for block in ALL_BLOCKS)  # the README's demo output is checked


def with_parent_sections(text: str) -> str:
    """A config fragment with the parent sections spaCy's parser wants ([a] before [a.b])."""
    lines, seen = [], set()
    for line in text.splitlines():
        header = re.match(r"^\[([\w.]+)\]\s*$", line)
        if header:
            parts = header.group(1).split(".")
            for n in range(1, len(parts)):
                parent = ".".join(parts[:n])
                if parent not in seen:
                    lines.append(f"[{parent}]")
                    seen.add(parent)
            seen.add(header.group(1))
        lines.append(line)
    return "\n".join(lines) + "\n"


def registered_names(node, found=None):
    """(registry, name) of every factory and @-reference in a parsed config."""
    found = [] if found is None else found
    for key, value in node.items():
        if isinstance(value, dict):
            registered_names(value, found)
        elif key == "factory":
            found.append(("factories", value))
        elif key.startswith("@"):
            found.append((key[1:], value))
    return found


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.lang in CONFIG_LANGS], ids=lambda b: b.where)
def test_config_blocks_parse_and_name_registered_functions(block):
    import spacy

    spacy.blank("en")  # loads the factories' entry points, as loading a config does
    config = Config().from_str(with_parent_sections(block.code), interpolate=False)
    names = registered_names(config)
    assert names, block.where
    for registry_name, name in names:
        if registry_name == "factories":
            assert spacy.Language.has_factory(name), (block.where, name)
        else:
            assert spacy.registry.has(registry_name, name), (block.where, registry_name, name)


def test_readme_is_short_and_docs_carry_no_internal_references():
    assert len((REPO_ROOT / "README.md").read_text(encoding="utf8").splitlines()) <= 350
    for path in DOCS:
        text = path.read_text(encoding="utf8")
        found = re.findall(r"\b(?:[Ii]ssue|[Ss]ession) \d+|\.\./shared", text)
        assert not found, (path.name, found)


def test_relative_links_point_at_files_that_exist():
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf8")):
            if not target.startswith(("http://", "https://", "mailto:")):
                assert (path.parent / target).exists(), (path.name, target)


def test_reference_lists_every_option_of_every_command():
    """docs/reference.md's command table claims every command option: each long option
    name of each command (as `--help` shows it; short aliases may be left out) is in that
    command's rows."""
    from .test_cli_structure import every_command_path

    rows = (REPO_ROOT / "docs" / "reference.md").read_text(encoding="utf8").splitlines()
    missing = []
    for path, command in every_command_path():
        name = " ".join(path)
        text = " ".join(row for row in rows if row.startswith(f"| `{name} "))
        assert text, f"no row for {name}"
        for parameter in command.params:
            for option in [*parameter.opts, *parameter.secondary_opts]:
                whole = rf"{re.escape(option)}(?![\w-])"  # --sample is not --sample-size
                if option.startswith("--") and option != "--help" and not re.search(whole, text):
                    missing.append(f"{name} {option}")
    assert not missing, missing


def test_table_rows_are_one_line_each():
    """A table row wrapped onto a second line renders as two rows, its end in the first column."""
    broken = []
    for path in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1):
            if line.startswith("|") and not line.rstrip().endswith("|"):
                broken.append(f"{path.name}:{number}")
    assert not broken, broken


def test_guarantees_name_tests_that_exist():
    """Each `test_FILE.py::test_name` (or `::test_name`, continuing the file named before) in
    docs/guarantees.md is a test function of that file."""
    text = (REPO_ROOT / "docs" / "guarantees.md").read_text(encoding="utf8")
    current, named, missing = None, 0, []
    for match in re.finditer(r"`(?:tests/)?(test_\w+\.py)?(?:::(test_\w+))?`", text):
        current = match.group(1) or current
        if match.group(2) is None:
            continue
        named += 1
        path = REPO_ROOT / "tests" / str(current)
        if not path.is_file() or not re.search(rf"def {match.group(2)}\b", path.read_text(encoding="utf8")):
            missing.append(f"{current}::{match.group(2)}")
    assert named >= 40 and not missing, missing


def test_compare_legend_names_the_static_source():
    def lines(config_name: str) -> List[str]:
        from spacy.util import load_config

        config = load_config(CONFIGS / config_name)
        return legend(SimpleNamespace(config=config, pipe_names=config["nlp"]["pipeline"]))  # type: ignore[arg-type]

    assert "(#N): the token's position in its text, counting from 0." in lines("default.cfg")
    assert "input-embedding table" in lines("default.cfg")[1] and "word2vec's table" in lines("default.cfg")[1]
    assert "a vectors file's table" in lines("word2vec.cfg")[1]
    assert "n/a: the table has no vector for the token" in lines("default.cfg")[1]  # compare prints n/a then
    unnamed = SimpleNamespace(config={}, pipe_names=["transformer", "ctxvec_static"])
    assert "the pipeline's static lookup table" in legend(unnamed)[1]  # type: ignore[arg-type]


def prepare_workdir(workdir: Path) -> Path:
    workdir.mkdir()
    for name in LINKS_TO_REPO:
        (workdir / name).symlink_to(REPO_ROOT / name, target_is_directory=(REPO_ROOT / name).is_dir())
    return workdir


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in DOCS if any(b.runs for b in read_blocks(p))], ids=lambda p: p.name)
def test_code_blocks_run(path, tmp_path):
    blocks = [
        {"where": b.where, "lang": b.lang, "code": b.code, "output_of": b.output_of}
        for b in read_blocks(path)
        if b.runs
    ]
    run_blocks(blocks, tmp_path)


def run_blocks(blocks: List[dict], tmp_path: Path) -> Path:
    """Run ``blocks`` with tests/docs_runner.py in a fresh working directory under
    ``tmp_path`` (offline, no display); assert they succeed; return that directory."""
    workdir = prepare_workdir(tmp_path / "work")
    listing = tmp_path / "blocks.json"
    listing.write_text(json.dumps(blocks), encoding="utf8")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", MPLBACKEND="Agg")
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "tests" / "docs_runner.py"), str(listing)],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return workdir


def demo_commands() -> List[str]:
    """The command lines of the Makefile's demo target, past its install prerequisite."""
    lines = (REPO_ROOT / "Makefile").read_text(encoding="utf8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("demo:"))
    commands = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        commands.append(line.strip().replace("$(PYTHON)", shlex.quote(sys.executable)))
    return commands


@pytest.mark.slow
def test_make_demo_runs_and_draws_its_picture(tmp_path):
    """`make demo`'s commands (the install aside) run as a newcomer's shell runs them and
    write the picture the README promises, inside the working directory only."""
    commands = demo_commands()
    runner = f"{shlex.quote(sys.executable)} -m spacy_ctxvec "  # $(PYTHON): make's Python, not whatever is on PATH
    assert len(commands) >= 4 and all(command.startswith(runner) for command in commands)
    block = {"where": "Makefile:demo", "lang": "bash", "code": "\n".join(commands), "output_of": None}
    workdir = run_blocks([block], tmp_path)
    assert (workdir / "plots" / "seed_apple.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "plots/seed_apple.png" in (REPO_ROOT / "README.md").read_text(encoding="utf8")
    assert sorted(p.name for p in workdir.iterdir()) == sorted([*LINKS_TO_REPO, "plots"])
