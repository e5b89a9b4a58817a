"""The CLI stays thin: a command parses, calls one library function and prints, in
at most 40 lines, and no command imports another command's module."""

import ast
import os
from pathlib import Path

import pytest

from spacy_ctxvec.errors import CtxvecError

CLI = Path(__file__).resolve().parent.parent / "spacy_ctxvec" / "cli"
MAX_LINES = 40


def commands():
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "command" for d in node.decorator_list
            ):
                yield pytest.param(path, node, id=f"{path.stem}.{node.name}")


@pytest.mark.parametrize("path,node", list(commands()))
def test_no_command_function_over_40_lines(path, node):
    n_lines = node.end_lineno - node.lineno + 1
    assert n_lines <= MAX_LINES, (
        f"{path.name}: {node.name} has {n_lines} lines (at most {MAX_LINES}): a command parses its options, "
        "calls one library function and prints; move the work into that function (workflows/, analysis/, ...)"
    )


def test_commands_import_no_other_command_module():
    names = {path.stem for path in CLI.glob("*.py")} - {"__init__", "_app"}
    for path in CLI.glob("*.py"):
        if path.stem == "__init__":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module not in names, (
                    f"{path.name} imports the command module {node.module}: move what both need out of cli/"
                )


def test_the_output_rules_live_in_one_module():
    for path in CLI.glob("*.py"):
        text = path.read_text(encoding="utf8")
        for private in ("os.replace", "os.rename", "shutil.rmtree", ".mkdir(", ".write_text(", ".resolve()"):
            assert private not in text, (
                f"{path.name} writes or checks paths itself ({private}): take paths with _app.given_path or "
                "_app.file_output and write through spacy_ctxvec.outputs, the one output rule"
            )


def every_command_path():
    from typer.main import get_command

    from spacy_ctxvec.cli import app

    def walk(command, path):
        if hasattr(command, "commands"):  # a group (typer's own click)
            for name, sub in command.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path, command

    return list(walk(get_command(app), []))


def test_every_help_shows_every_option_whole_in_80_columns():
    """--help at 80 columns wraps; it never cuts an option name or its help ("--checkpoint-eve…")."""
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    for group in ([], ["plot"], ["evaluate"]):  # command summaries whole, not cut at "..."
        listing = CliRunner().invoke(app, [*group, "--help"], env={"COLUMNS": "80"}, terminal_width=80).output
        commands = listing.split("Commands:")[1].splitlines()
        assert commands and not any(line.rstrip().endswith("...") for line in commands), (group, listing)
    paths = every_command_path()
    assert len(paths) >= 15
    for path, command in paths:
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
        assert result.exit_code == 0, (path, result.output)
        assert "…" not in result.output and max(map(len, result.output.splitlines())) <= 80, path
        for parameter in command.params:
            for name in parameter.opts:
                if name.startswith("--"):
                    assert name in result.output, (path, name)


def test_version_option_prints_the_package_version():
    from typer.testing import CliRunner

    from spacy_ctxvec import __version__
    from spacy_ctxvec.cli import app

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"spacy-ctxvec {__version__}"


