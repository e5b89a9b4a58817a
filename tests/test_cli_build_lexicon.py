import json
import os
import re
import sys
import warnings
from pathlib import Path

import pytest
import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.statistics import Lexicon

runner = CliRunner()
CORPUS = ["the bank of the river", "we took out a loan at the bank", "i have an apple", "the bank", "play the pen"]


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf8")
    return path


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_build_from_directory_gives_a_loadable_pipeline_with_scores(tiny_pipeline_dir, corpus, tmp_path):
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--min-count", "2", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "5 docs" in result.output
    nlp = spacy.load(tmp_path / "out")
    assert nlp.config["components"]["ctxvec_context"]["layers"] == {
        "@misc": "spacy-ctxvec.mean_layers.v1",
        "layers": [-2],
    }
    assert nlp.pipe_names[-1] == "ctxvec_polysemy"
    doc = nlp("the bank")
    assert doc[1]._.polysemy_count == 3 and doc[1]._.polysemy_score is not None
    assert doc[1]._.context_shift is not None
    assert not (tmp_path / "out.checkpoint").exists()
    # Tiny random model, layer 1 of 2: the evidence thresholds (MiniLM layer 5) do not fit;
    # said once, as a build warning line, not as a Python warning.
    output = " ".join(result.output.split())
    assert output.count("W033") == 1 and re.search(
        r"'layer 1 of 2, pooled by pool_mean, model \w+' of another model", output
    )
    assert "UserWarning" not in output


def test_keep_layer_keeps_the_pipeline_setting(tiny_pipeline_dir, corpus, tmp_path):
    result = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "out",
        "--min-count",
        "2",
        "--no-progress",
        "--keep-layer",
    )
    assert result.exit_code == 0, result.output
    nlp = spacy.load(tmp_path / "out")
    assert nlp.config["components"]["ctxvec_context"]["layers"] == {"@misc": "spacy-ctxvec.last_layer.v1"}


def test_build_from_config_with_layer_and_text_key(tiny_nlp, corpus, tmp_path):
    config_path = tmp_path / "tiny.cfg"
    tiny_nlp.config.to_disk(config_path)
    result = invoke(
        "build-lexicon",
        config_path,
        corpus,
        tmp_path / "out",
        "--layer",
        "1",
        "--key",
        "text",
        "--min-count",
        "3",
        "--no-progress",
    )
    assert result.exit_code == 0, result.output
    nlp = spacy.load(tmp_path / "out")
    assert nlp.config["components"]["ctxvec_context"]["layers"]["layers"] == [1]
    assert nlp.config["components"]["ctxvec_polysemy"]["key"] == "text"
    lexicon = Lexicon.from_disk(tmp_path / "out" / "ctxvec_polysemy" / "lexicon")
    assert lexicon.meta["layers"]["layers"] == [1] and lexicon.meta["key"] == "text"


def test_invalid_json_line_error_and_skip_flag(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "the bank"}\n{"text": oops}\n{"words": ["the", "river", "bank"]}\n', encoding="utf8")
    failed = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--layer", "2")
    assert failed.exit_code == 1 and "E212" in failed.output and "line 2" in " ".join(failed.output.split())  # wrapped
    skipped = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "out",
        "--on-error",
        "skip",
        "--no-progress",
        "--min-count",
        "2",
        "--layer",
        "2",
    )
    assert skipped.exit_code == 0, skipped.output
    assert "2 docs" in skipped.output
    # W004 gives the reason raise mode gives, shortened (code and problem, no advice).
    assert "Skipped invalid line " + str(
        corpus
    ) + ":2: [CTX-E212] not valid JSON (Expecting value at column 10)" in flat(skipped)


def test_lemma_key_reads_the_lemmas_of_a_docbin_without_a_lemmatizer(tiny_pipeline_dir, corpus, tmp_path):
    """The Docs carry lemmas: E217 (no component sets them) held for texts only; a Doc
    without them is E229."""
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    lines = [*CORPUS, "the banks were closed"]
    docs = [nlp(line) for line in lines]
    for doc in docs:
        for token in doc:
            token.lemma_ = token.lower_.rstrip("s") or token.lower_
    DocBin(docs=docs, attrs=["LEMMA"]).to_disk(tmp_path / "lemmas.spacy")
    built = invoke("build-lexicon", tiny_pipeline_dir, tmp_path / "lemmas.spacy", tmp_path / "out", "--key", "lemma")
    assert built.exit_code == 0, built.output
    lexicon = spacy.load(tmp_path / "out").get_pipe("ctxvec_polysemy").lexicon
    expected = sum(token.lemma_ == "bank" for doc in docs for token in doc)
    assert expected > sum(token.lower_ == "bank" for doc in docs for token in doc) > 0  # "banks" counted too
    assert lexicon.count_of("bank") == expected and "banks" not in lexicon
    DocBin(docs=[nlp(line) for line in lines]).to_disk(tmp_path / "plain.spacy")
    plain = runner.invoke(
        app,
        ["build-lexicon", str(tiny_pipeline_dir), str(tmp_path / "plain.spacy"), str(tmp_path / "o"), "--key", "lemma"],
    )
    assert plain.exit_code == 1 and "E229" in plain.output


