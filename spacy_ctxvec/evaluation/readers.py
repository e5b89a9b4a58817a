"""Readers for the evaluation data sets (pure Python + numpy, no spaCy).

Every reader names the file and the 1-based line number of a malformed line. Numbers
read are bounded (finite scores, whole numbers of at most MAX_DIGITS digits, sense
counts up to MAX_SENSE_COUNT) and JSON lines go through the one bounded JSON reader
(``building.bounded_json``), so no input gives an OverflowError or a RecursionError.
"""

import math
import re
import warnings
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from itertools import chain, islice
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import CtxvecError, Errors, Warnings
from ..paths import composed, composed_tokens, text_lines
from ..types import PathLike
from .target_check import warn_if_indices_look_off
from .word_pair_layout import (
    SENSE_TABLE_ROWS,
    PairLayout,
    comment_removal,
    count_row_error,
    first_layout,
    is_finite_number,
    is_whole_number,
    other_table,
    pair_problem,
    parses_as_float,
    pos_tag_warning,
    sense_totals_table,
    split_fields,
)

WIC_SPLITS = ("train", "dev", "test")
WIC_LABEL_SPELLINGS = {"t": True, "true": True, "1": True, "f": False, "false": False, "0": False}  # and SuperGLUE's
MAX_DIGITS = 18  # a whole number read from a file fits int64
MAX_SENSE_COUNT = 10_000  # WordNet's most polysemous lemma has 75 senses
VISIBLE_TARGET = "a target word with a visible character (not only invisible ones such as U+FE0F or U+200B)"


@dataclass
class WicData:
    """One WiC split: n examples, each a target in two whitespace-tokenised sentences."""

    targets: List[str]
    pos: List[str]
    words1: List[List[str]]
    words2: List[List[str]]
    index1: np.ndarray  # (n,) int64, 0-based token index of the target in words1
    index2: np.ndarray
    labels: np.ndarray  # (n,) bool, True = same sense

    def __len__(self) -> int:
        return len(self.targets)

    def head(self, n: int) -> "WicData":
        """The first n examples."""
        return WicData(*(getattr(self, field.name)[:n] for field in dataclass_fields(self)))


@dataclass
class WordPairs:
    """Word pairs with a human similarity score; ``header``: the first line, where it was
    read as a header and skipped ("line 1: word1 word2 score"), else None."""

    words1: List[str]
    words2: List[str]
    scores: np.ndarray  # (n,) float64
    header: Optional[str] = None

    def __len__(self) -> int:
        return len(self.words1)


@dataclass
class ContextPairs:
    """SCWS-style pairs: each word in its own tokenised context, with a human score."""

    words1: List[List[str]]
    words2: List[List[str]]
    index1: np.ndarray  # (n,) int64, the target's token index in words1
    index2: np.ndarray
    scores: np.ndarray  # (n,) float64

    def __len__(self) -> int:
        return len(self.scores)


def existing_data_file(path: PathLike, hint: str) -> Path:
    path = Path(path)
    if not path.is_file():
        problem = "A directory, not a file" if path.is_dir() else "File not found"
        if path.exists() and not path.is_dir():  # a pipe (<(...), /dev/stdin) or a device: read twice, not once
            problem, hint = "Not a regular file (a pipe or a device)", f"Write it to a file first. {hint}"
        raise CtxvecError(Errors.E301.format(problem=problem, path=path, hint=hint))
    return path


# What each reader accepts, for E305 (a file without a usable row).
WIC_FORMAT = (
    "one example per line, 5 tab-separated fields: target, PoS, indices 'i-j', sentence1, "
    "sentence2 (the official WiC SPLIT.data.txt)"
)
WORD_PAIRS_FORMAT = (
    "one pair per line: word1, word2 and a numeric score, separated by tabs, commas or spaces (or SimVerb-3500's "
    "word1, word2, PoS, score, relation); an optional header line names the score column"
)
SCWS_ROW = (
    "at least 8 tab-separated fields, contexts 6 and 7 marking the target as <b> word </b> and a numeric "
    "average rating in field 8"
)
SPACED_WORD = 'a word holding a space {where}? quote it, "ice cream", or separate the fields with tabs'
RATING_ROUNDING = 1e-6  # beyond the rounding of the average's written decimals (0.05 for one)
SCWS_FORMAT = f"SCWS ratings.txt: per line {SCWS_ROW}"
SENSE_COUNTS_FORMAT = (
    "one lemma per line: the lemma, a tab and its whole sense count (1 or more), e.g. 'bank<TAB>18' (a header line "
    "is optional and may name the count column, e.g. 'total'; further tab-separated columns are ignored)"
)


