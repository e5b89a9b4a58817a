"""Stored arrays anchored at a character: Span.as_doc(copy_user_data=True) and
Doc.from_docs carry every token's values to the new Doc, as spaCy does with token and
span extension values."""

import copy
import pickle
import warnings

import numpy as np
import pytest
from spacy.tokens import Doc, DocBin, Token

from spacy_ctxvec.attributes import BOUNDS_NAMES, BOUNDS_OF, CONTEXT_SOURCE, DOC_VALUES, stored_array
from spacy_ctxvec.doc_storage import anchored, key, read_value, token_bounds

from .test_attributes import RETOKENIZE_LINES, SENSE_ATTRS, TOKEN_ATTRS, assert_same_value

ALL_ATTRS = TOKEN_ATTRS + SENSE_ATTRS + ("has_static_vec", "polysemy_count")
MEANS = ("context_vec", "static_vec", "sense_vec")
THREE_SENTENCES = "we sat on the river bank. i took out a loan from the bank. the bank of the river."


@pytest.fixture(scope="module")
def full_nlp(tiny_bert_dir, tmp_path_factory):
    """tiny BERT + ctxvec_static + ctxvec_context + ctxvec_polysemy with senses."""
    from .conftest import make_sense_nlp

    corpus_dir = tmp_path_factory.mktemp("as_doc_corpus")
    return make_sense_nlp(str(tiny_bert_dir), RETOKENIZE_LINES, corpus_dir, ["ctxvec_static", "ctxvec_context"])


def sentences(doc):
    """The spans up to and including each ".", without a sentencizer."""
    ends = [t.i + 1 for t in doc if t.text == "."]
    return [doc[start:end] for start, end in zip([0] + ends[:-1], ends)]


def assert_same_tokens(copied, original_tokens):
    """Every attribute of every token of ``copied`` is its original token's."""
    assert [t.text for t in copied] == [t.text for t in original_tokens]
    for new, old in zip(copied, original_tokens):
        for name in ALL_ATTRS:
            assert_same_value(getattr(new._, name), getattr(old._, name))


def assert_close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_every_sentence_copied_by_as_doc_reads_its_own_values(full_nlp):
    doc = full_nlp(THREE_SENTENCES)
    assert any(t._.sense is not None for t in doc)  # senses are part of what is checked
    for span in sentences(doc):
        sent = span.as_doc(copy_user_data=True)
        assert_same_tokens(sent, span)
        for name in MEANS:
            assert_close(getattr(sent._, name), getattr(span._, name))
            assert_close(getattr(sent[1:4]._, name), getattr(doc[span.start + 1 : span.start + 4]._, name))
        np.testing.assert_array_equal(sent._.ctxvec_context, doc._.ctxvec_context[span.start : span.end])
        np.testing.assert_array_equal(sent._.ctxvec_sense, doc._.ctxvec_sense[span.start : span.end])
        assert sent._.ctxvec_sense_label == doc._.ctxvec_sense_label[span.start : span.end]
        assert sent._.ctxvec_context_source == doc._.ctxvec_context_source is not None
    assert all(t._.context_vec is None for t in sentences(doc)[1].as_doc())  # without copy_user_data: none


