"""Senses seen the spaCy way (issue 21): the dict ``spacy.displacy.render(data,
style="span", manual=True)`` draws, from a text's tokens and its tokens' senses. Pure
Python (no spaCy import): the component or the ``senses --html`` command passes plain values.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

SenseSpan = Tuple[int, int, str, Optional[float]]  # (start token, end token exclusive, label, score)

# Okabe and Ito's colours, told apart with colour-blindness: the colours of groups and senses in
# the figures (analysis.plotting), yellow, the palest, last.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


def tint(colour: str, share: float = 0.5) -> str:
    """``colour`` ("#rrggbb") mixed with ``share`` white: a background black text reads on."""
    rgb = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (255 - c) * share):02x}" for c in rgb)


# Colours of senses 0, 1, 2, ... in displaCy's "span" style (options["colors"]): the figures'
# colours of the same senses, lightened under black text; they repeat after 8.
SENSE_COLOURS = tuple(tint(colour) for colour in OKABE_ITO)


def sense_span_label(word: str, sense: int, label: str) -> str:
    """The text shown on a span: "bank 1: river, water"; no label: "bank 1"."""
    return f"{word} {sense}" + (f": {label}" if label else "")


def displacy_sense_data(
    words: Sequence[str],
    spaces: Sequence[bool],
    spans: Sequence[SenseSpan],
    *,
    title: Optional[str] = None,
    lang: str = "en",
    direction: str = "ltr",
) -> Dict[str, Any]:
    """displaCy "span" data (manual=True) for tokens ``words`` (followed by a space where
    ``spaces``) and ``spans`` (start token, end token exclusive, label, score in [0, 1] or
    None): the text rebuilt from the tokens, one span per entry labelled with its label
    and score (two decimals). Spans outside the tokens or empty are left out. ``lang`` and
    ``direction`` ("ltr" or "rtl"): the text's, for a whole page's <html lang> and direction."""
    starts: List[int] = []
    position = 0
    for word, space in zip(words, spaces):
        starts.append(position)
        position += len(word) + (1 if space else 0)
    text = "".join(word + (" " if space else "") for word, space in zip(words, spaces))
    shown = []
    for start, end, label, score in spans:
        if not 0 <= start < end <= len(starts):
            continue
        shown.append(
            {
                "start": starts[start],
                "end": starts[end - 1] + len(words[end - 1]),
                "start_token": int(start),
                "end_token": int(end),
                "label": shown_label(label, score),
                "kb_id": "",
                "kb_url": "#",
            }
        )
    return {
        "text": text,
        "spans": shown,
        "title": title,
        "tokens": list(words),
        "settings": {"lang": lang, "direction": direction},
    }


def shown_label(label: str, score: Optional[float]) -> str:
    """A span's label as drawn: the label and its score (two decimals), where there is one."""
    return label if score is None else f"{label} ({score:.2f})"


def sense_colour(sense: int) -> str:
    """The colour of sense number ``sense`` (SENSE_COLOURS, repeating after 8)."""
    return SENSE_COLOURS[int(sense) % len(SENSE_COLOURS)]


def sense_colours(spans: Sequence[SenseSpan], senses: Sequence[int]) -> Dict[str, str]:
    """displaCy's options["colors"] for ``spans``: each span's drawn label in the colour of
    its sense number ``senses[i]``, so one sense has one colour and a word's senses differ."""
    return {shown_label(label, score): sense_colour(sense) for (_, _, label, score), sense in zip(spans, senses)}