def data_lines(path: Path, compose: bool = True) -> Iterator[Tuple[int, str]]:
    """(1-based line number, line without line end) for every non-blank line, ``composed``
    unless ``compose`` is False; bytes that are not UTF-8 are a coded error naming the
    file and line."""
    for number, line in text_lines(path, compose):
        if (line if compose else composed(line)).strip():  # a line of byte-order marks is blank
            yield number, line


def _lines_unless_another_kind(
    path: Path,
    refusal: Callable[[int, str, str], str],
    other: Callable[[Sequence[Tuple[int, Sequence[str]]]], Optional[Tuple[int, str]]] = lambda _: None,
) -> Iterator[Tuple[int, str]]:
    """data_lines(path), once its first lines are not a sense-count table by part of speech
    (word_pair_layout.other_table, one test for every reader) nor what ``other`` finds there;
    where they are, a CtxvecError(refusal(line number, what the file looks like, that line's
    first 200 characters))."""
    lines = data_lines(path)
    first = list(islice(lines, SENSE_TABLE_ROWS + 1))
    fields = [(number, split_fields(line)) for number, line in first]
    table = other_table(fields) or other(fields)
    if table is not None:
        raise CtxvecError(refusal(table[0], table[1], dict(first)[table[0]][:200]))
    return chain(first, lines)


def _bounded_whole_number(text: str, path: Path, number: int, what: str, maximum: int, minimum: int = 0) -> int:
    """``text`` (ASCII digits) as an int, or E742 when it is outside ``minimum``..``maximum``."""
    digits = text.lstrip("0") or "0"
    value = int(digits) if len(digits) <= MAX_DIGITS else None
    if value is None or not minimum <= value <= maximum:
        shown = text if len(text) <= 40 else f"a {len(text)}-digit number"
        bounds = f"{minimum}..{maximum}"
        raise CtxvecError(Errors.E742.format(path=path, line=number, what=what, value=shown, bounds=bounds))
    return value


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


# WiC
def wic_paths(data_dir: PathLike, split: str) -> Tuple[Path, Path]:
    """The data and gold files of a split: in ``data_dir`` itself, or in its folder named after
    the split, as the official WiC_dataset.zip unpacks (``train/train.data.txt``)."""
    if split not in WIC_SPLITS:
        raise CtxvecError(Errors.E308.format(split=split, choices=", ".join(WIC_SPLITS)))
    data_dir = Path(data_dir)
    if not (data_dir / f"{split}.data.txt").exists() and (data_dir / split / f"{split}.data.txt").exists():
        data_dir = data_dir / split
    return data_dir / f"{split}.data.txt", data_dir / f"{split}.gold.txt"


