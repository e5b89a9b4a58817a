"""`spacy-ctxvec plot word|layers|polysemy`: parse, call spacy_ctxvec.analysis, print."""

from enum import Enum
from pathlib import Path
from typing import Optional

import numpy as np
import typer

from ..analysis.occurrences import (
    collect_occurrences,
    layer_curves,
    layer_lexicons,
    read_texts,
    sense_counts_for,
)
from ..components.context import ContextVectors
from ..errors import CtxvecError, Errors
from ..paths import check_output_file
from ..pipelines import load_pipeline
from ._app import app, exit_on_coded_error

plot_app = typer.Typer(
    name="plot",
    help="Pictures: one word's occurrences, per-layer self-similarity, polysemy scores (PNG or SVG).",
    no_args_is_help=True,
)
app.add_typer(plot_app, name="plot")


class Projection(str, Enum):
    pca = "pca"


def _at_least_one(option: str, value: int) -> None:
    if value < 1:
        raise CtxvecError(Errors.E228.format(setting=option, requirement="at least 1", value=value))


# plot word
@plot_app.command("word")
@exit_on_coded_error
def plot_word_cli(
    # fmt: off
    word: str = typer.Argument(..., help="The word whose occurrences to plot"),
    sentences: Optional[Path] = typer.Option(None, "--sentences", help="Text file, one sentence per line"),
    corpus: Optional[Path] = typer.Option(
        None, "--corpus", help="Corpus file (.txt one text per line, .jsonl, .spacy)"
    ),
    pipeline: Optional[str] = typer.Option(
        None, "--pipeline", "-p", help="Pipeline directory, package or .cfg (default: configs/default.cfg)"
    ),
    output: Path = typer.Option(Path("word.png"), "--output", "-o", help="Output file, .png or .svg"),
    projection: Projection = typer.Option(Projection.pca, "--projection", help="2-D projection"),
    clusters: int = typer.Option(
        0,
        "--clusters",
        "-k",
        help="0: colour by induced sense when the pipeline has senses, else choose 2..6 k-means clusters by cosine silhouette; k > 0: k clusters",
    ),
    case_sensitive: bool = typer.Option(
        False, "--case-sensitive", help="Match the word's case exactly (default: ignore case)"
    ),
    max_occurrences: int = typer.Option(40, "--max-occurrences", "-n", help="Plot at most this many occurrences"),
    # fmt: on
) -> None:
    """One point per occurrence of WORD (PCA of its contextual vectors, coloured by
    cluster, type centroid starred) beside its contextual and static cosine matrices."""
    from ..analysis.plotting import save_figure, word_picture

    _at_least_one("--max-occurrences (-n)", max_occurrences)
    check_output_file(output, "figure", [sentences, corpus, pipeline])
    read_texts(sentences, corpus)  # fail on bad input before loading the model
    nlp = load_pipeline(pipeline)
    if not any(isinstance(proc, ContextVectors) for _, proc in nlp.pipeline):
        raise CtxvecError(
            Errors.E307.format(
                pipe_names=nlp.pipe_names,
                component="ctxvec_context",
                attribute="token._.context_vec",
                hint="Add it after the transformer, or use configs/default.cfg.",
            )
        )
    source, texts = read_texts(sentences, corpus, nlp.vocab)
    occurrences = collect_occurrences(nlp, texts, word, case_sensitive=case_sensitive, max_occurrences=max_occurrences)
    if len(occurrences.vectors) == 0:
        raise CtxvecError(
            Errors.E402.format(
                word=word,
                source=source,
                n_docs=occurrences.n_texts,
                matching="case-sensitively" if case_sensitive else "ignoring case",
            )
        )
    path = save_figure(word_picture(word, occurrences, clusters=clusters), output)
    typer.echo(f"Wrote {path} ({len(occurrences.vectors)} occurrences of '{word}')")


