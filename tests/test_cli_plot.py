"""`spacy-ctxvec plot ...` end to end, in process (typer's CliRunner), on the tiny
random pipeline; one slow test checks the seed picture's claim with the real MiniLM."""

import json
import os
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.statistics import Lexicon

from .test_analysis_plotting import assert_pdf, assert_png, assert_svg

SENTENCES = [
    "i want to eat an apple .",
    "we eat an apple and a pen .",
    "i want to buy an apple phone .",
    "Apple took out a loan .",
    "we sat on the bank of the river .",
]


@pytest.fixture
def sentences_file(tmp_path):
    path = tmp_path / "sentences.txt"
    path.write_text("\n".join(SENTENCES) + "\n", encoding="utf8")
    return path


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result


@pytest.mark.parametrize("suffix, check", [(".png", assert_png), (".svg", assert_svg), (".pdf", assert_pdf)])
def test_plot_word_writes_a_valid_figure(tiny_pipeline_dir, sentences_file, tmp_path, suffix, check):
    output = tmp_path / f"apple{suffix}"
    result = invoke(
        "plot", "word", "apple", "--sentences", sentences_file, "--pipeline", tiny_pipeline_dir, "-o", output
    )
    assert result.exit_code == 0, result.output
    # Case-insensitive by default: "Apple" counts too.
    assert "4 occurrences of 'apple'" in result.output
    check(output)


def test_plot_word_case_sensitive_and_corpus_input(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"text": s}) for s in SENTENCES) + "\n", encoding="utf8")
    output = tmp_path / "apple.png"
    result = invoke(
        "plot",
        "word",
        "Apple",
        "--corpus",
        corpus,
        "--pipeline",
        tiny_pipeline_dir,
        "--case-sensitive",
        "-o",
        output,
        "--clusters",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert "(1 occurrence of 'Apple';" in result.output
    assert_png(output)


@pytest.mark.parametrize("clusters", ["0", "3"])
def test_plot_word_on_identical_occurrences_warns_nothing(tiny_pipeline_dir, tmp_path, clusters):
    """Identical sentences give identical vectors: one cluster, and no k-means warning
    (scikit-learn's ConvergenceWarning) in the output."""
    sentences = tmp_path / "same.txt"
    sentences.write_text("i want to eat an apple .\n" * 4, encoding="utf8")
    output = tmp_path / "apple.png"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = invoke(
            "plot", "word", "apple", "--sentences", sentences, "-p", tiny_pipeline_dir, "-o", output, "-k", clusters
        )
    assert result.exit_code == 0, result.output
    # which vectors the picture shows (a layers/pooling walkthrough could not tell two layers' pictures apart)
    assert "(4 occurrences of 'apple'; contextual vectors: the last layer, pooled by pool_mean)" in result.output
    assert "Warning" not in result.output, result.output
    assert [str(w.message) for w in caught if "cluster" in str(w.message).lower()] == []
    assert_png(output)


def test_plot_word_max_occurrences(tiny_pipeline_dir, sentences_file, tmp_path):
    result = invoke(
        "plot",
        "word",
        "apple",
        "--sentences",
        sentences_file,
        "--pipeline",
        tiny_pipeline_dir,
        "-n",
        "2",
        "-o",
        tmp_path / "a.png",
    )
    assert result.exit_code == 0, result.output
    assert "2 occurrences" in result.output


def test_plot_word_reads_a_jsonl_given_as_sentences_as_a_corpus(tiny_pipeline_dir, tmp_path):
    """Its lines went to the model as they are, JSON syntax and escapes included: one of three
    occurrences (written \\"letter\\") was missed and the snippets showed {"text": ...}."""
    rows = ['{"text": "The letter came."}', '{"text": "She read the \\"letter\\" twice."}', '{"text": "A letter."}']
    sentences = tmp_path / "rows.jsonl"
    sentences.write_text("\n".join(rows) + "\n", encoding="utf8")
    output = tmp_path / "letter.png"
    result = invoke("plot", "word", "letter", "--sentences", sentences, "--pipeline", tiny_pipeline_dir, "-o", output)
    message = " ".join(result.output.split())
    assert result.exit_code == 0 and "(3 occurrences of 'letter'" in message, message
    assert '"}' not in message and '\\"' not in message


def test_plot_word_says_when_every_occurrence_is_glued_to_an_emoji(tiny_pipeline_dir, tmp_path):
    """'bank' occurs twice, each read with a glued emoji as one [UNK]: "does not occur" misled."""
    sentences = tmp_path / "glued.txt"
    sentences.write_text("the bank\U0001f602 approved my loan\nwe sat on the \U0001f525bank today\n", encoding="utf8")
    output = tmp_path / "glued.png"
    result = invoke("plot", "word", "bank", "--sentences", sentences, "--pipeline", tiny_pipeline_dir, "-o", output)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E402]" in message and "does not occur in" in message
    assert "it occurs 2 times without one: glued to a character the model cannot read" in message
    assert not output.exists()
    with sentences.open("a", encoding="utf8") as file:
        file.write("the bank by the river\nthe bank lent money\n")
    drawn = invoke("plot", "word", "bank", "--sentences", sentences, "--pipeline", tiny_pipeline_dir, "-o", output)
    assert drawn.exit_code == 0, drawn.output
    assert "(2 occurrences of 'bank'; 2 more without a contextual vector left out" in " ".join(drawn.output.split())


