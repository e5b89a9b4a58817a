"""The typer app that every command module registers on, and shared CLI helpers."""

import functools
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, List, NoReturn, Optional, Set, TextIO, Type, TypeVar, Union

import typer

from ..building.corpus import DEFAULT_ENCODING
from ..errors import PREFIX, CtxvecError, Errors
from ..ops.text import ACTED_ON_BUT_TAB_AND_NEWLINE, printable
from ..terminal import colour_on, is_terminal, msg, stderr_printer

app = typer.Typer(
    name="spacy-ctxvec",
    help="Static and contextual token vectors in spaCy pipelines.",
    no_args_is_help=True,
    add_completion=False,
    # click's plain help: it wraps to any terminal width, where rich's tables cut long
    # option names and help texts ("--checkpoint-eve…") at 80 columns.
    rich_markup_mode=None,
)

CommandT = TypeVar("CommandT", bound=Callable[..., Any])


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"spacy-ctxvec {version('spacy-ctxvec')}")
        raise typer.Exit()


# How every command that reads a corpus (building.corpus.iter_corpus) decodes it and treats bad lines.
CORPUS_ENCODING = typer.Option(
    DEFAULT_ENCODING, "--encoding", help="Text encoding of .txt/.jsonl corpus files (e.g. latin-1, cp1252)"
)
CORPUS_ON_ERROR = typer.Option(
    "raise", "--on-error", help="Bad lines (undecodable text, bad JSON or rows): raise, or skip and report"
)

# One flag name on every command that writes (spacy_ctxvec.outputs).
OVERWRITE_FILE = typer.Option(
    False, "--overwrite", help="Replace an existing output file (never an input; written whole, then swapped in)"
)


# Parsers of path arguments (typer's ``parser=``): typer turns "" into Path(".") and
# drops a trailing slash, so these read the text as the user typed it.
def given_text(value: Union[str, Path]) -> str:
    """A pipeline name or path as typed; "" (an unset shell variable, say) is a usage
    error, where it would otherwise be read as the current directory, and so are "-"
    (standard input or output, which no command reads or writes) and a quoted "~/..." (E708)."""
    text = str(value)
    if not text:
        raise typer.BadParameter(Errors.E705)
    if text == "-":
        raise typer.BadParameter(Errors.E707)
    tilde = re.match(r"~[^/\\]*(?=[/\\]|$)", text)
    if tilde is not None and not Path(tilde.group()).exists():  # a folder named "~" here, made on purpose, is read
        own = tilde.group() == "~"
        whose, how = ("your", '"$HOME/..."') if own else (f"user {tilde.group()[1:]}'s", "that user's home, in full")
        raise typer.BadParameter(Errors.E708.format(path=text, tilde=tilde.group(), whose=whose, how=how))
    return text


def given_path(value: Union[str, Path]) -> Path:
    """An input or directory path as typed, "" refused (``given_text``), a URI too (E428: a
    Path reads s3://b/c as s3:/b/c, which then "does not exist")."""
    text = given_text(value)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", text):
        raise typer.BadParameter(Errors.E428.format(path=text))
    return Path(text)


def file_output(example_name: str) -> Callable[[Union[str, Path]], Path]:
    """The parser of a file output as typed: "" and a trailing slash (a directory's
    name) are usage errors, where typer would drop the slash and write a file under the
    directory's name. ``example_name`` (e.g. "vectors.txt") completes the suggested path."""

    def parse_file_output(value: Union[str, Path]) -> Path:
        text = given_text(value)
        slash = next((end for end in ("/", os.sep) if isinstance(value, str) and text.endswith(end)), None)
        if slash:
            raise typer.BadParameter(Errors.E706.format(path=text, slash=slash, example=text + example_name))
        return Path(text)

    return parse_file_output


BINARY_SUFFIXES, TEXT_SUFFIXES = (".bin", ".bin.gz"), (".txt", ".txt.gz", ".vec", ".vec.gz")
BINARY = typer.Option(False, "--binary", help="Write word2vec binary instead of text")
GPU_ID = typer.Option(-1, "--gpu-id", "-g", min=-1, help="GPU to run the transformer on (-1: CPU)")
# The printed output of rank and senses: --format, or --json as compare and evaluate take it.
OUTPUT_FORMATS = ("table", "tsv", "json")
OUTPUT_FORMAT = typer.Option(None, "--format", help="table, tsv or json [default: table]")
AS_JSON = typer.Option(False, "--json", help="Print JSON (the same as --format json)")


