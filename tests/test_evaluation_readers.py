import shlex
import subprocess
import warnings

import numpy as np
import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.evaluation.readers import (
    read_scws,
    read_sense_counts,
    read_wic,
    read_word_pair_files,
    read_word_pairs,
)
from spacy_ctxvec.evaluation.sense_sentences import read_sense_sentences

WIC_DATA = (
    "carry\tV\t2-1\tYou must carry your camping gear .\tSound carries well over water .\n"
    "bank\tN\t0-4\tbank of the river\tI went to the bank\n"
)


def write(path, text):
    path.write_text(text, encoding="utf8")
    return path


def wic_dir(tmp_path, data=WIC_DATA, gold="F\nT\n", split="train"):
    write(tmp_path / f"{split}.data.txt", data)
    write(tmp_path / f"{split}.gold.txt", gold)
    return tmp_path


def test_read_wic_fields(tmp_path):
    data = read_wic(wic_dir(tmp_path), "train")
    assert data.targets == ["carry", "bank"]
    assert data.pos == ["V", "N"]
    assert data.words1[0][data.index1[0]] == "carry"
    assert data.words2[0][data.index2[0]] == "carries"
    assert data.words2[1][data.index2[1]] == "bank"
    assert data.labels.tolist() == [False, True]
    assert len(data.head(1)) == 1


def test_read_wic_reads_the_official_zips_folders(tmp_path):
    """WiC_dataset.zip unpacks into train/, dev/ and test/: every folder given was E301."""
    for split in ("train", "dev"):
        (tmp_path / split).mkdir()
        wic_dir(tmp_path / split, split=split)
    assert read_wic(tmp_path, "train").targets == read_wic(tmp_path, "dev").targets == ["carry", "bank"]
    with pytest.raises(CtxvecError, match=r"\[CTX-E301\].*or a folder test/ holding them \(as WiC_dataset.zip"):
        read_wic(tmp_path, "test")


def test_read_wic_missing_file_is_named(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E301\].*test\.data\.txt"):
        read_wic(wic_dir(tmp_path), "test")
    with pytest.raises(CtxvecError, match=r"\[CTX-E308\]"):
        read_wic(tmp_path, "validation")


def test_read_wic_malformed_line_has_line_number(tmp_path):
    bad = WIC_DATA + "go\tV\t2\tGo home\tGo away\n"
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 3"):
        read_wic(wic_dir(tmp_path, bad, "F\nT\nT\n"), "train")


def test_read_wic_index_out_of_range(tmp_path):
    bad = "go\tV\t1-7\tGo home\tGo away\n"
    with pytest.raises(CtxvecError, match=r"\[CTX-E303\].*line 1.*index 7.*sentence 2"):
        read_wic(wic_dir(tmp_path, bad, "T\n"), "train")


