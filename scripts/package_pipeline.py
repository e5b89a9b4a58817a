"""`spacy package` for a pipeline directory that a spacy-ctxvec command wrote, without
spacy-ctxvec's output marker.

    python scripts/package_pipeline.py INPUT_DIR OUTPUT_DIR [spacy package options...]

build-lexicon and fit-polysemy leave a marker file in the directory they write
(``.spacy-ctxvec-output``, spacy_ctxvec.outputs: it lets ``--overwrite`` replace only
what they wrote). `spacy package` copies its input directory whole, so the marker would
travel into the package. This runs `python -m spacy package` with the same arguments on
a copy of INPUT_DIR without the marker: a temporary directory beside INPUT_DIR whose
files are hard links to INPUT_DIR's (copies where the file system has no hard links),
removed afterwards, and by the next run where a stop killed this one first. INPUT_DIR is
left as it was; the exit status is spacy package's.

With ``--force``, a README.md that an earlier `spacy package` generated in the package
folder it writes (OUTPUT_DIR/LANG_NAME-VERSION) is removed first: spacy package keeps an
existing README ("Using existing README.md from pipeline directory"), so a changed
meta.json description would not reach the package's long description. A README that
differs from the copy spacy package put beside the pipeline data (one edited by hand) is
left alone. So are the sdist and wheel an earlier run built there (dist/, and build/):
a run that builds only one of them would leave the other with the old pipeline.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import srsly

from spacy_ctxvec.outputs import OUTPUT_MARKER
from spacy_ctxvec.staging import process_running

# spacy package's options that name the package folder, and --force (spacy/cli/package.py)
NAME_OPTIONS = {"--name": "name", "-n": "name", "--version": "version", "-v": "version"}
META_OPTIONS = ("--meta-path", "--meta", "-m")
FORCE_OPTIONS = ("--force", "-f", "-F")


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def option_values(options: List[str]) -> Dict[str, str]:
    """``--option value`` and ``--option=value`` of a spacy package command line (the
    last one where an option is given twice, as spacy package reads it)."""
    values: Dict[str, str] = {}
    index = 0
    while index < len(options):
        key, equals, value = options[index].partition("=")
        if not equals and key in (*NAME_OPTIONS, *META_OPTIONS):
            value = options[index + 1] if index + 1 < len(options) else ""
            index += 1
        values[key] = value
        index += 1
    return values


def generated_readme(source: Path, output_dir: Path, options: List[str]) -> Optional[Tuple[Path, Path]]:
    """The README.md spacy package writes in its folder OUTPUT_DIR/LANG_NAME-VERSION and
    the copy it puts beside the pipeline data (LANG_NAME/LANG_NAME-VERSION/README.md), the
    folder named as spacy package names it: from the meta of the pipeline, then of
    --meta-path, then --name and --version. None where a meta.json cannot be read."""
    values = option_values(options)
    meta_paths = [source / "meta.json"] + [Path(values[key]) for key in META_OPTIONS if key in values]
    meta = {"lang": "en", "name": "pipeline", "version": "0.0.0"}
    try:
        for meta_path in meta_paths:
            if meta_path.is_file():
                meta.update(srsly.read_json(meta_path))
    except (ValueError, TypeError):  # not JSON, or not an object
        return None
    for key, field in NAME_OPTIONS.items():
        if key in values:
            meta[field] = values[key]
    lang, name = str(meta["lang"]), str(meta["name"])
    model_name = name if name.startswith(f"{lang}_") else f"{lang}_{name}"
    folder = output_dir / f"{model_name}-{meta['version']}"
    return folder / "README.md", folder / model_name / folder.name / "README.md"


def remove_generated_readme(readme: Path, copy: Path) -> None:
    """Remove the README.md an earlier spacy package generated (the same bytes as its copy
    beside the pipeline data; one edited since is left alone)."""
    if readme.is_file() and copy.is_file() and readme.read_bytes() == copy.read_bytes():
        readme.unlink()
        print(f"removed {readme}: spacy package writes it again from the current meta.json")


def remove_earlier_builds(folder: Path) -> None:
    """Remove the sdist and wheel an earlier spacy package built in ``folder``/dist (named as
    the folder: LANG_NAME-VERSION.tar.gz, LANG_NAME-VERSION-*.whl) and its build/ folder: a
    run that builds only one of them left the other, of the same version, with the old pipeline."""
    built = [
        *folder.glob(f"dist/{glob.escape(folder.name)}.tar.gz"),
        *folder.glob(f"dist/{glob.escape(folder.name)}-*.whl"),
    ]
    for path in built:
        path.unlink()
        print(f"removed {path}: an earlier build of this package")
    if (folder / "build").is_dir() and not (folder / "build").is_symlink():
        shutil.rmtree(folder / "build", ignore_errors=True)


STAGING_PREFIX = ".{name}.package-"  # then the process id, "-" and tempfile's random part


def remove_killed_copies(source: Path) -> List[Path]:
    """The staged copies beside SOURCE whose process is gone: spacy project run kills a command
    0.25 s after Ctrl-C, before its temporary folder is removed, and each stop left one (hard
    links that keep an earlier pipeline's files on disk). Copies named without a process id
    (made before it was part of the name) count as gone."""
    if os.name != "posix":  # no way here to ask whether a process runs without signalling it
        return []
    removed = []
    prefix = STAGING_PREFIX.format(name=source.name)
    for entry in sorted(source.parent.glob(glob.escape(prefix) + "*")):
        pid = entry.name[len(prefix) :].split("-", 1)[0]
        if entry.is_dir() and not entry.is_symlink() and not (pid.isdigit() and process_running(int(pid))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def main(argv: List[str]) -> int:
    if len(argv) < 2 or argv[0].startswith("-") or not Path(argv[0]).is_dir():
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(argv[0])
    if any(option in FORCE_OPTIONS for option in argv[2:]):
        readme = generated_readme(source, Path(argv[1]), argv[2:])
        if readme is not None:
            remove_generated_readme(*readme)
            remove_earlier_builds(readme[0].parent)
    remove_killed_copies(source)
    prefix = f"{STAGING_PREFIX.format(name=source.name)}{os.getpid()}-"
    with tempfile.TemporaryDirectory(prefix=prefix, dir=source.parent) as temporary:
        staged = Path(temporary) / source.name
        shutil.copytree(
            source, staged, symlinks=True, ignore=shutil.ignore_patterns(OUTPUT_MARKER), copy_function=_link_or_copy
        )
        return subprocess.run([sys.executable, "-m", "spacy", "package", str(staged), *argv[1:]]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
