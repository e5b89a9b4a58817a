"""`spacy-ctxvec senses`: each sense of the words with its share and examples."""

import json

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.sense_induction import induce_inventory

from .test_lexicon_sense_induction import bank_snippets
from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

runner = CliRunner()


def flat(result) -> str:
    """The command's output on one line (wasabi wraps long messages)."""
    return " ".join(result.output.split())


@pytest.fixture(scope="module")
def senses_dir(tmp_path_factory):
    keys, vectors, _, _ = synthetic()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors, snippets=bank_snippets(keys)), min_count=5)
    path = tmp_path_factory.mktemp("senses") / "senses"
    inventory.to_disk(path)
    return path, inventory


def test_json_lists_every_sense_with_share_and_examples(senses_dir):
    path, inventory = senses_dir
    result = runner.invoke(app, ["senses", str(path), "BANK", "w01", "--format", "json"])
    assert result.exit_code == 0, result.output
    bank, w01 = json.loads(result.output)
    assert bank["word"] == "BANK" and bank["key"] == "bank" and bank["n_senses"] == 2 == len(bank["senses"])
    assert [s["sense"] for s in bank["senses"]] == [0, 1]
    assert sum(s["share"] for s in bank["senses"]) == pytest.approx(1.0)
    assert bank["senses"][0]["examples"] == inventory.senses_of("bank")[0].examples
    assert all("[bank]" in example for s in bank["senses"] for example in s["examples"])
    same = runner.invoke(app, ["senses", str(path), "BANK", "w01", "--json"])
    assert same.exit_code == 0 and json.loads(same.output) == [bank, w01]
    assert w01["n_senses"] == 1 and w01["senses"][0]["share"] == 1.0
    assert [s["label"] for s in bank["senses"]] == [s.label for s in inventory.senses_of("bank")]
    assert bank["corpus_polysemy"] == inventory.corpus_polysemy_of("bank") > w01["corpus_polysemy"]
    assert bank["count"] is None  # a senses directory holds no counts
    spaced = runner.invoke(app, ["senses", str(path), " Bank ", "--format", "json"])  # pasted with spaces
    assert spaced.exit_code == 0, spaced.output
    assert json.loads(spaced.output)[0]["key"] == "bank", spaced.output
    blank = runner.invoke(app, ["senses", str(path), " "])
    assert blank.exit_code == 1 and "[CTX-E414] The word to show is only whitespace" in " ".join(blank.output.split())


def test_tsv_and_table(senses_dir):
    path, _ = senses_dir
    tsv = runner.invoke(app, ["senses", str(path), "bank", "--format", "tsv"])
    assert tsv.exit_code == 0, tsv.output
    lines = tsv.output.strip().splitlines()
    header = ["word", "sense", "share", "n_senses", "count", "corpus_polysemy", "examples", "label", "judged"]
    assert lines[0].split("\t") == header
    assert [line.split("\t")[:2] for line in lines[1:]] == [["bank", "0"], ["bank", "1"]]
    assert all(line.split("\t")[3] == "2" and "[bank]" in line.split("\t")[6] for line in lines[1:])
    assert all(line.split("\t")[4] == "" for line in lines[1:])  # a senses directory holds no counts
    evidence = senses_dir[1].corpus_polysemy_of("bank")
    assert all(float(line.split("\t")[5]) == pytest.approx(evidence, abs=1e-4) for line in lines[1:])
    table = runner.invoke(app, ["senses", str(path), "bank"])
    assert table.exit_code == 0 and "bank (bank): 2 senses, corpus_polysemy" in table.output and "50.0%" in table.output
    labels = [s.label for s in senses_dir[1].senses_of("bank")]
    assert all(label and label in table.output for label in labels)
    assert [line.split("\t")[7] for line in lines[1:]] == labels
    # the last line says how the senses were induced, from the inventory's record
    assert table.output.strip().splitlines()[-1] == (
        "Induced: types split where this corpus's evidence says their uses form groups or differ "
        "(split_by_evidence; at least 3 occurrences per sense); clustered on the occurrences' own vectors "
        "(no context vectors in the sample, or context weight 0); at most 7 senses a word."
    )
    assert "Induced" not in tsv.output


