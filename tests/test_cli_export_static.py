import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.output_files import LABELS_HEADER

runner = CliRunner()


@pytest.fixture
def lexicon(tmp_path):
    vectors = np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0], [2.0, 0.0, 1.0]])
    lexicon = Lexicon.from_occurrences(["bank", "bank", "hotel", "New York", "\n"], vectors)
    lexicon.to_disk(tmp_path / "lex")
    return lexicon


def test_export_word2vec_text_loadable_by_gensim(lexicon, tmp_path):
    from gensim.models import KeyedVectors

    result = runner.invoke(app, ["export-static", str(tmp_path / "lex"), str(tmp_path / "vectors.txt")])
    assert result.exit_code == 0, result.output
    vectors = KeyedVectors.load_word2vec_format(str(tmp_path / "vectors.txt"), binary=False)
    assert sorted(vectors.index_to_key) == ["bank", "hotel"]  # keys with whitespace cannot be written
    np.testing.assert_allclose(vectors["bank"], [2.0, 1.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(vectors["hotel"], [0.5, 0.5, 0.5], atol=1e-5)


def test_rows_come_most_frequent_first_so_a_readers_limit_keeps_the_frequent_words(tmp_path):
    from gensim.models import KeyedVectors

    keys = ["apple"] + ["the"] * 5 + ["bank"] * 3 + ["zebra"] * 3
    Lexicon.from_occurrences(keys, np.random.default_rng(0).normal(size=(len(keys), 4))).to_disk(tmp_path / "lex")
    assert runner.invoke(app, ["export-static", str(tmp_path / "lex"), str(tmp_path / "v.txt")]).exit_code == 0
    assert KeyedVectors.load_word2vec_format(str(tmp_path / "v.txt")).index_to_key == ["the", "bank", "zebra", "apple"]
    assert KeyedVectors.load_word2vec_format(str(tmp_path / "v.txt"), limit=2).index_to_key == ["the", "bank"]


@pytest.mark.parametrize("senses", [[], ["--senses"]], ids=["words", "senses"])
def test_binary_output_loads_in_gensim_and_a_bin_name_without_binary_is_refused(tmp_path, senses):
    from gensim.models import KeyedVectors

    from spacy_ctxvec.lexicon.sense_induction import induce_inventory

    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    lexicon = lexicon_with_sample(keys, vectors)
    (lexicon if not senses else induce_inventory(lexicon, min_count=5)).to_disk(tmp_path / "source")
    source = str(tmp_path / "source")
    refused = runner.invoke(app, ["export-static", source, str(tmp_path / "v.bin"), *senses])
    message = " ".join(refused.output.split())
    assert refused.exit_code == 1 and "[CTX-E420]" in message and "Add --binary, or name it .txt" in message
    assert list(tmp_path.iterdir()) == [tmp_path / "source"]
    # and binary under a text name: gensim's default (binary=False) failed on it with a UnicodeDecodeError
    as_text = runner.invoke(app, ["export-static", source, str(tmp_path / "v.txt"), *senses, "--binary"])
    message = " ".join(as_text.output.split())
    assert (
        as_text.exit_code == 1 and "[CTX-E425]" in message and "Name it .bin (or .bin.gz), or drop --binary" in message
    )
    assert list(tmp_path.iterdir()) == [tmp_path / "source"]
    written = runner.invoke(app, ["export-static", source, str(tmp_path / "v.bin"), *senses, "--binary"])
    assert written.exit_code == 0 and "word2vec binary" in written.output, written.output
    table = KeyedVectors.load_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    assert ("bank|1" if senses else "bank") in table.key_to_index


def test_export_senses_with_a_min_count_is_refused(tmp_path):
    from spacy_ctxvec.lexicon.sense_induction import induce_inventory

    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    induce_inventory(lexicon_with_sample(keys, vectors), min_count=5).to_disk(tmp_path / "senses")
    for min_count in ("50", "1"):
        result = runner.invoke(
            app,
            ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses", "--min-count", min_count],
        )
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and "[CTX-E421]" in message and "the senses' own min_count (5)" in message
        assert not (tmp_path / "v.txt").exists()


def test_export_min_count_and_unit(lexicon, tmp_path):
    result = runner.invoke(
        app, ["export-static", str(tmp_path / "lex"), str(tmp_path / "v.txt"), "--min-count", "2", "--unit"]
    )
    assert result.exit_code == 0
    lines = (tmp_path / "v.txt").read_text().splitlines()
    assert lines[0] == "1 3" and lines[1].split()[0] == "bank"
    row = np.array(lines[1].split()[1:], dtype=float)
    assert np.linalg.norm(row) == pytest.approx(1.0, abs=1e-5)


def test_export_loads_in_ctxvec_static_vectors_file_source(lexicon, tmp_path):
    static_sources = pytest.importorskip("spacy_ctxvec.static.sources")
    runner.invoke(app, ["export-static", str(tmp_path / "lex"), str(tmp_path / "v.txt")])
    import spacy

    table = static_sources.configure_vectors_file(path=str(tmp_path / "v.txt"))(spacy.blank("en"))
    assert table.dim == 3 and len(table) == 2 and "bank" in table
    np.testing.assert_allclose(table.get("bank"), [2.0, 1.0, 0.0], atol=1e-5)


def test_export_needs_a_lexicon(tmp_path):
    (tmp_path / "not_a_lexicon").mkdir()
    result = runner.invoke(app, ["export-static", str(tmp_path / "not_a_lexicon"), str(tmp_path / "v.txt")])
    assert result.exit_code == 1 and "E225" in result.output


def test_export_senses_writes_one_row_per_sense_loadable_by_the_file_source(tmp_path):
    import spacy

    from spacy_ctxvec.lexicon.sense_induction import induce_inventory
    from spacy_ctxvec.static.sources import configure_vectors_file

    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors), min_count=5)
    inventory.to_disk(tmp_path / "senses")
    result = runner.invoke(app, ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses"])
    assert result.exit_code == 0, result.output
    table = configure_vectors_file(path=str(tmp_path / "v.txt"))(spacy.blank("en"))
    assert len(table) == inventory.n_senses_total and "bank|1" in table
    np.testing.assert_allclose(table.get("bank|1"), inventory.senses_of("bank")[1].vector, atol=1e-5)
    missing = runner.invoke(app, ["export-static", str(tmp_path / "lex_missing"), str(tmp_path / "w.txt"), "--senses"])
    assert missing.exit_code == 1 and "E616" in missing.output and "does not exist" in " ".join(missing.output.split())
    (tmp_path / "empty").mkdir()
    no_senses = runner.invoke(app, ["export-static", str(tmp_path / "empty"), str(tmp_path / "w.txt"), "--senses"])
    assert no_senses.exit_code == 1 and "E606" in no_senses.output and "build-lexicon" in no_senses.output


def test_export_senses_writes_the_labels_beside_the_vectors_and_replaces_them_only_with_overwrite(tmp_path):
    from spacy_ctxvec.lexicon.sense_induction import induce_inventory

    from .test_lexicon_sense_induction import bank_snippets
    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    inventory = induce_inventory(lexicon_with_sample(keys, vectors, snippets=bank_snippets(keys)), min_count=5)
    inventory.to_disk(tmp_path / "senses")
    command = ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses"]
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in (tmp_path / "v.txt.labels.tsv").read_text(encoding="utf8").splitlines()]
    assert rows[0] == ["key", "word", "sense", "share", "label", "corpus_polysemy"]
    assert len(rows) == 1 + inventory.n_senses_total
    bank = {row[0]: row for row in rows if row[1] == "bank"}
    assert {bank["bank|0"][4], bank["bank|1"][4]} == {s.label for s in inventory.senses_of("bank")}
    assert any("river" in row[4] for row in bank.values()) and any("money" in row[4] for row in bank.values())
    assert float(bank["bank|0"][5]) == pytest.approx(inventory.corpus_polysemy_of("bank"), abs=1e-4)
    (tmp_path / "v.txt").unlink()  # the labels file alone is still there: refused without --overwrite
    again = runner.invoke(app, command)
    assert again.exit_code == 1 and "E701" in again.output and not (tmp_path / "v.txt").exists()
    assert runner.invoke(app, [*command, "--overwrite"]).exit_code == 0
    (tmp_path / "w.txt.labels.tsv").mkdir()  # a directory where the labels of OUTPUT w.txt would go
    taken = runner.invoke(app, ["export-static", str(tmp_path / "senses"), str(tmp_path / "w.txt"), "--senses"])
    message = " ".join(taken.output.split())
    assert (
        taken.exit_code == 1 and "[CTX-E135]" in message and "w.txt.labels.tsv': it is an existing directory" in message
    )
    assert "Its name is made from OUTPUT: choose another OUTPUT, or move the directory away." in message
    assert "Give a file name" not in message and not (tmp_path / "w.txt").exists()


