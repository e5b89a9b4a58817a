"""Extension attributes: installed once, and a clash with another package is a coded error."""

import pickle

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, Span, Token
from spacy.tokens.underscore import Underscore

from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK, install_extensions, token_context_vec
from spacy_ctxvec.errors import CtxvecError

from .test_components_context import assert_n_process_2_matches_single_process


@pytest.fixture
def foreign_extension():
    """Token._.context_vec registered by 'another plugin' first; ours put back after."""
    install_extensions()
    saved = Token.get_extension("context_vec")
    Token.remove_extension("context_vec")

    def other_plugin_vector(token):
        return np.ones(3)

    Token.set_extension("context_vec", getter=other_plugin_vector)
    yield other_plugin_vector
    Token.remove_extension("context_vec")
    Token.set_extension("context_vec", getter=saved[2])


def test_install_twice_is_harmless():
    install_extensions()
    install_extensions()
    assert Token.get_extension("context_vec")[2] is token_context_vec
    assert Doc.has_extension(CONTEXT_ARRAY) and Span.has_extension("static_vec")


def test_another_plugins_attribute_is_detected(foreign_extension):
    with pytest.raises(
        CtxvecError, match=r"\[CTX-E022\] .*Token\._\.context_vec.*other_plugin_vector.*remove_extension"
    ):
        install_extensions()
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match=r"\[CTX-E022\]"):
        nlp.add_pipe("ctxvec_context")  # the component says so when it is created


def test_a_plain_attribute_of_the_same_name_is_detected():
    install_extensions()
    saved = Doc.get_extension(CONTEXT_ARRAY)
    Doc.remove_extension(CONTEXT_ARRAY)
    Doc.set_extension(CONTEXT_ARRAY, default="theirs")
    try:
        with pytest.raises(CtxvecError, match=r"\[CTX-E022\] .*Doc\._\.ctxvec_context .*default 'theirs'"):
            install_extensions()
    finally:
        Doc.remove_extension(CONTEXT_ARRAY)
        Doc.set_extension(CONTEXT_ARRAY, getter=saved[2], setter=saved[3])
    install_extensions()


def test_span_and_doc_vectors_need_the_array_and_its_mask():
    """Means over the tokens the mask keeps; zeros if it keeps none; None (no vector, no
    traceback) where a Doc has the array but its mask was taken away."""
    install_extensions()
    doc = spacy.blank("en")("the bank of the river")
    doc._.set(CONTEXT_ARRAY, np.arange(10, dtype=np.float32).reshape(5, 2))
    doc._.set(CONTEXT_MASK, np.array([True, False, True, False, False]))
    np.testing.assert_array_equal(doc._.context_vec, [2.0, 3.0])
    np.testing.assert_array_equal(doc[3:5]._.context_vec, [0.0, 0.0])
    doc._.set(CONTEXT_MASK, None)
    assert doc._.context_vec is None and doc[0:2]._.context_vec is None


RETOKENIZE_LINES = [
    "we sat on the river bank",
    "the bank of the river",
    "i took out a loan from the bank",
    "the bank gave us money",
] * 4
TOKEN_ATTRS = ("context_vec", "has_context_vec", "static_vec", "static_vec_key", "polysemy_score", "context_shift")
SENSE_ATTRS = ("sense", "n_senses", "sense_score", "sense_label", "sense_vec", "corpus_polysemy")


@pytest.fixture(scope="module")
def full_nlp(tiny_bert_dir, tmp_path_factory):
    """tiny BERT + ctxvec_static + ctxvec_context + ctxvec_polysemy with a lexicon and
    senses built in initialize."""
    from .conftest import make_sense_nlp

    corpus_dir = tmp_path_factory.mktemp("retokenize_corpus")
    return make_sense_nlp(str(tiny_bert_dir), RETOKENIZE_LINES, corpus_dir, ["ctxvec_static", "ctxvec_context"])


def values_by_characters(doc):
    """Every attribute of every token, keyed by the characters the token spans."""
    return {(t.idx, len(t)): {a: getattr(t._, a) for a in TOKEN_ATTRS + SENSE_ATTRS} for t in doc}


