"""`spacy-ctxvec train-static`: gensim word2vec on a line corpus, written as word2vec files."""

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec import load_static_vectors
from spacy_ctxvec.cli import app
from spacy_ctxvec.static.formats import detect_format

runner = CliRunner()


def train(*args):
    return runner.invoke(app, ["train-static", *map(str, args)])


def test_train_static_text_output(tmp_path, train_corpus):
    output = tmp_path / "out" / "vectors.txt"
    result = train(train_corpus, output, "--size", 12, "--min-count", 2, "--epochs", 2, "--workers", 1)
    assert result.exit_code == 0, result.output
    # progress on stderr: stdout holds the result line only, for scripts
    assert "Epoch 1/2" in result.stderr and "Epoch 2/2" in result.stderr and "words with count >= 2" in result.stderr
    assert "Epoch" not in result.stdout and "Wrote" in result.stdout
    assert detect_format(output) == "word2vec"
    table = load_static_vectors(output)
    assert table.dim == 12
    assert {"bank", "river", "loan", "the"} <= set(table.keys)
    assert "Bank" not in table.keys and "bank," not in table.keys
    assert np.isfinite(table.vectors).all()


def test_spacy_tokens_are_the_strings_ctxvec_static_looks_up(tmp_path):
    """--tokens spacy: spaCy's tokens lower-cased ("mr.", "n't", ","), so a pipeline's
    ctxvec_static finds them by `lower`; the default drops them ("mr", "t")."""
    import spacy

    corpus = tmp_path / "emma.txt"
    corpus.write_text("Mr. Knightley didn't come, said Emma's father.\n" * 5, encoding="utf8")
    result = train(corpus, tmp_path / "spacy.txt", "--tokens", "spacy", "--min-count", 1, "--workers", 1, "--size", 4)
    assert result.exit_code == 0, result.output
    keys = set(load_static_vectors(tmp_path / "spacy.txt").keys)
    assert {"mr.", "did", "n't", ",", "'s", "emma"} <= keys and "Mr." not in keys
    assert train(corpus, tmp_path / "simple.txt", "--min-count", 1, "--workers", 1, "--size", 4).exit_code == 0
    assert {"mr", "didn", "t", "s"} <= set(load_static_vectors(tmp_path / "simple.txt").keys)
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    source = {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(tmp_path / "spacy.txt")}
    nlp.config["initialize"]["components"]["ctxvec_static"] = {"source": source}
    nlp.initialize()
    doc = nlp("Mr. Knightley didn't come, said Emma's father.")
    assert all(token._.has_static_vec for token in doc)
    wrong = train(corpus, tmp_path / "x.txt", "--tokens", "nltk")
    assert wrong.exit_code == 1 and "[CTX-E235]" in wrong.output and not (tmp_path / "x.txt").exists()


def test_spacy_tokens_of_another_language_and_unsplit_chinese(tmp_path):
    """--tokens spacy used English tokens for any text: a French pipeline's "l'" and "eau" were
    not keys ("l'eau" was). Chinese under the default tokens was clauses, with no warning."""
    import spacy

    french = tmp_path / "fr.txt"
    french.write_text("J'aime l'eau de la rivière.\n" * 5, encoding="utf8")
    args = ("--tokens", "spacy", "--min-count", 1, "--workers", 1, "--size", 4)
    assert train(french, tmp_path / "fr_vec.txt", *args, "--lang", "fr").exit_code == 0
    keys = set(load_static_vectors(tmp_path / "fr_vec.txt").keys)
    assert {token.lower_ for token in spacy.blank("fr")("J'aime l'eau de la rivière.")} <= keys
    assert "l'" in keys and "eau" in keys and "l'eau" not in keys
    unknown = train(french, tmp_path / "zz.txt", *args, "--lang", "zz")
    assert unknown.exit_code == 1 and "[CTX-E143] --lang 'zz'" in " ".join(unknown.output.split())
    chinese = tmp_path / "zh.txt"
    chinese.write_text("我喜欢吃苹果。\n苹果手机很贵。\n妈妈买了很多苹果。\n", encoding="utf8")
    clauses = train(chinese, tmp_path / "zh.txt.vec", "--min-count", 1, "--workers", 1, "--size", 4)
    said = " ".join(clauses.output.split())
    assert clauses.exit_code == 0 and "[CTX-W072] 3 of the 3 word types" in said and "--tokens spacy --lang zh" in said
    words = train(chinese, tmp_path / "zh_words.vec", *args, "--lang", "zh")
    assert words.exit_code == 0 and "W072" not in words.output
    assert "苹" in load_static_vectors(tmp_path / "zh_words.vec").keys  # spaCy's default Chinese: characters