def test_the_summary_says_how_many_words_had_no_vector(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "glued.txt"
    corpus.write_text("the bank\U0001f602 of the river\nthe bank of the river\ngreat\U0001f60d day\n", encoding="utf8")
    built = runner.invoke(app, ["build-lexicon", str(tiny_pipeline_dir), str(corpus), str(tmp_path / "out")])
    message = " ".join(built.output.split())
    expected = "[CTX-W077] 2 tokens had no contextual vector (or a zero one) and were not counted"
    assert built.exit_code == 0 and expected in message


def test_a_corpus_of_one_word_says_the_baseline_is_undefined(tiny_pipeline_dir, tmp_path):
    """B (the mean cosine between different words) has no pairs: it was printed as 0.0000, and
    rank's JSON said 0.0, as if the scores were corrected for it."""
    import json

    corpus = tmp_path / "one_word.txt"
    corpus.write_text("bank bank bank\n" * 4, encoding="utf8")
    built = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--min-count", "2", "--no-progress")
    message = " ".join(built.output.split())
    assert built.exit_code == 0 and "baseline B = undefined (one word type: scores are 1 - self-similarity)" in message
    ranked = runner.invoke(app, ["rank", str(tmp_path / "out"), "--format", "json", "--min-count", "2"])
    assert ranked.exit_code == 0 and json.loads(ranked.stdout)["anisotropy_baseline"] is None
    table = runner.invoke(app, ["rank", str(tmp_path / "out"), "--min-count", "2"])
    assert "baseline B = undefined" in " ".join(table.output.split())


def test_a_lemma_key_with_the_lemma_setter_after_ctxvec_polysemy_is_e275_before_reading(
    tiny_bert_dir, corpus, tmp_path
):
    """The lexicon counted lemmas, but the saved pipeline's ctxvec_polysemy ran before its lemma setter and
    found no word (W071, every count 0)."""
    from .conftest import make_trf_nlp
    from .test_building_local import strip_s_lemmas  # noqa: F401  (registers test_strip_s_lemmas)

    late = make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_context", "ctxvec_polysemy", "test_strip_s_lemmas"])
    late.to_disk(tmp_path / "late")
    built = invoke("build-lexicon", tmp_path / "late", corpus, tmp_path / "out", "--key", "lemma", "--no-progress")
    assert built.exit_code == 1 and "[CTX-E275]" in built.output and not (tmp_path / "out").exists()


def test_bad_inputs(tiny_pipeline_dir, corpus, tmp_path):
    (tmp_path / "empty.txt").write_text("\n", encoding="utf8")
    missing_layer = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o0", "--no-progress", "--layer", "5")
    assert missing_layer.exit_code == 1 and "E003" in missing_layer.output  # a 2-layer model has hidden states 0..2
    empty = invoke("build-lexicon", tiny_pipeline_dir, tmp_path / "empty.txt", tmp_path / "o1", "--no-progress")
    assert empty.exit_code == 1 and "E211" in empty.output
    lemma = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o2", "--key", "lemma", "--no-progress")
    assert lemma.exit_code == 1 and "E217" in lemma.output
    engine = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o3", "--engine", "no-such-engine")
    assert engine.exit_code == 1 and "E223" in engine.output
    not_pipeline = invoke("build-lexicon", corpus, corpus, tmp_path / "o4")
    assert not_pipeline.exit_code == 1 and "E011" in not_pipeline.output
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("x")
    taken = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "taken")
    assert taken.exit_code == 1 and "E245" in taken.output  # --overwrite would refuse it too: not suggested
    gpu = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o5", "--gpu-id", "0", "--n-process", "2")
    assert gpu.exit_code == 1 and "E222" in gpu.output
    for option in (
        ["--num-workers", "2"],
        ["--node-loss-grace", "120"],
        ["--address", "auto"],
        ["--gpus-per-worker", "1"],
    ):
        ray_only = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o6", *option)
        message = " ".join(ray_only.output.split())
        assert (
            ray_only.exit_code == 1 and "E506" in message and f"{option[0]} is a setting of the ray engine" in message
        )
        assert not (tmp_path / "o6").exists()
    for option in (["--node-loss-grace", "-1"], ["--node-loss-grace", "nan"]):  # named as the user typed it
        bad_grace = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o6", "--engine", "ray", *option)
        message = " ".join(bad_grace.output.split())
        assert bad_grace.exit_code == 1 and "[CTX-E228] --node-loss-grace must be a number of seconds" in message
    ray_checkpoints = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "o7",
        "--engine",
        "ray",
        "--checkpoint-dir",
        tmp_path / "c7",
    )
    assert (
        ray_checkpoints.exit_code == 1
        and "E505" in flat(ray_checkpoints)
        and "--checkpoint-dir" in flat(ray_checkpoints)
    )
    assert not (tmp_path / "o7").exists() and not (tmp_path / "c7").exists()
    no_gpu = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o6", "--gpu-id", "0")
    assert no_gpu.exit_code == 1 and "E136" in no_gpu.output and "Traceback" not in no_gpu.output  # no CUDA here
    below_cpu = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "o8", "--gpu-id", "-5")
    said = ("Input should be greater than or equal to -1", "-5 is not in the range x>=-1")  # Click's wording by version
    assert below_cpu.exit_code == 2 and "'--gpu-id'" in flat(below_cpu) and any(s in flat(below_cpu) for s in said)
    assert not (tmp_path / "o8").exists()


# Nothing lost (issue 12, section 1): every case with user files present
def flat(result) -> str:
    """The command's output on one line (wasabi wraps long messages)."""
    return " ".join(result.output.split())


def snapshot(directory: Path):
    return {p.relative_to(directory): (p.read_bytes() if p.is_file() else None) for p in sorted(directory.rglob("*"))}


def make_user_dir(directory: Path) -> dict:
    (directory / "sub").mkdir(parents=True, exist_ok=True)
    (directory / "notes.txt").write_text("my notes", encoding="utf8")
    (directory / "sub" / "data.csv").write_text("1,2,3", encoding="utf8")
    return snapshot(directory)