def test_read_wic_gold_problems(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 2.*T or F \(or true/false, 1/0\)"):
        read_wic(wic_dir(tmp_path, gold="F\nyes\n"), "train")
    # other copies' spellings (SuperGLUE's true/false, 1/0) were E302 on every line in turn
    for gold in ("false\ntrue\n", "False\nTrue\n", "0\n1\n", "f\nt\n"):
        assert read_wic(wic_dir(tmp_path, gold=gold), "train").labels.tolist() == [False, True]
    trailing_tabs = WIC_DATA.replace("\n", "\t\n")  # a spreadsheet's export: E302 on line 1
    assert read_wic(wic_dir(tmp_path, data=trailing_tabs), "train").targets == ["carry", "bank"]
    superglue = tmp_path / "superglue"
    superglue.mkdir()
    (superglue / "val.jsonl").write_text('{"word": "bank"}\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E301.*SuperGLUE's WiC \(\.jsonl\), another format"):
        read_wic(superglue, "dev")
    with pytest.raises(CtxvecError, match=r"\[CTX-E304\].*1 labels.*2 examples"):
        read_wic(wic_dir(tmp_path, gold="F\n"), "train")


def test_read_word_pairs_layouts(tmp_path):
    plain = read_word_pairs(write(tmp_path / "rg.txt", "gem\tjewel\t3.94\r\nmidday noon 3.5\n"))
    assert plain.words1 == ["gem", "midday"] and plain.scores.tolist() == [3.94, 3.5]
    csv = read_word_pairs(write(tmp_path / "ws.csv", "Word 1,Word 2,Human (mean)\r\nlove,sex,6.77\r\n"))
    assert csv.words2 == ["sex"] and csv.scores.tolist() == [6.77]
    simlex = read_word_pairs(
        write(
            tmp_path / "simlex.txt",
            "word1\tword2\tPOS\tSimLex999\tconc(w1)\nold\tnew\tA\t1.58\t2.72\nsmart\tintelligent\tA\t9.2\t1.75\n",
        )
    )
    assert simlex.scores.tolist() == [1.58, 9.2]
    simverb = read_word_pairs(write(tmp_path / "simverb.txt", "take\tremove\tV\t6.81\tSYNONYMS\n"))
    assert simverb.scores.tolist() == [6.81]


def test_read_word_pairs_errors(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 2"):
        read_word_pairs(write(tmp_path / "bad.txt", "a b 1.0\nc d high\n"))
    with pytest.raises(CtxvecError, match=r"\[CTX-E305\]"):
        read_word_pairs(write(tmp_path / "empty.txt", "\n\n"))
    with pytest.raises(CtxvecError, match=r"\[CTX-E301\] File not found: .*nowhere\.txt"):
        read_word_pairs(tmp_path / "nowhere.txt")
    (tmp_path / "pairs").mkdir()
    with pytest.raises(CtxvecError, match=r"\[CTX-E301\] A directory, not a file: .*pairs"):
        read_word_pairs(tmp_path / "pairs")
    with pytest.raises(CtxvecError, match=r"\[CTX-E301\] A directory, not a file: '\.'\. Give"):
        read_word_pairs(".")  # was "... a file: .. Give"
    (tmp_path / "base.tsv").write_text("gem\tjewel\t3.9\n", encoding="utf8")
    not_a_directory = r"\[CTX-E301\] A file, not a WiC data directory: .*base\.tsv.*\(as WiC_dataset\.zip unpacks\)\.$"
    with pytest.raises(CtxvecError, match=not_a_directory):  # no word of the test split for dev
        read_wic(tmp_path / "base.tsv", "dev")
    # the arguments swapped (`evaluate wic wic/ default.cfg`): a pipeline where the data should be
    swapped = r"E301\] A file, not a WiC data directory: .*default\.cfg.*pipeline comes first, then the WiC data"
    with pytest.raises(CtxvecError, match=swapped):
        read_wic(write(tmp_path / "default.cfg", "[nlp]\n"), "dev")
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "config.cfg").write_text("[nlp]\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E301.*dev\.data\.txt.*pipeline comes first, then the WiC data"):
        read_wic(tmp_path / "saved", "dev")


def test_read_scws_marks_targets(tmp_path):
    line = "1\tBrazil\tn\tnut\tn\tin <b> Brazil </b> the\tA <b> nut </b> .\t1.1\t" + "\t".join(["1"] * 9 + ["2"]) + "\n"
    pairs = read_scws(write(tmp_path / "ratings.txt", line))
    assert pairs.words1[0] == ["in", "Brazil", "the"] and pairs.index1[0] == 1
    assert pairs.words2[0][pairs.index2[0]] == "nut"
    assert pairs.scores.tolist() == [1.1]
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 2.*; context 6 does not mark its target"):
        read_scws(write(tmp_path / "bad.txt", line + line.replace("<b>", "")))
    # each row's own fault is named (one message for all of them left a NaN rating to guess at)
    with pytest.raises(CtxvecError, match=r"E302.*line 2.*; the average rating 'NaN' is not a finite number"):
        read_scws(write(tmp_path / "nan.txt", line + line.replace("\t1.1\t", "\tNaN\t")))
    with pytest.raises(CtxvecError, match=r"E302.*line 1.*; this row has 7 field\(s\)"):
        read_scws(write(tmp_path / "short.txt", "\t".join(line.split("\t")[:7]) + "\n"))
    with pytest.raises(CtxvecError, match=r"E302.*; context 7 does not mark its target"):
        read_scws(write(tmp_path / "seven.txt", line.replace("<b> nut </b>", "nut")))


def test_read_scws_refuses_an_average_that_is_not_the_mean_of_the_ratings(tmp_path):
    """With the average moved after the ratings, one annotator's rating was read as the score, silently."""
    ratings = ["5", "2", "0", "1", "0", "0", "1", "0", "0", "0"]
    head = "1\tBrazil\tn\tnut\tn\tin <b> Brazil </b> the\tA <b> nut </b> ."
    moved = head + "\t" + "\t".join(ratings) + "\t0.9\n"  # 18 fields, the average last
    with pytest.raises(CtxvecError, match=r"E302.*line 1.*field 8 holds 5 but the 10 ratings in fields 9-18 average"):
        read_scws(write(tmp_path / "moved.txt", moved))
    as_distributed = head + "\t0.9\t" + "\t".join(ratings) + "\n"
    assert read_scws(write(tmp_path / "ratings.txt", as_distributed)).scores.tolist() == [0.9]
    # the average as rounded where it was written: to whole numbers, or with a trailing tab after the ratings
    for average, tail in (("1", ""), ("0.90", "\t"), ("0.9", "\t\t")):
        row = head + f"\t{average}\t" + "\t".join(ratings) + tail + "\n"
        assert read_scws(write(tmp_path / "rounded.txt", row)).scores.tolist() == [float(average)]
    wrong = head + "\t0.35\t" + "\t".join(ratings[1:5]) + "\t\n"  # mean 0.75 of 4 ratings, a trailing tab
    with pytest.raises(CtxvecError, match=r"field 8 holds 0.35 but the 4 ratings in fields 9-12 average 0.75"):
        read_scws(write(tmp_path / "four.txt", wrong))


def test_read_sense_counts(tmp_path):
    counts = read_sense_counts(write(tmp_path / "s.tsv", "lemma\ttotal\tn\nbank\t18\t10\nbank account\t1\t1\n"))
    assert counts == {"bank": 18, "bank account": 1}
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 3") as caught:
        read_sense_counts(write(tmp_path / "bad.tsv", "lemma\ttotal\nbank\t18\nrun\tmany\n"))
    assert "word pair" not in str(caught.value)
    # a word-sim file given as sense counts: its rows are named for what they are
    with pytest.raises(CtxvecError, match=r"E302.*line 2.*looks like a word pair and its score.*evaluate word-sim"):
        read_sense_counts(write(tmp_path / "pairs.txt", "word1\tword2\tscore\nold\tnew\t1.58\n"))


def test_real_shared_files(shared_data):
    train = read_wic(shared_data / "wic", "train")
    assert len(train) == 5428 and train.labels.sum() == 2714
    assert len(read_wic(shared_data / "wic", "dev")) == 638
    expected = {
        "simlex999/SimLex-999.txt": 999,
        "simlex999/EN-SIMLEX-999.txt": 999,
        "wordsim353/combined.csv": 353,
        "wordsim353/combined.tab": 353,
        "wordsim353/set1.tab": 153,
        "wordsim353/set2.tab": 200,
        "wordsim353/EN-WS-353-ALL.txt": 353,
        "wordsim353/EN-WS-353-REL.txt": 252,
        "wordsim353/EN-WS-353-SIM.txt": 203,
        "rg65/EN-RG-65.txt": 65,
        "simverb3500/SimVerb-3500.txt": 3500,
        "simverb3500/SimVerb-3000-test.txt": 3000,
        "simverb3500/SimVerb-500-dev.txt": 500,  # line 293 has no relation column
    }
    for name, n in expected.items():
        pairs = read_word_pairs(shared_data / name)
        assert len(pairs) == n and np.all((pairs.scores >= 0) & (pairs.scores <= 10)), name
    scws = read_scws(shared_data / "scws" / "ratings.txt")
    assert len(scws) == 2003
    assert read_sense_counts(shared_data / "wordnet_sense_counts" / "sense_counts.tsv")["run"] == 57


def test_shared_files_read_with_their_layouts(shared_data):
    simlex = read_word_pairs(shared_data / "simlex999" / "SimLex-999.txt")  # the score is column 4 of 10
    assert (simlex.words1[0], simlex.words2[0], simlex.scores[0]) == ("old", "new", 1.58)
    assert read_word_pairs(shared_data / "simlex999" / "EN-SIMLEX-999.txt").scores.tolist() == simlex.scores.tolist()
    set1 = read_word_pairs(shared_data / "wordsim353" / "set1.tab")  # "Human (mean)", then the raters
    assert (set1.words1[0], set1.words2[0], set1.scores[0]) == ("love", "sex", 6.77)
    simverb = read_word_pairs(shared_data / "simverb3500" / "SimVerb-500-dev.txt")
    assert (simverb.words1[292], simverb.words2[292], simverb.scores[292]) == ("ensure", "secure", 4.07)


def test_shared_sense_count_files_are_not_word_pairs(shared_data):
    path = shared_data / "wordnet_sense_counts" / "sense_counts.tsv"  # lemma total n v a r: no pairs in it
    with pytest.raises(CtxvecError) as error:
        read_word_pairs(path)
    message = str(error.value)
    assert message.startswith("[CTX-E328]") and "sense_counts.tsv, line 1: this is not a word-pair" in message
    assert "a table of sense counts per lemma" in message
    by_pos = shared_data / "wordnet_sense_counts" / "sense_counts_by_pos.tsv"  # lemma pos n_senses: rows like pairs
    with pytest.raises(CtxvecError) as error:
        read_word_pairs(by_pos)
    message = str(error.value)
    assert message.startswith("[CTX-E328]") and "sense_counts_by_pos.tsv, line 1: this is not a word-pair" in message
    assert "a sense-count table by part of speech" in message and "'lemma\\tpos\\tn_senses'" in message


def test_a_sense_count_table_by_part_of_speech_is_refused_at_its_first_row(tmp_path):
    # No header, after blank lines: the file's own line of the first row; line 5 is never reached.
    text = "\n\n'hood\tn\t1\n'tween\tr\t1\n'tween decks\tr\t1\n.22\tn\t1\n"
    with pytest.raises(CtxvecError) as error:
        read_word_pairs(write(tmp_path / "by_pos.tsv", text))
    message = str(error.value)
    assert message.startswith("[CTX-E328]") and "by_pos.tsv, line 3: this is not a word-pair file" in message
    assert "part-of-speech tag where word 2 should be" in message and "expects one pair per line" in message


def sense_counts_refusal(path) -> str:
    """read_sense_counts(path)'s error message, asserting it is one."""
    with pytest.raises(CtxvecError) as error:
        read_sense_counts(path)
    return str(error.value)


def test_shared_sense_counts_by_part_of_speech_are_not_counts_per_lemma(shared_data):
    message = sense_counts_refusal(shared_data / "wordnet_sense_counts" / "sense_counts_by_pos.tsv")
    assert message.startswith("[CTX-E329]") and "sense_counts_by_pos.tsv, line 1: this is not a table of" in message
    assert "a sense-count table by part of speech" in message and "'lemma\\tpos\\tn_senses'" in message
    assert "`fit-polysemy`" in message and "total sense count" in message and "sense_counts.tsv:" in message


@pytest.mark.parametrize(
    "text, line",
    [
        ("\n\n'hood\tn\t1\n'tween\tr\t1\n'tween decks\tr\t1\n.22\tn\t1\n", 3),  # no header: not skipped as one
        ("lemma\tclass\tcount\nbank\tn\t10\nbank\tv\t8\n", 2),  # the rows say it, as for word-sim (E328)
    ],
    ids=["no-header", "other-header"],
)
def test_sense_counts_by_part_of_speech_are_refused_at_their_first_lines(tmp_path, text, line):
    path = write(tmp_path / "by_pos.tsv", text)
    message = sense_counts_refusal(path)
    assert message.startswith("[CTX-E329]") and f"by_pos.tsv, line {line}: this is not a table of" in message
    with pytest.raises(CtxvecError, match=rf"^\[CTX-E328\] .*by_pos.tsv, line {line}: "):
        read_word_pairs(path)  # word-sim recognises the same file at the same line


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("bank\t18\t3.5\n", 1, "word 2 is the number '18'"),
        ("old\tnew\t1.5\nsmart\tintelligent\t9.2\tA\n", 2, "this row has 4 field(s)"),
        ("take\tremove\tV\t6.8\tSYN\nwalk\ttrail\t4.8\n", 2, "SimVerb-3500's word1"),
        ("word1\tword2\tPOS\tSimLex999\nold\tnew\tA\t1.58\t2.72\n", 2, "at most 4 fields"),
    ],
    ids=[
        "number-for-a-word",
        "extra-column",
        "simverb-short",
        "wider-than-header",
    ],
)
def test_rows_of_other_layouts_are_refused(tmp_path, text, line, problem):
    with pytest.raises(CtxvecError) as error:
        read_word_pairs(write(tmp_path / "p.txt", text))
    message = str(error.value)
    assert message.startswith("[CTX-E302]") and f"p.txt, line {line}: expected" in message and problem in message


