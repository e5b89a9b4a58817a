"""components.trf_data_readers: which later components read doc._.trf_data, so that
ctxvec_context frees it only where none does, also for a component that several
pipelines hold (copied with add_pipe(source=...))."""

import warnings

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from spacy_ctxvec.components.context import linked_kind
from spacy_ctxvec.components.trf_data_readers import linked_readers, readers_in

from .conftest import transformer_config
from .test_train_listener import make_trf_data_reader  # noqa: F401  (registers test_trf_data_reader)

TEXT = "the bank of the river"


def _first_pipeline(tiny_bert_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context", config={"drop_trf_data": True})
    nlp.initialize()
    return nlp


def _copy_with_a_reader(first, *, shared_vocab=False, reader="test_trf_data_reader"):
    second = spacy.blank("en", vocab=first.vocab) if shared_vocab else spacy.blank("en")
    second.add_pipe("transformer", source=first)
    context = second.add_pipe("ctxvec_context", name="vectors", source=first)
    second.add_pipe(reader)
    return second, context


def test_a_shared_component_keeps_trf_data_for_the_pipeline_that_reads_it(tiny_bert_dir):
    """The component remembered only the pipeline it was last linked in: once the first
    pipeline changed (and linked again), the copy's reader got empty trf_data."""
    first = _first_pipeline(tiny_bert_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W073 (one component, two pipelines) and spaCy's sourcing notes
        second, context = _copy_with_a_reader(first)
        assert second(TEXT).user_data["n_trf_tensors"] > 0
        first.add_pipe("sentencizer", first=True)  # the first pipeline changes
        assert second(TEXT).user_data["n_trf_tensors"] > 0
        assert [doc.user_data["n_trf_tensors"] > 0 for doc in second.pipe([TEXT, "a pen"])] == [True, True]
        assert len(first(TEXT)._.trf_data.tensors) == 0  # no reader there: freed, as before
        assert readers_in([first], context, own=first, kind=linked_kind) == []
        assert readers_in([second], context, own=first, kind=linked_kind) == ["test_trf_data_reader"]


def test_pipelines_sharing_a_vocab_keep_trf_data_where_either_reads_it(tiny_bert_dir):
    """A Doc's vocab does not tell which of two pipelines on one vocab runs it: the readers of both count."""
    first = _first_pipeline(tiny_bert_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second, context = _copy_with_a_reader(first, shared_vocab=True)
        assert second.vocab is first.vocab
        first.add_pipe("sentencizer", first=True)
        assert second(TEXT).user_data["n_trf_tensors"] > 0
        assert len(first(TEXT)._.trf_data.tensors) > 0  # kept: the second pipeline's reader might run it
    assert readers_in([first, second], context, own=first, kind=linked_kind) == ["test_trf_data_reader"]


@Language.component("test_undeclared_trf_reader")
def undeclared_reader(doc: Doc) -> Doc:
    """Reads trf_data without saying so (no requires): in a copied pipeline it counts as a reader."""
    doc.user_data["n_trf_tensors"] = len(doc._.trf_data.tensors)
    return doc


def test_a_copy_keeps_trf_data_for_an_undeclared_reader_a_pickle_and_a_lone_copy_too(tiny_bert_dir):
    """Where two pipelines held the component, only declared readers counted (a plain component of
    the copy, counted before, got empty trf_data); a pickled copy (spawned nlp.pipe workers) kept
    only its own pipeline's readers; and once the first pipeline was gone, the stale link of the
    first pipeline decided."""
    import gc
    import pickle

    first = _first_pipeline(tiny_bert_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second, context = _copy_with_a_reader(first, reader="test_undeclared_trf_reader")
        first.add_pipe("sentencizer", first=True)  # the first pipeline links last
        assert second(TEXT).user_data["n_trf_tensors"] > 0
        assert pickle.loads(pickle.dumps(context)).trf_data_readers == ["test_undeclared_trf_reader"]
        del first
        gc.collect()
        assert second(TEXT).user_data["n_trf_tensors"] > 0


def test_once_the_copy_is_gone_its_own_pipeline_frees_trf_data_again(tiny_bert_dir):
    """The copy's link record (its plain reader) still decided in the first pipeline after the copy
    was gone: drop_trf_data stopped freeing the transformer's output there."""
    import gc

    first = _first_pipeline(tiny_bert_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second, context = _copy_with_a_reader(first, reader="test_undeclared_trf_reader")
        assert context.trf_data_readers == ["test_undeclared_trf_reader"]
    del second
    gc.collect()
    assert context.trf_data_readers == [] and len(first(TEXT)._.trf_data.tensors) == 0


def test_a_link_record_counts_readers_up_to_the_next_transformer():
    linked = [("ner", 1, "reader"), ("tagger", 2, "other"), ("transformer2", 3, "transformer"), ("late", 4, "reader")]
    assert linked_readers(linked) == ["ner"]
    assert linked_readers([]) == []