def test_checkpoint_dir_holding_user_files_is_refused_and_survives(tiny_pipeline_dir, corpus, tmp_path):
    work = tmp_path / "work"
    before = make_user_dir(work)
    result = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "out",
        "--checkpoint-dir",
        work,
        "--no-progress",
        "--min-count",
        "2",
    )
    assert result.exit_code == 1 and "E244" in flat(result)
    assert snapshot(work) == before and not (tmp_path / "out").exists()


def test_user_dir_named_output_checkpoint_is_refused_and_survives(tiny_pipeline_dir, corpus, tmp_path):
    mine = tmp_path / "out.checkpoint"
    before = make_user_dir(mine)
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--min-count", "2")
    assert result.exit_code == 1 and "E244" in flat(result) and "out.checkpoint" in flat(result)
    assert snapshot(mine) == before


def test_checkpoint_dir_containing_output_is_refused(tiny_pipeline_dir, corpus, tmp_path):
    work = tmp_path / "work"
    before = make_user_dir(work)
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, work / "out", "--checkpoint-dir", work, "--no-progress")
    assert result.exit_code == 1 and "E246" in flat(result) and "contains OUTPUT" in flat(result)
    assert snapshot(work) == before
    inside = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "o",
        "--checkpoint-dir",
        tmp_path / "o" / "ckpt",
        "--no-progress",
    )
    assert inside.exit_code == 1 and "E246" in flat(inside) and "is inside OUTPUT" in flat(inside)


def test_inputs_are_never_output_or_checkpoint(tiny_pipeline_dir, tmp_path):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    (corpus_dir / "a.txt").write_text("\n".join(CORPUS) + "\n", encoding="utf8")
    corpus_before, pipeline_before = snapshot(corpus_dir), snapshot(tiny_pipeline_dir)
    cases = [
        ((corpus_dir, corpus_dir, "--overwrite"), "OUTPUT .* is the same as the input CORPUS"),
        ((corpus_dir, tiny_pipeline_dir, "--overwrite"), "OUTPUT .* is the same as the input PIPELINE"),
        ((corpus_dir, tiny_pipeline_dir.parent, "--overwrite"), "OUTPUT .* contains the input PIPELINE"),
        ((corpus_dir, tmp_path, "--overwrite"), "OUTPUT .* contains the input CORPUS"),
        ((corpus_dir, corpus_dir / "out"), "OUTPUT .* lies inside the input CORPUS"),
        (
            (corpus_dir, tmp_path / "o", "--checkpoint-dir", corpus_dir),
            "--checkpoint-dir .* is the same as the input CORPUS",
        ),
        (
            (corpus_dir, tmp_path / "o", "--checkpoint-dir", tiny_pipeline_dir / "ckpt"),
            "--checkpoint-dir .* lies inside the input PIPELINE",
        ),
    ]
    for args, message in cases:
        result = invoke("build-lexicon", tiny_pipeline_dir, *args, "--no-progress")
        assert result.exit_code == 1 and "E700" in flat(result), (args, result.output)
        assert re.search(message, flat(result)), (message, result.output)
    assert snapshot(corpus_dir) == corpus_before and snapshot(tiny_pipeline_dir) == pipeline_before


def test_overwrite_replaces_only_an_earlier_build_lexicon_output(tiny_pipeline_dir, corpus, tmp_path):
    mine = tmp_path / "mine"
    before = make_user_dir(mine)
    refused = invoke("build-lexicon", tiny_pipeline_dir, corpus, mine, "--overwrite", "--no-progress")
    assert refused.exit_code == 1 and "E245" in flat(refused)
    assert snapshot(mine) == before
    out = tmp_path / "out"
    first = invoke("build-lexicon", tiny_pipeline_dir, corpus, out, "--no-progress", "--min-count", "2")
    assert first.exit_code == 0, first.output
    again = invoke("build-lexicon", tiny_pipeline_dir, corpus, out, "--no-progress", "--min-count", "3")
    assert again.exit_code == 1 and "E226" in flat(again)
    replaced = invoke(
        "build-lexicon", tiny_pipeline_dir, corpus, out, "--overwrite", "--no-progress", "--min-count", "3"
    )
    assert replaced.exit_code == 0, replaced.output
    assert spacy.load(out).get_pipe("ctxvec_polysemy").min_count == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "mine", "out"]  # no temporaries left
    file_output = tmp_path / "file-output"
    file_output.write_text("x", encoding="utf8")
    as_file = invoke("build-lexicon", tiny_pipeline_dir, corpus, file_output, "--overwrite", "--no-progress")
    assert as_file.exit_code == 1 and "E247" in flat(as_file) and file_output.read_text() == "x"


def test_latin1_corpus_stops_keeps_checkpoint_and_resumes_with_encoding_and_new_min_count(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "books.txt"
    lines = [
        " ".join(CORPUS[i % len(CORPUS)].split()[::-1] if i % 2 else CORPUS[i % len(CORPUS)].split()) for i in range(12)
    ]
    corpus.write_bytes(("\n".join(lines) + "\n").encode("utf8") + "the caf\u00e9 bank\n".encode("latin-1"))
    out, checkpoints = tmp_path / "out", tmp_path / "out.checkpoint"
    common = (
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        out,
        "--no-progress",
        "--checkpoint-every",
        "5",
        "--keep-layer",
    )
    failed = invoke(*common, "--min-count", "5")
    assert failed.exit_code == 1 and "E240" in flat(failed) and "books.txt, line 13" in flat(failed)
    assert "--resume" in flat(failed) and (checkpoints / "LATEST").exists()
    resumed = invoke(*common, "--min-count", "3", "--resume", "--encoding", "latin-1")
    assert resumed.exit_code == 0, resumed.output
    assert "Resumed after 10 docs" in flat(resumed) and "13 docs" in flat(resumed)
    assert not checkpoints.exists()
    assert spacy.load(out)("the caf\u00e9")[1]._.polysemy_count == 1
    skipped = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "out2",
        "--no-progress",
        "--on-error",
        "skip",
        "--keep-layer",
    )
    assert skipped.exit_code == 0 and "books.txt:13" in flat(skipped) and "12 docs" in flat(skipped)
    unknown = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out3", "--encoding", "nope")
    assert unknown.exit_code == 1 and "E241" in flat(unknown)