def read_wic(data_dir: PathLike, split: str) -> WicData:
    """Read ``{split}.data.txt`` and ``{split}.gold.txt`` from ``data_dir``."""
    data_path, gold_path = wic_paths(data_dir, split)
    hint = (
        f"A WiC data directory holds {split}.data.txt and {split}.gold.txt, or a folder {split}/ holding them "
        "(as WiC_dataset.zip unpacks)"
        + (
            "; the test split needs test.gold.txt beside test.data.txt (WiC's own package holds both; some "
            "copies leave the test split out): give the folder that holds them, or report --split dev (the default)."
            if split == "test"
            else "."
        )
    )
    given = Path(data_dir)
    if given.suffix == ".cfg" or (given / "config.cfg").is_file():  # `evaluate wic DATA PIPELINE`
        hint += " This looks like a pipeline: the pipeline comes first, then the WiC data directory."
    if any((given / name).is_file() for name in ("train.jsonl", "val.jsonl")):
        hint += " This folder holds SuperGLUE's WiC (.jsonl), another format: give WiC_dataset.zip's folder."
    if given.is_file():
        raise CtxvecError(Errors.E301.format(problem="A file, not a WiC data directory", path=data_dir, hint=hint))
    data_path, gold_path = existing_data_file(data_path, hint), existing_data_file(gold_path, hint)
    targets, pos, words1, words2, index1, index2, lines = [], [], [], [], [], [], []
    for number, line in data_lines(data_path, compose=False):  # indices count the tokens as written
        fields = line.rstrip("\t").split("\t")  # a trailing tab (a spreadsheet's export) ends no field
        indices = fields[2].split("-") if len(fields) == 5 else []
        if len(indices) != 2 or not all(is_whole_number(i.strip()) for i in indices):
            raise CtxvecError(
                Errors.E302.format(
                    path=data_path,
                    line=number,
                    got=line,
                    expected="5 tab-separated fields: target, PoS, indices 'i-j', sentence1, sentence2",
                )
            )
        sentence1, sentence2 = fields[3].split(), fields[4].split()
        positions = [_bounded_whole_number(i.strip(), data_path, number, "a target index", 2**62) for i in indices]
        for which, (index, words) in enumerate(zip(positions, (sentence1, sentence2)), start=1):
            if index >= len(words):
                raise CtxvecError(
                    Errors.E303.format(
                        path=data_path,
                        line=number,
                        index=index,
                        sentence=f"sentence {which}",
                        n_tokens=len(words),
                        tokens="whitespace tokens",
                    )
                )
        (sentence1, at1), (sentence2, at2) = (
            composed_tokens(sentence1, positions[0]),
            composed_tokens(sentence2, positions[1]),
        )
        if at1 is None or at2 is None:
            raise CtxvecError(Errors.E302.format(path=data_path, line=number, got=line, expected=VISIBLE_TARGET))
        targets.append(composed(fields[0]))
        pos.append(fields[1])
        words1.append(sentence1)
        words2.append(sentence2)
        index1.append(at1)
        index2.append(at2)
        lines.append(number)
    labels = []
    for number, line in data_lines(gold_path):
        label = line.strip().lower()
        if label not in WIC_LABEL_SPELLINGS:
            expected = "a label T or F (or true/false, 1/0)"
            raise CtxvecError(Errors.E302.format(path=gold_path, line=number, got=line, expected=expected))
        labels.append(WIC_LABEL_SPELLINGS[label])
    if len(labels) != len(targets):
        raise CtxvecError(Errors.E304.format(gold=gold_path, n_gold=len(labels), data=data_path, n_data=len(targets)))
    if not targets:
        raise CtxvecError(Errors.E305.format(path=data_path, expected=WIC_FORMAT))
    warn_if_indices_look_off(data_path, targets + targets, words1 + words2, index1 + index2, lines + lines)
    return WicData(
        targets,
        pos,
        words1,
        words2,
        np.array(index1, dtype=np.int64),
        np.array(index2, dtype=np.int64),
        np.array(labels, dtype=bool),
    )


# Word similarity
def read_word_pairs(path: PathLike) -> WordPairs:
    """Read ``word1 word2 score`` pairs (tab, comma or space separated), and the original
    SimLex-999, WordSim-353, RG-65 and SimVerb-3500 layouts (word_pair_layout). The first
    non-blank line is skipped as a header only when it names the score column or has 3
    fields none of which is a number; a row of another width than the layout's, a word
    that is a number or a score that is not is E302 with the file's own line number. A
    sense-count table by part of speech is E328 at its first lines (other_table)."""
    path = existing_data_file(path, "Give a word-pair file: word1, word2, score per line.")
    lines = _lines_unless_another_kind(
        path,
        lambda line, looks_like, got: Errors.E328.format(
            path=path, line=line, looks_like=looks_like, got=got, expected=WORD_PAIRS_FORMAT
        ),
        sense_totals_table,
    )
    words1, words2, scores = [], [], []
    layout: Optional[PairLayout] = None
    header = None
    first_row = (0, 0)  # the line number and width of the first row, where it set the layout
    for number, line in lines:
        fields = split_fields(line)
        if layout is None:
            layout, is_header = first_layout(fields, number)
            if is_header:
                header = f"line {number}: {line.strip()[:200]}"
                continue
            first_row = (number, len(fields))
        problem = pair_problem(fields, layout)
        if problem is not None:
            if problem.endswith("field(s)") and number != first_row[0] and len(fields) != first_row[1] > 0:
                where = "there" if first_row[1] > len(fields) else "in this row"  # the row with more fields
                problem += f"; line {first_row[0]}, the first row, has {first_row[1]}, which set the layout"
                problem += f" ({SPACED_WORD.format(where=where)})"
            message = Errors.E302.format(path=path, line=number, got=line[:200], expected=problem)
            raise CtxvecError(message + comment_removal(fields, path))
        words1.append(fields[0])
        words2.append(fields[1])
        scores.append(_number(fields[layout.score_column]))
    if not scores:
        raise CtxvecError(Errors.E305.format(path=path, expected=WORD_PAIRS_FORMAT))
    if (tagged := pos_tag_warning(path, words1 + words2)) is not None:
        warnings.warn(tagged, stacklevel=2)
    return WordPairs(words1, words2, np.array(scores, dtype=np.float64), header)