def test_from_docs_reads_each_tokens_values_without_w101_and_keeps_them_saved(full_nlp):
    docs = [full_nlp(text) for text in ("we sat on the river bank.", "the bank gave us money", "the loan")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        merged = Doc.from_docs(docs)
    assert not [w for w in caught if "ctxvec" in str(w.message)]  # no W101 for our keys
    originals = [t for d in docs for t in d]
    kept = [t._.context_vec for t in originals if t._.has_context_vec]
    saved = list(DocBin(docs=[merged], store_user_data=True).get_docs(full_nlp.vocab))[0]
    for current in (merged, saved, pickle.loads(pickle.dumps(merged))):
        assert_same_tokens(current, originals)
        assert_close(current._.context_vec, np.mean(kept, axis=0))
        assert_close(current[7:10]._.static_vec, docs[1][0:3]._.static_vec)
        assert current._.ctxvec_context_source == docs[0]._.ctxvec_context_source is not None
        # a Span of the merged Doc, copied again, still reads its tokens' values
        assert_same_tokens(current[6:12].as_doc(copy_user_data=True), originals[6:12])
    copied = Doc.from_docs([merged[6:12].as_doc(copy_user_data=True), docs[0]])
    assert_same_tokens(copied, originals[6:12] + list(docs[0]))


def test_from_docs_of_float16_and_float32_parts_reads_every_parts_rows(tiny_bert_dir):
    import spacy

    from .conftest import transformer_config

    pipelines = []
    for dtype in ("float32", "float16"):
        nlp = spacy.blank("en", vocab=pipelines[0].vocab if pipelines else True)
        nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
        nlp.add_pipe("ctxvec_context", config={"dtype": dtype})
        nlp.initialize()
        pipelines.append(nlp)
    wide, narrow = pipelines[0]("we sat on the river bank"), pipelines[1]("the bank gave us money")
    for parts in ([wide, narrow], [narrow, wide]):
        merged = Doc.from_docs(parts)
        assert merged._.ctxvec_context.dtype == np.float32
        start = 0
        for part in parts:
            rows = merged._.ctxvec_context[start : start + len(part)]
            np.testing.assert_array_equal(rows, part._.ctxvec_context.astype(np.float32))
            span_mean = merged[start : start + len(part)]._.context_vec  # float16 means: to 3 decimals
            np.testing.assert_allclose(span_mean, part._.context_vec, atol=2e-3)
            start += len(part)
        every_row = np.vstack([p._.ctxvec_context.astype(np.float32) for p in parts])
        np.testing.assert_allclose(merged._.context_vec, every_row.mean(axis=0), atol=2e-3)


def test_a_token_read_before_a_retokenize_that_keeps_the_counts_reads_its_row_after(full_nlp):
    doc = full_nlp("we sat on the river bank. she went to the bank to pay in her wages.")
    copied = doc[7:].as_doc(copy_user_data=True)  # read through the anchored arrays
    with copied.retokenize() as retokenizer:
        retokenizer.merge(copied[9:11])  # "wages."
    assert copied[-1].text == "wages." and not copied[-1]._.has_context_vec
    with copied.retokenize() as retokenizer:  # as many tokens and characters as before
        retokenizer.split(copied[9], ["wages", "."], heads=[(copied[9], 1), copied[8]])
        retokenizer.merge(copied[0:2])
    assert copied[-1].text == "." and copied[-1]._.has_context_vec
    assert_close(copied[-1]._.context_vec, doc[-1]._.context_vec)
    assert not copied[0]._.has_context_vec  # "she went", merged


def test_docs_of_two_pipelines_joined_have_no_common_source_and_polysemy_refuses_the_others(full_nlp, tiny_bert_dir):
    """from_docs of a Doc whose vectors were pooled otherwise: the joined Doc's source is None
    (not the first part's), a copy of one part reads that part's, and ctxvec_polysemy
    refuses the joined Doc in either order (E043 names the other part's vectors)."""
    import spacy

    from spacy_ctxvec.errors import CtxvecError

    from .conftest import transformer_config

    other = spacy.blank("en", vocab=full_nlp.vocab)
    other.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    other.add_pipe("ctxvec_context", config={"pooling": {"@misc": "spacy-ctxvec.first_pooling.v1"}})
    other.initialize()
    ours, theirs = full_nlp("the bank of the river"), other("we sat on the bank")
    assert ours._.ctxvec_context_source != theirs._.ctxvec_context_source
    for parts in ([ours, theirs], [theirs, ours]):
        merged = Doc.from_docs(parts)
        assert merged._.ctxvec_context_source is None
        with pytest.raises(CtxvecError, match=r"E043.*pooled by pool_first"):
            full_nlp.get_pipe("ctxvec_polysemy")(merged)
    merged = Doc.from_docs([ours, theirs])
    second = merged[len(ours) :].as_doc(copy_user_data=True)  # keeps both parts' user data
    assert second._.ctxvec_context_source == theirs._.ctxvec_context_source
    assert merged[: len(ours)].as_doc(copy_user_data=True)._.ctxvec_context_source == ours._.ctxvec_context_source
    alike = Doc.from_docs([ours, full_nlp("a loan from the bank")])
    assert alike._.ctxvec_context_source == ours._.ctxvec_context_source  # parts that agree


def test_a_doc_without_values_joined_by_from_docs_reads_none_for_its_tokens(full_nlp):
    blank = full_nlp.make_doc("a plain text")
    doc = full_nlp("the bank of the river")
    merged = Doc.from_docs([blank, doc])
    assert all(t._.context_vec is None and t._.sense is None for t in merged[:3])
    assert_same_tokens(merged[3:], doc)
    assert_close(merged._.static_vec, doc._.static_vec)
    assert not merged._.ctxvec_context_mask[:3].any() and (merged._.ctxvec_sense["sense"][:3] == -1).all()


def test_a_retokenized_doc_copied_by_as_doc_still_maps_tokens_by_characters(full_nlp):
    doc = full_nlp(THREE_SENTENCES)
    before = {(t.idx, len(t)): {a: getattr(t._, a) for a in ALL_ATTRS} for t in doc}
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[4:6])  # "river bank"
    span = sentences(doc)[0]
    sent = span.as_doc(copy_user_data=True)
    for token, old in zip(sent, span):
        if old.text == "river bank":
            assert token._.context_vec is None and token._.sense is None
            continue
        for name, value in before[(old.idx, len(old))].items():
            assert_same_value(getattr(token._, name), value)


