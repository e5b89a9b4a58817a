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
