"""Sense labels in words (ops.sense_labels): c-TF-IDF of each sense's context words."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from spacy_ctxvec.ops.sense_labels import (
    LabelLanguage,
    _without_target,
    class_tfidf,
    folded,
    format_label,
    labels_by_sense,
    sense_labels,
    snippet_words,
    token_pattern,
    vector_affinity,
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


def test_the_word_itself_never_labels_in_another_case():
    """ "İstanbul" lowers to i + a combining dot, so its own word "istanbul" labelled it; "Straße" and
    "STRASSE" are one word to the label too. Other accents part words: "año" (year) labels "ano"."""
    snippets = ["[İstanbul] ist istanbul groß", "[İstanbul] und ISTANBUL groß", "[Straße] strasse groß strasse"]
    (label,) = sense_labels([snippets], exclude=["Straße"], n_words=5)
    assert label == ["groß"]
    (label,) = sense_labels([["el [ano] del año pasado", "otro [ano] y año"]], n_words=5)
    assert label == ["año"]
    assert folded("İstanbul") == folded("ISTANBUL") == "istanbul" and folded("Bär") == "bär" != folded("Bar")


def test_web_addresses_and_mentions_never_label():
    """'https', 'com', 'www' and a handle labelled senses of tweet-like text."""
    tweets = [
        f"{text} https://t.co/x{n} via @newsbot www.example.com/river bank-news.com info@parks.org"
        for n, text in enumerate(RIVER)
    ]
    river, money = sense_labels([tweets, MONEY], n_words=6)
    assert not {"https", "www", "com", "newsbot", "example", "news", "info", "parks", "org"} & set(river)
    assert river[:2] == ["river", "water"] and money[:2] == ["money", "notes"]
    kept = "he said so.Com on e.g. a hidden.Co-op member"  # no address: a missing space, abbreviations
    assert " ".join(_without_target(kept).split()) == kept
    assert _without_target("ab." * 20_000 + "com") != ""  # one long token: linear time, not minutes


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
PIECES += ["क", "ि", "ता", "\u05b8", "ש"]  # Devanagari letters and vowel signs, a Hebrew point and letter
WORDISH = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(derandomize=True, database=None, max_examples=200, deadline=None)
@given(st.lists(WORDISH, min_size=1, max_size=6))
def test_snippet_words_are_the_words_count_vectorizer_counts(documents):
    """The labels' word sets are scikit-learn's CountVectorizer analysis of each snippet."""
    analyse = CountVectorizer(stop_words="english", token_pattern=token_pattern(), lowercase=True).build_analyzer()
    assert snippet_words(documents) == [set(analyse(document)) for document in documents]


def test_a_word_with_combining_marks_is_one_label_word():
    """Python's \\w has no Devanagari vowel sign, Hebrew point or combining accent: "किताब"
    fell into pieces under 3 letters (no label word at all), "cafe\u0301" into "caf"."""
    words = snippet_words(["मैंने किताब पढ़ी और बाज़ार गया", "שָׁלוֹם עוֹלָם", "un cafe\u0301 noir"])
    assert words == [{"किताब", "बाज़ार"}, {"שָׁלוֹם", "עוֹלָם"}, {"cafe\u0301", "noir"}]


def test_a_word_as_common_around_both_senses_labels_neither():
    """'great' (as in "a great deal") around every occurrence of both senses tells them
    apart no better than chance: it is in neither label; each sense keeps its own words."""
    cards = ["a great [deal] of cards dealt", "a great [deal] of cards shuffled", "the great [deal] cards"]
    money = ["a great [deal] with money signed", "the great [deal] money contract", "a great [deal] of money"]
    labels = sense_labels([cards, money])
    assert "great" not in labels[0] + labels[1]
    assert labels[0][0] == "cards" and labels[1][0] == "money"
    assert sense_labels([cards])[0][0] in {"cards", "great"}  # one sense: nothing to contrast, shared words stay


# Affinity: words of one snippet, told apart by their vectors (small corpora)
LOAN_SENSE = ["the [bank] charged a fee", "my [bank] sends statements", "the [bank] lent money"]
RIVER_SENSE = ["the muddy [bank] slopes", "a steep [bank] of reeds", "the [bank] where otters swim"]
NEAR_MONEY = {"charged": 0.30, "fee": 0.25, "lent": 0.20, "money": 0.35, "statements": 0.10, "sends": -0.05}
NEAR_RIVER = {"muddy": 0.20, "reeds": 0.30, "otters": 0.25, "swim": 0.10, "slopes": 0.05, "steep": 0.15}


def river_or_money(words):
    """(2, V): + for the money sense's words in row 0 and the river's in row 1, - in the other row."""
    money = np.array([NEAR_MONEY.get(w, 0.0) - NEAR_RIVER.get(w, 0.0) for w in words])
    return np.stack([money, -money])


def test_words_seen_once_label_by_their_affinity_where_none_recurs():
    """No context word recurs: c-TF-IDF alone labels nothing (its weights all tie); the
    affinity chooses the words nearest each sense, and never a word nearer the other."""
    assert sense_labels([LOAN_SENSE, RIVER_SENSE]) == [[], []]
    money, river = sense_labels([LOAN_SENSE, RIVER_SENSE], affinity=river_or_money)
    assert money == ["money", "charged", "fee"] and river == ["reeds", "otters", "muddy"]
    assert "sends" not in money  # seen once and nearer the river sense: not a money label word


def test_words_that_recur_still_come_first_and_affinity_breaks_their_ties():
    recurring = LOAN_SENSE + ["the [bank] sends cash", "interest on cash at the [bank]"]
    money, _ = sense_labels([recurring, RIVER_SENSE], affinity=river_or_money)
    assert money[0] == "cash"  # in two snippets: before every word seen once, whatever its affinity
    tied = sense_labels(
        [["[x] alpha beta", "[x] alpha beta"], ["[x] gamma"]],
        affinity=lambda w: np.array([[1.0 if word == "beta" else 0.0 for word in w], [0.0] * len(w)]),
    )
    assert tied[0][:2] == ["beta", "alpha"]  # equal weights and counts: the affinity, not the alphabet


def test_affinity_fills_no_single_sense_label_and_non_finite_scores_count_as_nothing():
    single = sense_labels([LOAN_SENSE], affinity=lambda w: np.ones((1, len(w))))
    assert single == [[]]  # one sense: nothing to contrast it with
    broken = sense_labels([LOAN_SENSE, RIVER_SENSE], affinity=lambda w: np.full((2, len(w)), np.nan))
    assert broken == [[], []]
    assert labels_by_sense(LOAN_SENSE + RIVER_SENSE, [0, 0, 0, 1, 1, 1], affinity=river_or_money) == sense_labels(
        [LOAN_SENSE, RIVER_SENSE], affinity=river_or_money
    )


def test_vector_affinity_is_a_words_closeness_to_one_sense_over_the_others():
    senses = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    words = np.array([[2.0, 0.2, 0.0], [0.1, 3.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    scores = vector_affinity(words, senses)
    assert scores.shape == (2, 5) and np.isfinite(scores).all()
    assert scores[0, 0] > 0 > scores[1, 0] and scores[1, 1] > 0 > scores[0, 1]
    np.testing.assert_allclose(scores[:, 2:], 0.0, atol=1e-12)  # orthogonal to both, no vector, equally near
    np.testing.assert_allclose(scores.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(vector_affinity(words, senses[:1]), 0.0, atol=1e-12)  # one sense


def test_with_three_senses_a_word_seen_once_labels_only_the_sense_it_is_nearest():
    """Affinity is relative to the mean over the senses, so with three senses a word can
    score above that mean for two of them: it labels the one it is nearest, and a word as
    near two senses labels neither (a review found both on the mean rule)."""
    senses = np.eye(3)
    vectors = {"gravel": np.array([0.5, 1.0, -1.0]), "shale": np.array([1.0, 1.0, -1.0]), "quay": np.eye(3)[2]}

    def affinity(words):
        return vector_affinity(np.stack([vectors.get(w, np.zeros(3)) for w in words]), senses)

    # two snippets a sense, each word in one: no word recurs, so only the affinity can label
    far = [["[x] gravel", "[x] shale"], ["[x] quay", "[x] pier"], ["[x] reef", "[x] cove"]]
    assert sense_labels(far, affinity=affinity) == [[], [], []]  # gravel: sense 1; shale: 0 and 1 alike; quay: 2
    near = [["[x] reef", "[x] cove"], ["[x] gravel", "[x] pier"], ["[x] quay", "[x] dune"]]
    assert sense_labels(near, affinity=affinity) == [[], ["gravel"], ["quay"]]
    shared = sense_labels(
        [["[x] shale", "[x] pier"], ["[x] shale", "[x] cove"], ["[x] quay", "[x] dune"]], affinity=affinity
    )
    assert shared == [[], [], ["quay"]]


def test_an_affinity_for_more_senses_than_have_snippets_is_read_for_those_that_do():
    """labels_by_sense sees as many senses as the highest one with rows; a caller's affinity
    for all its senses gives their first rows; one for too few senses is refused."""
    snippets = LOAN_SENSE + RIVER_SENSE
    senses = [0, 0, 0, 1, 1, 1]
    three = lambda words: np.vstack([river_or_money(words), np.zeros(len(words))])  # noqa: E731
    assert labels_by_sense(snippets, senses, affinity=three) == sense_labels(
        [LOAN_SENSE, RIVER_SENSE], affinity=river_or_money
    )
    with pytest.raises(ValueError, match="for 2 senses"):
        labels_by_sense(snippets, senses, affinity=lambda words: np.zeros((1, len(words))))


def test_label_candidates_leave_out_the_stop_words_given_or_the_english_ones():
    """A German pipeline's labels were 'die, hat, gestern' and 'das, ist, der': the English
    list left German function words in. Given a language's stop words, those go instead."""
    from spacy_ctxvec.ops.sense_labels import snippet_words

    snippet = "Die Bank am Fluss ist der [Ort] für das Boot and the river"
    assert snippet_words([snippet]) == [{"die", "bank", "fluss", "ist", "der", "ort", "für", "das", "boot", "river"}]
    german = LabelLanguage(stop_words={"Die", "der", "das", "ist", "für", "am"})  # as spaCy lists them: any case
    assert snippet_words([snippet], german) == [{"bank", "fluss", "ort", "boot", "and", "the", "river"}]


