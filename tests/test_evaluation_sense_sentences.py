"""evaluation.sense_sentences: sense-labelled sentences as JSON lines, each bad row a coded error."""

import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.evaluation.sense_sentences import read_sense_sentences


def write(path, text):
    path.write_text(text, encoding="utf8")
    return path


SENSE_ROWS = (
    '{"lemma": "bank", "words": ["the", "bank", "of", "the", "river"], "position": 1, "synset": "09213565-n"}\n'
    "\n"
    '{"lemma": "bank", "words": ["a", "bank", "loan"], "position": 1, "sense": 2}\n'
    '{"lemma": "play", "words": ["we", "play"], "position": 1, "synset": "v1"}\n'
    '{"lemma": "bank", "words": ["Banks", "lend"], "position": 0, "synset": "09213565-n"}\n'
)


def test_read_sense_sentences(tmp_path):
    data = read_sense_sentences(write(tmp_path / "senses.jsonl", SENSE_ROWS))
    assert len(data) == 4
    assert data.lemmas == ["bank", "bank", "play", "bank"]
    assert data.senses == ["09213565-n", "2", "v1", "09213565-n"]  # "sense" is accepted as the label key
    assert data.positions.tolist() == [1, 1, 1, 0] and data.words[3] == ["Banks", "lend"]
    assert data.by_lemma() == {"bank": [0, 1, 3]}  # play has one sentence: no pair
    assert data.by_lemma(per_lemma=2) == {"bank": [0, 1]}
    assert data.by_lemma(min_sentences=1) == {"bank": [0, 1, 3], "play": [2]}


@pytest.mark.parametrize(
    "row,code",
    [
        ('{"lemma": "bank", "words": ["a", "bank"], "position": 1', "E302"),  # broken JSON
        ('["bank", ["a", "bank"], 1, "s"]', "E302"),
        ('{"lemma": "bank", "words": ["a", "bank"], "position": 1}', "E302"),  # no label
        ('{"lemma": "bank", "words": ["a", "bank"], "position": "1", "synset": "s"}', "E302"),
        ('{"lemma": "bank", "words": ["a", "bank"], "position": true, "synset": "s"}', "E302"),
        ('{"lemma": "bank", "words": ["a", "bank"], "position": 1, "synset": null}', "E302"),
        ('{"lemma": "", "words": ["a", "bank"], "position": 1, "synset": "s"}', "E302"),
        ('{"lemma": "bank", "words": ["a", "river bank"], "position": 1, "synset": "s"}', "E302"),
        ('{"lemma": "bank", "words": [], "position": 0, "synset": "s"}', "E302"),
        ('{"lemma": "bank", "words": ["a", "bank"], "position": 2, "synset": "s"}', "E303"),
        ('{"lemma": "bank", "words": ["a", "bank"], "position": -1, "synset": "s"}', "E303"),
    ],
)
def test_read_sense_sentences_bad_row_names_file_and_line(tmp_path, row, code):
    path = write(tmp_path / "bad.jsonl", SENSE_ROWS + row + "\n")
    with pytest.raises(CtxvecError, match=rf"\[CTX-{code}\].*bad[.]jsonl, line 6"):
        read_sense_sentences(path)


def test_read_sense_sentences_position_error_names_the_rows_words(tmp_path):
    path = write(tmp_path / "bad.jsonl", '{"lemma": "bank", "words": ["a", "bank"], "position": 2, "synset": "s"}\n')
    with pytest.raises(CtxvecError, match=r"index 2 is outside the row's \"words\" \(2 words in the list"):
        read_sense_sentences(path)


def test_read_sense_sentences_missing_empty_and_binary(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E301\].*nothing[.]jsonl"):
        read_sense_sentences(tmp_path / "nothing.jsonl")
    with pytest.raises(CtxvecError, match=r"\[CTX-E305\].*empty[.]jsonl"):
        read_sense_sentences(write(tmp_path / "empty.jsonl", "\n\n"))
    path = tmp_path / "random.bin"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(CtxvecError, match=r"\[CTX-E(133|302)\].*random[.]bin"):
        read_sense_sentences(path)


def test_read_shared_wordnet_examples(shared_data):
    path = shared_data / "wordnet_examples" / "wordnet_examples.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not present")
    data = read_sense_sentences(path)
    assert len(data) == 21365 and len(set(data.lemmas)) == 3650
    assert all(data.words[i][data.positions[i]] for i in range(len(data)))
    assert len(data.by_lemma(per_lemma=10, min_sentences=10)) == 433


@pytest.mark.parametrize(
    "row",
    [
        "[" * 100_000,
        '{"lemma": ' * 100_000,
        "[" * 65 + "]" * 65,
        '{"lemma": "bank", "words": ["a", "bank"], "position": 1, "synset": "s", "w": NaN}',
        '{"lemma": "bank", "words": ["a", "bank"], "position": 1, "synset": "s", "w": 1e400}',
        '{"lemma": "bank", "words": ["a", "bank"], "position": 1' + "0" * 5000 + ', "synset": "s"}',
        '{"lemma": "bank", "words": ["a", "bank"], "position": 1, "synset": 1' + "0" * 5000 + "}",
    ],
)
def test_sense_sentences_deep_or_non_finite_json_is_coded(tmp_path, row):
    path = write(tmp_path / "bad.jsonl", SENSE_ROWS + row + "\n")
    with pytest.raises(CtxvecError, match=r"\[CTX-E302\].*bad[.]jsonl, line 6"):
        read_sense_sentences(path)


def test_evaluate_senses_cli_deep_json_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    path = write(tmp_path / "deep.jsonl", SENSE_ROWS + "[" * 100_000 + "\n")
    result = CliRunner().invoke(app, ["evaluate", "senses", "no-such-pipeline", str(path)])
    assert result.exit_code == 1 and "E302" in result.output and "nested deeper" in result.output, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)


def test_the_reader_is_still_importable_from_readers():
    """It moved out of evaluation.readers; scripts that imported it from there keep working."""
    from spacy_ctxvec.evaluation import readers, sense_sentences

    assert readers.read_sense_sentences is sense_sentences.read_sense_sentences
    assert readers.SenseSentences is sense_sentences.SenseSentences
