"""Derive the WordNet sense-count table (lemma -> number of senses) from the NLTK
WordNet 3.0 package, ``wordnet.zip`` (the `spacy project` asset).

    python scripts/wordnet_sense_counts.py assets/wordnet.zip training/wordnet_sense_counts.tsv [TABLE]

Reads ``wordnet/index.{noun,verb,adj,adv}``: the third field of each line (synset_cnt)
is the number of senses of that lemma in that part of speech. Writes
``lemma <TAB> total <TAB> n <TAB> v <TAB> a <TAB> r`` with a header, multiword lemmas
with spaces (``bank_account`` -> ``bank account``), sorted by lemma.

When the zip is absent, is not the asset project.yml declares (its md5 differs: a
truncated or other download, which `spacy project assets` only warns about), or is not a
WordNet package, the step is skipped with a message (exit 0), so the workflow runs
without it; a table this script wrote earlier at the output path is removed, saying so
(it would stand for a package that is not there now). The polysemy plot then has no sense
counts, unless TABLE (the workflow's ``--vars.sense_counts``) names another table that
exists, which it uses instead (that file is never removed: only the output path is, and
only when it holds the very table this script wrote there, as the md5 it recorded beside it
in ``OUTPUT.md5`` says; a user's own table at the output path stays and is used).
"""

import importlib.util
import sys
import zipfile
import zlib
from pathlib import Path
from types import ModuleType
from typing import Dict, Iterable, List, Optional

from spacy_ctxvec.errors import CtxvecError, Errors

POS_FILES = (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv"))
HEADER = "lemma\ttotal\tn\tv\ta\tr"
MAX_INDEX_BYTES = 64 * 2**20  # WordNet 3.0's largest, index.noun, is under 5 MB unpacked


def sense_counts_from_index(
    lines: Iterable[str], pos: str, counts: Dict[str, Dict[str, int]], member: str = ""
) -> None:
    """Add the (lemma, senses) of one WordNet ``index.POS`` file (``member`` of the zip) to ``counts``."""
    for line in lines:
        if not line.strip() or line.startswith("  "):  # blank, or the licence header
            continue
        fields = line.split()
        if len(fields) < 4 or not fields[2].isdigit():
            raise CtxvecError(Errors.E521.format(member=member or f"index.{pos}", line=line.strip()[:80]))
        lemma = fields[0].replace("_", " ")
        per_pos = counts.setdefault(lemma, {})
        per_pos[pos] = per_pos.get(pos, 0) + int(fields[2])


def sense_count_rows(zip_path: Path) -> List[str]:
    """Table rows (header first) of every lemma in the WordNet zip."""
    counts: Dict[str, Dict[str, int]] = {}
    with zipfile.ZipFile(zip_path) as archive:
        names = {Path(name).name: name for name in archive.namelist() if Path(name).name.startswith("index.")}
        for pos, suffix in POS_FILES:
            member = names.get(f"index.{suffix}")
            if member is None:
                raise CtxvecError(Errors.E521.format(member=f"index.{suffix}", line="(missing from the zip)"))
            size = archive.getinfo(member).file_size
            if size > MAX_INDEX_BYTES:  # a zip bomb, or another file: never unpacked whole
                raise CtxvecError(Errors.E521.format(member=member, line=f"{size:,} bytes unpacked, not an index"))
            with archive.open(member) as handle:
                text = handle.read(MAX_INDEX_BYTES + 1).decode("utf8")
            sense_counts_from_index(text.splitlines(), pos, counts, member)
    rows = [HEADER]
    for lemma in sorted(counts):
        per_pos = counts[lemma]
        by_pos = [per_pos.get(pos, 0) for pos, _ in POS_FILES]
        rows.append("\t".join([lemma, str(sum(by_pos))] + [str(n) for n in by_pos]))
    return rows


def load_asset_gate() -> ModuleType:
    """scripts/asset_gate.py, beside this script (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location("asset_gate", Path(__file__).with_name("asset_gate.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unusable_reason(zip_path: Path) -> Optional[str]:
    """Why the zip cannot be used (absent, or not the asset project.yml declares, saying
    so with both md5s), or None."""
    if not zip_path.is_file():
        return f"no WordNet package at {zip_path}"
    gate = load_asset_gate()
    if gate.usable_checksum(str(zip_path), gate.declared_checksums()) is None:  # prints both md5s
        return f"the WordNet package at {zip_path} is not used"
    return None


def skip(reason: str, output: Path, table: Optional[Path]) -> int:
    """Skip the step (exit 0): remove the table an earlier run wrote at ``output`` (it was
    derived from a package that is not usable now; any other file there is left alone),
    and say which table, if any, the polysemy plot uses."""
    stale = load_asset_gate().remove_written(output)
    if table is not None and table.is_file():
        print(f"Skipped: {reason}; the polysemy plot uses the table {table}.")
    else:
        print(
            f"Skipped: {reason}. Run `python -m spacy project assets` to fetch it, or give a "
            f"lemma<TAB>count table with --vars.sense_counts. The polysemy plot is drawn without sense counts."
        )
    if stale:
        print(f"Removed {output}: the table an earlier run derived from a WordNet package that is not usable now.")
    return 0


def main(zip_path: Path, output: Path, table: Optional[Path] = None) -> int:
    reason = unusable_reason(zip_path)
    rows: List[str] = []
    if reason is None:
        try:
            rows = sense_count_rows(zip_path)
        except (CtxvecError, zipfile.BadZipFile, UnicodeDecodeError, OSError, EOFError, zlib.error) as err:
            detail = f"{err}" if isinstance(err, CtxvecError) else Errors.E521.format(member=zip_path.name, line=err)
            print(f"not used: {zip_path}: {detail}")
            reason = f"the WordNet package at {zip_path} is not usable"
    if reason is not None:
        return skip(reason, output, table)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    partial.write_text("\n".join(rows) + "\n", encoding="utf8")
    partial.replace(output)
    load_asset_gate().record_written(output)
    print(f"Wrote {output}: {len(rows) - 1} lemmas from {zip_path}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]) if len(sys.argv) == 4 else None))
