"""`spacy-ctxvec rank PIPELINE_OR_LEXICON`: the most and least polysemous words."""

import json
from pathlib import Path
from typing import AbstractSet, Any, Dict, List, Optional, Tuple

import numpy as np
import typer

from ..errors import CtxvecError, Errors, Warnings
from ..lexicon.polysemy_probe import SCORE_CHOICES, small_lexicon_warning, type_polysemy_scores
from ..lexicon.sense_inventory import SenseInventory
from ..lexicon.statistics import Lexicon
from ..ops.sense_evidence import min_usable
from ..ops.senses import DEFAULT_SAMPLE_SIZE, MIN_SUPPORT, is_word
from ..ops.text import least_size, no_letter_note, text_table, tsv_text
from ..saved_pipeline import (
    english_probe_note,
    load_lexicon,
    load_pipeline_inputs,
    load_probe,
    load_senses_and_lexicon,
    pipeline_stop_words,
    polysemy_setting,
    scoring_min_count,
)
from ..terminal import msg
from ._app import (
    AS_JSON,
    OUTPUT_FORMAT,
    app,
    baseline_text,
    exit_on_coded_error,
    given_path,
    output_format,
    print_output,
    warn_on_stderr,
)

RANK_BY = ("polysemy_score", "corpus_polysemy")
TABLE_MAX_COL = 30  # a longer word is shown whole, past its column (as wasabi's table did)
CORPUS_RANK_NOTE = (
    "{n_with_corpus_polysemy} of the {n_types_with_senses} words with senses have a corpus_polysemy (this "
    "corpus's evidence of distinct uses; a word splits where it passes the threshold at its sample size and "
    "each part keeps min_support occurrences, so a rare word can keep one sense); seen >= {min_count} times"
)


def rank_rows(lexicon: Lexicon, scores: np.ndarray, valid: np.ndarray, top_k: int) -> Dict[str, List[Dict[str, Any]]]:
    """Top-k of the ``valid`` types by ``scores`` (type_polysemy_scores' first two), highest
    ("most") and lowest ("least"), ties by key; a word is in one list only."""
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

    return {"most": describe(order[:top_k]), "least": describe(order[::-1][: least_size(len(order), top_k)])}


def rank_summary(lexicon: Lexicon, valid: np.ndarray, used: str, min_count: int) -> Dict[str, Any]:
    """What a ranking covers: types, types seen ``min_count`` times, scored types, the
    score used, baseline B and counts."""
    return {
        "n_types": len(lexicon),
        "n_types_min_count": int((lexicon.counts >= min_count).sum()),
        "n_scored": int(valid.sum()),
        "by": "polysemy_score",
        "score": used,
        "anisotropy_baseline": round(lexicon.anisotropy_baseline(), 6) if lexicon.has_baseline() else None,
        "min_count": min_count,
        "max_count": int(lexicon.counts.max()) if len(lexicon) else 0,
    }


def score_note(summary: Dict[str, Any], all_types: bool) -> str:
    """The line above a polysemy_score table: how many were scored, of how many types."""
    which = "types" if all_types else "words (types with a letter)"
    return (
        f"{summary['n_scored']} {which} scored, of the {summary['n_types_min_count']} types seen "
        f">= {summary['min_count']} times ({summary['n_types']} types in all); polysemy_score: "
        f"{summary['score']}; baseline B = {baseline_text(summary['anisotropy_baseline'])}"
    )


# The columns of each ranking (TSV's header, also where no word is ranked).
COLUMNS = {
    "polysemy_score": ("word", "polysemy_score", "count", "self_similarity"),
    "corpus_polysemy": ("word", "corpus_polysemy", "n_senses", "count", "judged"),
}


