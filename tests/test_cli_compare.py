import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.analysis.comparison import WordComparison
from spacy_ctxvec.cli import app
from spacy_ctxvec.cli.compare import render_table
from spacy_ctxvec.ops.text import display_width

runner = CliRunner()


@pytest.mark.slow
def test_compare_table(default_pipeline_dir):
    result = runner.invoke(
        app, ["compare", "I have a apple", "I have a pen", "--word", "a", "--pipeline", str(default_pipeline_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "static cosine" in result.output and "1.000" in result.output


@pytest.mark.slow
def test_compare_json_every_shared_word(default_pipeline_dir):
    args = [
        "compare",
        "We sat on the river bank",
        "The bank approved the loan",
        "--json",
        "--pipeline",
        str(default_pipeline_dir),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    rows = printed["rows"]
    assert {r["word"] for r in rows} == {"the", "bank"}
    # how the vectors were made, as the table's legend says it (JSON of two pipelines told apart)
    assert printed["context_source"].startswith("the last layer, pooled by pool_mean, model ")
    assert printed["static_source"] == "spacy-ctxvec.transformer_embeddings.v1"
    bank = next(r for r in rows if r["word"] == "bank")
    assert bank["static_cosine"] == pytest.approx(1.0)
    assert 0.0 < bank["context_cosine"] < 0.99


@pytest.mark.slow
def test_compare_missing_word_exits_with_coded_message(default_pipeline_dir):
    result = runner.invoke(app, ["compare", "a b", "c d", "--word", "zebra", "--pipeline", str(default_pipeline_dir)])
    assert result.exit_code == 1
    assert "E012" in result.output


def test_compare_bad_pipeline_path(tmp_path):
    result = runner.invoke(app, ["compare", "a", "a", "--pipeline", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert "E011" in result.output


@pytest.mark.slow
def test_module_entry_point_help():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "spacy_ctxvec", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "compare" in proc.stdout


def test_an_empty_or_blank_text_is_refused_before_the_pipeline_loads(tmp_path):
    """E413 names the text; the absent pipeline is never reached (no E011), so no model loads."""
    absent = str(tmp_path / "absent_pipeline")
    empty = runner.invoke(app, ["compare", "", "I have a pen", "--pipeline", absent])
    assert empty.exit_code == 1 and "[CTX-E413] Text A is empty" in empty.stderr
    assert "E011" not in empty.output and empty.stdout == ""
    blank = runner.invoke(app, ["compare", "I have a pen", " \n\t", "--pipeline", absent])
    assert blank.exit_code == 1 and "[CTX-E413] Text B is only whitespace" in blank.stderr


def test_a_long_text_is_echoed_as_its_start_and_length(tiny_pipeline_dir):
    long_text = "the river\nflows " * 4000 + "by the bank"  # 64,011 characters
    result = runner.invoke(app, ["compare", long_text, "a bank", "--word", "bank", "-p", str(tiny_pipeline_dir)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = " ".join(long_text[:200].split())
    assert lines[0] == f"A: {start}… (64,011 characters)" and lines[1] == "B: a bank"  # a short text as it is
    assert len(result.stdout) < 2000
    as_json = runner.invoke(app, ["compare", long_text, "a bank", "-w", "bank", "-p", str(tiny_pipeline_dir), "--json"])
    assert json.loads(as_json.stdout)["text_a"] == long_text  # JSON keeps the text whole


def test_a_token_the_model_reads_as_unk_is_marked_and_warned_about(tiny_pipeline_dir):
    """The tiny BERT's vocabulary has no emoji: the model reads 🍎 and 🍏 as [UNK], so
    their rows compare contexts, not words, and the texts' other words cannot tell them apart."""
    pipeline = ["--pipeline", str(tiny_pipeline_dir)]
    table = runner.invoke(app, ["compare", "i want 🍎", "you want 🍎", "--word", "🍎", *pipeline])
    assert table.exit_code == 0, table.output
    row = next(line for line in table.stdout.splitlines() if line.startswith("🍎"))
    assert row.count("(#2) as [UNK]") == 2
    warned = "[CTX-W040] The model's vocabulary has no wordpiece for '🍎' (text A), '🍎' (text B)"
    assert warned in " ".join(table.stderr.split()) and "W040" not in table.stdout  # warnings on stderr
    json_run = runner.invoke(app, ["compare", "i want 🍎", "you want 🍎", "--json", *pipeline])
    as_json = json_run.stdout
    assert "\\u" not in as_json and "🍎" in as_json  # UTF-8, as rank and senses write JSON
    assert "[CTX-W040]" in json_run.stderr  # --json said nothing of it: the warnings returned before
    rows = json.loads(as_json)
    assert rows["unknown_tokens"] == {"text_a": ["🍎"], "text_b": ["🍎"]}
    flags = {r["word"]: (r["unknown_a"], r["unknown_b"]) for r in rows["rows"]}
    assert flags == {"want": (False, False), "🍎": (True, True)}
    differing = runner.invoke(app, ["compare", "i want 🍎", "i want 🍏", *pipeline])
    assert "'🍎' (text A), '🍏' (text B)" in " ".join(differing.stderr.split())
    assert "as [UNK]" not in differing.stdout.split("(#N)")[0]  # i and want are words it knows
    known = runner.invoke(app, ["compare", "i want a bank", "you want the bank", *pipeline])
    assert known.exit_code == 0 and "W040" not in known.output and "[UNK]" not in known.output


def test_a_word_glued_to_an_emoji_has_no_contextual_cosine_and_w040_does_not_name_it(tiny_pipeline_dir):
    """'bank' is a wordpiece: read with the glued emoji as one [UNK], it has no vector (W070),
    which W040 ("no wordpiece for 'bank'") contradicted."""
    command = ["compare", "we sat by the bank\U0001f602", "we sat by the bank", "--word", "bank"]
    result = runner.invoke(app, [*command, "--pipeline", str(tiny_pipeline_dir), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["context_cosine"] for row in data["rows"]] == [None]
    assert data["unknown_tokens"] == {"text_a": ["\U0001f602"], "text_b": []}  # the emoji keeps its vector
    assert "wordpiece for 'bank'" not in " ".join(result.stderr.split())


def test_a_word_seen_many_times_is_cut_to_max_rows_and_says_so(tiny_pipeline_dir):
    text_a, text_b = "the bank " * 30, "the bank " * 20  # 600 pairs of each word
    pipeline = ["-p", str(tiny_pipeline_dir)]
    table = runner.invoke(app, ["compare", text_a, text_b, *pipeline])
    assert table.exit_code == 0, table.output
    assert "Showing 50 of 1,200 pairs of occurrences; --max-rows 0 shows all." in table.stdout
    assert "bank (#1)" in table.stdout  # the second word keeps its first pair
    as_json = json.loads(runner.invoke(app, ["compare", text_a, text_b, "--json", "--max-rows", "3", *pipeline]).stdout)
    assert as_json["total_pairs"] == 1200 and [r["word"] for r in as_json["rows"]] == ["the", "the", "bank"]
    everything = json.loads(
        runner.invoke(app, ["compare", text_a, text_b, "-w", "bank", "--json", "--max-rows", "0", *pipeline]).stdout
    )
    assert len(everything["rows"]) == everything["total_pairs"] == 600
    short = runner.invoke(app, ["compare", "the bank", "a bank", *pipeline])
    assert "Showing" not in short.stdout


def test_an_emoji_or_a_cjk_word_keeps_the_table_columns_in_line():
    """🍎 and 苹果 take two terminal cells a character: padded by display width, every
    column starts at the same cell in every row, and the right-aligned cosines end together."""
    rows = [
        WordComparison("bank", "bank", 4, "bank", 1, 1.0, 0.61234),
        WordComparison("🍎", "🍎", 2, "🍎", 2, None, 0.9, unknown_a=True, unknown_b=True),
        WordComparison("苹果", "苹果", 3, "苹果", 1, 1.0, 0.8),
    ]
    lines = render_table(rows).strip("\n").splitlines()
    assert lines == [
        "word   in text A          in text B          static cosine   contextual cosine",
        "----   ----------------   ----------------   -------------   -----------------",
        "bank   bank (#4)          bank (#1)                  1.000               0.612",
        "🍎     🍎 (#2) as [UNK]   🍎 (#2) as [UNK]             n/a               0.900",
        "苹果   苹果 (#3)          苹果 (#1)                  1.000               0.800",
    ]
    assert {display_width(line) for line in lines} == {78}  # as many terminal cells each
    for line in lines[2:]:  # the "in text B" cells start where their header does (cell 26)
        second = line.index("(#", line.index("(#") + 2)
        assert display_width(line[: line.rindex("   ", 0, second) + 3]) == 26, line


def test_a_pipeline_without_ctxvec_static_says_so_and_how_to_add_it(tiny_pipeline_dir):
    result = runner.invoke(app, ["compare", "a river bank", "a bank loan", "-w", "bank", "-p", str(tiny_pipeline_dir)])
    output = " ".join(result.output.split())
    assert result.exit_code == 0, output
    assert "static: n/a: this pipeline has no ctxvec_static component." in output
    assert "[CTX-W002]" in output and 'nlp.add_pipe("ctxvec_static")' in output


@pytest.mark.skipif(os.name != "posix", reason="arguments as bytes: POSIX")
@pytest.mark.parametrize(
    "args, what",
    [
        ([b"le caf\xe9 noir", b"un caf\xe9"], "Text A"),
        ([b"the bank", b"a bank", b"--word", b"b\xe4nk"], "The word of --word"),
        ([b"plot", b"word", b"caf\xe9", b"--sentences", b"s.txt", b"-o", b"x.png"], "The word to plot"),
    ],
)
def test_arguments_that_are_not_utf8_are_a_coded_error_not_a_traceback(tmp_path, args, what):
    """Latin-1 bytes from a shell (or a locale that is not UTF-8) reach Python as lone surrogates,
    which spaCy cannot hash: a traceback before; now E418 naming the byte, before any model loads."""
    command = args if args[0] == b"plot" else [b"compare", *args]
    (tmp_path / "s.txt").write_text("un café\n", encoding="utf8")
    result = subprocess.run(
        [sys.executable, "-m", "spacy_ctxvec", *command], capture_output=True, cwd=tmp_path, timeout=300
    )
    output = " ".join(result.stderr.decode("utf8", "replace").split())
    assert result.returncode == 1 and "Traceback" not in output, output
    assert f"[CTX-E418] {what} is not UTF-8 text: it holds the byte 0x" in output
    assert "iconv -f cp1252 -t utf-8" in output
    assert not (tmp_path / "x.png").exists()