def split_chinese(text: str) -> list:
    """Words of two characters where the dictionary has them, else one (jieba's idea, in small)."""
    found, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        size = 2 if text[i : i + 2] in {"存钱", "存进", "河岸", "银行"} else 1
        found.append(text[i : i + size])
        i += size
    return found


def test_labels_of_a_script_written_without_spaces_are_its_words_not_runs_of_letters():
    """Chinese labels were clause fragments ('了一个电话', '她很生气'): runs of 3 or more letters
    are clauses there. With the language's word splitter, the words it gives label, one
    character long too, without its stop words and never the word itself."""
    chinese = LabelLanguage(stop_words={"我", "他", "把", "很"}, split_words=split_chinese)
    assert snippet_words(["我去存钱"], chinese) == [{"去", "存钱"}]
    assert snippet_words(["我去存钱"]) == [{"我去存钱"}]  # a run of letters: the whole clause
    money, river = ["我去[银行]存钱", "他把钱存进[银行]"], ["[银行]河岸很美"] * 2
    labels = sense_labels([money, river], language=chinese, fill=True)
    assert set(labels[0]) <= {"去", "存钱", "钱", "存进"} and labels[1] == ["河岸", "美"]


def test_no_two_of_three_senses_share_a_label_word():
    """'river' around two of three senses passed the test against the others together for
    both of them (each share above the pooled share), so two senses read 'river'."""
    flood = ["the [bank] of the river flooded"] * 6 + ["other words here"] * 4
    bend = ["the [bank] by the river bend"] * 6 + ["more stuff there"] * 4
    money = ["money loan credit account"] * 10
    labels = labels_by_sense(flood + bend + money, [0] * 10 + [1] * 10 + [2] * 10)
    assert all("river" not in label for label in labels) and labels[0][0] == "flooded" and labels[1][0] == "bend"
    road = ["a [bank] by the river", "a [bank] by the road"]
    assert sense_labels([road, ["the river [bank]"] * 2, ["a sandy [bank]"]])[1] == ["river"]  # most frequent here


LABEL_DRAWS = st.sampled_from(["river", "money", "water", "loan", "side", "notes"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(LABEL_DRAWS, max_size=4), min_size=3))
def test_label_words_of_one_word_are_never_shared_between_its_senses(draws):
    snippets = [f"the [bank] {' '.join(words)}" for words in draws]
    labels = labels_by_sense(snippets, [i % 3 for i in range(len(snippets))], fill=True)
    words = [word for label in labels for word in label]
    assert len(words) == len(set(words))
