"""`spacy-ctxvec rank PIPELINE_OR_LEXICON`: the most and least polysemous words."""

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import typer
from wasabi import msg

from ..errors import CtxvecError, Errors, Warnings
from ..lexicon.polysemy_probe import SCORE_CHOICES, PolysemyProbe, type_polysemy_scores
from ..lexicon.statistics import Lexicon
from ..ops.senses import is_word
from ..saved_pipeline import load_lexicon, load_pipeline_inputs, load_probe, polysemy_setting
from ._app import app, exit_on_coded_error

FORMATS = ("table", "tsv", "json")


def rank_rows(
    lexicon: Lexicon,
    *,
    min_count: int,
    top_k: int,
    probe: Optional[PolysemyProbe] = None,
    score: str = "auto",
    inputs: Optional[np.ndarray] = None,
    words_only: bool = True,
) -> Dict[str, List[Dict[str, Any]]]:
    """Top-k types by polysemy score (see type_polysemy_scores), highest ("most") and
    lowest ("least"), ties by key; ``words_only``: types holding a letter only."""
    scores, valid = ranked_scores(lexicon, probe, min_count, score, inputs, words_only)[:2]
    self_sim = lexicon.self_similarity().filled(0.0)
    rows = np.flatnonzero(valid)
    order = rows[np.lexsort((np.array(lexicon.keys, dtype=str)[rows], -scores[rows]))]

    def describe(indices: np.ndarray) -> List[Dict[str, Any]]:
        return [
            {
                "word": lexicon.keys[i],
                "polysemy_score": round(float(scores[i]), 6),
                "count": int(lexicon.counts[i]),
                "self_similarity": round(float(self_sim[i]), 6),
            }
            for i in indices
        ]

    return {"most": describe(order[:top_k]), "least": describe(order[::-1][:top_k])}


def ranked_scores(
    lexicon: Lexicon,
    probe: Optional[PolysemyProbe],
    min_count: int,
    score: str,
    inputs: Optional[np.ndarray],
    words_only: bool,
):
    """type_polysemy_scores, with ``words_only`` leaving out types without a letter."""
    scores, valid, used = type_polysemy_scores(lexicon, probe, min_count, score, inputs)
    if words_only:
        valid = valid & np.array([is_word(key) for key in lexicon.keys], dtype=bool)
    return scores, valid, used


def rank_summary(lexicon: Lexicon, valid: np.ndarray, used: str, min_count: int) -> Dict[str, Any]:
    """What a ranking covers: types, scored types, the score used, baseline B and counts."""
    return {
        "n_types": len(lexicon),
        "n_scored": int(valid.sum()),
        "score": used,
        "anisotropy_baseline": round(lexicon.anisotropy_baseline(), 6),
        "min_count": min_count,
        "max_count": int(lexicon.counts.max()) if len(lexicon) else 0,
    }


def render(ranked: Dict[str, List[Dict[str, Any]]], fmt: str, summary: Dict[str, Any]) -> str:
    if fmt == "json":
        return json.dumps({**summary, **ranked}, indent=2, ensure_ascii=False)
    columns = ("word", "polysemy_score", "count", "self_similarity")
    if fmt == "tsv":
        lines = ["\t".join(("order", "rank") + columns)]
        for order, rows in ranked.items():
            lines += [
                "\t".join([order, str(rank)] + [str(row[c]) for c in columns]) for rank, row in enumerate(rows, 1)
            ]
        return "\n".join(lines)
    from wasabi import table

    parts = []
    for order, rows in ranked.items():
        data = [
            (rank, r["word"], f"{r['polysemy_score']:.3f}", r["count"], f"{r['self_similarity']:.3f}")
            for rank, r in enumerate(rows, 1)
        ]
        parts.append(
            f"{order.capitalize()} polysemous\n"
            + table(data, header=("#",) + columns, divider=True, aligns=("r", "l", "r", "r", "r"))
        )
    return "\n".join(parts)


@app.command("rank")
@exit_on_coded_error
def rank_cli(
    source: Path = typer.Argument(..., help="Pipeline directory or package with ctxvec_polysemy, or a lexicon"),
    fmt: str = typer.Option("table", "--format", help="table, tsv or json"),
    min_count: int = typer.Option(5, "--min-count", min=2, help="Only types with at least this many occurrences"),
    top_k: int = typer.Option(20, "--top-k", min=1, help="How many words in each list"),
    score: Optional[str] = typer.Option(
        None,
        "--score",
        help="auto (the polysemy probe where one fits, else self-similarity), probe or self_similarity; "
        "default: the pipeline's own score setting (auto for a lexicon directory)",
    ),
    all_types: bool = typer.Option(
        False, "--all-types", help="Also rank types without a letter (punctuation, numbers); default: words only"
    ),
) -> None:
    """List the most and least polysemous words with their counts."""
    if fmt not in FORMATS:
        raise CtxvecError(Errors.E230.format(fmt=fmt, choices=", ".join(FORMATS)))
    score = score or polysemy_setting(source, "score", "auto")
    if score not in SCORE_CHOICES:
        raise CtxvecError(Errors.E654.format(score=score, choices=", ".join(SCORE_CHOICES)))
    lexicon = load_lexicon(source)
    probe, inputs = load_probe(source), load_pipeline_inputs(source, lexicon)
    options = {"min_count": min_count, "top_k": top_k, "probe": probe, "score": score, "inputs": inputs}
    ranked = rank_rows(lexicon, **options, words_only=not all_types)  # type: ignore[arg-type]
    _, valid, used = ranked_scores(lexicon, probe, min_count, score, inputs, not all_types)
    warn_below_component_min_count(source, min_count)
    summary = rank_summary(lexicon, valid, used, min_count)
    if fmt == "table" and not summary["n_scored"]:
        msg.warn(Warnings.W031.format(**summary))
        return
    if fmt == "table":
        msg.info(
            f"{summary['n_scored']} of {summary['n_types']} types have >= {min_count} occurrences; "
            f"polysemy_score: {used}; "
            f"baseline B = {summary['anisotropy_baseline']:.4f}"
        )
    print(render(ranked, fmt, summary))


def warn_below_component_min_count(source: Path, min_count: int) -> None:
    """W: ``--min-count`` below the pipeline's own min_count ranks words whose tokens get no score."""
    component_min_count = polysemy_setting(source, "min_count", None)
    if component_min_count is not None and min_count < int(component_min_count):
        msg.warn(Warnings.W038.format(min_count=min_count, component_min_count=component_min_count))
