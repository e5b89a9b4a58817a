import warnings

import numpy as np
import pytest
from spacy.language import Language

from spacy_ctxvec.building.shard import context_width, partial_lexicon
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import merge

from .test_building_local import declares_lemmas, strip_s_lemmas  # noqa: F401  (registers the test lemma components)

WORDS = ["the", "bank", "river", "loan", "money", "i", "have", "an", "apple", "pen", "play", "hotel", "we", "sat", "on"]


def test_partial_lexicon_counts_every_token_with_a_vector(tiny_nlp):
    texts = ["The bank of the river.", "I have an apple", "Bank loan"]
    lexicon = partial_lexicon(tiny_nlp, texts, batch_size=2)
    expected = sum(int(doc._.ctxvec_context_mask.sum()) for doc in tiny_nlp.pipe(texts))
    assert lexicon.n_occurrences == expected
    assert lexicon.counts[lexicon.index("bank")] == 2 and "Bank" not in lexicon
    assert lexicon.meta["key"] == "lower"
    assert lexicon.meta["context_vectors"] == tiny_nlp(texts[0])._.ctxvec_context_source  # checked by ctxvec_polysemy
    assert "context_vectors" not in partial_lexicon(tiny_nlp, [""]).meta  # no Docs counted: nothing to record
    by_text = partial_lexicon(tiny_nlp, texts, key="text", batch_size=2)
    assert "Bank" in by_text and by_text.counts[by_text.index("bank")] == 1


