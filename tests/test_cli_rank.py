import json

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.cli.rank import rank_rows, render
from spacy_ctxvec.lexicon.polysemy_probe import type_polysemy_scores
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.text import display_width

runner = CliRunner()


@pytest.fixture
def lexicon_dir(tmp_path):
    rng = np.random.default_rng(0)
    tight = np.ones((10, 6)) + 0.01 * rng.normal(size=(10, 6))
    medium = np.ones((10, 6)) + 0.5 * rng.normal(size=(10, 6))
    wide = rng.normal(size=(10, 6))
    keys = ["hotel"] * 10 + ["river"] * 10 + ["bank"] * 10 + ["rare"] * 3
    lexicon = Lexicon.from_occurrences(keys, np.vstack([tight, medium, wide, rng.normal(size=(3, 6))]))
    lexicon.to_disk(tmp_path / "lex")
    return tmp_path / "lex"


def test_rank_rows_orders_by_score_and_filters_by_count(lexicon_dir):
    lexicon = Lexicon.from_disk(lexicon_dir)
    ranked = rank_rows(lexicon, *type_polysemy_scores(lexicon, None, 5)[:2], top_k=2)
    assert [r["word"] for r in ranked["most"]] == ["bank", "river"]
    assert [r["word"] for r in ranked["least"]] == ["hotel"]  # river is in "most": a word is in one list only
    assert ranked["most"][0]["count"] == 10
    wide = rank_rows(lexicon, *type_polysemy_scores(lexicon, None, 3)[:2], top_k=1)
    assert [r["word"] for r in wide["most"]] == ["bank"] and [r["word"] for r in wide["least"]] == ["hotel"]


