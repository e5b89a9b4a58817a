"""Tokens that hold letters or digits yet got no contextual vector (W046).

The transformer reads at most its model's maximum length in wordpieces per window: a
token of many wordpieces (a long run of text without spaces, as Chinese or Japanese text,
base64 or a long URL are to spaCy's English tokenizer) fills a window and the tokens after
it in that window get no wordpiece, so no vector: a lexicon then silently counts fewer
tokens. Whitespace and tokens of characters the model drops (zero-width, control) get none
by design and are not counted here."""

from typing import Sequence

import numpy as np
from spacy.tokens import Doc

from ..building.shard import words_without_vector
from ..errors import Warnings, warn_at_user_line
from ..ops.text import has_word_character, printable, shorten

N_EXAMPLES = 3


def warn_of_lost_tokens(docs: Sequence[Doc], masks: Sequence[np.ndarray], component: str) -> bool:
    """W046 for the first Doc of ``docs`` with lost tokens; True if it warned (callers warn once)."""
    for doc, mask in zip(docs, masks):
        lost = words_without_vector(doc, mask)
        if lost:
            examples = ", ".join(f"'{printable(shorten(doc[i].text, 20))}' (token {i})" for i in lost[:N_EXAMPLES])
            longest = max(doc, key=len)
            words = sum(1 for token in doc if has_word_character(token.text))
            warn_at_user_line(
                Warnings.W046.format(
                    component=component,
                    n_lost=len(lost),
                    n_words=words,
                    examples=examples,
                    longest=len(longest),
                )
            )
            return True
    return False
