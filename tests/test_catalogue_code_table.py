"""docs/errors.md lists every code of the catalogue with its message, readable as Markdown."""

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from spacy_ctxvec.catalogue.code_table import (
    catalogue_messages,
    escape_markdown,
    render_code_table,
    shown_template,
)
from spacy_ctxvec.errors import PREFIX, Errors, Warnings

PAGE = Path(__file__).parents[1] / "docs" / "errors.md"


def shown(child) -> str:
    return f"`{child.content}`" if child.type == "code_inline" else child.content


def table_rows(markdown: str):
    """(code, message) of every body row of the page's tables, as a Markdown reader shows them."""
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(markdown)
    rows, cells, inside_body = [], [], False
    for token in tokens:
        if token.type in ("tbody_open", "tbody_close"):
            inside_body = token.type == "tbody_open"
        elif inside_body and token.type == "tr_open":
            cells = []
        elif inside_body and token.type == "inline":
            cells.append("".join(shown(child) for child in token.children or []))
        elif inside_body and token.type == "tr_close":
            rows.append(tuple(cells))
    return rows


def test_the_page_is_the_catalogue_as_it_is_now():
    # After changing a message: python -m spacy_ctxvec.catalogue.code_table > docs/errors.md
    assert PAGE.read_text(encoding="utf8") == render_code_table()


def test_every_code_is_one_row_whose_text_reads_as_its_message():
    messages = catalogue_messages()
    rows = table_rows(render_code_table())
    assert all(len(row) == 2 for row in rows)
    assert [code for code, _ in rows] == [f"`{PREFIX}{code}`" for code in messages]
    assert dict(rows) == {f"`{PREFIX}{code}`": shown_template(text) for code, text in messages.items()}
    assert {"E001", "E003", "W044"} <= set(messages)
    assert all(hasattr(Errors if code[0] == "E" else Warnings, code) for code in messages)


@pytest.mark.parametrize(
    "text",
    [
        "a | b `x | y` *not bold* _not italic_ <b>not html</b> [not](a link) # not a heading",
        "an unpaired ` backtick | and \\ a backslash",
        "`code at the start` and [brackets] at the end]",
        "an entity &lt;b&gt; and &amp; stays as written, ~~not struck~~",
    ],
)
def test_a_message_with_markdown_characters_stays_one_cell_of_its_own_text(text):
    row = f"| Code | Message |\n|---|---|\n| `X` | {escape_markdown(text)} |\n"
    assert table_rows(row) == [("`X`", text)]


def test_fields_show_by_name_and_doubled_braces_as_single_ones():
    assert shown_template("{share:.0%} of {n!r} in awk 'BEGIN{{RS=\"\"}}'\n   next") == (
        "{share} of {n} in awk 'BEGIN{RS=\"\"}' next"
    )