def test_a_rerun_without_resume_says_it_removes_the_kept_checkpoint(tiny_pipeline_dir, tmp_path):
    """A rerun with --overwrite and without --resume (as project.yml's step runs) discarded the
    checkpoint in silence; without --overwrite it is E250."""
    corpus = tmp_path / "books.txt"
    corpus.write_bytes(("\n".join(CORPUS * 2) + "\n").encode("utf8") + "the caf\u00e9 bank\n".encode("latin-1"))
    out, checkpoints = tmp_path / "out", tmp_path / "out.checkpoint"
    common = ("build-lexicon", tiny_pipeline_dir, corpus, out, "--no-progress", "--checkpoint-every", "2")
    failed = invoke(*common)
    assert failed.exit_code == 1 and "E240" in flat(failed) and (checkpoints / "LATEST").exists()
    assert "[CTX-E250]" in flat(invoke(*common, "--encoding", "latin-1"))
    with pytest.warns(UserWarning, match=r"\[CTX-W083\] The checkpoint an interrupted build left in .*\(1 shard\)"):
        again = invoke(*common, "--encoding", "latin-1", "--overwrite")
    assert again.exit_code == 0 and "Resumed" not in flat(again), again.output
    with warnings.catch_warnings(record=True) as caught:  # a finished build removes its own checkpoint quietly
        warnings.simplefilter("always")
        assert invoke(*common, "--encoding", "latin-1", "--overwrite").exit_code == 0
    assert not [w for w in caught if "CTX-W083" in str(w.message)]


def test_output_dot_is_a_coded_error_not_a_traceback(tiny_pipeline_dir, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, ".", "--overwrite", "--no-progress")
    assert result.exit_code == 1 and "E700" in flat(result) and "contains the input CORPUS" in flat(result)
    assert snapshot(tmp_path) == before


def test_senses_are_induced_by_default_and_not_with_no_senses(tiny_pipeline_dir, corpus, tmp_path):
    from spacy_ctxvec.saved_pipeline import load_senses

    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--min-count", "2", "--no-progress")
    assert result.exit_code == 0, result.output
    assert re.search(r"Senses: \d+ senses of \d+ types", result.output)
    nlp = spacy.load(tmp_path / "out")
    inventory = nlp.get_pipe("ctxvec_polysemy").senses
    assert inventory is not None and "bank" in inventory and load_senses(tmp_path / "out") == inventory
    bank = nlp("the bank")[1]
    assert bank._.n_senses == inventory.n_senses("bank") >= 1 and 0 <= bank._.sense < bank._.n_senses
    assert bank._.sense_vec.shape == (inventory.width,)
    off = invoke(
        "build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "off", "--min-count", "2", "--no-progress", "--no-senses"
    )
    assert off.exit_code == 0 and "Senses:" not in off.output
    assert spacy.load(tmp_path / "off").get_pipe("ctxvec_polysemy").senses is None
    no_sample = runner.invoke(
        app,
        [
            str(a)
            for a in ("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "bad", "--sample-size", "0", "--senses")
        ],
    )
    assert no_sample.exit_code == 1 and "E602" in no_sample.output and not (tmp_path / "bad").exists()


def test_sample_contexts_are_kept_by_default_and_not_computed_with_no_sample_contexts(
    tiny_pipeline_dir, corpus, tmp_path
):
    with_contexts = invoke(
        "build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "with", "--min-count", "2", "--no-progress"
    )
    assert with_contexts.exit_code == 0, with_contexts.output
    assert "clustered on each occurrence joined to the mean vector of the 5 tokens" in flat(with_contexts)
    component = spacy.load(tmp_path / "with").get_pipe("ctxvec_polysemy")
    assert component.lexicon.sample.has_contexts and component.senses.context_space is not None
    without = invoke(
        "build-lexicon",
        tiny_pipeline_dir,
        corpus,
        tmp_path / "without",
        "--min-count",
        "2",
        "--no-progress",
        "--no-sample-contexts",
    )
    assert without.exit_code == 0, without.output
    assert "clustered on the occurrences' own vectors" in flat(without)
    plain = spacy.load(tmp_path / "without").get_pipe("ctxvec_polysemy")
    assert not plain.lexicon.sample.has_contexts and plain.senses.context_space is None
    assert plain.lexicon.sample.vectors.tobytes() == component.lexicon.sample.vectors.tobytes()  # the same occurrences
    assert plain.lexicon.sample.nbytes + component.lexicon.sample.contexts.nbytes == component.lexicon.sample.nbytes
    bank = spacy.load(tmp_path / "without")("the bank")[1]
    assert bank._.sense is not None  # assignment without contexts works on such a pipeline


@pytest.mark.slow
def test_minilm_build_uses_the_shipped_probe_and_warns_on_a_small_corpus(minilm_dir, tmp_path):
    from spacy_ctxvec.saved_pipeline import load_probe, load_senses

    from .conftest import CONFIGS

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS * 4) + "\n", encoding="utf8")
    result = invoke(
        "build-lexicon", CONFIGS / "default.cfg", corpus, tmp_path / "out", "--min-count", "2", "--no-progress"
    )
    assert result.exit_code == 0, result.output
    output = flat(result)
    assert "polysemy_score: the polysemy probe fitted on" in output and "W006" in output
    assert load_probe(tmp_path / "out") is not None
    assert load_senses(tmp_path / "out").settings["split_rule"] == "evidence"  # the corpus decides the senses
    assert spacy.load(tmp_path / "out").get_pipe("ctxvec_polysemy").score_source == "probe"
    # rank and plot polysemy show those scores: they say why the numbers run high (W054)
    ranked = invoke("rank", tmp_path / "out", "--min-count", "2")
    assert ranked.exit_code == 0 and "[CTX-W054]" in flat(ranked) and "not numbers of dictionary senses" in flat(ranked)
    pictured = invoke("plot", "polysemy", tmp_path / "out", "-o", tmp_path / "p.png", "--min-count", "2")
    assert pictured.exit_code == 0 and "[CTX-W054]" in flat(pictured)
    assert "[CTX-W054]" not in flat(invoke("rank", tmp_path / "out", "--min-count", "2", "--score", "self_similarity"))
    assert "[CTX-W058]" not in output  # an English pipeline: the English probe fits its words
    # the same build for a German pipeline: the English WordNet probe's scores say little there (W058)
    german = tmp_path / "de.cfg"
    german.write_text(
        (CONFIGS / "default.cfg").read_text(encoding="utf8").replace('lang = "en"', 'lang = "de"'), "utf8"
    )
    assert 'lang = "de"' in german.read_text(encoding="utf8")
    built = invoke("build-lexicon", german, corpus, tmp_path / "de", "--min-count", "2", "--no-progress", "--no-senses")
    assert built.exit_code == 0 and "[CTX-W058]" in flat(built) and "language is 'de'" in flat(built)
    # and where those scores are read later: rank, plot polysemy (its title too) and evaluate polysemy
    assert "[CTX-W058]" not in flat(ranked) and "[CTX-W058]" not in flat(pictured)
    assert "[CTX-W058]" in flat(invoke("rank", tmp_path / "de", "--min-count", "2"))
    assert "[CTX-W058]" not in flat(invoke("rank", tmp_path / "de", "--min-count", "2", "--score", "self_similarity"))
    pictured = invoke("plot", "polysemy", tmp_path / "de", "-o", tmp_path / "de.png", "--min-count", "2")
    assert pictured.exit_code == 0 and "[CTX-W058]" in flat(pictured)
    from spacy_ctxvec.analysis.plot_data import polysemy_scores

    assert polysemy_scores(tmp_path / "de", min_count=2).language_warning.startswith("[CTX-W058]")
    assert polysemy_scores(tmp_path / "out", min_count=2).language_warning is None
    counts = tmp_path / "counts.tsv"
    counts.write_text("bank\t10\nriver\t1\nloan\t2\nplay\t30\npen\t3\nthe\t5\nof\t12\nwe\t1\na\t7\n", encoding="utf8")
    evaluated = invoke("evaluate", "polysemy", str(tmp_path / "de"), counts, "--min-count", "2", "--json")
    assert evaluated.exit_code == 0, evaluated.output
    assert any(w.startswith("[CTX-W058]") for w in json.loads(evaluated.stdout)["warnings"]), evaluated.output


