"""workflows/probe_fit: fit-polysemy as a library function (the command's own tests
are in test_cli_fit_polysemy.py)."""

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.polysemy_probe import FITTED_ALL, in_fitted_half
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.saved_pipeline import load_probe
from spacy_ctxvec.workflows.probe_fit import fit_polysemy_pipeline, held_out_estimate
from tests.test_cli_fit_polysemy import WORDS, lexicon_pipeline, sense_counts  # noqa: F401 (fixtures)


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


def test_fit_writes_a_new_pipeline_and_never_its_inputs(lexicon_pipeline, sense_counts, tmp_path):  # noqa: F811
    with pytest.raises(CtxvecError, match=r"E700.*lies inside the input PIPELINE"):
        fit_polysemy_pipeline(lexicon_pipeline, sense_counts, lexicon_pipeline / "out")
    fit = fit_polysemy_pipeline(lexicon_pipeline, sense_counts, tmp_path / "out")
    assert fit.probe.meta["fitted_words"] == FITTED_ALL and fit.senses is None
    assert load_probe(tmp_path / "out").meta == fit.probe.meta
    with pytest.raises(CtxvecError, match=r"E226"):
        fit_polysemy_pipeline(lexicon_pipeline, sense_counts, tmp_path / "out")