def test_a_word_read_with_a_glued_emoji_as_one_unknown_piece_is_not_counted(tiny_nlp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CTX-W070, said once per component (tests/test_components_context.py)
        lexicon = partial_lexicon(tiny_nlp, ["the bank\U0001f602 of the river", "the bank \U0001f602 here"])
    assert lexicon.counts[lexicon.index("bank")] == 1
    assert lexicon.counts[lexicon.index("\U0001f602")] == 2  # the emoji, glued or not: as one alone
    assert lexicon.n_skipped_zero == 1  # the glued "bank": not counted, and counted as such


def test_a_zero_width_joiner_between_emoji_is_no_type(tiny_nlp):
    """The joiner of a family emoji shares the emoji's unknown piece, so it has a vector; it was
    counted as a type '\u200d' that export-static wrote as an invisible key."""
    text = "the family \U0001f468\u200d\U0001f469\u200d\U0001f467 by the river"
    doc = tiny_nlp(text)
    assert any(token.text == "\u200d" and token._.has_context_vec for token in doc)  # what the lexicon must skip
    lexicon = partial_lexicon(tiny_nlp, [text], sample_size=8)
    assert "\u200d" not in lexicon and lexicon.counts[lexicon.index("\U0001f468")] == 1
    assert lexicon.n_occurrences == sum(token._.has_context_vec for token in doc) - 2
    assert "\u200d" not in lexicon.sample.keys and lexicon.sample.vectors.shape[0] == lexicon.n_occurrences


def test_partial_lexicons_of_parts_merge_to_the_whole(tiny_nlp):
    texts = ["the bank of the river", "we took out a loan", "the bank", "play the apple pen"]
    whole = partial_lexicon(tiny_nlp, texts, batch_size=1)
    parts = merge(
        partial_lexicon(tiny_nlp, texts[2:], batch_size=1), partial_lexicon(tiny_nlp, texts[:2], batch_size=1)
    )
    assert parts == whole


def test_key_modes_unknown_and_lemma_without_lemmatizer(tiny_nlp):
    with pytest.raises(CtxvecError, match="E216"):
        partial_lexicon(tiny_nlp, ["a"], key="norm")
    # texts: no Doc has lemmas, and no component sets them (build-lexicon says E217 before reading)
    with pytest.raises(CtxvecError, match=r"E229.*'a'.*neither the Doc given nor a component.*lemmatizer"):
        partial_lexicon(tiny_nlp, ["a"], key="lemma")


def test_lemma_key_with_a_lemma_setter(tiny_bert_dir):
    from .conftest import make_trf_nlp

    nlp = make_trf_nlp(str(tiny_bert_dir), components=["test_strip_s_lemmas", "ctxvec_context"], window=8, stride=6)
    lexicon = partial_lexicon(nlp, ["banks and bank", "pens"], key="lemma", batch_size=4)
    assert lexicon.counts[lexicon.index("bank")] == 2 and "pen" in lexicon
    # After ctxvec_polysemy, where build-lexicon counts without the other components, the
    # lemma setter still runs: the "lemma" key reads it.
    after = ["ctxvec_context", "ctxvec_polysemy", "test_strip_s_lemmas"]
    late = make_trf_nlp(str(tiny_bert_dir), components=after, window=8, stride=6)
    assert partial_lexicon(late, ["banks and bank", "pens"], key="lemma", batch_size=4) == lexicon
    silent = make_trf_nlp(str(tiny_bert_dir), components=["test_declares_lemmas", "ctxvec_context"], window=8, stride=6)
    with pytest.raises(CtxvecError, match="E229"):
        partial_lexicon(silent, ["banks"], key="lemma", batch_size=4)


@Language.component("test_lemmas_not_ready", assigns=["token.lemma"])
def lemmas_not_ready(doc):
    raise RuntimeError("a lemma setter after ctxvec_polysemy was called before it was initialized")


def test_the_width_probe_runs_nothing_after_ctxvec_context(tiny_bert_dir):
    """Where ctxvec_context's width is not known yet (a saved pipeline loaded with other layers), the
    probe text stops at it: a lemma setter after ctxvec_polysemy may not be initialized yet."""
    from .conftest import make_trf_nlp

    after = ["ctxvec_context", "ctxvec_polysemy", "test_lemmas_not_ready"]
    nlp = make_trf_nlp(str(tiny_bert_dir), components=after, window=8, stride=6)
    known = nlp.get_pipe("ctxvec_context").width
    nlp.get_pipe("ctxvec_context").width = None
    assert context_width(nlp) == known > 0


def test_a_lexicon_not_keyed_by_lemma_runs_no_lemma_setter_after_ctxvec_polysemy(tiny_bert_dir):
    """An [initialize] corpus build stops before its ctxvec_polysemy, whose later components are
    not initialized yet: a lemma setter there runs only for the "lemma" key without one before it."""
    from .conftest import make_trf_nlp

    after = ["ctxvec_context", "ctxvec_polysemy", "test_lemmas_not_ready"]
    nlp = make_trf_nlp(str(tiny_bert_dir), components=after, window=8, stride=6)
    lexicon = partial_lexicon(nlp, ["banks and bank"], key="lower", stop_before="ctxvec_polysemy")
    assert lexicon.counts[lexicon.index("bank")] == 1


def test_a_lemma_key_whose_lemma_setters_all_come_after_ctxvec_polysemy_is_refused(tiny_bert_dir):
    """A lexicon built with them counts lemmas, but at run time ctxvec_polysemy reads the tokens
    before their lemmas are set and finds no word (W071, every count 0): E275 before reading."""
    from spacy_ctxvec.building.shard import check_key_mode

    from .conftest import make_trf_nlp

    late = make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_context", "ctxvec_polysemy", "test_strip_s_lemmas"])
    with pytest.raises(CtxvecError, match=r"E275.*\(\['test_strip_s_lemmas'\]\) all come after 'ctxvec_polysemy'"):
        check_key_mode(late, "lemma")
    check_key_mode(late, "lemma", docs_given=True)  # Docs of a .spacy corpus may carry their lemmas
    check_key_mode(late, "lower")
    early = make_trf_nlp(str(tiny_bert_dir), components=["test_strip_s_lemmas", "ctxvec_context", "ctxvec_polysemy"])
    check_key_mode(early, "lemma")


def test_a_lemma_keyed_pipeline_warns_when_a_docs_tokens_have_no_lemma(tiny_bert_dir, tmp_path):
    """Run without its lemmatizer, every token silently got no score, count or senses."""
    from .conftest import make_trf_nlp

    nlp = make_trf_nlp(str(tiny_bert_dir), components=["test_strip_s_lemmas", "ctxvec_context"], window=8, stride=6)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("banks and bank\nthe bank\n", encoding="utf8")
    nlp.add_pipe("ctxvec_polysemy", config={"key": "lemma", "min_count": 2})
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(corpus)}
    }
    nlp.initialize()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nlp("banks")[0]._.polysemy_count == 3
    with nlp.select_pipes(disable=["test_strip_s_lemmas"]):
        with pytest.warns(UserWarning, match=r"\[CTX-W071\] 'ctxvec_polysemy' looks words up by their lemma") as caught:
            assert nlp("banks")[0]._.polysemy_count == 0
        assert sum("CTX-W071" in str(w.message) for w in caught) == 1  # once per Doc
        assert {w.filename for w in caught} == {__file__}  # the user's line, not spacy-ctxvec's