def test_rank_json_and_tsv(lexicon_dir):
    result = runner.invoke(app, ["rank", str(lexicon_dir), "--format", "json", "--min-count", "3", "--top-k", "10"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["n_types"] == 4 and data["n_scored"] == 4
    assert {r["word"] for r in data["most"]} == {"hotel", "river", "bank", "rare"} and data["least"] == []
    tsv = runner.invoke(app, ["rank", str(lexicon_dir), "--format", "tsv", "--top-k", "1"])
    lines = tsv.output.strip().splitlines()
    assert lines[0].split("\t") == ["order", "rank", "word", "polysemy_score", "count", "self_similarity"]
    assert lines[1].startswith("most\t1\tbank\t") and lines[2].startswith("least\t1\thotel\t")
    same = runner.invoke(app, ["rank", str(lexicon_dir), "--json", "--min-count", "3", "--top-k", "10"])
    assert same.exit_code == 0 and json.loads(same.output) == data  # --json as compare and evaluate take it
    both = runner.invoke(app, ["rank", str(lexicon_dir), "--json", "--format", "tsv"])
    assert both.exit_code == 1 and "[CTX-E426] --json and --format tsv ask for two outputs" in both.output
    table = runner.invoke(app, ["rank", str(lexicon_dir), "--json", "--format", "table"])
    assert table.exit_code == 1 and "[CTX-E426] --json and --format table" in table.output


def test_rank_table_and_bad_input(lexicon_dir, tmp_path):
    table = runner.invoke(app, ["rank", str(lexicon_dir)])
    assert table.exit_code == 0 and "Most polysemous" in table.output and "bank" in table.output
    bad_format = runner.invoke(app, ["rank", str(lexicon_dir), "--format", "xml"])
    assert bad_format.exit_code == 1 and "E230" in bad_format.output
    missing = runner.invoke(app, ["rank", str(tmp_path)])
    assert missing.exit_code == 1 and "E225" in missing.output


@pytest.mark.parametrize("command", [["rank"], ["export-static", "OUT"]])
def test_a_pipeline_whose_polysemy_component_has_no_lexicon_yet_says_so(tmp_path, command):
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_polysemy")
    nlp.to_disk(tmp_path / "assembled")
    args = [command[0], str(tmp_path / "assembled"), *[str(tmp_path / a) for a in command[1:]]]
    result = runner.invoke(app, args)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E322]" in message and "E225" not in message
    assert (
        "'ctxvec_polysemy' component but it has no lexicon yet" in message and "spacy-ctxvec build-lexicon" in message
    )
    assert not (tmp_path / "OUT").exists()


def test_rank_with_no_word_that_frequent_says_so_in_one_line(lexicon_dir):
    result = runner.invoke(app, ["rank", str(lexicon_dir), "--min-count", "1000"])
    message = " ".join(result.output.split())
    assert result.exit_code == 0 and "[CTX-W031]" in message and "the most frequent occurs 10 times" in message
    assert "Lower --min-count" in message
    assert "polysemous" not in message and len(result.output.strip().splitlines()) <= 3  # one (wrapped) line
    as_json = runner.invoke(app, ["rank", str(lexicon_dir), "--format", "json", "--min-count", "1000"])
    data = json.loads(as_json.stdout)  # the warning on stderr: stdout stays parseable
    assert data["n_scored"] == 0 and data["max_count"] == 10 and data["most"] == [] and "[CTX-W031]" in as_json.stderr
    as_tsv = runner.invoke(app, ["rank", str(lexicon_dir), "--format", "tsv", "--min-count", "1000"])
    assert as_tsv.stdout == "order\trank\tword\tpolysemy_score\tcount\tself_similarity\n"
    assert "[CTX-W031]" in as_tsv.stderr


def test_rank_leaves_out_punctuation_unless_asked(tmp_path):
    rng = np.random.default_rng(1)
    keys = ["bank"] * 6 + [","] * 6 + ["1999"] * 6
    Lexicon.from_occurrences(keys, rng.normal(size=(18, 6))).to_disk(tmp_path / "lex")
    words = json.loads(runner.invoke(app, ["rank", str(tmp_path / "lex"), "--format", "json"]).output)
    assert [row["word"] for row in words["most"]] == ["bank"] and words["n_scored"] == 1
    every = json.loads(runner.invoke(app, ["rank", str(tmp_path / "lex"), "--format", "json", "--all-types"]).output)
    assert sorted(row["word"] for row in every["most"]) == [",", "1999", "bank"] and every["n_scored"] == 3


def _table_under(output: str, title: str) -> list:
    """The lines of the table printed under ``title`` (header, divider, rows)."""
    return output.split(title + "\n", 1)[1].strip("\n").split("\n\n")[0].splitlines()


def test_rank_table_lines_up_cjk_and_emoji_words(tmp_path):
    """银行 and 🍎 take two terminal cells a character: padded by display width, every line
    of each table is as wide, the right-aligned numbers ending together."""
    rng = np.random.default_rng(0)
    words = ["hotel", "银行", "🍎", "river", "河岸", "🍏"]
    keys = [word for word in words for _ in range(10)]
    Lexicon.from_occurrences(keys, rng.normal(size=(60, 6))).to_disk(tmp_path / "lex")
    result = runner.invoke(app, ["rank", str(tmp_path / "lex"), "--all-types", "--top-k", "3"])
    assert result.exit_code == 0, result.output
    listed = []
    for title in ("Most polysemous", "Least polysemous"):
        lines = _table_under(result.stdout, title)
        assert lines[0].split() == ["#", "word", "polysemy_score", "count", "self_similarity"]
        assert set(lines[1]) == {"-", " "} and len(lines) == 5
        listed += [line.split()[1] for line in lines[2:]]
        assert {display_width(line) for line in lines} == {len(lines[0])}, lines
    assert sorted(listed) == sorted(words)  # each word in one list


def test_a_list_that_most_left_empty_says_so(lexicon_dir):
    result = runner.invoke(app, ["rank", str(lexicon_dir), "--min-count", "3", "--top-k", "4"])
    assert result.exit_code == 0, result.output
    assert "Least polysemous\n(every word ranked is listed above)" in result.stdout


def test_rank_table_lays_out_ascii_words_as_wasabi_did():
    """Plain words: the table is the one wasabi's table drew (its 30-cell column cap too:
    a longer word is shown whole, past its column)."""
    from wasabi import table

    def row(word: str, score: float, count: int) -> dict:
        return {"word": word, "polysemy_score": score, "count": count, "self_similarity": round(1 - score, 6)}

    ranked = {
        "most": [row("bank", 1.234567, 12), row("x" * 35, 0.5, 1234567), row("river", -0.25, 7)],
        "least": [row("river", -0.25, 7), row("x" * 35, 0.5, 1234567), row("bank", 1.234567, 12)],
    }
    header = ("#", "word", "polysemy_score", "count", "self_similarity")
    old = "\n".join(
        f"{order.capitalize()} polysemous\n"
        + table(
            [
                (rank, r["word"], f"{r['polysemy_score']:.3f}", r["count"], f"{r['self_similarity']:.3f}")
                for rank, r in enumerate(rows, 1)
            ],
            header=header,
            divider=True,
            aligns=("r", "l", "r", "r", "r"),
        )
        for order, rows in ranked.items()
    )
    assert render(ranked, "table", {"by": "polysemy_score"}) == old


def test_rank_by_corpus_polysemy_lists_the_words_this_corpus_splits(tiny_bert_dir, tmp_path, lexicon_dir):
    """--by corpus_polysemy: the words with the most distinct uses in this corpus first, with
    their senses and counts, as the pipeline's own inventory has them."""
    from spacy_ctxvec.saved_pipeline import load_senses

    from .test_evaluation_tasks import build_sense_nlp

    build_sense_nlp(tiny_bert_dir).to_disk(tmp_path / "pipeline")
    args = ["rank", str(tmp_path / "pipeline"), "--by", "corpus_polysemy", "--min-count", "2"]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    inventory = load_senses(tmp_path / "pipeline")
    most = data["most"]
    assert most and data["by"] == "corpus_polysemy"
    assert [row["corpus_polysemy"] for row in most] == sorted((row["corpus_polysemy"] for row in most), reverse=True)
    for row in most:
        assert row["corpus_polysemy"] == pytest.approx(inventory.corpus_polysemy_of(row["word"]), abs=1e-6)
        assert row["n_senses"] == inventory.n_senses(row["word"]) and row["count"] >= 2
    assert not {row["word"] for row in most} & {row["word"] for row in data["least"]}  # one list each
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "corpus_polysemy" in table.output and most[0]["word"] in table.output
    no_senses = runner.invoke(app, ["rank", str(lexicon_dir), "--by", "corpus_polysemy"])
    assert no_senses.exit_code == 1 and "E606" in no_senses.output
    bad = runner.invoke(app, ["rank", str(lexicon_dir), "--by", "senses"])
    assert bad.exit_code == 1 and "E228" in bad.output


def test_stop_words_of_the_pipelines_language_can_be_left_out_of_both_rankings(tiny_bert_dir, tmp_path, lexicon_dir):
    """--skip-stop-words: a small corpus splits function words, which then top
    corpus_polysemy; the pipeline's language (English: "the", "of", ...) leaves them out of
    either ranking, everything else as before. A bare lexicon holds no language: E264."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from .test_evaluation_tasks import build_sense_nlp

    build_sense_nlp(tiny_bert_dir).to_disk(tmp_path / "pipeline")
    for by in ("corpus_polysemy", "polysemy_score"):
        args = ["rank", str(tmp_path / "pipeline"), "--by", by, "--min-count", "2", "--top-k", "50", "--format", "json"]
        results = [runner.invoke(app, args + extra) for extra in ([], ["--skip-stop-words"])]
        if by == "polysemy_score":  # below the pipeline's min_count 3: said on stderr, beside the JSON
            assert all("[CTX-W038]" in result.stderr for result in results)
        every, kept = (json.loads(result.stdout) for result in results)
        words = [row["word"] for row in every["most"]]
        assert any(word in STOP_WORDS for word in words), by  # "the" and "of" are ranked by default
        assert [row["word"] for row in kept["most"]] == [word for word in words if word not in STOP_WORDS], by
        # the stop words this ranking held and left out, not the size of the stop list
        n_stop = len([row["word"] for row in every["most"] + every["least"] if row["word"] in STOP_WORDS])
        assert 0 < kept["stop_words_left_out"] == n_stop < len(STOP_WORDS), by
        assert (
            kept["stop_list_size"] == len(STOP_WORDS) and every["stop_words_left_out"] == every["stop_list_size"] == 0
        )
    table = runner.invoke(app, ["rank", str(tmp_path / "pipeline"), "--skip-stop-words", "--min-count", "2"])
    n = kept["stop_words_left_out"]  # of the last ranking above: --by polysemy_score
    assert table.exit_code == 0 and f"; {n} stop words left out (of the language's list of {len(STOP_WORDS)})" in (
        " ".join(table.output.split())
    )
    bare = runner.invoke(app, ["rank", str(lexicon_dir), "--skip-stop-words"])
    assert bare.exit_code == 1 and "[CTX-E264]" in bare.output and "no language" in " ".join(bare.output.split())
    missing = runner.invoke(app, ["rank", str(tmp_path / "missing"), "--skip-stop-words"])
    assert missing.exit_code == 1 and "[CTX-E225]" in missing.output  # as without the option: nothing there


def test_min_count_defaults_to_the_pipelines_own(tiny_bert_dir, tmp_path, lexicon_dir):
    """Without --min-count, rank lists the words the pipeline scores: its ctxvec_polysemy
    min_count (3 here), not a fixed 5 that would leave scored words out; 5 for a lexicon."""
    from .test_evaluation_tasks import build_sense_nlp

    build_sense_nlp(tiny_bert_dir).to_disk(tmp_path / "pipeline")
    for by in ("polysemy_score", "corpus_polysemy"):
        args = ["rank", str(tmp_path / "pipeline"), "--format", "json", "--by", by]
        data = json.loads(runner.invoke(app, args).output)
        assert data["min_count"] == 3 and min(row["count"] for row in data["most"] + data["least"]) == 3
    assert json.loads(runner.invoke(app, ["rank", str(lexicon_dir), "--format", "json"]).output)["min_count"] == 5
    table = runner.invoke(app, ["rank", str(tmp_path / "pipeline")]).output
    assert "words (types with a letter) scored, of the" in table and "seen >= 3 times" in table and "W038" not in table
    # plot polysemy scores the same words
    picture = runner.invoke(app, ["plot", "polysemy", str(tmp_path / "pipeline"), "-o", str(tmp_path / "p.png")])
    assert picture.exit_code == 0 and "words seen at least 3 times" in picture.output, picture.output
    bare = runner.invoke(app, ["plot", "polysemy", str(lexicon_dir), "-o", str(tmp_path / "l.png")])
    assert bare.exit_code == 0 and "words seen at least 5 times" in bare.output, bare.output


def test_rank_table_says_how_many_types_were_seen_min_count_times(tmp_path):
    """The first line counts what it claims: the types seen >= --min-count times, apart
    from all the lexicon's types."""
    rng = np.random.default_rng(2)
    keys = ["bank"] * 6 + ["river"] * 6 + [","] * 6 + ["rare"] * 3 + ["once"]
    Lexicon.from_occurrences(keys, rng.normal(size=(len(keys), 6))).to_disk(tmp_path / "lex")
    table = runner.invoke(app, ["rank", str(tmp_path / "lex")])
    line = " ".join(table.output.split())
    assert table.exit_code == 0, table.output
    assert "2 words (types with a letter) scored, of the 3 types seen >= 5 times (5 types in all)" in line
    every = " ".join(
        runner.invoke(app, ["rank", str(tmp_path / "lex"), "--all-types", "--min-count", "3"]).output.split()
    )
    assert "4 types scored, of the 4 types seen >= 3 times (5 types in all)" in every
    data = json.loads(runner.invoke(app, ["rank", str(tmp_path / "lex"), "--format", "json"]).output)
    assert (data["n_scored"], data["n_types_min_count"], data["n_types"]) == (2, 3, 5)


def test_rank_by_corpus_polysemy_with_no_word_that_frequent_warns_why(tiny_bert_dir, tmp_path):
    """As --by polysemy_score warns W031, --by corpus_polysemy warns W041 (not two empty
    tables): how many words have a corpus_polysemy, and how often the most frequent is seen."""
    from spacy_ctxvec.saved_pipeline import load_lexicon, load_senses

    from .test_evaluation_tasks import build_sense_nlp

    build_sense_nlp(tiny_bert_dir).to_disk(tmp_path / "pipeline")
    inventory, lexicon = load_senses(tmp_path / "pipeline"), load_lexicon(tmp_path / "pipeline")
    with_evidence = [key for key in inventory.keys if inventory.corpus_polysemy_of(key) is not None]
    most_frequent = max(int(lexicon.counts[lexicon.index(key)]) for key in with_evidence)
    args = ["rank", str(tmp_path / "pipeline"), "--by", "corpus_polysemy", "--min-count", str(most_frequent + 1)]
    table = runner.invoke(app, args)
    message = " ".join(table.output.split())
    assert table.exit_code == 0 and "[CTX-W041]" in message, message
    assert f"No word seen >= {most_frequent + 1} times has a corpus_polysemy" in message
    assert f"the most frequent of them seen {most_frequent} times" in message and "Lower --min-count" in message
    assert "polysemous" not in message
    as_json = runner.invoke(app, [*args, "--format", "json"])
    data = json.loads(as_json.stdout)
    assert data["most"] == [] and data["least"] == [] and data["max_count"] == most_frequent
    assert data["n_types"] == len(lexicon) and data["n_types_with_senses"] == len(inventory)
    assert data["by"] == "corpus_polysemy" and "[CTX-W041]" in as_json.stderr
    as_tsv = runner.invoke(app, [*args, "--format", "tsv"]).stdout
    assert as_tsv == "order\trank\tword\tcorpus_polysemy\tn_senses\tcount\tjudged\n"
    at_most = runner.invoke(app, [*args[:-1], str(most_frequent)])
    assert "[CTX-W041]" not in at_most.output and "Most polysemous" in at_most.output


def test_w041_names_a_larger_sample_where_the_sample_holds_too_few_occurrences_of_any_word(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(f"the bank of the river number {n}" for n in range(12)) + "\n", encoding="utf8")
    built = runner.invoke(
        app, ["build-lexicon", str(tiny_pipeline_dir), str(corpus), str(tmp_path / "small"), "--sample-size", "4"]
    )
    assert built.exit_code == 0, built.output
    ranked = runner.invoke(app, ["rank", str(tmp_path / "small"), "--by", "corpus_polysemy"])
    message = " ".join(ranked.output.split())
    assert "[CTX-W041]" in message and "keeps at most 4 occurrences of a word and a corpus_polysemy needs 6" in message
    assert "--sample-size 6 or more" in message and "larger corpus" not in message


@pytest.mark.slow  # starts two subprocesses
def test_a_closed_pipe_ends_a_command_quietly(lexicon_dir):
    """`rank ... | head -2`: the reader leaves; the command exits as standard tools do
    (status 141, no message), in a real process writing to a real pipe."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "spacy_ctxvec", "rank", str(lexicon_dir), "--format", "tsv"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # gone before the command writes a line
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 141 and stderr == b"", stderr.decode()[-2000:]
    whole = subprocess.run(command, capture_output=True, timeout=120)
    assert whole.returncode == 0 and whole.stdout.startswith(b"order\trank\tword")


def test_every_command_handles_a_closed_pipe_and_other_broken_pipes_still_fail():
    """Every command runs inside exit_on_coded_error (which handles a closed stdout); a
    BrokenPipeError from anything but a closed stdout is not swallowed."""
    from spacy_ctxvec.cli._app import exit_on_coded_error

    from .test_cli_structure import every_command_path

    wrapper_code = exit_on_coded_error(lambda: None).__code__

    def wrapped_codes(function):  # typer may wrap a callback again (functools.wraps)
        while function is not None:
            yield function.__code__
            function = getattr(function, "__wrapped__", None)

    for path, command in every_command_path():
        assert wrapper_code in wrapped_codes(command.callback), path

    @exit_on_coded_error
    def worker_pipe_breaks() -> None:
        raise BrokenPipeError("a worker's pipe")

    with pytest.raises(BrokenPipeError, match="a worker's pipe"):
        worker_pipe_breaks()


def test_output_to_a_pipe_has_no_colour_codes_and_warnings_go_to_stderr(tiny_bert_dir, tmp_path):
    """Through the console entry point, as a shell runs it: stdout and stderr are pipes
    here, so the "ℹ" line carries no escape codes, and W038 (--min-count below the
    pipeline's own 3) goes to stderr: the JSON on stdout parses."""
    import subprocess
    import sys

    from .test_evaluation_tasks import build_sense_nlp

    build_sense_nlp(tiny_bert_dir).to_disk(tmp_path / "pipeline")
    command = [sys.executable, "-m", "spacy_ctxvec", "rank", str(tmp_path / "pipeline")]
    table = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert table.returncode == 0 and "ℹ" in table.stdout and "\x1b[" not in table.stdout, table.stderr
    as_json = subprocess.run(
        [*command, "--format", "json", "--min-count", "2"], capture_output=True, text=True, timeout=300
    )
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["min_count"] == 2
    assert "[CTX-W038]" in as_json.stderr and "\x1b[" not in as_json.stderr


def test_a_lexicon_of_punctuation_only_says_no_type_holds_a_letter(tmp_path):
    """W031 said "Lower --min-count" for a lexicon whose types are seen 10+ times but hold no letter."""
    rng = np.random.default_rng(0)
    keys = [key for key in (",", ".", "!", "42") for _ in range(12)]
    Lexicon.from_occurrences(keys, rng.normal(size=(len(keys), 8))).to_disk(tmp_path / "lexicon")
    result = runner.invoke(app, ["rank", str(tmp_path / "lexicon"), "--min-count", "2"])
    message = " ".join(result.output.split())
    assert "[CTX-W031]" in message and "None of the 4 types seen that often holds a letter" in message
    assert "--all-types scores them too" in message and "Lower --min-count" not in message  # they are frequent
    # frequent punctuation beside words seen too rarely: lowering --min-count is the fix again
    keys += [word for word in ("bank", "river", "money") for _ in range(3)]
    Lexicon.from_occurrences(keys, rng.normal(size=(len(keys), 8))).to_disk(tmp_path / "mixed")
    mixed = " ".join(runner.invoke(app, ["rank", str(tmp_path / "mixed"), "--min-count", "5"]).output.split())
    assert "[CTX-W031]" in mixed and "Lower --min-count" in mixed
    data = json.loads(runner.invoke(app, ["rank", str(tmp_path / "lexicon"), "--format", "json"]).stdout)
    assert "no_letter" not in data
    assert runner.invoke(app, ["rank", str(tmp_path / "lexicon"), "--all-types"]).exit_code == 0
    plot = runner.invoke(app, ["plot", "polysemy", str(tmp_path / "lexicon"), "-o", str(tmp_path / "p.png")])
    assert plot.exit_code == 1 and "None of the 4 types seen that often holds a letter" in " ".join(plot.output.split())


def test_tsv_on_a_terminal_shows_escape_sequences_escaped_and_raw_into_a_pipe(monkeypatch):
    """`rank --format tsv` and `senses --format tsv` wrote a snippet's ESC sequences to the
    terminal raw (a corpus could set the terminal's title); a pipe still gets the text as is."""
    import io

    from spacy_ctxvec.cli._app import print_output

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    row = "word\tsnippet\nbank\t\x1b]0;PWNED\x07 the [bank]"
    terminal, pipe = Terminal(), io.StringIO()
    for stdout in (terminal, pipe):
        monkeypatch.setattr("sys.stdout", stdout)
        print_output(row)
    assert terminal.getvalue() == "word\tsnippet\nbank\t\\x1b]0;PWNED\\x07 the [bank]\n"
    assert pipe.getvalue() == row + "\n"
    as_json = json.dumps({"snippet": "\x1b]0;PWNED\x07 the \x85 [bank]\u202e"}, ensure_ascii=False)
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    print_output(as_json, json_text=True)  # on a terminal too, valid JSON: JSON's own escapes
    shown = terminal.getvalue()
    assert json.loads(shown) == json.loads(as_json) and "\x85" not in shown and "\u202e" not in shown
