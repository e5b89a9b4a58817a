"""Let `spacy project run all` finish without the downloaded assets.

    python scripts/asset_gate.py record STATUS_JSON FILE...
    python scripts/asset_gate.py run FILE... -- COMMAND...

``record`` writes which of FILE... are usable, with their md5 (null when absent or not
the declared asset), to STATUS_JSON. The `check-assets` and `sense-counts` steps run it
every time (no_skip), and the steps that read the files depend on STATUS_JSON, so weasel
reruns them once the files are fetched or changed and skips them while nothing changed.

``run`` runs COMMAND when every FILE is usable; otherwise it prints one line, "skipped: run
`spacy project assets` for ...", and exits 0 so the workflow goes on. A skipped command's
``--output`` (a JSON report an earlier run with the data wrote) is removed, saying so:
it would stand beside a pipeline it was not measured on. Only the very report a run through
this gate wrote is removed (the md5 it records in ``OUTPUT.md5`` after the command succeeds);
any other file at that path, such as notes of your own, stays.

A file is usable when it exists and, where it is the dest of an asset of project.yml (the
same file, however the path is written: ./assets/x or an absolute path), has that asset's
checksum: `spacy project assets` only warns about a download that differs
(a truncated or other file), and keeps it.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import srsly
from weasel.util import get_checksum

PROJECT_FILE = Path("project.yml")  # the project's, in the folder weasel runs the steps from


def declared_checksums() -> Dict[str, str]:
    """dest -> checksum of the assets project.yml declares with a checksum."""
    if not PROJECT_FILE.is_file():
        return {}
    assets = srsly.read_yaml(PROJECT_FILE).get("assets") or []
    return {asset["dest"]: asset["checksum"] for asset in assets if asset.get("dest") and asset.get("checksum")}


def declared_checksum(name: str, declared: Dict[str, str]) -> Optional[str]:
    """The checksum declared for the asset whose dest is the file ``name``, however the path
    is written (``assets/x``, ``./assets/x``, an absolute path): both are resolved relative
    to the project folder. None where ``name`` is no declared asset."""
    folder = PROJECT_FILE.resolve().parent
    target = (folder / name).resolve()
    for dest, checksum in declared.items():
        if (folder / dest).resolve() == target:
            return checksum
    return None


def usable_checksum(name: str, declared: Dict[str, str]) -> Optional[str]:
    """The md5 of file ``name`` where it is usable; None (saying why, for a declared asset
    whose file differs) where it is not."""
    if not Path(name).is_file():
        return None
    md5 = get_checksum(Path(name))
    expected = declared_checksum(name, declared)
    if expected is not None and md5 != expected:
        print(
            f"not used: {name} is not the asset project.yml declares (md5 {md5}, expected {expected}): "
            f"delete it and run `python -m spacy project assets` again, or, if this file is the one you mean, "
            f"correct its checksum in project.yml"
        )
        return None
    return md5


def record(status_path: Path, files: List[str]) -> int:
    declared = declared_checksums()
    status = {name: usable_checksum(name, declared) for name in files}
    text = json.dumps(status, indent=2, sort_keys=True) + "\n"
    if not status_path.is_file() or status_path.read_text(encoding="utf8") != text:
        status_path.parent.mkdir(parents=True, exist_ok=True)
        status_path.write_text(text, encoding="utf8")
    present = sum(md5 is not None for md5 in status.values())
    print(f"{present} of {len(status)} assets present (status in {status_path})")
    return 0


def run(files: List[str], command: List[str]) -> int:
    declared = declared_checksums()
    missing = [name for name in files if usable_checksum(name, declared) is None]
    if missing:
        assets = [name for name in missing if declared_checksum(name, declared) is not None]
        not_found = [name for name in missing if name not in assets]
        why = [f"run `python -m spacy project assets` for {', '.join(assets)}"] if assets else []
        why += [f"no file at {', '.join(not_found)} (check the path given in --vars)"] if not_found else []
        local = " (or point the vars at local copies)" if assets else ""
        print(
            f"skipped `{' '.join(command[:3])}`: {'; '.join(why)}{local}. Once the data is there, "
            "`python -m spacy project run all` runs it (a step run alone, such as `run evaluate`, sees new data "
            "only after `run check-assets`)"
        )
        remove_stale_report(command)
        return 0
    if command[0] == "python":  # as weasel does: the interpreter running the project
        command = [sys.executable, *command[1:]]
    status = subprocess.run(command).returncode
    output = output_of(command)
    if status == 0 and output is not None and output.is_file():
        record_written(output)
    return status


def output_of(command: List[str]) -> Optional[Path]:
    """The command's --output, if it has one."""
    return Path(command[command.index("--output") + 1]) if "--output" in command[:-1] else None


def written_record(output: Path) -> Path:
    """Where the md5 of a file a project step wrote at ``output`` is kept (OUTPUT.md5)."""
    return output.with_name(output.name + ".md5")


def record_written(output: Path) -> None:
    """Record that the step wrote ``output`` as it is now."""
    written_record(output).write_text(get_checksum(output) + "\n", encoding="utf8")


def written_here(output: Path) -> bool:
    """Whether ``output`` is still the very file a step recorded writing there (its md5), not
    a file of the user's put at that path."""
    try:
        return output.is_file() and written_record(output).read_text(encoding="utf8").strip() == get_checksum(output)
    except (OSError, UnicodeDecodeError):
        return False


def remove_written(output: Path) -> bool:
    """Remove ``output`` and its record where ``written_here``; whether it did."""
    if not written_here(output):
        return False
    output.unlink()
    written_record(output).unlink()
    return True


def remove_stale_report(command: List[str]) -> None:
    """Remove the report at the command's --output that a run through this gate wrote (its
    recorded md5); any other file there is left alone."""
    output = output_of(command)
    if output is not None and remove_written(output):
        print(f"removed {output}: an earlier run's report, whose data is not there now")


def main(argv: List[str]) -> int:
    if len(argv) >= 2 and argv[0] == "record":
        return record(Path(argv[1]), argv[2:])
    if len(argv) >= 3 and argv[0] == "run" and "--" in argv[1:-1]:
        split = argv.index("--")
        return run(argv[1:split], argv[split + 1 :])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
