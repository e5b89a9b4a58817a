"""Bad corpus lines: the coded error a line that cannot be read raises (naming file and
line), and how the lines skipped with on_error="skip" are reported."""

import codecs
import shlex
from pathlib import Path
from typing import List, NamedTuple, Sequence, Union

from ..catalogue.lexicon_errors import ENCODING_ADVICE, ENCODING_ADVICE_CP1252, ENCODING_ADVICE_UTF8, LINE_IS_UTF8
from ..errors import PREFIX, CtxvecError, Errors, Warnings
from ..ops.text import count_of
from ..paths import UTF16_BOMS
from .text_encoding import file_head, utf16_byte_order

REASON_CHARS = 160  # a skipped line's reason is cut to this length


class BadLineError(CtxvecError):
    """A corpus line that cannot be read (E212, E213, E240, E242, E272). The message names file
    and line and says what to do; ``reason`` is the code and the problem alone, shortened,
    e.g. "[CTX-E212] not valid JSON (Expecting value at column 10)": what a line skipped
    with on_error="skip" is reported with."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)  # args stay (message,): it pickles (a Ray worker raises it)
        self.reason = reason


def bad_line(code: str, path: Union[str, Path], line: Union[int, str], problem: str, advice: str = "") -> BadLineError:
    """The BadLineError of catalogue entry ``code`` (one of "{path}, line {line}: {problem}.
    <advice>"; E240's advice is given), with the reason "[CTX-<code>] <problem>"."""
    message = getattr(Errors, code).format(path=path, line=line, problem=problem, advice=advice)
    reason = f"[{PREFIX}{code}] {problem}"
    return BadLineError(message, reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 3] + "...")


class SkippedLine(NamedTuple):
    """A bad line skipped with on_error="skip": file, line number and why (the coded
    error it would have raised, shortened)."""

    path: str
    line: int
    reason: str


UTF16_CHECK_BYTES = 4000  # read from a file's start to tell its UTF-16 byte order (E234, E277)
SHOWN_SKIPPED = 10  # skipped lines named one by one (W004) before their total (W005)


def encoding_advice(encoding: str, utf8: bool = False) -> str:
    """E240's advice: UTF-8 where the undecodable lines are UTF-8 (``utf8``), else cp1252 for
    a Windows file, another encoding where cp1252 failed."""
    if utf8:
        return ENCODING_ADVICE_UTF8
    return ENCODING_ADVICE_CP1252 if codecs.lookup(encoding).name == "cp1252" else ENCODING_ADVICE


def skipped_line_warnings(skipped: Sequence[SkippedLine], encoding: str) -> List[str]:
    """W004 for each of the first SHOWN_SKIPPED skipped lines and W005 with their total
    (none where no line was skipped): what a command prints after reading a corpus
    decoded with ``encoding``."""
    if not skipped:
        return []
    named = [Warnings.W004.format(path=s.path, line=s.line, reason=s.reason) for s in skipped[:SHOWN_SKIPPED]]
    return named + [skipped_total(skipped, encoding)]


def skipped_total(skipped: Sequence[SkippedLine], encoding: str) -> str:
    """W005: how many lines were skipped; where most of them could not be decoded (E240) with
    ``encoding``, that the file is likely in another encoding (skipping them dropped most of a
    cp1252 corpus), with E240's advice for that encoding."""
    undecoded = [line.reason for line in skipped if f"[{PREFIX}E240]" in line.reason]
    utf8 = sum(LINE_IS_UTF8 in reason for reason in undecoded) * 2 > len(undecoded)
    hint = (
        f" {len(undecoded)} of them could not be decoded: the file is likely in another encoding than the one "
        f"read, not bad lines to skip. {encoding_advice(encoding, utf8)}, and read it again."
        if len(undecoded) >= 3 and 2 * len(undecoded) >= len(skipped)
        else ""
    )
    return Warnings.W005.format(lines=count_of(len(skipped), "invalid line"), hint=hint)


def no_documents(path: Union[str, Path], skipped: Sequence[SkippedLine], n_invisible: int) -> CtxvecError:
    """The error of a corpus that gave no document: E276 where every line with text was
    skipped (the skip report would never show: the command ends here), E740 where its
    lines showed no character, else E211."""
    if skipped:
        first, lines = skipped[0], count_of(len(skipped), "line")
        where = f"{first.path}:{first.line}"
        return CtxvecError(Errors.E276.format(path=path, lines=lines, first=where, reason=first.reason))
    if n_invisible:
        return CtxvecError(Errors.E740.format(path=path, n_invisible=n_invisible))
    return CtxvecError(Errors.E211.format(path=path))


def whole_file_undecoded(path: Union[str, Path], encoding: str, err: UnicodeError) -> CtxvecError:
    """E277: ``path`` cannot be read with ``encoding`` at all (UTF-16 without a byte order mark, or
    with an odd number of bytes), with the byte order to pass where its bytes show one."""
    order = utf16_byte_order(file_head(Path(path), UTF16_CHECK_BYTES) or b"")
    if "truncated data" in str(err):
        advice = "It ends inside a character (an odd number of bytes): the file is cut short; write it again."
    elif order is not None and order != codecs.lookup(encoding).name:
        advice = f"Its bytes read as UTF-16 without a byte order mark: pass --encoding {order} (config: encoding)."
    else:  # not a line's bytes: no cp1252 (a Windows file's lines would be E240)
        advice = "Pass the file's own encoding (CLI --encoding, config encoding); leave it out for UTF-8, the default."
    return CtxvecError(Errors.E277.format(path=path, encoding=encoding, error=err, advice=advice))


def binary_file(path: Path, evidence: str, encoding: str) -> CtxvecError:
    """E234 for a corpus file with NUL characters, naming the byte order where they are those of
    UTF-16 text without a byte order mark."""
    head = file_head(path, UTF16_CHECK_BYTES) or b""
    order = utf16_byte_order(head)
    if head.startswith(UTF16_BOMS):
        utf16 = " It starts with a UTF-16 byte order mark: pass --encoding utf-16."
    elif order is not None:
        utf16 = f" It reads as UTF-16 text without a byte order mark: pass --encoding {order}."
    else:
        utf16 = ""
    quoted_path = shlex.quote(str(path))
    return CtxvecError(
        Errors.E234.format(path=path, evidence=evidence, encoding=encoding, utf16=utf16, quoted_path=quoted_path)
    )
