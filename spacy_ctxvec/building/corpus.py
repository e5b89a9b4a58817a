"""Streaming corpus readers: .txt (one document per line), .jsonl ("text" or "words"),
.spacy (DocBin), or a directory of such files, its subfolders included (read in the order
of their paths relative to the directory, compared folder by folder, as spaCy's own corpus
readers sort them; hidden files and folders are left out).

Every line is parsed by ``parse_line`` and every DocBin by ``docbin_docs``: the local
engine, the Ray engine and the ``[initialize]`` corpus read documents the same way and
report bad input with the same coded errors naming file and line."""

import codecs
import hashlib
import re
import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Callable, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, Union

from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ..catalogue.lexicon_errors import (
    LINE_IS_UTF8,
    LINE_NOT_A_ROW,
    LINE_NOT_DECODED,
    LINE_NOT_JSON,
    LINE_TOO_LONG,
)
from ..errors import CtxvecError, Errors, Warnings
from ..ops.text import count_of, printable
from ..paths import composed, does_not_exist
from ..registrations import registered
from . import bad_lines
from .bad_lines import BadLineError, SkippedLine, bad_line, encoding_advice, no_documents, skipped_total
from .bounded_json import loads_bounded
from .inflation import check_inflation
from .line_endings import file_newline
from .text_encoding import decoded_head, escaped_utf8, file_head, misdecoded_files
from .wrapped_text import hard_wrapped_files

