"""The transformer's span getter settings are checked where the model is made (E047)."""

from pathlib import Path

import pytest
from spacy.util import load_config, load_model_from_config
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
