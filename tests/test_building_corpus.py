import json

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_ctxvec.building.corpus import CorpusReport, configure_lexicon_corpus, corpus_fingerprint, iter_corpus
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


# Bad input: one coded error naming file and line (issue 12)
def test_undecodable_lines_are_named_skipped_or_read_with_the_right_encoding(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("caf\u00e9 one\n".encode("utf8") + "na\u00efve two\n".encode("latin-1") + b"three\n")
    with pytest.raises(CtxvecError, match=r"E240.*latin\.txt, line 2: not valid utf-8 text \(byte 0xef"):
        list(iter_corpus(path))
    report = CorpusReport()
    assert list(iter_corpus(path, on_error="skip", report=report)) == ["caf\u00e9 one", "three"]
    assert report.skipped == [(str(path), 2)]
    assert list(iter_corpus(path, encoding="latin-1"))[1:] == ["na\u00efve two", "three"]
    rows = tmp_path / "rows.jsonl"
    rows.write_bytes(b'{"text": "ok"}\n{"text": "\xff"}\n')
    with pytest.raises(CtxvecError, match=r"E240.*rows\.jsonl, line 2"):
        list(iter_corpus(rows))
    with pytest.raises(CtxvecError, match="E241.*no-such-codec"):
        list(iter_corpus(path, encoding="no-such-codec"))


def test_binary_file_and_utf16_and_byte_order_mark(tmp_path):
    binary = tmp_path / "binary.txt"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(CtxvecError, match=r"E240.*binary\.txt, line 3"):
        list(iter_corpus(binary))
    utf16 = tmp_path / "u16.jsonl"
    utf16.write_text('{"text": "wide text"}\n', encoding="utf-16")
    assert list(iter_corpus(utf16, encoding="utf-16")) == ["wide text"]
    with_bom = tmp_path / "bom.jsonl"
    with_bom.write_bytes(b'\xef\xbb\xbf{"text": "after a BOM"}\n')
    assert list(iter_corpus(with_bom)) == ["after a BOM"]


@pytest.mark.parametrize(
    "row,problem",
    [
        ({"words": ["a", "", "b"]}, r"\"words\"\[1\] is an empty string"),
        ({"words": ["a", "b"], "spaces": [True]}, '"spaces" has 1 values for 2 words'),
        ({"words": ["a", "b"], "spaces": [1, 0]}, '"spaces" must be a list of true/false'),
        ({"words": ["a"], "spaces": "yes"}, '"spaces" must be a list of true/false'),
        ({"text": "half \ud800 a pair"}, '"text" contains an unpaired surrogate'),
    ],
)
def test_bad_words_rows_are_named(tmp_path, vocab, row, problem):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "fine"}\n' + json.dumps(row) + "\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E242.*rows\.jsonl, line 2: " + problem):
        list(iter_corpus(path, vocab))
    report = CorpusReport()
    assert list(iter_corpus(path, vocab, on_error="skip", report=report)) == ["fine"]
    assert report.skipped == [(str(path), 2)]


def test_deeply_nested_json_line_is_a_coded_error(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"text": "fine"}\n' + "[" * 100_000 + "\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E212.*deep\.jsonl, line 2.*nested too deeply"):
        list(iter_corpus(path))
    assert list(iter_corpus(path, on_error="skip")) == ["fine"]


def test_damaged_docbin_files_are_coded_errors(tmp_path, vocab):
    import srsly

    nlp = spacy.blank("en")
    good = DocBin(docs=[nlp("one two three")] * 20).to_bytes()
    cases = {
        "truncated": good[: len(good) // 2],
        "random": bytes(np.random.default_rng(0).integers(0, 256, 500, dtype=np.uint8)),
        "empty": b"",
        "wrong_keys": srsly.msgpack_dumps({"not": "a docbin"}),
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.spacy"
        path.write_bytes(data)
        with pytest.raises(CtxvecError, match=rf"E243.*{name}\.spacy"):
            list(iter_corpus(path, vocab))


def test_registered_reader_encoding_and_skip_warning(tmp_path, vocab):
    path = tmp_path / "c.txt"
    path.write_bytes("r\u00e9sum\u00e9 text\n".encode("latin-1") + b"plain\n")
    with pytest.raises(CtxvecError, match=r"E240.*c\.txt, line 1"):
        list(configure_lexicon_corpus(path=str(path))(vocab))
    assert list(configure_lexicon_corpus(path=str(path), encoding="latin-1")(vocab)) == [
        "r\u00e9sum\u00e9 text",
        "plain",
    ]
    with pytest.warns(UserWarning, match=r"Skipped 1 invalid lines.*c\.txt:1"):
        assert list(configure_lexicon_corpus(path=str(path), on_error="skip")(vocab)) == ["plain"]
    with pytest.raises(CtxvecError, match="E241"):
        configure_lexicon_corpus(path=str(path), encoding="klingon")
