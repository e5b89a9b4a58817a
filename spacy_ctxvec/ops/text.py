"""Plain-text helpers for what the commands print and draw. No spaCy."""

import csv
import io
import re
import unicodedata
from typing import Any, Iterable, List, Optional, Sequence

VARIATION_SELECTOR_16 = "\ufe0f"  # after a character: show it as an emoji, two cells wide
ZERO_WIDTH_JOINER = "\u200d"  # between emoji: one picture (👩‍💻)
SKIN_TONES = ("\U0001f3fb", "\U0001f3ff")  # first and last emoji modifier: tint the emoji before them
_ALIGN = {"l": str.ljust, "r": str.rjust, "c": str.center}
# What a terminal acts on instead of showing: C0 and C1 controls (ESC starts colour and
# window-title sequences, BEL rings, line breaks and tabs break a table), line and
# paragraph separators, and the bidirectional marks, overrides and isolates that reorder a line.
_ACTED_ON_BUT_TAB_AND_NEWLINE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNPRINTABLE = re.compile(f"[\t\n{_ACTED_ON_BUT_TAB_AND_NEWLINE}]")
# Bidirectional embeddings, overrides and isolates: in a page or a figure one in a word (U+202E)
# reverses the rest of the line around it
_REORDERING = "\u202a-\u202e\u2066-\u2069"
# Controls HTML does not allow in text (all but tab, line feed, form feed and carriage return),
# and _REORDERING
NOT_IN_HTML = re.compile(f"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f{_REORDERING}]")
# What a terminal acts on but tab and line feed, the separators of TSV output
ACTED_ON_BUT_TAB_AND_NEWLINE = re.compile(f"[{_ACTED_ON_BUT_TAB_AND_NEWLINE}]")
# What a figure writes out: what XML 1.0 (an SVG) does not allow (controls, form feed among
# them, and U+FFFE, U+FFFF), DEL and the C1 controls (no glyph in any font), and _REORDERING
IN_FIGURES_ESCAPED = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff{_REORDERING}]")


# Scripts written without spaces between words: a tokenizer that splits at spaces keeps a
# whole clause of them as one token.
UNSPACED_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR")


def in_unspaced_script(text: str) -> bool:
    """Whether ``text`` holds a character of a script written without spaces (UNSPACED_SCRIPTS)."""
    return not text.isascii() and any(unicodedata.name(c, "").startswith(UNSPACED_SCRIPTS) for c in text)


