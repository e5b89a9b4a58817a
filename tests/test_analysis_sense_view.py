"""analysis.sense_view and `spacy-ctxvec senses --html`: a Doc drawn by displaCy with
each token's sense, label and score (tiny model; senses from a small corpus)."""

import html as html_text
import json
import re

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.analysis.sense_view import SPAN_KEY, render_senses, sense_spans, set_sense_spans
from spacy_ctxvec.cli import app
from spacy_ctxvec.ops.sense_display import SENSE_COLOURS

from .test_evaluation_tasks import build_sense_nlp

runner = CliRunner()
TEXT = "We sat on the bank of a river, then the bank lent us money."


@pytest.fixture(scope="module")
def sense_nlp(tiny_bert_dir):
    return build_sense_nlp(tiny_bert_dir, min_tokens=4)  # "a" (3 occurrences) keeps one sense


def test_render_shows_the_split_words_tokens_with_their_label_and_score(sense_nlp):
    doc = sense_nlp(TEXT)
    spans = sense_spans(doc)
    sensed = [t for t in doc if t._.sense is not None]
    split = [t for t in sensed if t._.n_senses > 1]
    assert [start for start, _, _, _ in spans] == [t.i for t in sensed] and any(t.lower_ == "bank" for t in split)
    assert len(split) < len(sensed)  # words with one sense too: the default drawing leaves them out
    html = render_senses(doc)
    for token, (_, _, label, score) in zip(sensed, spans):
        assert label.startswith(f"{token.text} {token._.sense}")
        if token._.sense_label:
            assert label == f"{token.text} {token._.sense}: {token._.sense_label}"
        if token._.n_senses > 1:
            assert score == token._.sense_score and f"{label} ({score:.2f})" in html
        else:  # one sense: its 1.0 tells nothing apart, so no score and not drawn by default
            assert score is None and label not in html
    for word in ("sat", "river", "money"):
        assert word in html
    assert all(SENSE_COLOURS[token._.sense % len(SENSE_COLOURS)] in html for token in split)
    every = render_senses(doc, min_senses=1)
    assert all(label in every for _, _, label, _ in spans)
    assert [start for start, _, _, _ in sense_spans(doc, min_senses=2)] == [t.i for t in split]
    group = set_sense_spans(doc)
    assert [s.start for s in doc.spans[SPAN_KEY]] == [t.i for t in sensed] and group[0].label_ == spans[0][2]
    assert [s.start for s in set_sense_spans(doc, min_senses=2)] == [t.i for t in split]


def test_each_token_shows_its_sense_and_score_on_one_line_and_the_labels_in_words_are_listed_below(sense_nlp):
    """displaCy's label box is as wide as its token: "bank 1: river, water (0.83)" under
    "I" or "at" wrapped into a tall stack that covered its neighbours and the next line."""
    from html.parser import HTMLParser

    doc = sense_nlp(TEXT + " The bank by the river.")
    split = [t for t in doc if t._.sense is not None and t._.n_senses > 1]
    spans = sense_spans(doc, min_senses=2)
    page = render_senses(doc, page=True)

    class Marks(HTMLParser):
        """The text of each mark under a token (a nowrap label box), its tooltip, and the key's lines."""

        def __init__(self):
            super().__init__()
            self.marks, self.tooltips, self.key, self.in_mark, self.in_key = [], [], [], False, False

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            self.in_mark = self.in_mark or "white-space: nowrap" in attrs.get("style", "")
            if self.in_mark and "title" in attrs:
                self.tooltips.append(attrs["title"])
            if tag == "li":
                self.in_key = True
                self.key.append("")

        def handle_endtag(self, tag):
            self.in_key = self.in_key and tag != "li"

        def handle_data(self, data):
            if self.in_mark and data.strip():
                self.marks.append(data.strip())
                self.in_mark = False
            if self.in_key:
                self.key[-1] += data

    parsed = Marks()
    parsed.feed(page)
    assert parsed.marks == [f"{t._.sense} · {t._.sense_score:.2f}" for t in split]
    assert parsed.tooltips == [f"{label} ({score:.2f})" for _, _, label, score in spans]
    lowered = [label[:1].lower() + label[1:] for _, _, label, _ in spans]  # "The 3" and "the 3": one sense
    labels = list(dict.fromkeys(lowered))
    counts = {label: lowered.count(label) for label in labels}
    assert [" ".join(line.split()) for line in parsed.key] == [
        f"{label} ({counts[label]} token{'s' if counts[label] > 1 else ''})" for label in labels
    ]
    assert len(labels) < len(spans)  # "bank" in the same sense twice: one line
    assert "position: absolute; font-size" not in page  # displaCy's own label box is not used


