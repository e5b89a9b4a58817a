"""Run the code blocks of one Markdown file in order, in one process (used by tests/test_docs.py).

    python tests/docs_runner.py BLOCKS_JSON

BLOCKS_JSON lists {"where", "lang", "code", "output_of"} in document order. The working
directory is the caller's (a temporary directory with links to configs/ and project_data/).

- ``python``: executed in one namespace shared by every python block of the file.
- ``bash``/``sh``/``console``/``shell``: line by line (a trailing backslash joins lines;
  ``$ `` prompts are dropped). ``spacy-ctxvec ...`` and ``python -m spacy ...`` run through
  the same typer apps their console scripts call, in this process, so the model libraries are
  imported once per file; any other line runs in a shell.
- ``text`` with ``output_of``: the command's printed output must equal the block.

Stops at the first failure with exit status 1, naming the file and line.
"""

import contextlib
import io
import json
import shlex
import subprocess
import sys
import time
import traceback
from typing import Any, Dict, List

SHELL_LANGS = {"bash", "sh", "console", "shell"}


def shell_lines(code: str) -> List[str]:
    lines: List[str] = []
    pending = ""
    for raw in code.splitlines():
        line = raw.rstrip()
        if line.startswith("$ "):
            line = line[2:]
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def run_typer(app: Any, args: List[str], prog_name: str) -> int:
    import typer.main

    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    return result if isinstance(result, int) else 0


def run_line(line: str) -> int:
    words = shlex.split(line, comments=True)
    if words and words[0] == "spacy-ctxvec":
        from spacy_ctxvec.cli import app

        return run_typer(app, words[1:], "spacy-ctxvec")
    if words[:3] == ["python", "-m", "spacy"] and words[3:4] != ["project"]:
        from spacy.cli import app as spacy_app

        return run_typer(spacy_app, words[3:], "python -m spacy")
    if words and words[0] == "python":
        words[0] = sys.executable
        line = shlex.join(words)
    return subprocess.run(line, shell=True).returncode


def captured_output(line: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = run_line(line)
    if code != 0:
        raise RuntimeError(f"`{line}` exited with status {code}:\n{buffer.getvalue()}")
    return buffer.getvalue()


def run_block(block: Dict[str, Any], namespace: Dict[str, Any]) -> None:
    lang, code, where = block["lang"], block["code"], block["where"]
    if lang == "python":
        exec(compile(code, where, "exec"), namespace)
    elif lang in SHELL_LANGS:
        for line in shell_lines(code):
            print(f"$ {line}", flush=True)
            status = run_line(line)
            if status != 0:
                raise RuntimeError(f"`{line}` exited with status {status}")
    elif block.get("output_of"):
        printed = captured_output(block["output_of"])
        got = [line.rstrip() for line in printed.strip().splitlines()]
        want = [line.rstrip() for line in code.strip().splitlines()]
        if got != want:
            raise AssertionError("printed output differs from the block:\n" + "\n".join(got))


def main(blocks_path: str) -> int:
    with open(blocks_path, encoding="utf8") as handle:
        blocks = json.load(handle)
    namespace: Dict[str, Any] = {"__name__": "__docs__"}
    for block in blocks:
        print(f"--- {block['where']} ({block['lang']})", flush=True)
        started, cpu = time.perf_counter(), time.process_time()
        try:
            run_block(block, namespace)
            print(f"--- done in {time.perf_counter() - started:.1f} s ({time.process_time() - cpu:.1f} s CPU)")
        except BaseException:  # noqa: B036 - report any failure with the block's place
            print(f"FAILED {block['where']}", flush=True)
            traceback.print_exc()
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