def test_pipeline_without_context_vectors_is_an_error():
    import spacy

    with pytest.raises(CtxvecError, match="E218"):
        partial_lexicon(spacy.blank("en"), ["text"], batch_size=4)


def test_a_retokenizer_after_ctxvec_context_is_a_coded_error_not_shifted_counts(tiny_bert_dir):
    """merge_noun_chunks-like merging after ctxvec_context: the vectors belong to the
    tokens before the merge, so the lexicon would count them under the wrong words."""
    from spacy.language import Language

    from .conftest import make_trf_nlp

    @Language.component("test_merge_first_two")
    def merge_first_two(doc):
        with doc.retokenize() as retokenizer:
            retokenizer.merge(doc[0:2])
        return doc

    nlp = make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_context", "test_merge_first_two"], window=8, stride=6)
    with pytest.raises(CtxvecError, match=r"CTX-E042.*before the transformer"):
        partial_lexicon(nlp, ["the river bank", "a loan from the bank"], batch_size=4)


# Occurrence samples (issue 11)
SAMPLE_TEXTS = [
    "The bank of the river was muddy.",
    "I took money out of the Bank!",
    "We sat on the river bank, and ate an apple.",
    "The bank gave us a loan; the loan was big.",
    "The bank of the river was muddy.",  # a repeated document: its occurrences are kept once
    "we want to buy an apple and a pen and a phone",
    "the river bank\n\nthe money bank",  # a paragraph break bounds each token's context
]


def every_occurrence(nlp, texts):
    """(keys, vectors, priorities, snippets, contexts) of every counted occurrence, made
    directly (the context: mean vector of the tokens with a vector up to CONTEXT_WINDOW
    either side, and the rank in the passage: earlier counted occurrences of the same key
    in the same passage, by loops)."""
    import numpy as np

    from spacy_ctxvec.building.shard import snippet
    from spacy_ctxvec.lexicon.occurrence_keys import PASSAGE_TOKENS, passage_priorities, text_hash
    from spacy_ctxvec.ops.senses import CONTEXT_WINDOW

    keys, vectors, priorities, snippets, contexts = [], [], [], [], []
    for doc in nlp.pipe(texts):
        mask = doc._.ctxvec_context_mask
        for i in np.flatnonzero(mask):
            keys.append(doc[int(i)].lower_)
            vectors.append(doc._.ctxvec_context[i])
            rank = sum(
                1
                for j in np.flatnonzero(mask[:i])
                if doc[int(j)].lower_ == doc[int(i)].lower_ and j // PASSAGE_TOKENS == i // PASSAGE_TOKENS
            )
            hashes = np.array([text_hash(doc.text)], dtype=np.uint64)
            word = np.array([text_hash(doc[int(i)].lower_)], dtype=np.uint64)
            priorities.append(passage_priorities(hashes, word, np.array([i]), np.array([rank]))[0])
            snippets.append(snippet(doc, int(i)))
            around = [
                j
                for j in range(max(0, i - CONTEXT_WINDOW), min(len(doc), i + CONTEXT_WINDOW + 1))
                if j != i
                and mask[j]
                and not any(t.is_space and t.text.count("\n") >= 2 for t in doc[min(i, j) : max(i, j)])
            ]
            contexts.append(
                np.mean([doc._.ctxvec_context[j] for j in around], axis=0)
                if around
                else np.zeros(doc._.ctxvec_context.shape[1])
            )
    return keys, np.vstack(vectors), np.array(priorities, dtype=np.uint64), snippets, np.vstack(contexts)


