"""building.bad_lines: a bad line's coded error and how skipped lines are reported."""

import pickle

from spacy_ctxvec.building.bad_lines import (
    REASON_CHARS,
    SHOWN_SKIPPED,
    BadLineError,
    SkippedLine,
    bad_line,
    no_documents,
    skipped_line_warnings,
)


def test_a_bad_line_names_file_and_line_and_keeps_its_problem_as_the_reason():
    error = bad_line("E212", "corpus.jsonl", 7, "not valid JSON (Expecting value)")
    assert str(error).startswith("[CTX-E212] corpus.jsonl, line 7: not valid JSON (Expecting value). Fix that line")
    assert error.reason == "[CTX-E212] not valid JSON (Expecting value)"
    again = pickle.loads(pickle.dumps(error))  # a Ray worker raises it across processes
    assert isinstance(again, BadLineError) and str(again) == str(error)


def test_a_long_reason_is_cut_and_marked():
    error = bad_line("E213", "c.jsonl", 1, "x" * 1000)
    assert len(error.reason) == REASON_CHARS and error.reason.endswith("...")
    assert "x" * 1000 in str(error)  # the message itself keeps the whole problem


def test_the_first_skipped_lines_are_named_then_their_total():
    skipped = [SkippedLine("c.txt", line, "[CTX-E240] not valid utf8 text") for line in range(1, SHOWN_SKIPPED + 4)]
    said = skipped_line_warnings(skipped, "utf8")
    assert len(said) == SHOWN_SKIPPED + 1
    assert said[0] == "[CTX-W004] Skipped invalid line c.txt:1: [CTX-E240] not valid utf8 text"
    # every one undecodable: the file is in another encoding (skipping them dropped most of a cp1252 corpus)
    assert said[-1].startswith(f"[CTX-W005] Skipped {SHOWN_SKIPPED + 3} invalid lines in total. 13 of them could")
    assert "likely in another encoding" in said[-1] and "--encoding cp1252" in said[-1]
    assert skipped_line_warnings([], "utf8") == []
    other = [SkippedLine("c.jsonl", line, "[CTX-E212] not valid JSON") for line in range(1, 5)]
    assert skipped_line_warnings(other + skipped[:2], "utf8")[-1] == "[CTX-W005] Skipped 6 invalid lines in total."


def test_lines_not_decoded_as_cp1252_are_not_advised_cp1252_again():
    skipped = [SkippedLine("c.txt", line, "[CTX-E240] not valid windows-1252 text") for line in range(1, 5)]
    total = skipped_line_warnings(skipped, "windows-1252")[-1]
    assert "likely in another encoding" in total and "The file is not cp1252 text either" in total
    assert "--encoding cp1252" not in total and "latin-1 reads every byte" in total


def test_a_corpus_without_documents_says_why():
    skipped = [SkippedLine("c.txt", 3, "[CTX-E240] not valid utf-8 text"), SkippedLine("c.txt", 5, "[CTX-E240] x")]
    assert str(no_documents("c.txt", skipped, 4)).startswith(
        "[CTX-E276] Corpus 'c.txt' has no document left: 2 lines with text, all skipped as invalid "
        "(the first, c.txt:3: [CTX-E240] not valid utf-8 text)."
    )
    assert str(no_documents("c.txt", [], 4)).startswith("[CTX-E740] Corpus 'c.txt' has no document with a visible")
    assert str(no_documents("c.txt", [], 0)).startswith("[CTX-E211] Corpus 'c.txt' contains no documents")
