"""`spacy-ctxvec evaluate ...` end to end with the real default pipeline on small slices."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.statistics import Lexicon

from .conftest import SHARED_DATA
from .test_evaluation_tasks import (
    SENSE_SENTENCES,
    WIC_DEV,
    WIC_TRAIN,
    polysemy_nlp,
    write_scws,
    write_sense_sentences,
    write_wic,
)

runner = CliRunner()


@pytest.fixture
def wic_slice(tmp_path):
    """The first 40 train and 20 dev pairs of the shared WiC data (or toy pairs)."""
    source = SHARED_DATA / "wic"
    if source.exists():
        for split, n in (("train", 40), ("dev", 20)):
            for kind in ("data", "gold"):
                lines = (source / f"{split}.{kind}.txt").read_text(encoding="utf8").splitlines(keepends=True)
                (tmp_path / f"{split}.{kind}.txt").write_text("".join(lines[:n]), encoding="utf8")
    else:
        write_wic(tmp_path, WIC_TRAIN, "train")
        write_wic(tmp_path, WIC_DEV, "dev")
    return tmp_path


@pytest.mark.slow
def test_wic_json_and_table(default_pipeline_dir, wic_slice):
    result = runner.invoke(app, ["evaluate", "wic", str(default_pipeline_dir), str(wic_slice), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert 0.0 <= report["accuracy"] <= 1.0
    assert report["chosen"] in report["settings"]
    assert report["settings"]["threshold[cosine/layer_6]"]["accuracy"] >= 0.0
    assert report["targets_without_vector"] == 0 and report["target_only"] is False
    # the "pipeline" record names the pipeline's own layer, which WiC does not read alone
    assert report["layers_read"] == [f"layer_{i}" for i in range(7)]  # MiniLM: embeddings and 6 layers
    table = runner.invoke(app, ["evaluate", "wic", str(default_pipeline_dir), str(wic_slice), "--target-only"])
    assert table.exit_code == 0, table.output
    assert "logistic[whitened+shift]" in table.output and "context/" not in table.output
    # The table says what runs before the minutes of work; --json keeps stdout JSON only.
    assert re.search(r"WiC: running [\d,]+ sentences through the pipeline", table.output)
    # the pipeline line names its own layer, which the WiC score does not use alone
    assert "WiC reads the target at every hidden state with the pipeline's pooling" in " ".join(table.output.split())
    assert re.search(r"accuracy [01]\.\d{3} \(", table.output)


def test_wic_bad_input_is_a_coded_error(wic_slice, tmp_path):
    result = runner.invoke(app, ["evaluate", "wic", "unused", str(wic_slice), "--split", "train"])
    assert result.exit_code == 1 and "E308" in result.output
    (wic_slice / "dev.gold.txt").write_text("T\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "wic", "unused", str(wic_slice)])
    assert result.exit_code == 1 and "E304" in result.output


def test_wic_missing_test_split_names_the_file(wic_slice):
    # Data is read before the pipeline loads, so bad input fails fast.
    result = runner.invoke(app, ["evaluate", "wic", "no-such-pipeline", str(wic_slice), "--split", "test"])
    assert result.exit_code == 1
    assert "E301" in result.output and "test.data.txt" in result.output
    assert "or report --split dev (the default)" in " ".join(result.output.split())


@pytest.mark.slow
def test_word_sim(default_pipeline_dir, tmp_path):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("word1\tword2\tscore\ncar\tautomobile\t9\ncar\tbanana\t1\nriver\tstream\t8\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(default_pipeline_dir), str(pairs), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)[str(pairs)]
    assert (report["n_pairs"], report["n_covered"], report["coverage"]) == (3, 3, 1.0)
    assert "W043" in result.stderr and "over 3 of its 3 pairs" in " ".join(result.stderr.split())  # few: noisy


def test_word_sim_warns_when_under_half_the_pairs_are_covered(static_pipeline_dir, tmp_path):
    covered = [("car", "automobile", 9), ("car", "banana", 1), ("car", "river", 5), ("banana", "river", 4)]
    rows = [*covered] * 3 + [(f"unknown{i}", "car", i % 10) for i in range(13)]
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("".join(f"{a} {b} {score}\n" for a, b, score in rows), encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(pairs)])
    assert result.exit_code == 0, result.output
    warning = " ".join(result.stderr.split())
    assert "W043" in warning and "over 12 of its 25 pairs" in warning and "noisy" not in warning
    pairs.write_text("".join(f"{a} {b} {score}\n" for a, b, score in rows[:12]), encoding="utf8")
    all_covered = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(pairs)])
    assert all_covered.exit_code == 0 and "W043" not in all_covered.stderr


def word_sim_refusal(*args) -> str:
    """`evaluate word-sim` with ``args`` and a pipeline that cannot load (so an error about
    the input shows it was checked first): asserts status 1, gives the output on one line."""
    result = runner.invoke(app, ["evaluate", "word-sim", "no-such-pipeline", *map(str, args)])
    assert result.exit_code == 1, result.output
    return " ".join(result.output.split())


def test_word_sim_malformed_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("car automobile 9\ncar banana\n", encoding="utf8")
    message = word_sim_refusal(bad)
    assert "E302" in message and "line 2" in message


def test_word_sim_refuses_a_sense_count_table_before_loading_the_pipeline(tmp_path):
    counts = tmp_path / "sense_counts.tsv"  # the layout of the shared WordNet sense counts
    counts.write_text("lemma\ttotal\tn\tv\ta\tr\n'hood\t1\t1\t0\t0\t0\nbank\t18\t10\t8\t0\t0\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", "no-such-pipeline", str(counts), "--json"])
    message = " ".join(result.stderr.split())
    assert result.exit_code == 1 and result.stdout == ""
    # named for what it is (E302 said "fix or remove that line", and the next line was the same)
    assert "[CTX-E328] " in message and "sense_counts.tsv, line 1: this is not a word-pair file" in message
    assert "a table of sense counts per lemma" in message and "`evaluate polysemy`" in message
    counts.write_text("bank\t18\t3\n", encoding="utf8")  # no header: whole numbers after the lemma
    message = " ".join(runner.invoke(app, ["evaluate", "word-sim", "no-such-pipeline", str(counts)]).output.split())
    assert "[CTX-E328]" in message and "sense_counts.tsv, line 1" in message and "whole numbers after" in message


def test_word_sim_shared_sense_counts_are_refused(shared_data):
    path = shared_data / "wordnet_sense_counts" / "sense_counts.tsv"
    message = word_sim_refusal(path)
    assert "[CTX-E328]" in message and "sense_counts.tsv, line 1" in message


def test_word_sim_refuses_the_shared_sense_counts_by_part_of_speech_at_line_1(shared_data):
    path = shared_data / "wordnet_sense_counts" / "sense_counts_by_pos.tsv"  # lemma pos n_senses
    message = word_sim_refusal(path)
    assert "[CTX-E328]" in message and "sense_counts_by_pos.tsv, line 1: this is not a word-pair file" in message
    assert "a sense-count table by part of speech" in message
    assert "`evaluate word-sim` expects one pair per line" in message
    assert "`evaluate polysemy`" in message and "E302" not in message


def test_word_sim_the_same_file_twice_is_a_coded_error(tmp_path):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("car automobile 9\ncar banana 1\ncar river 5\n", encoding="utf8")
    again = str(tmp_path / "." / "pairs.txt")
    message = word_sim_refusal(pairs, again)
    assert "[CTX-E325]" in message and "Give each file once" in message


def test_word_sim_line_numbers_are_the_files_own_after_a_header(tmp_path):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("word1\tword2\tscore\n\ncar\tautomobile\t9\ncar\tbanana\tlow\n", encoding="utf8")
    message = word_sim_refusal(pairs)
    assert "[CTX-E302] " in message and "pairs.txt, line 4:" in message


def test_wic_one_label_train_is_refused_before_the_pipeline_loads(wic_slice):
    n_train = len((wic_slice / "train.data.txt").read_text(encoding="utf8").splitlines())
    (wic_slice / "train.gold.txt").write_text("T\n" * n_train, encoding="utf8")
    # A pipeline that cannot load: had it been loaded first, this would be E011.
    result = runner.invoke(app, ["evaluate", "wic", "no-such-pipeline", str(wic_slice)])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E306]" in message and f"{n_train} T and 0 F" in message
    assert "E011" not in message and "running" not in message


def test_wic_train_whose_folds_leave_one_label_is_refused_before_the_pipeline_loads(tmp_path):
    """5 examples, both labels, 5 target words: a fold's training part held one label and
    scikit-learn raised through the command (a traceback)."""
    rows = [("bank", "T"), ("play", "F"), ("pen", "F"), ("cup", "F"), ("run", "F")]
    data = "".join(f"{word}\tN\t0-0\t{word} here .\t{word} there .\n" for word, _ in rows)
    for split in ("train", "dev"):
        (tmp_path / f"{split}.data.txt").write_text(data, encoding="utf8")
        (tmp_path / f"{split}.gold.txt").write_text("".join(f"{label}\n" for _, label in rows), encoding="utf8")
    result = runner.invoke(app, ["evaluate", "wic", "no-such-pipeline", str(tmp_path)])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E310]" in message and "leaves only F examples of the 5" in message
    assert "Traceback" not in result.output and "E011" not in message


def test_scws_json_counts_are_ints(tiny_pipeline_dir, tmp_path):
    ratings = write_scws(tmp_path / "ratings.txt", n_raters=0)
    result = runner.invoke(app, ["evaluate", "scws", str(tiny_pipeline_dir), str(ratings), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["details"]["same_word_pairs"] == 1 and type(report["details"]["same_word_pairs"]) is int
    assert '"same_word_pairs": 1,' in result.stdout
    assert type(report["n_pairs"]) is int and type(report["n_covered"]) is int
    # a Spearman over a handful of pairs is noisy: said on stderr (and in the report's warnings)
    stderr = " ".join(result.stderr.split())
    assert "[CTX-W050]" in stderr and f"over {report['n_covered']} pairs, under 10" in stderr


def test_every_evaluation_takes_a_gpu_as_spacy_evaluate_does(tiny_pipeline_dir, tmp_path):
    """spacy evaluate has -g/--gpu-id; the evaluations had none. No GPU here: E136, before any model work."""
    ratings = write_scws(tmp_path / "ratings.txt", n_raters=0)
    result = runner.invoke(app, ["evaluate", "scws", str(tiny_pipeline_dir), str(ratings), "-g", "0"])
    assert result.exit_code == 1 and "[CTX-E136] --gpu-id 0: no usable GPU" in " ".join(result.output.split())
    assert runner.invoke(app, ["evaluate", "scws", str(tiny_pipeline_dir), str(ratings), "-g", "-1"]).exit_code == 0
    for command in ("wic", "word-sim", "scws", "polysemy", "senses"):
        assert "--gpu-id" in runner.invoke(app, ["evaluate", command, "--help"]).output


def test_a_json_report_lists_the_coded_warnings_stderr_showed(tiny_pipeline_dir, tmp_path):
    """W045 (targets that look off by one) was on stderr only: a script reading the JSON
    never knew its Spearman came from misaligned targets."""
    contexts = ["my <b> truck </b> broke", "a red <b> truck </b>", "the <b> truck </b> is here", "<b> truck </b> sat"]
    rows = [f"{i}\tcar\tn\tbank\tn\t{c}\tthe <b> bank </b> lent\t{i + 1}.0\n" for i, c in enumerate(contexts)]
    (tmp_path / "ratings.txt").write_text("".join(rows), encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W045\]"):  # still shown when it happens (stderr in a shell)
        result = runner.invoke(
            app, ["evaluate", "scws", str(tiny_pipeline_dir), str(tmp_path / "ratings.txt"), "--json"]
        )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # W045 from the reader, W050 (4 pairs) from the command itself: each once, in the order shown
    assert [w[:10] for w in report["warnings"]] == ["[CTX-W045]", "[CTX-W050]"]
    assert "'truck' for 'car'" in report["warnings"][0] and "over 4 pairs" in " ".join(report["warnings"][1].split())
    clean = runner.invoke(
        app, ["evaluate", "scws", str(tiny_pipeline_dir), str(write_scws(tmp_path / "ok.txt")), "--json"]
    )
    assert [w[:10] for w in json.loads(clean.stdout)["warnings"]] == ["[CTX-W050]"]  # not the last one's W045


@pytest.mark.slow
def test_scws(default_pipeline_dir, tmp_path):
    source = SHARED_DATA / "scws" / "ratings.txt"
    if not source.exists():
        pytest.skip(f"{source} not present")
    ratings = tmp_path / "ratings.txt"
    ratings.write_text("".join(source.read_text(encoding="utf8").splitlines(keepends=True)[:12]), encoding="utf8")
    result = runner.invoke(app, ["evaluate", "scws", str(default_pipeline_dir), str(ratings), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["n_pairs"] == report["n_covered"] == 12
    assert report["spearman"] == pytest.approx(report["details"]["layer_6"], abs=1e-6)
    # The default pipeline has ctxvec_static: the static row; no senses without a lexicon.
    assert report["details"]["static_vec_covered"] == 12 and "sense_vec" not in report["details"]
    assert type(report["details"]["static_vec_covered"]) is int  # a count, not 12.0
    table = runner.invoke(app, ["evaluate", "scws", str(default_pipeline_dir), str(ratings)])
    assert table.exit_code == 0 and "SCWS: running the 24 contexts of 12 pairs through the pipeline" in table.output


@pytest.mark.slow
def test_polysemy(default_pipeline_dir, tmp_path):
    senses = tmp_path / "senses.tsv"
    senses.write_text("lemma\ttotal\nbank\t18\nrun\t57\ndog\t8\n", encoding="utf8")
    polysemy_nlp().to_disk(tmp_path / "with_lexicon")
    result = runner.invoke(app, ["evaluate", "polysemy", str(tmp_path / "with_lexicon"), str(senses), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["spearman"] == pytest.approx(1.0) and report["n_covered"] == 3
    warning = " ".join(result.stderr.split())  # beside the JSON, on stderr: 3 words are too few to trust
    assert "[CTX-W055] all words: the Spearman and AUC are over 3 words with a sense count" in warning
    # The default pipeline's lexicon is empty until built: a coded error, not a crash.
    result = runner.invoke(app, ["evaluate", "polysemy", str(default_pipeline_dir), str(senses)])
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E330] The pipeline's 'ctxvec_polysemy' component has no lexicon yet" in said
    assert "which evaluating polysemy_score needs" in said
    assert f"`spacy-ctxvec build-lexicon {default_pipeline_dir} CORPUS OUTPUT` and give OUTPUT" in said


def static_only_nlp(vectors):
    """blank en + ctxvec_static set to initialise from the vectors file ``vectors`` (no transformer)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    nlp.config["initialize"]["components"]["ctxvec_static"] = {
        "source": {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(vectors)}
    }
    return nlp