def test_polysemy_runs_on_a_sentence_copied_by_as_doc(full_nlp):
    """The copied vectors fit the copy's tokens: ctxvec_polysemy reads them (no E042)."""
    with full_nlp.select_pipes(disable=["ctxvec_polysemy"]):
        doc = full_nlp(THREE_SENTENCES)
    expected = full_nlp.get_pipe("ctxvec_polysemy")(doc.copy())
    span = sentences(doc)[1]
    sent = full_nlp.get_pipe("ctxvec_polysemy")(span.as_doc(copy_user_data=True))
    assert [t._.sense for t in sent] == [t._.sense for t in expected[span.start : span.end]]
    assert [t._.polysemy_score for t in sent] == [t._.polysemy_score for t in expected[span.start : span.end]]
    assert [k[2] for k in sent.user_data if k[1] == "ctxvec_polysemy"] == [0]  # the new values replace the copies


def test_values_copied_by_hand_to_another_text_are_not_read_by_other_words(full_nlp):
    """A token reads a row only where the same text sat at the same characters: data
    copied to another text gives its other words at those offsets no value."""
    doc = full_nlp("the bank of the river. the bank of the loan.")
    other = full_nlp.make_doc("the loan of the bank.")
    other.user_data = copy.deepcopy(doc.user_data)
    assert [(t.idx, len(t)) for t in other][:4] == [(t.idx, len(t)) for t in doc][:4]
    assert other[1]._.context_vec is None and other[1]._.sense is None and other[1]._.static_vec is None
    assert other[4]._.context_vec is None
    assert_same_tokens(other[:1], doc[:1])  # the same word at the same characters
    same_length = full_nlp.make_doc("the loan of the river. the bank of the loan.")
    same_length.user_data = copy.deepcopy(doc.user_data)
    assert same_length[1]._.context_vec is None and same_length[1]._.sense is None
    assert_same_tokens(same_length[2:], doc[2:])