# plot layers
@plot_app.command("layers")
@exit_on_coded_error
def plot_layers_cli(
    # fmt: off
    pipeline: str = typer.Argument(..., help="Pipeline directory, package or .cfg"),
    corpus: Path = typer.Argument(..., help="Corpus file (.txt one text per line, .jsonl, .spacy)"),
    output: Path = typer.Option(Path("layers.png"), "--output", "-o", help="Output file, .png or .svg"),
    min_count: int = typer.Option(
        5, "--min-count", help="Average self-similarity over word types seen at least this often"
    ),
    max_texts: int = typer.Option(2000, "--max-texts", help="Read at most this many texts"),
    # fmt: on
) -> None:
    """Mean self-similarity and the anisotropy baseline per layer (Ethayarajh 2019)."""
    from ..analysis.plotting import layer_figure, save_figure

    _at_least_one("--max-texts", max_texts)
    check_output_file(output, "figure", [corpus, pipeline])
    read_texts(None, corpus)
    nlp = load_pipeline(pipeline)
    _, texts = read_texts(None, corpus, nlp.vocab)
    lexicons, n_texts = layer_lexicons(nlp, texts, max_texts=max_texts)
    if len(lexicons) < 2:
        raise CtxvecError(Errors.E407.format(name=pipeline))
    curves = layer_curves(lexicons, min_count=min_count)
    if curves.n_types.max(initial=0) == 0:
        raise CtxvecError(Errors.E408.format(min_count=min_count, n_docs=n_texts, corpus=corpus))
    title = f"Self-similarity per layer: {Path(pipeline).name} on {corpus.name}"
    figure = layer_figure(
        curves.layers, curves.mean_self_similarity, curves.baseline, title=title, n_types=curves.n_types.tolist()
    )
    path = save_figure(figure, output)
    summary = ", ".join(f"{layer}: {value:.3f}" for layer, value in zip(curves.layers, curves.mean_self_similarity))
    typer.echo(f"Wrote {path}. Mean self-similarity per layer: {summary}")


# plot polysemy
@plot_app.command("polysemy")
@exit_on_coded_error
def plot_polysemy_cli(
    # fmt: off
    source: str = typer.Argument(..., help="Lexicon directory (build-lexicon output) or pipeline with ctxvec_polysemy"),
    sense_counts: Optional[Path] = typer.Option(
        None, "--sense-counts", help="TSV lemma<TAB>count, e.g. wordnet_sense_counts/sense_counts.tsv"
    ),
    output: Path = typer.Option(Path("polysemy.png"), "--output", "-o", help="Output file, .png or .svg"),
    min_count: int = typer.Option(5, "--min-count", help="Score only words seen at least this often"),
    top_n: int = typer.Option(15, "--top", help="Words in each bar chart"),
    # fmt: on
) -> None:
    """Polysemy score against WordNet sense count (log x), and the most and least
    polysemous words."""
    from ..analysis.plotting import polysemy_figure, save_figure
    from ..lexicon.polysemy_probe import FITTED_HALF, type_polysemy_scores
    from ..saved_pipeline import load_lexicon, load_pipeline_inputs, load_probe

    _at_least_one("--top", top_n)
    check_output_file(output, "figure", [sense_counts, source])
    lexicon = load_lexicon(source)
    probe = load_probe(source)
    scores, valid, used = type_polysemy_scores(lexicon, probe, min_count, inputs=load_pipeline_inputs(source, lexicon))
    if not valid.any():
        raise CtxvecError(Errors.E410.format(min_count=min_count, path=source))
    words = [word for word, keep in zip(lexicon.keys, valid) if keep]
    scores = scores[valid]
    counts, correlation = None, None
    if sense_counts is not None:
        from ..evaluation.metrics import spearman
        from ..evaluation.readers import read_sense_counts

        counts = sense_counts_for(words, read_sense_counts(sense_counts))
        known = counts > 0
        correlation = spearman(np.log(counts[known]), scores[known]) if known.sum() >= 2 else None
    title = f"Polysemy scores ({used}) of {len(words)} words (n >= {min_count}) from {Path(source).name}"
    figure = polysemy_figure(words, scores, sense_counts=counts, correlation=correlation, top_n=top_n, title=title)
    path = save_figure(figure, output)
    message = f"Wrote {path} ({len(words)} words"
    if correlation is not None:
        message += f"; Spearman rho with WordNet sense count {correlation:.3f} over {int((counts > 0).sum())} words"
    if (
        correlation is not None
        and used == "probe"
        and probe is not None
        and probe.meta.get("fitted_words") == FITTED_HALF
    ):
        message += "; the probe was fitted on half of these words: `evaluate polysemy` scores the other half alone"
    typer.echo(message + ")")