def test_plot_word_reads_sentences_ending_in_lone_carriage_returns_and_refuses_an_empty_file(
    tiny_pipeline_dir, tmp_path
):
    """A file of classic Mac line ends was one sentence: the same text drawn three times
    ("1 texts read" for a word of one line); an empty file said the word did not occur."""
    sentences = tmp_path / "mac.txt"
    sentences.write_bytes(b"we fished from the river bank\rthe boat drifted to the bank\ri paid money at the bank\r")
    output = tmp_path / "bank.png"
    drawn = invoke("plot", "word", "bank", "--sentences", sentences, "--pipeline", tiny_pipeline_dir, "-o", output)
    assert drawn.exit_code == 0 and "(3 occurrences of 'bank'" in " ".join(drawn.output.split()), drawn.output
    missing = invoke(
        "plot", "word", "hotel", "--sentences", sentences, "-p", tiny_pipeline_dir, "-o", output, "--overwrite"
    )
    assert "3 texts read" in " ".join(missing.output.split()), missing.output
    sentences.write_text("\n  \n", encoding="utf8")
    empty = invoke(
        "plot", "word", "bank", "--sentences", sentences, "--pipeline", tiny_pipeline_dir, "-o", output, "--overwrite"
    )
    message = " ".join(empty.output.split())
    assert empty.exit_code == 1 and "[CTX-E404] Sentences file holds no sentences" in message, message


def test_plot_word_missing_word_is_a_clear_error(tiny_pipeline_dir, sentences_file, tmp_path):
    output = tmp_path / "none.png"
    result = invoke(
        "plot", "word", "hotel", "--sentences", sentences_file, "--pipeline", tiny_pipeline_dir, "-o", output
    )
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "[CTX-E402]" in message and "'hotel'" in message and "5 texts read" in message
    sentences_file.write_text("an apple a day\n", encoding="utf8")
    one = " ".join(
        invoke(
            "plot", "word", "hotel", "--sentences", sentences_file, "-p", tiny_pipeline_dir, "-o", output
        ).output.split()
    )
    assert "(1 text read;" in one, one
    assert "--case-sensitive" not in message  # not given: nothing to drop
    assert not output.exists()
    strict = invoke(
        "plot",
        "word",
        "HOTEL",
        "--sentences",
        sentences_file,
        "--pipeline",
        tiny_pipeline_dir,
        "-o",
        output,
        "--case-sensitive",
    )
    assert strict.exit_code == 1 and "drop --case-sensitive" in " ".join(strict.output.split())


@pytest.mark.parametrize("inputs", [[], ["--sentences", "a.txt", "--corpus", "b.txt"]])
def test_plot_word_needs_exactly_one_input(inputs, tmp_path):
    result = invoke("plot", "word", "apple", *inputs, "-o", tmp_path / "x.png")
    assert result.exit_code == 1 and "[CTX-E403]" in result.output