def test_a_coded_error_goes_to_stderr_so_json_output_parses(tmp_path):
    """`--json` / `--format json` output on stdout stays parseable: the error line is on stderr."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "spacy_ctxvec", "senses", str(tmp_path / "absent"), "bank", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and proc.stdout == "" and "[CTX-E616]" in proc.stderr


def test_coded_warnings_print_on_stderr_so_json_on_stdout_stays_parseable(capsys):
    import warnings

    from spacy_ctxvec.cli._app import show_coded_warning, warn_on_stderr

    show_coded_warning(
        warnings.WarningMessage("[CTX-W999] a note", UserWarning, "f.py", 1).message, UserWarning, "f", 1
    )
    warn_on_stderr("[CTX-W998] another")
    out, err = capsys.readouterr()
    assert out == "" and "⚠ [CTX-W999] a note" in err and "⚠ [CTX-W998] another" in err
    command = 'awk \'BEGIN{RS=""} {gsub(/\\n/, " "); print}\' ' + "/a/very/long/path/" * 8 + "FILE > JOINED.txt"
    warn_on_stderr(f"[CTX-W997] {'a long message ' * 20}To run:\n    {command}")
    out, err = capsys.readouterr()
    assert err.splitlines()[-1] == f"    {command}"  # a command to copy is never wrapped


def test_a_coded_error_prints_its_command_unwrapped(capsys):
    """wasabi wraps a message at 80 columns and joins its lines: a command inside an error (E302's grep,
    E234's tr) broke across lines; the error's first line is wrapped, the command after it never."""
    import typer

    from spacy_ctxvec.cli._app import exit_on_coded_error

    command = "grep -v '^[[:space:]]*#' " + "/a/very/long/path/" * 8 + "pairs.txt > pairs.txt"

    @exit_on_coded_error
    def failing() -> None:
        raise CtxvecError(f"[CTX-E997] {'a long message ' * 20}Run:\n    {command}")

    with pytest.raises(typer.Exit):
        failing()
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == f"    {command}" and "[CTX-E997] a long message" in lines[0] and len(lines[0]) <= 90

    @exit_on_coded_error
    def failing_inline() -> None:  # E413, W054: a `command` inside the sentence broke inside its quotes
        raise CtxvecError(f'[CTX-E996] {"words " * 6}run `spacy-ctxvec compare "I have a apple" "I have a pen"` again')

    with pytest.raises(typer.Exit):
        failing_inline()
    err = capsys.readouterr().err
    assert '`spacy-ctxvec compare "I have a apple" "I have a pen"`' in err.splitlines()[-1], err


def test_a_command_prints_a_coded_warning_said_twice_once(capsys):
    """The same coded warning from two places (W062 from the senses read, then from
    spacy.load) is printed once per command; each command run starts afresh."""
    import warnings

    from spacy_ctxvec.cli._app import exit_on_coded_error, keeps_warnings, warn_on_stderr

    @exit_on_coded_error
    @keeps_warnings
    def command():
        warn_on_stderr("[CTX-W994] said twice")
        warnings.warn("[CTX-W994] said twice", UserWarning, stacklevel=1)  # another place, the same words
        warn_on_stderr("[CTX-W993] said once")
        return list(KEPT_WARNINGS)

    from spacy_ctxvec.cli._app import KEPT_WARNINGS, show_coded_warning

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show_coded_warning
        kept = command()
        err = capsys.readouterr().err
        assert err.count("[CTX-W994] said twice") == 1 and err.count("[CTX-W993] said once") == 1
        assert kept == ["[CTX-W994] said twice", "[CTX-W993] said once"]
        command()
        assert capsys.readouterr().err.count("[CTX-W994] said twice") == 1  # the next run says it again


@pytest.mark.parametrize("action, shown", [("ignore", False), ("default", True)])
def test_warnings_printed_by_commands_obey_the_warnings_filters(capsys, action, shown):
    """warn_on_stderr's coded warnings are filtered as warnings.warn's are (docs/errors.md):
    by code, e.g. PYTHONWARNINGS="ignore:[CTX-W054]"."""
    import warnings

    from spacy_ctxvec.cli import _app

    with warnings.catch_warnings():
        warnings.filterwarnings(action, message=r"\[CTX-W996\]")
        _app._keeping = True
        try:
            _app.KEPT_WARNINGS.clear()
            _app.warn_on_stderr("[CTX-W996] filtered by its code")
            _app.warn_on_stderr("[CTX-W995] another code, always shown")
            kept = list(_app.KEPT_WARNINGS)
        finally:
            _app._keeping = False
            _app.KEPT_WARNINGS.clear()
    err = capsys.readouterr().err
    assert ("[CTX-W996]" in err) is shown and "[CTX-W995]" in err
    assert kept == ["[CTX-W996] filtered by its code"] * shown + ["[CTX-W995] another code, always shown"]


# Path arguments read as typed (cli._app.given_text / given_path / file_output)
FILE_OUTPUTS = {
    ("export-static", "output"),
    ("train-static", "output"),
    ("senses", "html"),
    ("plot", "word", "output"),
    ("plot", "layers", "output"),
    ("plot", "polysemy", "output"),
    *((("evaluate", name, "output") for name in ("wic", "word-sim", "scws", "polysemy", "senses"))),
}
PATH_NAMES = {"pipeline", "source", "corpus", "output", "sentences", "sense_counts", "file", "files", "data_dir"}


def command_parameters(app=None, path=()):
    """(command path, parameter name, annotation, typer's ParameterInfo) of every command."""
    import inspect

    from spacy_ctxvec.cli import app as main_app

    app = app or main_app
    for info in app.registered_commands:
        for name, parameter in inspect.signature(info.callback).parameters.items():
            yield (*path, info.name), name, parameter.annotation, parameter.default
    for group in app.registered_groups:
        yield from command_parameters(group.typer_instance, (*path, group.name))


def test_every_path_argument_is_read_as_typed_and_every_file_output_refuses_a_trailing_slash():
    """typer reads "" as '.' and drops a trailing slash; every path goes through our parsers."""
    from pathlib import Path
    from typing import List, Optional

    from spacy_ctxvec.cli._app import given_path, given_text

    parsers = {}
    for path, name, annotation, info in command_parameters():
        if annotation in (Path, Optional[Path], List[Path]) or name in PATH_NAMES:
            assert info.parser is not None, (path, name)
            parsers[(*path, name)] = info.parser
    assert len(parsers) >= 30
    assert {key for key, func in parsers.items() if func.__name__ == "parse_file_output"} == FILE_OUTPUTS
    assert all(func in (given_path, given_text) for key, func in parsers.items() if key not in FILE_OUTPUTS)


@pytest.mark.parametrize(
    "args",
    [
        ["rank", ""],
        ["export-static", "", "out.txt"],
        ["evaluate", "word-sim", "", "pairs.tsv"],
        ["plot", "word", "bank", "-p", "", "-o", "a.png"],
    ],
)
def test_an_empty_path_is_a_usage_error_not_the_current_directory(tmp_path, monkeypatch, args):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "[CTX-E705]" in result.output and "'.'" in result.output, result.output
    assert list(tmp_path.iterdir()) == []


def test_a_file_output_with_a_trailing_slash_is_refused_before_any_work(tmp_path, monkeypatch):
    """Not written as a file named like the directory the user meant ('out/' -> 'out')."""
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["export-static", "no-such-lexicon", "out/"])
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "[CTX-E706] 'out/' ends with '/'" in text and "e.g. 'out/vectors.txt'" in text
    result = CliRunner().invoke(app, ["plot", "polysemy", "no-such-lexicon", "-o", "figures/"])
    assert result.exit_code == 2 and "'figures/figure.png'" in " ".join(result.output.split())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["train-static", "corpus.txt", "-"],  # was a file named '-' in the current directory
        ["train-static", "-", "vectors.txt"],  # was "Corpus '-' does not exist"
        ["export-static", "no-such-lexicon", "-"],
    ],
)
def test_a_dash_for_standard_input_or_output_is_refused_naming_how_to_write_a_file_named_dash(
    tmp_path, monkeypatch, args
):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.txt").write_text("the bank of the river\n", encoding="utf8")
    result = CliRunner().invoke(app, args)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "[CTX-E707] '-' names standard input or output" in text and "'./-'" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