@pytest.mark.slow
def test_small_corpus_warning_advises_what_changes_the_active_split_rule(minilm_dir, tmp_path):
    """W006 (default rule: the corpus's evidence decides the splits) advises score =
    "self_similarity", which does change polysemy_score; W030 (the probe decides the
    splits) advises split_by_probe = false, which does change the split rule."""
    from spacy_ctxvec.saved_pipeline import load_senses

    from .conftest import CONFIGS

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS * 4) + "\n", encoding="utf8")
    # min_count as --min-count below, so that build-lexicon keeps the component's other settings.
    default = (CONFIGS / "default.cfg").read_text(encoding="utf8").replace("min_count = 5\n", "min_count = 2\n")
    block = "[components.ctxvec_polysemy]\n"

    def build(name: str, extra: str = "", induction: str = ""):
        config = tmp_path / f"{name}.cfg"
        text = default.replace(block, block + extra).replace("\n[initialize]\n", f"\n{induction}\n[initialize]\n", 1)
        config.write_text(text, encoding="utf8")
        result = invoke("build-lexicon", config, corpus, tmp_path / name, "--min-count", "2", "--no-progress")
        assert result.exit_code == 0, result.output
        return flat(result), spacy.load(tmp_path / name).get_pipe("ctxvec_polysemy")

    output, component = build("default")
    assert "W033" not in output  # MiniLM layer 5: the vectors the evidence thresholds were measured on
    assert "W006" in output and 'score = "self_similarity"' in output and "split_by_probe = false" not in output
    assert component.score_source == "probe"
    output, component = build("self_similarity", 'score = "self_similarity"\n')
    assert "W006" not in output and "W030" not in output and component.score_source == "self_similarity"
    probe_rule = "[components.ctxvec_polysemy.induction]\nsplit_by_evidence = false\n"
    output, _ = build("probe_rule", induction=probe_rule)
    assert "W030" in output and "split_by_probe = false" in output
    assert load_senses(tmp_path / "probe_rule").settings["split_rule"] == "probe"
    output, _ = build("spread_rule", induction=probe_rule + "split_by_probe = false\n")
    assert "W030" not in output and "W006" in output
    assert load_senses(tmp_path / "spread_rule").settings["split_rule"] == "spread"


