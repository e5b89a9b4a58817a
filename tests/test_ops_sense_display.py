"""Senses drawn by displaCy (ops.sense_display): the manual "span" data renders."""

import spacy
from spacy import displacy

from spacy_ctxvec.ops.sense_display import SENSE_COLOURS, displacy_sense_data, sense_colours, sense_span_label


def test_sense_spans_render_with_their_labels_and_scores():
    doc = spacy.blank("en")("We sat on the bank of the river.")
    label = sense_span_label("bank", 0, "river, water, side")
    data = displacy_sense_data(
        [t.text for t in doc], [bool(t.whitespace_) for t in doc], [(4, 5, label, 0.8234), (7, 8, "river 0", None)]
    )
    assert data["text"] == doc.text
    assert [(s["start"], s["end"]) for s in data["spans"]] == [
        (doc[4].idx, doc[4].idx + 4),
        (doc[7].idx, doc[7].idx + 5),
    ]
    html = displacy.render(data, style="span", manual=True)
    assert "bank 0: river, water, side (0.82)" in html and "river 0" in html and "river 0 (" not in html


def test_spans_outside_the_tokens_are_left_out_and_labels_read_well():
    data = displacy_sense_data(["a", "b"], [True, False], [(1, 3, "x", 0.5), (1, 1, "y", 0.5), (0, 1, "z", 1.0)])
    assert [s["label"] for s in data["spans"]] == ["z (1.00)"]
    assert sense_span_label("play", 2, "") == "play 2"
    assert sense_span_label("play", 1, "stage, actors") == "play 1: stage, actors"


def test_each_sense_is_drawn_in_its_own_colour():
    doc = spacy.blank("en")("the bank by the bank of a bank")
    spans = [(1, 2, "bank 0: river", 0.5), (4, 5, "bank 1: money", 0.25), (7, 8, "bank 0: river", 0.75)]
    colours = sense_colours(spans, [0, 1, 0])
    assert colours == {
        "bank 0: river (0.50)": SENSE_COLOURS[0],
        "bank 1: money (0.25)": SENSE_COLOURS[1],
        "bank 0: river (0.75)": SENSE_COLOURS[0],
    }
    data = displacy_sense_data([t.text for t in doc], [bool(t.whitespace_) for t in doc], spans)
    html = displacy.render(data, style="span", manual=True, options={"colors": colours})
    assert SENSE_COLOURS[0] in html and SENSE_COLOURS[1] in html
    assert sense_colours([(0, 1, "x 9", None)], [9]) == {"x 9": SENSE_COLOURS[9 % len(SENSE_COLOURS)]}


def test_the_texts_language_and_direction_go_into_the_settings_a_page_uses():
    """displaCy writes a page's <html lang> and direction from the data's settings: an
    Arabic text's page is right to left."""
    from spacy import displacy

    data = displacy_sense_data(["بنك", "النهر"], [True, False], [(0, 1, "بنك 1", 0.9)], lang="ar", direction="rtl")
    assert data["settings"] == {"lang": "ar", "direction": "rtl"}
    page = displacy.render(data, style="span", manual=True, page=True, jupyter=False)
    assert '<html lang="ar">' in page and "direction: rtl" in page
    assert displacy_sense_data(["a"], [False], [])["settings"] == {"lang": "en", "direction": "ltr"}