@pytest.mark.parametrize(
    "args",
    [
        ["train-static", "corpus.txt", "~/out.vec"],
        ["train-static", "~/corpus.txt", "out.vec"],
        ["rank", "~alice/pipeline"],
        ["--code", "~/my_functions.py", "rank", "pipeline"],
    ],
)
def test_a_quoted_tilde_is_refused_not_made_a_folder_named_tilde(tmp_path, monkeypatch, args):
    """A quoted "~/out.vec" made a folder "~" here while the message read like the home directory."""
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.txt").write_text("the bank of the river\n", encoding="utf8")
    result = CliRunner().invoke(app, args)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "[CTX-E708]" in text, text
    assert ("that user's home" if "~alice" in args[1] else "$HOME/...") in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]
    (tmp_path / "~").mkdir()  # one made on purpose is read as the folder it is
    assert "[CTX-E708]" not in " ".join(CliRunner().invoke(app, ["rank", "~/pipeline"]).output.split())


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal: POSIX")
def test_colours_on_a_terminal_unless_no_color_is_set(tmp_path):
    """Escape codes only where a person reads: on a terminal, and not there with NO_COLOR set
    (no-color.org); pipes and files get plain text (checked by the JSON and TSV tests)."""
    import pty
    import subprocess
    import sys

    def on_a_terminal(env: dict) -> bytes:
        leader, follower = pty.openpty()
        command = [sys.executable, "-m", "spacy_ctxvec", "compare", "", "a pen"]  # E413: before any model loads
        subprocess.run(command, stdout=follower, stderr=follower, env=env, timeout=120, cwd=tmp_path)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        return b"".join(chunks)

    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "ANSI_COLORS_DISABLED")}
    env["TERM"] = "xterm-256color"
    coloured, plain = on_a_terminal(env), on_a_terminal({**env, "NO_COLOR": "1"})
    assert b"[CTX-E413]" in coloured and b"[CTX-E413]" in plain
    assert b"\x1b[" in coloured and b"\x1b[" not in plain
    dumb = on_a_terminal({**env, "TERM": "dumb"})  # a terminal that shows no colour
    assert b"[CTX-E413]" in dumb and b"\x1b[" not in dumb


