"""spacy_ctxvec.static.train: word lists from a corpus, gensim word2vec."""

from spacy_ctxvec.static.train import WordListCorpus, simple_words


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
