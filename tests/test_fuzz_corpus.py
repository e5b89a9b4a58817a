"""Fuzz the corpus readers (issue 12): truncations, byte flips, wrong encodings, random
bytes and huge nesting. Whatever the bytes, reading gives documents or a coded
CtxvecError, never another exception. Seeded (derandomized) so failures reproduce."""

import json
import tempfile
from pathlib import Path

import pytest
import spacy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spacy.tokens import DocBin

from spacy_ctxvec.building.corpus import CorpusReport, has_visible, iter_corpus
from spacy_ctxvec.errors import PREFIX, CtxvecError
from spacy_ctxvec.paths import composed

FUZZ = settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
NLP = spacy.blank("en")
WORDS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12)
ENCODINGS = st.sampled_from(["utf8", "latin-1", "cp1252", "utf-16", "ascii"])


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """``data`` truncated, with flipped bytes, with inserted nesting or random bytes."""
    kind = draw(st.sampled_from(["same", "truncate", "flip", "nest", "random", "splice"]))
    if kind == "truncate" and data:
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "flip" and data:
        data = bytearray(data)
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if kind == "nest":
        depth = draw(st.sampled_from([10, 1000, 100_000]))
        return data + b"[" * depth + b"\n" + b'{"words": ' * depth + b"\n"
    if kind == "random":
        return draw(st.binary(max_size=300))
    if kind == "splice" and data:
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(max_size=40)) + data[at:]
    return data


def read_all(path: Path, on_error: str, encoding: str):
    """Documents read from ``path``, or the coded error; any other exception fails the test."""
    try:
        report = CorpusReport()
        items = list(iter_corpus(path, NLP.vocab, on_error=on_error, report=report, encoding=encoding))
    except CtxvecError as err:
        assert str(err).startswith(f"[{PREFIX}E"), str(err)
        assert str(path.name) in str(err) or "E211" in str(err), str(err)
        return None
    for item in items:
        assert has_visible(item if isinstance(item, str) else item.text), repr(item)
    assert report.n_docs == len(items)
    return items


def jsonl_rows():
    text_row = st.builds(lambda t: {"text": t}, WORDS)
    words_row = st.lists(WORDS.filter(bool), max_size=5).flatmap(
        lambda ws: st.builds(
            lambda sp: {"words": ws, "spaces": sp},
            st.one_of(st.none(), st.lists(st.booleans(), min_size=len(ws), max_size=len(ws))),
        )
    )
    odd_row = st.one_of(
        st.integers(),
        st.lists(st.integers(), max_size=3),
        st.builds(lambda w: {"words": w}, st.lists(st.one_of(WORDS, st.integers()), max_size=3)),
    )
    return st.lists(st.one_of(text_row, words_row, odd_row), max_size=6)


@FUZZ
@given(rows=jsonl_rows(), data=st.data(), on_error=st.sampled_from(["raise", "skip"]), encoding=ENCODINGS)
def test_jsonl_reader(rows, data, on_error, encoding):
    content = ("\n".join(json.dumps(row, ensure_ascii=data.draw(st.booleans())) for row in rows) + "\n").encode("utf8")
    raw = data.draw(mutated(content))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.jsonl"
        path.write_bytes(raw)
        items = read_all(path, on_error, encoding)
    if raw == content and encoding == "utf8" and on_error == "skip":  # untouched input: exactly its valid documents
        expected = [doc for doc in map(valid_document, rows) if doc]
        got = None if items is None else [item if isinstance(item, str) else [t.text for t in item] for item in items]
        assert got == (expected or None)


def valid_document(row):
    """What a row should give: its text, its words, or nothing (blank or invalid)."""
    if not isinstance(row, dict):
        return None
    if isinstance(row.get("text"), str):  # read composed: invisible characters (U+FE0E...) dropped, NFC
        text = composed(row["text"])
        return text if has_visible(text) else None
    words = row.get("words")
    if isinstance(words, list) and words and all(isinstance(w, str) and w for w in words):
        kept = [composed(w) for w in words if composed(w)]  # a word of invisible characters only goes
        return kept if any(has_visible(w) for w in kept) else None
    return None