def test_unknown_word_missing_senses_and_bad_format_are_coded_errors(senses_dir, tmp_path):
    path, _ = senses_dir
    unknown = runner.invoke(app, ["senses", str(path), "zebra", "rare"])
    assert unknown.exit_code == 1 and "E607" in unknown.output and "'zebra', 'rare'" in unknown.output
    assert "min_count=5" in unknown.output and "no letter" not in unknown.output
    # Punctuation and numbers have no senses by design (words_only): the message says so.
    punctuation = runner.invoke(app, ["senses", str(path), ",", "1848"])
    message = " ".join(punctuation.output.split())
    assert punctuation.exit_code == 1 and "E607" in message
    assert "',', '1848' hold no letter: punctuation, numbers and symbols get no senses (words_only = true" in message
    two_words = runner.invoke(app, ["senses", str(path), "river bank"])
    message = " ".join(two_words.output.split())
    assert two_words.exit_code == 1 and "[CTX-E607]" in message
    assert "'river bank' (is 2 words: senses are of one word each, so give them apart: river bank)" in message
    missing = runner.invoke(app, ["senses", str(tmp_path), "bank"])
    assert missing.exit_code == 1 and "E606" in missing.output
    bad_format = runner.invoke(app, ["senses", str(path), "bank", "--format", "xml"])
    assert bad_format.exit_code == 1 and "E230" in bad_format.output


def test_option_misuse_and_a_missing_path_are_coded_errors_naming_the_fix(senses_dir, tmp_path):
    from spacy_ctxvec.errors import CtxvecError
    from spacy_ctxvec.saved_pipeline import load_senses

    path, _ = senses_dir
    page = tmp_path / "out.html"
    text_alone = runner.invoke(app, ["senses", str(path), "bank", "--text", "We sat on the bank."])
    message = " ".join(text_alone.output.split())
    assert text_alone.exit_code == 1 and "[CTX-E613]" in message and "--text without --html OUTPUT.html" in message
    html_alone = runner.invoke(app, ["senses", str(path), "--html", str(page)])
    message = " ".join(html_alone.output.split())
    assert html_alone.exit_code == 1 and "[CTX-E613]" in message and "--html without --text 'TEXT'" in message
    blanks = (("", "empty:"), ("   ", "empty (whitespace only)"), ("\u200b\u200d\x07", "(no character that shows)"))
    for blank, said in blanks:
        empty = runner.invoke(app, ["senses", str(path), "--html", str(page), "--text", blank])
        message = " ".join(empty.output.split())
        assert empty.exit_code == 1 and "[CTX-E614]" in message and said in message and not page.exists()
    not_utf8 = runner.invoke(app, ["senses", str(path), "--html", str(page), "--text", "bank\udcff is"])
    message = " ".join(not_utf8.output.split())
    assert not_utf8.exit_code == 1 and "[CTX-E418] The --text is not UTF-8" in message and "0xff" in message
    for machine in (["--json"], ["--format", "tsv"]):  # printed the "Wrote ..." line where JSON was expected
        nothing = runner.invoke(app, ["senses", str(path), "--html", str(page), "--text", "The bank.", *machine])
        message = " ".join(nothing.output.split())
        assert nothing.exit_code == 1 and "[CTX-E430]" in message and "Give WORDs" in message and not page.exists()
    all_words = runner.invoke(app, ["senses", str(path), "bank", "--all-words"])
    message = " ".join(all_words.output.split())
    assert all_words.exit_code == 1 and "[CTX-E615]" in message and "only applies with --html" in message
    for args in (["bank"], ["--html", str(page), "--text", "The bank."]):
        missing = runner.invoke(app, ["senses", str(tmp_path / "nosuchdir"), *args])
        message = " ".join(missing.output.split())
        assert missing.exit_code == 1 and "[CTX-E616]" in message and "nosuchdir' does not exist" in message
        assert "E606" not in message and not page.exists()
    with pytest.raises(CtxvecError, match="E616"):
        load_senses(tmp_path / "nosuchdir")