@pytest.fixture(scope="module")
def static_pipeline_dir(tmp_path_factory):
    """static_only_nlp from a 4-word vectors file, initialised and saved."""
    path = tmp_path_factory.mktemp("static_pipeline")
    vectors = path / "vectors.txt"
    vectors.write_text("4 2\ncar 1 0\nautomobile 0.9 0.1\nbanana 0 1\nriver 0.5 0.5\n", encoding="utf8")
    nlp = static_only_nlp(vectors)
    nlp.initialize()
    nlp.to_disk(path / "pipeline")
    return path / "pipeline"


def test_word_sim_three_pairs_is_defined(static_pipeline_dir, tmp_path):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("car automobile 9\ncar banana 1\ncar river 5\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(pairs), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[str(pairs)]["spearman"] == pytest.approx(1.0)


def test_every_file_with_an_undefined_spearman_says_why(static_pipeline_dir, tmp_path):
    """Only the first file's reason was printed: a second file's constant scores (E323) went unsaid."""
    few, constant = tmp_path / "few.txt", tmp_path / "constant.txt"
    few.write_text("car automobile 9\ncar zebra 1\n", encoding="utf8")
    constant.write_text("car automobile 5\ncar banana 5\ncar river 5\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(few), str(constant)])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E320]" in message and "[CTX-E323]" in message, message
    assert "Traceback" not in result.output


def test_overwrite_replaces_its_own_report_but_not_a_model_config(static_pipeline_dir, tmp_path):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("car automobile 9\ncar banana 1\ncar river 5\n", encoding="utf8")
    report, config = tmp_path / "report.json", tmp_path / "config.json"
    config.write_text('{\n  "hidden_size": 384\n}\n', encoding="utf8")
    command = ["evaluate", "word-sim", str(static_pipeline_dir), str(pairs), "--overwrite", "-o"]
    for _ in range(2):  # the second run replaces the report the first wrote
        result = runner.invoke(app, [*command, str(report)])
        assert result.exit_code == 0, result.output
    assert json.loads(report.read_text(encoding="utf8"))[str(pairs)]["spearman"] == pytest.approx(1.0)
    refused = runner.invoke(app, [*command, str(config)])
    assert refused.exit_code == 1 and "[CTX-E423]" in " ".join(refused.output.split())
    assert config.read_text(encoding="utf8") == '{\n  "hidden_size": 384\n}\n'


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_warning_that_cannot_be_shown_never_costs_the_result(static_pipeline_dir, tmp_path):
    """With stderr full (2>/dev/full), closed (2>&-) or its reader gone, W043's write raised OSError:
    exit status 1 and stdout's result lost."""
    import subprocess
    import sys

    pairs = tmp_path / "pairs.txt"
    pairs.write_text("car automobile 9\ncar banana 1\ncar river 5\n", encoding="utf8")
    command = [sys.executable, "-m", "spacy_ctxvec", "evaluate", "word-sim", str(static_pipeline_dir), str(pairs)]
    with open("/dev/full", "wb") as full:
        result = subprocess.run([*command, "--json"], stdout=subprocess.PIPE, stderr=full, timeout=300)
    assert result.returncode == 0 and json.loads(result.stdout)[str(pairs)]["spearman"] == pytest.approx(1.0)


def test_two_undecodable_file_names_stay_two_json_keys(static_pipeline_dir, tmp_path, monkeypatch):
    """ws_\xe9.txt and ws_\xe8.txt (Latin-1 names, as unzipped Windows archives give) both
    showed as ws_\ufffd.txt: the JSON held one key, the second file's result, in silence."""
    import os
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    names = [os.fsdecode(b"ws_\xe9.txt"), os.fsdecode(b"ws_\xe8.txt"), "plain.txt"]
    for name, scores in zip(names, ("9 1 5", "1 9 5", "9 1 5")):
        rows = zip(("automobile", "banana", "river"), scores.split())
        (tmp_path / name).write_text("".join(f"car {word} {score}\n" for word, score in rows), encoding="utf8")
    command = [sys.executable, "-m", "spacy_ctxvec", "evaluate", "word-sim", str(static_pipeline_dir), *names]
    result = subprocess.run([*command, "--json"], capture_output=True, timeout=300)  # names print as the CLI does
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert {key: report["spearman"] for key, report in printed.items()} == {
        "ws_\\xe9.txt": pytest.approx(1.0),
        "ws_\\xe8.txt": pytest.approx(-1.0),
        "plain.txt": pytest.approx(1.0),  # a name that shows apart keeps its own spelling
    }
    table = subprocess.run(command, capture_output=True, timeout=300).stdout.decode("utf-8")
    assert "ws_\\xe9.txt" in table and "ws_\\xe8.txt" in table
    warned = result.stderr.decode("utf-8")  # W043 (3 pairs are noisy) tells the two files apart too
    assert "[CTX-W043] ws_\\xe9.txt:" in warned and "[CTX-W043] ws_\\xe8.txt:" in warned


def test_word_sim_table_lines_up_a_cjk_file_name(static_pipeline_dir, tmp_path, monkeypatch):
    """词对.txt takes two terminal cells a CJK character: padded by display width, its row's
    numbers end where the plain file name's do."""
    monkeypatch.chdir(tmp_path)
    for name in ("pairs.txt", "词对.txt"):
        (tmp_path / name).write_text("car automobile 9\ncar banana 1\ncar river 5\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), "pairs.txt", "词对.txt"])
    assert result.exit_code == 0, result.output
    assert f"ℹ Pipeline {static_pipeline_dir}" in result.stdout.split("\n")[0]  # what was measured, then the table
    assert result.stdout.endswith(
        "\nfile        spearman   covered   coverage\n"
        "---------   --------   -------   --------\n"
        "pairs.txt      1.000       3/3      1.000\n"
        "词对.txt       1.000       3/3      1.000\n\n"
    )


@pytest.mark.parametrize(
    "lines, code, why",
    [
        ("car automobile 9\ncar banana 1\n", "E320", "only 2 of 2 pair(s) have vectors for both words"),
        ("car automobile 9\ncar banana 1\ncar zebra 4\n", "E320", "only 2 of 3 pair(s) have vectors"),
        (
            "car automobile 5\ncar banana 5\ncar river 5\n",
            "E323",
            "all 3 pairs with vectors have the same human score (5)",
        ),
        (
            "car banana 1\nbanana car 2\ncar banana 3\n",  # orthogonal vectors: cosine exactly 0
            "E324",
            "the vectors give all 3 covered pairs the same cosine (0)",
        ),
    ],
    ids=["two-pairs", "two-covered", "constant-scores", "constant-cosines"],
)
def test_word_sim_undefined_spearman_exits_non_zero(static_pipeline_dir, tmp_path, lines, code, why):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(lines, encoding="utf8")
    output = tmp_path / "result.json"
    result = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(pairs), "-o", str(output)])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and f"[CTX-{code}] {pairs}: Spearman's rho is undefined: {why}" in message, message
    assert "0.000" not in message
    assert json.loads(output.read_text(encoding="utf8"))[str(pairs)]["spearman"] is None
    assert f"Wrote the report to {output}" in " ".join(result.stdout.split())  # beside the table, on stdout


@pytest.mark.parametrize(
    "command", [["wic", "P", "D"], ["word-sim", "P", "F"], ["scws", "P", "F"], ["polysemy", "P", "F"]]
)
def test_output_that_is_a_directory_or_under_a_file(wic_slice, tmp_path, tmp_path_factory, command):
    data = tmp_path / "data.txt"
    data.write_text("car automobile 9\n", encoding="utf8")
    args = [{"P": "no-such-pipeline", "D": str(wic_slice), "F": str(data)}.get(a, a) for a in command]
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "dir").mkdir()
    (elsewhere / "other.txt").write_text("x", encoding="utf8")
    for output, code, problem in (
        (elsewhere / "dir", "E135", "existing directory"),
        (elsewhere / "other.txt" / "out.json", "E135", "is a file"),
        (tmp_path, "E700", "the input"),  # contains the data file, or is the WiC directory
        (data / "out.json", "E700", "lies inside the input"),
    ):
        result = runner.invoke(app, ["evaluate", *args, "--output", str(output), "--overwrite"])
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and f"[CTX-{code}]" in message and problem in message, message
    assert data.read_text(encoding="utf8") == "car automobile 9\n"