def test_docs_saved_by_earlier_versions_read_as_then(full_nlp):
    """Doc-level keys (None, None), with bounds of two columns, of two columns without the
    text's row (a few versions stored them so: every value read as None, every vector zero),
    or none."""
    doc = full_nlp("the bank of the river")
    expected = {a: [getattr(t._, a) for t in doc] for a in ALL_ATTRS}
    for bounds_rows in (slice(None), slice(-1), None):
        with_bounds = bounds_rows is not None
        old = full_nlp.make_doc("the bank of the river")
        for name in (*BOUNDS_OF, *BOUNDS_NAMES, *DOC_VALUES):
            value = doc.user_data.get(key(name, 0))
            if value is not None and (name not in BOUNDS_NAMES or with_bounds):
                old.user_data[key(name, None)] = value[bounds_rows, :2] if name in BOUNDS_NAMES else value
        assert not anchored(old, BOUNDS_OF["ctxvec_context"])
        for name, values in expected.items():
            for token, value in zip(old, values):
                assert_same_value(getattr(token._, name), value)
        assert old._.ctxvec_context_source == doc._.ctxvec_context_source
        with old.retokenize() as retokenizer:
            retokenizer.merge(old[0:2])
        assert old[0]._.context_vec is None
        if with_bounds:
            assert_same_value(old[1]._.context_vec, expected["context_vec"][2])
        # as_doc drops Doc-level keys: nothing to read, no traceback
        assert old[1:3].as_doc(copy_user_data=True)[0]._.context_vec is None


def test_no_token_or_span_attribute_reads_the_anchored_keys():
    """spaCy reads Token extensions at ("._.", name, token.idx, None): none of ours is one."""
    from spacy_ctxvec.attributes import install_extensions

    install_extensions()
    assert not any(Token.has_extension(name) for name in (*BOUNDS_OF, *BOUNDS_NAMES, *DOC_VALUES))


def test_token_bounds_record_start_length_and_text(full_nlp):
    doc = full_nlp.make_doc("a bank")
    bounds = token_bounds(doc)
    assert bounds.shape == (3, 3) and bounds.dtype == np.int64
    assert bounds[:, :2].tolist() == [[0, 1], [2, 4], [6, -1]]
    assert bounds[1, 2] == np.uint64(doc[1].orth).astype(np.int64)


def test_doc_values_of_parts_that_differ_read_none(full_nlp):
    doc = full_nlp.make_doc("a b c")
    doc.user_data[key(CONTEXT_SOURCE, 2)] = "layer 1"
    doc.user_data[key(CONTEXT_SOURCE, -4)] = "layer 1"
    assert read_value(doc, CONTEXT_SOURCE) == "layer 1" == stored_array(doc, CONTEXT_SOURCE)
    doc.user_data[key(CONTEXT_SOURCE, 4)] = "layer 2"
    assert read_value(doc, CONTEXT_SOURCE) is None
    assert [anchor for anchor, _ in anchored(doc, CONTEXT_SOURCE)] == [-4, 2, 4]


def test_a_token_reads_what_user_data_holds_now_not_an_earlier_index(full_nlp):
    """The anchored entries a token getter found are checked against user_data on use:
    entries moved since (the number of keys unchanged) are found again."""
    from spacy_ctxvec.attributes import CONTEXT_BOUNDS

    sent = sentences(full_nlp(THREE_SENTENCES))[1].as_doc(copy_user_data=True)
    before = [t._.context_vec for t in sent]
    (anchor,) = [k[2] for k in sent.user_data if k[1] == CONTEXT_BOUNDS]
    names = [n for n, b in BOUNDS_OF.items() if b == CONTEXT_BOUNDS] + [CONTEXT_BOUNDS]
    for shift in (1, -1):
        for name in names:
            sent.user_data[key(name, anchor + shift)] = sent.user_data.pop(key(name, anchor))
        anchor += shift
        if shift == 1:
            assert all(t._.context_vec is None for t in sent)  # one character off: no token's row
    for token, value in zip(sent, before):
        np.testing.assert_array_equal(token._.context_vec, value)


