"""ops.offsets.align_offsets gives spacy-transformers' get_alignment_via_offset_mapping
exactly, from token offsets instead of Token objects."""

import numpy as np
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.attrs import IDX, LENGTH
from spacy_transformers.align import get_alignment_via_offset_mapping
from spacy_transformers.span_getters import get_strided_spans

from spacy_ctxvec.ops.offsets import align_offsets

TEXTS = [
    "I have a pen.",
    "don't  stop   me now",
    "  leading spaces and trailing  ",
    "naïve café — “quotes” 😀 emoji",
    "unbelievable" * 30,
    "\n\nnew\nlines\t tabs",
    "U.S.A. is big. Dr. Smith's e-mail: a@b.com 3.14",
    "x",
]
WORDS = ["the", "bank", "river", "don't", "U.S.", "café", "😀", "  ", "\n", "e-mail", ",", "unbelievable", "x" * 30]
NLP = spacy.blank("en")


@pytest.fixture(scope="module")
def tokenizer(tiny_bert_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_bert_dir), use_fast=True)


def _both(tokenizer, text, window, stride):
    doc = NLP(text)
    spans = get_strided_spans([doc], window, stride)[0]
    encoding = tokenizer([span.text for span in spans], return_offsets_mapping=True)
    lengths = [len(row) for row in encoding["input_ids"]]
    offsets = np.zeros((len(spans), max(lengths), 2), dtype=np.int64)
    for i, row in enumerate(encoding["offset_mapping"]):
        offsets[i, : len(row)] = row
    expected = get_alignment_via_offset_mapping(spans, offsets)
    tokens = doc.to_array([IDX, LENGTH]).reshape(len(doc), 2)
    bounds = np.array([(span.start, span.end) for span in spans])
    flat, token_lengths = align_offsets(tokens[:, 0], tokens[:, 1], bounds, offsets, np.array(lengths))
    return (flat, token_lengths), (np.asarray(expected.dataXd), np.asarray(expected.lengths))


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("window,stride", [(128, 96), (4, 3), (3, 3)])
def test_same_alignment_as_spacy_transformers(tokenizer, text, window, stride):
    (flat, lengths), (expected_flat, expected_lengths) = _both(tokenizer, text, window, stride)
    assert flat.dtype == expected_flat.dtype and lengths.dtype == expected_lengths.dtype
    assert np.array_equal(flat, expected_flat) and np.array_equal(lengths, expected_lengths)


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(["", " ", "  "])), min_size=1, max_size=40))
def test_same_alignment_on_generated_texts(tiny_bert_dir, words):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir), use_fast=True)
    text = "".join(word + space for word, space in words)
    (flat, lengths), (expected_flat, expected_lengths) = _both(tokenizer, text, 5, 4)
    assert np.array_equal(flat, expected_flat) and np.array_equal(lengths, expected_lengths)


def test_no_tokens_or_no_wordpieces():
    flat, lengths = align_offsets(np.zeros(0), np.zeros(0), np.zeros((0, 2)), np.zeros((0, 0, 2)), np.zeros(0))
    assert flat.shape == (0,) and lengths.shape == (0,)
    flat, lengths = align_offsets(np.array([0]), np.array([3]), np.array([[0, 1]]), np.zeros((1, 2, 2)), np.array([2]))
    assert flat.shape == (0,) and lengths.tolist() == [0]  # special tokens only (offsets 0, 0)