@pytest.mark.parametrize("buffered", [50_000, 7])
def test_sample_equals_the_k_lowest_of_every_occurrence(tiny_nlp, monkeypatch, buffered):
    import spacy_ctxvec.building.shard as shard
    from spacy_ctxvec.lexicon.sample import OccurrenceSample

    monkeypatch.setattr(shard, "MAX_BUFFERED_OCCURRENCES", buffered)  # 7: many chunks, snippets per chunk
    lexicon = partial_lexicon(tiny_nlp, SAMPLE_TEXTS, batch_size=2, sample_size=2)
    keys, vectors, priorities, snippets, contexts = every_occurrence(tiny_nlp, SAMPLE_TEXTS)
    expected = OccurrenceSample.from_occurrences(
        keys, vectors, priorities, snippets, k=2, contexts=contexts, by_passage=True, distinct_snippets=True
    )
    assert lexicon.sample.has_contexts
    assert lexicon.sample.without_contexts() == expected.without_contexts()  # the same rows, bit for bit
    np.testing.assert_allclose(
        lexicon.sample.contexts.astype(np.float32), expected.contexts.astype(np.float32), rtol=2e-3, atol=1e-4
    )  # each row's own context (float32 sums, float16 storage)
    assert set(lexicon.sample.keys) == set(lexicon.keys)
    counts = dict(zip(lexicon.keys, lexicon.counts.tolist()))
    assert all(1 <= n <= min(2, counts[key]) for key, n in zip(lexicon.sample.keys, lexicon.sample.counts()))
    _, bank_snippets = lexicon.sample.rows_of("bank")
    assert len(bank_snippets) == 2 and all("[bank]" in s.lower() for s in bank_snippets)


def test_sampled_parts_merge_to_the_whole_and_no_sample_by_default(tiny_nlp):
    whole = partial_lexicon(tiny_nlp, SAMPLE_TEXTS, batch_size=1, sample_size=3)
    parts = merge(
        partial_lexicon(tiny_nlp, SAMPLE_TEXTS[3:], batch_size=1, sample_size=3),
        partial_lexicon(tiny_nlp, SAMPLE_TEXTS[:3], batch_size=1, sample_size=3),
    )
    assert parts.sample == whole.sample and parts == whole  # bitwise (same batches: same vectors)
    assert partial_lexicon(tiny_nlp, SAMPLE_TEXTS[:2], batch_size=2).sample is None


def test_empty_input_gives_an_empty_sample_and_negative_size_is_an_error(tiny_nlp):
    empty = partial_lexicon(tiny_nlp, [], sample_size=4)
    assert empty.sample is not None and empty.sample.n_rows == 0 and empty.sample.k == 4
    assert empty.sample.width == empty.width
    with pytest.raises(CtxvecError, match="E228.*sample_size"):
        partial_lexicon(tiny_nlp, ["a"], sample_size=-1)


def test_lowest_per_group_keeps_ties_with_the_kth():
    import numpy as np

    from spacy_ctxvec.building.shard import lowest_per_group

    groups = np.array([0, 0, 0, 0, 1, 1, 2, 0])
    priorities = np.array([5, 1, 3, 3, 9, 8, 4, 6], dtype=np.uint64)
    assert lowest_per_group(groups, priorities, 2).tolist() == [False, True, True, True, True, True, True, False]
    assert lowest_per_group(groups, priorities, 3).tolist() == [True, True, True, True, True, True, True, False]
    assert lowest_per_group(groups, priorities, 1).tolist() == [False, True, False, False, False, True, True, False]