def output_format(fmt: Optional[str], as_json: bool) -> str:
    """The format asked for: ``fmt`` (None: table), or "json" with --json (E230 for an unknown
    format, E426 for --json beside another --format)."""
    if fmt is not None and fmt not in OUTPUT_FORMATS:
        raise CtxvecError(Errors.E230.format(fmt=fmt, choices=", ".join(OUTPUT_FORMATS)))
    if as_json and fmt not in (None, "json"):
        raise CtxvecError(Errors.E426.format(fmt=fmt))
    return "json" if as_json else fmt or "table"


def baseline_text(baseline: Optional[float]) -> str:
    """B to 4 places, or why it is undefined (None: occurrences of one word type, no pairs of different words)."""
    return "undefined (one word type: scores are 1 - self-similarity)" if baseline is None else f"{baseline:.4f}"


def check_binary_name(output: Path, binary: bool, command: str) -> None:
    """E420 for an OUTPUT named like word2vec binary (vectors.bin) that would get text; E425
    for one named like text (vectors.txt, fastText's .vec) that would get binary."""
    suffix = next((s for s in BINARY_SUFFIXES + TEXT_SUFFIXES if output.name.lower().endswith(s)), None)
    if suffix in BINARY_SUFFIXES and not binary:
        raise CtxvecError(Errors.E420.format(path=output, suffix=suffix, command=command))
    if suffix in TEXT_SUFFIXES and binary:
        raise CtxvecError(Errors.E425.format(path=output, suffix=suffix, command=command))


def colour_only_on_a_terminal() -> None:
    """wasabi colours its messages wherever they go: a file or pipe would get escape codes.
    Plain text there (as ``ls`` and ``git`` do), colours on a terminal unless NO_COLOR is set."""
    if not colour_on(sys.stdout):
        msg.show_color = False


def print_output(text: str, *, json_text: bool = False) -> None:
    """Print ``text`` (a command's TSV or JSON output) as is to a file or pipe; on a terminal with
    the controls it would act on written as escapes (an escape sequence in a corpus snippet):
    JSON's own \\u escapes for ``json_text``, which stays valid JSON."""
    on_terminal = is_terminal(sys.stdout)
    if on_terminal and json_text:
        text = ACTED_ON_BUT_TAB_AND_NEWLINE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    print(printable(text, ACTED_ON_BUT_TAB_AND_NEWLINE) if on_terminal else text)


def warn_on_stderr(text: str) -> None:
    """A "⚠" line, as ``msg.warn`` prints it (coloured on a terminal only), on stderr: a
    warning never mixes into the JSON or TSV a command prints on stdout. Lines after the
    first newline (a command to copy) print as they are, never wrapped to the terminal. While a
    keeps_warnings command runs, a coded one is kept for its report too. Python's warnings
    filters (PYTHONWARNINGS, -W) apply, as to the warnings that go through ``warnings.warn``."""
    if _filtered_out(text):
        return
    if _keeping and text.startswith(f"[{PREFIX}W") and text not in KEPT_WARNINGS:
        KEPT_WARNINGS.append(text)
    _print_warning(text)


def _filtered_out(text: str) -> bool:
    """True where the warnings filters ignore ``text`` as a UserWarning; an "error" filter
    raises it, as it does a warnings.warn warning (exit_on_coded_error: one line, status 1)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn_explicit(text, UserWarning, "spacy_ctxvec", 0, module="spacy_ctxvec", registry={})
    return not caught


# The coded warnings the running command has printed (None outside a command): one said again
# (the same words, from a second place, such as W062 from the senses read and again from
# spacy.load) is not printed twice.
_printed: Optional[Set[str]] = None


def note_on_stderr(line: str) -> None:
    """A line for the person (what runs, what was written; a warning) on stderr, best effort: a stderr that
    is closed, full or whose reader is gone loses the line, never the command's work."""
    try:
        typer.echo(line, err=True)
    except OSError:
        sys.stderr = open(os.devnull, "w", encoding="utf8")  # later lines too (and its flush at exit)