# One corpus document: a text, or a Doc whose tokens are kept as given.
CorpusItem = Union[str, Doc]
# vocab -> the documents to count: what a registered lexicon corpus (e.g. spacy-ctxvec.lexicon_corpus.v1) returns
CorpusReader = Callable[[Vocab], Iterator[CorpusItem]]
CORPUS_SUFFIXES = (".txt", ".jsonl", ".spacy")
ON_ERROR_CHOICES = ("raise", "skip")
DEFAULT_ENCODING = "utf8"
# Text files are decoded with errors="surrogateescape": an undecodable byte becomes one
# of these code points, so the line can be named (and skipped) instead of ending the read.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Characters that show nothing: whitespace, controls (Cc) and format characters (Cf, e.g.
# U+200B zero-width space, U+FEFF). A document of only these is skipped like a blank line.
INVISIBLE_CHARACTERS = (
    "\\s\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_VISIBLE = re.compile(f"[^{INVISIBLE_CHARACTERS}]")
_WARNED: Set[Tuple[str, ...]] = set()  # what _warn_once warned about in this process
# A .txt/.jsonl file with a NUL character in its first BINARY_CHECK_BYTES bytes is
# binary, not text (the test git and grep make), and is never read line by line.
BINARY_CHECK_BYTES = 8000
# A "words" row: (words, spaces or None)
WordsRow = Tuple[List[str], Optional[List[bool]]]


@dataclass
class CorpusReport:
    """Filled while reading: documents yielded and the bad lines skipped (``bad_lines``)."""

    n_docs: int = 0
    skipped: List[SkippedLine] = field(default_factory=list)
    n_invisible: int = 0  # non-blank lines skipped because no character in them shows


def has_visible(text: str) -> bool:
    """Whether ``text`` has a character that shows (not whitespace, control or format)."""
    return _VISIBLE.search(text) is not None


def corpus_suffix(path: Union[str, Path]) -> str:
    """The lower-cased suffix that decides how a corpus file is read (B.TXT reads as .txt)."""
    return PurePath(path).suffix.lower()


def corpus_files(path: Union[str, Path], *, encoding: str = DEFAULT_ENCODING, on_error: str = "raise") -> List[Path]:
    """The files a corpus path stands for: itself, or the supported files of a directory
    and its subfolders (suffixes in any case), sorted by their path relative to the
    directory, folder by folder (a/b.txt before a.txt before b.txt), as spaCy's corpus
    readers sort theirs. Hidden files and folders are left out, and so is a link back to
    a folder above; the other files there are named in warning W020.

    A .txt or .jsonl file that is binary (a NUL character in its first
    BINARY_CHECK_BYTES bytes, decoded with ``encoding``) is E234, or with
    ``on_error="skip"`` left out and named in warning W021 (E211 if no file is left).
    A .txt file that looks hard-wrapped gets warning W044 (``wrapped_text``)."""
    path = Path(path)
    encoding = check_encoding(encoding)
    if not path.exists():
        raise CtxvecError(Errors.E210.format(path=path, problem=does_not_exist(path)))
    if not path.is_dir():
        if corpus_suffix(path) not in CORPUS_SUFFIXES:
            raise CtxvecError(Errors.E210.format(path=path, problem=unsupported_suffix(path)))
        return _checked_text(_without_binary(path, _files_only([path]), encoding, on_error), encoding, path)
    entries = _files_under(path)
    broken = [p for p in entries if corpus_suffix(p) in CORPUS_SUFFIXES and not p.exists()]  # others: W020
    _warn_naming(Warnings.W085, path, [p.relative_to(path).as_posix() for p in broken])
    entries = [p for p in entries if p not in broken]
    files = [p for p in entries if corpus_suffix(p) in CORPUS_SUFFIXES]
    unread = [p.relative_to(path).as_posix() for p in entries if corpus_suffix(p) not in CORPUS_SUFFIXES]
    _warn_naming(Warnings.W020, path, unread)
    if not files:
        raise CtxvecError(
            Errors.E210.format(
                path=path, problem="is a directory without .txt, .jsonl or .spacy files (in it or its subfolders)"
            )
        )
    return _checked_text(_without_binary(path, _files_only(files), encoding, on_error), encoding, path)


def _files_only(paths: List[Path]) -> List[Path]:
    """``paths``; E210 for a named pipe (mkfifo) or device: it reads once, and a corpus is read more than once."""
    for path in (path for path in paths if not path.is_file()):
        raise CtxvecError(Errors.E210.format(path=path, problem="is a pipe or device, not a file. Save its text first"))
    return paths


# Compressed files a corpus may come as, and the command that decompresses each (keeping it).
DECOMPRESS = {".gz": "gunzip -k", ".bz2": "bunzip2 -k", ".xz": "unxz -k", ".zst": "unzstd", ".zip": "unzip"}


def unsupported_suffix(path: Path) -> str:
    """E210's problem for a file whose suffix is not a corpus's; a compressed file is named
    as such, with the command that decompresses it."""
    command = DECOMPRESS.get(path.suffix.lower())
    if path.suffix.lower() == ".cfg":  # build-lexicon CORPUS PIPELINE OUTPUT: the first two swapped
        return "is a config, not a corpus (build-lexicon takes PIPELINE, then CORPUS, then OUTPUT)"
    if command is None:
        return f"has unsupported suffix '{path.suffix}'"
    return (
        f"is compressed ('{path.suffix}'), which is not read: decompress it first ({command} {shlex.quote(str(path))})"
    )


def _checked_text(files: List[Path], encoding: str, corpus: Path) -> List[Path]:
    """``files``, after W044 for the first .txt file that looks hard-wrapped and was not
    warned about, and W084 where text files look decoded with the wrong encoding; E211 at
    once where every one is an empty text file (0 bytes: before the model loads; an empty
    .spacy file is a damaged one, E243 when it is read)."""
    texts = [file for file in files if corpus_suffix(file) != ".spacy"]
    if files and len(texts) == len(files) and all(file.is_file() and file.stat().st_size == 0 for file in texts):
        raise CtxvecError(Errors.E211.format(path=corpus))
    for path, message in hard_wrapped_files(files, encoding):
        if _warn_once((Warnings.W044, str(path)), message, stacklevel=3):
            break
    misdecoded = misdecoded_files(texts, encoding)
    if misdecoded is not None:
        _warn_once((Warnings.W084, str(corpus), encoding), misdecoded, stacklevel=3)
    return files


def _files_under(root: Path) -> List[Path]:
    """Every file under ``root`` (subfolders too) and every broken link, hidden files and folders left out,
    sorted by relative path folder by folder; a folder reached again through a link to
    itself or a folder above is not entered again."""
    found: List[Path] = []

    def visit(folder: Path, above: FrozenSet[Path]) -> None:
        try:
            children = list(folder.iterdir())
        except OSError as err:
            raise CtxvecError(
                Errors.E210.format(path=folder, problem=f"cannot be read ({err.strerror or err})")
            ) from None
        for child in children:
            if child.name.startswith("."):
                continue
            if child.is_dir():
                real = child.resolve()
                if real not in above:
                    visit(child, above | {real})
            elif child.is_file() or child.is_fifo() or child.is_symlink():  # a pipe (E210), a broken link (W085)
                found.append(child)

    visit(root, frozenset({root.resolve()}))
    return sorted(found, key=lambda file: file.relative_to(root).parts)


def binary_evidence(path: Path, encoding: str = DEFAULT_ENCODING) -> Optional[str]:
    """Why a .txt/.jsonl file is binary, not text (None if it is not, or cannot be read:
    its reader reports that): a NUL character in its first BINARY_CHECK_BYTES bytes."""
    head = file_head(path, BINARY_CHECK_BYTES)
    text = None if head is None else decoded_head(head, encoding)
    if text is None or "\x00" not in text:
        return None
    return f"a NUL character (character {text.index(chr(0)) + 1}) in its first {BINARY_CHECK_BYTES} bytes"


def _without_binary(root: Path, files: List[Path], encoding: str, on_error: str) -> List[Path]:
    """``files`` less the binary .txt/.jsonl ones: E234 for the first, or with
    on_error="skip" W021 naming them (E211 if none is left)."""
    _check_on_error(on_error)
    binary = {}
    for file in files:
        evidence = binary_evidence(file, encoding) if corpus_suffix(file) != ".spacy" else None
        if evidence is not None and on_error == "raise":
            raise bad_lines.binary_file(file, evidence, encoding)
        if evidence is not None:
            binary[file] = evidence
    shown = [file.relative_to(root).as_posix() if root.is_dir() else file.name for file in binary]
    _warn_naming(Warnings.W021, root, shown)
    kept = [file for file in files if file not in binary]
    if not kept:
        raise CtxvecError(Errors.E211.format(path=root))
    return kept


def _warn_naming(warning: str, path: Path, names: List[str]) -> None:
    """``warning`` (W020: files not read; W021: binary files skipped; W085: broken links) naming ``names``,
    once per corpus and process (a process may list one corpus more than once)."""
    if names:
        shown = ", ".join(printable(name) for name in names[:5]) + (", ..." if len(names) > 5 else "")
        message = warning.format(path=path, files=count_of(len(names), "file"), names=shown)
        _warn_once((warning, str(path), *names), message, stacklevel=3)


def _warn_once(key: Tuple[str, ...], message: str, *, stacklevel: int) -> bool:
    """warnings.warn ``message`` unless ``key`` was warned about before in this process;
    ``stacklevel`` counts from the caller. True if it warned."""
    if key in _WARNED:
        return False
    _WARNED.add(key)
    warnings.warn(message, stacklevel=stacklevel + 1)
    return True


def corpus_fingerprint(path: Union[str, Path]) -> str:
    """sha256 over the names (relative to a corpus directory) and contents of the corpus
    files (identifies a corpus)."""
    root = Path(path)
    digest = hashlib.sha256()
    for file in corpus_files(root):
        name = file.relative_to(root).as_posix() if root.is_dir() else file.name
        digest.update(name.encode("utf8") + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def check_encoding(encoding: str) -> str:
    """The codec's canonical name, or E241 for an unknown one or one that reads no text file: a
    bytes-to-bytes codec (hex, base64, zlib, rot13) or one the readers' errors="surrogateescape"
    cannot go with (idna, punycode, undefined); they were tracebacks."""
    try:
        codec = codecs.lookup(encoding)
        if not getattr(codec, "_is_text_encoding", True):
            raise ValueError("not a text encoding")
        codec.incrementaldecoder(errors="surrogateescape").decode(b"", final=True)  # idna refuses the errors
    except (LookupError, TypeError, ValueError, UnicodeError) as err:
        raise CtxvecError(Errors.E241.format(encoding=encoding)) from err
    return codec.name


def _check_on_error(on_error: str) -> None:
    if on_error not in ON_ERROR_CHOICES:
        raise CtxvecError(Errors.E215.format(on_error=on_error))


def _undecodable(line: str, path: str, line_number: int, encoding: str) -> BadLineError:
    match = _ESCAPED_BYTE.search(line)
    assert match is not None
    byte = ord(match.group()) - 0xDC00
    utf8 = escaped_utf8(line, encoding)
    error = f"byte 0x{byte:02x} at character {match.start() + 1} cannot be decoded" + (f"; {LINE_IS_UTF8}" * utf8)
    problem = LINE_NOT_DECODED.format(encoding=encoding, error=error)
    return bad_line("E240", path, line_number, problem, encoding_advice(encoding, utf8))


def _check_string(value: str, path: str, line_number: int, what: str) -> None:
    if _SURROGATE.search(value):
        problem = f"{what} contains an unpaired surrogate (\\ud800-\\udfff), which is not text"
        raise bad_line("E242", path, line_number, problem)


def _spaces_kept(spaces: List[bool], kept: List[int]) -> List[bool]:
    """The spaces of the ``kept`` tokens, each with those of the dropped tokens after it."""
    return [any(spaces[i:end]) for i, end in zip(kept, kept[1:] + [len(spaces)])]


def _words_row(row: dict, path: str, line_number: int) -> WordsRow:
    words, spaces = row["words"], row.get("spaces")
    for i, word in enumerate(words):
        if word == "":
            problem = f'"words"[{i}] is an empty string; every token needs at least one character'
            raise bad_line("E242", path, line_number, problem)
        _check_string(word, path, line_number, f'"words"[{i}]')
    if spaces is None:
        return list(words), None
    if not isinstance(spaces, list) or not all(isinstance(s, bool) for s in spaces):
        raise bad_line("E242", path, line_number, '"spaces" must be a list of true/false (one per word) or left out')
    if len(spaces) != len(words):
        problem = f'"spaces" has {len(spaces)} values for {len(words)} words; give one per word or leave it out'
        raise bad_line("E242", path, line_number, problem)
    return list(words), list(spaces)


def parse_line(
    line: str,
    path: Union[str, Path],
    line_number: int,
    suffix: str,
    encoding: str = DEFAULT_ENCODING,
    max_length: Optional[int] = None,
) -> Union[None, str, WordsRow]:
    """One line of a .txt or .jsonl file, as read in text mode with
    errors="surrogateescape": None for a blank line (or one whose document has no
    visible character, see ``has_visible``), a text, or (words, spaces). The suffix is
    matched case-insensitively.

    A bad line raises a BadLineError naming file and line: E240 (undecodable bytes),
    E212 (not JSON, nested deeper than MAX_JSON_DEPTH, or a non-finite number), E213 (not
    a "text"/"words" object), E242 (bad "words"/"spaces", unpaired surrogates), E272 (a text
    over ``max_length`` characters, the pipeline's nlp.max_length; None: any). U+FEFF (a
    byte-order mark, also where files were joined) is removed wherever it stands, and the
    text is put in Unicode normal form NFC (composed characters)."""
    path = str(path)
    suffix = suffix.lower()
    if _ESCAPED_BYTE.search(line):
        raise _undecodable(line, path, line_number, encoding)
    # byte-order marks (files joined with cat keep theirs mid-file) are no part of a word, and a word
    # spelled with combining accents ("a" + U+0308) is the same word as its composed form ("ä")
    if suffix != ".jsonl":
        return _document(composed(line.rstrip("\r\n")), path, line_number, max_length)
    if not line.strip("\ufeff \t\r\n"):
        return None
    try:
        row = loads_bounded(line.lstrip("\ufeff"))  # a file's own mark, or one of a file joined with cat
    except ValueError as err:
        raise bad_line("E212", path, line_number, LINE_NOT_JSON.format(error=err)) from None
    if isinstance(row, dict) and isinstance(row.get("text"), str):
        _check_string(row["text"], path, line_number, '"text"')
        return _document(composed(row["text"]), path, line_number, max_length)
    if isinstance(row, dict) and isinstance(row.get("words"), list) and all(isinstance(w, str) for w in row["words"]):
        words, spaces = _words_row(row, path, line_number)
        read = [composed(word) for word in words]  # a token that was only a byte-order mark goes
        kept = [i for i, word in enumerate(read) if word]
        spaces = None if spaces is None else _spaces_kept(spaces, kept)  # "❤", "\ufe0f ": "❤ "
        words = [read[i] for i in kept]
        return (words, spaces) if any(has_visible(word) for word in words) else None
    raise bad_line("E213", path, line_number, LINE_NOT_A_ROW.format(got=line.strip()[:80]))


def _document(text: str, path: str, line_number: int, max_length: Optional[int]) -> Optional[str]:
    if not has_visible(text):
        return None  # a blank line, however long: no document
    if max_length is not None and len(text) > max_length:
        raise bad_line("E272", path, line_number, LINE_TOO_LONG.format(n=len(text), max_length=max_length))
    return text


def make_doc(vocab: Vocab, row: WordsRow) -> Doc:
    """The Doc of a parsed "words" row (tokens kept as given)."""
    words, spaces = row
    return Doc(vocab, words=words, spaces=spaces)


def _read_text_file(
    path: Path, vocab: Optional[Vocab], encoding: str, on_error: str, report: CorpusReport, max_length: Optional[int]
) -> Iterator[CorpusItem]:
    try:
        with path.open(encoding=encoding, errors="surrogateescape", newline=file_newline(path)) as handle:
            for line_number, line in enumerate(handle, start=1):
                try:
                    parsed = parse_line(line, path, line_number, corpus_suffix(path), encoding, max_length)
                except BadLineError as err:
                    if on_error == "raise":
                        raise
                    report.skipped.append(SkippedLine(str(path), line_number, err.reason))
                    continue
                if parsed is None:
                    report.n_invisible += bool(line.strip())
                    continue
                if isinstance(parsed, str):
                    yield parsed
                else:
                    if vocab is None:
                        raise CtxvecError(Errors.E214.format(path=path))
                    yield make_doc(vocab, parsed)
    except UnicodeError as err:  # UTF-16 without a byte order mark, an odd number of bytes in a UTF-16 file
        raise bad_lines.whole_file_undecoded(path, encoding, err) from None
    except OSError as err:
        raise CtxvecError(Errors.E210.format(path=path, problem=f"cannot be read ({err.strerror or err})")) from None


def docbin_docs(data: bytes, vocab: Vocab, path: Union[str, Path]) -> List[Doc]:
    """The Docs of a serialised DocBin (.spacy) with a visible character, or E243 naming the file:
    any failure while decoding means a damaged or foreign file (E271: one that would inflate too far)."""
    try:
        check_inflation(data, path)
        return [doc for doc in DocBin().from_bytes(data).get_docs(vocab) if has_visible(doc.text)]
    except CtxvecError:
        raise
    except Exception as err:  # zlib, msgpack, KeyError, ValueError...: all "not a DocBin"
        raise CtxvecError(Errors.E243.format(path=path, error=f"{type(err).__name__}: {str(err)[:200]}")) from None


def _read_docbin(path: Path, vocab: Optional[Vocab]) -> Iterator[Doc]:
    if vocab is None:
        raise CtxvecError(Errors.E214.format(path=path))
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CtxvecError(Errors.E210.format(path=path, problem=f"cannot be read ({err.strerror or err})")) from None
    yield from docbin_docs(data, vocab, path)


def iter_corpus(
    path: Union[str, Path],
    nlp_vocab: Optional[Vocab] = None,
    *,
    on_error: str = "raise",
    report: Optional[CorpusReport] = None,
    encoding: str = DEFAULT_ENCODING,
    files: Optional[Sequence[Path]] = None,
    max_length: Optional[int] = None,
) -> Iterator[CorpusItem]:
    """Yield documents one at a time: texts for .txt and "text" rows, Docs for "words"
    rows (tokens kept as given) and .spacy files (these need ``nlp_vocab``).

    .txt and .jsonl files are decoded with ``encoding``. Blank lines are skipped (line
    numbers still count them). A bad line (undecodable, bad JSON, bad row) raises a
    CtxvecError naming file and line, or with ``on_error="skip"`` is skipped and
    recorded in ``report.skipped``. A damaged .spacy file is always an error (E243).
    Suffixes are matched case-insensitively. A document without a visible character
    (only whitespace, zero-width, format or control characters) is skipped like a blank
    line. A corpus without any document raises E211 once the stream is exhausted, E276
    when every line with text was skipped, or E740 when its lines had only invisible characters.

    ``files``: the corpus's files as ``corpus_files(path)`` listed and checked them (with
    the same ``encoding`` and ``on_error``), read instead of listing the corpus again
    (a build checks its corpus before loading the model); None lists them here.
    """
    _check_on_error(on_error)
    encoding = check_encoding(encoding)
    report = report if report is not None else CorpusReport()
    if files is None:
        files = corpus_files(path, encoding=encoding, on_error=on_error)
    for file in files:
        if corpus_suffix(file) == ".spacy":
            items: Iterator[CorpusItem] = _read_docbin(file, nlp_vocab)
        else:
            items = _read_text_file(file, nlp_vocab, encoding, on_error, report, max_length)
        for item in items:
            report.n_docs += 1
            yield item
    if report.n_docs == 0:
        raise no_documents(path, report.skipped, report.n_invisible)


def check_tokens_read(corpus: Union[str, Path], n_docs: int, n_tokens: int) -> None:
    """E741 when ``n_docs`` documents were read but not one token got a contextual
    vector (a build engine calls this with its result, so an empty lexicon is never
    reported as a success)."""
    if n_docs > 0 and n_tokens == 0:
        raise CtxvecError(Errors.E741.format(path=corpus, n_docs=n_docs))


def n_tokens(item: CorpusItem) -> int:
    """Whitespace tokens of a text, or tokens of a Doc (for progress reporting)."""
    return len(item) if isinstance(item, Doc) else len(item.split())


def item_digest(item: CorpusItem) -> bytes:
    """Bytes that identify a document (its text, or a Doc's tokens and spaces), for
    checking that a resumed build reads the same documents first."""
    if isinstance(item, Doc):
        return b"D" + "\0".join(token.text_with_ws for token in item).encode("utf8", "surrogatepass")
    return b"T" + item.encode("utf8", "surrogatepass")


@registered("misc", "spacy-ctxvec.lexicon_corpus.v1")
def configure_lexicon_corpus(path: str, on_error: str = "raise", encoding: str = DEFAULT_ENCODING) -> CorpusReader:
    """A corpus for building a lexicon in [initialize.components.ctxvec_polysemy.corpus]:
    a callable (vocab) -> iterator of documents. ``encoding`` decodes .txt/.jsonl files;
    with on_error = "skip", bad lines are skipped and reported in one warning."""
    _check_on_error(on_error)
    encoding = check_encoding(encoding)

    def read(vocab: Vocab) -> Iterator[CorpusItem]:
        report = CorpusReport()
        yield from iter_corpus(path, vocab, on_error=on_error, report=report, encoding=encoding)
        if report.skipped:
            first = "; ".join(f"{skip.path}:{skip.line} ({skip.reason})" for skip in report.skipped[:5])
            skipped = skipped_total(report.skipped, encoding)
            warnings.warn(f"{skipped} First: {first}", stacklevel=2)

    return read