def test_reference_names_the_codes_the_output_checks_raise(tiny_pipeline_dir, corpus, tmp_path):
    """docs/reference.md's output rules name the code each case really gives."""
    from .conftest import REPO_ROOT

    mine, lexicon = tmp_path / "mine", tmp_path / "lexicon"
    make_user_dir(mine)
    assert (
        invoke("build-lexicon", tiny_pipeline_dir, corpus, lexicon, "--min-count", "2", "--no-progress").exit_code == 0
    )
    senses = tmp_path / "senses.tsv"
    senses.write_text("bank\t10\n", encoding="utf8")
    own_output = flat(invoke("build-lexicon", tiny_pipeline_dir, corpus, lexicon))
    assert "[CTX-E226]" in own_output and "pass --overwrite" in own_output
    (lexicon / "extra.txt").write_text("mine", encoding="utf8")
    cases = {
        "E245": ["build-lexicon", tiny_pipeline_dir, corpus, mine, "--overwrite"],
        "E704": ["build-lexicon", tiny_pipeline_dir, corpus, lexicon, "--overwrite"],
        "E701": ["export-static", lexicon, corpus],
        "E135": ["export-static", lexicon, mine, "--overwrite"],
        "E247": ["build-lexicon", tiny_pipeline_dir, corpus, senses, "--overwrite"],
    }
    cases_fit = {"E245": ["fit-polysemy", lexicon, senses, mine, "--overwrite"]}
    reference = " ".join((REPO_ROOT / "docs" / "reference.md").read_text(encoding="utf8").split())
    rules = reference[reference.index("Outputs (one rule") :][:1500]
    for code, args in [*cases.items(), *cases_fit.items()]:
        assert f"[CTX-{code}]" in flat(invoke(*args)), (code, args)
        assert code in rules, code
    assert "E226" in rules and "--overwrite` refuses it (E245)" in rules


# A user walkthrough of build-lexicon
def test_corpus_subfolders_are_read_and_unread_files_named(tiny_pipeline_dir, tmp_path):
    """Files in subfolders of a corpus folder were skipped without a word; they are read
    (as spaCy's corpus readers read subfolders), and W020 names what is not read by its
    path in the folder."""
    mixed = tmp_path / "mixed"
    (mixed / "sub").mkdir(parents=True)
    (mixed / "a.txt").write_text("\n".join(CORPUS[:3]) + "\n", encoding="utf8")
    (mixed / "sub" / "e.txt").write_text("\n".join(CORPUS[3:]) + "\n", encoding="utf8")
    (mixed / "sub" / "notes.md").write_text("not a corpus file\n", encoding="utf8")
    # (the command line prints a library warning as one coded line: test_cli_imports.py)
    with pytest.warns(UserWarning, match=r"W020.*1 file not read.*: sub/notes\.md\."):
        result = invoke(
            "build-lexicon", tiny_pipeline_dir, mixed, tmp_path / "out", "--no-progress", "--min-count", "2"
        )
    assert result.exit_code == 0, result.output
    assert "5 docs" in flat(result)
    assert spacy.load(tmp_path / "out")("the bank")[1]._.polysemy_count == 3  # "the bank" of sub/e.txt counted


def test_overwrite_is_suggested_only_where_it_works_and_a_finished_build_has_nothing_to_resume(
    tiny_pipeline_dir, corpus, tmp_path
):
    mine = tmp_path / "mine"
    before = make_user_dir(mine)
    refused = invoke("build-lexicon", tiny_pipeline_dir, corpus, mine, "--no-progress")
    assert refused.exit_code == 1 and "E245" in flat(refused) and "E226" not in flat(refused)
    assert "or pass --overwrite" not in flat(refused) and snapshot(mine) == before
    out = tmp_path / "out"
    assert invoke("build-lexicon", tiny_pipeline_dir, corpus, out, "--no-progress", "--min-count", "2").exit_code == 0
    finished = snapshot(out)
    resumed = invoke("build-lexicon", tiny_pipeline_dir, corpus, out, "--no-progress", "--min-count", "2", "--resume")
    message = flat(resumed)
    assert resumed.exit_code == 1 and "[CTX-E224] Nothing to resume in" in message, message
    assert "finished" in message and "without --resume and with --overwrite" in message
    assert snapshot(out) == finished and not (tmp_path / "out.checkpoint").exists()
    again = invoke("build-lexicon", tiny_pipeline_dir, corpus, out, "--resume", "--overwrite", "--no-progress")
    assert again.exit_code == 0, again.output  # --overwrite rebuilds, as E224 says


