"""paths.py (output path checks, UTF-8 text lines) and devices.py (GPU choice), and
that the writing commands check their output path before doing any work."""

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_ctxvec.cli import app
from spacy_ctxvec.devices import require_gpu
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.paths import check_output_dir, check_output_file, text_lines


def test_check_output_file(tmp_path):
    assert check_output_file(tmp_path / "new" / "deeper" / "out.json") == tmp_path / "new" / "deeper" / "out.json"
    (tmp_path / "existing.json").write_text("{}", encoding="utf8")
    assert check_output_file(tmp_path / "existing.json").is_file()  # replacing a file is the caller's decision
    (tmp_path / "sub").mkdir()
    with pytest.raises(CtxvecError, match=r"E135.*output file '.*sub'.*existing directory"):
        check_output_file(tmp_path / "sub")
    with pytest.raises(CtxvecError, match=r"E135.*parent '.*existing\.json' is a file"):
        check_output_file(tmp_path / "existing.json" / "x" / "out.json")


def test_check_output_dir(tmp_path):
    assert check_output_dir(tmp_path / "new" / "dir") == tmp_path / "new" / "dir"
    assert check_output_dir(tmp_path) == tmp_path
    (tmp_path / "file.txt").write_text("keep", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E135.*file\.txt'.*existing file, not a directory"):
        check_output_dir(tmp_path / "file.txt")
    with pytest.raises(CtxvecError, match=r"E135.*parent '.*file\.txt' is a file"):
        check_output_dir(tmp_path / "file.txt" / "out")
    assert (tmp_path / "file.txt").read_text(encoding="utf8") == "keep"


def test_text_lines_numbers_lines_and_names_bad_bytes(tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes(b"\xef\xbb\xbffirst\r\nsecond\n\nfourth")
    assert list(text_lines(path)) == [(1, "first"), (2, "second"), (3, ""), (4, "fourth")]
    path.write_bytes(b"ok\nok\nna\xefve\n")
    with pytest.raises(CtxvecError, match=r"E133.*text\.txt, line 3: not valid UTF-8.*iconv"):
        list(text_lines(path))


def test_require_gpu_without_a_usable_gpu_is_a_coded_error():
    with pytest.raises(CtxvecError, match=r"E136.*--gpu-id 1000000: no usable GPU.*--gpu-id -1"):
        require_gpu(1_000_000)


def test_export_static_output_that_is_a_directory_or_under_a_file(tmp_path):
    Lexicon.from_occurrences(["bank", "bank"], np.ones((2, 3))).to_disk(tmp_path / "lex")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep", encoding="utf8")
    runner = CliRunner()
    for output, problem in (
        (tmp_path / "taken", "existing directory"),
        (tmp_path / "taken" / "mine.txt" / "v.txt", "is a file"),
    ):
        result = runner.invoke(app, ["export-static", str(tmp_path / "lex"), str(output)])
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and "[CTX-E135]" in message and problem in message
    assert (tmp_path / "taken" / "mine.txt").read_text(encoding="utf8") == "keep"


def test_output_is_never_an_input_or_inside_one(tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("keep", encoding="utf8")
    (tmp_path / "corpus").mkdir()
    for output, source in (
        (data, data),
        (tmp_path / "." / "data.txt", data),
        (tmp_path / "corpus" / "v.txt", tmp_path / "corpus"),
    ):
        with pytest.raises(CtxvecError, match=r"E135.*lies inside\) the input"):
            check_output_file(output, inputs=[None, source])
    assert check_output_file(tmp_path / "other.txt", inputs=[data, tmp_path / "corpus", None]) == tmp_path / "other.txt"
    assert data.read_text(encoding="utf8") == "keep"


def test_output_symlink_into_an_input_directory_is_refused_and_absent_inputs_are_skipped(tmp_path):
    (tmp_path / "pipeline").mkdir()
    kept = tmp_path / "pipeline" / "config.cfg"
    kept.write_text("keep", encoding="utf8")
    link = tmp_path / "out.txt"
    link.symlink_to(kept)
    with pytest.raises(CtxvecError, match=r"E135.*lies inside\) the input"):
        check_output_file(link, inputs=[tmp_path / "pipeline"])
    # a package name is not on disk: nothing to protect, and no false refusal
    assert (
        check_output_file(tmp_path / "en_pkg" / "out.json", inputs=[tmp_path / "en_pkg"])
        == tmp_path / "en_pkg" / "out.json"
    )
    assert kept.read_text(encoding="utf8") == "keep"


@pytest.mark.parametrize(
    "command",
    [
        ["export-static", "S", "O"],
        ["export-static", "S", "O", "--senses"],
        ["plot", "polysemy", "S", "-o", "O"],
        ["plot", "layers", "S", "C", "-o", "O"],
        ["plot", "word", "bank", "--sentences", "C", "-p", "S", "-o", "O"],
        ["evaluate", "scws", "S", "C", "-o", "O"],
        ["evaluate", "senses", "S", "C", "-o", "O"],
    ],
)
def test_writing_commands_refuse_an_output_inside_the_pipeline_they_read(tmp_path, command):
    source = tmp_path / "pipeline"
    Lexicon.from_occurrences(["bank", "bank"], np.ones((2, 3))).to_disk(source)
    before = {path.name: path.read_bytes() for path in source.iterdir() if path.is_file()}
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a bank\n", encoding="utf8")
    for output in (source / "vectors.npy", source / "new.png"):
        args = [{"S": str(source), "C": str(corpus), "O": str(output)}.get(a, a) for a in command]
        result = CliRunner().invoke(app, args)
        message = " ".join(result.output.split())
        assert result.exit_code == 1 and "[CTX-E135]" in message and "the input" in message, message
    assert {path.name: path.read_bytes() for path in source.iterdir() if path.is_file()} == before