@pytest.mark.parametrize(
    "text, line, looks_like",
    [
        ("'hood\t1\t1\t0\t0\t0\n", 1, "whole numbers after the lemma"),
        ("lemma\ttotal\n'hood\t1\n", 1, "header naming a count column second"),
        ("bank\t18\t3\nrun\t57\t4\n", 1, "whole numbers after the lemma"),
    ],
    ids=["sense-count-row", "two-column-table", "counts-without-header"],
)
def test_a_table_of_sense_counts_per_lemma_is_named_as_one(tmp_path, text, line, looks_like):
    """It was E302 on its first row, "fix or remove that line", and the next row the same."""
    with pytest.raises(CtxvecError) as error:
        read_word_pairs(write(tmp_path / "p.txt", text))
    message = str(error.value)
    assert message.startswith("[CTX-E328]") and f"p.txt, line {line}: this is not a word-pair file" in message
    assert looks_like in message


def test_a_word_pair_file_given_for_sense_counts_is_named_as_one(tmp_path):
    """SimLex's first row was skipped as a header (a false W053), then E302 on the next."""
    path = write(tmp_path / "simlex.txt", "old\tnew\t1.58\nsmart\tintelligent\t9.2\nhard\tdifficult\t8.77\n")
    with pytest.raises(CtxvecError, match=r"E329.*simlex\.txt, line 1: .*looks like a word-pair file"):
        read_sense_counts(path)