def test_plot_word_bad_inputs(tiny_pipeline_dir, sentences_file, tmp_path):
    result = invoke("plot", "word", "apple", "--sentences", tmp_path / "missing.txt", "-o", tmp_path / "x.png")
    assert result.exit_code == 1 and "[CTX-E404]" in result.output
    assert "Sentences file does not exist" in " ".join(result.output.split())
    if os.path.exists("/dev/null"):  # there, but no file to read sentences from
        device = invoke("plot", "word", "apple", "--sentences", "/dev/null", "-o", tmp_path / "x.png")
        assert "[CTX-E404] Sentences file is not a regular file (a device or pipe): /dev/null" in " ".join(
            device.output.split()
        )
    result = invoke(
        "plot",
        "word",
        "apple",
        "--sentences",
        sentences_file,
        "--pipeline",
        tmp_path / "nowhere",
        "-o",
        tmp_path / "x.png",
    )
    assert result.exit_code == 1 and "[CTX-E011]" in result.output
    result = invoke(
        "plot",
        "word",
        "apple",
        "--sentences",
        sentences_file,
        "--pipeline",
        tiny_pipeline_dir,
        "-o",
        tmp_path / "x.eps",
    )
    assert result.exit_code == 1 and "[CTX-E401]" in result.output
    result = invoke(
        "plot",
        "word",
        "apple",
        "--sentences",
        sentences_file,
        "--pipeline",
        tiny_pipeline_dir,
        "-k",
        "9",
        "-o",
        tmp_path / "x.png",
    )
    assert result.exit_code == 1 and "[CTX-E412]" in result.output


def test_plot_word_needs_a_context_vectors_component(sentences_file, tmp_path):
    import spacy

    spacy.blank("en").to_disk(tmp_path / "blank")
    result = invoke(
        "plot",
        "word",
        "apple",
        "--sentences",
        sentences_file,
        "--pipeline",
        tmp_path / "blank",
        "-o",
        tmp_path / "x.png",
    )
    assert result.exit_code == 1 and "[CTX-E307]" in result.output


def test_plot_layers_one_value_per_hidden_state(tiny_pipeline_dir, sentences_file, tmp_path):
    output = tmp_path / "layers.svg"
    result = invoke("plot", "layers", tiny_pipeline_dir, sentences_file, "-o", output, "--min-count", "2")
    assert result.exit_code == 0, result.output
    # Tiny BERT: embeddings + 2 layers.
    assert "0: " in result.output and "2: " in result.output and "3: " not in result.output
    assert_svg(output)


