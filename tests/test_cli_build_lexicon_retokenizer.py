"""A pipeline that retokenizes after ctxvec_context (merge_entities needs the NER's
entities, so it cannot run before the transformer): build-lexicon stops with E042, whose
advice can be followed by leaving the retokenizer out of the pipeline it is given."""

import pytest
import spacy
from spacy.language import Language
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon

from .conftest import TINY_SENTENCES, make_sense_nlp, make_trf_nlp

RETOKENIZER = "test_merge_first_two_tokens"


@Language.component(RETOKENIZER)
def merge_first_two_tokens(doc):
    """A stand-in for merge_entities: merges tokens after the transformer ran."""
    if len(doc) > 1:
        with doc.retokenize() as retokenizer:
            retokenizer.merge(doc[0:2])
    return doc


def build_lexicon(pipeline, corpus, output):
    args = ["build-lexicon", pipeline, corpus, output, "--min-count", "2", "--no-progress", "--sample-size", "0"]
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result, " ".join(result.output.split())


def test_e042_advice_to_leave_the_retokenizer_out_can_be_followed(tiny_bert_dir, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(TINY_SENTENCES) + "\n", encoding="utf8")
    # The retokenizer between ctxvec_context and ctxvec_polysemy: counted, and out of line.
    components = ["ctxvec_context", RETOKENIZER, "ctxvec_polysemy"]
    nlp = make_trf_nlp(str(tiny_bert_dir), components=components, window=8, stride=6)
    nlp.to_disk(tmp_path / "with_merge")
    refused, output = build_lexicon(tmp_path / "with_merge", corpus, tmp_path / "out1")
    assert refused.exit_code == 1, output
    assert "[CTX-E042]" in output and "before the transformer" in output
    # The advice for a retokenizer that needs another component's output (merge_entities).
    assert "merge_entities needs the NER's entities" in output
    assert "leave the retokenizer out of the pipeline given to build-lexicon or evaluate" in output
    assert "nlp.select_pipes(disable=[...])" in output and "exclude=[...]" in output
    assert "Traceback" not in refused.output and not (tmp_path / "out1").exists()
    # Followed: the same pipeline saved with the retokenizer disabled builds.
    nlp.disable_pipe(RETOKENIZER)
    nlp.to_disk(tmp_path / "merge_disabled")
    built, output = build_lexicon(tmp_path / "merge_disabled", corpus, tmp_path / "out2")
    assert built.exit_code == 0, output
    assert len(Lexicon.from_disk(tmp_path / "out2" / "ctxvec_polysemy" / "lexicon").keys) > 0
    assert spacy.load(tmp_path / "out2")("the bank of the river")[1]._.polysemy_count > 0


def test_e042_advice_to_retokenize_after_ctxvec_polysemy_can_be_followed(tiny_bert_dir, tmp_path):
    """The other reader: ctxvec_polysemy after the retokenizer is E042; the retokenizer
    after ctxvec_polysemy runs, and the scores follow their tokens through the merge."""
    nlp = make_sense_nlp(str(tiny_bert_dir), TINY_SENTENCES * 2, tmp_path)
    nlp.add_pipe(RETOKENIZER, before="ctxvec_polysemy")
    with pytest.raises(CtxvecError, match=r"CTX-E042.*ctxvec_polysemy.*put it after ctxvec_polysemy"):
        nlp("the bank of the river")
    nlp.remove_pipe(RETOKENIZER)
    expected = [token._.polysemy_count for token in nlp("the bank of the river")]
    nlp.add_pipe(RETOKENIZER, after="ctxvec_polysemy")
    doc = nlp("the bank of the river")
    assert doc[0].text == "the bank" and doc[1].text == "of"
    assert expected[1] > 0 and [token._.polysemy_count for token in doc[1:]] == expected[2:]


def test_build_lexicon_counts_without_the_components_after_ctxvec_polysemy(tiny_bert_dir, tmp_path):
    """The retokenizer after ctxvec_polysemy, where E042 says to put it: build-lexicon
    counts without it (it ran the whole pipeline and refused the one E042 recommends)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(TINY_SENTENCES) + "\n", encoding="utf8")
    nlp = make_sense_nlp(str(tiny_bert_dir), TINY_SENTENCES * 2, tmp_path)
    nlp.add_pipe(RETOKENIZER, after="ctxvec_polysemy")
    nlp.to_disk(tmp_path / "merge_after")
    built, output = build_lexicon(tmp_path / "merge_after", corpus, tmp_path / "out")
    assert built.exit_code == 0, output
    rebuilt = spacy.load(tmp_path / "out")
    assert rebuilt.pipe_names[-2:] == ["ctxvec_polysemy", RETOKENIZER]
    assert rebuilt("the bank of the river")[1]._.polysemy_count > 0
