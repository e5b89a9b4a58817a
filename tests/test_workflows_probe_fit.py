"""workflows/probe_fit: fit-polysemy as a library function (the command's own tests
are in test_cli_fit_polysemy.py)."""

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.polysemy_probe import FITTED_ALL, FITTED_HALF, in_fitted_half
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.saved_pipeline import load_probe
from spacy_ctxvec.workflows.probe_fit import fit_polysemy_pipeline, held_out_estimate, held_out_skipped
from tests.test_cli_fit_polysemy import WORDS, lexicon_pipeline, sense_counts  # noqa: F401 (fixtures)
from tests.test_lexicon_polysemy_probe import planted_lexicon


def test_held_out_estimate_scores_only_the_other_half(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(200)]
    counts = {word: 1 + i % 7 for i, word in enumerate(words)}
    spreads = np.array([0.2 * counts[word] for word in words])
    vectors = np.repeat(rng.normal(size=(200, 8)), 6, axis=0) + np.repeat(spreads, 6)[:, None] * rng.normal(
        size=(1200, 8)
    )
    lexicon = Lexicon.from_occurrences(list(np.repeat(words, 6)), vectors)
    estimate = held_out_estimate(lexicon, counts, min_count=2, model=None)
    assert sorted(estimate) == ["probe", "self_similarity"]
    held_out = int((~in_fitted_half(words)).sum())
    assert all(report.n_covered == held_out for report in estimate.values())
    assert held_out_estimate(lexicon, {w: counts[w] for w in words[:10]}, min_count=2, model=None) == {}


def test_one_sense_count_in_the_half_to_fit_on_skips_the_held_out_estimate_and_says_why():
    lexicon, counts = planted_lexicon(n_types=80)  # varied counts; the md5-even half has 39 words
    even = {key: (1 if in_fitted_half([key])[0] else count) for key, count in counts.items()}
    assert held_out_estimate(lexicon, even, min_count=5, model=None) == {}  # no E655 for the half
    assert held_out_skipped(lexicon, even, min_count=5) == (
        "all 39 words of the half to fit on (md5-even half) have 1 sense, so a probe has nothing to fit there"
    )
    assert held_out_skipped(lexicon, counts, min_count=5) is None
    few = {key: counts[key] for key in list(counts)[:10]}
    assert held_out_skipped(lexicon, few, min_count=5) == "half of the words is fewer than 20 to fit on"


def test_fit_writes_a_new_pipeline_and_never_its_inputs(lexicon_pipeline, sense_counts, tmp_path):  # noqa: F811
    with pytest.raises(CtxvecError, match=r"E700.*lies inside the input PIPELINE"):
        fit_polysemy_pipeline(lexicon_pipeline, sense_counts, lexicon_pipeline / "out")
    fit = fit_polysemy_pipeline(lexicon_pipeline, sense_counts, tmp_path / "out")
    assert fit.probe.meta["fitted_words"] == FITTED_HALF and fit.probe.meta["halves"] == "lower case"
    assert fit.senses is None
    every = fit_polysemy_pipeline(lexicon_pipeline, sense_counts, tmp_path / "every", half=False)
    assert every.probe.meta["fitted_words"] == FITTED_ALL and "halves" not in every.probe.meta
    assert load_probe(tmp_path / "out").meta == fit.probe.meta
    with pytest.raises(CtxvecError, match=r"E226"):
        fit_polysemy_pipeline(lexicon_pipeline, sense_counts, tmp_path / "out")


def test_an_output_another_command_is_writing_stops_the_fit_at_once(
    lexicon_pipeline,  # noqa: F811
    sense_counts,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    """build-lexicon or fit-polysemy holding OUTPUT (another process): E268 before any work."""
    import subprocess
    import sys

    from tests.test_building_build_locks import HOLD_IN_ANOTHER_PROCESS

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "out"
    command = [sys.executable, "-c", HOLD_IN_ANOTHER_PROCESS, str(out)]
    holder = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(CtxvecError, match=r"E268\] Another build-lexicon or fit-polysemy is writing OUTPUT"):
            fit_polysemy_pipeline(lexicon_pipeline, sense_counts, out)
        assert not out.exists()
    finally:
        holder.communicate("", timeout=60)
    assert fit_polysemy_pipeline(lexicon_pipeline, sense_counts, out).probe is not None


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
def test_ctrl_c_while_output_is_swapped_in_finishes_the_fit(lexicon_pipeline, sense_counts, tmp_path, monkeypatch):  # noqa: F811
    """A SIGINT as OUTPUT was renamed into place was held until the swap was done, then went on as a plain
    Ctrl-C: exit 130 and no message, over an OUTPUT already replaced. Now the fit finishes with W052."""
    out = tmp_path / "out"
    fit_polysemy_pipeline(lexicon_pipeline, sense_counts, out)
    rename = os.rename

    def rename_after_ctrl_c(source, destination):
        if Path(destination) == out:
            signal.raise_signal(signal.SIGINT)
        rename(source, destination)

    monkeypatch.setattr(os, "rename", rename_after_ctrl_c)
    fit = fit_polysemy_pipeline(lexicon_pipeline, sense_counts, out, half=False, overwrite=True)
    monkeypatch.undo()
    assert fit.interrupted is not None and "CTX-W052" in fit.interrupted and f"OUTPUT '{out}'" in fit.interrupted
    assert load_probe(out).meta["fitted_words"] == FITTED_ALL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
