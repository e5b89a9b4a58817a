"""`spacy-ctxvec plot word|layers|polysemy`: pictures of contextual vectors.

spaCy glue only: read texts, run the pipeline, collect vectors; the numbers come
from ops/ and the figures from plotting.py.
"""
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import typer
from spacy.language import Language
from spacy.tokens import Doc

from ..attributes import STATIC_ARRAY
from ..context_component import ContextVectors
from ..corpus import corpus_files, iter_corpus
from ..errors import CtxvecError, Errors
from ..ops.polysemy import Lexicon
from ..pipelines import load_pipeline
from ._app import app, exit_on_coded_error

plot_app = typer.Typer(
    name="plot",
    help="Pictures: one word's occurrences, per-layer self-similarity, polysemy scores (PNG or SVG).",
    no_args_is_help=True,
)
app.add_typer(plot_app, name="plot")

SNIPPET_WINDOW = 4  # tokens of context either side of the word in a snippet


class Projection(str, Enum):
    pca = "pca"


# Text input
def read_texts(sentences: Optional[Path], corpus: Optional[Path], vocab=None) -> Tuple[Path, Iterable]:
    """The input file and its texts: --sentences (one per line) or --corpus (any
    format of spacy_ctxvec.corpus; .spacy files need the pipeline's ``vocab``)."""
    if (sentences is None) == (corpus is None):
        raise CtxvecError(Errors.E403)
    if sentences is not None:
        if not sentences.exists():
            raise CtxvecError(Errors.E404.format(path=sentences))
        lines = sentences.read_text(encoding="utf8").splitlines()
        return sentences, [line.strip() for line in lines if line.strip()]
    corpus_files(corpus)  # raises a coded error for a missing or unsupported corpus now
    return corpus, iter_corpus(corpus, vocab)


def _text_of(item) -> str:
    return item.text if isinstance(item, Doc) else item


# plot word
@dataclass
class Occurrences:
    """Every occurrence of one word: its contextual vector, static vector (or None)
    and a context snippet with the word in brackets."""

    vectors: np.ndarray
    static_vectors: Optional[np.ndarray]
    snippets: List[str]
    n_texts: int


def snippet(doc: Doc, i: int, window: int = SNIPPET_WINDOW) -> str:
    """Up to ``window`` tokens either side of token ``i``, which is put in brackets."""
    start, end = max(0, i - window), min(len(doc), i + 1 + window)
    left = "".join(token.text_with_ws for token in doc[start:i])
    right = "".join(token.text_with_ws for token in doc[i + 1 : end])
    prefix = "… " if start > 0 else ""
    suffix = " …" if end < len(doc) else ""
    return f"{prefix}{left}[{doc[i].text}]{doc[i].whitespace_}{right}".strip() + suffix


def collect_occurrences(
    nlp: Language, texts: Iterable, word: str, *, case_sensitive: bool = False, max_occurrences: int = 40,
    batch_size: int = 32,
) -> Occurrences:
    """Run the pipeline on the texts that contain ``word`` and keep each token equal to
    it (case-insensitive by default) that has a contextual vector, up to ``max_occurrences``."""
    needle = word if case_sensitive else word.lower()

    def contains(text: str) -> bool:
        return needle in (text if case_sensitive else text.lower())

    n_texts = 0

    def candidates() -> Iterable:
        nonlocal n_texts
        for item in texts:
            n_texts += 1
            if contains(_text_of(item)):
                yield item

    vectors: List[np.ndarray] = []
    statics: List[Optional[np.ndarray]] = []
    snippets: List[str] = []
    for doc in nlp.pipe(candidates(), batch_size=batch_size):
        for token in doc:
            form = token.text if case_sensitive else token.lower_
            if form != needle or not token._.has_context_vec:
                continue
            vectors.append(np.asarray(token._.context_vec, dtype=np.float64))
            has_static = doc._.get(STATIC_ARRAY) is not None and token._.has_static_vec
            statics.append(np.asarray(token._.static_vec, dtype=np.float64) if has_static else None)
            snippets.append(snippet(doc, token.i))
        if len(vectors) >= max_occurrences:
            break
    vectors, statics, snippets = vectors[:max_occurrences], statics[:max_occurrences], snippets[:max_occurrences]
    has_static = len(statics) > 0 and all(s is not None for s in statics)
    return Occurrences(
        vectors=np.vstack(vectors) if vectors else np.zeros((0, 0)),
        static_vectors=np.vstack(statics) if has_static else None,
        snippets=snippets,
        n_texts=n_texts,
    )