def test_a_batch_aligns_each_doc_as_alone(tokenizer):
    from spacy_ctxvec.ops.offsets import align_batch

    docs = [NLP(text) for text in TEXTS + ["", "I have a pen."]]
    nested = get_strided_spans(docs, 4, 3)
    flat_spans = [span for spans in nested for span in spans]
    encoding = tokenizer([span.text for span in flat_spans], return_offsets_mapping=True)
    lengths = [len(row) for row in encoding["input_ids"]]
    offsets = np.array([pair for row in encoding["offset_mapping"] for pair in row], dtype=np.int64)
    tokens = [doc.to_array([IDX, LENGTH]).reshape(len(doc), 2) for doc in docs]
    bounds = [np.array([(span.start, span.end) for span in spans]).reshape(-1, 2) for spans in nested]
    ends = np.cumsum([len(spans) for spans in nested])
    span_lengths = [np.array(lengths[end - len(spans) : end]) for spans, end in zip(nested, ends)]
    aligned = align_batch([t[:, 0] for t in tokens], [t[:, 1] for t in tokens], bounds, span_lengths, offsets)
    assert len(aligned) == len(docs)
    for doc, spans, (flat, token_lengths) in zip(docs, nested, aligned):
        if not spans:
            assert flat.shape == (0,) and token_lengths.shape == (len(doc),)
            continue
        expected = get_alignment_via_offset_mapping(spans, _padded(tokenizer, spans))
        assert np.array_equal(flat, expected.dataXd) and np.array_equal(token_lengths, expected.lengths)


def _padded(tokenizer, spans):
    rows = tokenizer([span.text for span in spans], return_offsets_mapping=True)["offset_mapping"]
    offsets = np.zeros((len(rows), max(len(row) for row in rows), 2), dtype=np.int64)
    for i, row in enumerate(rows):
        offsets[i, : len(row)] = row
    return offsets


@pytest.mark.parametrize(
    "text,offsets",
    [
        ("a b", [[0, 1], [1, 3]]),  # "Ġb" covers the space before b
        ("ab  cd", [[0, 2], [2, 3], [3, 6]]),  # a piece of whitespace alone, then "Ġcd"
        ("a b c", [[0, 1], [1, 3], [3, 5]]),  # "Ġb" and "Ġc"
    ],
)
def test_a_wordpiece_covering_the_space_after_a_token_belongs_to_that_token(text, offsets):
    """Byte-level BPE with trim_offsets=False gives offsets that cover the whitespace before
    a word: the token before that whitespace covers its next character, so it owns the piece
    too, as in spacy-transformers (a token stopping at its last character loses the piece)."""
    doc = NLP(text)
    offsets = np.array([offsets], dtype=np.int64)
    expected = get_alignment_via_offset_mapping([doc[:]], offsets)
    tokens = doc.to_array([IDX, LENGTH]).reshape(len(doc), 2)
    bounds = np.array([[0, len(doc)]])
    flat, lengths = align_offsets(tokens[:, 0], tokens[:, 1], bounds, offsets, np.array([offsets.shape[1]]))
    assert np.array_equal(flat, expected.dataXd) and np.array_equal(lengths, expected.lengths)
    assert flat[: lengths[0]].tolist() == [0, 1]  # the first token owns the piece covering its next character


@pytest.fixture(scope="module", params=[False, True], ids=["untrimmed", "trimmed"])
def byte_level_tokenizer(request, tmp_path_factory):
    """A RoBERTa tokenizer (byte-level BPE trained on TEXTS); untrimmed, its offsets of "Ġword"
    pieces cover the space before the word."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaTokenizerFast

    path = tmp_path_factory.mktemp("byte_level_bpe")
    bpe = ByteLevelBPETokenizer()
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe.train_from_iterator(TEXTS, vocab_size=300, min_frequency=1, special_tokens=special, show_progress=False)
    bpe.save_model(str(path))
    files = {"vocab_file": str(path / "vocab.json"), "merges_file": str(path / "merges.txt")}
    return RobertaTokenizerFast(**files, trim_offsets=request.param)


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("window,stride", [(128, 96), (4, 3)])
def test_same_alignment_as_spacy_transformers_for_byte_level_bpe(byte_level_tokenizer, text, window, stride):
    """RoBERTa-style offsets, with and without the space before a word, align as in
    spacy-transformers (a token owns a piece that covers the character after it)."""
    (flat, lengths), (expected_flat, expected_lengths) = _both(byte_level_tokenizer, text, window, stride)
    assert np.array_equal(flat, expected_flat) and np.array_equal(lengths, expected_lengths)