def test_docs_and_texts_give_the_same_sample(tiny_nlp):
    from_texts = partial_lexicon(tiny_nlp, SAMPLE_TEXTS, batch_size=2, sample_size=2)
    from_docs = partial_lexicon(
        tiny_nlp, [tiny_nlp.make_doc(text) for text in SAMPLE_TEXTS], batch_size=2, sample_size=2
    )
    assert from_docs == from_texts  # priorities hash doc.text, which equals the input text


@pytest.mark.parametrize("buffered", [50_000, 9])
def test_copies_of_a_line_take_one_sample_row_and_the_words_other_lines_fill_the_rest(tiny_nlp, monkeypatch, buffered):
    """A licence line in 30 documents (each a little different further on) held all k rows
    of the words in it; each snippet is now kept once, and the sample equals the
    brute-force k lowest distinct."""
    import spacy_ctxvec.building.shard as shard
    from spacy_ctxvec.lexicon.sample import OccurrenceSample

    monkeypatch.setattr(shard, "MAX_BUFFERED_OCCURRENCES", buffered)  # 9: many chunks merged
    texts = [f"This bank file is free of any copyright restrictions , copy {i} ." for i in range(30)] + [
        "The bank approved my loan on Monday .",
        "We sat on the river bank and fished .",
        "A bank of fog rolled in from the sea .",
        "Money in the bank is safe .",
    ]
    lexicon = partial_lexicon(tiny_nlp, texts, batch_size=4, sample_size=4)
    _, bank_snippets = lexicon.sample.rows_of("bank")
    assert len(bank_snippets) == 4 and len(set(bank_snippets)) == 4
    assert sum("[bank] file" in snippet for snippet in bank_snippets) == 1
    keys, vectors, priorities, snippets, contexts = every_occurrence(tiny_nlp, texts)
    expected = OccurrenceSample.from_occurrences(
        keys, vectors, priorities, snippets, k=4, contexts=contexts, by_passage=True, distinct_snippets=True
    )
    assert lexicon.sample.without_contexts() == expected.without_contexts()
    assert lexicon.counts[lexicon.index("bank")] == 34  # counting is not affected


def test_distinct_snippet_candidates_widen_only_groups_that_repeat_a_snippet():
    from spacy_ctxvec.building.shard import distinct_snippet_candidates

    groups = np.array([0] * 40 + [1] * 5)
    priorities = np.arange(45, dtype=np.uint64)[::-1].copy()  # group 0's lowest rows are its last
    texts = ["same"] * 38 + ["other", "third"] + ["a", "b", "c", "d", "e"]
    made = []

    def snippet_of(row):
        made.append(row)
        return texts[row]

    rows, snippets = distinct_snippet_candidates(groups, priorities, 3, snippet_of)
    assert {"same", "other", "third"} <= set(snippets)  # group 0 widened until 3 distinct snippets
    assert sorted(made) == sorted(set(made))  # each snippet made once
    assert sum(1 for row in rows if groups[row] == 1) == 3  # group 1 was not widened


def test_a_space_token_with_a_vector_is_no_type(tiny_bert_dir, tmp_path):
    """A tokenizer whose offsets take the space before a word (SentencePiece, W059) gives the
    space token of a double space a vector: the lexicon counted ' ' as a word, which then had a
    polysemy_score and entered the anisotropy baseline."""
    import shutil

    from .conftest import TINY_WORDS, make_trf_nlp
    from .test_components_tokenizer_checks import metaspace_tokenizer

    folder = tmp_path / "metaspace_bert"
    shutil.copytree(tiny_bert_dir, folder)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (folder / name).unlink(missing_ok=True)
    metaspace_tokenizer(TINY_WORDS).save_pretrained(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W059, the point of this tokenizer
        nlp = make_trf_nlp(str(folder))
        doc = nlp("the  bank")
        assert doc[1].text == " " and doc[1]._.has_context_vec  # what the lexicon must skip
        lexicon = partial_lexicon(nlp, ["the  bank", "the bank"], sample_size=8)
    assert " " not in lexicon and lexicon.n_occurrences == 4 and " " not in lexicon.sample.keys
