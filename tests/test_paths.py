"""paths.py (UTF-8 text lines) and devices.py (GPU choice); where commands write is
tested in test_outputs*.py."""

import os

import pytest

from spacy_ctxvec.devices import require_gpu
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.paths import composed, composed_tokens, text_lines


def test_text_lines_numbers_lines_and_names_bad_bytes(tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes(b"\xef\xbb\xbffirst\r\nsecond\n\nfourth")
    assert list(text_lines(path)) == [(1, "first"), (2, "second"), (3, ""), (4, "fourth")]
    # files joined with cat keep each one's byte order mark; combining accents are composed (NFC)
    path.write_bytes("\ufeffgem\tjewel\n\ufeffBa\u0308r\tbear\n".encode("utf8"))
    assert list(text_lines(path)) == [(1, "gem\tjewel"), (2, "B\u00e4r\tbear")]
    path.write_bytes(b"ok\nok\nna\xefve\n")
    with pytest.raises(CtxvecError, match=r"E133.*text\.txt, line 3: not valid UTF-8.*iconv -f cp1252"):
        list(text_lines(path))


def test_lines_ending_in_lone_carriage_returns_are_lines(tmp_path):
    """Classic Mac line ends: `plot word --sentences` read a whole file as one sentence (and
    drew the same text three times) while `--corpus` read its three lines; the reader left an
    unclosed text wrapper to the collector (ResourceWarning)."""
    import gc
    import warnings

    path = tmp_path / "mac.txt"
    path.write_bytes(b"river bank\rpaid at the bank\r\rna\xc3\xafve bank\r")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert list(text_lines(path)) == [(1, "river bank"), (2, "paid at the bank"), (3, ""), (4, "na\u00efve bank")]
        gc.collect()
    assert not [warning for warning in said if issubclass(warning.category, ResourceWarning)]
    many = [f"line {number}" for number in range(30_000)]  # lines across the blocks the file is read in
    path.write_bytes("\r".join(many).encode("utf8"))
    assert [line for _, line in text_lines(path)] == many
    path.write_bytes(b"one\rtwo\nthree\n")  # a stray return in a file of line feeds stays inside its line
    assert [line for _, line in text_lines(path)] == ["one\rtwo", "three"]
    path.write_bytes(b"a\r\nb\rc\rd\ne\r")  # mixed, mostly lone returns: any line end ends a line
    assert [line for _, line in text_lines(path)] == ["a", "b", "c", "d", "e"]
    path.write_bytes(b"x\r" * 10 + b"y" * (1 << 24))  # a long run without a line end: read in linear time
    assert [len(line) for _, line in text_lines(path)] == [1] * 10 + [1 << 24]
    path.write_bytes(b"ok\rna\xefve\r")
    with pytest.raises(CtxvecError, match=r"E133.*mac\.txt, line 2: not valid UTF-8"):
        list(text_lines(path))


def test_invisible_characters_inside_words_are_dropped_as_the_model_drops_them():
    """'zero\u200bwidth' was a key of its own beside 'zerowidth', which the model reads the same."""
    assert (
        composed("zero\u200bwidth soft\u00adhyphen word\u2060joiner \ufeffbom") == "zerowidth softhyphen wordjoiner bom"
    )
    kept = "\u0915\u094d\u200d\u0937 \U0001f469\u200d\U0001f4bb \u0645\u200c\u06cc"  # ZWJ, ZWNJ shape scripts
    assert composed(kept) == kept
    assert composed("I \u2665\ufe0fbank \u2665\ufe0e") == "I \u2665bank \u2665"  # spaCy glued the selector to "bank"


def test_a_word_after_an_emoji_presentation_selector_is_read_as_the_word():
    """spaCy glued the selector to the next word: '\ufe0fbank' was a type of its own beside 'bank'."""
    import spacy

    nlp = spacy.blank("en")
    assert [t.text for t in nlp("I \u2665\ufe0fbank")][-1] == "\ufe0fbank"
    assert [t.text for t in nlp(composed("I \u2665\ufe0fbank"))][-2:] == ["\u2665", "bank"]


def test_utf16_and_binary_files_get_their_own_advice(tmp_path):
    """UTF-16 and binary files were told to convert from Latin-1."""
    path = tmp_path / "text.txt"
    path.write_bytes("car automobile 9\n".encode("utf-16"))
    with pytest.raises(CtxvecError, match=r"E133.*UTF-16 byte order mark.*iconv -f utf-16 -t utf-8"):
        list(text_lines(path))
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\xff\x00\n")
    with pytest.raises(CtxvecError, match=r"E133.*NUL bytes: a binary file"):
        list(text_lines(path))
    import gzip  # the UTF-16 advice misled where a file was gzip-compressed

    path.write_bytes(gzip.compress("tiger\tcat\t7.35\n".encode("utf8") * 50))
    with pytest.raises(CtxvecError, match=r"E133.*line 1.*gzip-compressed: decompress it first \(gunzip -k FILE\)"):
        list(text_lines(path))


def test_require_gpu_without_a_usable_gpu_is_a_coded_error():
    with pytest.raises(CtxvecError, match=r"E136.*--gpu-id 1000000: no usable GPU.*--gpu-id -1"):
        require_gpu(1_000_000)


def test_a_file_name_that_is_not_utf8_is_displayable_with_a_replacement_character():
    from spacy_ctxvec.paths import displayable

    name = os.fsdecode(b"caf\xe9")  # as Python reads a latin-1 name from argv or a directory
    assert displayable(f"{name} and caf\u00e9") == "caf\ufffd and caf\u00e9"
    assert displayable("\ud800 lone") == "? lone"  # a surrogate no file name makes
    assert displayable("plain ascii") == "plain ascii"


def test_composed_tokens_moves_the_index_past_tokens_of_invisible_characters():
    assert composed_tokens(["a", "\ufe0f", "Ba\u0308r"], 2) == (["a", "B\u00e4r"], 1)
    assert composed_tokens(["\u200b", "a"], 0) == (["a"], None)
    assert composed_tokens(["a", "b"], 1) == (["a", "b"], 1)


def test_a_path_starting_with_a_tilde_no_shell_expanded_says_so(tmp_path, monkeypatch):
    """'~/v.txt' in a config or a Python string is a folder '~': E101 and E210 said only "does not exist"."""
    from spacy_ctxvec import load_static_vectors
    from spacy_ctxvec.building.corpus import iter_corpus

    monkeypatch.chdir(tmp_path)
    for read in (lambda: load_static_vectors("~/v.txt"), lambda: list(iter_corpus("~/c.txt"))):
        with pytest.raises(CtxvecError, match=r"does not exist \('~' is not expanded here"):
            read()
    with pytest.raises(CtxvecError) as raised:
        load_static_vectors("v.txt")
    assert "'~'" not in str(raised.value)