def count_of(n: int, noun: str) -> str:
    """ "1 doc", "2 docs": ``n`` and ``noun``, plural (with "s") unless n is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def holds_word(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word`` as a whole word (case-insensitive): "New" is not in "Newcastle"."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def has_word_character(text: str) -> bool:
    """Whether ``text`` holds a letter or digit (a word, not punctuation, space or an emoji)."""
    return any(character.isalnum() for character in text)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…" where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def printable(text: str, unprintable: "re.Pattern[str]" = _UNPRINTABLE) -> str:
    """``text`` with every character a terminal would act on written as its escape
    ("\\x1b", "\\n", "\\u202e"), so that a table row or a message line shows it and stays one
    line; with ``unprintable`` = NOT_IN_HTML, only the controls an HTML page may not hold."""
    if text.isprintable():
        return text
    return unprintable.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def display_width(text: str) -> int:
    """The terminal cells ``text`` takes: two for a wide character (East Asian Width W or
    F: CJK, emoji such as 🍎), none for a combining mark, a format character (U+200B
    zero-width space...) or a control character, one for any other. An emoji sequence
    is one picture, two cells: a symbol followed by U+FE0F (❤️), an emoji with a skin
    tone (👍🏽, ☝🏽), symbols joined by U+200D (👩‍💻, ❤‍🔥), with or without U+FE0F
    (❤️‍🔥, 🏳️‍🌈, 🏃‍♂️). U+200D joins a symbol (category So) to the symbol before it, as
    emoji sequences do, and nothing else (苹‍果 and a‍🍎 stay two clusters); a joined
    cluster is two cells wide, one-cell parts too (👁‍🗨): one picture or two glyphs."""
    width, cells, emoji, joined = 0, 0, False, False
    # cells: those the current cluster takes; emoji: the cluster starts with a symbol, so
    # that U+FE0F, a skin tone or U+200D and a symbol add to it; joined: U+200D came last
    for char in text:
        category = unicodedata.category(char)
        tone = SKIN_TONES[0] <= char <= SKIN_TONES[1]
        if emoji and ((joined and category == "So") or char == VARIATION_SELECTOR_16 or tone):
            # U+FE0F: drawn as an emoji; joined: one picture or two glyphs, two cells either way
            grown = 2 if _wide(char) or char == VARIATION_SELECTOR_16 or joined else cells
            width, cells = width + max(grown - cells, 0), max(grown, cells)
        elif category not in ("Mn", "Me", "Cf", "Cc") or char == "\xad":  # soft hyphen: "-"
            cells, emoji = (2 if _wide(char) else 1), category == "So"
            width += cells
        joined = char == ZERO_WIDTH_JOINER and emoji
    return width


def _wide(char: str) -> bool:
    return char != "" and unicodedata.east_asian_width(char) in ("W", "F")


def pad(text: str, width: int, align: str = "l") -> str:
    """``text`` padded with spaces to ``width`` terminal cells (``display_width``):
    align "l" (left), "r" (right) or "c" (centre)."""
    return _ALIGN[align](text, width + len(text) - display_width(text))


def text_table(
    rows: Sequence[Sequence[str]],
    header: Sequence[str],
    aligns: Sequence[str],
    spacing: int = 3,
    max_col: Optional[int] = None,
) -> str:
    """``rows`` under ``header`` and a divider of dashes, columns padded by display width
    (``pad``) so that wide characters (CJK, emoji) keep them in line, a blank line before
    and after, ``spacing`` spaces between columns. With ``max_col``, no column is padded
    wider than that many cells: a longer cell is shown whole and pushes the rest of its
    row right, as wasabi's max_col does, so that plain text lays out as wasabi's table
    with the same max_col (wasabi's default is 30). Without it (None), each column is as
    wide as its widest cell, which wasabi's table never is past max_col. ValueError where
    ``aligns`` or a row does not have one entry per header column."""
    for what, line in [("aligns", aligns), *((f"row {i}", row) for i, row in enumerate(rows))]:
        if len(line) != len(header):
            raise ValueError(f"text_table: {what} has {len(line)} entries for {len(header)} header columns")
    header, rows = [printable(cell) for cell in header], [[printable(cell) for cell in row] for row in rows]
    widths = [max(display_width(row[i]) for row in [header, *rows]) for i in range(len(header))]
    widths = widths if max_col is None else [min(width, max_col) for width in widths]
    lines: List[Sequence[str]] = [header, ["-" * width for width in widths], *rows]
    gap = " " * spacing
    shown = [gap.join(pad(cell, width, align) for cell, width, align in zip(line, widths, aligns)) for line in lines]
    return "\n{}\n".format("\n".join(shown))


def least_size(n_ranked: int, top_k: int) -> int:
    """How many words a "least" list holds beside a "most" list of ``top_k``: ``top_k``,
    fewer where "most" already holds the others (a word listed as both reads as a
    contradiction)."""
    return max(0, min(top_k, n_ranked - top_k))


def tsv_text(rows: Iterable[Sequence[Any]]) -> str:
    """Rows as tab-separated lines, without a final line end. A cell holding a quote, tab,
    "\\n" or "\\r" is quoted as csv does (``csv.reader(file, delimiter="\\t")`` and pandas'
    ``read_csv(sep="\\t")`` read every cell back as written)."""
    buffer = io.StringIO()
    minimal = csv.writer(buffer, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    # csv quotes the line terminator's characters only: a row with a "\r" (which readers take for a line
    # end) is quoted whole
    every_cell = csv.writer(buffer, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        (every_cell if any("\r" in str(cell) for cell in row) else minimal).writerow(row)
    return buffer.getvalue()[:-1]


def no_letter_note(keys_seen: Sequence[str], words_only: bool) -> str:
    """Where ``words_only`` left out every one of ``keys_seen`` (the types seen often
    enough) because none holds a letter, a sentence saying so; else ""."""
    if not words_only or not keys_seen or any(any(c.isalpha() for c in key) for key in keys_seen):
        return ""
    return (
        f" None of the {len(keys_seen)} types seen that often holds a letter (punctuation, numbers, symbols): "
        "--all-types scores them too."
    )
