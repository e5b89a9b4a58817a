"""The transformer's span getter settings are checked where the model is made (E047)."""

from pathlib import Path

import pytest
from spacy.util import load_config, load_model_from_config, registry
from spacy_transformers.span_getters import configure_strided_spans, get_doc_spans

from spacy_ctxvec.components.span_settings import check_span_getter
from spacy_ctxvec.errors import CtxvecError

CONFIGS = Path(__file__).parent.parent / "configs"


@pytest.mark.parametrize(
    "window,stride,problem",
    [(4, 8, "the 4 tokens between two windows are in none"), (128, 0, "at least 1"), (0, 1, "at least 1")],
)
def test_a_default_pipeline_with_a_window_gap_or_no_stride_is_e047_when_made(window, stride, problem):
    """Stride 0 was a bare ZeroDivisionError on the first text, and a stride larger than
    the window left the tokens between windows without vectors, blamed on the model's
    maximum length (W046): the pipeline is refused when it is made, naming both values."""
    config = load_config(CONFIGS / "default.cfg")
    config["components"]["transformer"]["model"]["get_spans"].update({"window": window, "stride": stride})
    with pytest.raises(CtxvecError, match=rf"CTX-E047.*window {window} and stride {stride}: .*{problem}"):
        load_model_from_config(config, auto_fill=True)


def test_windows_that_meet_or_overlap_and_other_getters_pass():
    for window, stride in ((128, 96), (64, 64), (1, 1)):
        check_span_getter(configure_strided_spans(window, stride))
    check_span_getter(get_doc_spans)


@registry.span_getters("test-ctxvec.odd_spans.v1")
def configure_odd_spans(kind: str):
    """A user's span getter, and its mistakes."""

    def get_spans(docs):
        spans = [[doc[:]] for doc in docs]
        if kind == "none":
            return [[] for doc in docs]
        if kind == "empty_first":
            return [[doc[0:0], doc[:]] for doc in docs]
        if kind == "short":
            return spans[:-1]
        if kind == "other_doc":
            return [[doc.copy()[:]] for doc in docs]
        if kind == "tuples":
            return [[(0, len(doc))] for doc in docs]
        if kind == "flat":
            return [doc[:] for doc in docs]
        return spans

    return get_spans


def odd_spans_nlp(tiny_bert_dir, kind):
    import spacy

    from .conftest import transformer_config

    config = transformer_config(str(tiny_bert_dir))
    config["model"]["@architectures"] = "spacy-ctxvec.BucketedTransformerModel.v1"
    config["model"]["get_spans"] = {"@span_getters": "test-ctxvec.odd_spans.v1", "kind": kind}
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=config)
    nlp.add_pipe("ctxvec_context")
    return nlp


@pytest.mark.parametrize(
    "kind,problem",
    [
        ("none", r"returned for Doc 0 \(\d+ tokens\) no span"),
        ("empty_first", r"returned for Doc 0 \(\d+ tokens\) an empty first span"),
        ("short", r"returned \d lists for \d Docs"),
        ("other_doc", r"returned for Doc 0 a span of another Doc"),
        ("tuples", r"returned tuple for Doc 0, not spaCy Span objects"),
        (
            "flat",
            r"returned a Span for Doc 0 where a list of Spans belongs "
            r"\(e\.g\. \[\[doc\[:\]\] for doc in docs\], not \[doc\[:\] for doc in docs\]\)",
        ),
    ],
)
def test_a_span_getter_whose_spans_cannot_be_read_is_e055_saying_how(tiny_bert_dir, kind, problem):
    """Such Docs were left without the transformer's output and [CTX-E001] blamed a frozen
    transformer; spans of another Doc were an IndexError, tuples an AttributeError."""
    nlp = odd_spans_nlp(tiny_bert_dir, kind)
    with pytest.raises(CtxvecError, match=rf"CTX-E055\] The transformer's span getter .*{problem}\. A span getter"):
        nlp.initialize()
        list(nlp.pipe(["the bank", "a river bank"]))


def test_a_span_getter_of_whole_docs_passes(tiny_bert_dir):
    nlp = odd_spans_nlp(tiny_bert_dir, "whole")
    nlp.initialize()
    docs = list(nlp.pipe(["the bank", "", "a river bank"]))
    assert [doc._.ctxvec_context.shape[0] for doc in docs] == [2, 0, 3]


def test_sentence_spans_with_the_sentencizer_after_the_transformer_is_e059_saying_where_it_goes(tiny_bert_dir):
    """spaCy's E030 ("add the 'sentencizer'") came through though a sentencizer was in the pipeline."""
    import spacy

    from .conftest import transformer_config

    config = transformer_config(str(tiny_bert_dir))
    config["model"]["@architectures"] = "spacy-ctxvec.BucketedTransformerModel.v1"
    config["model"]["get_spans"] = {"@span_getters": "spacy-transformers.sent_spans.v1"}
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=config)
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("sentencizer")
    nlp.initialize()
    with pytest.raises(CtxvecError, match=r"CTX-E059\] .*reads sentences.*before=\"transformer\""):
        nlp("A b c. D e f.")
    nlp.remove_pipe("sentencizer")
    nlp.add_pipe("sentencizer", before="transformer")
    doc = nlp("A b c. D e f.")
    assert doc._.ctxvec_context.shape[0] == len(doc) and doc._.ctxvec_context_mask.all()
