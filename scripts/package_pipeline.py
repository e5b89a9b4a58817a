"""`spacy package` for a pipeline directory that a spacy-ctxvec command wrote, without
spacy-ctxvec's output marker.

    python scripts/package_pipeline.py INPUT_DIR OUTPUT_DIR [spacy package options...]

build-lexicon and fit-polysemy leave a marker file in the directory they write
(``.spacy-ctxvec-output``, spacy_ctxvec.outputs: it lets ``--overwrite`` replace only
what they wrote). `spacy package` copies its input directory whole, so the marker would
travel into the package. This runs `python -m spacy package` with the same arguments on
a copy of INPUT_DIR without the marker: a temporary directory beside INPUT_DIR whose
files are hard links to INPUT_DIR's (copies where the file system has no hard links),
removed afterwards. INPUT_DIR is left as it was; the exit status is spacy package's.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

from spacy_ctxvec.outputs import OUTPUT_MARKER


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def main(argv: List[str]) -> int:
    if len(argv) < 2 or argv[0].startswith("-") or not Path(argv[0]).is_dir():
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(argv[0])
    with tempfile.TemporaryDirectory(prefix=f".{source.name}.package-", dir=source.parent) as temporary:
        staged = Path(temporary) / source.name
        shutil.copytree(
            source, staged, symlinks=True, ignore=shutil.ignore_patterns(OUTPUT_MARKER), copy_function=_link_or_copy
        )
        return subprocess.run([sys.executable, "-m", "spacy", "package", str(staged), *argv[1:]]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
