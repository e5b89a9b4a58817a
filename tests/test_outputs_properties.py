"""Property-based tests of the output rule (issue 23): for generated relations between
a command's inputs and its output (same file, parent, child, symbolic link, hard link,
dangling link, existing file, foreign files inside an earlier output), with and without
--overwrite, no input and no foreign file ever changes (by checksum), and the command
either writes its whole output or refuses with a coded error.

Through the rule module with a writer, and through two real commands that load no
model (export-static from a lexicon directory, train-static with gensim)."""

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Dict, Tuple

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.outputs import DIRECTORY, FILE, check_output, write_directory, write_file

RELATIONS = (
    "new",  # a fresh path: written
    "new_in_missing_dirs",  # a fresh path under missing directories: written
    "existing_file",  # a file of the user's: refused without --overwrite
    "same_as_input",
    "inside_input",
    "contains_input",
    "symlink_to_input",
    "symlink_to_user_file",
    "dangling_symlink",
    "hard_link_to_input",
    "hard_link_to_file_in_input",
    "earlier_output_with_foreign_file",  # directories: refused even with --overwrite
    "earlier_output",  # directories: replaced with --overwrite
)
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def checksums(root: Path) -> Dict[str, str]:
    """Every file (by content) and link (by target) under root, except the output."""
    found = {}
    for path in sorted(root.rglob("*")):
        if "output" in path.relative_to(root).parts[:1]:
            continue
        if path.is_symlink():
            found[str(path.relative_to(root))] = "-> " + os.readlink(path)
        elif path.is_file():
            found[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def arrange(root: Path, relation: str, kind: str, text: bytes) -> Tuple[Path, Path]:
    """(input, output) in ``root`` standing in ``relation``; the input is a directory
    holding one text file (the corpus), and a user's file lies beside it."""
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_bytes(text)
    (root / "mine.txt").write_bytes(b"the user's own file")
    output = root / "output"
    if relation == "new_in_missing_dirs":
        output = root / "output" / "x" / "y"
    elif relation == "existing_file":
        output.write_bytes(b"the user's output")
    elif relation == "same_as_input":
        output = corpus
    elif relation == "inside_input":
        output = corpus / "out"
    elif relation == "contains_input":
        output = root
    elif relation == "symlink_to_input":
        output.symlink_to(corpus / "a.txt" if kind == FILE else corpus)
    elif relation == "symlink_to_user_file":
        output.symlink_to(root / "mine.txt")
    elif relation == "dangling_symlink":
        output.symlink_to(root / "nowhere")
    elif relation.startswith("hard_link"):
        os.link(corpus / "a.txt", output)
    elif relation.startswith("earlier_output"):
        write_directory(output, lambda new: (new.mkdir(), (new / "a.npy").write_bytes(b"old")), what="o", made_by="t")
        if relation == "earlier_output_with_foreign_file":
            (output / "notes.txt").write_bytes(b"saved by the user in the output")
    return (corpus / "a.txt" if relation == "hard_link_to_input" else corpus), output


def may_write(relation: str, kind: str, overwrite: bool) -> bool:
    """What the rule promises: write only to a fresh place, or over a plain file or an
    earlier output with --overwrite, never over, into or through an input or a link."""
    if relation in ("new", "new_in_missing_dirs"):
        return True
    if relation == "existing_file":
        return overwrite and kind == FILE
    if relation == "earlier_output":
        return overwrite and kind == DIRECTORY
    return False


@PROPERTY_SETTINGS
@given(
    relation=st.sampled_from(RELATIONS),
    kind=st.sampled_from([FILE, DIRECTORY]),
    overwrite=st.booleans(),
    text=st.binary(min_size=1, max_size=64),
    fail=st.booleans(),
)
def test_the_rule_never_changes_an_input_or_a_foreign_file(relation, kind, overwrite, text, fail):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source, output = arrange(root, relation, kind, text)
        before = checksums(root)
        old_output = checksums(output) if output.is_dir() and not output.is_symlink() else None
        old_file = output.read_bytes() if output.is_file() and not output.is_symlink() else None

        def write(target: Path) -> None:
            if kind == DIRECTORY:
                target.mkdir()
                target = target / "a.npy"
            target.write_bytes(b"half")
            if fail:
                raise OSError(28, "No space left on device")
            target.write_bytes(b"new output")

        written = False
        try:
            check_output(output, what="output", inputs={"CORPUS": source}, kind=kind, overwrite=overwrite)
            if kind == FILE:
                write_file(output, write, what="output", overwrite=overwrite)
            else:
                write_directory(output, write, what="output", made_by="test", overwrite=overwrite)
            written = True
        except CtxvecError as err:
            assert "[CTX-E" in str(err)
        after = checksums(root)
        if written:  # only the output changed, and it holds the whole new content
            assert {k: v for k, v in after.items() if k in before} == before
            new = output if kind == FILE else output / "a.npy"
            assert new.read_bytes() == b"new output"
        else:
            assert after == before, relation
            if old_output is not None and output != root:
                assert checksums(output) == old_output
            if old_file is not None:
                assert output.read_bytes() == old_file
            if relation.startswith("new"):
                assert not (root / "output").exists()  # nothing left, not even the directories it made
        assert written == (may_write(relation, kind, overwrite) and not fail), (relation, kind, overwrite, fail)
        assert not [p for p in root.rglob(".*") if ".tmp-" in p.name or ".new-" in p.name or ".old-" in p.name]


# Through real commands (no model loads)
COMMAND_RELATIONS = (
    "new",
    "existing_file",
    "same_as_input",
    "inside_input",
    "symlink_to_input",
    "symlink_to_user_file",
    "dangling_symlink",
    "hard_link_to_input",
    "hard_link_to_file_in_input",
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relation=st.sampled_from(COMMAND_RELATIONS), overwrite=st.booleans(), senses=st.booleans())
def test_export_static_never_changes_its_input_or_a_user_file(relation, overwrite, senses):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source, output = arrange(root, relation, FILE, b"the bank\n")
        lexicon = source if source.is_dir() else source.parent
        for path in list(lexicon.iterdir()):
            if path.name != "a.txt":
                path.unlink()
        Lexicon.from_occurrences(["bank", "bank", "river"], np.eye(3)).to_disk(lexicon)
        before = checksums(root)
        args = ["export-static", str(lexicon), str(output)] + ["--overwrite"] * overwrite + ["--senses"] * senses
        result = CliRunner().invoke(app, args)
        assert not result.exception or isinstance(result.exception, SystemExit), result.exception
        allowed = may_write(relation, FILE, overwrite) and relation != "existing_file"  # not a vectors file: E423
        if result.exit_code == 0:
            assert not senses and allowed
            assert output.read_text(encoding="utf8").startswith("2 3\n")
            assert {k: v for k, v in checksums(root).items() if k in before} == before
        else:
            assert "[CTX-E" in result.output and checksums(root) == before
            assert senses or not allowed  # --senses: this lexicon has none


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relation=st.sampled_from(COMMAND_RELATIONS), overwrite=st.booleans())
def test_train_static_never_changes_its_corpus_or_a_user_file(relation, overwrite):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source, output = arrange(root, relation, FILE, b"the bank of the river\nthe bank\n" * 3)
        before = checksums(root)
        args = ["train-static", str(source), str(output), "--min-count", "1", "--epochs", "1", "--size", "4"]
        result = CliRunner().invoke(app, args + ["--overwrite"] * overwrite)
        assert result.exit_code in (0, 1) and "Traceback" not in result.output
        allowed = may_write(relation, FILE, overwrite) and relation != "existing_file"  # not a vectors file: E423
        if result.exit_code == 0:
            assert allowed
            assert {k: v for k, v in checksums(root).items() if k in before} == before
        else:
            assert "[CTX-E" in result.output and checksums(root) == before
            assert not allowed