@pytest.mark.parametrize(
    "args, expected",
    [
        (["rank", "P", "--code", "f.py"], ["--code", "f.py", "rank", "P"]),
        (["rank", "P", "-c", "f.py", "--top-k", "3"], ["-c", "f.py", "rank", "P", "--top-k", "3"]),
        (["plot", "word", "bank", "--code=f.py"], ["--code=f.py", "plot", "word", "bank"]),
        (["--code", "f.py", "rank", "P"], ["--code", "f.py", "rank", "P"]),
        (["senses", "P", "--", "-c", "x"], ["senses", "P", "--", "-c", "x"]),  # words after "--" stay words
        (["rank", "P", "--code"], ["--code", "rank", "P"]),  # no FILE: Click says it needs one
        (["rank", "P", "-cf.py"], ["-cf.py", "rank", "P"]),
        (["compare", "-w", "-c", "a b", "c"], ["compare", "-w", "-c", "a b", "c"]),  # the word is "-c"
        (["senses", "P", "--text", "-c", "--html", "o.html"], ["senses", "P", "--text", "-c", "--html", "o.html"]),
    ],
)
def test_code_is_read_after_the_command_too(args, expected):
    """spaCy's commands take -c/--code after the command (`spacy train config.cfg -c f.py`)."""
    from spacy_ctxvec.cli._app import code_first

    assert code_first(args) == expected


