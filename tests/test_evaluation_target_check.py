"""evaluation.target_check: target indices that point at other words than the file names (W045)."""

import json
import warnings

import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.evaluation.readers import read_scws, read_wic
from spacy_ctxvec.evaluation.sense_sentences import read_sense_sentences
from spacy_ctxvec.evaluation.target_check import UNLIKE_SHARE, looks_like, unlike_targets, warn_if_indices_look_off

from .conftest import SHARED_DATA

runner = CliRunner()


def test_a_token_looks_like_its_target_by_its_first_letters_in_any_case():
    assert looks_like("bank", "Banks") and looks_like("carry", "carries") and looks_like("a", "A")
    assert not looks_like("go", "went") and not looks_like("bank", "the")
    assert unlike_targets(["go", "bank", "bank"], ["went", "banks", "river"]) == [0, 2]


def test_a_few_irregular_forms_are_quiet_many_unlike_targets_warn(tmp_path):
    n = 20
    quiet = int(UNLIKE_SHARE * n)
    targets = ["go"] * n
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pointed = [["went"]] * quiet + [["goes"]] * (n - quiet)
        warn_if_indices_look_off(tmp_path / "f", targets, pointed, [0] * n, list(range(1, n + 1)))
    with pytest.warns(UserWarning, match=r"\[CTX-W045\] In '.*f', 6 of 20 targets .* line 1: 'went' for 'go'"):
        pointed = [["went"]] * (quiet + 1) + [["goes"]] * (n - quiet - 1)
        warn_if_indices_look_off(tmp_path / "f", targets, pointed, [0] * n, list(range(1, n + 1)))


def _shifted_wic(source, target, n=40):
    """The first n rows of WiC train and dev with both indices counted from 1."""
    for split in ("train", "dev"):
        rows = []
        for line in (source / f"{split}.data.txt").read_text(encoding="utf8").splitlines()[:n]:
            fields = line.split("\t")
            i, j = (int(x) for x in fields[2].split("-"))
            fields[2] = f"{i + 1}-{j + 1}"
            rows.append("\t".join(fields))
        (target / f"{split}.data.txt").write_text("\n".join(rows) + "\n", encoding="utf8")
        gold = (source / f"{split}.gold.txt").read_text(encoding="utf8").splitlines()[:n]
        (target / f"{split}.gold.txt").write_text("\n".join(gold) + "\n", encoding="utf8")
    return target


@pytest.mark.skipif(not (SHARED_DATA / "wic").exists(), reason="needs ../shared/data/wic")
def test_real_files_are_quiet_and_wic_counted_from_1_warns(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_wic(SHARED_DATA / "wic", "train")
        read_wic(SHARED_DATA / "wic", "dev")
        read_sense_sentences(SHARED_DATA / "wordnet_examples" / "wordnet_examples.jsonl")
    shifted = _shifted_wic(SHARED_DATA / "wic", tmp_path)
    with pytest.warns(UserWarning, match=r"\[CTX-W045\] In '.*train\.data\.txt', \d+ of 80 targets"):
        read_wic(shifted, "train")
    # The command warns before it loads any pipeline.
    with pytest.warns(UserWarning, match=r"\[CTX-W045\] In '.*data\.txt'") as caught:
        result = runner.invoke(app, ["evaluate", "wic", "no-such-pipeline", str(shifted), "--json"])
    assert result.exit_code == 1 and "E011" in result.output
    assert sorted(str(w.message).split("'")[1].rsplit("/", 1)[-1] for w in caught) == ["dev.data.txt", "train.data.txt"]


def test_sense_sentences_with_positions_off_by_one_warn(tmp_path):
    rows = [{"lemma": "bank", "words": ["the", "bank", "lends"], "position": 2, "synset": "s"}] * 3
    path = tmp_path / "senses.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W045\] .* 3 of 3 .* line 1: 'lends' for 'bank'"):
        read_sense_sentences(path)


def test_scws_contexts_that_mark_another_word_than_their_column_warn(tmp_path):
    rows = [f"{i}\tcar\tn\tbank\tn\tmy <b> truck </b> broke\tthe <b> bank </b> lent\t5.0\n" for i in range(4)]
    path = tmp_path / "ratings.txt"
    path.write_text("".join(rows), encoding="utf8")
    with pytest.warns(UserWarning, match=r"\[CTX-W045\] .* 4 of 8 targets .* 'truck' for 'car'.*marks"):
        read_scws(path)


@pytest.mark.skipif(not (SHARED_DATA / "scws").exists(), reason="needs ../shared/data/scws")
def test_the_real_scws_file_is_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_scws(SHARED_DATA / "scws" / "ratings.txt")