@FUZZ
@given(
    lines=st.lists(WORDS, max_size=8),
    data=st.data(),
    on_error=st.sampled_from(["raise", "skip"]),
    write_as=ENCODINGS,
    read_as=ENCODINGS,
)
def test_txt_reader(lines, data, on_error, write_as, read_as):
    text = "\n".join(lines) + "\n"
    try:
        content = text.encode(write_as)
    except UnicodeEncodeError:
        content = text.encode("utf8")
    raw = data.draw(mutated(content))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.txt"
        path.write_bytes(raw)
        items = read_all(path, on_error, read_as)
    if raw == content and content == text.encode("utf8") and read_as == "utf8":
        lines_read = [composed(line) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
        expected = [line for line in lines_read if has_visible(line)]  # a line of only U+FE0E is blank
        if "\x00" in text:  # a NUL: a binary file, E234 (raise) or left out whole (skip)
            expected = []
        assert items == (expected or None)


@FUZZ
@given(
    texts=st.lists(st.sampled_from(["the bank", "a river bank", "one", "x y z"]), min_size=1, max_size=5),
    data=st.data(),
)
def test_docbin_reader(texts, data):
    content = DocBin(docs=[NLP(t) for t in texts], store_user_data=data.draw(st.booleans())).to_bytes()
    raw = data.draw(mutated(content))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.spacy"
        path.write_bytes(raw)
        items = read_all(path, "raise", "utf8")
    if raw == content:
        assert [doc.text for doc in items] == texts


INVISIBLE = st.text(alphabet=st.sampled_from(list("\u200b\u200c\u200d\u2060\ufeff\u00ad\x01\x7f \t\u3000\u00a0")))


@FUZZ
@given(
    lines=st.lists(st.one_of(INVISIBLE, st.builds(lambda a, w, b: a + w + b, INVISIBLE, WORDS, INVISIBLE)), max_size=8),
    as_words=st.booleans(),
)
def test_invisible_documents_never_count(lines, as_words):
    """Lines (or "words" rows) of zero-width, format, control and space characters are
    never documents; a corpus of only such lines is E740 (E211 when all are blank)."""
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    with tempfile.TemporaryDirectory() as tmp:
        if as_words:
            path = Path(tmp) / "fuzz.jsonl"
            rows = [{"words": [w for w in line.split(" ") if w] or ["\u200b"]} for line in lines]
            path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf8")
        else:
            path = Path(tmp) / "fuzz.TXT"
            path.write_text("".join(line + "\n" for line in lines), encoding="utf8")
        # A NUL in a .txt makes it a binary file, left out whole (W021) whatever its lines show.
        binary = not as_words and any("\x00" in line for line in lines)
        expected = [] if binary else [line for line in lines if has_visible(line)]
        try:
            items = list(iter_corpus(path, NLP.vocab, on_error="skip"))
        except CtxvecError as err:
            assert not expected, str(err)
            if binary:
                assert "E211" in str(err), str(err)
                return
            shows_something = any(line.strip() for line in lines) or (as_words and lines)  # a JSON row is not blank
            assert ("E740" if shows_something else "E211") in str(err), str(err)
            return
    assert len(items) == len(expected)
    assert all(has_visible(item if isinstance(item, str) else item.text) for item in items)


def test_fuzz_covers_the_known_cases(tmp_path):
    """The families named in the issue, once each, outside the generator."""
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n", encoding="utf8")
    (tmp_path / "binary.txt").write_bytes(bytes(range(128, 256)))
    (tmp_path / "empty.spacy").write_bytes(b"")
    (tmp_path / "zero_width.txt").write_text("\u200b\u200b\n \u200b \n", encoding="utf8")
    (tmp_path / "program.txt").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\nsome readable strings\n")
    cases = (
        ("deep.jsonl", "E212"),
        ("binary.txt", "E240"),  # no NUL: undecodable bytes, named by line
        ("program.txt", "E234"),  # a NUL: a binary file, named whole
        ("empty.spacy", "E243"),
        ("zero_width.txt", "E740"),
    )
    for name, code in cases:
        with pytest.raises(CtxvecError, match=code):
            list(iter_corpus(tmp_path / name, NLP.vocab))
