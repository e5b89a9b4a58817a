"""`spacy-ctxvec plot word|layers|polysemy`: parse, call spacy_ctxvec.analysis, print.
Figures follow spacy_ctxvec.outputs (never over an input; --overwrite to replace)."""

from enum import Enum
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import CtxvecError, Errors
from ..output_files import FIGURE_FILE
from ..outputs import check_output, write_file
from ..saved_pipeline import scoring_min_count
from ..terminal import shown_line
from ._app import (
    CORPUS_ENCODING,
    CORPUS_ON_ERROR,
    OVERWRITE_FILE,
    app,
    exit_on_coded_error,
    file_output,
    given_path,
    given_text,
    warn_on_stderr,
)

plot_app = typer.Typer(
    name="plot",
    help="Pictures: one word's occurrences, per-layer self-similarity, polysemy scores (PNG, SVG or PDF).",
    no_args_is_help=True,
)
app.add_typer(plot_app, name="plot", short_help="Pictures: a word's occurrences, layers, polysemy.")
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
CORPUS_HELP = "Corpus file or directory of them (.txt one text per line, .jsonl, .spacy)"
FIGURE = typer.Option(
    ..., "--output", "-o", parser=file_output("figure.png"), help="Output file, .png, .svg or .pdf (required)"
)
SENTENCES = typer.Option(None, "--sentences", parser=given_path, help="Text file, one sentence per line")
SENSE_COUNTS = typer.Option(
    None, "--sense-counts", parser=given_path, help="TSV lemma<TAB>count, e.g. wordnet_sense_counts/sense_counts.tsv"
)
CORPUS = typer.Option(None, "--corpus", parser=given_path, help=CORPUS_HELP)
CLUSTERS = typer.Option(
    0,
    "--clusters",
    "-k",
    min=0,
    help="0: colour by induced sense when the pipeline has senses, else choose 2..6 k-means clusters "
    "by cosine silhouette; k > 0: k clusters",
)
PIPELINE = typer.Option(
    None,
    "--pipeline",
    "-p",
    parser=given_text,
    help="Pipeline directory, package or .cfg (default: configs/default.cfg)",
)


SCORED_MIN_COUNT = typer.Option(
    None,
    "--min-count",
    min=2,
    help="Score only words seen at least this often (default: the pipeline's min_count, 5 for a lexicon)",
)


class Projection(str, Enum):
    pca = "pca"


def check_figure(output: Path, overwrite: bool, *inputs: Any) -> None:
    """Before any work: matplotlib is there (E405), and the figure may be written at
    ``output`` (.png, .svg or .pdf)."""
    from ..analysis import plotting  # noqa: F401  (E405 without the optional extra "plot")

    check_output(output, what="figure", inputs=inputs, overwrite=overwrite, replaceable=FIGURE_FILE)
    if output.suffix.lower() not in FIGURE_SUFFIXES:
        raise CtxvecError(Errors.E401.format(path=output))


def save(figure: Any, output: Path, overwrite: bool) -> Path:
    from ..analysis.plotting import save_figure

    write_file(output, lambda tmp: save_figure(figure, tmp, shown_as=output), what="figure", overwrite=overwrite)
    return output


def polysemy_title(data: Any, min_count: int, source: str) -> str:
    """The polysemy figure's title; for a small lexicon (W054) the caveat is in the picture too."""
    title = f"Polysemy scores ({data.used}) of {len(data.words)} words (n >= {min_count}) from {Path(source).name}"
    if data.warning:
        title += "\n(a small lexicon: the scores run high and rank words at most; they are not numbers of senses)"
    if data.language_warning:
        title += "\n(from a probe fitted on English sense counts: they say little about words of another language)"
    return title


# plot word
@plot_app.command("word", short_help="One point per occurrence of WORD, coloured by sense.")
@exit_on_coded_error
def plot_word_cli(
    # fmt: off
    word: str = typer.Argument(..., help="The word whose occurrences to plot"),
    sentences: Optional[Path] = SENTENCES,
    corpus: Optional[Path] = CORPUS,
    pipeline: Optional[str] = PIPELINE,
    output: Path = FIGURE,
    overwrite: bool = OVERWRITE_FILE,
    projection: Projection = typer.Option(Projection.pca, "--projection", help="2-D projection"),
    clusters: int = CLUSTERS,
    case_sensitive: bool = typer.Option(
        False, "--case-sensitive", help="Match the word's case exactly (default: ignore case)"
    ),
    max_occurrences: int = typer.Option(40, "--max-occurrences", "-n", help="Plot at most this many occurrences"),
    encoding: str = CORPUS_ENCODING,
    on_error: str = CORPUS_ON_ERROR,
    # fmt: on
) -> None:
    """Each occurrence of WORD (PCA of its contextual vectors) beside its contextual and static cosines."""
    from ..analysis.occurrences import check_text_source
    from ..analysis.plot_data import check_clusters, check_word, word_occurrences
    from ..analysis.plotting import word_picture
    from ..ops.fingerprint import pooling_of

    word = check_word(word)  # one word, before any model loads
    check_text_source(sentences, corpus)  # the input before the output
    check_figure(output, overwrite, sentences, corpus, pipeline)
    check_clusters(clusters, max_occurrences)  # before the model loads
    reading = {"encoding": encoding, "on_error": on_error}
    occurrences = word_occurrences(
        word, sentences, corpus, pipeline, case_sensitive=case_sensitive, max_occurrences=max_occurrences, **reading
    )
    path = save(word_picture(word, occurrences, clusters=clusters), output, overwrite)
    n = len(occurrences.vectors)
    how = f"; contextual vectors: {pooling_of(occurrences.context_source)}" if occurrences.context_source else ""
    first = ", the first found (-n sets how many)" if occurrences.limit_reached else ""
    if occurrences.n_without_vector:  # glued to an emoji ([CTX-W070]) or cut off by a window ([CTX-W046])
        first += f"; {occurrences.n_without_vector} more without a contextual vector left out (W070, W046)"
    typer.echo(shown_line(f"Wrote {path} ({n} occurrence{'' if n == 1 else 's'} of '{word}'{first}{how})"))


