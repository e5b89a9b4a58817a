import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.evaluation.readers import read_sense_counts
from spacy_ctxvec.evaluation.tasks import evaluate_polysemy
from spacy_ctxvec.lexicon.polysemy_probe import FITTED_ALL, FITTED_HALF, in_fitted_half
from spacy_ctxvec.saved_pipeline import load_lexicon, load_pipeline_inputs, load_probe

runner = CliRunner()
WORDS = [
    a + b + c for a in "bdkp" for b in "aeiou" for c in "mnt"
]  # 60 made-up words, spelt by the tiny vocab's letters


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def tree_digest(path: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def lexicon_pipeline(tiny_pipeline_dir, tmp_path_factory) -> Path:
    """The tiny pipeline with a lexicon of the 60 words, each seen 6 times."""
    rng = np.random.default_rng(0)
    lines = [" ".join(rng.permutation(WORDS)[start : start + 6]) for _ in range(6) for start in range(0, len(WORDS), 6)]
    folder = tmp_path_factory.mktemp("fit_polysemy")
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf8")
    result = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        folder / "pipeline",
        "--min-count",
        "2",
        "--no-progress",
        "--sample-size",
        "0",
        "--no-senses",
    )
    assert result.exit_code == 0, result.output
    return folder / "pipeline"


def scored_words(pipeline: Path):
    """The WORDS seen at least twice (min_count) in the pipeline's lexicon."""
    lexicon = load_lexicon(pipeline)
    return [word for word in WORDS if word in lexicon and lexicon.counts[lexicon.index(word)] >= 2]


@pytest.fixture(scope="module")
def sense_counts(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("counts") / "sense_counts.tsv"
    path.write_text("".join(f"{word}\t{1 + i % 5}\n" for i, word in enumerate(WORDS)), encoding="utf8")
    return path


def test_the_built_pipeline_uses_self_similarity_until_a_probe_is_fitted(lexicon_pipeline, sense_counts, tmp_path):
    assert load_probe(lexicon_pipeline) is None  # no shipped probe fits the tiny random model
    before = tree_digest(lexicon_pipeline), sense_counts.read_bytes()
    result = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "held-out half, probe" in result.output and "held-out half, self_similarity" in result.output
    assert (tree_digest(lexicon_pipeline), sense_counts.read_bytes()) == before  # inputs untouched
    probe = load_probe(tmp_path / "out")
    # fitted on the md5-even half by default (it fitted on every word, held-out ones too)
    scored = scored_words(lexicon_pipeline)
    assert (
        probe is not None
        and probe.meta["fitted_words"] == FITTED_HALF
        and probe.meta["n_words"] == int(in_fitted_half(scored).sum()) < len(scored)
    )
    every = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "every", "--all-words")
    assert every.exit_code == 0, every.output
    every_meta = load_probe(tmp_path / "every").meta
    assert every_meta["fitted_words"] == FITTED_ALL and every_meta["n_words"] == len(scored)
    assert probe.meta["min_count"] == 2 and probe.model  # the tiny model's fingerprint
    nlp = spacy.load(tmp_path / "out")
    component = nlp.get_pipe("ctxvec_polysemy")
    assert component.score_source == "probe"
    lexicon = load_lexicon(tmp_path / "out")
    inputs = load_pipeline_inputs(tmp_path / "out", lexicon)  # the probe reads the tiny model's input embeddings
    assert probe.input_width == 32 and inputs.shape == (len(lexicon), 32)
    np.testing.assert_allclose(inputs, component.type_inputs)
    expected, valid = probe.scores(lexicon, 2, inputs)
    doc = nlp(" ".join(scored_words(lexicon_pipeline)[:5]))
    for token in doc:
        assert token._.polysemy_score == pytest.approx(expected[lexicon.index(token.text)])
    report = evaluate_polysemy(nlp, read_sense_counts(sense_counts))
    assert report.score == "probe" and report.n_covered == len(scored)
    assert report.held_out is not None and report.held_out.n_covered == len(scored) - probe.meta["n_words"]


