"""spacy_ctxvec.static.train: word lists from a corpus, gensim word2vec."""

import numpy as np

from spacy_ctxvec.static.train import MAX_WORDS_PER_SENTENCE, WordListCorpus, simple_words, train_static_vectors


def test_simple_words_lowercases_letter_and_digit_runs():
    assert simple_words("Don't PANIC: 42 naïve_东京!") == ["don", "t", "panic", "42", "naïve", "东京"]
    assert simple_words(" ,;! ") == []


def test_line_corpus_streams_non_empty_lines(tmp_path, train_corpus):
    lines = list(WordListCorpus(train_corpus))
    assert len(lines) == 16 and lines[0] == ["the", "bank", "of", "the", "river", "was", "muddy"]
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "b.txt").write_text("second file\n", encoding="utf8")
    (tmp_path / "dir" / "a.txt").write_text("first file\n", encoding="utf8")
    (tmp_path / "dir" / "notes.md").write_text("ignored\n", encoding="utf8")
    assert list(WordListCorpus(tmp_path / "dir")) == [["first", "file"], ["second", "file"]]


def test_every_pass_reads_the_files_listed_once(tmp_path, files_looked_into):
    # word2vec reads the corpus once per epoch (and once for its vocabulary): the corpus is
    # listed, and each file looked into for NUL bytes, when the WordListCorpus is made.
    for name, text in (("a.txt", "first file\n"), ("b.txt", "second file\n")):
        (tmp_path / name).write_text(text, encoding="utf8")
    looked_into = files_looked_into
    corpus = WordListCorpus(tmp_path)
    assert [list(corpus) for _ in range(3)] == [[["first", "file"], ["second", "file"]]] * 3
    assert looked_into == ["a.txt", "b.txt"]


def test_a_document_longer_than_gensims_sentence_limit_is_trained_on_in_pieces(tmp_path):
    # gensim's word2vec reads 10,000 words of a sentence and drops the rest: every word
    # of a longer document must reach it, in pieces of at most that many words.
    first = [f"w{i % 3000}" for i in range(12000)]
    late = ["alpha", "beta", "gamma", "delta"] * 500  # only after word 12,000
    (tmp_path / "long.txt").write_text(" ".join(first + late) + "\nshort line\n", encoding="utf8")
    corpus = WordListCorpus(tmp_path / "long.txt")
    pieces = list(corpus)
    assert [len(piece) for piece in pieces] == [MAX_WORDS_PER_SENTENCE, 4000, 2]
    assert [word for piece in pieces[:2] for word in piece] == first + late and corpus.n_with_words == 2
    one, three = (
        train_static_vectors(tmp_path / "long.txt", tmp_path / f"e{n}.vec", min_count=1, epochs=n, workers=1, size=8)
        for n in (1, 3)
    )
    assert not np.array_equal(one["alpha"], three["alpha"])  # trained: more epochs move it
