import unicodedata
from pathlib import Path

import pytest

from spacy_ctxvec.analysis.comparison import (
    ECHO_CHARS,
    check_texts,
    compare_docs,
    compare_texts,
    count_pairs,
    echo,
    legend,
    tokenizer_reading,
    unknown_piece,
    unknown_tokens,
    unspaced_word_hint,
)
from spacy_ctxvec.errors import CtxvecError


@pytest.mark.slow
def test_static_is_one_and_context_below_one(default_nlp):
    (row,) = compare_docs(default_nlp("I have a apple"), default_nlp("I have a pen"), "a")
    assert row.static_cosine == pytest.approx(1.0)
    assert row.context_cosine is not None and row.context_cosine < 0.99
    assert (row.index_a, row.index_b) == (2, 2)


@pytest.mark.slow
def test_bank_differs_more_across_senses_than_within(default_nlp):
    river = default_nlp("We sat on the bank of the river.")
    river2 = default_nlp("The river bank was muddy after the rain.")
    loan = default_nlp("The bank approved my loan.")
    (across,) = compare_docs(river, loan, "bank")
    (within,) = compare_docs(river, river2, "bank")
    assert within.context_cosine > across.context_cosine


@pytest.mark.slow
def test_the_demo_baseline_same_meaning_is_closer_and_the_readme_quotes_it(default_nlp):
    """make demo's two bank comparisons: the lending bank twice stays closer than a river
    bank and a lending bank, and the README quotes both cosines as printed."""
    loan = default_nlp("The bank approved my loan")
    (across,) = compare_docs(default_nlp("We sat on the river bank"), loan, "bank")
    (within,) = compare_docs(loan, default_nlp("I paid the money into the bank"), "bank")
    assert within.context_cosine is not None and across.context_cosine is not None
    assert within.context_cosine > across.context_cosine
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf8").split())
    assert f"money ({across.context_cosine:.3f})" in readme and f"money ({within.context_cosine:.3f})" in readme
    makefile = (Path(__file__).parents[1] / "Makefile").read_text(encoding="utf8")
    assert '"The bank approved my loan" "I paid the money into the bank" --word bank' in makefile


def test_every_shared_word_case_insensitive(tiny_nlp):
    rows = compare_docs(tiny_nlp("I want to eat an apple ."), tiny_nlp("I want to buy an Apple phone"))
    assert [r.word for r in rows] == ["i", "want", "to", "an", "apple"]
    assert rows[-1].token_b == "Apple"
    assert all(r.static_cosine is None for r in rows)  # no ctxvec_static in tiny_nlp


def test_repeated_word_gives_every_pair(tiny_nlp):
    rows = compare_docs(tiny_nlp("the bank and the river"), tiny_nlp("the loan"), "the")
    assert [(r.index_a, r.index_b) for r in rows] == [(0, 0), (3, 0)]


def test_max_rows_keeps_every_words_first_pair_then_further_pairs(tiny_nlp):
    doc_a, doc_b = tiny_nlp("the the the bank river"), tiny_nlp("the the bank river")
    everything = compare_docs(doc_a, doc_b)
    assert count_pairs(doc_a, doc_b) == len(everything) == 3 * 2 + 1 + 1
    pairs = lambda rows: [(r.word, r.index_a, r.index_b) for r in rows]  # noqa: E731
    assert pairs(compare_docs(doc_a, doc_b, max_rows=len(everything))) == pairs(everything)
    assert pairs(compare_docs(doc_a, doc_b, max_rows=4)) == [
        ("the", 0, 0),
        ("the", 0, 1),
        ("bank", 3, 2),
        ("river", 4, 3),
    ]
    assert pairs(compare_docs(doc_a, doc_b, max_rows=2)) == [("the", 0, 0), ("bank", 3, 2)]
    assert pairs(compare_docs(doc_a, doc_b, "the", max_rows=3)) == [("the", 0, 0), ("the", 0, 1), ("the", 1, 0)]
    assert count_pairs(doc_a, doc_b, "the") == 6
    assert compare_docs(doc_a, doc_b, max_rows=0) == []
    with pytest.raises(CtxvecError, match=r"CTX-E228\] max_rows must be None or at least 0, got -1"):
        compare_docs(doc_a, doc_b, max_rows=-1)  # was itertools' bare ValueError
    with pytest.raises(CtxvecError, match=r"CTX-E228\] max_rows"):
        compare_texts("a bank", "the bank", pipeline="no-such-pipeline", max_rows=-1)  # before any pipeline loads


def test_missing_word_and_no_shared_word_raise(tiny_nlp):
    with pytest.raises(CtxvecError, match=r"\[CTX-E012\].*banana"):
        compare_docs(tiny_nlp("the apple"), tiny_nlp("the pen"), "banana")
    with pytest.raises(CtxvecError, match=r"\[CTX-E013\].*share at least one word") as raised:
        compare_docs(tiny_nlp("apple"), tiny_nlp("pen !"))
    assert "or use --word" not in str(raised.value)  # --word needs a word of both texts too