def test_rank_and_plot_polysemy_follow_the_pipelines_own_score_setting(lexicon_pipeline, sense_counts, tmp_path):
    """A pipeline with a fitted probe and score = "self_similarity" (what W006 advises):
    its tokens, `rank` and `plot polysemy` all give self-similarity, not the probe."""
    from spacy.util import load_config

    from spacy_ctxvec.analysis.plot_data import polysemy_scores

    assert invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "out").exit_code == 0
    ranked = json.loads(invoke("rank", tmp_path / "out", "--format", "json", "--min-count", "2").stdout)
    assert ranked["score"] == "probe"  # the setting is "auto" and the probe fits
    config = load_config(tmp_path / "out" / "config.cfg", interpolate=False)
    config["components"]["ctxvec_polysemy"]["score"] = "self_similarity"
    config.to_disk(tmp_path / "out" / "config.cfg", interpolate=False)
    ranked = json.loads(invoke("rank", tmp_path / "out", "--format", "json", "--min-count", "2").stdout)
    assert ranked["score"] == "self_similarity" and polysemy_scores(tmp_path / "out", None, min_count=2).used == (
        "self_similarity"
    )
    nlp = spacy.load(tmp_path / "out")
    top = ranked["most"][0]
    assert nlp(top["word"])[0]._.polysemy_score == pytest.approx(top["polysemy_score"], abs=1e-6)
    probe_ranked = json.loads(
        invoke("rank", tmp_path / "out", "--format", "json", "--min-count", "2", "--score", "probe").stdout
    )
    assert probe_ranked["score"] == "probe"  # --score still overrides
    config["components"]["ctxvec_polysemy"]["min_count"] = 4
    config.to_disk(tmp_path / "out" / "config.cfg", interpolate=False)
    assert "[CTX-W038]" in " ".join(invoke("rank", tmp_path / "out", "--min-count", "2").output.split())
    assert "[CTX-W038]" not in invoke("rank", tmp_path / "out", "--min-count", "4").output


def test_half_keeps_the_other_half_for_evaluate(lexicon_pipeline, sense_counts, tmp_path):
    result = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "out", "--half", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output[result.output.index("{") :])
    assert printed["probe"]["fitted_words"] == FITTED_HALF
    assert set(printed["held_out"]) == {"probe", "self_similarity"}
    # Each held-out report is the held-out half already: no "held_out" key of its own.
    assert all("held_out" not in report and "spearman" in report for report in printed["held_out"].values())
    # a held-out estimate, each Spearman defined: the keys that would say why not are there, null
    assert printed["no_held_out"] is None and all(r["undefined"] is None for r in printed["held_out"].values())
    words = scored_words(lexicon_pipeline)
    n_even = int(in_fitted_half(words).sum())
    assert printed["probe"]["n_words"] == n_even
    report = evaluate_polysemy(spacy.load(tmp_path / "out"), read_sense_counts(sense_counts))
    assert report.held_out is not None and report.held_out.n_covered == len(words) - n_even
    evaluated = invoke("evaluate", "polysemy", tmp_path / "out", sense_counts)
    assert evaluated.exit_code == 0 and "held out (words the probe was not fitted on)" in evaluated.output
    as_json = json.loads(invoke("evaluate", "polysemy", tmp_path / "out", sense_counts, "--json").stdout)
    held_out = as_json["held_out"]  # the same numbers on the held-out half, nothing nested in it
    assert "held_out" not in held_out and held_out["n_covered"] == len(words) - n_even
    assert (
        set(held_out) == set(as_json) - {"held_out", "pipeline", "warnings"}
        and as_json["n_covered"] == report.n_covered
    )
    ranked = invoke("rank", tmp_path / "out", "--format", "json")
    assert json.loads(ranked.stdout)["score"] == "probe"