def render(ranked: Dict[str, List[Dict[str, Any]]], fmt: str, summary: Dict[str, Any]) -> str:
    if fmt == "json":
        return json.dumps({**summary, **ranked}, indent=2, ensure_ascii=False)
    columns = COLUMNS[summary["by"]]
    if fmt == "tsv":
        cells: List[Tuple[Any, ...]] = [("order", "rank", *columns)]
        for order, rows in ranked.items():
            cells += [(order, rank, *(row[c] for c in columns)) for rank, row in enumerate(rows, 1)]
        return tsv_text(cells)

    def cell(value: Any) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    parts = []
    aligns = ["r", "l", *["r"] * (len(columns) - 1)]
    for order, rows in ranked.items():
        if not rows:
            parts.append(f"{order.capitalize()} polysemous\n(every word ranked is listed above)")
            continue
        data = [(str(rank), *(cell(row[c]) for c in columns)) for rank, row in enumerate(rows, 1)]
        # padded by display width (a CJK or emoji word keeps the columns in line); max_col: wasabi's default
        table = text_table(data, header=("#",) + columns, aligns=aligns, max_col=TABLE_MAX_COL)
        parts.append(f"{order.capitalize()} polysemous\n" + table)
    return "\n".join(parts)


def ranked_key(key: str, words_only: bool, skipped: AbstractSet[str]) -> bool:
    """Whether a type takes part in a ranking: a word (``is_word``) where ``words_only``,
    and not in ``skipped`` (stop words, compared lowercased)."""
    return (is_word(key) or not words_only) and key.lower() not in skipped


def corpus_rank_rows(
    inventory: SenseInventory,
    lexicon: Lexicon,
    *,
    min_count: int,
    top_k: int,
    words_only: bool = True,
    skipped: AbstractSet[str] = frozenset(),
) -> Dict[str, List[Dict[str, Any]]]:
    """Top-k words by corpus_polysemy (how far its uses in this corpus differ), highest
    ("most") and lowest ("least"), ties by key: words seen at least ``min_count`` times
    that have a corpus_polysemy (and are ``ranked_key``s), with their number of senses,
    count and the distinct sampled occurrences judged (what the value rests on; None for
    senses induced before it was stored); a word is in one list only."""
    entries = []
    for key in inventory.keys:
        evidence, count = inventory.corpus_polysemy_of(key), lexicon.count_of(key)
        if evidence is not None and count >= min_count and ranked_key(key, words_only, skipped):
            entries.append((key, evidence, inventory.n_senses(key), count, inventory.evidence_of(key)[0]))
    entries.sort(key=lambda entry: (-entry[1], entry[0]))

    def describe(chosen: List[Any]) -> List[Dict[str, Any]]:
        return [
            {"word": key, "corpus_polysemy": round(evidence, 6), "n_senses": n, "count": count, "judged": judged}
            for key, evidence, n, count, judged in chosen
        ]

    return {"most": describe(entries[:top_k]), "least": describe(entries[::-1][: least_size(len(entries), top_k)])}


def rank_by_corpus_polysemy(
    source: Path, min_count: int, top_k: int, words_only: bool, skip_stop_words: bool = False
) -> Tuple[Any, Dict[str, Any]]:
    """(ranked, summary) of `rank --by corpus_polysemy` (E606 without senses). The
    summary says how many words have a corpus_polysemy at all (``n_candidates``: of the
    words ranked, any count) and how often the most frequent of them is seen, so that an
    empty ranking can say why (W041)."""
    inventory, lexicon = load_senses_and_lexicon(source)
    if lexicon is None:  # a senses directory holds no lexicon to count with: E225, as load_lexicon says
        lexicon = load_lexicon(source)
    skipped = pipeline_stop_words(source) if skip_stop_words else frozenset()
    ranked = corpus_rank_rows(
        inventory, lexicon, min_count=min_count, top_k=top_k, words_only=words_only, skipped=skipped
    )
    n_listed = len({row["word"] for rows in ranked.values() for row in rows})
    with_evidence = [key for key in inventory.keys if inventory.corpus_polysemy_of(key) is not None]
    candidates = [lexicon.index(key) for key in with_evidence if ranked_key(key, words_only, skipped)]
    counts = [int(lexicon.counts[row]) for row in candidates if row is not None]
    seen = [key for key in with_evidence if (lexicon.count_of(key) >= min_count) and ranked_key(key, words_only, set())]
    left_out = sum(key.lower() in skipped for key in seen)
    summary = {
        "n_types": len(lexicon),
        "n_types_with_senses": len(inventory),
        "n_with_corpus_polysemy": len(with_evidence),
        "n_candidates": len(candidates),
        "max_count": max(counts, default=0),
        "by": "corpus_polysemy",
        "min_count": min_count,
        "n_listed": n_listed,
        **stop_words_summary(left_out, skipped),
        "fix": _no_evidence_fix(inventory, lexicon, len(candidates)),
    }
    return ranked, summary


