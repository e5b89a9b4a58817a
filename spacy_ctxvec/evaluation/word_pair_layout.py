"""The layouts of word-similarity files (pure Python): which line is a header, where the
score is, and what is wrong with a row. Used by readers.read_word_pairs.

Known layouts: ``word1 word2 score`` (SimLex-999's EN-SIMLEX-999.txt, WordSim-353's
EN-WS-353-*.txt, RG-65), the same under a header (WordSim-353 combined.tab/.csv), a header
naming the score column among further columns (SimLex-999.txt: ``SimLex999``;
WordSim-353 set1.tab/set2.tab: ``Human (mean)`` then one column per rater) and SimVerb-3500
(``word1 word2 PoS score relation``; a row may lack the relation). A sense-count table by
part of speech (``lemma pos n_senses``), whose rows look like pairs with a score, is
recognised at its first lines (other_table); anything else, such as a sense-count table
(``lemma total n v a r``), is refused row by row rather than read as pairs of a word and a
number."""

import csv
import math
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..errors import Errors, Warnings

# Names of the score column in the headers of the original files, lower case.
SCORE_HEADERS = ("simlex999", "human (mean)", "score", "similarity", "sim", "rating", "relatedness", "mean", "gold")
PLAIN_PAIR = "word1, word2 and a numeric score (3 fields, e.g. 'old<TAB>new<TAB>1.58')"
SIMVERB_PAIR = "SimVerb-3500's word1, word2, PoS, score and relation (5 fields; the relation may be missing)"
# A sense-count table by part of speech: a header naming a part-of-speech column second, or
# first rows (up to SENSE_TABLE_ROWS, all of them) of a lemma, a WordNet PoS tag and a count.
POS_HEADERS = ("pos", "part of speech", "part-of-speech", "part_of_speech")
POS_TAGS = ("n", "v", "a", "r", "s")  # noun, verb, adjective, adverb, adjective satellite
SENSE_TABLE_ROWS = 3
SENSES_BY_POS = "a sense-count table by part of speech (lemma, part of speech n/v/a/r/s, number of senses)"


@dataclass(frozen=True)
class PairLayout:
    """Where a word-pair file's score is, how many fields a row may have, and what a row
    should look like (for errors)."""

    score_column: int
    min_fields: int
    max_fields: int
    expected: str


PLAIN = PairLayout(2, 3, 3, PLAIN_PAIR)
SIMVERB = PairLayout(3, 4, 5, SIMVERB_PAIR)
HEADER_RULE = f"a first line is a header if it names its score column ({', '.join(SCORE_HEADERS)})"
UNKNOWN = PairLayout(2, 3, 3, f"{PLAIN_PAIR}, or {SIMVERB_PAIR}; {HEADER_RULE}")


def parses_as_float(text: str) -> bool:
    """Whether float() reads ``text`` (inf and nan included: a header never looks like this)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def is_finite_number(text: str) -> bool:
    """Whether ``text`` is a finite number (a score must be one, a word must not)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def split_fields(line: str) -> List[str]:
    """A row's fields: tab-separated if it has a tab, else semicolon- (a spreadsheet's CSV where the
    decimal mark is a comma), else comma-, else space-separated;
    fields are read as CSV (quotes as R and spreadsheets write them: ``"gem","jewel",3.94``,
    also after a space: ``"gem", "jewel"``), and a field in single quotes loses them
    (``'gem' 'jewel' 3.94``); empty fields at the end (a trailing tab) are dropped."""
    delimiter = next((mark for mark in ("\t", ";", ",") if mark in line), " ")
    if delimiter == "," and re.fullmatch(r"\s*\S+\s+\S+\s+[-+]?\d+,\d+\s*", line):  # "gem jewel 3,94": a decimal comma
        delimiter = " "
    text = " ".join(line.split()) if delimiter == " " else line  # any whitespace: a no-break space, U+3000
    try:
        row = next(csv.reader([text], delimiter=delimiter, skipinitialspace=True), [])
    except csv.Error:  # an unclosed quote that runs past csv's field limit: read the fields as written
        row = text.split(delimiter)  # (space-separated text holds single spaces only)
    fields = [_unquoted(field.strip()) for field in row]
    while fields and not fields[-1]:
        fields.pop()
    return fields


