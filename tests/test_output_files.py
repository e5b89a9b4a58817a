"""output_files: --overwrite replaces only a file of the kind the command writes (E423)."""

import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.output_files import (
    FIGURE_FILE,
    HTML_PAGE,
    JSON_FILE,
    KINDS,
    LABELS_FILE,
    LABELS_HEADER,
    VECTORS_FILE,
    check_kind,
)
from spacy_ctxvec.outputs import check_output

CORPUS = "It was a dark and stormy night; the rain fell in torrents.\n"
SAMPLES = {
    VECTORS_FILE: b"2 3\napple 0.1 0.2 0.3\npear 0.1 0.2 0.3\n",
    FIGURE_FILE: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    HTML_PAGE: b"<!DOCTYPE html>\n<html lang='en'>",
    JSON_FILE: b'{\n  "accuracy": 0.6,\n  "pipeline": {"pipeline": "p", "model": "m"}\n}\n',  # as evaluate writes it
    LABELS_FILE: (LABELS_HEADER + "\nbank|0\tbank\t0\t0.5\triver\t1.2\n").encode("utf8"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_knows_its_own_files_and_not_a_corpus(tmp_path, kind):
    mine, corpus = tmp_path / "mine", tmp_path / "corpus.txt"
    mine.write_bytes(SAMPLES[kind])
    corpus.write_text(CORPUS, encoding="utf8")
    assert KINDS[kind](mine) and not KINDS[kind](corpus)
    check_kind(mine, "OUTPUT", kind)
    with pytest.raises(CtxvecError, match=r"\[CTX-E423\].*corpus\.txt' exists and is not .*'It was a dark"):
        check_kind(corpus, "OUTPUT", kind)


def test_a_json_lines_corpus_is_not_a_report(tmp_path):
    """evaluate --output corpus.jsonl --overwrite replaced a JSON-lines corpus with a report."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"text": "The bank of the river."}\n{"text": "A loan."}\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E423\].*corpus\.jsonl' exists and is not a JSON report of evaluate"):
        check_output(corpus, what="OUTPUT", overwrite=True, replaceable=JSON_FILE)
    assert corpus.read_text(encoding="utf8").startswith('{"text"')
    report = tmp_path / "report.json"
    report.write_text('{\r\n  "pipeline": {"pipeline": "p", "model": "m"}\r\n}\r\n', encoding="utf8")  # CR LF
    assert check_output(report, what="OUTPUT", overwrite=True, replaceable=JSON_FILE) == report


def test_another_pretty_printed_json_file_is_not_a_report(tmp_path):
    """evaluate --output config.json --overwrite replaced a model's indented config.json."""
    config = tmp_path / "config.json"
    config.write_text('{\n  "architectures": ["BertModel"],\n  "hidden_size": 384\n}\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E423\].*config\.json' exists and is not a JSON report of evaluate"):
        check_output(config, what="OUTPUT", overwrite=True, replaceable=JSON_FILE)
    deep = '{\n  "a": ' + "[" * 200_000 + "]" * 200_000 + "\n}\n"  # a RecursionError in json.loads
    for text in ('{\n  "pipeline": "p"\n}\n', "{\n  broken", '{\n  "pipeline": {"model": "m"}\n}\n', deep):
        config.write_text(text, encoding="utf8")
        assert not KINDS[JSON_FILE](config)


def test_a_pdf_is_a_figure_only_where_matplotlib_wrote_it(tmp_path):
    """Any PDF was a figure, so plot ... -o thesis.pdf --overwrite replaced a thesis."""
    import numpy as np

    from spacy_ctxvec.analysis.plotting import layer_figure, save_figure

    figure = save_figure(layer_figure([0, 1], np.array([0.9, 0.8]), np.array([0.1, 0.2])), tmp_path / "f.pdf")
    thesis = tmp_path / "thesis.pdf"
    thesis.write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Producer (pdfTeX-1.40.25) >>\nendobj\n%%EOF\n")
    assert KINDS[FIGURE_FILE](figure) and not KINDS[FIGURE_FILE](thesis)


def test_svg_figures_are_figures(tmp_path):
    svg = tmp_path / "f.svg"
    svg.write_text('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">', encoding="utf8")
    assert KINDS[FIGURE_FILE](svg)


def test_overwrite_replaces_only_files_of_the_kind(tmp_path):
    """export-static corpus_copy.txt --overwrite replaced a text corpus with vectors."""
    corpus = tmp_path / "corpus_copy.txt"
    corpus.write_text(CORPUS, encoding="utf8")
    with pytest.raises(CtxvecError, match=r"CTX-E423"):
        check_output(corpus, what="OUTPUT", overwrite=True, replaceable=VECTORS_FILE)
    assert corpus.read_text(encoding="utf8") == CORPUS
    assert check_output(corpus, what="OUTPUT", overwrite=True) == corpus  # no kind given: any file
    empty = tmp_path / "touched.txt"
    empty.touch()
    assert check_output(empty, what="OUTPUT", overwrite=True, replaceable=VECTORS_FILE) == empty  # nothing to lose
    vectors = tmp_path / "vectors.txt"
    vectors.write_bytes(SAMPLES[VECTORS_FILE])
    assert check_output(vectors, what="OUTPUT", overwrite=True, replaceable=VECTORS_FILE) == vectors