def _print_warning(text: str) -> None:
    if _printed is not None and text.startswith(f"[{PREFIX}W"):
        if text in _printed:
            return
        _printed.add(text)
    note_on_stderr(wrapped_first_line(text, stderr_printer().warn))


def wrapped_first_line(text: str, form: Callable[[str], str]) -> str:
    """``text``'s first line formatted by ``form`` (msg.warn / msg.fail: an icon, wrapped at 80
    columns, a `command` in it never broken); the lines after it (a command to copy) as they are."""
    message, newline, verbatim = text.partition("\n")
    formed = form(message)
    if message.count("`") % 2 == 0:  # each `command` whole again: the wrap broke its spaces into newlines
        parts = formed.split("`")
        formed = "`".join(part.replace("\n", " ") if inside % 2 else part for inside, part in enumerate(parts))
    return formed + newline + verbatim


def show_coded_warning(
    message: Any,
    category: Type[Warning],
    filename: str,
    lineno: int,
    file: Optional[TextIO] = None,
    line: Optional[str] = None,
    _default: Callable[..., None] = warnings.showwarning,
) -> None:
    """warnings.showwarning for the command line: a coded warning ("[CTX-W...]") as one
    "⚠" line on stderr (as ``warn_on_stderr`` prints it); any other as Python shows it."""
    if str(message).startswith("[CTX-W"):
        _print_warning(str(message))  # kept, where a command keeps them, by keeps_warnings' own hook
    else:
        _default(message, category, filename, lineno, file, line)


# The status of a command whose reader closed the pipe (`rank | head -2`), as a shell
# reports a standard tool that SIGPIPE ended: 128 + SIGPIPE (13).
BROKEN_PIPE_STATUS = 141


