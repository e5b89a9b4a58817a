"""ops.text: text shortened for messages and labels."""

from hypothesis import given
from hypothesis import strategies as st

from spacy_ctxvec.ops.text import shorten


def test_short_text_is_kept_and_long_text_is_cut_with_an_ellipsis():
    assert shorten("bank", 20) == "bank"
    assert shorten("我有一个苹果" * 10, 8) == "我有一个苹果我…"


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_never_longer_than_the_limit_and_a_prefix_of_the_text(text, limit):
    short = shorten(text, limit)
    assert len(short) <= limit and text.startswith(short.removesuffix("…") if short != text else short)