def _unquoted(field: str) -> str:
    """``field`` without one pair of single quotes around it (a word's own apostrophes stay)."""
    return field[1:-1] if len(field) > 2 and field[0] == field[-1] == "'" else field


def is_comment(fields: Sequence[str]) -> bool:
    """Whether a line's fields are a comment ("# word1 word2 score"): neither a header nor a pair."""
    return bool(fields) and fields[0].startswith("#")


def header_layout(fields: Sequence[str], number: int) -> Optional[PairLayout]:
    """The layout a file's first line (line ``number``) gives if it is clearly a header,
    else None: it names the score column in column 3 or later (SCORE_HEADERS; the rows
    may then have the header's further columns, no more), or it has the 3 fields of a
    plain row and none of them is a number. A comment ("# word1 word2 score") is neither: it is
    read as a row, so that its own line is named as the one to fix."""
    if is_comment(fields):
        return None
    lowered = [field.lower() for field in fields]
    for column, name in enumerate(lowered[2:], start=2):
        if name in SCORE_HEADERS:
            expected = (
                f"word1, word2 and a numeric score in field {column + 1}, at most {len(fields)} fields "
                f"(the header on line {number} names them)"
            )
            return PairLayout(column, column + 1, len(fields), expected)
    if len(fields) == 3 and not any(parses_as_float(field) or _decimal_comma(field) for field in fields):
        return PLAIN
    return None


def _decimal_comma(field: str) -> bool:
    """Whether ``field`` is a number written with a decimal comma ("3,94")."""
    return re.fullmatch(r"[-+]?\d+,\d+", field.strip()) is not None


def row_layout(fields: Sequence[str]) -> PairLayout:
    """The layout of a file without a header, from its first row: plain (3 fields) or
    SimVerb-3500 (4 or 5 fields, a PoS that is not a number, then the score); UNKNOWN
    (whose rows all fail) for any other shape."""
    if len(fields) == 3:
        return PLAIN
    if len(fields) in (4, 5) and not is_finite_number(fields[2]) and is_finite_number(fields[3]):
        return SIMVERB
    return UNKNOWN


def first_layout(fields: Sequence[str], number: int) -> Tuple[PairLayout, bool]:
    """The layout from a file's first non-blank line (line ``number``), and whether that
    line is a header (skipped) rather than a row."""
    header = header_layout(fields, number)
    return (header, True) if header is not None else (row_layout(fields), False)


def other_table(first: Sequence[Tuple[int, Sequence[str]]]) -> Optional[Tuple[int, str]]:
    """(line number, what the file looks like) when a file's first non-blank lines (line
    number and fields each: the header, if any, and at least SENSE_TABLE_ROWS rows where
    the file has them) are a sense-count table by part of speech rather than word pairs:
    its header names a part-of-speech column second (``lemma pos n_senses``), or its
    first rows all have a part-of-speech tag for word 2 and a whole number for the score.
    None for anything else."""
    if not first:
        return None
    number, fields = first[0]
    lowered = [field.lower() for field in fields]
    if len(fields) >= 3 and lowered[1] in POS_HEADERS and not any(parses_as_float(field) for field in fields):
        return number, f"{SENSES_BY_POS}, its header naming a part-of-speech column second"
    rows = first[1:] if first_layout(fields, number)[1] else first
    rows = rows[:SENSE_TABLE_ROWS]
    if rows and all(len(row) == 3 and row[1].lower() in POS_TAGS and is_whole_number(row[2]) for _, row in rows):
        return rows[0][0], (
            f"{SENSES_BY_POS}, its first rows having a part-of-speech tag where word 2 should be and a "
            "whole number for the score"
        )
    return None


SENSE_TOTALS = "a table of sense counts per lemma (lemma, total senses, then the count per part of speech)"
# The name of the count column second in a sense-count header ("lemma total n v a r")
COUNT_HEADERS = ("total", "count", "senses", "n_senses", "sense_count")


def sense_totals_table(first: Sequence[Tuple[int, Sequence[str]]]) -> Optional[Tuple[int, str]]:
    """(line number, what the file looks like) when a file's first non-blank lines are a table
    of sense counts per lemma (what `evaluate polysemy` reads) rather than word pairs: a header
    naming a count column second, or first rows whose fields after the lemma are all whole
    numbers (a word pair's word 2 never is). None for anything else."""
    if not first:
        return None
    number, fields = first[0]
    if len(fields) >= 2 and fields[1].lower() in COUNT_HEADERS:
        return number, f"{SENSE_TOTALS}, its header naming a count column second"
    rows = first[:SENSE_TABLE_ROWS]
    if all(len(row) >= 2 and all(is_whole_number(field) for field in row[1:]) for _, row in rows):
        return rows[0][0], f"{SENSE_TOTALS}, its first rows holding whole numbers after the lemma"
    return None