@pytest.mark.parametrize("tokens", ["spacy", "simple"])
def test_a_docbin_or_words_corpus_gives_the_words_of_the_same_text_file(tmp_path, tokens):
    """--tokens spacy on a DocBin read every token as "" (a bare Vocab has no LOWER): one vector."""
    import spacy
    import srsly
    from spacy.tokens import DocBin

    lines = ["Mr. Knightley didn't come, said Emma's father."] * 5
    (tmp_path / "emma.txt").write_text("\n".join(lines) + "\n", encoding="utf8")
    nlp = spacy.blank("en")
    DocBin(docs=[nlp(line) for line in lines]).to_disk(tmp_path / "emma.spacy")
    srsly.write_jsonl(tmp_path / "emma.jsonl", [{"words": [t.text for t in nlp(line)]} for line in lines])
    trained = {}
    for name in ("emma.txt", "emma.spacy", "emma.jsonl"):
        output = tmp_path / f"{name}.vectors.txt"
        result = train(tmp_path / name, output, "--tokens", tokens, "--min-count", 1, "--workers", 1, "--size", 4)
        assert result.exit_code == 0, result.output
        trained[name] = set(load_static_vectors(output).keys)
    assert trained["emma.txt"] == trained["emma.spacy"]
    assert "emma" in trained["emma.txt"] and "" not in trained["emma.spacy"]
    if tokens == "spacy":  # the same tokens; "simple" reads the words' text, joined with spaces ("did n't")
        assert trained["emma.jsonl"] == trained["emma.txt"]


def test_train_static_cbow_binary(tmp_path, train_corpus):
    output = tmp_path / "vectors.bin"
    result = train(
        train_corpus, output, "--cbow", "--binary", "--size", 8, "--min-count", 1, "--epochs", 1, "--window", 2
    )
    assert result.exit_code == 0, result.output
    assert "binary" in result.output
    assert detect_format(output) == "word2vec-binary"
    table = load_static_vectors(output)
    assert table.dim == 8 and "apple" in table


def test_a_bin_output_without_binary_is_refused_before_training(tmp_path, train_corpus):
    result = train(train_corpus, tmp_path / "vectors.bin", "--size", 8, "--min-count", 1, "--epochs", 1)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E420]" in message and "train-static writes word2vec text" in message
    assert not (tmp_path / "vectors.bin").exists()
    result = train(train_corpus, tmp_path / "vectors.vec", "--binary", "--size", 8, "--min-count", 1, "--epochs", 1)
    message = " ".join(result.output.split())
    assert (
        result.exit_code == 1 and "[CTX-E425]" in message and "train-static --binary writes word2vec binary" in message
    )
    assert not (tmp_path / "vectors.vec").exists()


def test_a_size_no_reader_takes_is_refused_before_training(tmp_path, train_corpus):
    """--size 70000 wrote a file that load_static_vectors refuses (E132: at most 65,536)."""
    result = train(train_corpus, tmp_path / "vectors.txt", "--size", 70000, "--min-count", 1, "--epochs", 1)
    message = " ".join(result.output.split())  # Click's range wording changed with typer 0.29
    assert result.exit_code == 2 and "'--size'" in message and "65536" in message
    assert not (tmp_path / "vectors.txt").exists()


def test_a_corpus_whose_every_line_was_skipped_says_so_not_just_no_documents(tmp_path):
    """With --on-error skip the skip report (W004/W005) prints after reading; a corpus left
    with nothing ended the command first, so E211's "no documents" hid why (a Latin-1 file)."""
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\u00e9 au lait\n\nna\u00efve\n".encode("latin-1"))
    result = train(latin, tmp_path / "v.txt", "--on-error", "skip", "--min-count", "1")
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E276]" in message and "2 lines with text, all skipped" in message
    assert "latin.txt:1: [CTX-E240] not valid utf-8 text" in message and "--encoding" in message
    assert not (tmp_path / "v.txt").exists()


def test_missing_empty_and_too_rare_corpus(tmp_path, train_corpus):
    result = train(tmp_path / "missing.txt", tmp_path / "v.txt")
    assert result.exit_code == 1 and "E210" in result.output and "missing.txt" in result.output
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n\n", encoding="utf8")
    result = train(empty, tmp_path / "v.txt")
    assert result.exit_code == 1 and "E211" in result.output and "empty.txt" in result.output
    punctuation = tmp_path / "punctuation.txt"
    punctuation.write_text("\n ... !!\n,,,\n", encoding="utf8")
    result = train(punctuation, tmp_path / "v.txt")  # lines, but no word: not "contains no documents"
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E236]" in message and "has 2 documents but no word" in message
    result = train(train_corpus, tmp_path / "v.txt", "--min-count", 1000)
    assert result.exit_code == 1 and "E122" in result.output
    assert not (tmp_path / "v.txt").exists()