def _no_evidence_fix(inventory: SenseInventory, lexicon: Lexicon, n_candidates: int) -> str:
    """What gives more words a corpus_polysemy: a larger sample where it holds fewer
    occurrences of a word than one needs, else a lower --min-count or a larger corpus."""
    needed = min_usable(int(inventory.settings.get("min_support", MIN_SUPPORT)))
    k = None if lexicon.sample is None else lexicon.sample.k
    if k is not None and k < needed:
        return (
            f"Its sample keeps at most {k} occurrences of a word and a corpus_polysemy needs {needed}: build the "
            f"lexicon again with --sample-size {needed} or more (the default is {DEFAULT_SAMPLE_SIZE})."
        )
    return LOWER_MIN_COUNT if n_candidates else LARGER_CORPUS


def stop_words_summary(left_out: int, stop_words: AbstractSet[str]) -> Dict[str, int]:
    """How many words a ranking left out as stop words, and the stop list's size (0, 0 without one)."""
    return {"stop_words_left_out": left_out, "stop_list_size": len(stop_words)}


def rank_by_polysemy_score(
    source: Path,
    min_count: int,
    top_k: int,
    score: Optional[str],
    all_types: bool,
    skip_stop_words: bool = False,
) -> Tuple[Any, Dict[str, Any]]:
    """(ranked, summary) of `rank --by polysemy_score`, scored as the pipeline scores
    (E654 for an unknown --score), with ``skip_stop_words`` the pipeline language's stop
    words left out; warns W038 below the pipeline's own min_count."""
    score = score or polysemy_setting(source, "score", "auto")
    if score not in SCORE_CHOICES:
        raise CtxvecError(Errors.E654.format(score=score, choices=", ".join(SCORE_CHOICES)))
    lexicon = load_lexicon(source)
    probe, inputs = load_probe(source), load_pipeline_inputs(source, lexicon)
    scores, valid, used = type_polysemy_scores(lexicon, probe, min_count, score, inputs, not all_types)
    skipped = pipeline_stop_words(source) if skip_stop_words else frozenset()
    is_stop = np.array([key.lower() in skipped for key in lexicon.keys], dtype=bool)
    left_out = int((valid & is_stop).sum())
    valid = valid & ~is_stop
    ranked = rank_rows(lexicon, scores, valid, top_k)
    warn_below_component_min_count(source, min_count)
    for warning in (small_lexicon_warning(lexicon, used), english_probe_note(source, probe, used)):
        if warning:
            warn_on_stderr(warning)
    summary = {**rank_summary(lexicon, valid, used, min_count), **stop_words_summary(left_out, skipped)}
    no_letter, words_too_rare = "", False
    if not valid.any():  # what W031 says about an empty ranking
        no_letter = no_letter_note(lexicon.keys_seen(min_count), not all_types)
        word_counts = [count for key, count in zip(lexicon.keys, lexicon.counts.tolist()) if is_word(key)]
        words_too_rare = bool(word_counts) and max(word_counts) < min_count
    return ranked, {**summary, "no_letter": no_letter, "words_too_rare": words_too_rare}


def show(ranked: Dict[str, List[Dict[str, Any]]], fmt: str, summary: Dict[str, Any], note: str, empty: str) -> None:
    """Print a ranking; as a table, ``note`` above it, or only the warning ``empty`` where
    no word was ranked (on stderr: TSV, its header alone, and JSON, its lists empty, stay parseable)."""
    if not any(ranked.values()):
        warn_on_stderr(empty)
        if fmt == "table":
            return
    if fmt == "table":
        msg.info(note)
    print_output(render(ranked, fmt, summary), json_text=fmt == "json")