def test_the_word_asked_for_is_one_word_without_surrounding_whitespace(tiny_pipeline_dir):
    result = compare_texts("I have a pen", "a pen", " pen ", tiny_pipeline_dir)  # pasted with spaces
    assert [row.word for row in result.rows] == ["pen"]
    composed, decomposed = "Der Bär schläft", unicodedata.normalize("NFD", "Der Bär schläft")
    result = compare_texts(composed, decomposed, unicodedata.normalize("NFD", "bär"), tiny_pipeline_dir)
    assert [row.word for row in result.rows] == ["bär"]
    with pytest.raises(CtxvecError, match=r"E414\] The word of --word is only whitespace: `compare --word` compares"):
        compare_texts("I have a pen", "a pen", "  ", "no-such-pipeline")  # before any model loads
    with pytest.raises(CtxvecError, match=r"E414\] The word of --word is only characters that do not show"):
        compare_texts("I have a pen", "a pen", "\u200b", "no-such-pipeline")  # a zero-width space
    with pytest.raises(CtxvecError, match=r"E415.*'a pen' is 2 words.*e\.g\. 'pen'"):
        compare_texts("I have a pen", "a pen", "a pen", "no-such-pipeline")
    with pytest.raises(CtxvecError, match=r"e\.g\. 'apple'"):  # the longest word, not the last
        compare_texts("an apple pie", "a pie", "an apple pie", "no-such-pipeline")
    with pytest.raises(CtxvecError, match=r"e\.g\. 'New'"):  # one the texts hold ('York' is neither's)
        compare_texts("I am in New Jersey", "New cars", "New York", "no-such-pipeline")
    with pytest.raises(CtxvecError, match=r"e\.g\. 'York'"):  # a whole word: "Newcastle" holds no 'castle'
        compare_texts("Newcastle is north", "York is east", "castle York", "no-such-pipeline")


def test_chinese_text_in_an_english_pipeline_is_named_as_one_token(tiny_nlp):
    """The seed question's own language: the English tokenizer keeps 我有一个苹果 whole,
    and the error says so and what to use instead."""
    with pytest.raises(CtxvecError, match=r"E013.*'我有一个苹果' is one token.*lang 'en'.*lang = \"zh\""):
        compare_docs(tiny_nlp("我有一个苹果"), tiny_nlp("我有一支笔"))
    with pytest.raises(CtxvecError, match=r"E012.*'我有一个苹果' is one token"):
        compare_docs(tiny_nlp("我有一个苹果"), tiny_nlp("我有一支笔"), "有")
    with pytest.raises(CtxvecError, match=r"'我有一个苹果我有一个苹果我有一个苹果我…' is one token"):
        compare_docs(tiny_nlp("我有一个苹果" * 200), tiny_nlp("我有一支笔"))  # a paragraph: only its start
    with pytest.raises(CtxvecError) as plain:
        compare_docs(tiny_nlp("apple"), tiny_nlp("pen !"))
    assert "one token" not in str(plain.value)


def test_empty_text_has_no_shared_word(tiny_nlp):
    with pytest.raises(CtxvecError, match=r"\[CTX-E013\]"):
        compare_docs(tiny_nlp(""), tiny_nlp("   "))


def test_punctuation_asked_for_is_compared_and_a_split_word_is_named(tiny_nlp):
    """--word "," compares the commas (E012 said they were in neither text); a word spaCy
    splits ("don't" -> do + n't) is named with its tokens, not reported absent."""
    rows = compare_docs(tiny_nlp("Hello, world!"), tiny_nlp("Hello, you."), ",")
    assert [(r.token_a, r.index_a, r.index_b) for r in rows] == [(",", 1, 1)]
    assert [r.word for r in compare_docs(tiny_nlp("Hello, world!"), tiny_nlp("Hello, you."))] == ["hello"]
    with pytest.raises(CtxvecError, match=r"E012.*in text A: only split into the tokens 'do' \+ 'n't'; in text B: no"):
        compare_docs(tiny_nlp("I don't know"), tiny_nlp("I know"), "don't")
    with pytest.raises(CtxvecError, match=r"E012.*in text A: yes; in text B: no"):
        compare_docs(tiny_nlp("the apple"), tiny_nlp("the pen"), "apple")


def test_echo_keeps_a_short_text_and_cuts_a_long_one_to_its_start_and_length():
    assert echo("I have a apple") == "I have a apple"
    assert echo("x" * ECHO_CHARS) == "x" * ECHO_CHARS
    assert echo("ab\n  cd " * 50, limit=10) == "ab cd ab… (400 characters)"
    assert echo("bank\x07 is \x1b]0;title\x07") == "bank\\x07 is \\x1b]0;title\\x07"  # no bell, no title set


