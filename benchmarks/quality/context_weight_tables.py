"""split_calibration.py at one context weight, with the evidence rule's one-use table measured
again at that weight (benchmarks/quality/SENSES.md, "Held-out re-choice"): the fair comparison of
context weights. The shipped ``ONE_USE_TABLE`` was measured at weight 1; at another weight
corpus_polysemy moves off its scale (W060), so each weight gets its own table here.

The tables: ``wordnet_coarse.py table`` on the 40-line cache (n = 6-40) and on the 64-line
cache (n = 41-64), with ``--context-weight W``, their printed rows saved as text; at W = 1 they
are the shipped table. This script reads them, puts them in place of ``ONE_USE_TABLE`` for this
process only (benchmark use: the product has no such setting) and runs split_calibration.py
with the remaining arguments at ``--context-weights W``.

    python benchmarks/quality/wordnet_coarse.py table CACHE40 --context-weight W > t40_W.txt
    python benchmarks/quality/wordnet_coarse.py table CACHE64 --context-weight W \\
        --sizes 41,42,...,64 > t64_W.txt
    python benchmarks/quality/context_weight_tables.py W t40_W.txt t64_W.txt PIPELINE \\
        --sense-counts ... --labelled ... --half even --percentiles
"""

import re
import sys
from pathlib import Path
from typing import List, Sequence, Tuple

import split_calibration

from spacy_ctxvec.ops import sense_evidence

TABLE_ROW = re.compile(r"\s+\((.*)\),")


def read_tables(paths: Sequence[Path]) -> Tuple[Tuple[float, ...], ...]:
    """The rows ``wordnet_coarse.py table`` printed into ``paths``, by n; every n from 6 to 64 once."""
    rows: List[Tuple[float, ...]] = []
    for path in paths:
        for line in path.read_text(encoding="utf8").splitlines():
            match = TABLE_ROW.match(line)
            if match:
                values = [float(v) for v in match.group(1).split(",")]
                rows.append((int(values[0]), *values[1:]))
    rows.sort()
    sizes = [int(row[0]) for row in rows]
    if sizes != list(range(6, 65)):
        sys.exit(f"the tables cover n = {sizes}, not every n from 6 to 64 once")
    return tuple(rows)


def main() -> None:
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    weight, tables = float(sys.argv[1]), read_tables([Path(sys.argv[2]), Path(sys.argv[3])])
    shipped = sense_evidence.one_use_reference

    def at_this_weight(n: int, table: Sequence[Sequence[float]] = tables) -> Tuple[float, ...]:
        return shipped(n, tables)  # every caller's table (the shipped default) replaced

    sense_evidence.one_use_reference = at_this_weight  # type: ignore[assignment]
    sys.argv = ["split_calibration.py", *sys.argv[4:], "--context-weights", str(weight)]
    split_calibration.main()


if __name__ == "__main__":
    main()
