"""Every error and warning code with its message, as the Markdown page ``docs/errors.md``.

Write the page again after changing the catalogue:
``python -m spacy_ctxvec.catalogue.code_table > docs/errors.md``
(tests/test_catalogue_code_table.py fails while the page and the catalogue differ).
"""

import re
from string import Formatter
from typing import Dict, List, Tuple

from ..errors import PREFIX, Errors, Warnings

CODE = re.compile(r"[EW]\d{3}")
# Characters Markdown would read as formatting or as a table cell's end, outside code spans
MARKDOWN_SPECIAL = re.compile(r"([\\*_<>\[\]#|&~])")

RANGES: Tuple[Tuple[str, str], ...] = (
    ("E0", "Context vectors, the transformer and pipeline glue"),
    ("E1", "Static vectors"),
    ("E2", "Polysemy, the lexicon and corpora"),
    ("E3", "Evaluation"),
    ("E4", "Plots, comparisons and projects"),
    ("E5", "Build engines (local and Ray)"),
    ("E6", "Senses and the polysemy probe"),
    ("E7", "Outputs and bounded readers"),
    ("W", "Warnings"),
)

HEADER = f"""# Error and warning codes

Every message spacy-ctxvec raises or warns, by code, generated from its catalogue
(`spacy_ctxvec/errors.py` and `spacy_ctxvec/catalogue/`). A message starts with its code in
brackets, e.g. `[{PREFIX}E003]`, so it is never mistaken for one of spaCy's own (`[E001]`).
Words in braces, such as {{path}}, stand for what the message names when it is raised. Errors
are raised as `spacy_ctxvec.errors.CtxvecError` (a `ValueError`; its `code` attribute holds the
code alone, e.g. `"E003"`); a command prints the message wrapped to 80 columns, a `command` in it and
the lines after its first (a command to copy) unbroken, and exits with status 1 (2 for E428 and E705-E708,
which refuse a path argument as Click's usage errors do).
Warnings go through Python's `warnings` module (filter them by their code, e.g.
`warnings.filterwarnings("ignore", message=r"\\[{PREFIX}W044\\]")`, or for a command
`PYTHONWARNINGS="ignore:[{PREFIX}W054]" spacy-ctxvec rank ...`; an "error" filter, such as
`PYTHONWARNINGS=error`, ends a command at the warning, printed as an error, with status 1).
A command prints each coded warning once, however often it is said while the command runs
(the same words from two places, or once per Doc under an "always" filter).
The pages that explain a setting or command name its codes where they apply.
"""


def catalogue_messages() -> Dict[str, str]:
    """Each code's message template, errors then warnings, in code order."""
    messages = {}
    for holder in (*Errors.__mro__, Warnings):
        messages.update({name: text for name, text in vars(holder).items() if CODE.fullmatch(name)})
    return dict(sorted(messages.items(), key=lambda item: (item[0][0] == "W", item[0])))


def shown_template(template: str) -> str:
    """``template`` as a reader sees it: each field as ``{name}`` (no format spec), braces single."""
    pieces = Formatter().parse(template)
    shown = "".join(literal + ("" if field is None else f"{{{field}}}") for literal, field, _, _ in pieces)
    return " ".join(shown.split())


def escape_markdown(text: str) -> str:
    """``text`` as one Markdown table cell: code spans (single backticks) kept, other
    formatting characters escaped (entities and strikethrough too)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        return "\\`".join(MARKDOWN_SPECIAL.sub(r"\\\1", part) for part in parts)
    cells = [
        part.replace("|", "\\|") if inside_code else MARKDOWN_SPECIAL.sub(r"\\\1", part)
        for inside_code, part in ((index % 2 == 1, part) for index, part in enumerate(parts))
    ]
    return "`".join(cells)


def render_code_table() -> str:
    """The whole page: the header, then one table per code range."""
    messages = catalogue_messages()
    lines: List[str] = [HEADER]
    for prefix, title in RANGES:
        codes = [code for code in messages if code.startswith(prefix)]
        if not codes:
            continue
        lines += [f"## {title}", "", "| Code | Message |", "|---|---|"]
        lines += [f"| `{PREFIX}{code}` | {escape_markdown(shown_template(messages[code]))} |" for code in codes]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(render_code_table(), end="")