# plot layers
@plot_app.command("layers", short_help="Self-similarity and anisotropy baseline per layer.")
@exit_on_coded_error
def plot_layers_cli(
    # fmt: off
    pipeline: str = typer.Argument(..., parser=given_text, help="Pipeline directory, package or .cfg"),
    corpus: Path = typer.Argument(..., parser=given_path, help=CORPUS_HELP),
    output: Path = FIGURE,
    overwrite: bool = OVERWRITE_FILE,
    min_count: int = typer.Option(
        5, "--min-count", min=2, help="Average self-similarity over word types seen at least this often"
    ),
    max_texts: int = typer.Option(
        2000, "--max-texts", "--max-docs", help="Read at most this many texts (--max-docs as in build-lexicon)"
    ),
    encoding: str = CORPUS_ENCODING,
    on_error: str = CORPUS_ON_ERROR,
    # fmt: on
) -> None:
    """Mean self-similarity and the anisotropy baseline per layer (Ethayarajh 2019)."""
    from ..analysis.plot_data import layer_self_similarity
    from ..analysis.plotting import layer_figure, shown_model

    check_figure(output, overwrite, corpus, pipeline)
    curves = layer_self_similarity(
        pipeline, corpus, min_count=min_count, max_texts=max_texts, encoding=encoding, on_error=on_error
    )
    pooled = f", pooled by {curves.pooling}" if curves.pooling else ""
    model = f"\nmodel {shown_model(curves.model)}" if curves.model else ""
    title = f"Self-similarity per layer: {Path(pipeline).name} on {corpus.name}{pooled}{model}"
    figure = layer_figure(
        curves.layers, curves.mean_self_similarity, curves.baseline, title=title, n_types=curves.n_types.tolist()
    )
    path = save(figure, output, overwrite)
    summary = ", ".join(f"{layer}: {value:.3f}" for layer, value in zip(curves.layers, curves.mean_self_similarity))
    typer.echo(shown_line(f"Wrote {path}. Mean self-similarity per layer: {summary}"))


# plot polysemy


@plot_app.command("polysemy", short_help="Polysemy score against sense counts; top words.")
@exit_on_coded_error
def plot_polysemy_cli(
    # fmt: off
    source: str = typer.Argument(
        ..., parser=given_text, help="Lexicon directory, or pipeline directory or package with ctxvec_polysemy"
    ),
    sense_counts: Optional[Path] = SENSE_COUNTS,
    output: Path = FIGURE,
    overwrite: bool = OVERWRITE_FILE,
    min_count: Optional[int] = SCORED_MIN_COUNT,
    top_n: int = typer.Option(15, "--top", "--top-k", help="Words in each bar chart (--top-k as in rank)"),
    all_types: bool = typer.Option(
        False, "--all-types", help="Also score types without a letter (punctuation, numbers); default: words only"
    ),
    # fmt: on
) -> None:
    """Polysemy score against sense count (log x; a lemma<TAB>count table such as
    WordNet's), and the most and least polysemous words (types holding a letter, unless
    --all-types)."""
    from ..analysis.plot_data import check_at_least_one, polysemy_scores
    from ..analysis.plotting import polysemy_figure

    check_at_least_one("--top (--top-k)", top_n)
    check_figure(output, overwrite, sense_counts, source)
    min_count = scoring_min_count(source, min_count)
    data = polysemy_scores(source, sense_counts, min_count=min_count, words_only=not all_types)
    figure = polysemy_figure(
        data.words,
        data.scores,
        sense_counts=data.counts,
        correlation=data.correlation,
        counts_name=data.counts_name or "",
        n_in_fitted_half=data.n_in_fitted_half,
        top_n=top_n,
        title=polysemy_title(data, min_count, source),
        score_label=data.score_label,
    )
    typer.echo(shown_line(polysemy_summary(save(figure, output, overwrite), data, min_count)))
    for warning in (data.warning, data.language_warning):
        if warning:
            warn_on_stderr(warning)


def polysemy_summary(path: Path, data: Any, min_count: int) -> str:
    """What `plot polysemy` wrote: the words, and the Spearman with the table's counts."""
    message = f"Wrote {path} ({len(data.words)} words seen at least {min_count} times"
    if data.correlation is not None:
        message += f"; Spearman rho with the sense counts of {data.counts_name} {data.correlation:.3f}"
        message += f" over {data.n_known} words"
        if data.n_in_fitted_half is not None:
            message += (
                f", {data.n_in_fitted_half} of them in the md5-even half of words, the half the probe was fitted "
                "on: `evaluate polysemy` scores the other half alone"
            )
    return message + ")"
