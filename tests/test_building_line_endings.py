"""building.line_endings: where a corpus file's lines end, for both build engines."""

import io

from spacy_ctxvec.building.corpus import iter_corpus
from spacy_ctxvec.building.line_endings import PrefixedStream, newline_for


def lines_of(data: bytes, suffix: str):
    handle = io.TextIOWrapper(io.BytesIO(data), encoding="utf8", newline=newline_for(data, suffix))
    return list(handle)


def test_txt_lines_end_at_line_feeds_and_jsonl_lines_at_any_line_end():
    assert lines_of(b"a\rb\r\nc\n", ".txt") == ["a\rb\r\n", "c\n"]  # a stray CR and a CR LF end
    assert lines_of(b'{"text": "a"}\r{"text": "b"}\n', ".jsonl") == ['{"text": "a"}\n', '{"text": "b"}\n']


def test_a_txt_file_of_carriage_return_line_ends_is_split_at_them(tmp_path):
    assert lines_of(b"one\rtwo\r\rthree\r", ".TXT") == ["one\n", "two\n", "\n", "three\n"]
    assert lines_of(b"one\rtwo\rthree\n", ".txt") == ["one\n", "two\n", "three\n"]  # an editor's last line feed
    # mixed line ends, mostly lone carriage returns: every line end counts (LF lines were joined)
    assert lines_of(b"a\r\nb\rc\rd\ne\r", ".txt") == ["a\n", "b\n", "c\n", "d\n", "e\n"]
    path = tmp_path / "mac.txt"
    path.write_bytes(b"one doc\rtwo doc\rthree doc\n")
    assert list(iter_corpus(path)) == ["one doc", "two doc", "three doc"]


def test_a_prefixed_stream_reads_its_head_then_the_rest():
    rest = io.BytesIO(b"0123456789")
    head = rest.read(4)
    stream = io.BufferedReader(PrefixedStream(head, rest), buffer_size=3)
    assert stream.read() == b"0123456789"