def test_check_texts_refuses_an_empty_or_blank_text():
    check_texts("a", "b")
    with pytest.raises(CtxvecError, match=r"\[CTX-E413\] Text A is empty"):
        check_texts("", "b")
    with pytest.raises(CtxvecError, match=r"\[CTX-E413\] Text B is only whitespace"):
        check_texts("a", "\n ")


def test_unknown_tokens_are_those_read_as_unk_alone(tiny_nlp):
    """The tiny BERT reads an emoji as [UNK]; a word it knows, or spells in letters, is not flagged."""
    unk_id, unk = unknown_piece(tiny_nlp)
    assert unk == "[UNK]"
    doc = tiny_nlp("i want 🍎 and 🍏 now")
    assert unknown_tokens(doc, unk_id) == [2, 4]
    (row,) = compare_docs(doc, tiny_nlp("you want 🍎"), "🍎", unknown=(unknown_tokens(doc, unk_id), [2]))
    assert (row.index_a, row.unknown_a, row.unknown_b) == (2, True, True)
    from spacy_transformers.data_classes import TransformerData

    doc._.trf_data = TransformerData.empty()  # what drop_trf_data leaves: nothing to read
    assert unknown_tokens(doc, unk_id) == []


def test_the_legend_names_the_layer_the_contextual_vectors_are_from(tiny_nlp):
    """compare's legend says which layer and pooling ctxvec_context read (its record on the
    Doc, without the model's fingerprint): another pipeline's layer gives other cosines."""
    doc = tiny_nlp("the river bank")
    (contextual,) = [line for line in legend(tiny_nlp, doc) if line.startswith("contextual:")]
    assert "(the last layer, pooled by pool_mean)" in contextual
    doc._.ctxvec_context_source = "layer 5 of 6, pooled by pool_mean, model 0123456789abcdef"
    (contextual,) = [line for line in legend(tiny_nlp, doc) if line.startswith("contextual:")]
    assert "(layer 5 of 6, pooled by pool_mean)" in contextual and "0123" not in contextual
    assert "static: n/a: this pipeline has no ctxvec_static component." in legend(tiny_nlp, doc)
    without_doc = [line for line in legend(tiny_nlp) if line.startswith("contextual:")]
    assert without_doc == [
        "contextual: pooled from the transformer's output for this text; it changes with the "
        "context (other layers give other cosines)."
    ]


def test_the_legend_says_what_the_models_tokenizer_normalises_away(tiny_bert_dir, tiny_pipeline_dir):
    """An uncased tokenizer (lower case, accents stripped) reads 'café' as 'cafe': compare's
    contextual cosine of the two is then 1.000, and the legend says why; a cased tokenizer
    that keeps accents adds no line."""
    from transformers import BertTokenizerFast

    uncased = BertTokenizerFast(vocab_file=str(tiny_bert_dir / "vocab.txt"), do_lower_case=True)
    assert tokenizer_reading(uncased) == [
        "This model reads text lower-cased and without accents: 'Apple' and 'apple', 'café' and 'cafe' are one "
        "word to it, in both columns."
    ]
    cased = BertTokenizerFast(vocab_file=str(tiny_bert_dir / "vocab.txt"), do_lower_case=False, strip_accents=False)
    assert tokenizer_reading(cased) == []
    lower_only = BertTokenizerFast(vocab_file=str(tiny_bert_dir / "vocab.txt"), do_lower_case=True, strip_accents=False)
    assert tokenizer_reading(lower_only) == [
        "This model reads text lower-cased: 'Apple' and 'apple' are one word to it, in both columns."
    ]
    printed = compare_texts("un café", "un cafe", pipeline=tiny_pipeline_dir)  # no ctxvec_static: one column
    assert printed.legend[-1] == tokenizer_reading(uncased, "in the contextual column")[0]
    assert printed.legend[-1].endswith("are one word to it, in the contextual column.")


def test_the_unspaced_script_hint_matches_the_words_script_to_the_pipelines_language():
    assert 'lang = "zh" or "ja"' in unspaced_word_hint("苹果", "en")
    assert 'segmenter = "jieba" or "pkuseg"' in unspaced_word_hint("苹果", "en")  # not characters, as zh splits
    assert unspaced_word_hint("苹果", "zh") == "" and unspaced_word_hint("bank", "en") == ""
    assert "does not split Thai script" in unspaced_word_hint("ภาษา", "zh")  # a zh pipeline does not split Thai
    assert "no spaCy language splits it" in unspaced_word_hint("ສະບາຍດີ", "en")  # Lao: no language to name