def test_outputs_it_did_not_make_and_inputs_are_refused(lexicon_pipeline, sense_counts, tmp_path):
    inside = invoke("fit-polysemy", lexicon_pipeline, sense_counts, lexicon_pipeline / "out")
    assert inside.exit_code == 1 and "E700" in inside.output
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf8")
    taken = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "taken")
    assert taken.exit_code == 1 and "E245" in taken.output and "or pass --overwrite" not in taken.output
    not_ours = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "taken", "--overwrite")
    assert not_ours.exit_code == 1 and "E245" in not_ours.output
    assert (tmp_path / "taken" / "notes.txt").read_text(encoding="utf8") == "mine"
    first = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "out")
    again = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "out", "--overwrite", "--half")
    assert first.exit_code == 0 and again.exit_code == 0, again.output
    assert load_probe(tmp_path / "out").meta["fitted_words"] == FITTED_HALF


def test_too_few_words_with_counts_is_a_coded_error(lexicon_pipeline, tmp_path):
    few = tmp_path / "few.tsv"
    few.write_text("".join(f"{word}\t{1 + i % 2}\n" for i, word in enumerate(WORDS[:10])), encoding="utf8")
    result = invoke("fit-polysemy", lexicon_pipeline, few, tmp_path / "out", "--all-words")
    assert result.exit_code == 1 and "E653" in result.output
    assert not (tmp_path / "out").exists()
    some = tmp_path / "some.tsv"  # enough to fit, too few for a held-out half
    some.write_text("".join(f"{word}\t{1 + i % 2}\n" for i, word in enumerate(WORDS[:30])), encoding="utf8")
    fitted = invoke("fit-polysemy", lexicon_pipeline, some, tmp_path / "out", "--all-words")
    assert fitted.exit_code == 0 and "[CTX-W076] No held-out estimate" in fitted.output
    assert load_probe(tmp_path / "out").meta["n_words"] == len(
        [w for w in scored_words(lexicon_pipeline) if w in WORDS[:30]]
    )


def test_sense_counts_by_part_of_speech_are_refused_before_the_pipeline_loads(shared_data, tmp_path):
    by_pos = shared_data / "wordnet_sense_counts" / "sense_counts_by_pos.tsv"
    result = invoke("fit-polysemy", "no-such-pipeline", by_pos, tmp_path / "out")
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E329]" in message and "sense_counts_by_pos.tsv, line 1" in message
    assert "need each lemma's total sense count" in message and not (tmp_path / "out").exists()


def test_one_sense_count_for_all_words_is_a_coded_error_of_its_own(lexicon_pipeline, tmp_path):
    same = tmp_path / "same.tsv"  # enough words, but nothing to fit: all monosemous
    same.write_text("".join(f"{word}\t1\n" for word in WORDS), encoding="utf8")
    result = invoke("fit-polysemy", lexicon_pipeline, same, tmp_path / "out")
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E655]" in message and "the same number of senses (1)" in message, message
    assert "E653" not in message and not (tmp_path / "out").exists()


def test_one_sense_count_in_the_half_to_fit_on_skips_the_held_out_estimate_not_the_fit(lexicon_pipeline, tmp_path):
    # the md5-even half (the held-out estimate's probe fits on it) all monosemous; the other half varied
    rows = [f"{word}\t{1 if in_fitted_half([word])[0] else 1 + i % 5}\n" for i, word in enumerate(WORDS)]
    counts = tmp_path / "counts.tsv"
    counts.write_text("".join(rows), encoding="utf8")
    result = invoke("fit-polysemy", lexicon_pipeline, counts, tmp_path / "out", "--all-words")
    message = " ".join(result.output.split())
    assert result.exit_code == 0 and load_probe(tmp_path / "out") is not None, message
    n_half = len([word for word in scored_words(lexicon_pipeline) if in_fitted_half([word])[0]])
    assert f"No held-out estimate: all {n_half} words of the half to fit on (md5-even half) have 1 sense" in message
    assert "E655" not in message and "held-out half," not in message
    as_json = invoke("fit-polysemy", lexicon_pipeline, counts, tmp_path / "out", "--overwrite", "--json", "--all-words")
    printed = json.loads(as_json.stdout)  # held_out as before ({}), and why there is none
    assert as_json.exit_code == 0 and printed["held_out"] == {}, as_json.output
    assert printed["no_held_out"].startswith(f"all {n_half} words of the half to fit on (md5-even half) have 1 sense")
    assert "No held-out estimate: all" in " ".join(as_json.stderr.split())  # W076 beside the JSON too
    assert load_probe(tmp_path / "out").meta["n_words"] == len(scored_words(lexicon_pipeline))
    with_half = invoke("fit-polysemy", lexicon_pipeline, counts, tmp_path / "half", "--half")
    message = " ".join(with_half.output.split())  # --half fits on that half only: nothing to fit is an error
    assert with_half.exit_code == 1 and f"[CTX-E655] All {n_half} word types of the md5-even half fitted on" in message