@pytest.mark.parametrize("senses", [[], ["--senses"]], ids=["words", "senses"])
def test_a_config_file_is_refused_with_how_to_get_a_lexicon(tmp_path, senses):
    """A .cfg is not a pipeline with a lexicon: E233 says so and names build-lexicon with
    that config (not E225 "no ctxvec_polysemy component", which the shipped config has)."""
    from spacy_ctxvec.pipelines import DEFAULT_CONFIG

    result = runner.invoke(app, ["export-static", str(DEFAULT_CONFIG), str(tmp_path / "v.txt"), *senses])
    message = " ".join(result.stderr.split())
    assert result.exit_code == 1 and "[CTX-E233]" in message and "is a config file" in message
    assert f"spacy-ctxvec build-lexicon {DEFAULT_CONFIG} CORPUS OUTPUT" in message
    assert "E225" not in result.output and "E606" not in result.output and list(tmp_path.iterdir()) == []


def test_an_output_beginning_with_a_tilde_is_written_where_given_and_nowhere_else(lexicon, tmp_path, monkeypatch):
    """A quoted '~/v.txt' (no shell expanded it) is refused (E708: it would make a folder '~' here);
    './~/v.txt' is that folder. gensim's writer read it as the home folder, so the temporary file
    was left in $HOME and the command failed with E703 after the work."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    refused = runner.invoke(app, ["export-static", "lex", "~/v.txt"])
    assert refused.exit_code == 2 and "[CTX-E708]" in refused.output and not (tmp_path / "~").exists()
    result = runner.invoke(app, ["export-static", "lex", "./~/v.txt"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "~" / "v.txt").read_text(encoding="utf8").startswith("2 3\n")
    assert list(home.iterdir()) == []


def test_exporting_into_a_directory_from_python_is_a_coded_error(lexicon, tmp_path):
    from spacy_ctxvec.errors import CtxvecError
    from spacy_ctxvec.lexicon.export import export_static_vectors

    with pytest.raises(CtxvecError, match=r"CTX-E703.*cannot be written: it is a directory"):
        export_static_vectors(lexicon, tmp_path)  # was a bare IsADirectoryError


def test_sense_vectors_whose_labels_cannot_be_written_leave_the_old_pair(tmp_path, monkeypatch):
    """The vectors were replaced before the labels were written, so a labels file that
    could not be written left new vectors beside old labels."""
    from spacy_ctxvec.cli import export_static
    from spacy_ctxvec.errors import CtxvecError, Errors
    from spacy_ctxvec.lexicon.sense_induction import induce_inventory

    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    induce_inventory(lexicon_with_sample(keys, vectors), min_count=5).to_disk(tmp_path / "senses")
    old_vectors, old_labels = "1 2\nbank 0.5 0.5\n", f"{LABELS_HEADER}\nbank\tbank\t0\t1.0\triver\t\n"
    (tmp_path / "v.txt").write_text(old_vectors, encoding="utf8")  # an earlier export: --overwrite replaces it
    (tmp_path / "v.txt.labels.tsv").write_text(old_labels, encoding="utf8")

    def labels_not_written(path, text, *, what, overwrite):  # the labels write fails, as on a full disk
        raise CtxvecError(Errors.E703.format(what=what, path=path, reason="No space left on device"))

    monkeypatch.setattr(export_static, "write_text", labels_not_written)
    command = ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses", "--overwrite"]
    result = runner.invoke(app, command)
    assert result.exit_code == 1 and "No space left on device" in " ".join(result.output.split())  # wrapped
    assert (tmp_path / "v.txt").read_text(encoding="utf8") == old_vectors
    assert (tmp_path / "v.txt.labels.tsv").read_text(encoding="utf8") == old_labels
    assert sorted(p.name for p in tmp_path.iterdir()) == ["senses", "v.txt", "v.txt.labels.tsv"]


def test_a_file_made_at_output_while_the_senses_export_ran_stops_it_before_the_labels(tmp_path, monkeypatch):
    """A user's file made at OUTPUT while the vectors were written: E701 came at OUTPUT's rename, after
    the labels of this failed run had been put beside the user's file."""
    from spacy_ctxvec.lexicon import export
    from spacy_ctxvec.lexicon.sense_induction import induce_inventory

    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    induce_inventory(lexicon_with_sample(keys, vectors), min_count=5).to_disk(tmp_path / "senses")
    export_vectors = export.export_sense_vectors

    def a_user_writes_output_meanwhile(*args, **kwargs):
        rows = export_vectors(*args, **kwargs)
        (tmp_path / "v.txt").write_text("my notes", encoding="utf8")
        return rows

    monkeypatch.setattr("spacy_ctxvec.cli.export_static.export_sense_vectors", a_user_writes_output_meanwhile)
    result = runner.invoke(app, ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses"])
    assert result.exit_code == 1 and "[CTX-E701]" in result.output
    assert (tmp_path / "v.txt").read_text(encoding="utf8") == "my notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["senses", "v.txt"]  # no labels of the failed run


def test_ctrl_c_between_the_labels_and_the_vectors_leaves_both_new(tmp_path, monkeypatch):
    """The labels were renamed into place before the vectors: a Ctrl-C between the two
    renames left the new labels beside the old vectors (or beside none)."""
    import os
    import signal

    from spacy_ctxvec import outputs
    from spacy_ctxvec.lexicon.sense_induction import induce_inventory

    from .test_lexicon_sense_inventory import lexicon_with_sample, synthetic

    keys, vectors, _, _ = synthetic()
    induce_inventory(lexicon_with_sample(keys, vectors), min_count=5).to_disk(tmp_path / "senses")
    (tmp_path / "v.txt").write_text("1 2\nold 0.5 0.5\n", encoding="utf8")
    (tmp_path / "v.txt.labels.tsv").write_text(f"{LABELS_HEADER}\nold\told\t0\t1.0\triver\t\n", encoding="utf8")
    replace = os.replace

    def ctrl_c_before_the_vectors(source, target):
        if str(target).endswith("v.txt"):
            signal.raise_signal(signal.SIGINT)  # the user presses Ctrl-C just before this rename
        replace(source, target)

    monkeypatch.setattr(outputs.os, "replace", ctrl_c_before_the_vectors)
    command = ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses", "--overwrite"]
    with pytest.warns(UserWarning, match="CTX-W052"):
        result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert "old" not in (tmp_path / "v.txt").read_text(encoding="utf8")
    assert "old" not in (tmp_path / "v.txt.labels.tsv").read_text(encoding="utf8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["senses", "v.txt", "v.txt.labels.tsv"]


def test_export_senses_counts_only_the_words_it_wrote(tmp_path):
    """'New York' (a key word2vec text cannot hold) was left out with W057 but still counted:
    "sense vectors of 2 words" for the one word written."""
    import warnings

    from spacy_ctxvec.lexicon.sense_inventory import SenseInventory
    from spacy_ctxvec.ops.senses import SenseSpace

    space = SenseSpace(np.zeros(3), np.zeros((0, 3)))
    vectors = np.arange(9.0).reshape(3, 3)
    inventory = SenseInventory(
        space, ["New York", "bank"], np.array([0, 2, 3]), np.eye(3), vectors, np.array([0.5, 0.5, 1.0]), [["a"]] * 3
    )
    inventory.to_disk(tmp_path / "senses")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W057 names 'New York'
        command = ["export-static", str(tmp_path / "senses"), str(tmp_path / "v.txt"), "--senses"]
        result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    assert "Wrote 1 x 3 sense vectors of 1 words" in " ".join(result.output.split())