def test_a_token_two_copies_give_a_row_reads_none_not_a_neighbours_value(full_nlp):
    """as_doc keeps the whole source: joined twice, the first copy's range reaches over the
    second, whose "the bank of the" sit at the characters of the source's second sentence
    "the bank of the loan." Which copy they came from is not known: None, never the
    second sentence's values; the tokens only one copy explains read their own."""
    doc = full_nlp("the bank of the river. the bank of the loan.")
    first = doc[0:6].as_doc(copy_user_data=True)
    joined = Doc.from_docs([first, first])
    assert_same_tokens(joined[:6], doc[:6])
    assert all(t._.context_vec is None and t._.sense is None for t in joined[6:10])
    assert_same_tokens(joined[10:], doc[4:6])
    assert not joined._.ctxvec_context_mask[6:10].any()


def test_a_joined_doc_as_long_as_its_first_parts_source_reads_no_other_docs_values(full_nlp):
    """The first part, an as_doc copy from character 0, keeps its source's arrays at anchor
    0; a joined text exactly as long as that source once read them as its own, so the
    second part's "bank" took the source's "bank" at the same characters (an auditor)."""
    source = full_nlp("it is late. she went to pay the bank.")
    other = full_nlp("we sat on the grass bank.")
    joined = Doc.from_docs([source[:4].as_doc(copy_user_data=True), other])
    assert len(joined.text) == len(source.text) and joined[-2].idx == source[-2].idx
    assert_same_tokens(joined[:4], source[:4])
    assert_same_tokens(joined[4:9], other[:5])  # only the second part gives them a row
    assert joined[-2]._.context_vec is None and joined[-2]._.sense is None  # both parts give "bank" one
    assert_close(joined[4:9]._.context_vec, other[:5]._.context_vec)
    np.testing.assert_array_equal(joined._.ctxvec_context[4:9], other._.ctxvec_context[:5])


def test_sentences_of_a_doc_joined_in_another_order_read_their_own_values_or_none(full_nlp):
    doc = full_nlp("the bank is big. a bank is here. the bank is old. ")  # a text that ends in a space
    first, second, third = (span.as_doc(copy_user_data=True) for span in sentences(doc))
    joined = Doc.from_docs([first, third, second])
    assert len(joined.text) == len(doc.text)
    originals = [*doc[0:5], *doc[10:15], *doc[5:10]]
    for token, original in zip(joined, originals):
        for name in ALL_ATTRS:
            value = getattr(token._, name)
            if value is not None and name not in ("has_static_vec", "has_context_vec"):
                assert_same_value(value, getattr(original._, name))
    assert sum(token._.context_vec is not None for token in joined) >= 5


def test_an_array_set_by_hand_after_retokenize_is_read_by_the_tokens_it_was_set_for(full_nlp):
    """After a merge the stored arrays keep the rows of the old tokens; an array set by hand has
    one row per token as they are now (E030 checks that). Each token reads its own row of it
    (the token after the merge read the row of the one before, and the last an IndexError), and
    the other arrays of the component keep each token's own values (none for the merged token)."""
    doc = full_nlp(THREE_SENTENCES)
    before = {(t.idx, len(t)): {a: getattr(t._, a) for a in ALL_ATTRS} for t in doc}
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[4:6])  # "river bank"
    mine = np.arange(len(doc) * 3, dtype="float32").reshape(len(doc), 3)
    doc._.ctxvec_context = mine
    for token in doc:
        np.testing.assert_array_equal(token._.context_vec, mine[token.i])
        if token.text == "river bank":
            assert token._.has_context_vec is False and token._.sense is None
            continue
        old = before[(token.idx, len(token))]
        for name in ("has_context_vec", "sense", "sense_label", "static_vec", "polysemy_score"):
            assert_same_value(getattr(token._, name), old[name])
    np.testing.assert_array_equal(doc[-1]._.context_vec, mine[-1])
    assert doc._.ctxvec_context_mask.shape == (len(doc),) and doc._.context_vec.shape == (3,)
    copied = pickle.loads(pickle.dumps(doc))
    np.testing.assert_array_equal(copied[5]._.context_vec, mine[5])


