"""The package's layering (README, Architecture): no module imports a module of a
higher layer, ops/ never imports spaCy, and no two modules share a name."""

import ast
from collections import Counter
from pathlib import Path
from typing import Iterator, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_ctxvec"

# Lower number = lower layer; one layer per folder. Longest matching prefix wins.
LAYERS = {
    "errors": 0,
    "catalogue": 0,
    "types": 0,
    "attributes": 0,
    "doc_storage": 0,
    "paths": 0,
    "outputs": 0,
    "data_files": 0,
    "devices": 0,
    "locks": 0,
    "interrupts": 0,
    "staging": 0,
    "terminal": 0,
    "user_code": 0,
    "ops": 1,
    "lexicon": 2,
    "static": 3,
    "building": 3,
    "components": 4,
    "pipelines": 5,
    "quantize": 5,
    "saved_pipeline": 5,
    "evaluation": 6,
    "analysis": 6,
    "workflows": 6,
    "cli": 7,
    "entry": 8,
    "__main__": 8,
    "__init__": 8,
}


def layer_of(module: str) -> int:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(f"no layer declared for spacy_ctxvec.{module}")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path) -> Iterator[Tuple[str, int]]:
    """(imported module relative to the package, line) for every import of the package."""
    package_parts = module_name(path).split(".")
    if path.name != "__init__.py":
        package_parts = package_parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [target] if node.module else [f"{target}.{alias.name}".strip(".") for alias in node.names]
                for name in names:
                    yield name.strip("."), node.lineno
            elif node.module and node.module.startswith("spacy_ctxvec"):
                yield node.module[len("spacy_ctxvec") :].strip(".") or "__init__", node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("spacy_ctxvec."):
                    yield alias.name[len("spacy_ctxvec.") :], node.lineno


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path):
    own = module_name(path)
    if own == "__init__":
        return
    for target, line in imports(path):
        assert layer_of(target) <= layer_of(own), f"{own} (line {line}) imports the higher layer {target}"


@pytest.mark.parametrize("path", sorted((PACKAGE / "ops").glob("*.py")), ids=lambda p: p.name)
def test_ops_never_import_spacy(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        assert not any(name.split(".")[0] in ("spacy", "thinc", "spacy_transformers") for name in names), path.name


def test_no_two_modules_share_a_name():
    names = Counter(p.stem for p in MODULES if p.stem not in ("__init__",))
    assert [name for name, count in names.items() if count > 1] == []


def test_layering_check_catches_an_upward_import(tmp_path):
    assert layer_of("components.context") > layer_of("building.shard")
    assert layer_of("cli.rank") > layer_of("components.polysemy")


def test_each_folder_is_one_layer():
    assert [name for name in LAYERS if "." in name] == []


# Modules without a test file of their own, and why (each must still exist).
UNTESTED_MODULES = {
    "__main__": "two lines; tests/test_cli_compare.py runs `python -m spacy_ctxvec --help`",
    "cli._app": "the typer app and exit_on_coded_error, run by every tests/test_cli_*.py",
    "types": "type aliases only, nothing to run",
    "catalogue.pipeline_errors": "message texts, checked through Errors by tests/test_errors.py",
    "catalogue.lexicon_errors": "message texts, checked through Errors by tests/test_errors.py",
    "catalogue.command_errors": "message texts, checked through Errors by tests/test_errors.py",
}


def test_every_module_has_a_test_file():
    """spacy_ctxvec/FOLDER/MODULE.py is tested in tests/test_FOLDER_MODULE.py (or
    tests/test_MODULE.py); __init__ files and UNTESTED_MODULES are the exceptions."""
    tests = Path(__file__).resolve().parent
    modules = [module_name(path) for path in MODULES if path.name != "__init__.py"]
    assert sorted(set(UNTESTED_MODULES) - set(modules)) == []
    missing = [
        module
        for module in modules
        if module not in UNTESTED_MODULES
        and not (tests / f"test_{module.replace('.', '_')}.py").is_file()
        and not (tests / f"test_{module.split('.')[-1]}.py").is_file()
    ]
    assert missing == [], f"no tests/test_<folder>_<module>.py for {missing}"


MAX_MODULE_LINES = 500


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_500_lines(path):
    n_lines = len(path.read_text(encoding="utf8").splitlines())
    assert n_lines <= MAX_MODULE_LINES, f"{path.name} has {n_lines} lines: cut it by concern"
