"""building.line_endings: where a corpus file's lines end, for both build engines."""

import io

from spacy_ctxvec.building.corpus import iter_corpus
from spacy_ctxvec.building.line_endings import corpus_lines, newline_of


def lines_of(data: bytes, suffix: str):
    handle = io.TextIOWrapper(io.BytesIO(data), encoding="utf8", newline=newline_of(suffix))
    return list(corpus_lines(handle, suffix))


def test_txt_lines_end_at_line_feeds_and_jsonl_lines_at_any_line_end():
    assert lines_of(b"a\rb\r\nc\n", ".txt") == ["a\rb\r\n", "c\n"]
    assert lines_of(b'{"text": "a"}\r{"text": "b"}\n', ".jsonl") == ['{"text": "a"}\n', '{"text": "b"}\n']


def test_a_txt_file_with_carriage_returns_and_no_line_feed_is_split_at_them(tmp_path):
    assert lines_of(b"one\rtwo\r\rthree\r", ".TXT") == ["one", "two", "", "three"]
    assert lines_of(b"one line", ".txt") == ["one line"]
    path = tmp_path / "mac.txt"
    path.write_bytes(b"one doc\rtwo doc\r")
    assert list(iter_corpus(path)) == ["one doc", "two doc"]