def test_labels_are_shown_as_text_not_markup(sense_nlp):
    """A label edited by hand ("<script>...") went into the page as markup."""
    senses = sense_nlp.get_pipe("ctxvec_polysemy").senses
    saved = senses.labels
    senses.labels = [["<script>alert(1)</script> & <b>"] for _ in saved]
    try:
        doc = sense_nlp(TEXT)
    finally:
        senses.labels = saved
    split = [t for t in doc if t._.n_senses > 1]
    html = render_senses(doc)
    assert split and "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;" in html
    assert all(SENSE_COLOURS[token._.sense % len(SENSE_COLOURS)] in html for token in split)


def test_the_drawn_text_has_a_space_only_where_the_text_has_one(sense_nlp):
    """displaCy put a space after every token: "interest ." for "interest." (an auditor)."""
    doc = sense_nlp("the bank. the river bank, the (bank) of the river.")
    assert any(t._.sense is not None for t in doc) and any(not t.whitespace_ for t in doc[:-1])
    for page in (True, False):
        drawn = render_senses(doc, page=page, min_senses=1)
        text = drawn[drawn.index('<div class="spans"') :]
        text = re.sub(r'<span style="display: block.*?</span></span>', "", text)  # the mark under a token
        text = re.sub(r"<[^>]+>", "", text)
        assert html_text.unescape(text).strip().startswith(doc.text.strip())


def test_controls_html_does_not_allow_are_written_out(sense_nlp):
    """A text with NUL, ESC or BEL (scraped text) gave a page HTML parsers reject."""
    doc = sense_nlp("the bank\x00 of the \x1b[31mriver\x07 bank")
    page = render_senses(doc, page=True, title="bank\x1b")
    assert not any(c in page for c in "\x00\x07\x1b") and "\\x1b[31mriver" in page and "bank\\x1b" in page
    # a right-to-left override in a word reversed the rest of its line (the key's token counts too)
    reordering = render_senses(sense_nlp("the bank of the ri\u202ever bank"), page=True, title="bank\u2067")
    assert "\u202e" not in reordering and "\u2067" not in reordering and "ri\\u202ever" in reordering


def test_stop_words_can_be_left_out_of_the_drawing_and_the_span_group(sense_nlp, tmp_path):
    """A small corpus splits function words ("the", "of"): skip_stop_words draws and groups
    only the other tokens (token.is_stop, the Doc's language)."""
    doc = sense_nlp(TEXT)
    every = sense_spans(doc)
    kept = sense_spans(doc, skip_stop_words=True)
    assert any(doc[start].is_stop for start, _, _, _ in every)  # the tiny corpus gave "the" a sense
    assert kept == [span for span in every if not doc[span[0]].is_stop] and kept
    the = next(label for start, _, label, _ in every if doc[start].lower_ == "the")
    assert the in render_senses(doc, min_senses=1) and the not in render_senses(doc, min_senses=1, skip_stop_words=True)
    assert [s.start for s in set_sense_spans(doc, skip_stop_words=True)] == [start for start, _, _, _ in kept]
    sense_nlp.to_disk(tmp_path / "pipeline")
    output = tmp_path / "senses.html"
    command = ["senses", str(tmp_path / "pipeline"), "--html", str(output), "--text", TEXT, "--all-words"]
    result = runner.invoke(app, [*command, "--skip-stop-words"])
    left_out = f"{len(every) - len(kept)} stop words left out"  # it said "stop words left out" for none too
    assert result.exit_code == 0 and f"drawn: {len(kept)}, every token with a sense, {left_out}" in result.output
    stop_only = " ".join(doc[start].text for start, _, _, _ in every if doc[start].is_stop)
    nothing = runner.invoke(app, [*command[:-2], stop_only, "--all-words", "--skip-stop-words", "--overwrite"])
    warning = " ".join(nothing.stderr.split())
    assert nothing.exit_code == 0 and "drawn: 0" in nothing.stdout and "[CTX-W039]" in warning
    assert "are stop words, left out by --skip-stop-words" in warning and "--all-words draws" not in warning
    alone = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "bank", "--skip-stop-words"])
    message = " ".join(alone.output.split())
    assert alone.exit_code == 1 and "[CTX-E615] --skip-stop-words only applies with --html" in message