def word_picture(word: str, occurrences: Occurrences, *, clusters: int = 0, seed: int = 0):
    """The word figure from collected occurrences, ordered by cluster."""
    from ..ops.projection import choose_clusters, pca_2d
    from ..ops.similarity import pairwise_cosine
    from ..plotting import word_figure

    n = len(occurrences.vectors)
    if clusters < 0 or clusters > n:
        raise CtxvecError(Errors.E412.format(n=n, k=clusters))
    labels, _, silhouette = choose_clusters(occurrences.vectors, k=clusters, seed=seed)
    order = np.argsort(labels, kind="stable")
    vectors = occurrences.vectors[order]
    coords, components, mean, explained = pca_2d(vectors)
    centroid = (vectors.mean(axis=0) - mean) @ components.T
    if occurrences.static_vectors is not None:
        static_cosine = pairwise_cosine(occurrences.static_vectors[order])
        static_title = "static vectors (token._.static_vec): cosine"
    else:
        static_cosine = np.ones((n, n))
        static_title = "static vector: cosine\n(one vector per word type, so all 1)"
    return word_figure(
        word, coords, [occurrences.snippets[i] for i in order], labels[order], centroid,
        pairwise_cosine(vectors), static_cosine, explained=explained, static_title=static_title,
        silhouette=silhouette,
    )


@plot_app.command("word")
@exit_on_coded_error
def plot_word_cli(
    # fmt: off
    word: str = typer.Argument(..., help="The word whose occurrences to plot"),
    sentences: Optional[Path] = typer.Option(None, "--sentences", help="Text file, one sentence per line"),
    corpus: Optional[Path] = typer.Option(None, "--corpus", help="Corpus file (.txt one text per line, .jsonl, .spacy)"),
    pipeline: Optional[str] = typer.Option(None, "--pipeline", "-p", help="Pipeline directory, package or .cfg (default: configs/default.cfg)"),
    output: Path = typer.Option(Path("word.png"), "--output", "-o", help="Output file, .png or .svg"),
    projection: Projection = typer.Option(Projection.pca, "--projection", help="2-D projection"),
    clusters: int = typer.Option(0, "--clusters", "-k", help="Number of clusters; 0 = choose 2..6 by cosine silhouette"),
    case_sensitive: bool = typer.Option(False, "--case-sensitive", help="Match the word's case exactly (default: ignore case)"),
    max_occurrences: int = typer.Option(40, "--max-occurrences", "-n", help="Plot at most this many occurrences"),
    # fmt: on
) -> None:
    """One point per occurrence of WORD (PCA of its contextual vectors, coloured by
    cluster, type centroid starred) beside its contextual and static cosine matrices."""
    from ..plotting import save_figure

    read_texts(sentences, corpus)  # fail on bad input before loading the model
    nlp = load_pipeline(pipeline)
    if not any(isinstance(proc, ContextVectors) for _, proc in nlp.pipeline):
        raise CtxvecError(Errors.E014.format(pipe_names=nlp.pipe_names))
    source, texts = read_texts(sentences, corpus, nlp.vocab)
    occurrences = collect_occurrences(nlp, texts, word, case_sensitive=case_sensitive, max_occurrences=max_occurrences)
    if len(occurrences.vectors) == 0:
        raise CtxvecError(Errors.E402.format(word=word, source=source, n_docs=occurrences.n_texts,
                                             matching="case-sensitively" if case_sensitive else "ignoring case"))
    path = save_figure(word_picture(word, occurrences, clusters=clusters), output)
    typer.echo(f"Wrote {path} ({len(occurrences.vectors)} occurrences of '{word}')")