def stdout_reader_is_gone() -> bool:
    """True when standard output is a pipe whose reading end has closed (poll reports
    POLLERR for it); False for anything else, so that a BrokenPipeError from another
    pipe (worker processes, sockets) is never taken for the reader leaving."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), or stdout is no file
        return False


def exit_quietly_on_closed_stdout() -> None:
    """What standard tools do when the reader of their output leaves: no message, no
    traceback, status 141. Standard output is pointed at os.devnull first, so that the
    flush at exit does not fail again (Python's documentation on SIGPIPE)."""
    _stdout_to_devnull()
    raise typer.Exit(BROKEN_PIPE_STATUS)


def exit_with_closed_stdout() -> NoReturn:
    """``exit_quietly_on_closed_stdout`` outside a command (Click's own --help and --version)."""
    _stdout_to_devnull()
    sys.exit(BROKEN_PIPE_STATUS)


def _stdout_to_devnull() -> None:
    if sys.stdout is None:  # started with >&-: there is nothing to flush at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _flush_stdout() -> None:
    """Flush standard output (a closed pipe fails here, not in the flush at exit); none where
    the command started without one (>&-)."""
    if sys.stdout is not None:
        sys.stdout.flush()


def exit_on_unwritable_stdout(err: OSError) -> None:
    """E422 on stderr and status 1 where standard output cannot be written (a redirect to a
    full disk; terminal.GuardedStdout), standard output first pointed at os.devnull, so
    that the flush at exit does not fail again."""
    _stdout_to_devnull()
    typer.echo(stderr_printer().fail(Errors.E422.format(error=err.strerror or err)), err=True)
    sys.exit(1)


def exit_on_coded_error(command: CommandT) -> CommandT:
    """Print a CtxvecError's coded message and exit with status 1 (no traceback), as a warning
    that a warnings filter turned into an error (PYTHONWARNINGS=error, -W error); where the
    reader of standard output has gone (a closed pipe), exit quietly with status 141."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _printed
        _printed = set()
        try:
            result = command(*args, **kwargs)
            _flush_stdout()
            return result
        except CtxvecError as err:  # on stderr, so that --json / tsv output on stdout stays parseable
            typer.echo(wrapped_first_line(str(err), stderr_printer().fail), err=True)
            raise typer.Exit(1) from None
        except Warning as warning:  # raised by an "error" warnings filter
            name = "" if str(warning).startswith(f"[{PREFIX}W") else f"{type(warning).__name__}: "
            message, newline, verbatim = f"{name}{warning}".partition("\n")
            made_an_error = f"{message} (a warning, made an error by the warnings filter){newline}{verbatim}"
            typer.echo(wrapped_first_line(made_an_error, stderr_printer().fail), err=True)
            raise typer.Exit(1) from None
        except BrokenPipeError:
            if not stdout_reader_is_gone():
                raise
            exit_quietly_on_closed_stdout()
        finally:
            _printed = None

    return wrapper  # type: ignore[return-value]


# The coded warnings shown while a keeps_warnings command runs, in order (its JSON report lists
# them): through warnings.warn or warn_on_stderr.
KEPT_WARNINGS: List[str] = []
_keeping = False


def keeps_warnings(command: CommandT) -> CommandT:
    """Record in KEPT_WARNINGS each coded warning shown while ``command`` runs (shown as
    before, when it happens), so that a JSON report can carry what stderr said."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _keeping
        shown, _keeping = warnings.showwarning, True
        KEPT_WARNINGS.clear()

        def keep(
            message: Union[Warning, str],
            category: Type[Warning],
            filename: str,
            lineno: int,
            file: Optional[TextIO] = None,
            line: Optional[str] = None,
        ) -> None:
            if str(message).startswith(f"[{PREFIX}W") and str(message) not in KEPT_WARNINGS:
                KEPT_WARNINGS.append(str(message))
            shown(message, category, filename, lineno, file, line)

        warnings.showwarning = keep
        try:
            return command(*args, **kwargs)
        finally:
            warnings.showwarning, _keeping = shown, False

    return wrapper  # type: ignore[return-value]


CODE_OPTIONS = ("--code", "-c")


def code_first(args: List[str]) -> List[str]:
    """``args`` with a -c/--code FILE given after the command (where spaCy's commands take it)
    moved before it, where the command line reads it. The value of another option (``-w -c``)
    and everything after a "--" stay where they are."""
    end = args.index("--") if "--" in args else len(args)
    if not any(_names_code(arg) for arg in args[:end]):  # the common case: no Click command built for it
        return args
    takes_value = _options_taking_a_value()
    moved: List[str] = []
    rest: List[str] = []
    i = 0
    while i < end:
        arg = args[i]
        if arg in CODE_OPTIONS:  # with its FILE; alone at the end, Click says it needs one
            moved += args[i : min(i + 2, end)]
            i += 2
        elif _names_code(arg):  # --code=FILE, -cFILE
            moved.append(arg)
            i += 1
        elif arg in takes_value:
            rest += args[i : min(i + 2, end)]
            i += 2
        else:
            rest.append(arg)
            i += 1
    return moved + rest + args[end:]


def _names_code(arg: str) -> bool:
    """Whether ``arg`` is -c/--code, with its FILE attached or not."""
    return arg == "--code" or arg.startswith("--code=") or (arg.startswith("-c") and not arg.startswith("--"))


def _options_taking_a_value() -> Set[str]:
    """The names of every command's options that take a value (``--word``, ``-w``, ...)."""
    names: Set[str] = set()
    groups = [typer.main.get_command(app)]
    while groups:
        for command in getattr(groups.pop(), "commands", {}).values():
            groups.append(command)
            for parameter in command.params:
                if getattr(parameter, "is_flag", None) is False:  # an option (an argument has no is_flag)
                    names.update(parameter.opts)
    return names


@app.callback()
@exit_on_coded_error  # E419 for a --code file that is missing or fails to import
def _commands(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit"
    ),
    code_files: List[Path] = typer.Option(
        [],
        "--code",
        "-c",
        metavar="FILE.py",
        parser=given_path,
        help="A Python file to import first, for the functions it registers (as spaCy's --code; before or after "
        "the command)",
    ),
) -> None:
    """Static and contextual token vectors in spaCy pipelines."""
    if len(code_files) > 1:
        raise CtxvecError(Errors.E427.format(files=", ".join(map(str, code_files))))
    if code_files:
        from ..user_code import code_for_workers, import_code

        import_code(code_files[0])
        ctx.call_on_close(code_for_workers(code_files[0]))
