"""Sense labels in words (ops.sense_labels): c-TF-IDF of each sense's context words."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from spacy_ctxvec.ops.sense_labels import (
    _TOKEN_PATTERN,
    class_tfidf,
    format_label,
    labels_by_sense,
    sense_labels,
    snippet_words,
)

RIVER = [
    "sat on the [bank] of the river",
    "the river [bank] was steep and green",
    "water lapped the [bank] by the river side",
    "grass on the [bank] near the water",
]
MONEY = [
    "the [Bank] of England issued notes",
    "money in the [bank] at interest",
    "he paid the [bank] the money it lent",
    "[bank] notes and money",
]


def test_each_sense_is_labelled_by_the_words_that_set_it_apart():
    river, money = sense_labels([RIVER, MONEY])
    assert river[:2] == ["river", "water"] and money[:2] == ["money", "notes"]
    assert format_label(river).startswith("river, water")


def test_the_word_itself_stop_words_numbers_and_excluded_words_never_label():
    snippets = ["the [bank] of the bank 1887 river", "a [bank] by the bank river 42", "[banks] and banks river"]
    (label,) = sense_labels([snippets], exclude=["banks"], n_words=5)
    assert label == ["river"]


def test_words_shared_by_two_senses_rank_below_words_of_one_sense():
    first = ["[x] water river", "[x] water river", "[x] water"]
    second = ["[x] water money", "[x] water money", "[x] money"]
    labels = sense_labels([first, second])
    assert labels[0][0] == "river" and labels[1][0] == "money"
    assert labels[0].index("water") > labels[0].index("river")


def test_labels_are_deterministic_and_empty_senses_get_no_words():
    assert sense_labels([RIVER, MONEY]) == sense_labels([list(RIVER), list(MONEY)])
    assert sense_labels([[], ["the of and [bank]"]]) == [[], []]
    assert sense_labels([]) == []
    assert sense_labels([RIVER], n_words=0) == [[]]


def test_a_word_in_one_snippet_only_labels_only_when_asked_to_fill_in():
    snippets = ["[x] harbour", "[x] harbour", "[x] zeppelin"]
    assert sense_labels([snippets], n_words=2) == [["harbour"]]
    assert sense_labels([snippets], n_words=2, fill=True) == [["harbour", "zeppelin"]]
    assert sense_labels([["[x] harbour"]]) == [["harbour"]]  # one snippet: its words are all there is


def test_class_tfidf_is_term_share_times_inverse_class_frequency():
    counts = np.array([[2, 0, 1], [0, 2, 1]])
    weights = class_tfidf(counts, np.array([2, 2]))
    assert weights[0, 1] == 0.0 and weights[0, 0] > weights[0, 2] > 0
    assert np.allclose(weights[0, 0], 1.0 * np.log1p(3 / 2))


def test_labels_by_sense_groups_one_types_snippets_by_their_sense():
    snippets = [MONEY[0], RIVER[0], MONEY[1], RIVER[1], RIVER[2], MONEY[2], MONEY[3], RIVER[3]]
    senses = [1, 0, 1, 0, 0, 1, 1, 0]
    assert labels_by_sense(snippets, senses) == sense_labels([RIVER, MONEY])
    assert labels_by_sense([], []) == []


def test_negation_stems_never_label_but_possessives_do():
    """ "didn't" labelled senses "didn" (a user saw "care, didn, train"); "king's" still
    gives "king"."""
    words = snippet_words(["He didn't care, wouldn’t go: the king's train"])
    assert words == [{"care", "king", "train"}]


PIECES = list("abcXYZ éÉß_9[] .,'’t-") + ["the", "and", "river", "Über", "naïve", "İ", "ǅ", "\u0301", "\n", "n't"]
WORDISH = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(derandomize=True, database=None, max_examples=200, deadline=None)
@given(st.lists(WORDISH, min_size=1, max_size=6))
def test_snippet_words_are_the_words_count_vectorizer_counts(documents):
    """The labels' word sets are scikit-learn's CountVectorizer analysis of each snippet."""
    analyse = CountVectorizer(stop_words="english", token_pattern=_TOKEN_PATTERN, lowercase=True).build_analyzer()
    assert snippet_words(documents) == [set(analyse(document)) for document in documents]


def test_a_word_as_common_around_both_senses_labels_neither():
    """'great' (as in "a great deal") around every occurrence of both senses tells them
    apart no better than chance: it is in neither label; each sense keeps its own words."""
    cards = ["a great [deal] of cards dealt", "a great [deal] of cards shuffled", "the great [deal] cards"]
    money = ["a great [deal] with money signed", "the great [deal] money contract", "a great [deal] of money"]
    labels = sense_labels([cards, money])
    assert "great" not in labels[0] + labels[1]
    assert labels[0][0] == "cards" and labels[1][0] == "money"
    assert sense_labels([cards])[0][0] in {"cards", "great"}  # one sense: nothing to contrast, shared words stay
