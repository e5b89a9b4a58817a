"""building.text_encoding: corpus files decoded with the wrong encoding (W084), warned
before any model work, through the corpus reader a build uses."""

import warnings

import pytest

from spacy_ctxvec.building.corpus import corpus_files, iter_corpus
from spacy_ctxvec.building.text_encoding import escaped_utf8, misdecoded_evidence, misdecoded_files

WINDOWS_TEXT = "Emma\u2019s father \u2013 Mr. Woodhouse \u2013 said \u201cno\u201d.\nThe bank by the river.\n"


def test_a_windows_file_read_as_latin1_warns_and_cp1252_reads_it_right(tmp_path):
    """Latin-1 decodes every byte: the cp1252 apostrophe 0x92 became U+0092 inside "emma\x92s",
    counted as a word of its own with no message."""
    path = tmp_path / "windows.txt"
    path.write_bytes(WINDOWS_TEXT.encode("cp1252"))
    assert misdecoded_evidence(path, "latin-1") == (
        "holds C1 control characters (the first U+0092), which no written text holds"
    )
    with pytest.warns(UserWarning, match=r"\[CTX-W084\] Corpus text decoded as iso8859-1 .*windows\.txt.*cp1252"):
        read = list(iter_corpus(path, encoding="latin-1"))
    assert "\x92" in read[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(iter_corpus(path, encoding="cp1252")) == WINDOWS_TEXT.splitlines()


def test_a_utf8_file_with_a_byte_order_mark_read_as_another_encoding_warns(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + "plain words\n".encode("utf8"))
    assert misdecoded_evidence(path, "cp1252") == "starts with a UTF-8 byte order mark"
    assert misdecoded_evidence(path, "utf8") is None and misdecoded_evidence(path, "utf-8-sig") is None
    with pytest.warns(UserWarning, match="CTX-W084.*bom\\.txt' starts with a UTF-8 byte order mark"):
        corpus_files(path, encoding="cp1252")


def test_right_text_and_unreadable_files_give_no_warning(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(WINDOWS_TEXT, encoding="utf8")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("na\u00efve caf\u00e9\n".encode("latin-1"))  # bytes 0xA0-0xFF: latin-1 is right
    assert misdecoded_files([good], "utf8") is None and misdecoded_files([latin], "latin-1") is None
    repaired_once = tmp_path / "web.txt"  # valid UTF-8 holding U+0092 from an earlier mis-conversion
    repaired_once.write_bytes("It\u0092s the bank\u2019s caf\u00e9.\n".encode("utf8"))
    assert misdecoded_evidence(repaired_once, "utf8") is None  # cp1252 would garble every other word
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus_files(repaired_once)
    assert misdecoded_evidence(tmp_path / "missing.txt", "utf8") is None  # its reader says why
    several = []
    for i in range(5):
        several.append(tmp_path / f"w{i}.jsonl")
        several[-1].write_bytes(b'{"text": "it\x92s"}\n')
    message = misdecoded_files(several, "latin-1")
    assert (
        message is not None
        and message.count("holds C1 control characters") == 3
        and message.endswith('(config: encoding = "cp1252").')
    )
    assert "w3.jsonl" not in message and "..." in message


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_a_utf8_file_read_as_a_single_byte_encoding_warns(tmp_path, encoding):
    """UTF-8 read as Latin-1 gave "cafÃ©" with no C1 character and so no warning: text in
    another encoding is hardly ever valid UTF-8 once it leaves ASCII."""
    path = tmp_path / "utf8.txt"
    path.write_text("The caf\u00e9 by the bank.\nNa\u00efve words.\n", encoding="utf8")
    assert misdecoded_evidence(path, encoding) == (
        "is valid UTF-8 (its first non-ASCII character, '\u00e9', reads as '\u00c3\u00a9')"
    )
    with pytest.warns(UserWarning, match=r"CTX-W084.*utf8\.txt' is valid UTF-8.*or valid UTF-8, is UTF-8") as said:
        corpus_files(path, encoding=encoding)
    assert "leave out --encoding" in str(said[0].message) and "cp1252" not in str(said[0].message).split("UTF-8")[-1]
    ascii_only = tmp_path / "ascii.txt"
    ascii_only.write_text("The bank by the river.\n", encoding="utf8")
    assert misdecoded_evidence(ascii_only, encoding) is None  # every ASCII-compatible codec reads it right


def test_escaped_utf8_tells_utf8_bytes_from_other_bytes():
    utf8_read_as_ascii = "caf\u00e9".encode("utf-8").decode("ascii", errors="surrogateescape")
    latin1_read_as_utf8 = "caf\u00e9".encode("latin-1").decode("utf-8", errors="surrogateescape")
    assert escaped_utf8(utf8_read_as_ascii, "ascii")
    assert not escaped_utf8(latin1_read_as_utf8, "utf-8")