def test_senses_html_command_writes_the_page_through_the_output_rule(sense_nlp, tmp_path):
    sense_nlp.to_disk(tmp_path / "pipeline")
    output = tmp_path / "out" / "senses.html"
    command = ["senses", str(tmp_path / "pipeline"), "--html", str(output), "--text", TEXT]
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    page = output.read_text(encoding="utf8")
    doc = sense_nlp(TEXT)
    n_with_sense = sum(token._.sense is not None for token in doc)
    drawn = sense_spans(doc, min_senses=2)
    assert 0 < len(drawn) < n_with_sense < len(doc)  # the line counts tokens, not words of the text
    wrote = f"Wrote the text's {len(doc)} tokens, {n_with_sense} of them with a sense, to {output}"
    assert f"{wrote}; drawn: {len(drawn)}, those of words with several senses (--all-words: all)" in result.output
    assert page.startswith("<!DOCTYPE html>") and "bank" in page and "money" in page
    assert "<title>Word senses (spacy-ctxvec)</title>" in page and "<title>displaCy</title>" not in page
    assert '<meta charset="utf-8">' in page  # opened from disk, a browser may guess another encoding without it
    assert all(f"{label} ({score:.2f})" in page for _, _, label, score in drawn)
    again = runner.invoke(app, command)
    assert again.exit_code == 1 and "E701" in again.output
    assert runner.invoke(app, [*command, "--overwrite"]).exit_code == 0
    no_text = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "--html", str(tmp_path / "x.html")])
    assert no_text.exit_code == 1 and "E613" in no_text.output and not (tmp_path / "x.html").exists()
    nothing = runner.invoke(app, ["senses", str(tmp_path / "pipeline")])
    assert nothing.exit_code == 1 and "E611" in nothing.output
    # a page under another ending (it wrote HTML into x.pdf), and a WORD without senses: refused, no page written
    for ending, word, code in ((".pdf", "bank", "E429"), (".html", "zebra", "E607")):
        refused = runner.invoke(app, [*command[:3], str(tmp_path / f"y{ending}"), *command[4:], word])
        assert refused.exit_code == 1 and code in refused.output and not (tmp_path / f"y{ending}").exists()
    every = runner.invoke(app, [*command, "--overwrite", "--all-words"])
    assert every.exit_code == 0 and f"drawn: {n_with_sense}, every token with a sense" in every.output, every.output
    assert all(label in output.read_text(encoding="utf8") for _, _, label, _ in sense_spans(doc))
    both = runner.invoke(app, [*command, "--overwrite", "bank"])  # the page, then the word's senses as asked
    assert both.exit_code == 0 and "Wrote the text's" in both.output and "bank (bank):" in both.output, both.output
    as_json = runner.invoke(app, [*command, "--overwrite", "bank", "--format", "json"])  # stdout: the JSON alone
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)[0]["word"] == "bank", as_json.stdout
    assert "Wrote the text's" in as_json.stderr


def test_a_page_with_nothing_drawn_is_written_with_a_warning_saying_why(sense_nlp, tmp_path):
    sense_nlp.to_disk(tmp_path / "pipeline")
    output = tmp_path / "senses.html"
    unknown = runner.invoke(app, ["senses", str(tmp_path / "pipeline"), "--html", str(output), "--text", "xyzzy plugh"])
    warning = " ".join(unknown.stderr.split())
    assert unknown.exit_code == 0 and output.read_text(encoding="utf8").startswith("<!DOCTYPE html>")
    assert "drawn: 0" in unknown.stdout and "[CTX-W039] Nothing was drawn" in warning
    assert "no token of the text has a sense" in warning
    assert "Nothing is drawn: no token of the text has a sense" in output.read_text(encoding="utf8")  # the page too
    one_sense = " ".join(t.text for t in sense_nlp(TEXT) if t._.n_senses == 1)
    command = ["senses", str(tmp_path / "pipeline"), "--html", str(output), "--text", one_sense, "--overwrite"]
    unsplit = runner.invoke(app, command)
    warning = " ".join(unsplit.stderr.split())
    assert unsplit.exit_code == 0 and "split into several senses; --all-words draws" in warning
    single = runner.invoke(app, [*command[:5], one_sense.split()[0], "--overwrite"])
    assert "none of the text's 1 token with a sense is" in " ".join(single.stderr.split())  # was "1 tokens"
    drawn = runner.invoke(app, [*command, "--all-words"])
    assert drawn.exit_code == 0 and "W039" not in drawn.output and "drawn: 0" not in drawn.output


