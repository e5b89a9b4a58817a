"""`spacy-ctxvec compare`: the seed question, answered for any two sentences."""

import json
from typing import List, Optional

import typer

from ..analysis.comparison import WordComparison, compare_texts, echo
from ..errors import Warnings
from ..ops.text import text_table
from ._app import app, exit_on_coded_error, given_text, warn_on_stderr

MAX_ROWS = 50  # a word seen m times in A and n times in B has m x n pairs


def _fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _cell(token: str, index: int, unknown: bool, unk: str) -> str:
    return f"{token} (#{index})" + (f" as {unk}" if unknown else "")


def render_table(rows: List[WordComparison], unk: str = "[UNK]") -> str:
    """The comparison table, its columns padded by display width: a CJK word or an emoji
    (two terminal cells each) keeps them in line."""
    data = [
        (
            r.word,
            _cell(r.token_a, r.index_a, r.unknown_a, unk),
            _cell(r.token_b, r.index_b, r.unknown_b, unk),
            _fmt(r.static_cosine),
            _fmt(r.context_cosine),
        )
        for r in rows
    ]
    header = ("word", "in text A", "in text B", "static cosine", "contextual cosine")
    # no max_col (unlike wasabi's 30): a long token or word widens its column, so the rows stay in line
    return text_table(data, header=header, aligns=("l", "l", "l", "r", "r"))


@app.command("compare", short_help="A word's static and contextual cosine in two texts.")
@exit_on_coded_error
def compare_command(
    text_a: str = typer.Argument(..., help="First text, e.g. 'I have a apple'"),
    text_b: str = typer.Argument(..., help="Second text, e.g. 'I have a pen'"),
    word: Optional[str] = typer.Option(
        None, "--word", "-w", help="The token to compare (case-insensitive, punctuation too); default: each shared word"
    ),
    pipeline: Optional[str] = typer.Option(
        None,
        "--pipeline",
        "-p",
        parser=given_text,
        help="Pipeline directory, package or .cfg; default: the offline default config",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table"),
    max_rows: int = typer.Option(
        MAX_ROWS,
        "--max-rows",
        min=0,
        help="Show at most this many pairs of occurrences: the first pair of each shared word (of the first N words), "
        "then further pairs while rows are left; 0: all",
    ),
) -> None:
    """Static cosine (same word, same vector: 1.000) next to contextual cosine
    (different contexts, different vectors) for a word in two texts."""
    result = compare_texts(text_a, text_b, word, pipeline, max_rows or None)  # an empty text: E413 before loading
    if as_json:  # the warnings below go to stderr in both modes: the JSON on stdout stays clean
        print(json.dumps(result.to_dict(text_a, text_b), indent=2, ensure_ascii=False))
    else:
        print(f"A: {echo(text_a)}\nB: {echo(text_b)}")
        print(render_table(result.rows, result.unk))
        if result.total_pairs > len(result.rows):
            print(
                f"Showing {len(result.rows):,} of {result.total_pairs:,} pairs of occurrences; --max-rows 0 shows all."
            )
        print("\n".join(result.legend))
    if not result.has_static:
        warn_on_stderr(Warnings.W002)
    unknown_warning = result.unknown_warning()
    if unknown_warning:
        warn_on_stderr(unknown_warning)
