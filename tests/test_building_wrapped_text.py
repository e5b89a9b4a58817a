"""building.wrapped_text: a hard-wrapped .txt corpus is named (W044) before any model work."""

import shutil
import subprocess
import warnings

import pytest

from spacy_ctxvec.building import corpus
from spacy_ctxvec.building.corpus import corpus_files
from spacy_ctxvec.building.wrapped_text import hard_wrap_evidence

PARAGRAPH = (
    "Emma Woodhouse, handsome, clever, and rich, with a comfortable home and happy disposition, seemed to "
    "unite some of the best blessings of existence; and had lived nearly twenty-one years in the world with "
    "very little to distress or vex her. She was the youngest of the two daughters of a most affectionate, "
    "indulgent father; and had, in consequence of her sister's marriage, been mistress of his house from a "
    "very early period."
)


def wrap(text: str, width: int = 70):
    """``text`` broken into lines of at most ``width`` characters, as Project Gutenberg wraps."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + [line]


def test_wrapped_paragraphs_are_recognised_and_one_paragraph_per_line_is_not():
    wrapped = [line for _ in range(6) for line in wrap(PARAGRAPH) + [""]]
    evidence = hard_wrap_evidence(wrapped)
    assert evidence is not None and evidence[0] >= 0.5 and evidence[1] <= 70
    assert hard_wrap_evidence([PARAGRAPH] * 30) is None  # one paragraph per line: what a .txt corpus should be
    assert hard_wrap_evidence([f"The bank number {i} approved my loan." for i in range(30)]) is None
    assert hard_wrap_evidence(wrapped[:10]) is None  # too few lines to tell
    # long lines without final punctuation (posts, titles) are not wrapped text
    assert hard_wrap_evidence([f"{PARAGRAPH[:-1]} and more {i}" for i in range(30)]) is None


def test_corpus_files_warns_once_for_a_wrapped_file_and_never_for_a_line_per_paragraph(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "_WARNED", set())
    (tmp_path / "wrapped.txt").write_text("\n\n".join(["\n".join(wrap(PARAGRAPH))] * 6) + "\n", encoding="utf8")
    (tmp_path / "joined.txt").write_text(f"{PARAGRAPH}\n" * 30, encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W044\] Corpus file '.*wrapped\.txt' looks hard-wrapped") as caught:
        corpus_files(tmp_path / "wrapped.txt")
    assert "awk" in str(caught[0].message) and caught[0].filename == __file__  # points at the caller
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus_files(tmp_path / "wrapped.txt")  # once per file and process
        corpus_files(tmp_path / "joined.txt")


@pytest.mark.skipif(shutil.which("awk") is None, reason="needs awk")
def test_the_warnings_command_joins_each_paragraph_onto_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "_WARNED", set())
    wrapped = tmp_path / "a wrapped book.txt"  # the command quotes the path
    wrapped.write_text("\n\n".join("\n".join(wrap(PARAGRAPH)) for _ in range(30)) + "\n", encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W044\]") as caught:
        corpus_files(wrapped)
    command = str(caught[0].message).split("\n")[-1].strip()  # the last line, as the command line prints it
    assert command.startswith("tr ")
    subprocess.run(command.replace("JOINED.txt", "joined.txt"), shell=True, check=True, cwd=tmp_path)
    assert (tmp_path / "joined.txt").read_text(encoding="utf8").splitlines() == [PARAGRAPH] * 30
    # Windows line endings (Moby Dick in a Gutenberg download): its blank lines hold "\r", which
    # awk's paragraph mode did not see as blank, so the whole file became one line
    wrapped.write_bytes(wrapped.read_bytes().replace(b"\n", b"\r\n"))
    subprocess.run(command.replace("JOINED.txt", "joined.txt"), shell=True, check=True, cwd=tmp_path)
    assert (tmp_path / "joined.txt").read_text(encoding="utf8").splitlines() == [PARAGRAPH] * 30
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus_files(tmp_path / "joined.txt")


def test_sentences_ending_in_cjk_marks_and_wrapped_lines_without_blank_lines_are_not_flagged():
    """One Chinese sentence per line (ending in 。) was taken for wrapped text, and the join
    command would have made the whole file one line; without blank lines there are no
    paragraphs to join, so no warning either."""
    sentences = [
        "我喜欢吃苹果，也喜欢在河边散步，看着水面上的光。",
        "他们说这里的银行很早就关门了！",
        "你今天去了哪里？",
    ] * 10
    assert hard_wrap_evidence(sentences) is None
    assert hard_wrap_evidence(wrap(PARAGRAPH) * 6) is None  # no blank line: nothing the command could join
    paragraphs = [line for _ in range(6) for line in wrap(PARAGRAPH) + [""]]
    assert hard_wrap_evidence(paragraphs) is not None
