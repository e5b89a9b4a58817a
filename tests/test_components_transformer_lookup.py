"""Which transformer a ctxvec component reads, and the fix E008 and E001 give where there
is none before it: one to add, one to move, another library's, or a pipeline it was
sourced into."""

import pytest
import spacy
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc

from spacy_ctxvec.components.transformer_lookup import find_transformer, last_transformer
from spacy_ctxvec.errors import CtxvecError

from .conftest import transformer_config

BUCKETED = "spacy-ctxvec.BucketedTransformerModel.v1"


class CuratedTransformer(Pipe):
    """Stands for spacy-curated-transformers' component: it sets doc._.trf_data to an
    output of its own, without spacy-transformers' alignment."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        doc._.trf_data = DocTransformerOutput()
        return doc


CuratedTransformer.__module__ = "spacy_curated_transformers.pipeline.transformer"  # where it lives there


class DocTransformerOutput:
    """curated-transformers' per-Doc output type has this name and no ``align``."""


@Language.factory("test_curated_transformer")
def make_curated(nlp: Language, name: str) -> CuratedTransformer:
    return CuratedTransformer(name)


def test_last_transformer_is_the_last_flagged_before_the_component():
    pipeline = [("a", True), ("b", False), ("c", True), ("ctx", False), ("d", True)]
    assert last_transformer(pipeline, "ctx") == "c"
    assert last_transformer([("b", False), ("ctx", False)], "ctx") is None
    assert last_transformer(pipeline, "absent") == "d"


def test_find_transformer_names_the_nearest_one_before_it(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", name="first", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("transformer", name="second", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context")
    assert find_transformer(nlp, "ctxvec_context") == "second"
    nlp.disable_pipe("second")  # spacy train initializes with frozen components disabled
    assert find_transformer(nlp, "ctxvec_context") == "second"


def test_another_librarys_transformer_is_named_not_asked_for_again():
    """A curated transformer named 'transformer' was told "Add 'transformer' before it"."""
    nlp = spacy.blank("en")
    nlp.add_pipe("test_curated_transformer", name="transformer")
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_static")
    expected = r"\[CTX-E008\].*'transformer' is spacy-curated-transformers', whose output spacy-ctxvec cannot read"
    with pytest.raises(CtxvecError, match=expected):
        nlp.get_pipe("ctxvec_context").initialize(nlp=nlp)
    with pytest.raises(CtxvecError, match=expected + r".*'ctxvec_transformer'"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp)


def test_another_librarys_output_is_e057_not_an_attribute_error(tiny_nlp):
    """Its doc._.trf_data reached ctxvec_context: AttributeError: ... has no attribute 'align'."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", source=tiny_nlp)
    nlp.add_pipe("test_curated_transformer")
    nlp.add_pipe("ctxvec_context", source=tiny_nlp)
    with pytest.raises(CtxvecError, match=r"\[CTX-E057\].*DocTransformerOutput.*spacy-transformers' 'transformer'"):
        nlp("the bank")


def test_a_transformer_after_the_component_is_to_be_moved(tiny_nlp):
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("transformer", source=tiny_nlp)
    with pytest.raises(CtxvecError, match=r"\[CTX-E008\].*'transformer' comes after it: move 'ctxvec_context'"):
        nlp.initialize()
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\].*'transformer' comes after it"):
        nlp.get_pipe("ctxvec_context")(nlp.make_doc("the bank"))


def test_a_disabled_transformer_after_it_is_to_be_moved_and_enabled_a_taken_name_avoided(tiny_nlp):
    """Both were told 'Add it with nlp.add_pipe("transformer", ...)', which spaCy refuses (E007)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("transformer", source=tiny_nlp)
    nlp.disable_pipe("transformer")
    with pytest.raises(CtxvecError, match=r"\[CTX-E008\].*move 'ctxvec_context' after 'transformer' and enable it"):
        nlp.get_pipe("ctxvec_context").initialize(nlp=nlp)
    other = spacy.blank("en")
    other.add_pipe("sentencizer", name="transformer")
    other.add_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"named 'transformer' is not spacy-transformers' .*name=\"trf\""):
        other.initialize()


def test_a_removed_transformer_is_not_named_as_present(tiny_nlp):
    """E001 said "The pipeline has the transformer 'transformer'" once it had been removed."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", source=tiny_nlp)
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    nlp.remove_pipe("transformer")
    with pytest.raises(
        CtxvecError,
        match=r"\[CTX-E001\].*nlp.add_pipe\(\"ctxvec_transformer\", name=\"transformer\", before=\"ctxvec_context\"\)",
    ):
        nlp("the bank")


def test_a_component_sourced_alone_names_no_transformer_of_its_first_pipeline(tiny_nlp):
    """Sourced into a pipeline without a transformer, E001 named the transformer of the
    pipeline it came from ("The pipeline has the transformer 'transformer'")."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_context", source=tiny_nlp)
    with pytest.raises(CtxvecError, match=r"\[CTX-E001\]") as raised:
        nlp("the bank")
    assert "The pipeline has the transformer" not in str(raised.value)
    assert 'add_pipe("transformer", source=...)' in str(raised.value)
    assert tiny_nlp("the bank")._.ctxvec_context.shape[0] == 2  # where it came from, it still runs


def overlapping_calls(nlp, monkeypatch) -> list:
    """Two threads call ``nlp`` at once, both inside ctxvec_context together (a barrier holds
    the first there until the second arrives, as a web service's thread pool does by chance);
    returns the warnings raised."""
    import threading
    import warnings

    component = nlp.get_pipe("ctxvec_context")
    barrier = threading.Barrier(2, timeout=30)
    original = type(component).set_annotations

    def held(self, docs):
        barrier.wait()
        return original(self, docs)

    monkeypatch.setattr(type(component), "set_annotations", held)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):  # twice: warned once
            threads = [threading.Thread(target=nlp, args=(text,)) for text in ("a bank", "a pen")]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
    return [str(warning.message) for warning in caught]


@pytest.mark.parametrize("architecture", ["spacy-transformers.TransformerModel.v3", BUCKETED])
def test_threads_sharing_an_upstream_transformer_model_warn_once(tiny_bert_dir, monkeypatch, architecture):
    """The README's recipe put spacy-transformers' own model in a service's threads: 55 of 60 Docs got
    other vectors than one call alone (dropout on), silently."""
    config = transformer_config(str(tiny_bert_dir))
    config["model"]["@architectures"] = architecture
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=config)
    nlp.add_pipe("ctxvec_context")
    nlp.initialize()
    messages = [message for message in overlapping_calls(nlp, monkeypatch) if "CTX-W088" in message]
    if architecture == BUCKETED:  # runs its forward calls one at a time: nothing to warn of
        assert messages == []
    else:
        assert len(messages) == 1 and "'ctxvec_context' runs in two threads at once" in messages[0]
        assert f"the model '{architecture}'" in messages[0] and "BucketedTransformerModel" in messages[0]
