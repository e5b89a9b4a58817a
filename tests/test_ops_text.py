"""ops.text: text shortened for messages and labels."""

import csv
import io
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_ctxvec.ops.text import (
    count_of,
    display_width,
    has_word_character,
    holds_word,
    least_size,
    pad,
    printable,
    shorten,
    text_table,
    tsv_text,
)


def test_holds_word_matches_whole_words_only_in_any_case():
    assert holds_word("I live in New York", "new") and holds_word("C++ code", "C++")
    assert not holds_word("Newcastle is north", "New") and not holds_word("renew", "new")
    assert not holds_word("a.b", "a.c")  # the word is text, not a pattern


def test_short_text_is_kept_and_long_text_is_cut_with_an_ellipsis():
    assert shorten("bank", 20) == "bank"
    assert shorten("我有一个苹果" * 10, 8) == "我有一个苹果我…"


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_never_longer_than_the_limit_and_a_prefix_of_the_text(text, limit):
    short = shorten(text, limit)
    assert len(short) <= limit and text.startswith(short.removesuffix("…") if short != text else short)


def test_display_width_counts_terminal_cells():
    assert display_width("bank") == 4 and display_width("") == 0
    assert display_width("🍎") == 2 and display_width("苹果") == 4 and display_width("한국어") == 6  # wide
    assert display_width("cafe\u0301") == 4 and display_width("a\u200bb") == 2  # combining mark, zero-width space
    assert display_width("ｶ") == 1  # half-width katakana
    # emoji sequences are one picture: U+FE0F after a symbol, a skin tone, a U+200D join
    assert display_width("❤\ufe0f") == 2 and display_width("❤") == 1 and display_width("x\ufe0f") == 1
    assert display_width("👍🏽") == 2 and display_width("👨\u200d👩\u200d👧") == 2 and display_width("a\u200d🍎") == 3


def test_display_width_counts_a_joined_emoji_sequence_that_starts_with_a_symbol_and_u_fe0f_as_one_picture():
    # ❤ U+FE0F, U+200D, 🔥 / 🏳 U+FE0F, U+200D, 🌈: the joined part after U+FE0F is no extra picture
    assert display_width("❤\ufe0f\u200d🔥") == 2 and display_width("🏳\ufe0f\u200d🌈") == 2
    assert display_width("🏳\ufe0f\u200d⚧\ufe0f") == 2 and display_width("🏃\u200d♂\ufe0f") == 2  # joined symbols
    assert display_width("❤\ufe0f\u200d🔥 ok") == 5 and display_width("\ufe0f") == 0


def test_display_width_counts_a_zwj_emoji_sequence_as_one_cluster_two_cells_wide():
    # ❤ (one cell as text), U+200D, 🔥 (wide) without U+FE0F: one picture, two cells, not three
    assert display_width("\u2764\u200d\U0001f525") == 2 and display_width("\u2764\u200d\U0001f525 ok") == 5
    assert display_width("👨\u200d👩\u200d👧") == 2 and display_width("👨\u200d👩\u200d👧👍") == 4  # family, then 👍
    assert display_width("❤\ufe0f") == 2 and display_width("❤\ufe0f\u200d🔥") == 2  # U+FE0F: emoji presentation
    assert display_width("☝🏽") == 2  # a one-cell symbol with a skin tone is drawn as an emoji
    # U+200D joins only a symbol to a symbol (emoji sequences): not CJK, letters or combining accents
    assert display_width("苹果") == 4 and display_width("苹\u200d果") == 4 and display_width("苹\u200d🍎") == 4
    assert display_width("🍎\u200d果") == 4 and display_width("a\u200d🍎") == 3
    assert display_width("cafe\u0301") == 4 and display_width("e\u0301\u0300") == 1 and display_width("ñ") == 1
    assert display_width("🍎\u0301") == 2  # a combining mark stays in the cluster before it


def test_display_width_counts_a_zwj_sequence_of_one_cell_symbols_without_u_fe0f_as_two_cells():
    # drawn as one emoji (two cells) or as its two glyphs (one cell each): two either way, never one
    for sequence in ["👁\u200d🗨", "🏳\u200d⚧", "⛹\u200d♂", "🕵\u200d♀", "🏌\u200d♂", "☺\u200d☺"]:
        assert display_width(sequence) == 2 and display_width(sequence + " ok") == 5, ascii(sequence)
    assert display_width("👁\ufe0f\u200d🗨\ufe0f") == 2 and display_width("⛹\u200d♂\ufe0f") == 2  # with U+FE0F
    assert display_width("🏳\u200d🌈") == 2 and display_width("❤\u200d🔥") == 2  # a wide part: still two