def test_quoted_csv_and_tsv_fields_are_read_without_their_quotes(tmp_path):
    """R's write.csv and spreadsheets quote fields: "gem" is the word gem (was kept with
    its quotes and scored as another string, silently)."""
    quoted = read_word_pairs(write(tmp_path / "q.csv", '"w1","w2","score"\n"gem","jewel",3.94\n"car","auto",3.92\n'))
    assert quoted.words1 == ["gem", "car"] and quoted.words2 == ["jewel", "auto"]
    assert quoted.scores.tolist() == [3.94, 3.92]
    assert quoted.header is not None
    tabbed = read_word_pairs(write(tmp_path / "q.tsv", '"gem"\t"jewel"\t3.94\n'))
    assert (tabbed.words1, tabbed.words2) == (["gem"], ["jewel"])


def test_only_a_clear_first_line_is_a_header(tmp_path):
    # "old new" is a broken first row, not a header to drop silently.
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*p[.]txt, line 1.*2 field\(s\)"):
        read_word_pairs(write(tmp_path / "p.txt", "old new\nsmart intelligent 9.2\nhard difficult 8.8\n"))
    headed = read_word_pairs(write(tmp_path / "h.txt", "first second value\nold new 1.5\nsmart intelligent 9\n"))
    assert headed.words1 == ["old", "smart"] and headed.header == "line 1: first second value"  # reported
    plain = read_word_pairs(write(tmp_path / "n.txt", "old new 1.5\nsmart intelligent 9\n"))
    assert plain.words1 == ["old", "smart"] and plain.header is None  # no header: line 1 is a pair
    # a header naming its score column "Mean" (and a further column): its 4-field rows read
    mean = read_word_pairs(write(tmp_path / "m.txt", "Word A\tWord B\tMean\tSD\nold\tnew\t1.5\t0.2\n"))
    assert mean.scores.tolist() == [1.5] and mean.header == "line 1: Word A\tWord B\tMean\tSD"
    with pytest.raises(CtxvecError, match=r"a first line is a header if it names its score column \(simlex999"):
        read_word_pairs(write(tmp_path / "u.txt", "Word A\tWord B\tAverage\tSD\nold\tnew\t1.5\t0.2\n"))