def test_resume_with_other_settings_names_both_values_and_the_fixes(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "c.txt"
    lines = [CORPUS[i % len(CORPUS)] for i in range(12)]
    corpus.write_bytes(("\n".join(lines) + "\n").encode("utf8") + b"bad \xff byte\n")
    out, checkpoints = tmp_path / "out", tmp_path / "out.checkpoint"
    common = ("build-lexicon", tiny_pipeline_dir, corpus, out, "--no-progress", "--keep-layer")
    stopped = invoke(*common, "--checkpoint-every", "5")
    assert stopped.exit_code == 1 and "E240" in flat(stopped) and (checkpoints / "LATEST").exists()
    other = invoke(*common, "--checkpoint-every", "4", "--resume", "--on-error", "skip")
    message = flat(other)
    assert other.exit_code == 1 and "[CTX-E221]" in message
    assert "shard_size (--checkpoint-every): 5 in the checkpoint, 4 now" in message
    assert "rerun with --resume and the settings and first documents it was made with" in message
    assert "without --resume and with --overwrite (its 10 counted documents are deleted)" in message
    assert "fix the input" not in message and (checkpoints / "LATEST").exists()
    same = invoke(*common, "--checkpoint-every", "5", "--resume", "--on-error", "skip")
    assert same.exit_code == 0 and "Resumed after 10 docs" in flat(same) and "12 docs" in flat(same)


def test_binary_corpus_files_are_coded_errors_or_left_out_by_name(tiny_pipeline_dir, corpus, tmp_path):
    """A program copied to x.txt gave a lexicon of its printable runs and exit 0 with
    --on-error skip; a file with a NUL in its first block is binary: E234, or with
    --on-error skip left out and named in W021, as W020 names files it does not read."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    program = b"\x7fELF\x02\x01\x01\x00\x00\x00" + b"\n.text .data .bss the bank of the river\n" * 30
    (folder / "x.txt").write_bytes(program)
    raised = invoke("build-lexicon", tiny_pipeline_dir, folder / "x.txt", tmp_path / "o1", "--no-progress")
    assert raised.exit_code == 1 and "[CTX-E234]" in flat(raised) and "x.txt' is binary, not text" in flat(raised)
    with pytest.warns(UserWarning, match=r"W021.*1 file left out.*binary, not text.*: x\.txt\."):
        alone = invoke("build-lexicon", tiny_pipeline_dir, folder / "x.txt", tmp_path / "o2", "--on-error", "skip")
    assert alone.exit_code == 1 and "E211" in flat(alone)
    (folder / "c.txt").write_bytes(corpus.read_bytes())
    with pytest.warns(UserWarning, match=r"W021.*1 file left out.*: x\.txt\."):
        mixed = invoke(
            "build-lexicon", tiny_pipeline_dir, folder, tmp_path / "o3", "--on-error", "skip", "--no-progress"
        )
    assert mixed.exit_code == 0, mixed.output
    assert "5 docs" in flat(mixed)
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_a_stopped_ray_build_does_not_speak_of_checkpoints(capsys):
    from spacy_ctxvec.cli.build_lexicon import print_stop
    from spacy_ctxvec.workflows.lexicon_build import BuildStopped

    print_stop(BuildStopped(0, None), "ray")
    ray_line = capsys.readouterr()
    assert "keeps no checkpoint" in ray_line.err and "run the command again" in ray_line.err and ray_line.out == ""
    print_stop(BuildStopped(0, None), "local")
    assert "before the first checkpoint" in capsys.readouterr().err  # stderr: stdout holds results only


def test_running_out_of_memory_is_a_coded_error_saying_what_to_lower_and_what_was_kept(
    tiny_pipeline_dir, tmp_path, monkeypatch
):
    """A MemoryError while counting (as numpy raises on a small machine) is E265 naming the options
    that lower memory, and says that the shards counted before it are kept for --resume."""
    from spacy_ctxvec.lexicon.statistics import Lexicon

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS * 3) + "\n", encoding="utf8")
    real = Lexicon.from_occurrences.__func__
    calls = []

    def counting_runs_out(cls, *args, **kwargs):  # the first shard is counted, then memory runs out
        calls.append(1)
        if len(calls) > 1:
            raise MemoryError("Unable to allocate 6.12 MiB for an array with shape (2089, 384)")
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(Lexicon, "from_occurrences", classmethod(counting_runs_out))
    common = ("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--keep-layer")
    result = invoke(*common, "--checkpoint-every", "5")
    assert result.exit_code == 1 and "[CTX-E265] build-lexicon ran out of memory (Unable to allocate" in flat(result)
    assert "lower --batch-size" in flat(result) and "--no-sample-contexts" in flat(result)
    assert "The 5 documents counted so far are kept in" in flat(result) and "--resume" in flat(result)
    assert (tmp_path / "out.checkpoint" / "LATEST").exists() and not (tmp_path / "out").exists()
    calls[:] = [1]  # memory runs out in the first shard
    right_away = invoke(*common[:3], tmp_path / "out2", "--no-progress", "--keep-layer", "--checkpoint-every", "1000")
    assert right_away.exit_code == 1 and "E265" in flat(right_away) and "Nothing was kept." in flat(right_away)


def test_torch_running_out_of_memory_while_counting_is_e265_too(tiny_pipeline_dir, tmp_path, monkeypatch):
    """torch's CPU allocator raises a RuntimeError, not a MemoryError, when a batch does not fit:
    the same E265; another RuntimeError stays what it is."""
    from spacy_ctxvec.lexicon.statistics import Lexicon

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf8")
    message = "[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory: you tried to allocate 8"

    def torch_runs_out(cls, *args, **kwargs):
        raise RuntimeError(message)

    monkeypatch.setattr(Lexicon, "from_occurrences", classmethod(torch_runs_out))
    result = invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--keep-layer")
    assert result.exit_code == 1 and "[CTX-E265] build-lexicon ran out of memory ([enforce fail" in flat(result)
    message = "a bug, not memory"
    with pytest.raises(RuntimeError, match="a bug, not memory"):
        invoke("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out2", "--no-progress", "--keep-layer")


def test_running_out_of_memory_after_counting_keeps_the_counts_for_resume(tiny_pipeline_dir, tmp_path, monkeypatch):
    """A MemoryError after the corpus was read (inducing senses here) is E266: the counts are in the
    checkpoint, and --resume, with memory to spare, finishes from there."""
    from spacy_ctxvec.components.polysemy import Polysemy

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS * 3) + "\n", encoding="utf8")
    real = Polysemy.build_senses

    def out_of_memory(self, **kwargs):
        raise MemoryError("Unable to allocate 1.2 GiB for the sense space")

    monkeypatch.setattr(Polysemy, "build_senses", out_of_memory)
    common = ("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--keep-layer")
    result = invoke(*common, "--min-count", "2")
    assert result.exit_code == 1 and "[CTX-E266] build-lexicon ran out of memory after reading the corpus" in flat(
        result
    )
    assert "The 15 documents counted are kept in" in flat(result) and not (tmp_path / "out").exists()
    monkeypatch.setattr(Polysemy, "build_senses", real)
    resumed = invoke(*common, "--min-count", "2", "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "Resumed after 15 docs" in flat(resumed) and (tmp_path / "out").exists()


def test_running_out_of_memory_loading_the_model_is_not_called_after_reading_the_corpus(
    tiny_pipeline_dir, tmp_path, monkeypatch
):
    """A MemoryError while PIPELINE loads is E267 (nothing counted in this run), on --resume too,
    where the counts of the earlier run stay for the next --resume."""
    from spacy_ctxvec.components.polysemy import Polysemy
    from spacy_ctxvec.workflows import lexicon_build

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS * 3) + "\n", encoding="utf8")

    def out_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 86.0 MiB for the embeddings")

    def torch_out_of_memory(*args, **kwargs):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 90177536 bytes.")

    common = ("build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out", "--no-progress", "--keep-layer")
    monkeypatch.setattr(lexicon_build, "load_pipeline", out_of_memory)
    fresh = invoke(*common)
    assert fresh.exit_code == 1 and "[CTX-E267] build-lexicon ran out of memory loading the pipeline" in flat(fresh)
    assert "E266" not in flat(fresh) and "kept" not in flat(fresh) and not (tmp_path / "out.checkpoint").exists()
    monkeypatch.undo()
    monkeypatch.setattr(Polysemy, "build_senses", torch_out_of_memory)
    assert "E266" in flat(invoke(*common, "--min-count", "2"))  # the counts are in the checkpoint
    monkeypatch.undo()
    monkeypatch.setattr(lexicon_build, "load_pipeline", torch_out_of_memory)  # torch's words: the same
    resumed = invoke(*common, "--min-count", "2", "--resume")
    assert resumed.exit_code == 1 and "[CTX-E267]" in flat(resumed) and "after reading the corpus" not in flat(resumed)
    assert "The 15 documents counted before are kept in" in flat(resumed)
    assert (tmp_path / "out.checkpoint" / "LATEST").exists()


def test_the_resume_command_runs_from_anywhere_where_paths_were_relative(tmp_path, monkeypatch):
    """A build started with relative paths prints its resume command after a cd to where it ran
    (from another directory the paths named other files, or none); absolute paths need none."""
    import shlex
    import sys

    from spacy_ctxvec.cli.build_lexicon import resume_command, typed_paths
    from spacy_ctxvec.workflows.lexicon_build import LexiconBuildRequest

    (tmp_path / "corpus.txt").write_text("the bank\n", encoding="utf8")
    monkeypatch.chdir(tmp_path)
    typed = ["spacy-ctxvec", "build-lexicon", "default.cfg", "corpus.txt", "out"]
    monkeypatch.setattr(sys, "argv", typed)
    request = LexiconBuildRequest(Path("default.cfg"), Path("corpus.txt"), Path("out"))
    assert shlex.split(resume_command(typed_paths(request))) == ["cd", str(tmp_path), "&&", *typed, "--resume"]
    # OUTPUT alone relative (it does not exist yet when a build stops): the cd still
    alone = LexiconBuildRequest(Path("default.cfg"), tmp_path / "corpus.txt", Path("out"))
    assert shlex.split(resume_command(typed_paths(alone)))[:3] == ["cd", str(tmp_path), "&&"]
    absolute = ["spacy-ctxvec", "build-lexicon", "default.cfg", str(tmp_path / "corpus.txt"), str(tmp_path / "out")]
    monkeypatch.setattr(sys, "argv", absolute)
    request = LexiconBuildRequest(Path("default.cfg"), tmp_path / "corpus.txt", tmp_path / "out")
    assert typed_paths(request) == [str(tmp_path / "corpus.txt"), str(tmp_path / "out")]  # a package name: no path
    assert shlex.split(resume_command(typed_paths(request))) == [*absolute, "--resume"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell quoting")
def test_the_resume_command_names_a_file_whose_name_is_not_utf8(tmp_path, monkeypatch):
    """The resume line showed 'caf\ufffd.txt' (U+FFFD), so the pasted command named no file (E210);
    bash's $'caf\\xe9.txt' names it, byte for byte."""
    import subprocess

    from spacy_ctxvec.cli.build_lexicon import resume_command

    name = os.fsdecode(b"caf\xe9.txt")
    (tmp_path / name).write_text("the bank\n", encoding="utf8")
    monkeypatch.setattr(sys, "argv", ["spacy-ctxvec", "build-lexicon", "default.cfg", name, "out"])
    command = resume_command([str(tmp_path / name)])
    assert command.split()[3] == "$'caf\\xe9.txt'"
    listed = subprocess.run(["bash", "-c", f"ls {command.split()[3]}"], cwd=tmp_path, capture_output=True)
    assert listed.returncode == 0 and listed.stdout.strip() == b"caf\xe9.txt"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_stderr_that_cannot_be_written_loses_the_progress_bar_not_the_build(tiny_pipeline_dir, corpus, tmp_path):
    """2>/dev/full (or a log disk filling up): the progress bar's write raised OSError and the build
    stopped with exit 1, writing nothing."""
    import subprocess

    command = [sys.executable, "-m", "spacy_ctxvec", "build-lexicon", tiny_pipeline_dir, corpus, tmp_path / "out"]
    with open("/dev/full", "w") as full:
        done = subprocess.run([str(part) for part in command + ["--min-count", "2"]], stderr=full, timeout=600)
    assert done.returncode == 0 and spacy.load(tmp_path / "out")("the bank")[1]._.polysemy_count == 3