def test_unknown_words_beside_known_ones_are_named_in_one_note(senses_dir):
    path, _ = senses_dir
    result = runner.invoke(app, ["senses", str(path), "bank", "zebra", "w01", "rare"])
    message = " ".join(result.output.split())
    assert result.exit_code == 0 and "bank (bank): 2 senses" in message and "w01 (w01): 1 sense" in message
    assert "[CTX-W032]" in message and "'zebra', 'rare'" in message and "E607" not in message
    # The note goes to stderr: the JSON on stdout stays parseable and lists the known words.
    as_json = runner.invoke(app, ["senses", str(path), "bank", "zebra", "--format", "json"])
    assert as_json.exit_code == 0 and [e["word"] for e in json.loads(as_json.stdout)] == ["bank"]
    assert "[CTX-W032]" in as_json.stderr and "'zebra'" in as_json.stderr


def test_the_table_stays_in_line_for_any_label_and_lists_each_word_once(senses_dir):
    from spacy_ctxvec.cli.word_senses import render

    long_label = "l" * 31
    example = "a long example snippet, well past thirty characters, about the [x] of it"
    entry = {"word": "x", "key": "x", "n_senses": 2, "corpus_polysemy": 1.0}
    entry["senses"] = [
        {"sense": 0, "label": long_label, "share": 0.6, "examples": ["a [x]", example]},
        {"sense": 1, "label": "short", "share": 0.4, "examples": ["b [x] c"]},
    ]
    lines = render([entry], "table").splitlines()
    header = next(line for line in lines if line.startswith("sense"))
    rows = lines[lines.index(header) :]
    share_end = header.index("share") + len("share")
    assert rows[1].split() == ["-" * 5, "-" * 31, "-" * 5, "-" * len(example)]
    assert rows[2][share_end - 5 : share_end] == "60.0%" and rows[4][share_end - 5 : share_end] == "40.0%"
    assert rows[2].index("a [x]") == rows[3].index(example) == header.index("examples")
    assert long_label in rows[2] and all(line == line.rstrip() for line in lines)
    path, _ = senses_dir
    twice = runner.invoke(app, ["senses", str(path), "Bank", "bank", "BANK", "zebra", "Zebra", "--format", "json"])
    assert [e["word"] for e in json.loads(twice.stdout)] == ["Bank"]  # one key, its first spelling
    assert "'zebra'" in twice.stderr and "'Zebra'" not in twice.stderr
    table = runner.invoke(app, ["senses", str(path), "bank", "Bank"]).output
    assert table.count("(bank): 2 senses") == 1 and all(line == line.rstrip() for line in table.splitlines())


def test_the_table_lines_up_cjk_labels_and_emoji_examples():
    """A CJK label and an emoji in an example take two terminal cells a character: the
    columns are padded by display width, so the share and the examples start where their
    headers do."""
    from spacy_ctxvec.cli.word_senses import render

    entry = {"word": "银行", "key": "银行", "n_senses": 2, "corpus_polysemy": 1.0}
    entry["senses"] = [
        {"sense": 0, "label": "河岸 水", "share": 0.6, "examples": ["在 [银行] 存钱 🍎", "b [银行]"]},
        {"sense": 1, "label": "money", "share": 0.4, "examples": ["c [银行] d"]},
    ]
    lines = render([entry], "table").splitlines()
    assert lines[lines.index("sense   label     share   examples") :] == [
        "sense   label     share   examples",
        "-----   -------   -----   -----------------",
        "    0   河岸 水   60.0%   在 [银行] 存钱 🍎",
        "                          b [银行]",
        "    1   money     40.0%   c [银行] d",
    ]


def test_a_word_without_corpus_polysemy_says_why():
    from spacy_ctxvec.cli.word_senses import NO_EVIDENCE, render

    entry = {"word": "x", "key": "x", "n_senses": 1, "corpus_polysemy": None, "no_corpus_polysemy": NO_EVIDENCE}
    entry["senses"] = [{"sense": 0, "label": "", "share": 1.0, "examples": ["a [x] b"]}]
    table = render([entry], "table")
    assert "x (x): 1 sense, no corpus_polysemy (too few sampled occurrences: at least 2 x min_support" in table
    assert render([entry], "tsv").splitlines()[1].split("\t")[4:6] == ["", ""]
    entry["corpus_polysemy"] = -0.00002  # printed "-0.00" (a sign on nothing)
    assert "1 sense, corpus_polysemy 0.00" in render([entry], "table")
    assert render([entry], "tsv").splitlines()[1].split("\t")[5] == "0.0000"