SOURCE = typer.Argument(..., parser=given_path, help="Pipeline directory or package with ctxvec_polysemy, or a lexicon")
MIN_COUNT = typer.Option(
    None,
    "--min-count",
    min=2,
    help="Only types with at least this many occurrences (default: the pipeline's min_count, 5 for a lexicon)",
)
TOP_K = typer.Option(20, "--top-k", min=1, help="How many words in each list")
SCORE = typer.Option(
    None,
    "--score",
    help="auto (the polysemy probe where one fits, else self-similarity), probe or self_similarity; "
    "default: the pipeline's own score setting (auto for a lexicon directory)",
)
ALL_TYPES = typer.Option(
    False, "--all-types", help="Also rank types without a letter (punctuation, numbers); default: words only"
)
BY = typer.Option(
    "polysemy_score",
    "--by",
    help="polysemy_score (the word's polysemy in the language) or corpus_polysemy (how far its uses in this "
    "corpus differ, a standardised score that can be negative; needs senses)",
)

SKIP_STOP_WORDS = typer.Option(
    False,
    "--skip-stop-words",
    help="Leave out the stop words of the pipeline's language (SOURCE: a pipeline); small corpora often split them",
)


@app.command("rank")
@exit_on_coded_error
def rank_cli(
    source: Path = SOURCE,
    fmt: Optional[str] = OUTPUT_FORMAT,
    as_json: bool = AS_JSON,
    min_count: Optional[int] = MIN_COUNT,
    top_k: int = TOP_K,
    score: Optional[str] = SCORE,
    all_types: bool = ALL_TYPES,
    by: str = BY,
    skip_stop_words: bool = SKIP_STOP_WORDS,
) -> None:
    """List the most and least polysemous words with their counts."""
    fmt = output_format(fmt, as_json)
    check_by(by)
    min_count = scoring_min_count(source, min_count)
    if by == "corpus_polysemy":
        ranked, summary = rank_by_corpus_polysemy(source, min_count, top_k, not all_types, skip_stop_words)
        most_frequent = f", the most frequent of them seen {summary['max_count']} times" if summary["max_count"] else ""
        empty = Warnings.W041.format(**summary, path=source, most_frequent=most_frequent)
        summary.pop("fix")
        show(ranked, fmt, summary, CORPUS_RANK_NOTE.format(**summary) + stop_words_note(summary), empty)
    else:
        ranked, summary = rank_by_polysemy_score(source, min_count, top_k, score, all_types, skip_stop_words)
        no_letter, words_too_rare = summary.pop("no_letter"), summary.pop("words_too_rare")
        show(
            ranked,
            fmt,
            summary,
            score_note(summary, all_types) + stop_words_note(summary),
            no_score_warning(summary, no_letter, words_too_rare),
        )


# The advice of an empty ranking: a larger corpus, and a lower --min-count only where that can help
LARGER_CORPUS = "Build the lexicon from a larger corpus."
LOWER_MIN_COUNT = "Lower --min-count, or build the lexicon from a larger corpus."


def no_score_warning(summary: Dict[str, Any], no_letter: str, words_too_rare: bool) -> str:
    """W031; its advice to lower --min-count only where the types are too rare (else the
    note on types without a letter says why), words with a letter included."""
    too_rare = summary["max_count"] < summary["min_count"] or not no_letter or words_too_rare
    fix = " " + LOWER_MIN_COUNT if too_rare else ""
    return Warnings.W031.format(**summary, fix=fix, no_letter=no_letter)


def stop_words_note(summary: Dict[str, Any]) -> str:
    n, size = summary.get("stop_words_left_out", 0), summary.get("stop_list_size", 0)
    return f"; {n} stop word{'' if n == 1 else 's'} left out (of the language's list of {size})" if size else ""


def check_by(by: str) -> None:
    if by not in RANK_BY:
        raise CtxvecError(Errors.E228.format(setting="--by", requirement=" or ".join(RANK_BY), value=repr(by)))


def warn_below_component_min_count(source: Path, min_count: int) -> None:
    """W: ``--min-count`` below the pipeline's own min_count ranks words whose tokens get no score."""
    component_min_count = polysemy_setting(source, "min_count", None)
    if component_min_count is not None and min_count < int(component_min_count):
        warn_on_stderr(Warnings.W038.format(min_count=min_count, component_min_count=component_min_count))
