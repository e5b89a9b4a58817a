"""Run build-lexicon or a benchmark script with ``ops.senses.CONTEXT_WINDOW`` set to W (the
tokens either side whose mean vector is an occurrence's context), for the held-out re-choice
of the window (benchmarks/quality/SENSES.md, "Held-out re-choice"). The window is fixed when
the occurrence sample is built, so each value needs its own lexicon and its own one-use table;
the product has no setting for it, so this process's copies of the constant are replaced.

    python benchmarks/quality/with_context_window.py W cli build-lexicon PIPELINE CORPUS OUTPUT ...
    python benchmarks/quality/with_context_window.py W script benchmarks/quality/wordnet_coarse.py embed ...
"""

import runpy
import sys


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] not in ("cli", "script"):
        sys.exit(__doc__)
    window = int(sys.argv[1])
    if any(option in sys.argv for option in ("--n-process", "--engine")):
        sys.exit("one process only: workers (--n-process, --engine ray) import the package afresh, with a window of 5")
    from spacy_ctxvec.building import shard
    from spacy_ctxvec.evaluation import tasks
    from spacy_ctxvec.lexicon import sense_induction
    from spacy_ctxvec.ops import context_windows, senses

    for module in (senses, shard, sense_induction, tasks):
        module.CONTEXT_WINDOW = window  # type: ignore[attr-defined]
    context_windows.window_context_means.__defaults__ = (window, None)
    tasks.sense_targets.__defaults__ = (*tasks.sense_targets.__defaults__[:-1], window)  # type: ignore[index]
    if sys.argv[2] == "cli":
        from spacy_ctxvec.cli import app

        sys.argv = ["spacy-ctxvec", *sys.argv[3:]]
        app(prog_name="spacy-ctxvec")
    else:
        sys.argv = sys.argv[3:]
        runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
