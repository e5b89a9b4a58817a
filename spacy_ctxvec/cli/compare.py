"""`spacy-ctxvec compare`: the seed question, answered for any two sentences."""

import json
from typing import List, Optional

import typer
from wasabi import msg

from ..analysis.comparison import WordComparison, compare_docs, legend
from ..errors import Warnings
from ..evaluation.token_vectors import require_context_vectors
from ..pipelines import load_pipeline
from ._app import app, exit_on_coded_error


def _fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render_table(rows: List[WordComparison]) -> str:
    from wasabi import table

    data = [
        (
            r.word,
            f"{r.token_a} (#{r.index_a})",
            f"{r.token_b} (#{r.index_b})",
            _fmt(r.static_cosine),
            _fmt(r.context_cosine),
        )
        for r in rows
    ]
    header = ("word", "in text A", "in text B", "static cosine", "contextual cosine")
    return table(data, header=header, divider=True, aligns=("l", "l", "l", "r", "r"))


@app.command("compare", short_help="A word's static and contextual cosine in two texts.")
@exit_on_coded_error
def compare_command(
    text_a: str = typer.Argument(..., help="First text, e.g. 'I have a apple'"),
    text_b: str = typer.Argument(..., help="Second text, e.g. 'I have a pen'"),
    word: Optional[str] = typer.Option(
        None, "--word", "-w", help="The token to compare (case-insensitive, punctuation too); default: each shared word"
    ),
    pipeline: Optional[str] = typer.Option(
        None, "--pipeline", "-p", help="Pipeline directory, package or .cfg; default: the offline default config"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table"),
) -> None:
    """Static cosine (same word, same vector: 1.000) next to contextual cosine
    (different contexts, different vectors) for a word in two texts."""
    nlp = load_pipeline(pipeline)
    require_context_vectors(nlp)
    doc_a, doc_b = nlp(text_a), nlp(text_b)
    rows = compare_docs(doc_a, doc_b, word)
    if as_json:
        print(json.dumps({"text_a": text_a, "text_b": text_b, "rows": [r.to_dict() for r in rows]}, indent=2))
        return
    print(f"A: {text_a}\nB: {text_b}")
    print(render_table(rows))
    print("\n".join(legend(nlp)))
    if "ctxvec_static" not in nlp.pipe_names:
        msg.warn(Warnings.W002)
