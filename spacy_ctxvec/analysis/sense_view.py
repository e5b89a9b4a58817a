"""Senses seen the spaCy way (issue 21): the tokens that have a sense as a span group and
as displaCy's "span" style, each span labelled "word sense: label" (drawn: its sense and score
under the token, the labels in a key below the text) from token._.sense, token._.sense_label and
token._.sense_score (``ops.sense_display``). The
drawing shows the words this corpus split by default: a word with one sense has nothing to
tell apart, and on a page of running text they are many of its tokens."""

import html as html_text
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from spacy.displacy.render import SpanRenderer
from spacy.displacy.templates import TPL_SPAN, TPL_SPAN_SLICE
from spacy.tokens import Doc, Span
from spacy.util import escape_html

from ..attributes import SENSE_ARRAY
from ..building.shard import polysemy_components
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..lexicon.sense_inventory import SENSES_FILE
from ..ops.sense_display import (
    SenseSpan,
    displacy_sense_data,
    sense_colour,
    sense_colours,
    sense_span_label,
    shown_label,
)
from ..ops.text import NOT_IN_HTML, count_of, printable
from ..pipelines import load_pipeline

SPAN_KEY = "ctxvec_senses"
PAGE_TITLE = "Word senses (spacy-ctxvec)"  # the <title> of senses_html's page
PAGE_HEADING = "senses (token._.sense: label, token._.sense_score)"
# How render_senses and senses --html name drawing one-sense words too and leaving out stop words
PYTHON_OPTIONS = ("min_senses=1", "skip_stop_words")
CLI_OPTIONS = ("--all-words", "--skip-stop-words")
# displaCy's "span" templates (its options["template"]) with the mark under a token in the flow of the
# text, on one line: displaCy's label box is absolute, as wide as its token, so a label wider than a short
# word wrapped into a stack over its neighbours and the next line; in the flow it widens its token instead
# The token's box without the line breaks around it, which a browser showed as a space after every
# token ("interest ."): _SpacedSpanRenderer puts a space only where the text has one.
_BOXED = TPL_SPAN.replace("display: inline-block;", "display: inline-block; vertical-align: top;")
SPAN_TEMPLATES = {
    "span": "".join(line.strip() for line in _BOXED.split("\n")),
    "slice": "".join(line.strip() for line in TPL_SPAN_SLICE.split("\n")),
    "start": (
        '<span style="background: {bg}; top: {top_offset}px; height: 4px; left: -1px; width: calc(100% + 2px); '
        'position: absolute;"></span><span style="display: block; margin-top: 8px; background: {bg}; color: #000; '
        "padding: 2px 3px; font-size: 0.75em; font-weight: bold; line-height: 1; border-radius: 3px; "
        'white-space: nowrap">{label}{kb_link}</span>'
    ),
}


def _html_text(text: str) -> str:
    """``text`` as the page shows it: controls written out, then escaped for HTML."""
    return html_text.escape(printable(text, NOT_IN_HTML))


def sense_spans(doc: Doc, *, min_senses: int = 1, skip_stop_words: bool = False) -> List[SenseSpan]:
    """(start, end, label, score) of every token with a sense whose word has at least
    ``min_senses`` senses (and, with ``skip_stop_words``, that is not a stop word of the
    Doc's language: ``token.is_stop``): one-token spans labelled "bank 1: river, water" (no
    label words: "bank 1"), score token._.sense_score; None for a word with one sense (its
    sense_score 1.0 tells nothing apart, so it is not drawn as a confidence)."""
    _check_arguments("sense_spans", doc, min_senses)
    return _sense_spans(doc, min_senses, skip_stop_words)


def _sense_spans(doc: Doc, min_senses: int, skip_stop_words: bool) -> List[SenseSpan]:
    return [
        (
            token.i,
            token.i + 1,
            sense_span_label(token.text, token._.sense, token._.sense_label or ""),
            token._.sense_score if token._.n_senses > 1 else None,
        )
        for token in doc
        if token._.sense is not None and token._.n_senses >= min_senses and not (skip_stop_words and token.is_stop)
    ]


def set_sense_spans(doc: Doc, key: str = SPAN_KEY, *, min_senses: int = 1, skip_stop_words: bool = False) -> List[Span]:
    """Put the tokens with a sense (as ``sense_spans`` chooses them) in ``doc.spans[key]``
    (labels as ``sense_spans``, without the score) and return them."""
    _check_arguments("set_sense_spans", doc, min_senses)
    chosen = _sense_spans(doc, min_senses, skip_stop_words)
    spans = [Span(doc, start, end, label=label) for start, end, label, _ in chosen]
    doc.spans[key] = spans
    return spans