def test_a_token_of_only_invisible_characters_is_no_word_to_compare(tiny_nlp):
    doc_a, doc_b = tiny_nlp("I have a \u200b pen"), tiny_nlp("You have a \u200b book")
    assert "\u200b" in [token.text for token in doc_a]  # spaCy keeps the zero-width space as a token
    assert [row.word for row in compare_docs(doc_a, doc_b)] == ["have", "a"]


def test_docs_whose_vectors_were_made_differently_are_e061_not_a_cosine(tiny_nlp, tmp_path):
    """compare_docs of Docs from two pipelines gave a cosine across two vector spaces
    (another model or layer: a number with no meaning) or a numpy broadcast error (another
    width); it names what differs now."""
    import spacy

    from .conftest import build_tiny_bert, make_trf_nlp

    other_model = make_trf_nlp(str(build_tiny_bert(tmp_path / "other", seed=7)), window=31, stride=23)
    text = "we sat on the bank"
    with pytest.raises(CtxvecError, match=r"E061.*contextual vectors were made differently.*model"):
        compare_docs(tiny_nlp(text), other_model(text), "bank")
    assert compare_docs(tiny_nlp(text), tiny_nlp("the bank was closed"), "bank")[0].context_cosine is not None
    (tmp_path / "narrow.txt").write_text("1 3\nbank 1 2 3\n", encoding="utf8")
    narrow = spacy.blank("en")
    narrow.add_pipe("ctxvec_static")
    narrow.config["initialize"]["components"]["ctxvec_static"] = {
        "source": {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(tmp_path / "narrow.txt")}
    }
    narrow.initialize()
    with_static = make_trf_nlp(str(tmp_path / "other"), components=["ctxvec_static"], window=31, stride=23)
    with pytest.raises(CtxvecError, match=r"E061.*static vectors were made differently \(width \d+; width 3\)"):
        compare_docs(with_static(text), narrow(text), "bank")


def test_compare_texts_takes_a_loaded_pipeline(tiny_nlp):
    """A notebook's loaded nlp given as the pipeline was a TypeError (a path was expected)."""
    result = compare_texts("I have a pen", "a pen", "pen", tiny_nlp)
    assert [row.word for row in result.rows] == ["pen"] and result.rows[0].context_cosine is not None


def test_an_unknown_character_sentencepiece_reads_as_marker_and_unk_is_flagged(tiny_bert_dir, tmp_path):
    """A SentencePiece (Unigram) tokenizer reads "☎" as a lone word-start "▁" and <unk> (offsets
    without the space, as hub XLM-R's): the token was not flagged (one of its pieces was not
    <unk>) and no W040 said that texts which differ only there look the same to the model."""
    import shutil

    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from .conftest import TINY_WORDS, make_trf_nlp

    vocab = [("<unk>", 0.0), ("▁", -2.0), *[("▁" + word, -1.0) for word in TINY_WORDS]]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=0))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()])
    tokenizer.decoder = decoders.Metaspace()
    folder = tmp_path / "unigram_bert"
    shutil.copytree(tiny_bert_dir, folder)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (folder / name).unlink(missing_ok=True)
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<unk>").save_pretrained(folder)
    nlp = make_trf_nlp(str(folder))
    comparison = compare_texts("i have a \u260e pen", "i have a \u260f pen", pipeline=nlp)
    assert comparison.unknown_a == ["\u260e"] and comparison.unknown_b == ["\u260f"]
    assert "[CTX-W040]" in (comparison.unknown_warning() or "") and "as <unk>" in comparison.unknown_warning()
    assert unknown_tokens(nlp("i have a pen"), 0, {1}) == []  # a word it knows: never flagged


def test_the_static_legend_follows_the_components_lookups(default_pipeline_dir):
    """With lookups = ["exact","subwords"] (the docs' setting for a cased model) the legend
    still said a word was looked up in lower case and that 'Apple' and 'apple' share a row."""
    import spacy

    nlp = spacy.load(default_pipeline_dir)
    (static,) = [line for line in legend(nlp) if line.startswith("static:")]
    assert "looked up as written, then in lower case, then by its norm, else the mean of its wordpiece rows" in static
    assert "'Apple' takes the row of 'apple' where only 'apple' is one wordpiece" in static
    lookups = {"components": {"ctxvec_static": {"lookups": ["exact", "subwords"]}}}
    cased = spacy.load(default_pipeline_dir, config=lookups)
    (static,) = [line for line in legend(cased) if line.startswith("static:")]
    assert "looked up as written, else the mean of its wordpiece rows)" in static
    assert "lower case" not in static and "'Apple'" not in static
    lowered = spacy.load(default_pipeline_dir, config={"components": {"ctxvec_static": {"lookups": ["lower"]}}})
    (static,) = [line for line in legend(lowered) if line.startswith("static:")]
    assert "looked up in lower case: 'Apple' and 'apple' share a row)" in static
