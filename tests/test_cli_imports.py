"""Start-up cost: `spacy-ctxvec --help`, every `COMMAND --help` and a command given a
missing input never import the transformer stack (transformers, spacy_transformers) nor
scikit-learn, scipy, pandas or matplotlib; torch comes only with spaCy itself (thinc
imports it when installed). `import spacy_ctxvec` loads its public names on first use,
so spaCy must find every factory and registered function through an entry point."""

import ast
import json
import sys
from importlib import import_module
from pathlib import Path

import pytest

import spacy_ctxvec

from .conftest import python_output

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "spacy_ctxvec"
ENTRY_POINTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
HEAVY = ("transformers", "spacy_transformers", "sklearn", "scipy", "pandas", "matplotlib")

# Runs in a fresh process before anything else: records which file first imports torch.
WATCH_TORCH = """
import json, sys, traceback

class TorchImporter:
    filename = None

    def find_spec(self, name, path=None, target=None):
        if name == "torch" and TorchImporter.filename is None:
            frames = [f.filename for f in traceback.extract_stack()[:-1]]
            TorchImporter.filename = [f for f in frames if "importlib" not in f and "<frozen" not in f][-1]
        return None

sys.meta_path.insert(0, TorchImporter())
HEAVY = %r

def report(**extra):
    heavy = sorted(m for m in HEAVY if m in sys.modules)
    print(json.dumps({"heavy": heavy, "torch_importer": TorchImporter.filename, **extra}))
""" % (HEAVY,)


def run_reported(script: str) -> dict:
    """Run WATCH_TORCH + ``script`` (which ends with report(...)) in a fresh process."""
    return json.loads(python_output(WATCH_TORCH + script, timeout=300).strip().splitlines()[-1])


def assert_light(result: dict) -> None:
    assert result["heavy"] == []
    importer = result["torch_importer"]
    assert importer is None or Path(importer).parts[-2:] == ("thinc", "compat.py"), importer


def command_functions() -> int:
    """How many functions in cli/*.py are decorated as commands."""
    return sum(
        1
        for path in (PACKAGE / "cli").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8")))
        if isinstance(node, ast.FunctionDef)
        and any(isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "command" for d in node.decorator_list)
    )


@pytest.mark.slow
def test_help_of_the_app_and_of_every_command_stays_light():
    result = run_reported(
        """
import typer.main
from typer.testing import CliRunner
from spacy_ctxvec.cli import app

def leaves(command, path):
    if not getattr(command, "commands", None):
        return [path]
    return [leaf for name, sub in command.commands.items() for leaf in leaves(sub, path + [name])]

paths = leaves(typer.main.get_command(app), [])
runner = CliRunner()
codes = {"--help": runner.invoke(app, ["--help"]).exit_code}
for path in paths:
    out = runner.invoke(app, path + ["--help"])
    codes[" ".join(path)] = out.exit_code if "Usage:" in out.output else "no usage"
report(codes=codes)
"""
    )
    assert_light(result)
    codes = result["codes"]
    assert set(codes.values()) == {0}, codes
    assert len(codes) == 1 + command_functions()  # the app, then every command (evaluate wic, plot word, ...)
    assert {"build-lexicon", "rank", "evaluate wic", "plot polysemy"} <= set(codes)


@pytest.mark.slow
def test_the_console_script_freezes_again_once_the_transformer_stack_is_imported():
    result = run_reported(
        """
import gc
from spacy_ctxvec.cli import FreezeAfterImport, main
sys.argv = ["spacy-ctxvec", "--help"]
try:
    main()
except SystemExit as exited:
    code = exited.code
at_start = gc.get_freeze_count()
import spacy_transformers  # what loading a transformer pipeline imports
report(code=code, at_start=at_start, after=gc.get_freeze_count(), hooks=[
    type(finder).__name__ for finder in sys.meta_path if isinstance(finder, FreezeAfterImport)
])
"""
    )
    assert result["code"] == 0 and result["at_start"] > 100_000
    assert result["after"] > result["at_start"] + 10_000  # transformers' objects are out of full passes too (4.34: 18k)
    assert result["hooks"] == []  # the hook is gone once it has frozen
    assert "transformers" in result["heavy"]


MISSING = {
    "build-lexicon": ["build-lexicon", str(ROOT / "configs" / "default.cfg"), "{tmp}/absent.txt", "{tmp}/out"],
    "rank": ["rank", "{tmp}/absent"],
    "compare": ["compare", "a bank", "the bank", "--pipeline", "{tmp}/absent"],
    "evaluate wic": ["evaluate", "wic", str(ROOT / "configs" / "default.cfg"), "{tmp}/absent"],
    "train-static": ["train-static", "{tmp}/absent.txt", "{tmp}/vectors.txt"],
}


@pytest.mark.slow
def test_a_missing_input_is_a_coded_error_before_the_model_loads(tmp_path):
    commands = {name: [arg.format(tmp=tmp_path) for arg in args] for name, args in MISSING.items()}
    result = run_reported(
        f"""
from typer.testing import CliRunner
from spacy_ctxvec.cli import app

outputs = {{}}
for name, args in {commands!r}.items():
    out = CliRunner().invoke(app, args)
    outputs[name] = [out.exit_code, out.output]
report(outputs=outputs)
"""
    )
    assert_light(result)
    for name, (code, output) in result["outputs"].items():
        assert code == 1 and "[CTX-E" in output and "absent" in output, (name, output)
        assert "Traceback" not in output
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written