def render_senses(
    doc: Doc, *, min_senses: int = 2, skip_stop_words: bool = False, page: bool = False, title: Optional[str] = None
) -> str:
    """HTML of ``doc`` with its senses (displaCy's "span" style, a space only where the text has one): each
    token of a word with at least ``min_senses`` senses (default: the words this corpus
    split; 1: every token with a sense; ``skip_stop_words``: not the stop words, which a
    small corpus often splits) underlined in its sense's colour and marked with its sense and
    score ("word sense: label (score)" as its tooltip), and below the text one line per sense
    drawn with its label in words. In a notebook, ``IPython.display.HTML(render_senses(doc))``; ``page``: a
    whole HTML page."""
    _check_arguments("render_senses", doc, min_senses)
    drawn = _draw(doc, min_senses, skip_stop_words, page=page, title=title, options=PYTHON_OPTIONS)
    if not drawn.n_drawn:
        why = why_nothing_drawn(drawn, *PYTHON_OPTIONS, annotated=doc._.get(SENSE_ARRAY) is not None)
        warnings.warn(Warnings.W039.format(why=why), stacklevel=2)
    return drawn.html


def why_nothing_drawn(page: "SensePage", all_words: str, skip_stop_words: str, *, annotated: bool = True) -> str:
    """W039's reason when ``page`` drew no token; ``all_words`` and ``skip_stop_words``: the
    option (or argument) that draws one-sense words too and the one that left stop words out."""
    if not annotated:
        return (
            "the Doc has no senses: run the text through a pipeline whose ctxvec_polysemy has senses "
            "(one saved by `spacy-ctxvec build-lexicon`)"
        )
    if page.n_with_sense == 0:
        return (
            "no token of the text has a sense (its words are not in the corpus the senses were induced "
            "from, were seen fewer than min_count times or hold no letter; or the tokens have no contextual "
            "vector: a word glued to a character the model cannot read, such as an emoji, has none)"
        )
    if page.n_stop_words_left_out:
        are = "is a stop word" if page.n_stop_words_left_out == 1 else "are stop words"
        return f"the {count_of(page.n_stop_words_left_out, 'token')} it would draw {are}, left out by {skip_stop_words}"
    return (
        f"none of the text's {count_of(page.n_with_sense, 'token')} with a sense is of a word this corpus split "
        f"into several senses; {all_words} draws the tokens of one-sense words too"
    )


def _check_arguments(function: str, doc: Any, min_senses: Any) -> None:
    """E617 for anything but a Doc, E228 for a min_senses that is not an integer of at least 1."""
    if not isinstance(doc, Doc):
        kind = f"a {type(doc).__name__}" + (" of Docs" if isinstance(doc, (list, tuple)) else "")
        raise CtxvecError(Errors.E617.format(function=function, kind=kind))
    if isinstance(min_senses, bool) or not isinstance(min_senses, int) or min_senses < 1:
        requirement = "an integer of at least 1"
        raise CtxvecError(Errors.E228.format(setting="min_senses", requirement=requirement, value=min_senses))


def _draw(
    doc: Doc,
    min_senses: int,
    skip_stop_words: bool,
    *,
    page: bool,
    title: Optional[str],
    options: Tuple[str, str],
    tab: Optional[str] = None,
) -> "SensePage":
    """The HTML of the tokens ``_sense_spans`` chooses, and what it shows; a page's <title>
    is ``tab``, else ``title``, else PAGE_TITLE. Where nothing is drawn, the HTML says why
    (``why_nothing_drawn`` with ``options``, the names of the settings it may advise)."""
    spans = _sense_spans(doc, min_senses, skip_stop_words)
    left_out = len(_sense_spans(doc, min_senses, False)) - len(spans) if skip_stop_words else 0
    shown = SensePage("", len(doc), sum(token._.sense is not None for token in doc), len(spans), left_out)
    annotated = doc._.get(SENSE_ARRAY) is not None
    note = "" if spans else f"Nothing is drawn: {why_nothing_drawn(shown, *options, annotated=annotated)}."
    return replace(shown, html=_render_spans(doc, spans, page=page, title=title, tab=tab, note=note))


def _render_spans(
    doc: Doc, spans: List[SenseSpan], *, page: bool, title: Optional[str], tab: Optional[str], note: str = ""
) -> str:
    # displaCy puts the title and span labels into the page as they are: escaped, they are shown
    # as text (a label written by hand may hold "<" or "&")
    escaped = None if title is None else _html_text(title)
    senses = [doc[start]._.sense for start, _, _, _ in spans]
    # under each token only its sense and score, whole on one line, the full label on hover (a label
    # box is as wide as its token, so "bank 1: river, water (0.83)" wrapped into a tall stack that
    # covered its neighbours and the next line); the labels in words in the key below the text
    marked = [
        (start, end, _token_mark(sense, label, score), None) for (start, end, label, score), sense in zip(spans, senses)
    ]
    direction = doc.vocab.writing_system.get("direction", "ltr")
    words = [printable(t.text, NOT_IN_HTML) for t in doc]  # displaCy escapes the words for HTML itself
    spaces = [bool(t.whitespace_) for t in doc]
    data = displacy_sense_data(words, spaces, marked, title=escaped, lang=doc.lang_, direction=direction)
    options = {"colors": sense_colours(marked, senses), "template": SPAN_TEMPLATES}
    drawn = _SpacedSpanRenderer(options, spaces).render([data], page=page).strip()
    key = _sense_key(spans, senses) or (
        f'<div class="ctxvec-sense-key"><p>{_html_text(note)}</p></div>' if note else ""
    )
    if not page:
        return drawn + key
    head, tail = drawn.rsplit("</body>", 1)  # displaCy escapes the text: this is the page's own
    drawn = head + key + "</body>" + tail
    # displaCy's page is titled "displaCy": a browser tab says what the page is instead
    tab_title = _html_text(tab) if tab else escaped or PAGE_TITLE
    # the page is written as UTF-8: a browser opening the file may guess another encoding without this
    drawn = drawn.replace("<title>displaCy</title>", f'<meta charset="utf-8">\n<title>{tab_title}</title>', 1)
    # displaCy sets the direction in CSS only; browsers and screen readers read <html dir>; spaCy's
    # multi-language "xx" is no language tag: BCP 47 says "mul"
    lang = "mul" if doc.lang_ == "xx" else doc.lang_
    return drawn.replace(f'<html lang="{doc.lang_}">', f'<html lang="{lang}" dir="{direction}">', 1)