def test_code_after_the_command_is_imported(tmp_path):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app
    from spacy_ctxvec.cli._app import code_first

    code, marker = tmp_path / "mine.py", tmp_path / "imported"
    code.write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf8")
    import subprocess
    import sys

    command = [sys.executable, "-m", "spacy_ctxvec", "rank", str(tmp_path / "nothing"), "-c", str(code)]
    result = subprocess.run(command, capture_output=True, text=True, encoding="utf8")
    assert result.returncode == 1 and marker.exists(), result.stderr  # imported; then the missing pipeline
    assert "[CTX-E" in result.stdout + result.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("import not_a_module_of_anyone\n", encoding="utf8")
    result = CliRunner().invoke(app, code_first(["rank", str(tmp_path / "nothing"), "--code", str(broken)]))
    assert result.exit_code == 1 and "[CTX-E419]" in result.output and "broken.py" in result.output
    twice = CliRunner().invoke(app, code_first(["-c", str(code), "rank", str(tmp_path / "nothing"), "-c", str(broken)]))
    assert twice.exit_code == 1 and "[CTX-E427] --code was given more than once" in " ".join(twice.output.split())


def test_options_spacy_names_short_have_spacys_short_names():
    """spaCy's own commands (spacy apply, spacy train) give -b, -n, -g, -o, -c for these."""
    spacy_short = {"--batch-size": "-b", "--n-process": "-n", "--gpu-id": "-g", "--output": "-o", "--code": "-c"}
    found = []
    for path, command in every_command_path():
        for parameter in command.params:
            for long_name, short_name in spacy_short.items():
                if long_name in parameter.opts:
                    found.append((path, long_name))
                    assert short_name in parameter.opts, (path, long_name)
    assert (["build-lexicon"], "--gpu-id") in found and (["build-lexicon"], "--n-process") in found


def test_no_command_takes_an_option_named_like_code():
    """code_first moves -c/--code FILE out of every command's arguments: a command's own
    -c would never see its value."""
    from spacy_ctxvec.cli._app import CODE_OPTIONS

    names = {(*path, name): set(info.param_decls or ()) for path, name, _, info in command_parameters()}
    assert len(names) >= 50 and names[("compare", "pipeline")] == {"--pipeline", "-p"}
    assert [key for key, decls in names.items() if decls & set(CODE_OPTIONS)] == []


def test_a_warning_made_an_error_by_the_filters_ends_a_command_in_one_line(tmp_path):
    """PYTHONWARNINGS=error made W084 (warnings.warn) a traceback, while a warning the command
    prints itself went on: now both end the command with one line and status 1."""
    import subprocess
    import sys

    corpus = tmp_path / "utf8.txt"
    corpus.write_text("the caf\u00e9 by the bank\n", encoding="utf8")
    command = [sys.executable, "-W", "error::UserWarning", "-m", "spacy_ctxvec", "train-static", str(corpus)]
    command += [str(tmp_path / "v.txt"), "--encoding", "latin-1", "--min-count", "1"]
    result = subprocess.run(command, capture_output=True, text=True, encoding="utf8")
    message = " ".join(result.stderr.split())
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "✘ [CTX-W084]" in message and "(a warning, made an error by the warnings filter)" in message
    assert not (tmp_path / "v.txt").exists()


def test_an_error_filter_raises_a_printed_warning_as_it_does_a_warnings_warn_one():
    import warnings

    from spacy_ctxvec.cli._app import warn_on_stderr

    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r"\[CTX-W996\]")
        with pytest.raises(UserWarning, match=r"\[CTX-W996\] now an error"):
            warn_on_stderr("[CTX-W996] now an error")


@pytest.mark.parametrize("uri", ["s3://bucket/corpus.txt", "gs://b/c", "file:///tmp/corpus.txt"])
def test_a_uri_given_as_a_path_is_refused_not_read_as_another_path(uri, tmp_path):
    """A Path reads s3://bucket/corpus.txt as s3:/bucket/corpus.txt: E210 named a file nobody gave."""
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    result = CliRunner().invoke(app, ["build-lexicon", str(tmp_path / "p"), uri, str(tmp_path / "out")])
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and f"[CTX-E428] '{uri}' is a URI" in message and "build_lexicon_ray" in message
    assert not (tmp_path / "out").exists()