def test_plot_layers_of_one_word_says_the_baseline_is_undefined(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "one_word.txt"
    corpus.write_text("bank bank\n" * 3, encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W075\] The first 3 texts of .* hold one word type"):
        result = invoke("plot", "layers", tiny_pipeline_dir, corpus, "-o", tmp_path / "l.svg", "--min-count", "2")
    assert result.exit_code == 0, result.output
    assert_svg(tmp_path / "l.svg")


def test_plot_layers_without_repeated_words_is_a_clear_error(tiny_pipeline_dir, sentences_file, tmp_path):
    result = invoke("plot", "layers", tiny_pipeline_dir, sentences_file, "-o", tmp_path / "l.png", "--min-count", "50")
    assert result.exit_code == 1 and "[CTX-E408]" in result.output


def test_plot_polysemy_from_a_lexicon_directory(tmp_path):
    rng = np.random.default_rng(0)
    words = ["bank", "apple", "dog", "run", "the", "zzyzx", ","]
    spreads = np.array([1.5, 1.0, 0.2, 2.0, 0.1, 0.5, 3.0])
    keys = np.repeat(words, 20)
    centres = rng.normal(size=(len(words), 8))
    vectors = np.repeat(centres, 20, axis=0) + np.repeat(spreads, 20)[:, None] * rng.normal(size=(140, 8))
    Lexicon.from_occurrences(list(keys), vectors).to_disk(tmp_path / "lexicon")
    senses = tmp_path / "senses.tsv"
    senses.write_text("lemma\ttotal\nbank\t18\napple\t2\ndog\t8\nrun\t57\nthe\t1\n", encoding="utf8")
    output = tmp_path / "polysemy.png"
    result = invoke("plot", "polysemy", tmp_path / "lexicon", "--sense-counts", senses, "-o", output, "--top-k", "3")
    assert result.exit_code == 0, result.output
    assert "6 words" in result.output and "over 5 words" in result.output  # the comma is not ranked
    assert "Spearman rho with the sense counts of senses.tsv" in result.output and "WordNet" not in result.output
    assert_png(output)
    result = invoke("plot", "polysemy", tmp_path / "lexicon", "-o", output, "--overwrite", "--all-types")
    assert result.exit_code == 0 and "7 words" in result.output, result.output


def test_plot_polysemy_rejects_a_non_lexicon(tmp_path):
    (tmp_path / "not_a_lexicon").mkdir()
    result = invoke("plot", "polysemy", tmp_path / "not_a_lexicon", "-o", tmp_path / "p.png")
    assert result.exit_code == 1 and "[CTX-E225]" in result.output


@pytest.mark.parametrize(
    "args,option",
    [
        (["word", "apple", "--sentences", "S", "-n", "0"], "--max-occurrences (-n) must be at least 1, got 0"),
        (["layers", "P", "S", "--max-texts", "0"], "--max-texts (--max-docs) must be at least 1, got 0"),
        (["layers", "P", "S", "--max-docs", "0"], "--max-texts (--max-docs) must be at least 1, got 0"),
        (["polysemy", "P", "--top", "0"], "--top (--top-k) must be at least 1, got 0"),
    ],
)
def test_plot_counts_below_one_say_so(tiny_pipeline_dir, sentences_file, tmp_path, args, option):
    args = [{"S": sentences_file, "P": tiny_pipeline_dir}.get(a, a) for a in args]
    result = invoke("plot", *args, "-o", tmp_path / "x.png")
    assert result.exit_code == 1
    assert "[CTX-E228]" in result.output and option in " ".join(result.output.split())


@pytest.mark.parametrize("value", ["-5", "0", "1"])
def test_min_count_below_two_is_refused_alike_by_plot_rank_and_build_lexicon(
    tiny_pipeline_dir, sentences_file, tmp_path, value
):
    """`plot layers` and `plot polysemy` refuse --min-count below 2 as `rank` and
    `build-lexicon` do: the same usage error (status 2), nothing loaded or written."""
    lexicon = tmp_path / "lexicon"
    Lexicon.from_occurrences(["bank"] * 5, np.ones((5, 4))).to_disk(lexicon)
    commands = {
        "plot layers": ["plot", "layers", tiny_pipeline_dir, sentences_file, "-o", tmp_path / "l.png"],
        "plot polysemy": ["plot", "polysemy", lexicon, "-o", tmp_path / "p.png"],
        "rank": ["rank", lexicon],
        "build-lexicon": ["build-lexicon", tiny_pipeline_dir, sentences_file, tmp_path / "out", "--no-progress"],
    }
    errors = {}
    for name, args in commands.items():
        result = invoke(*args, "--min-count", value)
        assert result.exit_code == 2, (name, result.output)
        errors[name] = [line for line in result.output.splitlines() if "--min-count" in line]
    assert errors["plot layers"] and all(lines == errors["rank"] for lines in errors.values()), errors
    assert not any((tmp_path / name).exists() for name in ("l.png", "p.png", "out"))


@pytest.mark.parametrize(
    "word,code,detail",
    [
        ("", "E414", "The word to plot is empty"),
        (" ", "E414", "The word to plot is only whitespace"),
        ("river bank", "E415", "'river bank' is 2 words (river, bank)"),
    ],
)
def test_plot_word_checks_the_word_before_the_pipeline_loads(sentences_file, tmp_path, word, code, detail):
    args = ["--sentences", sentences_file, "--pipeline", tmp_path / "nowhere", "-o", tmp_path / "x.png"]
    result = invoke("plot", "word", word, *args)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and f"[CTX-{code}]" in message and detail in message, message
    # the same command with one word does try to load that pipeline
    assert "[CTX-E011]" in invoke("plot", "word", "bank", *args).output
    assert not (tmp_path / "x.png").exists()


def test_plot_word_a_word_the_tokenizer_splits_and_one_with_spaces_around(tiny_pipeline_dir, sentences_file, tmp_path):
    args = ["--sentences", sentences_file, "--pipeline", tiny_pipeline_dir, "-o", tmp_path / "x.png"]
    split = invoke("plot", "word", "apple-phone", *args)
    message = " ".join(split.output.split())
    assert split.exit_code == 1 and "[CTX-E415]" in message
    assert "'apple-phone' is 3 tokens to the pipeline's tokenizer (apple, -, phone)" in message
    assert not (tmp_path / "x.png").exists()
    padded = invoke("plot", "word", " apple ", *args)
    assert padded.exit_code == 0 and "4 occurrences of 'apple'" in padded.output, padded.output


def test_plot_word_sentences_directory_says_so_and_corpus_reads_a_directory(
    tiny_pipeline_dir, sentences_file, tmp_path
):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "part.txt").write_text(sentences_file.read_text(encoding="utf8"), encoding="utf8")
    output = tmp_path / "x.png"
    result = invoke("plot", "word", "apple", "--sentences", folder, "--pipeline", tiny_pipeline_dir, "-o", output)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E416]" in message and "is a directory" in message
    assert f"--corpus {folder}" in message and "[CTX-E404]" not in message and not output.exists()
    # the input's error first, not E700 (the output inside the input)
    inside = invoke("plot", "word", "apple", "--sentences", folder, "-o", folder / "x.png")
    assert inside.exit_code == 1 and "[CTX-E416]" in " ".join(inside.output.split())
    corpus = invoke("plot", "word", "apple", "--corpus", folder, "--pipeline", tiny_pipeline_dir, "-o", output)
    assert corpus.exit_code == 0 and "4 occurrences of 'apple'" in corpus.output, corpus.output
    layers = invoke("plot", "layers", tiny_pipeline_dir, folder, "-o", tmp_path / "l.png", "--min-count", "2")
    assert layers.exit_code == 0, layers.output
    for command in (["word", "--help"], ["layers", "--help"]):  # the help says a directory works
        assert "Corpus file or directory" in " ".join(invoke("plot", *command).output.split())