@pytest.mark.slow
def test_importing_the_package_is_light_and_every_public_name_resolves():
    result = run_reported(
        """
import spacy_ctxvec
light = sorted(m for m in HEAVY + ("torch", "spacy") if m in sys.modules)
names = {name: type(getattr(spacy_ctxvec, name)).__name__ for name in spacy_ctxvec.__all__}
from spacy_ctxvec import Polysemy, StaticVectorTable  # noqa: F401
report(light=light, names=names, listed=sorted(set(spacy_ctxvec.__all__) - set(dir(spacy_ctxvec))))
"""
    )
    assert result["light"] == []  # neither spaCy nor torch until a name is used
    assert set(result["names"]) == set(spacy_ctxvec.__all__) and result["listed"] == []
    assert result["names"]["Polysemy"] == "type" and result["names"]["load_static_vectors"] == "function"


@pytest.mark.parametrize("name", spacy_ctxvec.__all__)
def test_a_public_name_is_the_object_its_module_defines(name):
    value = getattr(spacy_ctxvec, name)
    assert value is getattr(import_module(value.__module__), name)
    assert value.__module__.startswith("spacy_ctxvec.")


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Polysemies'"):
        spacy_ctxvec.Polysemies  # noqa: B018
    assert not hasattr(spacy_ctxvec, "make_polysemies")


def registrations():
    """(entry point group, registered name, "module:function") of every registration decorator."""
    groups = {"misc": "spacy_misc", "architectures": "spacy_architectures", "callbacks": "spacy_callbacks"}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                # @registered("misc", NAME) and @factory(NAME) (registrations.py), as spaCy's own
                if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) and decorator.args):
                    continue
                args = [
                    a.value if isinstance(a, ast.Constant) else constants.get(getattr(a, "id", ""))
                    for a in decorator.args
                ]
                if decorator.func.id == "registered" and args[0] in groups:
                    yield groups[args[0]], args[1], f"{module}:{node.name}"
                elif decorator.func.id == "factory":
                    yield "spacy_factories", args[0], f"{module}:{node.name}"


def test_every_registration_is_an_entry_point():
    """spaCy finds them without `import spacy_ctxvec` (which no longer imports them)."""
    found = list(registrations())
    assert len(found) >= 15
    for group, name, target in found:
        assert ENTRY_POINTS[group].get(name) == target, (group, name, target)


@pytest.mark.slow
def test_a_saved_pipeline_loads_through_entry_points_alone(tiny_pipeline_dir):
    result = run_reported(
        f"""
import spacy
from spacy.util import registry
model_name = registry.misc.get("spacy-ctxvec.model_name.v1")
nlp = spacy.load({str(tiny_pipeline_dir)!r})
doc = nlp("the bank of the river")
report(model_name=model_name.__module__, pipes=nlp.pipe_names, width=len(doc[1]._.context_vec))
"""
    )
    assert result["model_name"] == "spacy_ctxvec.components.transformer"
    assert "ctxvec_context" in result["pipes"] and result["width"] > 0


def test_the_console_script_prints_a_library_warning_as_one_coded_line(tmp_path):
    """A coded warning raised inside the library (here W020, for files of a corpus folder
    that are not read) prints as the commands' own warnings do, one "⚠" line, not
    Python's "file:line: UserWarning" with the source line under it."""
    import subprocess

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("hello world\n", encoding="utf8")
    (corpus / "b.txt.gz").write_bytes(b"\x1f\x8b")
    command = [sys.executable, "-m", "spacy_ctxvec", "build-lexicon", str(tmp_path / "missing.cfg"), str(corpus)]
    result = subprocess.run([*command, str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "[CTX-E011]" in output  # the missing pipeline, after the corpus check
    assert "⚠ [CTX-W020] Corpus directory" in output and "Decompress (.gz)" in output
    assert "UserWarning" not in output and "corpus.py" not in output


def test_the_version_is_written_once_in_pyproject_and_read_from_the_installed_metadata():
    """spacy_ctxvec.__version__ and `spacy-ctxvec --version` both read the installed
    metadata, whose version is pyproject.toml's; the package holds no second literal."""
    from importlib.metadata import version

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert spacy_ctxvec.__version__ == declared == version("spacy-ctxvec")
    init = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf8"))
    literals = [node.value for node in ast.walk(init) if isinstance(node, ast.Constant)]
    assert declared not in literals and "__version__" in dir(spacy_ctxvec)


def test_the_version_of_a_source_tree_never_installed_is_unknown(monkeypatch):
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    monkeypatch.delitem(vars(spacy_ctxvec), "__version__", raising=False)
    assert spacy_ctxvec.__version__ == spacy_ctxvec.UNKNOWN_VERSION
    monkeypatch.delitem(vars(spacy_ctxvec), "__version__")  # read again, from the real metadata, when next used
