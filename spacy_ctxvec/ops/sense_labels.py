"""Sense labels in words (issue 21): a few context words that tell a word's senses apart,
by class-based TF-IDF (c-TF-IDF, Grootendorst 2022, BERTopic) of the words around each
sense's sampled occurrences against the word's other senses. scikit-learn; no spaCy.

Each sense is one class. A context word's term frequency in a class is the share of the
sense's snippets it occurs in (each snippet counts a word once); its weight is that
share times ``log(1 + A / f)``, with f the word's snippet count over all the word's senses
and A the mean number of word occurrences per sense: words frequent around this sense and
rare around the others come first; where a word has several senses, a label word is
more frequent (by share of snippets) around its sense than around the others together
and than around each other sense (so no two senses of a word share a label word).
English stop words, words under 3 letters, numbers and the word itself in any case (written in
[brackets] in a snippet: that form anywhere in the snippets, and any ``exclude``) are
left out, and so are negations' stems ("didn" of "didn't").

Snippets are short (a few tokens either side), so in a small corpus most context words
occur in one snippet only and their weights tie. Given an ``affinity`` (``vector_affinity``
of the context words' vectors to the senses' vectors: how much nearer a word lies to this
sense than to the word's senses on average), it breaks those ties, and where a word has
several senses the words of one snippet nearest this sense complete short labels (best
first): "bank: credit, investors, account" where no money word recurred.
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Collection, Iterable, List, Optional, Sequence, Set

import numpy as np

from .cosine import normalise_rows
from .text import in_unspaced_script

N_LABEL_WORDS = 3
MIN_SNIPPETS = 2  # a label word occurs in at least this many of the sense's snippets, where it has that many
_TARGET = re.compile(r"\[[^\]]*\]")
# E-mail and web addresses and @-mentions: their pieces ("https", "www", "com", a handle) are no
# context words. Each alternative starts only where its run of characters starts (linear time on a
# long token); a domain is lower case ("so.Com on" keeps its words).
_ADDRESSES = re.compile(
    r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|(?<!\S)(?:https?://|www\.)\S+"
    r"|@\w+"
    r"|(?<![\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|ly|co|uk)\b\S*"
)
# A letter, and its combining marks: Python's \w has no Devanagari vowel sign or Hebrew point,
# so without them "किताब" split into pieces of under 3 letters and labelled nothing.
_LETTER = r"[^\W\d_][{marks}]*"


@lru_cache(maxsize=1)
def _combining_marks() -> str:
    """Every combining mark (category M*) of the Basic Multilingual Plane, as ranges for a
    character class (built once, on first use: about 10 ms)."""
    codes = [code for code in range(0x300, 0x10000) if unicodedata.category(chr(code))[0] == "M"]
    ranges, start = [], codes[0]
    for previous, code in zip(codes, codes[1:] + [-1]):
        if code != previous + 1:
            ranges.append(f"\\u{start:04x}-\\u{previous:04x}" if previous > start else f"\\u{start:04x}")
            start = code
    return "".join(ranges)


@lru_cache(maxsize=1)
def token_pattern() -> str:
    """Words of 3 or more letters (each with its combining marks), not joined to another
    letter, mark or digit, and not the first half of a negation ("didn't" gives no "didn")."""
    marks = _combining_marks()
    edge = f"[\\w{marks}]"
    return f"(?<!{edge})(?:{_LETTER.format(marks=marks)}){{3,}}(?!{edge})(?!['’]t\\b)"


@lru_cache(maxsize=1)
def _word() -> "re.Pattern[str]":
    return re.compile(token_pattern())


# words -> (k, len(words)) scores of each word for each sense, higher: nearer that sense
Affinity = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class LabelLanguage:
    """The language labels are read in. ``stop_words``: never label words (None:
    scikit-learn's English list). ``split_words``: how a snippet splits into words, for
    scripts written without spaces (a pipeline's tokenizer: "银行存钱" is "银行", "存钱"
    to jieba); None: runs of 3 or more letters, as in the languages written with spaces."""

    stop_words: Optional[Collection[str]] = None
    split_words: Optional[Callable[[str], Sequence[str]]] = None


ENGLISH = LabelLanguage()


def _without_target(snippet: str) -> str:
    """The snippet without its [target] word, web addresses and @-mentions."""
    return _ADDRESSES.sub(" ", _TARGET.sub(" ", snippet))


def folded(word: str) -> str:
    """``word`` as the word itself is recognised among label words: case-folded ("Straße" is
    "strasse") in NFC, and the dot of a Turkish capital İ dropped ("İstanbul" lowers to i with a
    combining dot: it is "istanbul"); other accents stay ("año" is not "ano")."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", word.casefold()).replace("i\u0307", "i"))