def test_errors_give_the_files_own_line_numbers_after_a_header_and_blank_lines(tmp_path):
    text = "\n\nword1\tword2\tscore\n\nold\tnew\t1.5\n\nsmart\tintelligent\thigh\n"
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*p[.]txt, line 7: .*the score 'high'"):
        read_word_pairs(write(tmp_path / "p.txt", text))


def test_the_same_file_twice_is_refused(tmp_path):
    path = write(tmp_path / "p.txt", "old new 1.5\nsmart intelligent 9\n")
    other = write(tmp_path / "q.txt", "old new 1.5\nsmart intelligent 9\n")  # same text, another file
    assert list(read_word_pair_files([path, other])) == [str(path), str(other)]
    spelt_otherwise = tmp_path / "sub" / ".." / "p.txt"
    (tmp_path / "sub").mkdir()
    with pytest.raises(CtxvecError, match=r"\[CTX-E325\].*sub/[.][.]/p[.]txt' is the same file as '.*/p[.]txt'"):
        read_word_pair_files([path, other, spelt_otherwise])


@pytest.mark.parametrize(
    "reader,name,content",
    [
        (
            lambda path: read_wic(path.parent, "train"),
            "train.data.txt",
            WIC_DATA.encode() + b"caf\xe9\tN\t0-0\tcaf\xe9 au lait\tun caf\xe9\n",
        ),
        (lambda path: read_wic(path.parent, "train"), "train.gold.txt", b"F\nT\n\xff\xfe\n"),
        (read_word_pairs, "pairs.txt", b"gem jewel 3.9\nna\xefve simple 2.0\n"),
        (read_scws, "ratings.txt", b"1\tbank\tn\triver\tn\tthe <b> bank </b>\tthe <b> river </b>\t5.0\n\x80\x81\n"),
        (read_sense_counts, "counts.tsv", b"lemma\ttotal\nbank\t10\ncaf\xe9\t2\n"),
    ],
    ids=["wic-data", "wic-gold", "word-pairs", "scws", "sense-counts"],
)
def test_non_utf8_input_names_file_and_line(tmp_path, reader, name, content):
    wic_dir(tmp_path)
    path = tmp_path / name
    path.write_bytes(content)
    line = content.count(b"\n")
    with pytest.raises(CtxvecError, match=rf"\[CTX-E133\].*{name.replace('.', '[.]')}, line {line}: not valid UTF-8"):
        reader(path)


