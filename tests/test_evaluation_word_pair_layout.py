import pytest

from spacy_ctxvec.evaluation.word_pair_layout import (
    PLAIN,
    SIMVERB,
    UNKNOWN,
    first_layout,
    header_layout,
    is_finite_number,
    is_whole_number,
    other_table,
    pair_problem,
    row_layout,
    split_fields,
)


def test_split_fields_by_tab_comma_or_space_drops_trailing_empty_fields():
    assert split_fields("old\tnew\t1.58\t") == ["old", "new", "1.58"]
    assert split_fields("Word 1,Word 2,Human (mean)") == ["Word 1", "Word 2", "Human (mean)"]
    assert split_fields("  old   new 1.58 ") == ["old", "new", "1.58"]
    assert split_fields("a\t\tb") == ["a", "", "b"]  # an empty field inside stays (and fails later)


def test_a_spreadsheets_semicolon_csv_is_read_and_a_decimal_comma_named(tmp_path):
    """Excel's CSV where the decimal mark is a comma: 'gem;jewel;3,94' was E328 "a table of sense
    counts per lemma" (and 'gem;jewel;3.94' E302 "1 field(s)")."""
    from spacy_ctxvec.errors import CtxvecError
    from spacy_ctxvec.evaluation.readers import read_word_pairs

    assert split_fields("gem;jewel;3.94") == ["gem", "jewel", "3.94"]
    assert split_fields("gem jewel 3,94") == ["gem", "jewel", "3,94"]  # spaces around, a decimal comma inside
    assert split_fields("gem,jewel,3") == ["gem", "jewel", "3"]
    assert header_layout(["gem", "jewel", "3,94"], 1) is None  # a row, not a header
    path = tmp_path / "pairs.csv"
    path.write_text("gem;jewel;3.94\nmidday;noon;3.94\nboy;lad;3.82\n", encoding="utf8")
    assert read_word_pairs(path).scores.tolist() == [3.94, 3.94, 3.82]
    path.write_text("gem;jewel;3,94\nmidday;noon;3,94\nboy;lad;3,82\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E302\].*line 1:.*the score '3,94' is not a finite number \(a decimal"):
        read_word_pairs(path)
    path.write_text("gem jewel 3,94\ncar automobile 3,92\ncat dog 1,5\n", encoding="utf8")  # was E328
    with pytest.raises(CtxvecError, match=r"E302\].*line 1:.*the score '3,94' is not a finite number \(a decimal"):
        read_word_pairs(path)


def test_quoted_words_lose_their_quotes_after_a_space_and_between_spaces():
    """'"old", "new", 1.58' was read as ('old', '"new"', 1.58): a wrong Spearman, no warning."""
    for line in ('"old", "new", 1.58', '"old" "new" 1.58', "'old' 'new' 1.58", '"old"\t "new"\t1.58'):
        assert split_fields(line) == ["old", "new", "1.58"], line
    assert split_fields("don't o'clock 3") == ["don't", "o'clock", "3"]
    for space in ("\xa0", "\u3000", "\x0b", " \t"[:1] * 3):  # any whitespace separates, as str.split does
        assert split_fields(f"cat{space}dog{space}3") == ["cat", "dog", "3"]  # a word's own apostrophes stay
    assert split_fields('"ice cream" dessert 5') == ["ice cream", "dessert", "5"]
    long = '"' + "a" * 200_000  # an unclosed quote past csv's field limit: the fields as written, no csv.Error
    assert split_fields(long + " b 3") == [long, "b", "3"] and split_fields(long + "\tb\t3") == [long, "b", "3"]


def test_a_header_naming_the_score_column_allows_its_further_columns_only():
    simlex = split_fields("word1\tword2\tPOS\tSimLex999\tconc(w1)\tconc(w2)")
    layout = header_layout(simlex, 1)
    assert (layout.score_column, layout.min_fields, layout.max_fields) == (3, 4, 6)
    assert pair_problem(["old", "new", "A", "1.58", "2.72", "2.81"], layout) is None
    too_wide = pair_problem(["old", "new", "A", "1.58", "2.72", "2.81", "9"], layout)
    assert "at most 6 fields" in too_wide and "line 1" in too_wide and "7 field(s)" in too_wide
    ws = header_layout(split_fields("Word 1\tWord 2\tHuman (mean)\t1\t2\t3\t"), 3)
    assert (ws.score_column, ws.max_fields) == (2, 6) and "line 3" in ws.expected
    assert pair_problem(["love", "sex", "6.77", "9", "6"], ws) is None  # a rater column short: fine


def test_a_comment_naming_the_columns_is_not_a_header(tmp_path):
    """ "# word1 word2 score" was read as a header of 4 fields: E302 then blamed the good line 2."""
    from spacy_ctxvec.errors import CtxvecError
    from spacy_ctxvec.evaluation.readers import read_word_pairs

    assert header_layout(["#", "word1", "word2", "score"], 1) is None
    path = tmp_path / "pairs.txt"
    path.write_text("# word1 word2 score\nold\tnew\t1.58\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E302.*pairs\.txt, line 1.*'# word1 word2 score'"):
        read_word_pairs(path)