def test_json_says_why_a_word_has_no_corpus_polysemy(tmp_path):
    import numpy as np

    keys, vectors, _, _ = synthetic()
    keys = [*keys, *["echo"] * 6]  # six occurrences of one repeated line: one distinct passage, nothing to judge
    vectors = np.vstack([vectors, np.ones((6, vectors.shape[1]))])
    snippets = [*bank_snippets(keys[:-6]), *["the same line [echo] again"] * 6]
    inventory = induce_inventory(lexicon_with_sample(keys, vectors, snippets=snippets), min_count=5)
    inventory.to_disk(tmp_path / "senses")
    result = runner.invoke(app, ["senses", str(tmp_path / "senses"), "echo", "bank", "--format", "json"])
    echo, bank = json.loads(result.output)
    assert echo["corpus_polysemy"] is None and echo["no_corpus_polysemy"].startswith("no corpus_polysemy (too few")
    assert bank["corpus_polysemy"] is not None and bank["no_corpus_polysemy"] is None


def test_senses_saved_before_corpus_polysemy_was_kept_say_so_not_too_few_occurrences(tmp_path):
    keys, vectors, _, _ = synthetic()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors, snippets=bank_snippets(keys)), min_count=5)
    inventory.corpus_polysemy = None  # as saved before it was kept (the file is absent: it loads as None)
    inventory.to_disk(tmp_path / "senses")
    assert not (tmp_path / "senses" / "corpus_polysemy.npy").exists()
    table = runner.invoke(app, ["senses", str(tmp_path / "senses"), "bank"])
    assert table.exit_code == 0, table.output
    assert "no corpus_polysemy (these senses were saved before it was kept: build the lexicon again" in flat(table)
    assert "too few sampled occurrences" not in table.output


def test_a_pipelines_senses_say_how_often_the_word_was_seen(tiny_bert_dir, tmp_path):
    """From a pipeline, each word's count in the corpus (its lexicon's) beside its senses;
    a senses directory holds no counts and shows none."""
    from spacy_ctxvec.saved_pipeline import load_lexicon

    from .test_evaluation_tasks import build_sense_nlp

    build_sense_nlp(tiny_bert_dir).to_disk(tmp_path / "pipeline")
    lexicon = load_lexicon(tmp_path / "pipeline")
    count = int(lexicon.counts[lexicon.index("bank")])
    (entry,) = json.loads(runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "--format", "json"]).output)
    assert entry["count"] == count > 0
    assert f"seen {count} times" in runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank"]).output
    unknown = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "river", "zebra"])
    note = " ".join(unknown.output.split())  # stderr is mixed in: the W032 note names each word's count
    assert unknown.exit_code == 0 and "W032" in note
    zebra = "'zebra' (not in the corpus, or never with a contextual vector)"
    assert f"'river' (seen once, under min_count 3), {zebra} in" in note
    hashtag = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "#zebra"])
    split = "'#zebra' (not in the corpus, or never with a contextual vector; spaCy splits it into '#' + 'zebra'"
    assert split in " ".join(hashtag.output.split())
    config = tmp_path / "pipeline" / "config.cfg"  # the note tokenizes as the pipeline's language does
    assert "'z.' + 'B.'" in flat(runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "z.B."]))
    config.write_text(config.read_text().replace('lang = "en"', 'lang = "de"'))
    german = flat(runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "z.B."]))
    assert "'z.B.' (not in the corpus, or never with a contextual vector) in" in german
    assert "or without sampled occurrences" not in note  # not the list of every possible reason
    missing = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "river"])
    assert missing.exit_code == 1 and "E607" in missing.output and "'river' (seen once, under" in flat(missing)
    tsv = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "--format", "tsv"]).output.splitlines()
    assert tsv[0].split("\t")[4] == "count" and all(line.split("\t")[4] == str(count) for line in tsv[1:])