@pytest.mark.parametrize("command", [["word", "apple", "--sentences", "S"], ["layers", "P", "S"], ["polysemy", "P"]])
def test_plot_output_that_is_a_directory_or_under_a_file(tiny_pipeline_dir, sentences_file, tmp_path, command):
    args = [{"S": sentences_file, "P": tiny_pipeline_dir}.get(a, a) for a in command]
    (tmp_path / "dir.png").mkdir()
    result = invoke("plot", *args, "-o", tmp_path / "dir.png")
    flat = " ".join(result.output.split())  # the message wraps where the temporary path's length puts it
    assert result.exit_code == 1 and "[CTX-E135]" in result.output and "existing directory" in flat
    result = invoke("plot", *args, "-o", sentences_file / "x.png")  # an input of word and layers, not of polysemy
    code, problem = ("E700", "lies inside the input") if "S" in command else ("E135", "is a file")
    assert result.exit_code == 1 and f"[CTX-{code}]" in result.output and problem in " ".join(result.output.split())
    (tmp_path / "other.txt").write_text("x", encoding="utf8")
    result = invoke("plot", *args, "-o", tmp_path / "other.txt" / "x.png")
    assert result.exit_code == 1 and "[CTX-E135]" in result.output and "is a file" in " ".join(result.output.split())
    assert (tmp_path / "dir.png").is_dir() and sentences_file.is_file()


def test_plot_word_non_utf8_sentences_names_the_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"an apple\nun caf\xe9 et une pomme\n")
    result = invoke("plot", "word", "apple", "--sentences", path, "-o", tmp_path / "x.png")
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E133]" in message and "latin1.txt, line 2: not valid UTF-8" in message


@pytest.mark.parametrize("command", ["word", "layers", "polysemy"])
def test_plot_without_matplotlib_names_the_extra_before_any_work(tmp_path, monkeypatch, command):
    """Without the plot extra: one coded line naming it (a rich traceback ending in
    ModuleNotFoundError before), before any input is read or model loaded."""
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "spacy_ctxvec.analysis.plotting", raising=False)  # as in a fresh process
    missing = str(tmp_path / "missing")
    args = {"word": ["bank", "--sentences", missing], "layers": [missing, missing], "polysemy": [missing]}[command]
    result = invoke("plot", command, *args, "-o", str(tmp_path / "out.png"))
    assert result.exit_code == 1 and not (tmp_path / "out.png").exists()
    assert "CTX-E405] The pictures need matplotlib" in result.output and 'spacy-ctxvec[plot]"' in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "command", [["word", "apple", "--sentences", "s.txt"], ["layers", "p", "c.txt"], ["polysemy", "p"]]
)
def test_every_plot_needs_its_output_named(command, tmp_path, monkeypatch):
    """A command writes only where it is told: no default file in the working directory."""
    monkeypatch.chdir(tmp_path)
    result = invoke("plot", *command)
    assert result.exit_code == 2 and "--output" in result.output
    assert list(tmp_path.iterdir()) == []