def test_render_senses_misuse_is_coded_and_an_empty_drawing_warns_why(sense_nlp, tiny_nlp):
    """Not a Doc: E617 (were spaCy's E046 for a list, AttributeError for a str); a
    min_senses that is no integer >= 1: E228; nothing drawn: W039 as from the command."""
    from spacy_ctxvec.errors import CtxvecError

    doc = sense_nlp(TEXT)
    for wrong, kind in (([doc, doc], "a list of Docs"), ("the bank", "a str")):
        with pytest.raises(CtxvecError, match=rf"\[CTX-E617\] render_senses takes one spaCy Doc.*got {kind}"):
            render_senses(wrong)
    with pytest.raises(CtxvecError, match=r"\[CTX-E617\] set_sense_spans takes"):
        set_sense_spans("the bank")
    for bad in ("2", 0, True):
        with pytest.raises(CtxvecError, match=r"\[CTX-E228\] min_senses must be an integer of at least 1"):
            render_senses(doc, min_senses=bad)
    with pytest.warns(UserWarning, match=r"CTX-W039.*the Doc has no senses"):
        render_senses(tiny_nlp("the bank"))  # a pipeline without ctxvec_polysemy
    with pytest.warns(UserWarning, match=r"CTX-W039.*no token of the text has a sense"):
        render_senses(sense_nlp("xyzzy plugh"))
    with pytest.warns(UserWarning, match=r"CTX-W039.*split into several senses; min_senses=1 draws"):
        render_senses(sense_nlp(" ".join(t.text for t in doc if t._.n_senses == 1)))
    page = render_senses(doc, page=True, title="<script>alert(1)</script>")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # the page's own <title> is the title given (a browser tab names it), not displaCy's
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>" in page and "<title>displaCy</title>" not in page
    assert "<title>Word senses (spacy-ctxvec)</title>" in render_senses(doc, page=True)
    assert '<html lang="en" dir="ltr">' in page and "direction: ltr" in page


def test_a_pipeline_without_senses_is_e612_before_the_text_is_run(tiny_nlp, tmp_path, monkeypatch):
    from spacy.language import Language

    from spacy_ctxvec.analysis.sense_view import senses_html
    from spacy_ctxvec.errors import CtxvecError

    tiny_nlp.to_disk(tmp_path / "plain")

    def never(*args, **kwargs):
        raise AssertionError("the text was run through a pipeline without senses")

    monkeypatch.setattr(Language, "__call__", never)
    with pytest.raises(CtxvecError, match="E612"):
        senses_html(tmp_path / "plain", TEXT)
    result = runner.invoke(app, ["senses", str(tmp_path / "plain"), "--html", str(tmp_path / "x.html"), "--text", TEXT])
    assert result.exit_code == 1 and "E612" in result.output and not (tmp_path / "x.html").exists()


def test_a_senses_directory_with_html_is_e612_not_a_pipeline_error(sense_nlp, tmp_path):
    """A senses directory answers WORDs but holds no pipeline to run a text through."""
    sense_nlp.get_pipe("ctxvec_polysemy").senses.to_disk(tmp_path / "senses")
    command = ["senses", str(tmp_path / "senses"), "--html", str(tmp_path / "x.html"), "--text", TEXT]
    result = runner.invoke(app, command)
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E612]" in message and "a senses directory alone cannot read" in message
    assert "E011" not in message and not (tmp_path / "x.html").exists()


def test_the_key_lists_a_sense_met_as_of_and_of_once():
    """The key listed "Of 0" and "of 0" (a sentence's first word and the same sense inside
    one) as two senses of one token each; one line now, counted twice, in lower case."""
    from spacy_ctxvec.analysis.sense_view import _sense_key

    spans = [(0, 1, "Of 0: course, England", 0.9), (3, 4, "of 0: course, England", 0.8), (5, 6, "bank 1: river", 0.7)]
    lines = [" ".join(line.split("</span>")) for line in _sense_key(spans, [0, 0, 1]).split("<li>")[1:]]
    assert (
        len(lines) == 2 and "of 0: course, England" in lines[0] and "(2 tokens)" in lines[0] and "Of 0" not in lines[0]
    )
    assert "bank 1: river" in lines[1] and "(1 token)" in lines[1]
    assert "Of 0: course" in _sense_key(spans[:1], [0])  # one form: as written


def test_a_multi_language_page_says_mul_not_xx(tiny_bert_dir, tmp_path):
    """spaCy's "xx" is not a BCP 47 tag (browsers and screen readers read <html lang>): "mul" is."""
    from .conftest import make_sense_nlp
    from .test_components_polysemy import SENSE_LINES

    nlp = make_sense_nlp(str(tiny_bert_dir), SENSE_LINES, tmp_path, lang="xx")
    page = render_senses(nlp("the bank of the river"), min_senses=1, page=True)
    assert '<html lang="mul" dir="ltr">' in page and 'lang="xx"' not in page