def test_word_sim_non_utf8_names_file_and_line(tmp_path):
    pairs = tmp_path / "latin1.txt"
    pairs.write_bytes(b"car automobile 9\ncaf\xe9 tea 5\n")
    message = word_sim_refusal(pairs)
    assert "[CTX-E133]" in message and "latin1.txt, line 2" in message


def test_output_equal_to_an_input_file_is_refused_and_the_input_survives(tmp_path):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("car automobile 9\ncar banana 1\ncar river 5\n", encoding="utf8")
    for extra in ([], ["--overwrite"]):
        message = word_sim_refusal(pairs, "-o", pairs, *extra)
        assert "[CTX-E700]" in message and "is the same as the input" in message
    assert pairs.read_text(encoding="utf8") == "car automobile 9\ncar banana 1\ncar river 5\n"


@pytest.mark.slow
def test_senses(default_pipeline_dir, tmp_path):
    source = SHARED_DATA / "wordnet_examples" / "wordnet_examples.jsonl"
    if source.exists():  # the first 30 rows of the shared file
        data = tmp_path / "examples.jsonl"
        data.write_text("".join(source.read_text(encoding="utf8").splitlines(keepends=True)[:30]), encoding="utf8")
    else:
        data = write_sense_sentences(tmp_path / "examples.jsonl")
    output = tmp_path / "out" / "senses.json"
    result = runner.invoke(
        app,
        ["evaluate", "senses", str(default_pipeline_dir), str(data), "--json", "--per-lemma", "3", "-o", str(output)],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert json.loads(output.read_text(encoding="utf8")) == report
    assert f"Wrote the report to {output}" in " ".join(result.stderr.split())  # it named no file it wrote
    assert set(report["methods"]) == {"induced"}  # no lexicon, no inventory
    assert report["n_sentences"] <= 3 * report["n_lemmas"]
    assert report["baselines"]["one_sense"]["recall"] == 1.0
    assert report["baselines"]["one_per_sentence"]["precision"] is None
    induced = report["methods"]["induced"]
    assert induced["n_polysemous"] + induced["n_monosemous"] == report["n_lemmas"]
    assert report["baselines"]["one_sense"]["monosemous_one_sense"] in (None, 1.0)
    result = runner.invoke(app, ["evaluate", "senses", str(default_pipeline_dir), str(data)])
    assert result.exit_code == 0, result.output
    assert "mean ARI" in result.output and "baseline: one_sense" in result.output
    assert "ARI (2+ gold)" in result.output and "one sense (1 gold)" in result.output


def test_senses_bad_row_names_file_and_line(tmp_path):
    data = write_sense_sentences(tmp_path / "examples.jsonl", SENSE_SENTENCES[:2])
    with data.open("a", encoding="utf8") as f:
        f.write('{"lemma": "bank", "words": ["a", "bank"], "position": 5, "synset": "s"}\n')
    result = runner.invoke(app, ["evaluate", "senses", "no-such-pipeline", str(data)])
    assert result.exit_code == 1
    assert re.search(r"E303.*examples\.jsonl, line 3", result.output.replace("\n", " ")), result.output
    result = runner.invoke(app, ["evaluate", "senses", "no-such-pipeline", str(data), "--per-lemma", "1"])
    assert result.exit_code == 2  # --per-lemma must be at least 2


def constant_polysemy_nlp():
    """polysemy_nlp's three words, each with the same four occurrence vectors: one polysemy_score for all."""
    nlp = spacy.blank("en")
    component = nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    occurrences = np.random.default_rng(0).normal(size=(4, 8))
    keys = ["bank"] * 4 + ["run"] * 4 + ["dog"] * 4
    component.set_lexicon(Lexicon.from_occurrences(keys, np.tile(occurrences, (3, 1))))
    return nlp


@pytest.mark.parametrize(
    "rows, nlp, code, why",
    [
        ("bank\t10\n", polysemy_nlp, "E321", "only 1 scored word(s) have a sense count, and it needs at least 3"),
        ("bank\t18\nrun\t57\n", polysemy_nlp, "E321", "only 2 scored word(s) have a sense count"),
        (
            "bank\t5\nrun\t5\ndog\t5\n",
            polysemy_nlp,
            "E326",
            "all 3 scored words with a sense count have the same number of senses (5)",
        ),
        (
            "bank\t18\nrun\t57\ndog\t8\n",
            constant_polysemy_nlp,
            "E327",
            "polysemy_score (self_similarity) is the same (",
        ),
    ],
    ids=["one", "two", "constant-sense-counts", "constant-scores"],
)
def test_polysemy_undefined_spearman_is_null_and_exits_non_zero(tmp_path, rows, nlp, code, why):
    senses = tmp_path / "counts.tsv"
    senses.write_text("word\tcount\n" + rows, encoding="utf8")
    nlp().to_disk(tmp_path / "with_lexicon")
    output = tmp_path / "result.json"
    args = ["evaluate", "polysemy", str(tmp_path / "with_lexicon"), str(senses), "-o", str(output)]
    result = runner.invoke(app, args)
    message = " ".join(result.output.split())
    expected = f"[CTX-{code}] all words: Spearman's rho of polysemy_score with sense counts is undefined: {why}"
    assert result.exit_code == 1 and expected in message and "spearman undefined" in message, message
    assert "W055" not in message  # "a word more or less can move them a lot" beside a Spearman there is not
    report = json.loads(output.read_text(encoding="utf8"))
    assert report["spearman"] is None and report["partial_spearman"] is None
    result = runner.invoke(app, [*args[:4], "--json"])
    assert result.exit_code == 1 and '"spearman": null' in result.output and f"[CTX-{code}]" in result.output
    printed = runner.invoke(app, args[:4])  # the table marks the undefined line as a warning, not a success
    assert printed.exit_code == 1 and "⚠ all words: spearman undefined" in printed.output
    assert "✔ all words" not in printed.output


def test_polysemy_three_words_is_defined(tmp_path):
    senses = tmp_path / "counts.tsv"
    senses.write_text("word\tcount\nbank\t18\nrun\t57\ndog\t8\n", encoding="utf8")
    polysemy_nlp().to_disk(tmp_path / "with_lexicon")
    result = runner.invoke(app, ["evaluate", "polysemy", str(tmp_path / "with_lexicon"), str(senses), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["spearman"] == pytest.approx(1.0)
    assert report["held_out"] is None  # no probe fitted on half the words: nothing held out


def test_polysemy_refuses_the_shared_sense_counts_by_part_of_speech_before_loading_the_pipeline(shared_data):
    path = shared_data / "wordnet_sense_counts" / "sense_counts_by_pos.tsv"  # lemma pos n_senses
    result = runner.invoke(app, ["evaluate", "polysemy", "no-such-pipeline", str(path)])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E329]" in message and "E302" not in message, message
    assert "sense_counts_by_pos.tsv, line 1: this is not a table of sense counts per lemma" in message
    assert "it looks like a sense-count table by part of speech" in message
    assert "`evaluate polysemy`, `fit-polysemy`" in message and "need each lemma's total sense count" in message
    assert "(e.g. sense_counts.tsv: lemma, total" in message


@pytest.mark.parametrize(
    "command, expected",
    [
        (["polysemy", "P"], "the lemma, a tab and its whole sense count"),
        (["word-sim", "P"], "word1, word2 and a numeric score"),
        (["scws", "P"], "<b> word </b>"),
        (["senses", "P"], '"lemma": str'),
    ],
)
def test_a_file_without_rows_names_the_format_the_reader_accepts(tmp_path, command, expected):
    data = tmp_path / "data.txt"
    data.write_text("lemma\tcount\n\n" if command[0] == "polysemy" else "\n\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", *command, str(data)])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E305]" in message and expected in message
    assert "documented format" not in message


