import json

import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_ctxvec.lexicon.corpus import CorpusReport, configure_lexicon_corpus, corpus_fingerprint, iter_corpus
from spacy_ctxvec.errors import CtxvecError


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def test_txt_one_document_per_line_skipping_blank_lines(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("first doc\n\n   \nsecond doc\r\n", encoding="utf8")
    assert list(iter_corpus(path)) == ["first doc", "second doc"]


def test_jsonl_text_and_words_rows(tmp_path, vocab):
    path = tmp_path / "c.jsonl"
    rows = [{"text": "a text"}, {"words": ["New York", "is", "big"]}, {"words": ["x", "y"], "spaces": [False, False]}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf8")
    items = list(iter_corpus(path, vocab))
    assert items[0] == "a text"
    assert isinstance(items[1], Doc) and [t.text for t in items[1]] == ["New York", "is", "big"]
    assert items[2].text == "xy"


def test_invalid_json_line_raises_with_line_number(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n\n{"text": broken\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E212.*c\.jsonl, line 3"):
        list(iter_corpus(path))


def test_invalid_lines_skipped_and_reported_with_flag(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\nnot json\n{"other": 1}\n{"text": "fine"}\n', encoding="utf8")
    report = CorpusReport()
    assert list(iter_corpus(path, on_error="skip", report=report)) == ["ok", "fine"]
    assert report.skipped == [(str(path), 2), (str(path), 3)]
    assert report.n_docs == 2
    with pytest.raises(CtxvecError, match="E212.*line 2"):
        list(iter_corpus(path, on_error="raise"))
    path.write_text('{"other": 1}\n', encoding="utf8")
    with pytest.raises(CtxvecError, match="E213.*line 1"):
        list(iter_corpus(path))


def test_empty_corpus_is_a_clear_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("\n\n  \n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E211"):
        list(iter_corpus(path))
    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_text("oops\n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E211"):
        list(iter_corpus(only_bad, on_error="skip"))


def test_docbin_and_directory(tmp_path, vocab):
    nlp = spacy.blank("en")
    DocBin(docs=[nlp("one two"), nlp("three")]).to_disk(tmp_path / "b.spacy")
    (tmp_path / "a.txt").write_text("from text\n", encoding="utf8")
    (tmp_path / "ignored.md").write_text("not a corpus\n", encoding="utf8")
    items = list(iter_corpus(tmp_path, vocab))
    assert items[0] == "from text"
    assert [doc.text for doc in items[1:]] == ["one two", "three"]
    with pytest.raises(CtxvecError, match="E214"):
        list(iter_corpus(tmp_path / "b.spacy"))


def test_bad_paths_and_flags(tmp_path):
    with pytest.raises(CtxvecError, match="E210.*does not exist"):
        list(iter_corpus(tmp_path / "nope.txt"))
    (tmp_path / "c.csv").write_text("x\n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E210.*unsupported suffix"):
        list(iter_corpus(tmp_path / "c.csv"))
    with pytest.raises(CtxvecError, match="E215"):
        list(iter_corpus(tmp_path / "c.csv", on_error="ignore"))


def test_fingerprint_changes_with_content(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("a\n", encoding="utf8")
    first = corpus_fingerprint(path)
    assert corpus_fingerprint(path) == first
    path.write_text("b\n", encoding="utf8")
    assert corpus_fingerprint(path) != first


def test_registered_reader(tmp_path, vocab):
    path = tmp_path / "c.txt"
    path.write_text("hello world\n", encoding="utf8")
    read = spacy.util.registry.misc.get("spacy-ctxvec.lexicon_corpus.v1")(path=str(path))
    assert list(read(vocab)) == ["hello world"]
    with pytest.raises(CtxvecError, match="E215"):
        configure_lexicon_corpus(path=str(path), on_error="ignore")
