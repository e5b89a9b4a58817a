"""How the lexicon's parts are stored: .npy arrays plus JSON files in a directory, or
msgpack of .npy buffers in bytes; never pickle. Every failure becomes the caller's
coded error, naming the path."""

import io
import json
import reprlib
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, List, Optional, Sequence, Tuple, Type, TypeVar, Union

import numpy as np
import srsly

from ..data_files import read_npy, save_npy
from ..errors import CtxvecError
from ..ops.read_only import ReadOnlyArrays
from ..types import PathLike

# (source, problem) -> the caller's coded error
ErrorFactory = Callable[[str, str], CtxvecError]
BYTES_SOURCE = "<bytes>"


class KeyedRows(ReadOnlyArrays):
    """Sorted string ``keys`` with their positions: ``len``, ``in`` and ``index``."""

    keys: List[str]
    _index: Optional[Dict[str, int]] = None

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: object) -> bool:
        return self.index(key) is not None  # type: ignore[arg-type]

    def index(self, key: str) -> Optional[int]:
        """Position of ``key`` in ``keys``; None if absent."""
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self.keys)}
        return self._index.get(key)


ArrayT = TypeVar("ArrayT", bound="ArrayWithHeader")


class ArrayWithHeader(ReadOnlyArrays):
    """One array and one JSON header: ``ARRAY_NAME``.npy + ``HEADER_FILE`` on disk,
    msgpack (the header under "header") in bytes. A subclass gives ``_array``,
    ``_header``, ``_from_parts`` and its coded ``read_error``; it reads its own bytes."""

    ARRAY_NAME: ClassVar[str]
    HEADER_FILE: ClassVar[str]

    @staticmethod
    def read_error(source: str, problem: str) -> CtxvecError:
        raise NotImplementedError

    def _array(self) -> np.ndarray:
        raise NotImplementedError

    def _header(self) -> Dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _from_parts(cls: Type[ArrayT], header: Any, array: np.ndarray, source: str) -> ArrayT:
        raise NotImplementedError

    def to_disk(self, path: PathLike) -> None:
        save_parts(path, {self.ARRAY_NAME: self._array()}, {self.HEADER_FILE: self._header()})

    @classmethod
    def from_disk(cls: Type[ArrayT], path: PathLike) -> ArrayT:
        documents, arrays = load_parts(path, (cls.ARRAY_NAME,), (cls.HEADER_FILE,), cls.read_error)
        return cls._from_parts(documents[cls.HEADER_FILE], arrays[cls.ARRAY_NAME], str(path))

    def to_bytes(self) -> bytes:
        return parts_to_bytes({self.ARRAY_NAME: self._array()}, {"header": self._header()})


def check_header(header: Any, version: Union[int, Sequence[int]], bad: Callable[[str], CtxvecError]) -> Dict[str, Any]:
    """``header`` if it is a dict of this format version (or one of these), else ``bad(problem)``."""
    versions = (version,) if isinstance(version, int) else tuple(version)
    if not isinstance(header, dict) or header.get("format_version") not in versions:
        raise bad(f"unsupported format {str(header)[:200]}")
    return header


def check_strings(value: Any, file_name: str, bad: Callable[[str], CtxvecError]) -> List[str]:
    """``value`` if it is a list of strings, else ``bad(problem)`` naming ``file_name``."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise bad(f"{file_name} is not a list of strings")
    return value


def is_positive_number(value: Any) -> bool:
    """A finite int or float above 0 (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value)) and value > 0


def check_string_lists(value: Any, name: str, bad: Callable[[str], CtxvecError], entry: str) -> List[List[str]]:
    """``value`` as a list of lists of strings, else ``bad`` naming the first entry that is
    none (``entry`` says what one is)."""
    if not isinstance(value, list):
        raise bad(f"{name} is not a list of lists of strings ({entry})")
    for i, item in enumerate(value):
        if not (isinstance(item, list) and all(isinstance(text, str) for text in item)):
            raise bad(f"{name} is not a list of lists of strings: entry {i} is {reprlib.repr(item)} ({entry})")
    return value


def save_parts(path: PathLike, arrays: Dict[str, np.ndarray], documents: Dict[str, Any]) -> None:
    """``NAME.npy`` per array, then the JSON documents in the order given (put the
    header last, so that a directory with a header is complete)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        save_npy(path / f"{name}.npy", array)
    for file_name, value in documents.items():
        (path / file_name).write_text(json.dumps(value, ensure_ascii=False), encoding="utf8")


def load_parts(
    path: PathLike,
    array_names: Sequence[str],
    document_names: Sequence[str],
    error: ErrorFactory,
    *,
    mmap: bool = False,
    optional_arrays: Sequence[str] = (),
) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """(documents, arrays) saved by ``save_parts``; a missing file, invalid JSON or a
    damaged .npy is ``error(path, problem)``. ``optional_arrays`` may be absent (None)."""
    path = Path(path)
    wanted = tuple(document_names) + tuple(f"{name}.npy" for name in array_names)
    missing = [name for name in wanted if not (path / name).is_file()]
    if missing:
        raise error(str(path), f"missing {', '.join(missing)}")
    documents = {}
    for name in document_names:
        try:
            documents[name] = json.loads((path / name).read_text(encoding="utf8"))
        except (OSError, ValueError, RecursionError) as err:
            raise error(str(path), f"{name} is not valid JSON ({type(err).__name__})") from None
    arrays: Dict[str, Any] = {name: None for name in optional_arrays if not (path / f"{name}.npy").is_file()}
    for name in [*array_names, *(name for name in optional_arrays if name not in arrays)]:
        try:  # mapped first: a header claiming more than the file holds is an error, not a huge allocation
            arrays[name] = read_npy(path / f"{name}.npy", mmap=mmap)
        except ValueError as err:  # read_npy's for any damage, a damaged header too
            raise error(str(path), f"{name}.npy is truncated or not a .npy array ({str(err)[:120]})") from None
    return documents, arrays


def parts_to_bytes(arrays: Dict[str, np.ndarray], documents: Dict[str, Any]) -> bytes:
    buffers = {}
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
        buffers[name] = buffer.getvalue()
    return srsly.msgpack_dumps({**documents, "arrays": buffers})


def parts_from_bytes(
    data: bytes,
    array_names: Sequence[str],
    document_names: Sequence[str],
    error: ErrorFactory,
    *,
    what: str,
    optional: Sequence[str] = (),
    optional_arrays: Sequence[str] = (),
) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """(documents, arrays) from ``parts_to_bytes``; ``optional`` documents and
    ``optional_arrays`` may be absent (None)."""
    try:
        message = srsly.msgpack_loads(data)
        arrays = {name: np.load(io.BytesIO(message["arrays"][name]), allow_pickle=False) for name in array_names}
        arrays.update(
            {
                name: np.load(io.BytesIO(message["arrays"][name]), allow_pickle=False)
                if name in message["arrays"]
                else None
                for name in optional_arrays
            }
        )
        documents = {name: message[name] for name in document_names}
        documents.update({name: message.get(name) for name in optional})
    except Exception as err:  # msgpack, KeyError, TypeError, ValueError...: damaged bytes
        raise error(BYTES_SOURCE, f"damaged serialised {what} ({type(err).__name__})") from None
    return documents, arrays