def test_output_that_is_a_directory_or_under_a_file(tmp_path, train_corpus):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep", encoding="utf8")
    result = train(train_corpus, tmp_path / "taken", "--min-count", 1, "--epochs", 1)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E135]" in message and "existing directory" in message
    result = train(train_corpus, train_corpus / "v.txt", "--min-count", 1, "--epochs", 1)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E700]" in message and "lies inside the input CORPUS" in message
    (tmp_path / "other.txt").write_text("x", encoding="utf8")
    result = train(train_corpus, tmp_path / "other.txt" / "v.txt", "--min-count", 1, "--epochs", 1)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E135]" in message and "is a file" in message
    assert (tmp_path / "taken" / "mine.txt").read_text(encoding="utf8") == "keep" and train_corpus.is_file()


def test_output_equal_to_the_corpus_is_refused_and_the_corpus_survives(tmp_path, train_corpus):
    before = train_corpus.read_bytes()
    for output in (train_corpus, tmp_path / "." / train_corpus.name):
        result = train(train_corpus, output, "--min-count", 1, "--epochs", 1)
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and "[CTX-E700]" in message and "the input CORPUS" in message
    result = train(tmp_path, tmp_path / "vectors.txt", "--min-count", 1, "--epochs", 1)  # inside a corpus directory
    assert result.exit_code == 1 and "[CTX-E700]" in result.output
    assert train_corpus.read_bytes() == before and not (tmp_path / "vectors.txt").exists()


def test_train_on_gutenberg_slice(tmp_path, shared_data):
    source = shared_data / "corpus_gutenberg" / "austen-emma.txt"
    if not source.exists():
        pytest.skip(f"{source} not present")
    with source.open(encoding="utf8") as handle:
        lines = [next(handle, "") for _ in range(2000)]
    corpus = tmp_path / "emma_slice.txt"
    corpus.write_text("".join(lines), encoding="utf8")
    output = tmp_path / "emma.txt"
    result = train(corpus, output, "--size", 24, "--min-count", 3, "--epochs", 1, "--workers", 1)
    assert result.exit_code == 0, result.output
    table = load_static_vectors(output)
    assert "emma" in table and "woodhouse" in table and len(table) > 500


def test_train_static_reads_other_encodings_and_skips_bad_lines_as_the_error_says(tmp_path, train_corpus):
    """A latin-1 corpus: E240 names --encoding and --on-error skip, and both options exist
    here as in build-lexicon."""
    text = train_corpus.read_text(encoding="utf8") + "the caf\u00e9 by the river bank\n"
    latin = tmp_path / "latin.txt"
    latin.write_bytes(text.encode("latin-1"))
    failed = train(latin, tmp_path / "a.txt", "--size", 8, "--min-count", 1, "--epochs", 1)
    assert failed.exit_code == 1 and "E240" in failed.output and "--encoding" in failed.output
    decoded = train(latin, tmp_path / "b.txt", "--size", 8, "--min-count", 1, "--epochs", 1, "--encoding", "latin-1")
    assert decoded.exit_code == 0, decoded.output
    assert "café" in load_static_vectors(tmp_path / "b.txt")
    with pytest.warns(UserWarning) as said:  # the skip report: warnings, filtered as any (PYTHONWARNINGS)
        skipped = train(latin, tmp_path / "c.txt", "--size", 8, "--min-count", 1, "--epochs", 1, "--on-error", "skip")
    report = " ".join(str(warning.message) for warning in said)
    assert skipped.exit_code == 0 and "[CTX-W004]" in report and "Skipped 1 invalid line " in report
    assert "café" not in load_static_vectors(tmp_path / "c.txt") and "bank" in load_static_vectors(tmp_path / "c.txt")
    bad = train(latin, tmp_path / "d.txt", "--on-error", "ignore")
    assert bad.exit_code == 1 and "E215" in bad.output


def test_the_skip_report_obeys_the_warnings_filters(tmp_path):
    """W004/W005 were printed past PYTHONWARNINGS (build-lexicon's went through the filters)."""
    import os
    import subprocess
    import sys

    corpus = tmp_path / "mixed.txt"
    corpus.write_bytes(b"the bank of the river\ncaf\xe9 au lait\nthe bank lent money\n")
    command = [sys.executable, "-m", "spacy_ctxvec", "train-static", str(corpus), str(tmp_path / "v.txt")]
    command += ["--on-error", "skip", "--min-count", "1", "--size", "8", "--epochs", "1"]
    shown = subprocess.run(command, capture_output=True, text=True, encoding="utf8")
    assert shown.returncode == 0 and "[CTX-W004]" in shown.stderr and "[CTX-W005]" in shown.stderr, shown.stderr
    environment = {**os.environ, "PYTHONWARNINGS": "ignore:[CTX-W004],ignore:[CTX-W005]"}
    quiet = subprocess.run([*command, "--overwrite"], capture_output=True, text=True, encoding="utf8", env=environment)
    assert quiet.returncode == 0 and "W004" not in quiet.stderr and "W005" not in quiet.stderr, quiet.stderr
