"""Senses seen the spaCy way (issue 21): the tokens that have a sense as a span group and
as displaCy's "span" style, each labelled "word sense: label (score)" from
token._.sense, token._.sense_label and token._.sense_score (``ops.sense_display``)."""

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Union

from spacy import displacy
from spacy.tokens import Doc, Span

from ..attributes import SENSE_ARRAY
from ..errors import CtxvecError, Errors
from ..ops.sense_display import SenseSpan, displacy_sense_data, sense_colours, sense_span_label
from ..pipelines import load_pipeline

SPAN_KEY = "ctxvec_senses"


def sense_spans(doc: Doc) -> List[SenseSpan]:
    """(start, end, label, score) of every token with a sense: one-token spans labelled
    "bank 1: river, water" (no label words: "bank 1"), score token._.sense_score."""
    return [
        (
            token.i,
            token.i + 1,
            sense_span_label(token.text, token._.sense, token._.sense_label or ""),
            token._.sense_score,
        )
        for token in doc
        if token._.sense is not None
    ]


def set_sense_spans(doc: Doc, key: str = SPAN_KEY) -> List[Span]:
    """Put the tokens with a sense in ``doc.spans[key]`` (labels as ``sense_spans``,
    without the score) and return them."""
    spans = [Span(doc, start, end, label=label) for start, end, label, _ in sense_spans(doc)]
    doc.spans[key] = spans
    return spans


def render_senses(doc: Doc, *, page: bool = False, title: Optional[str] = None) -> str:
    """HTML of ``doc`` with its senses (displacy.render, style "span", manual=True): each
    token with a sense underlined in its sense's colour and labelled "word sense: label
    (score)". In a notebook, ``IPython.display.HTML(render_senses(doc))``; ``page``: a
    whole HTML page."""
    spans = sense_spans(doc)
    data = displacy_sense_data([t.text for t in doc], [bool(t.whitespace_) for t in doc], spans, title=title)
    colours = sense_colours(spans, [t._.sense for t in doc if t._.sense is not None])
    return displacy.render(data, style="span", manual=True, page=page, jupyter=False, options={"colors": colours})


@dataclass(frozen=True)
class SensePage:
    """A whole HTML page of a text with its senses, and what it shows."""

    html: str
    n_tokens: int
    n_with_sense: int


def senses_html(pipeline: Union[str, Path], text: str) -> SensePage:
    """``text`` run through ``pipeline`` and drawn with its senses on a whole HTML page;
    E612 when the pipeline sets no senses."""
    nlp = load_pipeline(pipeline)
    doc = nlp(text)
    if doc._.get(SENSE_ARRAY) is None:
        raise CtxvecError(Errors.E612.format(path=pipeline))
    html = render_senses(doc, page=True, title="senses (token._.sense: label, token._.sense_score)")
    return SensePage(html, len(doc), sum(token._.sense is not None for token in doc))
