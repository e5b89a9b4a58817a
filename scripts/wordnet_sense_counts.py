"""Derive the WordNet sense-count table (lemma -> number of senses) from the NLTK
WordNet 3.0 package, ``wordnet.zip`` (the `spacy project` asset).

    python scripts/wordnet_sense_counts.py assets/wordnet.zip training/wordnet_sense_counts.tsv [TABLE]

Reads ``wordnet/index.{noun,verb,adj,adv}``: the third field of each line (synset_cnt)
is the number of senses of that lemma in that part of speech. Writes
``lemma <TAB> total <TAB> n <TAB> v <TAB> a <TAB> r`` with a header, multiword lemmas
with spaces (``bank_account`` -> ``bank account``), sorted by lemma.

When the zip is absent the step is skipped with a message (exit 0), so the workflow
runs without it; the polysemy plot then has no sense counts, unless TABLE (the workflow's
``--vars.sense_counts``) names another table that exists, which it uses instead.
"""

import sys
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from spacy_ctxvec.errors import CtxvecError, Errors

POS_FILES = (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv"))
HEADER = "lemma\ttotal\tn\tv\ta\tr"


def sense_counts_from_index(lines: Iterable[str], pos: str, counts: Dict[str, Dict[str, int]]) -> None:
    """Add the (lemma, senses) of one WordNet ``index.POS`` file to ``counts``."""
    for line in lines:
        if not line.strip() or line.startswith("  "):  # blank, or the licence header
            continue
        fields = line.split()
        if len(fields) < 4 or not fields[2].isdigit():
            raise CtxvecError(Errors.E521.format(member=f"index.{pos}", line=line.strip()[:80]))
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
            with archive.open(member) as handle:
                text = handle.read().decode("utf8")
            sense_counts_from_index(text.splitlines(), pos, counts)
    rows = [HEADER]
    for lemma in sorted(counts):
        per_pos = counts[lemma]
        by_pos = [per_pos.get(pos, 0) for pos, _ in POS_FILES]
        rows.append("\t".join([lemma, str(sum(by_pos))] + [str(n) for n in by_pos]))
    return rows


def main(zip_path: Path, output: Path, table: Optional[Path] = None) -> int:
    if not zip_path.exists():
        if table is not None and table != output and table.is_file():
            print(f"Skipped: no WordNet package at {zip_path}; the polysemy plot uses the table {table}.")
            return 0
        print(
            f"Skipped: no WordNet package at {zip_path}. Run `python -m spacy project assets` to fetch "
            f"it, or give a lemma<TAB>count table with --vars.sense_counts. The polysemy plot is drawn "
            f"without sense counts."
        )
        return 0
    try:
        rows = sense_count_rows(zip_path)
    except (CtxvecError, zipfile.BadZipFile, UnicodeDecodeError) as err:
        print(
            f"{err}" if isinstance(err, CtxvecError) else Errors.E521.format(member=zip_path.name, line=str(err)),
            file=sys.stderr,
        )
        return 1
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    partial.write_text("\n".join(rows) + "\n", encoding="utf8")
    partial.replace(output)
    print(f"Wrote {output}: {len(rows) - 1} lemmas from {zip_path}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]) if len(sys.argv) == 4 else None))
