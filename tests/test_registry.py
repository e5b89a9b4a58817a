"""Every registered function and factory is reachable through an entry point, so
configs work without importing spacy_ctxvec first."""

import importlib
import pkgutil
import sys
from pathlib import Path

import pytest
from spacy.language import Language
from spacy.util import registry

from .conftest import python_output

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

PYPROJECT = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
ENTRY_POINTS = PYPROJECT["project"]["entry-points"]
ENTRY_POINT_FIX = (
    'each registered name needs a line "NAME" = "module:function" under [project.entry-points.{group}] '
    "in pyproject.toml (and none without a registration); then run pip install -e . again"
)


def import_every_module() -> None:
    """Import every module of the package, so that every registration decorator runs
    (import spacy_ctxvec alone imports none: its names load on first use)."""
    import spacy_ctxvec

    for module in pkgutil.walk_packages(spacy_ctxvec.__path__, "spacy_ctxvec."):
        importlib.import_module(module.name)


def test_every_registered_misc_function_has_an_entry_point():
    import_every_module()
    ours = {name for name in registry.misc.get_all() if name.startswith("spacy-ctxvec.")}
    assert ours == set(ENTRY_POINTS["spacy_misc"]), ENTRY_POINT_FIX.format(group="spacy_misc")


def test_every_registered_architecture_has_an_entry_point():
    import_every_module()
    ours = {name for name in registry.architectures.get_all() if name.startswith("spacy-ctxvec.")}
    assert ours == set(ENTRY_POINTS["spacy_architectures"]), ENTRY_POINT_FIX.format(group="spacy_architectures")


@pytest.mark.parametrize(
    "namespace,name",
    [("spacy_misc", name) for name in sorted(ENTRY_POINTS["spacy_misc"])]
    + [("spacy_architectures", name) for name in sorted(ENTRY_POINTS["spacy_architectures"])],
)
def test_registered_entry_point_resolves(namespace, name):
    target = ENTRY_POINTS[namespace][name]
    module, func = target.split(":")
    imported = __import__(module, fromlist=[func])
    reg = registry.misc if namespace == "spacy_misc" else registry.architectures
    assert reg.get(name) is getattr(imported, func)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS["spacy_factories"]))
def test_factory_entry_point_resolves(name):
    module, func = ENTRY_POINTS["spacy_factories"][name].split(":")
    factory = getattr(__import__(module, fromlist=[func]), func)
    assert Language.get_factory_meta(name).factory == name
    assert registry.factories.get(Language.get_factory_name(name)) is factory


@pytest.mark.slow
def test_factories_load_in_a_fresh_interpreter_without_importing_the_package():
    script = (
        "import spacy, sys\n"
        "nlp = spacy.blank('en')\n"
        "for name in ('ctxvec_context', 'ctxvec_static', 'ctxvec_polysemy'):\n"
        "    nlp.add_pipe(name)\n"
        "from spacy.util import registry\n"
        "registry.architectures.get('spacy-ctxvec.BucketedTransformerModel.v1')\n"
        "assert 'spacy_ctxvec' in sys.modules\n"
        "print(nlp.pipe_names)\n"
    )
    assert "ctxvec_polysemy" in python_output(script)


def test_console_script_runs_the_typer_app_with_imports_frozen(monkeypatch, capsys):
    import gc

    from spacy_ctxvec.entry import main  # loads spacy_ctxvec.cli, then runs its main

    module, name = PYPROJECT["project"]["scripts"]["spacy-ctxvec"].split(":")
    assert getattr(__import__(module, fromlist=[name]), name) is main
    monkeypatch.setattr(sys, "argv", ["spacy-ctxvec", "--help"])
    try:
        with pytest.raises(SystemExit) as exited:
            main()
        assert gc.get_freeze_count() > 0  # what imports made is out of the collector's passes
    finally:
        gc.unfreeze()
    assert exited.value.code == 0
    assert "build-lexicon" in capsys.readouterr().out