def test_plot_word_and_layers_read_a_latin1_corpus_with_encoding_or_skip_its_bad_lines(tiny_pipeline_dir, tmp_path):
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes("the café by the bank\nthe bank of the river\nthe bank approved\nthe bank\n".encode("latin-1"))
    word = ["plot", "word", "bank", "--corpus", corpus, "--pipeline", tiny_pipeline_dir, "-o", tmp_path / "w.png"]
    undecoded = invoke(*word)
    message = " ".join(undecoded.output.split())
    assert undecoded.exit_code == 1 and "[CTX-E240]" in message and "latin1.txt, line 1" in message
    assert invoke(*word, "--encoding", "latin-1").exit_code == 0
    with pytest.warns(UserWarning, match=r"\[CTX-W004\].*latin1\.txt:1: \[CTX-E240\]"):  # the command prints it
        skipped = invoke(*word, "--on-error", "skip", "--overwrite")
    assert skipped.exit_code == 0 and "3 occurrences of 'bank'" in skipped.output
    layers = ["plot", "layers", tiny_pipeline_dir, corpus, "-o", tmp_path / "l.png", "--min-count", "2"]
    assert invoke(*layers, "--encoding", "latin-1").exit_code == 0


def test_plot_word_more_clusters_than_occurrences_allowed_is_refused_before_the_pipeline_loads(
    sentences_file, tmp_path
):
    args = ["--sentences", sentences_file, "--pipeline", tmp_path / "nowhere", "-o", tmp_path / "x.png"]
    too_many = invoke("plot", "word", "bank", *args, "-k", "8", "-n", "5")
    message = " ".join(too_many.output.split())
    assert too_many.exit_code == 1 and "[CTX-E412]" in message and "at most --max-occurrences 5); got 8" in message
    assert invoke("plot", "word", "bank", *args, "-k", "-1").exit_code == 2  # below 0: a usage error


def test_plot_word_sentences_refuses_the_corpus_reading_options_and_names_corpus(
    tiny_pipeline_dir, sentences_file, tmp_path
):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(sentences_file.read_text(encoding="utf8").replace("apple", "apple caf\u00e9").encode("latin-1"))
    output = tmp_path / "x.png"
    for options, named in [(["--encoding", "latin-1"], "--encoding"), (["--on-error", "skip"], "--on-error")]:
        result = invoke(
            "plot", "word", "apple", "--sentences", latin1, *options, "--pipeline", tiny_pipeline_dir, "-o", output
        )
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and f"[CTX-E417] {named}: for --corpus files only" in message, result.output
        assert f"--corpus {latin1}" in message and not output.exists()
    other = tmp_path / "latin1.sents"  # --corpus reads files by their ending: .txt named
    other.write_bytes(latin1.read_bytes())
    result = invoke(
        "plot", "word", "apple", "--sentences", other, "--on-error", "skip", "-p", tiny_pipeline_dir, "-o", output
    )
    assert f"--corpus {other}.txt (copied or renamed from {other}" in " ".join(result.output.split())
    corpus = invoke(
        "plot",
        "word",
        "apple",
        "--corpus",
        latin1,
        "--encoding",
        "latin-1",
        "--pipeline",
        tiny_pipeline_dir,
        "-o",
        output,
    )
    assert corpus.exit_code == 0 and "occurrences of 'apple'" in corpus.output, corpus.output


def test_the_polysemy_picture_of_a_small_lexicon_carries_the_caveat_in_its_title():
    """W054 went to stderr only, while the picture (what goes on a slide) said nothing; so did W058."""
    from spacy_ctxvec.analysis.plot_data import PolysemyScores
    from spacy_ctxvec.cli.plot import polysemy_title

    words, scores = ["bank", "river"], np.array([2.0, 1.0])
    small = PolysemyScores(words, scores, "probe", warning="[CTX-W054] ...")
    assert "they are not numbers of senses" in polysemy_title(small, 2, "out/lexicon")
    large = PolysemyScores(words, scores, "probe")
    assert polysemy_title(large, 2, "out/lexicon") == "Polysemy scores (probe) of 2 words (n >= 2) from lexicon"
    german = PolysemyScores(words, scores, "probe", language_warning="[CTX-W058] ...")
    assert "from a probe fitted on English sense counts" in polysemy_title(german, 2, "out/lexicon")