def is_whole_number(text: str) -> bool:
    """ASCII digits only (str.isdigit also accepts e.g. superscripts, which int() refuses):
    in a score column, a sense count rather than a similarity score."""
    return text.isascii() and text.isdigit()


def pair_problem(fields: Sequence[str], layout: PairLayout) -> Optional[str]:
    """What a row should have been under ``layout`` and what is wrong with it, or None
    for a good row."""
    if is_comment(fields):
        return f"{layout.expected}, not a comment; remove the comment lines (the command below)"
    if not layout.min_fields <= len(fields) <= layout.max_fields:
        return f"{layout.expected}; this row has {len(fields)} field(s)"
    for column in (0, 1):
        if not fields[column]:
            return f"{layout.expected}; word {column + 1} is empty"
        if is_finite_number(fields[column]):
            index = column == 0 and len(fields) > 3 and not is_finite_number(fields[1])  # pandas/R's row names
            hint = (
                "a row number or index column first? write the file without it (pandas: index=False; R: "
                "row.names = FALSE)"
                if index
                else "is this another kind of file, e.g. sense counts?"
            )
            return f"{layout.expected}; word {column + 1} is the number {fields[column]!r}, not a word ({hint})"
    if not is_finite_number(fields[layout.score_column]):
        score = fields[layout.score_column]
        hint = f" (a decimal comma: write {score.replace(',', '.')}, e.g. a spreadsheet's '.' decimal mark)"
        hint *= _decimal_comma(score)
        return f"{layout.expected}; the score {score!r} is not a finite number{hint}"
    return None


# A part-of-speech tag ending a word ("love-n", "bank_NOUN"), as some copies of these data sets write them
POS_SUFFIX = re.compile(r"[-_](?:noun|verb|adj|adv|n|v|a|r|s|j)$", re.IGNORECASE)


def pos_tag_warning(path: Path, words: Sequence[str]) -> Optional[str]:
    """W092 where at least half of ``words`` end in a part-of-speech tag; None otherwise."""
    tagged = [word for word in words if POS_SUFFIX.search(word)]
    if not tagged or 2 * len(tagged) < len(words):
        return None
    quoted = shlex.quote(str(path))
    return Warnings.W092.format(path=path, n=len(tagged), total=len(words), example=tagged[0], quoted_path=quoted)


def comment_removal(fields: Sequence[str], path: Path) -> str:
    """Where ``fields`` is a comment, the command that removes the comment lines of the word-pair
    file at ``path``, on a line of its own (the CLI prints it unwrapped); else ""."""
    return f"\n    grep -v '^[[:space:]]*#' {shlex.quote(str(path))} > pairs.txt" if is_comment(fields) else ""


def count_row_error(path: Path, number: int, line: str, column: int) -> str:
    """E302 for a sense-count row, with a hint where it looks like a word pair, and the command
    that mends a file with the count first or comma-separated (on a line of its own)."""
    words = line.split()
    expected = f"a lemma and a whole sense count (column {column + 1}), tab-separated"
    command = ""
    if len(words) == 3 and parses_as_float(words[2]) and not is_whole_number(words[1]):  # "old new 1.58"
        expected += " (this row looks like a word pair and its score: a word-pair file is for `evaluate word-sim`)"
    elif len(fields := line.split("\t")) >= 2 and is_whole_number(fields[0].strip()) and fields[1].strip().isalpha():
        expected += " (this row has its count first: the command below puts each row's lemma first)"
        swap = "awk -F'\\t' -v OFS='\\t' '{t = $1; $1 = $2; $2 = t; print}'"
        command = f"\n    {swap} {shlex.quote(str(path))} > sense_counts.tsv"
    elif "\t" not in line and "," in line:
        expected += " (this row is comma-separated: the command below makes it tab-separated)"
        command = f"\n    tr ',' '\\t' < {shlex.quote(str(path))} > sense_counts.tsv"
    return Errors.E302.format(path=path, line=number, got=line, expected=expected) + command