def read_word_pair_files(paths: Sequence[PathLike]) -> Dict[str, WordPairs]:
    """read_word_pairs of each file, keyed by the path as given; a file given twice
    (the same file, however spelt) is E325."""
    seen: Dict[Path, str] = {}
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen:
            raise CtxvecError(Errors.E325.format(first=seen[resolved], second=path))
        seen[resolved] = str(path)
    return {str(path): read_word_pairs(path) for path in paths}


# SCWS
def _marked_context(context: str) -> Tuple[List[str], int]:
    """Tokens of a context with the first ``<b> word </b>`` marker removed, and the
    target's index (plain string search: linear time on any line)."""
    start = context.find("<b>")
    end = context.find("</b>", start + 3) if start >= 0 else -1
    if end < 0 or not context[start + 3 : end].strip():
        raise ValueError(context)
    before = context[:start].split()
    target = context[start + 3 : end].split()
    after = context[end + 4 :].split()
    # A multi-token target keeps its first token as the target position.
    return before + target + after, len(before)


def _scws_row(fields: List[str]) -> Tuple[Tuple[List[str], int], Tuple[List[str], int], float]:
    """The two marked contexts and the rating of an SCWS row split at tabs (ValueError: what is wrong)."""
    if len(fields) < 8:
        raise ValueError(f"{SCWS_ROW}; this row has {len(fields)} field(s)")
    contexts = []
    for column in (5, 6):
        try:
            contexts.append(_marked_context(fields[column]))
        except ValueError:
            raise ValueError(f"{SCWS_ROW}; context {column + 1} does not mark its target as <b> word </b>") from None
    try:
        average = _number(fields[7])
    except ValueError:
        raise ValueError(f"{SCWS_ROW}; the average rating {fields[7]!r} is not a finite number") from None
    given = [field.strip() for field in fields[8:]]
    given = given[: max((i + 1 for i, field in enumerate(given) if field), default=0)]  # no trailing empty fields
    ratings = [float(field) for field in given] if all(map(is_finite_number, given)) else []
    decimals = len(fields[7].strip().partition(".")[2]) if "e" not in fields[7].lower() else 15
    if len(ratings) >= 2 and abs(average - np.mean(ratings)) > 0.5 * 10.0**-decimals + RATING_ROUNDING:
        raise ValueError(
            f"{SCWS_ROW}, the mean of the individual ratings after it; field 8 holds {fields[7].strip()} but the "
            f"{len(ratings)} ratings in fields 9-{8 + len(given)} average {np.mean(ratings):.2f}: are the columns "
            "in another order?"
        )
    return contexts[0], contexts[1], average


def read_scws(path: PathLike) -> ContextPairs:
    """SCWS ``ratings.txt``: id, word1, POS1, word2, POS2, context1, context2 (target: <b> word </b>), rating..."""
    path = existing_data_file(path, "Give SCWS ratings.txt (tab-separated, targets marked <b> word </b>).")
    words1, words2, index1, index2, scores, named1, named2, lines = [], [], [], [], [], [], [], []
    for number, line in data_lines(path):
        fields = line.split("\t")
        try:
            (tokens1, i1), (tokens2, i2), score = _scws_row(fields)
        except ValueError as err:
            raise CtxvecError(Errors.E302.format(path=path, line=number, got=line[:200], expected=err)) from None
        words1.append(tokens1)
        words2.append(tokens2)
        index1.append(i1)
        index2.append(i2)
        scores.append(score)
        named1.append(fields[1])
        named2.append(fields[3])
        lines.append(number)
    if not scores:
        raise CtxvecError(Errors.E305.format(path=path, expected=SCWS_FORMAT))
    fix = "Check that each context marks (<b> word </b>) the word of its column (2 or 4)."
    warn_if_indices_look_off(path, named1 + named2, words1 + words2, index1 + index2, lines + lines, fix)
    return ContextPairs(
        words1,
        words2,
        np.array(index1, dtype=np.int64),
        np.array(index2, dtype=np.int64),
        np.array(scores, dtype=np.float64),
    )