def test_word_sim_says_which_first_line_it_read_as_a_header(static_pipeline_dir, tmp_path):
    """ "cat dog seven" (3 fields, no number) is read as a header: it was dropped without a word."""
    path = tmp_path / "pairs.tsv"
    path.write_text("cat\tdog\tseven\ncar\tautomobile\t9\ncar\tbanana\t1\ncar\triver\t5\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)[str(path)]
    assert report["header"] == "line 1: cat\tdog\tseven" and report["n_pairs"] == 3
    table = runner.invoke(app, ["evaluate", "word-sim", str(static_pipeline_dir), str(path)])
    assert "line 1: cat dog seven read as a header (not a pair)" in " ".join(table.stdout.split())


def test_a_word_with_an_all_zero_vector_has_no_cosine(tmp_path):
    """A vectors file with a zero row ("zero 0 0"): the word counted as covered with cosine 0
    in word-sim (skewing the Spearman), and compare showed 0.000 for the same word twice."""
    from spacy_ctxvec.analysis.comparison import compare_docs

    vectors = tmp_path / "vectors.txt"
    vectors.write_text("5 2\ncar 1 0\nautomobile 0.9 0.1\nbanana 0 1\nriver 0.5 0.5\nzero 0 0\n", encoding="utf8")
    nlp = static_only_nlp(vectors)
    said = r"\[CTX-W087\].*vectors\.txt: 1 word has an all-zero vector \(first: 'zero'\)"
    with pytest.warns(UserWarning, match=said):
        nlp.initialize()
    rows = compare_docs(nlp("the zero car"), nlp("a zero car"))
    assert {row.word: row.static_cosine for row in rows} == {"zero": None, "car": 1.0}
    pipeline = tmp_path / "pipeline"
    nlp.to_disk(pipeline)
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("car automobile 9\ncar banana 1\ncar river 5\nzero car 2\nzero banana 8\n", encoding="utf8")
    result = runner.invoke(app, ["evaluate", "word-sim", str(pipeline), str(pairs), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)[str(pairs)]
    assert (report["n_covered"], report["n_pairs"], report["spearman"]) == (3, 5, pytest.approx(1.0))
