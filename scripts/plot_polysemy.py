"""`spacy-ctxvec plot polysemy` with the sense-count table when there is one.

    python scripts/plot_polysemy.py SOURCE SENSE_COUNTS [plot polysemy options...]

With SENSE_COUNTS present this is `spacy-ctxvec plot polysemy SOURCE --sense-counts
SENSE_COUNTS ...`; without it, the same plot without sense counts and a message saying
how to get them (the WordNet asset is optional).
"""

import sys
from pathlib import Path


def main(argv: list) -> None:
    from spacy_ctxvec.cli import app

    source, sense_counts, options = argv[0], Path(argv[1]), argv[2:]
    if sense_counts.is_file():
        options = ["--sense-counts", str(sense_counts)] + options
    else:
        print(
            f"No sense-count table at {sense_counts} (the WordNet asset is absent): drawing polysemy "
            f"scores without WordNet sense counts. Run `python -m spacy project assets`, or pass "
            f"--vars.sense_counts PATH, then `python -m spacy project run all` (a step run alone, such as "
            f"`run plot`, sees a new or changed table only after `run sense-counts`)."
        )
    app(["plot", "polysemy", source] + options, prog_name="spacy-ctxvec")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1:])
