import json
import os
import pickle
import re
import shlex
import subprocess
import unicodedata

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_ctxvec.building.bad_lines import skipped_line_warnings, skipped_total
from spacy_ctxvec.building.corpus import (
    CorpusReport,
    check_tokens_read,
    configure_lexicon_corpus,
    corpus_files,
    corpus_fingerprint,
    has_visible,
    iter_corpus,
    parse_line,
)
from spacy_ctxvec.errors import CtxvecError


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def test_txt_one_document_per_line_skipping_blank_lines(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("first doc\n\n   \nsecond doc\r\n", encoding="utf8")
    assert list(iter_corpus(path)) == ["first doc", "second doc"]


def test_a_stray_carriage_return_does_not_split_a_txt_document_or_shift_line_numbers(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"first doc\rstill first doc\r\nsecond\nthird\xff\n")
    assert list(iter_corpus(path, on_error="skip")) == ["first doc\rstill first doc", "second"]
    with pytest.raises(CtxvecError, match=r"c\.txt, line 3"):  # as grep -n counts
        list(iter_corpus(path))


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
    # Each with the reason raise mode gives, shortened: code and problem, not file, line or advice.
    assert report.skipped == [
        (str(path), 2, "[CTX-E212] not valid JSON (Expecting value at column 1)"),
        (
            str(path),
            3,
            '[CTX-E213] expected an object with "text" (a string) or "words" (a list of strings), got {"other": 1}',
        ),
    ]
    assert report.n_docs == 2
    with pytest.raises(CtxvecError, match="E212.*line 2"):
        list(iter_corpus(path, on_error="raise"))
    path.write_text('{"other": 1}\n', encoding="utf8")
    with pytest.raises(CtxvecError, match="E213.*line 1"):
        list(iter_corpus(path))


def test_a_skipped_lines_reason_is_its_whole_problem_whatever_the_line_holds(tmp_path):
    # The reason travels with the error, not re-read from its message: a row quoting ". "
    # or a closing bracket keeps its whole problem, and W004 shows it as it is.
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n"one. two"\n["x)]. y"]\n', encoding="utf8")
    report = CorpusReport()
    assert list(iter_corpus(path, on_error="skip", report=report)) == ["ok"]
    problem = '[CTX-E213] expected an object with "text" (a string) or "words" (a list of strings), got '
    assert [reason for _, _, reason in report.skipped] == [problem + '"one. two"', problem + '["x)]. y"]']
    assert skipped_line_warnings(report.skipped, "utf8") == [
        f'[CTX-W004] Skipped invalid line {path}:2: {problem}"one. two"',
        f'[CTX-W004] Skipped invalid line {path}:3: {problem}["x)]. y"]',
        "[CTX-W005] Skipped 2 invalid lines in total.",
    ]
    with pytest.raises(CtxvecError) as raised:  # raise mode: the same problem, with file, line and advice
        parse_line('"one. two"', path, 2, ".jsonl")
    assert str(raised.value) == (
        f"[CTX-E213] {path}, line 2: " + problem.removeprefix("[CTX-E213] ") + '"one. two". Fix that line, '
        'or pass on_error="skip" (CLI: --on-error skip).'
    )
    assert pickle.loads(pickle.dumps(raised.value)).reason == raised.value.reason  # as a Ray worker sends it


def test_empty_corpus_is_a_clear_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("\n\n  \n", encoding="utf8")
    with pytest.raises(CtxvecError, match="E211"):
        list(iter_corpus(path))
    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_text("oops\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E276.*1 line with text, all skipped.*bad.jsonl:1: \[CTX-E212\]"):
        list(iter_corpus(only_bad, on_error="skip"))


def test_docbin_and_directory(tmp_path, vocab):
    nlp = spacy.blank("en")
    DocBin(docs=[nlp("one two"), nlp("three")]).to_disk(tmp_path / "b.spacy")
    (tmp_path / "a.txt").write_text("from text\n", encoding="utf8")
    (tmp_path / "ignored.md").write_text("not a corpus\n", encoding="utf8")
    with pytest.warns(UserWarning, match=r"W020.*ignored\.md"):
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
    (tmp_path / "my book.txt.gz").write_bytes(b"\x1f\x8b")  # a downloaded corpus, still compressed
    with pytest.raises(CtxvecError, match=r"E210.*is compressed \('\.gz'\).*gunzip -k '.*my book\.txt\.gz'"):
        list(iter_corpus(tmp_path / "my book.txt.gz"))
    (tmp_path / "default.cfg").write_text("[nlp]\n", encoding="utf8")  # build-lexicon's first two arguments swapped
    with pytest.raises(CtxvecError, match=r"E210.*is a config, not a corpus \(build-lexicon takes PIPELINE, then"):
        list(iter_corpus(tmp_path / "default.cfg"))
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
    reason = "[CTX-E240] not valid utf-8 text (byte 0xef at character 3 cannot be decoded)"
    assert report.skipped == [(str(path), 2, reason)]
    assert list(iter_corpus(path, encoding="latin-1"))[1:] == ["na\u00efve two", "three"]
    rows = tmp_path / "rows.jsonl"
    rows.write_bytes(b'{"text": "ok"}\n{"text": "\xff"}\n')
    with pytest.raises(CtxvecError, match=r"E240.*rows\.jsonl, line 2"):
        list(iter_corpus(rows))
    with pytest.raises(CtxvecError, match="E241.*no-such-codec"):
        list(iter_corpus(path, encoding="no-such-codec"))


@pytest.mark.parametrize("codec", ["hex", "base64", "rot13", "idna", "undefined"])
def test_a_codec_that_reads_no_text_file_is_an_unknown_encoding(tmp_path, codec):
    """hex, base64, rot13 (bytes to bytes) and idna, undefined (no errors="surrogateescape")
    were AssertionError, TypeError or UnicodeError tracebacks."""
    path = tmp_path / "c.txt"
    path.write_text("one line\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=rf"\[CTX-E241\] Unknown text encoding '{codec}'"):
        list(iter_corpus(path, encoding=codec))
    assert list(iter_corpus(path, encoding="utf8")) == ["one line"]


def test_a_file_cp1252_cannot_read_is_not_told_to_pass_cp1252(tmp_path):
    """E240 advises cp1252 for a file UTF-8 cannot read; where cp1252 is what failed
    (0x81 has no cp1252 character), it asks for the file's own encoding instead."""
    path = tmp_path / "other.txt"
    path.write_bytes(b"one\ntwo \x81 three\n")
    with pytest.raises(CtxvecError, match=r"E240.*line 2.*--encoding cp1252"):
        list(iter_corpus(path))
    with pytest.raises(CtxvecError) as raised:
        list(iter_corpus(path, encoding="windows-1252"))
    assert "not cp1252 text either" in str(raised.value) and "--encoding cp1252" not in str(raised.value)


def test_a_utf8_file_read_as_ascii_is_told_to_read_it_as_utf8(tmp_path):
    """A UTF-8 file read with another codec (ascii here) is not advised cp1252: E240 and
    W005 say its lines are UTF-8 and that UTF-8 is the default."""
    path = tmp_path / "utf8.txt"
    path.write_text("caf\u00e9 one\nplain\nna\u00efve two\nr\u00e9sum\u00e9 three\n", encoding="utf-8")
    with pytest.raises(CtxvecError) as raised:
        list(iter_corpus(path, encoding="ascii"))
    assert "line 1" in str(raised.value) and "the line is valid UTF-8" in str(raised.value)
    assert "The file is UTF-8: leave out --encoding" in str(raised.value) and "cp1252" not in str(raised.value)
    report = CorpusReport()
    assert list(iter_corpus(path, encoding="ascii", on_error="skip", report=report)) == ["plain"]
    total = skipped_total(report.skipped, "ascii")
    assert "3 of them could not be decoded" in total and "The file is UTF-8" in total and "cp1252" not in total
    assert list(iter_corpus(path))[0] == "caf\u00e9 one"


def test_utf16_without_a_byte_order_mark_is_told_its_byte_order(tmp_path):
    """A Windows/.NET export: E234 said "pass --encoding", and utf-16 then failed as E240 "line ?"
    advising cp1252 or --on-error skip (which failed the same way)."""
    text = "The bank by the river.\nThe bank approved my loan.\n"
    path = tmp_path / "u16.txt"
    path.write_bytes(text.encode("utf-16-le"))
    with pytest.raises(CtxvecError, match=r"\[CTX-E234\].*without a byte order mark: pass --encoding utf-16-le\."):
        list(iter_corpus(path))
    for on_error in ("raise", "skip"):
        with pytest.raises(CtxvecError, match=r"\[CTX-E277\].*u16\.txt: not valid utf-16 text as a whole") as raised:
            list(iter_corpus(path, encoding="utf-16", on_error=on_error))
        assert "pass --encoding utf-16-le" in str(raised.value) and "cp1252" not in str(raised.value)
    assert list(iter_corpus(path, encoding="utf-16-le")) == text.splitlines()
    utf8 = tmp_path / "utf8.txt"
    utf8.write_text("the bank by the river\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E277\]") as raised:
        list(iter_corpus(utf8, encoding="utf-16"))
    assert "leave it out for UTF-8" in str(raised.value) and "cp1252" not in str(raised.value)


def test_utf16_read_in_the_wrong_byte_order_warns_w084(tmp_path):
    """Big-endian UTF-16 read as utf-16-le gave one document of CJK-looking characters, silently."""
    path = tmp_path / "be.txt"
    path.write_bytes("The bank by the river.\nThe bank approved my loan.\n".encode("utf-16-be"))
    with pytest.warns(UserWarning, match=r"\[CTX-W084\].*other byte order \(its start reads .*\): it is utf-16-be"):
        list(iter_corpus(path, encoding="utf-16-le"))
    russian = tmp_path / "ru.txt"  # of another alphabet than Latin too: no NUL bytes then
    russian.write_bytes("Банк на берегу реки.\nБанк одобрил кредит.\n".encode("utf-16-le"))
    with pytest.raises(CtxvecError, match=r"\[CTX-E277\].*pass --encoding utf-16-le"):
        list(iter_corpus(russian, encoding="utf-16"))
    with pytest.warns(UserWarning, match=r"\[CTX-W084\].*it is utf-16-le"):
        list(iter_corpus(russian, encoding="utf-16-be"))


def test_a_stray_nul_is_removed_by_the_command_the_error_prints(tmp_path):
    """E234's tr command said FILE inside the sentence, where the CLI's wrapping could break it."""
    stray = tmp_path / "my notes.txt"
    stray.write_bytes(b"the bank of the river\x00\nmoney in the bank\n")
    with pytest.raises(CtxvecError, match=r"E234.*stray NUL, remove them \(the command below\)") as raised:
        list(iter_corpus(stray))
    command = str(raised.value).splitlines()[-1]
    assert command == f"    tr -d '\\000' < {shlex.quote(str(stray))} > clean.txt"
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert list(iter_corpus(tmp_path / "clean.txt")) == ["the bank of the river", "money in the bank"]


def test_binary_file_and_utf16_and_byte_order_mark(tmp_path):
    binary = tmp_path / "binary.txt"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(CtxvecError, match=r"E234.*binary\.txt' is binary, not text: it has a NUL character"):
        list(iter_corpus(binary))
    utf16 = tmp_path / "u16.jsonl"
    utf16.write_text('{"text": "wide text"}\n', encoding="utf-16")
    assert list(iter_corpus(utf16, encoding="utf-16")) == ["wide text"]
    with pytest.raises(CtxvecError, match=r"E234.*u16\.jsonl.*byte order mark: pass --encoding utf-16\."):
        list(iter_corpus(utf16))
    with_bom = tmp_path / "bom.jsonl"
    with_bom.write_bytes(b'\xef\xbb\xbf{"text": "after a BOM"}\n')
    assert list(iter_corpus(with_bom)) == ["after a BOM"]
    # files joined with cat keep each file's byte-order mark at the start of its first line
    joined = tmp_path / "joined.txt"
    joined.write_bytes(b"\xef\xbb\xbfBank river\r\n\xef\xbb\xbfthe bank\r\nthe\xef\xbb\xbf bank\n")
    assert list(iter_corpus(joined)) == ["Bank river", "the bank", "the bank"]
    joined_rows = tmp_path / "joined.jsonl"
    joined_rows.write_bytes(b'\xef\xbb\xbf{"text": "one"}\n\xef\xbb\xbf{"words": ["two", "\xef\xbb\xbfbank"]}\n')
    rows = list(iter_corpus(joined_rows, spacy.blank("en").vocab))
    assert rows[0] == "one" and [token.text for token in rows[1]] == ["two", "bank"]


def test_text_is_read_in_composed_unicode_so_one_word_is_one_type(tmp_path):
    # "Bär" typed with a combining diaeresis (NFD, as some editors and macOS file names write it)
    composed, decomposed = "Der Bär schläft.", unicodedata.normalize("NFD", "Der Bär schläft.")
    assert composed != decomposed
    (tmp_path / "mixed.txt").write_text(composed + "\n" + decomposed + "\n", encoding="utf8")
    assert list(iter_corpus(tmp_path / "mixed.txt")) == [composed, composed]
    rows = tmp_path / "mixed.jsonl"
    rows.write_text(json.dumps({"text": decomposed}) + "\n" + json.dumps({"words": decomposed.split()}) + "\n")
    text, doc = list(iter_corpus(rows, spacy.blank("en").vocab))
    assert text == composed and [token.text for token in doc] == composed.split()
    # byte-order marks written as JSON escapes go too, and a token that is only one
    escaped = tmp_path / "escaped.jsonl"
    escaped.write_text('{"text": "\\ufeffbank river"}\n{"words": ["\\ufeffbank", "x"]}\n', encoding="utf8")
    text, doc = list(iter_corpus(escaped, spacy.blank("en").vocab))
    assert text == "bank river" and [token.text for token in doc] == ["bank", "x"]
    escaped.write_text('{"words": ["\\ufeff", "bank"], "spaces": [false, true]}\n', encoding="utf8")
    (doc,) = list(iter_corpus(escaped, spacy.blank("en").vocab))
    assert [token.text for token in doc] == ["bank"] and doc.text == "bank "
    # spaCy's tokens of "I ❤️ you": the selector is a token of its own, holding the space after the emoji
    selector = [t.text_with_ws for t in spacy.blank("en")("I \u2764\ufe0f you")]
    assert selector == ["I ", "\u2764", "\ufe0f ", "you"]
    row = {"words": [w.strip() for w in selector], "spaces": [w.endswith(" ") for w in selector]}
    escaped.write_text(json.dumps(row) + "\n", encoding="utf8")
    (doc,) = list(iter_corpus(escaped, spacy.blank("en").vocab))
    assert doc.text == "I \u2764 you"  # the space stays: not "I \u2764you", one [UNK] to WordPiece


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
    [(file, line, reason)] = report.skipped
    assert (file, line) == (str(path), 2) and re.match(r"\[CTX-E242\] " + problem, reason), reason


def test_deeply_nested_json_line_is_a_coded_error(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"text": "fine"}\n' + "[" * 100_000 + "\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E212.*deep\.jsonl, line 2.*nested deeper than 64 levels"):
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
    with pytest.warns(UserWarning, match=r"Skipped 1 invalid line .*c\.txt:1"):
        assert list(configure_lexicon_corpus(path=str(path), on_error="skip")(vocab)) == ["plain"]
    with pytest.raises(CtxvecError, match="E241"):
        configure_lexicon_corpus(path=str(path), encoding="klingon")


# Issue 23: no silent results, suffixes in any case, bounded JSON
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


@pytest.mark.parametrize(
    "name,content",
    [
        ("zw.txt", f"{ZERO_WIDTH}\n{ZERO_WIDTH} \u200b\n\n"),
        ("controls.txt", "\x01\x02 \x7f\x85\n\u00a0\u3000\u2028\n"),
        ("zw.jsonl", json.dumps({"text": ZERO_WIDTH}) + "\n"),
        ("spaces.jsonl", json.dumps({"words": [" ", "\t", "\u3000", "\u200b"]}) + "\n"),
    ],
)
def test_corpus_of_only_invisible_characters_is_a_coded_error(tmp_path, vocab, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf8")
    with pytest.raises(CtxvecError, match=rf"E740.*{name}.*no document with a visible character"):
        list(iter_corpus(path, vocab))


def test_invisible_documents_are_skipped_like_blank_lines(tmp_path, vocab):
    path = tmp_path / "c.jsonl"
    rows = [{"text": ZERO_WIDTH}, {"text": "bank\u200b loan"}, {"words": [" ", "\u200b"]}, {"words": ["a", " ", "b"]}]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf8")
    report = CorpusReport()
    items = list(iter_corpus(path, vocab, report=report))
    assert items[0] == "bank loan" and [t.text for t in items[1]] == ["a", " ", "b"]
    assert report.n_docs == 2 and report.n_invisible == 2


def test_docbin_documents_of_only_whitespace_are_skipped(tmp_path, vocab):
    docs = [Doc(vocab, words=[" ", "\u200b"]), Doc(vocab, words=["river", "bank"])]
    (tmp_path / "c.spacy").write_bytes(DocBin(docs=docs).to_bytes())
    assert [doc.text for doc in iter_corpus(tmp_path / "c.spacy", vocab)] == ["river bank "]


def test_every_control_format_and_space_character_is_invisible():
    import sys
    import unicodedata

    shown = [
        hex(c)
        for c in range(sys.maxunicode + 1)
        if (unicodedata.category(chr(c)) in ("Cc", "Cf") or chr(c).isspace()) and has_visible(chr(c))
    ]
    assert shown == []
    assert has_visible("\u0301") and has_visible("\ue000") and has_visible(" a ")


def test_check_tokens_read_refuses_documents_without_tokens():
    check_tokens_read("c.txt", 3, 1)
    check_tokens_read("c.txt", 0, 0)  # no documents is E211's case, raised by the reader
    with pytest.raises(CtxvecError, match=r"E741.*c\.txt': 3 documents"):
        check_tokens_read("c.txt", 3, 0)


@pytest.mark.parametrize("text", ["\u0301\u0302 \u0301", "\ue000 \ue001"])
def test_local_build_of_documents_without_wordpieces_is_a_coded_error(tiny_nlp, tmp_path, text):
    from spacy_ctxvec.building.local import build_lexicon_local

    path = tmp_path / "c.txt"
    path.write_text(f"{text}\n{text}\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E741.*c\.txt': 2 documents"):
        build_lexicon_local(tiny_nlp, path, progress=False)


def test_build_lexicon_cli_refuses_a_zero_width_corpus_in_one_line(tiny_pipeline_dir, tmp_path):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    corpus = tmp_path / "zw.txt"
    corpus.write_text(f"{ZERO_WIDTH}\n" * 3, encoding="utf8")
    result = CliRunner().invoke(app, ["build-lexicon", str(tiny_pipeline_dir), str(corpus), str(tmp_path / "out")])
    assert result.exit_code != 0 and "E740" in result.output, result.output
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def test_a_corpus_without_a_vector_says_to_rerun_with_overwrite_which_works(tiny_pipeline_dir, tmp_path):
    """E741 said to fix the input and rerun with --resume, which refuses a changed corpus (E221)."""
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    corpus, output = tmp_path / "c.txt", tmp_path / "out"
    corpus.write_text("\u0301\u0302 \u0301\n" * 3, encoding="utf8")
    args = ["build-lexicon", str(tiny_pipeline_dir), str(corpus), str(output), "--no-progress"]
    failed = CliRunner().invoke(app, args)
    message = " ".join(failed.output.split())
    assert failed.exit_code == 1 and "[CTX-E741]" in message and "rerun with --overwrite" in message, message
    assert "--resume" not in message
    corpus.write_text("the bank of the river\n" * 3, encoding="utf8")
    rerun = CliRunner().invoke(app, [*args, "--overwrite"])
    assert rerun.exit_code == 0, rerun.output


def test_upper_case_suffixes_are_read(tmp_path, vocab):
    (tmp_path / "a.txt").write_text("first doc\n", encoding="utf8")
    (tmp_path / "B.TXT").write_text("second doc\n", encoding="utf8")
    (tmp_path / "C.JSONL").write_text(json.dumps({"text": "third doc"}) + "\n", encoding="utf8")
    (tmp_path / "d.Spacy").write_bytes(DocBin(docs=[Doc(vocab, words=["fourth", "doc"])]).to_bytes())
    (tmp_path / ".hidden.md").write_text("not a corpus file\n", encoding="utf8")
    assert [p.name for p in corpus_files(tmp_path)] == ["B.TXT", "C.JSONL", "a.txt", "d.Spacy"]
    texts = [item if isinstance(item, str) else item.text for item in iter_corpus(tmp_path, vocab)]
    assert texts == ["second doc", "third doc", "first doc", "fourth doc "]
    assert list(iter_corpus(tmp_path / "C.JSONL")) == ["third doc"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_in_a_jsonl_row_are_refused(tmp_path, number):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n{"text": "x", "weight": ' + number + "}\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E212.*c\.jsonl, line 2"):
        list(iter_corpus(path))
    assert list(iter_corpus(path, on_error="skip")) == ["ok"]


def test_train_static_corpus_shares_the_checks(tmp_path):
    from spacy_ctxvec.static.train import WordListCorpus

    (tmp_path / "zw.TXT").write_text(f"{ZERO_WIDTH}\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E740.*zw\.TXT"):
        WordListCorpus(tmp_path / "zw.TXT").check_not_empty()
    (tmp_path / "zw.TXT").write_text("River Bank\n", encoding="utf8")
    assert list(WordListCorpus(tmp_path)) == [["river", "bank"]]


def test_binary_files_with_skip_are_left_out_and_named_like_unread_files(tmp_path):
    """A .txt that is binary (a NUL in its first block, e.g. a program copied to x.txt)
    gave documents of its printable runs under --on-error skip; it is now left out whole,
    named in W021, and a corpus of nothing else has no documents (E211)."""
    program = bytes(range(256)) + b"\nELF section names .text .data\n" * 20
    (tmp_path / "x.txt").write_bytes(program)
    with pytest.warns(UserWarning, match=r"W021.*'.*x\.txt': 1 file left out.*binary.*: x\.txt\. Remove"):
        with pytest.raises(CtxvecError, match="E211"):
            list(iter_corpus(tmp_path / "x.txt", on_error="skip"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "y.jsonl").write_bytes(b'{"text": "x"}\n\x00\x00')
    (tmp_path / "text.txt").write_text("a real document\n", encoding="utf8")
    report = CorpusReport()
    with pytest.warns(UserWarning, match=r"W021.*2 files left out.*: sub/y\.jsonl, x\.txt\."):
        assert list(iter_corpus(tmp_path, on_error="skip", report=report)) == ["a real document"]
    assert report.skipped == []
    with pytest.raises(CtxvecError, match=r"E234.*sub/y\.jsonl'"):  # raise mode: the first binary file
        corpus_files(tmp_path)


def test_subfolders_are_read_in_relative_path_order_hidden_ones_and_link_loops_left_out(tmp_path):
    """Files in subfolders are read, as spaCy's walk_corpus reads .spacy files in
    subfolders, sorted by path relative to the corpus folder, folder by folder (the
    order checkpoints and --resume depend on); hidden folders are left out, a link to a
    folder above is not followed again, and unread files in subfolders are named in W020."""
    for name in ("b.txt", "a/z.txt", "a/b/c.txt", "a.txt", ".hidden/h.txt", "a/.h.txt", "B/x.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"doc {name}\n", encoding="utf8")
    (tmp_path / "a" / "notes.md").write_text("not read\n", encoding="utf8")
    (tmp_path / "a" / "loop").symlink_to(tmp_path, target_is_directory=True)
    with pytest.warns(UserWarning, match=r"W020.*1 file not read.*: a/notes\.md\."):
        files = corpus_files(tmp_path)
    order = ["B/x.txt", "a/b/c.txt", "a/z.txt", "a.txt", "b.txt"]
    assert [f.relative_to(tmp_path).as_posix() for f in files] == order
    assert list(iter_corpus(tmp_path)) == [f"doc {name}" for name in order]
    first = corpus_fingerprint(tmp_path)
    (tmp_path / "a" / "z.txt").rename(tmp_path / "a" / "b" / "z.txt")  # same names and contents, other folder
    assert corpus_fingerprint(tmp_path) != first


def test_files_of_a_corpus_directory_that_are_not_read_are_named_in_a_warning(tmp_path):
    (tmp_path / "a.txt").write_text("first doc\n", encoding="utf8")
    (tmp_path / "b.txt.gz").write_bytes(b"\x1f\x8b")
    (tmp_path / "notes.md").write_text("not a corpus file\n", encoding="utf8")
    (tmp_path / ".DS_Store").write_bytes(b"")
    (tmp_path / "sub.txt").mkdir()
    with pytest.warns(UserWarning, match=r"W020.*2 files not read.*: b\.txt\.gz, notes\.md\. Decompress"):
        assert [p.name for p in corpus_files(tmp_path)] == ["a.txt"]


def test_file_names_in_warnings_cannot_send_terminal_escapes(tmp_path):
    """A binary file named with an OSC sequence ('\\x1b]0;PWN\\x07b.txt') set the terminal's
    title when W021 named it; file names are shown escaped."""
    (tmp_path / "a.txt").write_text("a real document\n", encoding="utf8")
    (tmp_path / "\x1b]0;PWN\x07b.txt").write_bytes(b"\x00\x01bin")
    with pytest.warns(UserWarning, match="W021") as caught:
        list(iter_corpus(tmp_path, on_error="skip"))
    message = str(next(w.message for w in caught if "W021" in str(w.message)))
    assert "\x1b" not in message and "\\x1b]0;PWN\\x07b.txt" in message


def test_a_long_blank_line_is_blank_not_over_max_length(tmp_path):
    """A line of 50 spaces was E272 (over a max_length of 20), stopping a build on a blank line."""
    assert parse_line(" " * 50 + "\n", "w.txt", 1, ".txt", max_length=20) is None
    assert parse_line('{"text": "' + " " * 50 + '"}', "w.jsonl", 1, ".jsonl", max_length=20) is None
    with pytest.raises(CtxvecError, match=r"E272\] w.txt, line 1: a document of 50 characters"):
        parse_line("a" * 50 + "\n", "w.txt", 1, ".txt", max_length=20)


def test_a_corpus_of_empty_files_is_e211_before_the_pipeline_loads(tmp_path):
    """An empty corpus was E211 only once the model had loaded and, with Ray, the actors had
    started (35 s); every command lists the corpus first."""
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_bytes(b"")
    (corpus / "b.jsonl").write_bytes(b"")
    for given in (corpus / "a.txt", corpus):
        with pytest.raises(CtxvecError, match=r"\[CTX-E211\] Corpus '.*' contains no documents"):
            corpus_files(given)
    args = ["build-lexicon", str(tmp_path / "no_pipeline"), str(corpus), str(tmp_path / "out")]
    outcome = CliRunner().invoke(app, args)
    assert outcome.exit_code == 1 and "[CTX-E211]" in outcome.output, outcome.output  # not E011: no pipeline read
    (corpus / "c.txt").write_text("one document\n", encoding="utf8")
    assert [path.name for path in corpus_files(corpus)] == ["a.txt", "b.jsonl", "c.txt"]


def test_a_broken_link_in_a_corpus_directory_is_named_not_skipped_in_silence(tmp_path):
    """A link whose file was moved is neither a file nor a folder: it was left out without
    a word, and its documents were missing from the lexicon."""
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "a.txt").write_text("the bank of the river\n", encoding="utf8")
    (corpus / "sub" / "moved.txt").symlink_to(tmp_path / "nowhere.txt")
    (corpus / "README.md").symlink_to(tmp_path / "gone.md")  # never read: W020 as when it was there
    with pytest.warns(UserWarning) as warned:
        assert list(iter_corpus(corpus)) == ["the bank of the river"]
    messages = " ".join(" ".join(str(w.message).split()) for w in warned)
    assert "[CTX-W085] Corpus directory" in messages and "1 file not read, because each is a link" in messages
    assert "loop): sub/moved.txt." in messages and "[CTX-W020]" in messages and "README.md" in messages
    (tmp_path / "nowhere.txt").write_text("the bank lent money\n", encoding="utf8")  # the file is back
    assert list(iter_corpus(corpus)) == ["the bank of the river", "the bank lent money"]


def test_a_nul_past_the_binary_check_is_dropped_not_glued_to_a_word(tmp_path):
    """Past the first 8,000 bytes (where a NUL is E234), "bank\\x00" became a type of its own and
    "isabella\\x00's" kept spaCy from splitting the suffix; BERT's tokenizers drop NUL too."""
    from spacy_ctxvec.building.corpus import BINARY_CHECK_BYTES

    path = tmp_path / "late_nul.txt"
    filler = "the river ran by the field.\n" * (BINARY_CHECK_BYTES // 20)
    path.write_text(filler + "The bank\x00 raised rates.\nIsabella\x00's bank.\n", encoding="utf8")
    read = list(iter_corpus(path))
    assert read[-2:] == ["The bank raised rates.", "Isabella's bank."]
    assert not any("\x00" in text for text in read)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    """`mkfifo corpus.txt; zcat big.gz > corpus.txt &` hung build-lexicon and train-static for ever:
    the checks read the pipe's head, then opened it again, which blocks with no writer left."""
    fifo = tmp_path / "corpus.txt"
    os.mkfifo(fifo)
    with pytest.raises(CtxvecError, match=r"\[CTX-E210\] Corpus '.*corpus\.txt' is a pipe or device, not a file"):
        corpus_files(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.txt").write_text("the bank of the river\n", encoding="utf8")
    os.mkfifo(folder / "b.txt")
    with pytest.raises(CtxvecError, match=r"E210.*b\.txt' is a pipe or device"):
        corpus_files(folder)