def test_pad_fills_to_a_display_width():
    assert pad("🍎", 4) == "🍎  " and pad("苹果", 6, "r") == "  苹果" and pad("bank", 6) == "bank  "
    assert pad("too long", 3) == "too long"


def test_text_table_lines_up_wide_characters_and_lays_out_ascii_as_wasabi_does_with_its_max_col():
    from wasabi import table

    header, aligns = ("word", "cosine"), ("l", "r")
    ascii_rows = [("bank", "0.500"), ("a", "1.000"), ("x" * 31, "0.250")]  # one cell past wasabi's max_col, 30
    assert text_table(ascii_rows, header, aligns, max_col=30) == table(
        ascii_rows, header=header, divider=True, aligns=aligns
    )
    # uncapped (compare's table): the long cell widens its column, where wasabi's stops at 30
    uncapped = text_table(ascii_rows, header, aligns).strip("\n").splitlines()
    assert uncapped[1] == "-" * 31 + "   ------" and {len(line) for line in uncapped} == {40}
    shown = text_table([("🍎", "0.500"), ("苹果", "1.000"), ("a", "n/a")], header, aligns).strip("\n").splitlines()
    assert shown == ["word   cosine", "----   ------", "🍎      0.500", "苹果    1.000", "a         n/a"]
    assert {display_width(line) for line in shown} == {13}


def test_text_table_caps_columns_at_max_col_as_wasabi_does():
    """A cell longer than max_col is shown whole and pushes the rest of its row right;
    the other rows are padded to max_col (in terminal cells: 苹果 is 4 of them)."""
    from wasabi import table

    header, aligns = ("word", "n"), ("l", "r")
    rows = [("x" * 12, "1"), ("bank", "10")]
    assert text_table(rows, header, aligns, max_col=8) == table(
        rows, header=header, divider=True, aligns=aligns, max_col=8
    )
    shown = text_table([("苹果" * 3, "1"), ("苹果", "10")], header, aligns, max_col=8).strip("\n").splitlines()
    assert shown == ["word        n", "--------   --", "苹果苹果苹果    1", "苹果       10"]


def test_text_table_refuses_aligns_or_rows_that_do_not_match_the_header():
    header = ("word", "cosine")
    with pytest.raises(ValueError, match="aligns has 1 entries for 2 header columns"):
        text_table([("bank", "0.5")], header, ("l",))
    with pytest.raises(ValueError, match="row 1 has 1 entries for 2 header columns"):
        text_table([("bank", "0.5"), ("a",)], header, ("l", "r"))
    with pytest.raises(ValueError, match="row 0 has 3 entries"):
        text_table([("bank", "0.5", "x")], header, ("l", "r"))


def test_least_size_leaves_out_the_words_most_already_lists():
    assert [least_size(n, 5) for n in (0, 3, 5, 7, 10, 50)] == [0, 0, 0, 2, 5, 5]


@given(st.lists(st.lists(st.text(), min_size=1, max_size=4), min_size=1))
def test_tsv_text_reads_back_as_written(rows):
    """Every cell the commands write (tabs, quotes and line ends among them, a lone carriage return
    too: a .jsonl corpus's "words" may hold one, which was written unquoted) reads back as written."""
    text = tsv_text(rows)
    assert list(csv.reader(io.StringIO(text + "\n", newline=""), delimiter="\t")) == rows
    assert tsv_text([["cr\rword", "1"], ["plain", "2"]]) == '"cr\rword"\t"1"\nplain\t2'


def test_count_of_is_singular_for_one_only():
    assert [count_of(n, "doc") for n in (0, 1, 2)] == ["0 docs", "1 doc", "2 docs"]


def test_printable_writes_what_a_terminal_acts_on_as_escapes_and_keeps_the_rest():
    assert printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"  # no colour change
    assert printable("a\x07\nb\tc\u202ed") == "a\\x07\\nb\\tc\\u202ed"
    kept = "café 银行 👩\u200d💻 bank\u200b"  # accents, CJK, an emoji joined by ZWJ, a zero-width space
    assert printable(kept) == kept


@given(st.text())
def test_printable_output_holds_no_control_or_line_break(text):
    shown = printable(text)
    assert not any(unicodedata.category(c) == "Cc" or c in "\u2028\u2029\u202e" for c in shown)


def test_text_table_cells_with_controls_stay_on_their_row():
    table = text_table([["new\nline", "\x1b]0;title\x07"]], ["key", "label"], "ll")
    assert table.strip().count("\n") == 2 and "\x1b" not in table and "\\x1b]0;title\\x07" in table


def test_a_word_character_is_a_letter_or_digit_of_any_script():
    assert all(has_word_character(text) for text in ("bank", "0123", "\u6771\u4eac", "a\U0001f602"))
    assert not any(has_word_character(text) for text in ("", " ", "...", "\U0001f602", "\u200b", "#"))