def test_an_array_set_by_hand_on_a_joined_doc_is_read_by_its_tokens(full_nlp):
    """A Doc joined by from_docs holds each part's arrays at its own anchor; one set by hand
    for the joined Doc's tokens is read as set, and the parts' other arrays as before."""
    first, second = full_nlp("we sat on the river bank."), full_nlp("the bank of the loan.")
    joined = Doc.from_docs([first, second])
    senses = [token._.sense for token in joined]
    mine = np.ones((len(joined), 4), dtype="float32") * np.arange(len(joined), dtype="float32")[:, None]
    joined._.ctxvec_context = mine
    assert [token._.context_vec[0] for token in joined] == list(range(len(joined)))
    assert [token._.sense for token in joined] == senses
    assert all(token._.has_context_vec for token in joined if token.is_alpha)


def test_matcher_patterns_of_the_reference_match_and_the_forms_it_warns_of_raise(full_nlp):
    """docs/reference.md: IN works on tokens without a value (None); a plain value, REGEX and
    comparisons raise TypeError in spaCy's Matcher at a None (the reference says to filter after)."""
    from spacy.matcher import Matcher

    doc = full_nlp(THREE_SENTENCES)
    bank = next(token for token in doc if token.text == "bank" and token._.sense is not None)
    assert any(token._.sense is None for token in doc)  # "." and the rare words
    works = Matcher(full_nlp.vocab)
    works.add("label", [[{"LOWER": "bank", "_": {"sense_label": {"IN": [bank._.sense_label]}}}]])
    works.add("sense", [[{"_": {"sense": {"IN": [bank._.sense]}}}]])
    found = {(full_nlp.vocab.strings[m], s) for m, s, _ in works(doc)}
    assert ("label", bank.i) in found and ("sense", bank.i) in found
    assert all(doc[s]._.sense_label == bank._.sense_label for name, s in found if name == "label")
    for pattern in (
        {"_": {"sense_label": {"REGEX": "."}}},
        {"_": {"polysemy_score": {">=": 0}}},
        {"_": {"sense_label": bank._.sense_label}},
    ):
        raising = Matcher(full_nlp.vocab)
        raising.add("x", [[pattern]])
        with pytest.raises(TypeError):
            raising(doc)


def test_span_vectors_of_a_long_doc_cost_the_span_not_the_doc_and_equal_the_rows_mean(full_nlp):
    """A 2-token span of a 4,000-token Doc read every token's bounds (O(Doc) per span: quadratic
    over a Doc's spans); now its own tokens only, with the same values, also after a merge."""
    import time

    short, long = full_nlp(THREE_SENTENCES), full_nlp(" ".join([THREE_SENTENCES] * 150))
    assert len(long) > 40 * len(short)

    def per_call(doc):
        span = doc[1:3]
        started = time.perf_counter()
        for _ in range(200):
            assert span._.context_vec is not None
        return (time.perf_counter() - started) / 200

    assert per_call(long) < 5 * per_call(short) + 2e-4  # was about 15x slower at 4,000 tokens
    span = long[100:130]
    rows = long._.ctxvec_context[100:130][long._.ctxvec_context_mask[100:130]]
    np.testing.assert_allclose(span._.context_vec, rows.mean(axis=0), rtol=1e-6)
    with long.retokenize() as retokenizer:
        retokenizer.merge(long[4:6])
    for start, end in ((0, 10), (3, 8), (50, 60)):
        kept = [t._.context_vec for t in long[start:end] if t._.has_context_vec]
        np.testing.assert_allclose(long[start:end]._.context_vec, np.mean(kept, axis=0), rtol=1e-5)


def test_the_doc_level_arrays_are_read_only_as_token_rows_are(full_nlp):
    """An in-place edit of doc._.ctxvec_context changed every token, span and Doc vector and got
    past E030's check (NaN); now it raises, and a copy set back is checked."""
    doc = full_nlp(THREE_SENTENCES)
    for name in ("ctxvec_context", "ctxvec_context_mask", "ctxvec_static", "ctxvec_sense_vec"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(doc._, name)[0] = 0
    edited = doc._.ctxvec_context.copy()
    edited -= edited.mean(axis=0)
    doc._.ctxvec_context = edited
    np.testing.assert_array_equal(doc[1]._.context_vec, edited[1])
