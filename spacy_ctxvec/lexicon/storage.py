"""How the lexicon's parts are stored: .npy arrays plus JSON files in a directory, or
msgpack of .npy buffers in bytes; never pickle. Every failure becomes the caller's
coded error, naming the path."""
import io
import json
from pathlib import Path
from typing import Any, Callable, Dict, Sequence, Tuple

import numpy as np
import srsly

from ..errors import CtxvecError
from ..types import PathLike

# (source, problem) -> the caller's coded error
ErrorFactory = Callable[[str, str], CtxvecError]
BYTES_SOURCE = "<bytes>"


def save_parts(path: PathLike, arrays: Dict[str, np.ndarray], documents: Dict[str, Any]) -> None:
    """``NAME.npy`` per array, then the JSON documents in the order given (put the
    header last, so that a directory with a header is complete)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        np.save(path / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
    for file_name, value in documents.items():
        (path / file_name).write_text(json.dumps(value, ensure_ascii=False), encoding="utf8")


def load_parts(
    path: PathLike, array_names: Sequence[str], document_names: Sequence[str], error: ErrorFactory, *, mmap: bool = False
) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """(documents, arrays) saved by ``save_parts``; a missing file, invalid JSON or a
    damaged .npy is ``error(path, problem)``."""
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
    arrays = {}
    for name in array_names:
        try:
            arrays[name] = np.load(path / f"{name}.npy", mmap_mode="r" if mmap else None, allow_pickle=False)
        except (OSError, ValueError, EOFError) as err:
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
    data: bytes, array_names: Sequence[str], document_names: Sequence[str], error: ErrorFactory, *, what: str,
    optional: Sequence[str] = (),
) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """(documents, arrays) from ``parts_to_bytes``; ``optional`` documents may be absent (None)."""
    try:
        message = srsly.msgpack_loads(data)
        arrays = {name: np.load(io.BytesIO(message["arrays"][name]), allow_pickle=False) for name in array_names}
        documents = {name: message[name] for name in document_names}
        documents.update({name: message.get(name) for name in optional})
    except Exception as err:  # msgpack, KeyError, TypeError, ValueError...: damaged bytes
        raise error(BYTES_SOURCE, f"damaged serialised {what} ({type(err).__name__})") from None
    return documents, arrays