def class_tfidf(counts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """c-TF-IDF weights (k, V) from per-class snippet counts (k, V) and class sizes (k,)
    (snippets per class): (count / size) x log(1 + A / f), f the column totals, A the
    mean row total. Zero where a count is zero."""
    counts = np.asarray(counts, dtype=np.float64)
    tf = counts / np.maximum(np.asarray(sizes, dtype=np.float64), 1.0)[:, None]
    totals = counts.sum(axis=0)
    average = counts.sum() / max(len(counts), 1)
    idf = np.log1p(average / np.maximum(totals, 1.0))
    return tf * idf


def sense_labels(
    snippets_per_sense: Sequence[Sequence[str]],
    *,
    n_words: int = N_LABEL_WORDS,
    exclude: Iterable[str] = (),
    min_snippets: int = MIN_SNIPPETS,
    fill: bool = False,
    affinity: Optional[Affinity] = None,
    language: LabelLanguage = ENGLISH,
) -> List[List[str]]:
    """Up to ``n_words`` distinctive context words per sense (lists in the order of
    ``snippets_per_sense``, best first), from each sense's snippets (the word in
    [brackets]). A label word is in at least ``min_snippets`` of the sense's snippets (all
    of them for a sense with fewer): a word seen once says little, and ties among such
    words would be broken arbitrarily; with ``fill`` they complete short labels, after the
    others. Ties: more snippets, then the higher ``affinity``, then alphabetical. With
    ``affinity`` and several senses, the words seen once whose affinity is positive and
    highest for this sense (the sense they are nearest) complete short labels, highest
    first (with ``fill`` too, all words seen once follow by affinity). ``affinity`` gives
    at least one row per sense. ``language``: its stop words are never used, and it says how
    a snippet splits into words (``LabelLanguage``). Deterministic; a sense without usable
    words gets []."""
    senses = [[_without_target(s) for s in snippets if isinstance(s, str)] for snippets in snippets_per_sense]
    documents = [s for snippets in senses for s in snippets]
    if not documents or n_words <= 0:
        return [[] for _ in senses]
    excluded = {folded(word) for word in exclude}
    excluded |= {
        folded(match.strip("[]")) for snippets in snippets_per_sense for s in snippets for match in _TARGET.findall(s)
    }
    words_per_document = snippet_words(documents, language)
    vocabulary = np.array(sorted(set().union(*words_per_document)), dtype=str)
    if not len(vocabulary):  # nothing but stop words and short tokens
        return [[] for _ in senses]
    column = {word: j for j, word in enumerate(vocabulary.tolist())}
    bounds = np.cumsum([0] + [len(s) for s in senses])
    counts = np.zeros((len(senses), len(vocabulary)), dtype=np.int64)
    for row, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        columns = [column[word] for words in words_per_document[a:b] for word in words]
        counts[row] = np.bincount(np.array(columns, dtype=np.int64), minlength=len(vocabulary))
    counts = counts * np.array([folded(word) not in excluded for word in vocabulary.tolist()], dtype=bool)
    sizes = np.diff(bounds)
    weights = class_tfidf(counts, sizes)
    totals = counts.sum(axis=0)
    closeness = _affinity_matrix(affinity, vocabulary, len(senses))
    nearest = _nearest_sense(closeness)
    shares = counts / np.maximum(sizes, 1)[:, None]
    labels = []
    for row, size in zip(range(len(senses)), sizes):
        present = np.flatnonzero(counts[row] > 0)
        if len(senses) > 1:  # only words more frequent around this sense than around the others, together and each
            others = (totals - counts[row]) / max(int(sizes.sum() - size), 1)
            each = np.delete(shares, row, axis=0).max(axis=0)
            present = present[(shares[row, present] > others[present]) & (shares[row, present] > each[present])]
        supported = counts[row, present] >= min(min_snippets, max(int(size), 1))
        near = closeness[row, present]
        # supported words by weight; the others (filling in) by affinity where there is one
        rank = np.where(supported | (affinity is None), weights[row, present], near)
        order = np.lexsort((vocabulary[present], -near, -counts[row, present], -rank, ~supported))
        keep = supported | fill | ((near > 0) & (nearest[present] == row))
        labels.append([str(vocabulary[present[i]]) for i in order[keep[order]][:n_words]])
    return labels


def _affinity_matrix(affinity: Optional[Affinity], vocabulary: np.ndarray, n_senses: int) -> np.ndarray:
    """``affinity`` of the vocabulary for the first ``n_senses`` senses (n_senses, V): a
    caller's senses past the last one with snippets have no label to make; finite (zeros
    where it is not, and without an affinity)."""
    if affinity is None:
        return np.zeros((n_senses, len(vocabulary)))
    scores = np.asarray(affinity(vocabulary.tolist()), dtype=np.float64)
    if scores.ndim != 2 or scores.shape[0] < n_senses or scores.shape[1] != len(vocabulary):
        raise ValueError(f"affinity gave {scores.shape} scores for {n_senses} senses x {len(vocabulary)} words")
    return np.where(np.isfinite(scores[:n_senses]), scores[:n_senses], 0.0)


def _nearest_sense(closeness: np.ndarray) -> np.ndarray:
    """Per word (column): the one sense it is nearest, -1 where none is (one sense, or a tie
    for the highest score): a word seen once completes the label of that sense only."""
    if len(closeness) < 2:
        return np.full(closeness.shape[1], -1)
    ordered = np.sort(closeness, axis=0)
    return np.where(ordered[-1] > ordered[-2], closeness.argmax(axis=0), -1)


def vector_affinity(word_vectors: np.ndarray, sense_vectors: np.ndarray) -> np.ndarray:
    """(k, V): the cosine of each word's vector (V, d) to each sense's vector (k, d), less
    its mean cosine to the k senses: positive where a word lies nearer this sense than
    to the word's senses on average (the common direction of all the word's senses
    cancels); 0 for a zero row and for a word with one sense."""
    words = normalise_rows(np.asarray(word_vectors, dtype=np.float64))
    senses = normalise_rows(np.asarray(sense_vectors, dtype=np.float64))
    cosines = senses @ words.T
    return cosines - cosines.mean(axis=0, keepdims=True)


def snippet_words(documents: Sequence[str], language: LabelLanguage = ENGLISH) -> List[Set[str]]:
    """The distinct label candidates of each document, lowercased, without ``language``'s stop
    words (lowercased; scikit-learn's English list where it has none): the words of 3 or more
    letters scikit-learn's ``CountVectorizer(token_pattern=token_pattern(), lowercase=True)``
    would count (without building a vectorizer per word: its checks cost more than the
    counting here), or with ``language.split_words`` the words it gives that are letters
    only, of 3 or more letters or of a script written without spaces ("钱" is a word)."""
    stop_words = language.stop_words
    if stop_words is None:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # here: scikit-learn costs ~1 s to import

        stop_words = ENGLISH_STOP_WORDS
    left_out = {word.lower() for word in stop_words}
    split = language.split_words
    if split is None:
        return [set(_word().findall(document.lower())) - left_out for document in documents]
    return [{w.lower() for w in split(document) if _is_label_word(w)} - left_out for document in documents]


def _is_label_word(word: str) -> bool:
    """Letters only (with their combining marks: Thai vowel signs; an apostrophe between two, as in
    "aujourd'hui", but not an elided "l'"), 3 or more, or fewer of a script written without spaces."""
    inner = word[:1] + word[1:-1].replace("'", "").replace("\u2019", "") + word[-1:] if len(word) > 2 else word
    letters = all(c.isalpha() or unicodedata.category(c).startswith("M") for c in inner) and word[:1].isalpha()
    return letters and (len(word) >= 3 or in_unspaced_script(word))


def format_label(words: Sequence[str]) -> str:
    """ "river, water, side"; "" for no words."""
    return ", ".join(words)


def labels_by_sense(
    snippets: Sequence[str],
    senses: Sequence[int],
    *,
    n_words: int = N_LABEL_WORDS,
    exclude: Iterable[str] = (),
    fill: bool = False,
    affinity: Optional[Affinity] = None,
    language: LabelLanguage = ENGLISH,
) -> List[List[str]]:
    """``sense_labels`` for one type's sampled ``snippets`` (n,) and each one's sense
    ``senses`` (n,), 0..k-1 (-1: left out): one word list per sense, in sense order."""
    senses = [int(s) for s in senses]
    k = max(senses) + 1 if senses else 0
    grouped: List[List[str]] = [[] for _ in range(k)]
    for snippet, sense in zip(snippets, senses):
        if sense >= 0:
            grouped[sense].append(snippet)
    return sense_labels(grouped, n_words=n_words, exclude=exclude, fill=fill, affinity=affinity, language=language)
