"""Streaming corpus readers: .txt (one document per line), .jsonl ("text" or "words"),
.spacy (DocBin), or a directory of such files (read in sorted name order)."""
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc, DocBin
from spacy.util import registry
from spacy.vocab import Vocab

from ..errors import CtxvecError, Errors
from ..types import CorpusItem

CORPUS_SUFFIXES = (".txt", ".jsonl", ".spacy")
ON_ERROR_CHOICES = ("raise", "skip")


@dataclass
class CorpusReport:
    """Filled while reading: documents yielded and (file, line) of skipped bad lines."""

    n_docs: int = 0
    skipped: List[Tuple[str, int]] = field(default_factory=list)


def corpus_files(path: Union[str, Path]) -> List[Path]:
    """The files a corpus path stands for (itself, or the supported files of a directory)."""
    path = Path(path)
    if not path.exists():
        raise CtxvecError(Errors.E210.format(path=path, problem="does not exist"))
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in CORPUS_SUFFIXES)
        if not files:
            raise CtxvecError(Errors.E210.format(path=path, problem="is a directory without .txt, .jsonl or .spacy files"))
        return files
    if path.suffix not in CORPUS_SUFFIXES:
        raise CtxvecError(Errors.E210.format(path=path, problem=f"has unsupported suffix '{path.suffix}'"))
    return [path]


def corpus_fingerprint(path: Union[str, Path]) -> str:
    """sha256 over the names and contents of the corpus files (identifies a corpus for resuming)."""
    digest = hashlib.sha256()
    for file in corpus_files(path):
        digest.update(file.name.encode("utf8") + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _read_txt(path: Path) -> Iterator[str]:
    with path.open(encoding="utf8") as handle:
        for line in handle:
            text = line.rstrip("\r\n")
            if text.strip():
                yield text


def _bad_row(path: Path, line_number: int, error_code: str, on_error: str, report: CorpusReport, **details) -> None:
    if on_error == "raise":
        raise CtxvecError(getattr(Errors, error_code).format(path=path, line=line_number, **details))
    report.skipped.append((str(path), line_number))


def _read_jsonl(path: Path, vocab: Optional[Vocab], on_error: str, report: CorpusReport) -> Iterator[CorpusItem]:
    with path.open(encoding="utf8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                _bad_row(path, line_number, "E212", on_error, report, error=err.msg)
                continue
            if isinstance(row, dict) and isinstance(row.get("text"), str):
                if row["text"].strip():
                    yield row["text"]
            elif isinstance(row, dict) and isinstance(row.get("words"), list) and all(isinstance(w, str) for w in row["words"]):
                if vocab is None:
                    raise CtxvecError(Errors.E214.format(path=path))
                if row["words"]:
                    spaces = row.get("spaces")
                    yield Doc(vocab, words=row["words"], spaces=spaces if isinstance(spaces, list) else None)
            else:
                _bad_row(path, line_number, "E213", on_error, report, got=line.strip()[:80])


def _read_docbin(path: Path, vocab: Optional[Vocab]) -> Iterator[Doc]:
    if vocab is None:
        raise CtxvecError(Errors.E214.format(path=path))
    for doc in DocBin().from_disk(path).get_docs(vocab):
        if len(doc):
            yield doc


def iter_corpus(
    path: Union[str, Path],
    nlp_vocab: Optional[Vocab] = None,
    *,
    on_error: str = "raise",
    report: Optional[CorpusReport] = None,
) -> Iterator[CorpusItem]:
    """Yield documents one at a time: texts for .txt and "text" rows, Docs for "words"
    rows (tokens kept as given) and .spacy files (these need ``nlp_vocab``).

    Blank lines are skipped (line numbers still count them). A bad .jsonl line raises
    a CtxvecError naming file and line, or with ``on_error="skip"`` is skipped and
    recorded in ``report.skipped``. A corpus without any document raises E211 once
    the stream is exhausted.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise CtxvecError(Errors.E215.format(on_error=on_error))
    report = report if report is not None else CorpusReport()
    for file in corpus_files(path):
        if file.suffix == ".txt":
            items: Iterator[CorpusItem] = _read_txt(file)
        elif file.suffix == ".jsonl":
            items = _read_jsonl(file, nlp_vocab, on_error, report)
        else:
            items = _read_docbin(file, nlp_vocab)
        for item in items:
            report.n_docs += 1
            yield item
    if report.n_docs == 0:
        raise CtxvecError(Errors.E211.format(path=path))


def n_tokens(item: CorpusItem) -> int:
    """Whitespace tokens of a text, or tokens of a Doc (for progress reporting)."""
    return len(item) if isinstance(item, Doc) else len(item.split())


@registry.misc("spacy-ctxvec.lexicon_corpus.v1")
def configure_lexicon_corpus(path: str, on_error: str = "raise") -> Callable[[Vocab], Iterator[CorpusItem]]:
    """A corpus for building a lexicon in [initialize.components.ctxvec_polysemy.corpus]:
    a callable (vocab) -> iterator of documents."""
    if on_error not in ON_ERROR_CHOICES:
        raise CtxvecError(Errors.E215.format(on_error=on_error))

    def read(vocab: Vocab) -> Iterator[CorpusItem]:
        return iter_corpus(path, vocab, on_error=on_error)

    return read