class _SpacedSpanRenderer(SpanRenderer):
    """displaCy's "span" renderer (what displacy.render(style="span", manual=True) runs) with a
    space after a token only where the text has one: displaCy puts one after every token."""

    def __init__(self, options: Dict[str, Any], spaces: Sequence[bool]) -> None:
        super().__init__(options=options)
        self.spaces = list(spaces)

    def _render_markup(self, per_token_info: List[Dict[str, Any]]) -> str:
        markup = []
        for token, space in zip(per_token_info, self.spaces):
            boxed = bool(token["entities"]) and token["text"].strip() != ""  # as displaCy decides
            markup.append(super()._render_markup([token]) if boxed else escape_html(token["text"]))
            markup.append(" " if space else "")
        return "".join(markup)


def _token_mark(sense: int, label: str, score: Optional[float]) -> str:
    """What displaCy writes under a token: its sense and score, with the full label as a tooltip."""
    full = _html_text(shown_label(label, score))
    return f'<span title="{full}">{sense}' + ("" if score is None else f" · {score:.2f}") + "</span>"


def _sense_key(spans: List[SenseSpan], senses: List[int]) -> str:
    """The labels in words of the senses drawn, one line each in the order they first appear,
    in their colour, with how many tokens of the text have them. A sense met as "Of" and "of"
    (a sentence's first word) is one line, its word in lower case."""
    counts = Counter(_word_lowered(label) for _, _, label, _ in spans)
    if not counts:
        return ""
    colour_of = {_word_lowered(span[2]): sense_colour(sense) for span, sense in zip(spans, senses)}
    written: Dict[str, str] = {}
    for _, _, label, _ in spans:  # as written where the text has one form, else the word in lower case
        key = _word_lowered(label)
        written[key] = label if written.get(key, label) == label else key
    lines = [
        f'<li><span style="background: {colour_of[key]}; padding: 1px 4px; border-radius: 3px">'
        f"{_html_text(written[key])}</span> ({count_of(n, 'token')})</li>"
        for key, n in counts.items()
    ]
    return (
        '<div class="ctxvec-sense-key" style="margin-top: 2em; line-height: 1.8">'
        "<p>The senses drawn (word sense: label in words). Under each token: its sense and its sense_score "
        "(0 to 1, how clearly it is that sense).</p>"
        f'<ul style="list-style: none; padding: 0">{"".join(lines)}</ul></div>'
    )


def _word_lowered(label: str) -> str:
    """ "Of 0: course" -> "of 0: course": the word in lower case, its label words as they are."""
    word, space, rest = label.partition(" ")
    return word.lower() + space + rest


@dataclass(frozen=True)
class SensePage:
    """A whole HTML page of a text with its senses, and what it shows."""

    html: str
    n_tokens: int
    n_with_sense: int
    n_drawn: int
    n_stop_words_left_out: int = 0  # tokens it would draw but for skip_stop_words


def senses_html(
    pipeline: Union[str, Path], text: str, *, min_senses: int = 2, skip_stop_words: bool = False
) -> SensePage:
    """``text`` run through ``pipeline`` and drawn with its senses on a whole HTML page
    (the tokens ``sense_spans`` chooses); E612 when the pipeline sets no senses, checked
    before the text is run through it (and for a senses directory, which holds no pipeline)."""
    if (Path(pipeline) / SENSES_FILE).is_file():
        raise CtxvecError(Errors.E612.format(path=pipeline))
    nlp = load_pipeline(pipeline)
    if not any(getattr(nlp.get_pipe(name), "senses", None) is not None for name in polysemy_components(nlp)):
        raise CtxvecError(Errors.E612.format(path=pipeline))
    if skip_stop_words and not nlp.Defaults.stop_words:
        effect = "no token is left out as a stop word"
        warn_at_user_line(Warnings.W082.format(lang=nlp.lang, where=pipeline, effect=effect))
    doc = nlp(text)
    if doc._.get(SENSE_ARRAY) is None:
        raise CtxvecError(Errors.E612.format(path=pipeline))
    return _draw(doc, min_senses, skip_stop_words, page=True, title=PAGE_HEADING, tab=PAGE_TITLE, options=CLI_OPTIONS)