@pytest.mark.parametrize(
    "held_out_counts, why",
    [
        ("all", "spearman undefined (all words have 1 sense)"),  # every held-out word is monosemous
        ("two", "spearman undefined (fewer than 3 words)"),  # only 2 held-out words have a count
    ],
)
def test_an_undefined_held_out_spearman_says_why_and_the_fit_succeeds(lexicon_pipeline, tmp_path, held_out_counts, why):
    fitted = [word for word in WORDS if in_fitted_half([word])[0]]  # differing counts: the fit is defined
    held_out = [word for word in WORDS if not in_fitted_half([word])[0]]
    rows = [f"{word}\t{1 + i % 5}\n" for i, word in enumerate(fitted)]
    rows += [f"{word}\t1\n" for word in (held_out if held_out_counts == "all" else held_out[:2])]
    counts = tmp_path / "counts.tsv"
    counts.write_text("".join(rows), encoding="utf8")
    result = invoke("fit-polysemy", lexicon_pipeline, counts, tmp_path / "out", "--all-words")
    message = " ".join(result.output.split())
    assert result.exit_code == 0 and load_probe(tmp_path / "out") is not None, message
    for name in ("probe", "self_similarity"):
        assert f"held-out half, {name}: {why}, partial (log frequency out) undefined" in message, message
    assert "[CTX-W042] The held-out Spearman of probe and self_similarity is undefined" in message
    as_json = invoke("fit-polysemy", lexicon_pipeline, counts, tmp_path / "out", "--overwrite", "--json", "--all-words")
    printed = json.loads(as_json.stdout)  # null, as before, and beside it why (the codes of evaluate polysemy)
    assert as_json.exit_code == 0 and printed["no_held_out"] is None
    stderr = " ".join(as_json.stderr.split())  # --json printed neither the warning nor the saved pipeline's line
    assert "[CTX-W042] The held-out Spearman of probe and self_similarity is undefined" in stderr
    assert f"saved pipeline to {tmp_path / 'out'}" in stderr
    reason, code, value = {"all": ("constant_sense_counts", "CTX-E326", 1), "two": ("too_few_pairs", "CTX-E321", None)}[
        held_out_counts
    ]
    said = why.removeprefix("spearman undefined (").removesuffix(")")  # as the held-out line says it
    for name in ("probe", "self_similarity"):
        report = printed["held_out"][name]
        assert report["spearman"] is None and report["partial_spearman"] is None
        assert report["undefined"] == {"reason": reason, "value": value, "code": code, "message": said}


def test_the_held_out_line_names_each_reason_a_spearman_is_undefined():
    from spacy_ctxvec.cli.fit_polysemy import undefined_why
    from spacy_ctxvec.evaluation.correlation import PolysemyReport, polysemy_undefined_because

    def why(scores, senses):
        undefined = polysemy_undefined_because(np.array(scores, dtype=float), np.array(senses))
        spearman = None if undefined else 1.0
        return undefined_why(PolysemyReport(spearman, None, None, len(scores), len(scores), undefined=undefined))

    assert why([0.1, 0.2], [1, 2]) == " (fewer than 3 words)"
    assert why([0.1, 0.2, 0.3], [4, 4, 4]) == " (all words have 4 senses)"
    assert why([0.25, 0.25, 0.25], [1, 2, 3]) == " (all words have the same score, 0.25)"
    assert why([0.1, 0.2, 0.3], [1, 2, 3]) == ""  # defined: nothing to say