def assert_same_value(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def test_values_follow_their_tokens_after_a_merge(full_nlp):
    """doc.retokenize() after the components (merge_entities, merge_noun_chunks): every
    token keeps its own values, the merged token has none; never another token's."""
    doc = full_nlp("i took a loan from the river bank today")
    before = values_by_characters(doc)
    assert any(v["sense"] is not None for v in before.values())  # senses are part of what is checked
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[6:8])  # "river bank"
    assert len(doc) == 8
    for token in doc:
        if token.text == "river bank":
            assert all(getattr(token._, a) in (None, False, 0) for a in TOKEN_ATTRS + SENSE_ATTRS if a != "sense_vec")
            assert token._.sense_vec is None and token._.static_vec is None
            continue
        for name, value in before[(token.idx, len(token))].items():
            assert_same_value(getattr(token._, name), value)
    # Span and Doc vectors: the mean over the tokens that still have a value.
    kept = [t._.context_vec for t in doc if t._.has_context_vec]
    np.testing.assert_allclose(doc._.context_vec, np.mean(kept, axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(doc[5:8]._.static_vec, np.mean([doc[5]._.static_vec, doc[7]._.static_vec], axis=0))


def test_values_follow_their_tokens_after_a_split_and_a_docbin(full_nlp):
    from spacy.tokens import DocBin

    doc = full_nlp("we sat on the riverbank today")
    before = values_by_characters(doc)
    with doc.retokenize() as retokenizer:
        retokenizer.split(doc[4], ["river", "bank"], heads=[(doc[4], 1), doc[3]])
    bin_doc = list(DocBin(docs=[doc], store_user_data=True).get_docs(full_nlp.vocab))[0]
    for current in (doc, bin_doc):
        assert [t.text for t in current][4:6] == ["river", "bank"]
        for token in current:
            if token.i in (4, 5):  # new tokens: no values, no IndexError
                assert token._.context_vec is None and token._.static_vec_key is None and token._.sense is None
                continue
            for name, value in before[(token.idx, len(token))].items():
                assert_same_value(getattr(token._, name), value)
        assert current[3:6]._.context_vec is not None


def test_a_doc_saved_without_user_data_reads_none_not_unseen(full_nlp):
    """0 means "seen 0 times" / "no senses": a Doc without the annotation reads None instead."""
    from spacy.tokens import DocBin

    doc = full_nlp("i took a loan from the river bank today")
    assert doc[7]._.polysemy_count > 0 and doc[7]._.n_senses >= 1
    bare = list(DocBin(docs=[doc], store_user_data=False).get_docs(full_nlp.vocab))[0]
    values = [(t._.polysemy_count, t._.n_senses, t._.polysemy_score, t._.sense, t._.static_vec_key) for t in bare]
    assert values == [(None, None, None, None, None)] * len(bare)
    assert full_nlp("qqqzzzx")[0]._.polysemy_count == 0  # annotated and unseen: 0


def test_a_retokenize_between_context_and_polysemy_is_a_coded_error(full_nlp):
    """ctxvec_polysemy reads ctxvec_context's vectors by token: E042, not senses read
    from the wrong tokens."""
    from spacy.language import Language

    @Language.component("merge_first_two_for_test")
    def merge_first_two(doc):
        with doc.retokenize() as retokenizer:
            retokenizer.merge(doc[0:2])
        return doc

    with full_nlp.select_pipes(disable=["ctxvec_polysemy"]):
        doc = full_nlp("the bank of the river")
    merge_first_two(doc)
    with pytest.raises(CtxvecError, match=r"CTX-E042.*ctxvec_polysemy.*retokeniz"):
        full_nlp.get_pipe("ctxvec_polysemy")(doc)


def test_arrays_saved_without_bounds_are_read_by_position_while_the_length_fits(full_nlp):
    """Docs saved by an earlier version have the arrays (Doc-level) but no bounds."""
    from spacy_ctxvec.attributes import BOUNDS_NAMES
    from spacy_ctxvec.doc_storage import key

    doc = full_nlp("the bank of the river")
    expected = doc[1]._.context_vec.copy()
    for name in BOUNDS_NAMES:
        del doc.user_data[key(name, 0)]
    for stored in [k for k in doc.user_data if k[2] == 0]:
        doc.user_data[key(stored[1], None)] = doc.user_data.pop(stored)
    np.testing.assert_array_equal(doc[1]._.context_vec, expected)
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[0:2])
    assert doc[1]._.context_vec is None and doc._.context_vec is not None
    assert not np.asarray(doc._.context_vec).any()  # no token left with a known row: zeros, not others' rows


def test_a_sentence_copied_by_as_doc_reads_its_own_values(full_nlp):
    """Span.as_doc(copy_user_data=True) copies the arrays to a shorter text whose first
    tokens have the same offsets and lengths as the original's first tokens: they read
    the second sentence's values (their own), not the first's (tests/test_doc_storage.py
    checks every attribute)."""
    doc = full_nlp("the bank of the river. the bank of the loan.")
    second = doc[6:11].as_doc(copy_user_data=True)
    assert [(t.idx, len(t)) for t in second][:4] == [(t.idx, len(t)) for t in doc][:4]
    for copied, original in zip(second, doc[6:11]):
        np.testing.assert_array_equal(copied._.context_vec, original._.context_vec)
        assert copied._.sense == original._.sense
    assert not np.array_equal(second[1]._.context_vec, doc[1]._.context_vec)
    np.testing.assert_allclose(second._.context_vec, doc[6:11]._.context_vec, rtol=1e-5)


def test_token_vectors_are_read_only_views_of_the_doc(full_nlp):
    """An in-place edit of token._.context_vec would change what the Doc's means, scores and
    senses read: it raises; a copy is the user's to change."""
    doc = full_nlp("the river bank")
    before = np.array(doc._.get(CONTEXT_ARRAY), copy=True)
    for name in ("context_vec", "static_vec"):
        vector = doc[2]._.get(name)
        with pytest.raises(ValueError, match="read-only"):
            vector /= np.linalg.norm(vector)
    mine = doc[2]._.context_vec.copy()
    mine /= np.linalg.norm(mine)
    assert np.array_equal(doc._.get(CONTEXT_ARRAY), before) and np.isclose(np.linalg.norm(mine), 1.0)


def test_the_registered_extensions_pickle_for_spawned_workers():
    """spaCy pickles every registered extension to nlp.pipe(n_process=...) workers under the
    spawn and forkserver start methods: ours must pickle, and come back as ours (no E022)."""
    install_extensions()
    state = pickle.loads(pickle.dumps(Underscore.get_state()))
    Underscore.load_state(state)
    install_extensions()
    doc = Doc(spacy.blank("en").vocab, words=["a", "b"])
    doc._.ctxvec_context = np.ones((2, 3), dtype="float32")
    assert doc._.ctxvec_context.shape == (2, 3)


def test_a_doc_level_array_set_by_hand_must_fit_the_tokens_and_be_finite():
    """doc._.ctxvec_context = a (5, 3) array on a 2-token Doc gave token vectors of the
    wrong rows; a NaN array gave NaN attributes. Both are E030; a fitting array is kept."""
    install_extensions()
    doc = Doc(spacy.blank("en").vocab, words=["a", "bank"])
    for value, got in (
        (np.ones((5, 3), dtype="float32"), r"shape \(5, 3\)"),
        (np.ones(2, dtype="float32"), r"shape \(2,\)"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN or infinite values"),
        (np.array([["a", "b"], ["c", "d"]]), "dtype <U1"),
        ("vectors", "str"),
    ):
        message = rf"\[CTX-E030\] doc\._\.ctxvec_context must be a 2-D array.*\(2\), got {got}"
        with pytest.raises(CtxvecError, match=message):
            doc._.ctxvec_context = value
        assert doc._.ctxvec_context is None
    with pytest.raises(CtxvecError, match=r"\[CTX-E030\] doc\._\.ctxvec_context_mask must be a 1-D boolean array"):
        doc._.ctxvec_context_mask = np.ones(3, dtype=bool)
    doc._.ctxvec_context = np.ones((2, 3), dtype="float32")
    doc._.ctxvec_context_mask = np.ones(2, dtype=bool)
    np.testing.assert_array_equal(doc[1]._.context_vec, np.ones(3))
    doc._.ctxvec_context = None  # taking it away stays allowed


def test_a_doc_level_array_set_by_hand_is_stored_as_a_read_only_float_copy():
    """The caller's array was kept by reference (an edit after setting it gave NaN token
    vectors), int32 was stored as int32, and float64 values beyond float32 gave NaN cosines."""
    install_extensions()
    doc = Doc(spacy.blank("en").vocab, words=["a", "bank"])
    mine = np.ones((2, 3))
    doc._.ctxvec_context = mine
    mine[1] = np.nan
    assert doc._.ctxvec_context.dtype == np.float32 and np.isfinite(doc[1]._.context_vec).all()
    with pytest.raises(ValueError, match="read-only"):
        doc._.ctxvec_context[1] = 0.0
    doc._.ctxvec_context = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert doc._.ctxvec_context.dtype == np.float32 and doc[1]._.context_vec.tolist() == [3.0, 4.0, 5.0]
    doc._.ctxvec_context = np.ones((2, 3), dtype=np.float16)
    assert doc._.ctxvec_context.dtype == np.float16  # the components' other dtype stays
    with pytest.raises(CtxvecError, match=r"\[CTX-E030\].*got NaN or infinite values"):
        doc._.ctxvec_context = np.full((2, 3), 1e300)
    labels = ["river", ""]
    doc._.ctxvec_sense_label = labels
    labels[0] = "changed"
    assert doc._.ctxvec_sense_label == ("river", "")  # stored as a tuple: read-only, as the arrays


def test_static_keys_and_sense_labels_set_by_hand_must_fit_the_tokens(tiny_nlp):
    """A code above 4 or a short label list gave an IndexError when a token read it."""
    doc = tiny_nlp("a bank")
    for name, value, got in (
        ("ctxvec_static_keys", np.array([1, 7]), "the code 7"),
        ("ctxvec_static_keys", np.array([1.0, 2.0]), "dtype float64"),
        ("ctxvec_static_keys", np.array([1]), r"shape \(1,\)"),
        ("ctxvec_sense_label", ["river"], "1 items"),
        ("ctxvec_sense_label", ["river", 3], "an item of type int"),
        ("ctxvec_sense_label", "river", "str"),
    ):
        with pytest.raises(CtxvecError, match=rf"\[CTX-E030\] doc\._\.{name} must be .*\(2\), got {got}"):
            setattr(doc._, name, value)
    doc._.ctxvec_static_keys = np.array([0, 4])
    assert doc[1]._.static_vec_key == "subwords"


@pytest.mark.parametrize("start_method", ["spawn", "forkserver"])
def test_n_process_2_under_spawn_and_forkserver(tiny_pipeline_dir, start_method):
    assert_n_process_2_matches_single_process(tiny_pipeline_dir, start_method)


def test_assigning_a_computed_attribute_is_a_coded_error_not_silently_lost():
    install_extensions()
    doc = Doc(spacy.blank("en").vocab, words=["a", "bank"])
    doc._.ctxvec_context = np.ones((2, 3), dtype="float32")  # the Doc-level arrays stay writable
    doc._.ctxvec_context_mask = np.ones(2, dtype=bool)
    with pytest.raises(
        CtxvecError, match=r"\[CTX-E026\] Token\._\.context_vec is read-only.*token\._\.context_vec\.copy"
    ):
        doc[1]._.context_vec = np.zeros(3, dtype="float32")
    with pytest.raises(CtxvecError, match=r"\[CTX-E026\] Token\._\.sense is read-only"):
        doc[1]._.sense = 7
    with pytest.raises(CtxvecError, match=r"\[CTX-E026\] Span\._\.context_vec is read-only"):
        doc[0:2]._.context_vec = np.zeros(3)
    assert doc[1]._.context_vec.tolist() == [1.0, 1.0, 1.0]
    assert not [key for key in doc.user_data if "context_vec" in str(key) or "sense" in str(key)]


def test_polysemy_and_sense_records_set_by_hand_are_checked_and_copied():
    """doc._.ctxvec_polysemy and ctxvec_sense were stored as given: a short array gave an
    IndexError when a token read it, a NaN score came back as NaN, and the caller's later
    edits reached the tokens. Now E030, and a read-only copy of the records."""
    from spacy_ctxvec.attributes import POLYSEMY_DTYPE, SENSE_DTYPE

    install_extensions()
    doc = Doc(spacy.blank("en").vocab, words=["a", "bank"])
    records = np.zeros(2, dtype=POLYSEMY_DTYPE)
    records["score"], records["has_score"] = [1.5, 2.5], True
    for value, got in ((5, "int"), (records[:1], r"shape \(1,\)"), (np.ones(2), "dtype float64")):
        with pytest.raises(CtxvecError, match=rf"\[CTX-E030\] doc\._\.ctxvec_polysemy must be .*got {got}"):
            doc._.ctxvec_polysemy = value
    broken = records.copy()
    broken["score"][1] = np.nan
    with pytest.raises(CtxvecError, match=r"NaN or infinite values"):
        doc._.ctxvec_polysemy = broken
    doc._.ctxvec_polysemy = records
    records["score"][1] = 99.0
    assert doc[1]._.polysemy_score == 2.5 and not doc._.ctxvec_polysemy.flags.writeable
    senses = np.zeros(2, dtype=SENSE_DTYPE)
    senses["sense"], senses["n_senses"] = [-1, 1], [0, 2]
    doc._.ctxvec_sense = senses
    assert (doc[1]._.sense, doc[1]._.n_senses) == (1, 2)