def test_only_a_clear_header_is_one():
    assert header_layout(["w1", "w2", "sim"], 1) is not None  # "sim" names the score column
    assert header_layout(["first", "second", "value"], 1) == PLAIN  # 3 fields, no number
    assert header_layout(["old", "new"], 1) is None  # 2 fields: a broken row, not a header
    assert header_layout(["old", "new", "1.58"], 1) is None
    assert header_layout(["old", "new", "nan"], 1) is None  # float() reads it: not header text
    assert header_layout(["lemma", "total", "n", "v", "a", "r"], 1) is None  # sense counts
    assert header_layout(["score", "word", "x", "y"], 1) is None  # a name in a word column does not count


def test_row_layouts():
    assert row_layout(["old", "new", "1.58"]) == PLAIN
    assert row_layout(["take", "remove", "V", "6.81", "SYNONYMS"]) == SIMVERB
    assert row_layout(["ensure", "secure", "V", "4.07"]) == SIMVERB  # SimVerb-500-dev line 293
    assert row_layout(["'hood", "1", "1", "0", "0", "0"]) == UNKNOWN
    assert row_layout(["a", "b", "1", "2"]) == UNKNOWN  # a number where SimVerb has the PoS
    layout, is_header = first_layout(["word1", "word2", "score"], 1)
    assert is_header and (layout.score_column, layout.min_fields, layout.max_fields) == (2, 3, 3)
    assert first_layout(["old", "new", "1.58"], 1) == (PLAIN, False)
    assert first_layout(["take", "remove", "V", "6.81", "SYNONYMS"], 1) == (SIMVERB, False)


@pytest.mark.parametrize(
    "fields, layout, problem",
    [
        (["old", "new", "1.58"], PLAIN, None),
        (["old", "new", "1.58", "A"], PLAIN, "this row has 4 field(s)"),
        (["'hood", "1", "1"], PLAIN, "word 2 is the number '1', not a word"),
        (["2.5", "new", "1"], PLAIN, "word 1 is the number '2.5'"),
        (["", "new", "1"], PLAIN, "word 1 is empty"),
        (["old", "new", "high"], PLAIN, "the score 'high' is not a finite number"),
        (["old", "new", "inf"], PLAIN, "the score 'inf' is not a finite number"),
        (["take", "remove", "V", "6.81", "SYNONYMS"], SIMVERB, None),
        (["take", "remove", "V"], SIMVERB, "this row has 3 field(s)"),
        (["lemma", "total", "n", "v", "a", "r"], UNKNOWN, "or SimVerb-3500's word1"),
    ],
)
def test_pair_problem(fields, layout, problem):
    found = pair_problem(fields, layout)
    if problem is None:
        assert found is None
    else:
        assert problem in found and found.startswith(layout.expected)


def test_words_that_only_look_numeric_to_float_are_words():
    assert not is_finite_number("nan") and not is_finite_number("Infinity")  # "Nan" is a name
    assert pair_problem(["Nan", "grandmother", "8"], PLAIN) is None
    assert is_finite_number("1e3") and is_finite_number(" 7 ")


def numbered(*lines, start=1):
    """(line number, fields) per line, numbered from ``start``."""
    return [(start + i, split_fields(line)) for i, line in enumerate(lines)]


@pytest.mark.parametrize(
    "lines, line, why",
    [
        (["lemma\tpos\tn_senses", "'hood\tn\t1", ".22\tn\t1"], 1, "its header naming a part-of-speech column"),
        (["Lemma\tPart of speech\tsenses", "bank\tn\t10"], 1, "its header naming"),
        (["'hood\tn\t1", "'tween\tr\t1", "'tween decks\tr\t1", ".22\tn\t1"], 1, "part-of-speech tag where word 2"),
        (["bank\tn\t10", "bank\tv\t8"], 1, "part-of-speech tag where word 2"),  # all rows the file has
        (["lemma\tclass\tcount", "bank\tn\t10", "run\tv\t41", "good\ts\t21"], 2, "where word 2 should be"),
    ],
    ids=["shared-header", "header-spelt-out", "no-header", "two-rows", "other-header"],
)
def test_a_sense_count_table_by_part_of_speech_is_recognised_at_its_first_lines(lines, line, why):
    found = other_table(numbered(*lines, start=1))
    assert found is not None and found[0] == line and "sense-count table by part of speech" in found[1]
    assert why in found[1]


@pytest.mark.parametrize(
    "lines",
    [
        ["word1\tword2\tPOS\tSimLex999\tconc(w1)", "old\tnew\tA\t1.58\t2.72"],  # POS third, not second
        ["take\tremove\tV\t6.81\tSYNONYMS", "walk\ttrail\tV\t4.81\tCOHYPONYMS"],  # SimVerb's PoS
        ["old\tnew\t1.58", "smart\tintelligent\t9.2"],
        ["letter\ta\t3", "car\tautomobile\t9", "noon\tr\t2"],  # a tag in one of the first rows only
        ["bank\tn\t1.5", "bank\tv\t2.5", "run\tv\t3.5"],  # a score, not a sense count
        ["neg\tpos\t1.0", "old\tnew\t2"],  # a pair whose word 2 is "pos", not a header
        [],
    ],
    ids=["simlex", "simverb", "plain", "one-tag", "real-scores", "pos-pair", "empty"],
)
def test_word_pair_files_are_not_taken_for_sense_count_tables(lines):
    assert other_table(numbered(*lines)) is None


def test_a_whole_number_is_ascii_digits_only():
    assert is_whole_number("12") and is_whole_number("0")
    assert not any(is_whole_number(text) for text in ("", "1.5", "-1", "+1", " 1", "²", "١٢", "1e3"))