def test_a_defined_held_out_spearman_warns_nothing(lexicon_pipeline, sense_counts, tmp_path):
    result = invoke("fit-polysemy", lexicon_pipeline, sense_counts, tmp_path / "out")
    assert result.exit_code == 0 and "W042" not in result.output and "undefined (" not in result.output
    message = " ".join(result.output.split())
    for name in ("probe", "self_similarity"):  # the estimate is there, with a number: not skipped
        assert re.search(rf"held-out half, {name}: spearman -?\d\.\d{{3}}, partial", message), message
    assert "No held-out estimate" not in message


def test_the_probe_decides_the_splits_once_fitted_unless_the_corpus_does(tiny_pipeline_dir, sense_counts, tmp_path):
    from spacy_ctxvec.saved_pipeline import load_senses

    rng = np.random.default_rng(1)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(" ".join(rng.permutation(WORDS)[:8]) for _ in range(60)) + "\n", encoding="utf8")
    # By default this corpus's evidence decides the senses: fitting a probe leaves them as built.
    built = invoke(
        "build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "by_evidence", "--min-count", "2", "--no-progress"
    )
    assert built.exit_code == 0, built.output
    assert load_senses(tmp_path / "by_evidence").settings["split_rule"] == "evidence"
    kept = invoke("fit-polysemy", tmp_path / "by_evidence", sense_counts, tmp_path / "kept")
    assert kept.exit_code == 0 and "Senses induced again" not in kept.output, kept.output
    assert load_senses(tmp_path / "kept").to_bytes() == load_senses(tmp_path / "by_evidence").to_bytes()
    # With split_by_evidence = false the probe decides once fitted.
    nlp = spacy.load(tiny_pipeline_dir)
    induction = {"@misc": "spacy-ctxvec.sense_induction.v1", "split_by_evidence": False}
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "induction": induction})
    nlp.to_disk(tmp_path / "spread_pipeline")
    built = invoke(
        "build-lexicon",
        tmp_path / "spread_pipeline",
        corpus,
        tmp_path / "with_senses",
        "--min-count",
        "2",
        "--no-progress",
    )
    assert built.exit_code == 0, built.output
    assert load_senses(tmp_path / "with_senses").settings["split_rule"] == "spread"
    result = invoke("fit-polysemy", tmp_path / "with_senses", sense_counts, tmp_path / "out", "--all-words")
    assert result.exit_code == 0 and "Senses induced again" in result.output, result.output
    probe, senses = load_probe(tmp_path / "out"), load_senses(tmp_path / "out")
    assert probe.split_senses is not None
    assert senses.settings["split_rule"] == "probe" and senses.settings["split_senses"] == probe.split_senses
    lexicon = load_lexicon(tmp_path / "out")
    estimates, _ = probe.scores(lexicon, 2, load_pipeline_inputs(tmp_path / "out", lexicon))
    for key in senses.keys:
        if senses.n_senses(key) > 1:
            assert estimates[lexicon.index(key)] > probe.split_senses


def test_a_pipeline_without_a_lexicon_is_told_to_build_one(default_pipeline_dir, sense_counts, tmp_path):
    result = invoke("fit-polysemy", default_pipeline_dir, sense_counts, tmp_path / "out")
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E330]" in said and "which fitting a polysemy probe needs" in said
    assert f"`spacy-ctxvec build-lexicon {default_pipeline_dir} CORPUS OUTPUT` and give OUTPUT" in said
    assert not (tmp_path / "out").exists()
    spaced = tmp_path / "my pipeline"  # the command as given pastes as one argument
    shutil.copytree(default_pipeline_dir, spaced)
    said = " ".join(invoke("fit-polysemy", spaced, sense_counts, tmp_path / "out").output.split())
    assert f"`spacy-ctxvec build-lexicon '{spaced}' CORPUS OUTPUT`" in said