def test_binary_file_is_a_coded_error(tmp_path):
    path = tmp_path / "random.bin"
    path.write_bytes(bytes(range(256)) * 4)
    for reader in (read_word_pairs, read_scws, read_sense_counts):
        with pytest.raises(CtxvecError, match=r"\[CTX-E(133|302|305)\].*random[.]bin"):
            reader(path)


def test_non_ascii_digits_are_not_counts_or_indices(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*counts\.tsv, line 2"):
        read_sense_counts(write(tmp_path / "counts.tsv", "bank\t1\u00b2\nrun\t\u0663\n"))
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 1"):
        read_wic(wic_dir(tmp_path, "go\tV\t\u00b9-0\tGo home\tGo away\n", "T\n"), "train")


def test_scws_marker_search_is_linear_on_long_lines(tmp_path):
    import time

    context = "<b> " * 100_000  # many openings, no closing tag
    path = write(tmp_path / "ratings.txt", f"1\tbank\tn\triver\tn\t{context}\tthe <b> river </b>\t5.0\n")
    start = time.perf_counter()
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 1"):
        read_scws(path)
    assert time.perf_counter() - start < 5  # a hang guard (the old regex took hours here), not a speed measurement
    pairs = read_scws(
        write(tmp_path / "ok.txt", "1\tbank\tn\tbank\tn\ta <b>  river bank </b> here\tx <b>bank</b>\t5\n")
    )
    assert pairs.words1 == [["a", "river", "bank", "here"]] and pairs.index1.tolist() == [1]
    assert pairs.words2 == [["x", "bank"]] and pairs.index2.tolist() == [1]


# Issue 23: numbers and nesting read from files are bounded, with coded errors
@pytest.mark.parametrize(
    "count",
    ["100000000000000000000000", "99999999999999999999999999999999999999999", "1" + "0" * 5000, "10001", "0", "000"],
)
def test_sense_counts_beyond_the_bound_are_coded(tmp_path, count):
    """A count of 0 was read, then its word silently left out of every correlation."""
    path = write(tmp_path / "s.tsv", f"lemma\ttotal\nbank\t18\nrun\t{count}\n")
    with pytest.raises(CtxvecError, match=r"\[CTX-E742\].*s[.]tsv, line 3: the sense count is .*outside 1..10000"):
        read_sense_counts(path)


@pytest.mark.parametrize("text", ["1e23", "-3", "2.5", "inf"])
def test_a_first_line_with_a_number_that_is_not_a_count_is_not_taken_for_a_header(tmp_path, text):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*s[.]tsv, line 1"):
        read_sense_counts(write(tmp_path / "s.tsv", f"bank\t{text}\nrun\t57\n"))


def test_sense_counts_leading_zeros_and_repeated_lemmas(tmp_path):
    assert read_sense_counts(write(tmp_path / "s.tsv", "bank\t" + "0" * 5000 + "18\nbank\t18\n")) == {"bank": 18}
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 2: expected each lemma once"):
        read_sense_counts(write(tmp_path / "twice.tsv", "bank\t18\nbank\t3\n"))


def test_a_space_separated_first_row_is_an_error_at_line_1_not_a_header(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 1.*tab-separated"):
        read_sense_counts(write(tmp_path / "spaces.txt", "bank 10\nriver 3\n"))
    assert read_sense_counts(write(tmp_path / "header.tsv", "word count\nbank\t10\n")) == {"bank": 10}


@pytest.mark.parametrize("text", ["1e23", "-3", "inf", "nan", "1.5"])
def test_sense_counts_that_are_not_whole_numbers_are_coded(tmp_path, text):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 3"):
        read_sense_counts(write(tmp_path / "s.tsv", f"lemma\ttotal\nbank\t18\nrun\t{text}\n"))


def test_sense_counts_from_a_file_reach_the_probe_rows_as_int64(tmp_path):
    from spacy_ctxvec.lexicon.polysemy_probe import sense_counts_for

    counts = read_sense_counts(write(tmp_path / "s.tsv", "bank\t10000\nrun\t1\n"))
    assert sense_counts_for(["bank", "run", "x"], counts).tolist() == [10000, 1, 0]


@pytest.mark.parametrize("index", ["1" + "0" * 30, "9" * 5000])
def test_wic_huge_index_is_coded(tmp_path, index):
    data = WIC_DATA.replace("\t2-1\t", f"\t2-{index}\t")
    with pytest.raises(CtxvecError, match=r"\[CTX-E(742|303)\].*train[.]data[.]txt, line 1"):
        read_wic(wic_dir(tmp_path, data=data), "train")


@pytest.mark.parametrize("score", ["inf", "-inf", "nan", "1e400", "-1e999", "NaN"])
def test_a_first_pair_with_a_non_finite_score_is_not_taken_for_a_header(tmp_path, score):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*p[.]txt, line 1"):
        read_word_pairs(write(tmp_path / "p.txt", f"old\tnew\t{score}\ncar\tauto\t9.1\n"))


@pytest.mark.parametrize("score", ["inf", "-inf", "nan", "1e400", "-1e999", "NaN"])
def test_non_finite_scores_are_coded(tmp_path, score):
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 2"):
        read_word_pairs(write(tmp_path / "p.txt", f"car\tauto\t9.1\nold\tnew\t{score}\n"))
    line = "1\tbank\tn\triver\tn\tthe <b> bank </b> of\ta <b> river </b> .\t"
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*line 2"):
        read_scws(write(tmp_path / "r.txt", f"{line}5.5\n{line}{score}\n"))


def test_evaluate_polysemy_cli_huge_sense_count_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    path = write(tmp_path / "s.tsv", "bank\t100000000000000000000000\n")
    result = CliRunner().invoke(app, ["evaluate", "polysemy", "no-such-pipeline", str(path)])
    assert result.exit_code == 1 and "E742" in result.output, result.output
    assert isinstance(result.exception, SystemExit)


def test_a_first_line_that_does_not_name_columns_is_skipped_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match=r"\[CTX-W053\].*'bank\\tten'.*read as a header and skipped"):
        counts = read_sense_counts(write(tmp_path / "s.tsv", "bank\tten\nrun\t57\n"))
    assert counts == {"run": 57}
    for header in ("lemma\ttotal\tn\tv\ta\tr", "word\tsenses", "Lemma\tCount"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert read_sense_counts(write(tmp_path / "h.tsv", f"{header}\nrun\t57\n")) == {"run": 57}


def test_indices_count_the_tokens_as_written_when_a_token_is_only_invisible_characters(tmp_path):
    """Composing the whole line first dropped a lone U+FE0F or U+200B token: WiC indices then
    pointed one token further and a sense row's word became "" (E302)."""
    wic = "bank\tN\t2-0\tthe \u200b bank\tbank \ufe0f of it\n\ufeffplay\tV\t0-0\tplay\tplay\n"
    data = read_wic(wic_dir(tmp_path, wic, "T\nT\n"), "train")
    assert data.words1[0] == ["the", "bank"] and data.index1.tolist() == [1, 0] and data.words2[0][0] == "bank"
    assert data.targets == ["bank", "play"]
    row = '{"lemma": "bank", "words": ["the", "\ufe0f", "Ba\u0308nk"], "position": 2, "synset": "s"}\n'
    senses = read_sense_sentences(write(tmp_path / "senses.jsonl", "\ufeff\n" + row + "\ufeff" + row))
    assert senses.words == [["the", "B\u00e4nk"]] * 2 and senses.positions.tolist() == [1, 1]
    gone = '{"lemma": "bank", "words": ["the", "\u200b"], "position": 1, "synset": "s"}\n'
    with pytest.raises(CtxvecError, match=r"E302.*line 1.*visible character"):
        read_sense_sentences(write(tmp_path / "gone.jsonl", gone))
    with pytest.raises(CtxvecError, match=r"E302.*line 1.*visible character"):
        read_wic(wic_dir(tmp_path, "bank\tN\t1-0\tthe \ufe0f\tbank\n", "T\n"), "train")


def test_comment_lines_index_columns_and_a_spaced_first_word_say_what_is_wrong(tmp_path):
    """A '# pairs 353' comment was scored as the pair ('#', 'pairs', 353); pandas' or R's index column was
    "another kind of file, e.g. sense counts?"; a first row 'ice cream dessert 8.5' set a 4-field layout and
    the good line 2 was blamed without a word on line 1."""
    commented = write(tmp_path / "my pairs.txt", "# pairs 353\nold\tnew\t1.58\n")
    with pytest.raises(CtxvecError, match=r"E302.*line 1.*not a comment; remove the comment lines") as raised:
        read_word_pairs(commented)
    command = str(raised.value).splitlines()[-1]  # on a line of its own, the file named: it runs as printed
    assert command == f"    grep -v '^[[:space:]]*#' {shlex.quote(str(commented))} > pairs.txt"
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert read_word_pairs(tmp_path / "pairs.txt").words1 == ["old"]
    with pytest.raises(CtxvecError, match=r"E302.*line 3.*not a comment"):
        read_word_pairs(write(tmp_path / "mid.txt", "old\tnew\t1.58\ncat\tdog\t3\n# part 2\n"))
    for text in (",word1,word2,score\n0,old,new,1.58\n", '"","word1","word2","score"\n"1","old","new",1.58\n'):
        with pytest.raises(CtxvecError, match=r"E302.*line 2.*index column first\? .*index=False"):
            read_word_pairs(write(tmp_path / "index.csv", text))
    with pytest.raises(
        CtxvecError, match=r"E302.*line 2.*line 1, the first row, has 4, which set the layout.*ice cream"
    ):
        read_word_pairs(write(tmp_path / "spaced.txt", "ice cream dessert 8.5\nold new 1.58\n"))
    with pytest.raises(CtxvecError, match=r"E302.*line 2.*line 1, the first row, has 3.*holding a space in this row"):
        read_word_pairs(write(tmp_path / "later.txt", "old new 1.58\nice cream dessert 8.5\n"))
    with pytest.raises(CtxvecError, match=r"E302.*line 2.*not a comment"):
        read_word_pairs(write(tmp_path / "indented.txt", "old\tnew\t1.58\n  # indented\tcomment\t3\n"))
    assert read_word_pairs(write(tmp_path / "quoted.txt", '"ice cream" dessert 8.5\nold new 1.58\n')).words1[0] == (
        "ice cream"
    )


def test_sense_counts_read_the_column_a_header_names_and_strip_lemmas(tmp_path):
    """A header 'lemma n v a r total' had its noun counts read as totals (a Spearman of 0.446 against
    0.797, no warning); 'bank <TAB>18' kept 'bank ', which matched no word; a comma-separated file
    warned W053 "does not name the columns" of 'lemma,count'."""
    reordered = write(tmp_path / "reordered.tsv", "lemma\tn\tv\ttotal\nbank\t10\t8\t18\nrun\t16\t41\t57\n")
    assert read_sense_counts(reordered) == {"bank": 18, "run": 57}
    spaced = write(tmp_path / "spaced.tsv", "bank \t18\n run\t57\n")
    assert read_sense_counts(spaced) == {"bank": 18, "run": 57}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CtxvecError, match=r"E302.*line 2.*comma-separated: the command below") as raised:
            read_sense_counts(write(tmp_path / "c.csv", "lemma,count\nbank,18\n"))
    command = str(raised.value).splitlines()[-1]
    assert command == f"    tr ',' '\\t' < {shlex.quote(str(tmp_path / 'c.csv'))} > sense_counts.tsv"
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert read_sense_counts(tmp_path / "sense_counts.tsv") == {"bank": 18}
    count_first = write(tmp_path / "count first.tsv", "count\tlemma\n18\tbank\n57\trun\n")
    with pytest.raises(CtxvecError, match=r"E302.*line 2.*has its count first: the command below") as raised:
        read_sense_counts(count_first)
    subprocess.run(["bash", "-c", str(raised.value).splitlines()[-1]], cwd=tmp_path, check=True)
    assert read_sense_counts(tmp_path / "sense_counts.tsv") == {"bank": 18, "run": 57}


def test_a_pipe_is_not_a_missing_file(tmp_path):
    """`evaluate word-sim PIPELINE <(cat f)` said "File not found: '/dev/fd/63'"."""
    import os

    fifo = tmp_path / "pairs.fifo"
    os.mkfifo(fifo)
    with pytest.raises(CtxvecError, match=r"E301\] Not a regular file \(a pipe or a device\).*Write it to a file"):
        read_word_pairs(fifo)


def test_words_ending_in_part_of_speech_tags_warn_w092(tmp_path):
    """'love-n' / 'bank_NOUN' copies of SimLex or WordSim scored 0.59 against 0.74 for the plain words,
    every pair covered, no word said; the sed the warning gives strips the tags."""
    import subprocess

    tagged = write(tmp_path / "tagged.txt", "love-n\tsex-n\t6.77\ntiger_NOUN\tcat_NOUN\t7.35\nold-a\tnew-a\t1.58\n")
    with pytest.warns(UserWarning, match=r"CTX-W092\] In '.*tagged\.txt', 6 of 6 words .* e\.g\. 'love-n'") as said:
        read_word_pairs(tagged)
    command = str(said[0].message).split("\n", 1)[1].strip().split(" > ")[0]  # a line of its own: never wrapped
    tagged.write_text(tagged.read_text(encoding="utf8") + "rock-n-roll_NOUN\tmusic_n\t7\n", encoding="utf8")
    stripped = subprocess.run(command, shell=True, capture_output=True, text=True, check=True).stdout
    assert stripped == "love\tsex\t6.77\ntiger\tcat\t7.35\nold\tnew\t1.58\nrock-n-roll\tmusic\t7\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a few hyphenated words are no reason to warn
        read_word_pairs(write(tmp_path / "plain.txt", "x-ray\tphoto\t5\nold\tnew\t1.58\ncat\tdog\t3\n"))
