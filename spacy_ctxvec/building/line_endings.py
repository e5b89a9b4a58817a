"""Where the lines of a corpus file end: the local reader (building.corpus), the Ray
engine's datasource (building.ray_workers) and the hard-wrap check split files the same way."""

import io
from pathlib import Path
from typing import Any, Optional, Union

from ..paths import LINE_END_HEAD_BYTES as HEAD_BYTES
from ..paths import ends_lines_with_returns


def newline_for(head: bytes, suffix: str) -> Optional[str]:
    """The ``newline`` to open a corpus file with, judged on its first bytes ``head``.
    .jsonl: any line end (None). .txt: a line feed alone, so a stray carriage return does
    not split a document and line numbers are those of grep -n (parse_line strips a CR LF
    ending); unless the head holds more lone carriage returns than line feeds: then the
    lines end with carriage returns (classic Mac line ends), and with line feeds and CR LF
    pairs too (None: any line end; a file of mixed line ends)."""
    if suffix.lower() != ".txt":
        return None
    return None if ends_lines_with_returns(head) else "\n"


def file_newline(path: Union[str, Path]) -> Optional[str]:
    """``newline_for`` the file at ``path``."""
    with open(path, "rb") as file:
        return newline_for(file.read(HEAD_BYTES), Path(path).suffix)


class PrefixedStream(io.RawIOBase):
    """``head`` (bytes already read from ``rest``), then the rest of ``rest``: a stream
    whose first bytes were read to judge its line ends, read again from its start."""

    def __init__(self, head: bytes, rest: Any) -> None:
        self.head, self.rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            data, self.head = self.head[: len(buffer)], self.head[len(buffer) :]
        else:
            data = self.rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