# WordNet sense counts
def read_sense_counts(path: PathLike) -> Dict[str, int]:
    """Lemma -> number of senses from ``lemma \\t total ...`` (a header line is skipped).

    Reads ``sense_counts.tsv`` (lemma, total, per-PoS counts) or any two-column
    ``lemma count`` file. Multiword lemmas are kept as written. A first line whose
    count is a number but not a whole one (``1e23``), or a row with spaces for the tab
    (``bank 10``), is an error, not a header. A count above
    MAX_SENSE_COUNT is E742; a lemma given twice with different counts is E302. A
    sense-count table by part of speech (``lemma pos n_senses``) is E329 at its first
    lines, as read_word_pairs recognises it (other_table).
    """
    path = existing_data_file(path, "Give a TSV of lemma and sense count, e.g. sense_counts.tsv.")
    lines = _lines_unless_another_kind(
        path,
        lambda line, looks_like, got: Errors.E329.format(
            path=path, line=line, looks_like=looks_like, got=got, expected=SENSE_COUNTS_FORMAT
        ),
        _word_pairs,
    )
    counts: Dict[str, int] = {}
    column = 1  # of the count: the header may name another
    for position, (number, line) in enumerate(lines):
        fields = line.split("\t")
        if len(fields) <= column or not is_whole_number(fields[column].strip()):
            words = line.split()
            space_separated = len(fields) == 1 and len(words) > 1 and is_whole_number(words[-1])  # "bank 10"
            if position == 0 and not (len(fields) > 1 and parses_as_float(fields[1])) and not space_separated:
                if not _names_columns(line):
                    warnings.warn(Warnings.W053.format(path=path, got=line[:200]), stacklevel=2)
                column = _count_column(fields)
                continue  # a header (not 1e23, not a row with spaces for the tab)
            raise CtxvecError(count_row_error(path, number, line, column))
        # 0 senses: no word to score (such a word was left out of every correlation, unannounced)
        count = _bounded_whole_number(fields[column].strip(), path, number, "the sense count", MAX_SENSE_COUNT, 1)
        lemma = fields[0].strip()  # as word-pair files are read: "bank " matched no word
        if counts.get(lemma, count) != count:
            raise CtxvecError(
                Errors.E302.format(
                    path=path,
                    line=number,
                    got=line,
                    expected=f"each lemma once ({lemma!r} came earlier with {counts[lemma]} senses)",
                )
            )
        counts[lemma] = count
    if not counts:
        raise CtxvecError(Errors.E305.format(path=path, expected=SENSE_COUNTS_FORMAT))
    return counts


def _count_column(header: Sequence[str]) -> int:
    """The column of the sense count that a header line names (COUNT_COLUMN_ORDER: "total" first), else 1."""
    names = [name.strip().lower() for name in header]
    return next((names.index(name) for name in COUNT_COLUMN_ORDER if name in names[1:]), 1)


def _word_pairs(first: Sequence[Tuple[int, Sequence[str]]]) -> Optional[Tuple[int, str]]:
    """(line number, what the file looks like) where a file's first rows are word pairs and
    their scores (word1, word2, a score that is not a whole number): a word-similarity file
    given for sense counts (its first row was skipped as a header, W053, then E302)."""
    rows = first[:SENSE_TABLE_ROWS]
    if rows and all(
        len(row) == 3 and not is_whole_number(row[1]) and parses_as_float(row[2]) and not is_whole_number(row[2])
        for _, row in rows
    ):
        return rows[0][0], "a word-pair file (word1, word2, similarity score: for `evaluate word-sim`)"
    return None


# What the columns of a sense-count header are called (sense_counts.tsv: "lemma total n v a r").
LEMMA_COLUMN_NAMES = frozenset({"lemma", "lemmas", "word", "words", "type", "token", "key"})
COUNT_COLUMN_NAMES = frozenset({"total", "count", "counts", "senses", "n_senses", "sense_count", "n", "number"})
COUNT_COLUMN_ORDER = ("total", "n_senses", "sense_count", "senses", "count", "counts")  # not "n": nouns' count


def _names_columns(line: str) -> bool:
    """Whether a first line skipped as a header names its columns, split at tabs, spaces, commas or semicolons
    (else W053 says it was skipped)."""
    names = [name for name in re.split(r"[\s,;]+", line.lower()) if name]
    return bool(names) and (names[0] in LEMMA_COLUMN_NAMES or (len(names) > 1 and names[1] in COUNT_COLUMN_NAMES))


def __getattr__(name: str) -> Any:
    """``read_sense_sentences`` and ``SenseSentences``, which live in ``sense_sentences`` now, for
    code that imported them from here (read on first use: that module imports this one)."""
    if name in ("read_sense_sentences", "SenseSentences", "SENSE_SENTENCES_FORMAT"):
        from . import sense_sentences

        return getattr(sense_sentences, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