# plot layers
def layer_lexicons(nlp: Language, texts: Iterable, *, max_texts: int, chunk_tokens: int = 8192) -> Tuple[Dict[int, Lexicon], int]:
    """One Lexicon (lower-cased keys) per hidden layer, from the same tokens, and the
    number of texts read."""
    from ..evaluation.vectors import annotated_batches
    from ..ops.polysemy import lexicons_by_layer, merge

    word_lists: List[List[str]] = []
    for item in texts:
        if len(word_lists) >= max_texts:
            break
        words = [token.text for token in (item if isinstance(item, Doc) else nlp.make_doc(item))]
        if words:
            word_lists.append(words)
    merged: Dict[int, Lexicon] = {}
    keys: List[str] = []
    rows: List[np.ndarray] = []

    def flush() -> None:
        if not rows:
            return
        stacked = np.concatenate(rows).transpose(1, 0, 2)  # (n_layers, n_occ, width)
        for layer, lexicon in lexicons_by_layer(keys, stacked).items():
            merged[layer] = lexicon if layer not in merged else merge(merged[layer], lexicon)
        keys.clear()
        rows.clear()

    for batch in annotated_batches(nlp, word_lists):
        for _, doc, layers in batch:
            has_vector = np.asarray(doc._.trf_data.align.lengths) > 0
            keys.extend(token.lower_ for token, keep in zip(doc, has_vector) if keep)
            rows.append(layers[has_vector])
        if len(keys) >= chunk_tokens:
            flush()
    flush()
    return merged, len(word_lists)


@plot_app.command("layers")
@exit_on_coded_error
def plot_layers_cli(
    # fmt: off
    pipeline: str = typer.Argument(..., help="Pipeline directory, package or .cfg"),
    corpus: Path = typer.Argument(..., help="Corpus file (.txt one text per line, .jsonl, .spacy)"),
    output: Path = typer.Option(Path("layers.png"), "--output", "-o", help="Output file, .png or .svg"),
    min_count: int = typer.Option(5, "--min-count", help="Average self-similarity over word types seen at least this often"),
    max_texts: int = typer.Option(2000, "--max-texts", help="Read at most this many texts"),
    # fmt: on
) -> None:
    """Mean self-similarity and the anisotropy baseline per layer (Ethayarajh 2019)."""
    from ..ops.polysemy import layer_curves
    from ..plotting import layer_figure, save_figure

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
    figure = layer_figure(curves.layers, curves.mean_self_similarity, curves.baseline, title=title,
                          n_types=curves.n_types.tolist())
    path = save_figure(figure, output)
    summary = ", ".join(f"{layer}: {value:.3f}" for layer, value in zip(curves.layers, curves.mean_self_similarity))
    typer.echo(f"Wrote {path}. Mean self-similarity per layer: {summary}")


# plot polysemy
def sense_counts_for(words: Sequence[str], sense_counts: Dict[str, int]) -> np.ndarray:
    """Sense count per word (exact lemma first, then lower case); 0 = not in WordNet."""
    return np.array([sense_counts.get(word, sense_counts.get(word.lower(), 0)) for word in words], dtype=np.int64)


@plot_app.command("polysemy")
@exit_on_coded_error
def plot_polysemy_cli(
    # fmt: off
    source: str = typer.Argument(..., help="Lexicon directory (build-lexicon output) or pipeline with ctxvec_polysemy"),
    sense_counts: Optional[Path] = typer.Option(None, "--sense-counts", help="TSV lemma<TAB>count, e.g. wordnet_sense_counts/sense_counts.tsv"),
    output: Path = typer.Option(Path("polysemy.png"), "--output", "-o", help="Output file, .png or .svg"),
    min_count: int = typer.Option(5, "--min-count", help="Score only words seen at least this often"),
    top_n: int = typer.Option(15, "--top", help="Words in each bar chart"),
    # fmt: on
) -> None:
    """Polysemy score against WordNet sense count (log x), and the most and least
    polysemous words."""
    from ..polysemy_component import load_lexicon
    from ..plotting import polysemy_figure, save_figure

    lexicon = load_lexicon(source)
    scores, valid = lexicon.polysemy_scores(min_count)
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
    title = f"Polysemy scores of {len(words)} words (n >= {min_count}) from {Path(source).name}"
    figure = polysemy_figure(words, scores, sense_counts=counts, correlation=correlation, top_n=top_n, title=title)
    path = save_figure(figure, output)
    message = f"Wrote {path} ({len(words)} words"
    if correlation is not None:
        message += f"; Spearman rho with WordNet sense count {correlation:.3f} over {int((counts > 0).sum())} words"
    typer.echo(message + ")")