def test_a_word_above_the_split_threshold_with_one_sense_says_why(senses_dir):
    """corpus_polysemy above every threshold of the evidence rule but one sense: the
    table says that no cut left two groups of min_support occurrences."""
    from spacy_ctxvec.cli.word_senses import HIGHEST_SPLIT_THRESHOLD, one_sense_note, render

    _, inventory = senses_dir
    assert inventory.settings["split_rule"] == "evidence"
    note = one_sense_note(inventory, 1, HIGHEST_SPLIT_THRESHOLD + 3.0)
    assert note is not None and f"min_support ({inventory.settings['min_support']})" in note
    assert one_sense_note(inventory, 2, HIGHEST_SPLIT_THRESHOLD + 3.0) is None  # it did split
    assert one_sense_note(inventory, 1, HIGHEST_SPLIT_THRESHOLD - 0.1) is None  # maybe below its own n's threshold
    assert one_sense_note(inventory, 1, None) is None
    assert one_sense_note(inventory, 1, 0.5, threshold=0.4) is not None  # above its own stored threshold
    assert one_sense_note(inventory, 1, 0.5, threshold=0.6) is None
    entry = {"word": "bank", "key": "bank", "n_senses": 1, "corpus_polysemy": 4.26, "note": note}
    entry["senses"] = [{"sense": 0, "label": "river", "share": 1.0, "examples": ["a [bank] b"]}]
    lines = render([entry], "table").splitlines()
    assert lines[0] == "bank (bank): 1 sense, corpus_polysemy 4.26" and lines[1] == note
    split = json.loads(runner.invoke(app, ["senses", str(senses_dir[0]), "bank", "--format", "json"]).stdout)
    assert split[0]["n_senses"] == 2 and split[0]["note"] is None
    judged, threshold = inventory.evidence_of("bank")
    assert (split[0]["judged"], split[0]["split_threshold"]) == (judged, threshold) and judged >= 6
    table = runner.invoke(app, ["senses", str(senses_dir[0]), "bank"]).stdout.splitlines()[0]
    assert f"(splits above {threshold:.2f}; {judged} distinct occurrences judged)" in table


def test_tsv_reads_back_with_the_csv_module_when_a_cell_holds_quotes():
    """An example that starts with a quote (Gutenberg dialogue) is quoted as csv quotes it,
    so a TSV reader gets the example back as written, quotes and all."""
    import csv
    import io

    from spacy_ctxvec.cli.word_senses import render

    example = '"clam," said the [word] to me'
    entry = {"word": "word", "key": "word", "n_senses": 1, "corpus_polysemy": None, "count": 7}
    entry["senses"] = [{"sense": 0, "label": 'said "clam', "share": 1.0, "examples": [example, "a [word] b"]}]
    rows = list(csv.reader(io.StringIO(render([entry], "tsv")), delimiter="\t"))
    assert rows[1] == ["word", "0", "1.0000", "1", "7", "", f"{example} | a [word] b", 'said "clam', ""]


def test_the_footer_names_each_split_rule_in_words():
    from spacy_ctxvec.cli.word_senses import induction_footer

    probe = {"split_rule": "probe", "split_senses": 1.5, "split_thresholds": [[4, 0.1]], "max_senses": 7}
    assert induction_footer(probe, "table") == (
        "\nInduced: types split where the polysemy probe estimates more than 1.50 senses; clustered on the "
        "occurrences' own vectors (no context vectors in the sample, or context weight 0); at most 7 senses a word."
    )
    spread = {"split_rule": "spread", "split_threshold": 0.3, "context_window": 5, "context_weight": 1.0}
    assert induction_footer(spread, "table").startswith(
        "\nInduced: types split where their sample's spread exceeds the threshold (split threshold 0.3 at every "
        "sample size); clustered on each occurrence joined to the mean vector of the 5 tokens either side"
    )
    assert induction_footer(spread, "json") == ""


def test_the_split_note_is_left_out_where_the_languages_tokenizer_needs_a_missing_package():
    """A Korean pipeline's senses printed, then ended in an ImportError (mecab-ko) from the note."""
    import importlib.util

    from spacy_ctxvec.cli.word_senses import _split_note

    if importlib.util.find_spec("natto") is not None or importlib.util.find_spec("mecab") is not None:
        pytest.skip("Korean's tokenizer package is installed")
    assert _split_note("#bank", "ko") == "" and "'#' + 'bank'" in _split_note("#bank", "en")
