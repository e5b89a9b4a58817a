"""Base class of the spacy-ctxvec components: a Pipe that annotates Docs one at a time."""
from typing import Iterable, Iterator, Sequence

import numpy as np
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.util import minibatch

from ..errors import CtxvecError, Errors

SUPPORTED_DTYPES = ("float32", "float16")


def vector_dtype(dtype: str) -> np.dtype:
    """The numpy dtype for a component's ``dtype`` setting; anything else is E005."""
    if dtype not in SUPPORTED_DTYPES:
        raise CtxvecError(Errors.E005.format(dtype=dtype))
    return np.dtype(dtype)


class DocAnnotator(Pipe):
    """__call__ and pipe over ``set_annotations``; subclasses implement that."""

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations([doc])
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        for docs in minibatch(stream, size=batch_size):
            self.set_annotations(docs)
            yield from docs

    def set_annotations(self, docs: Sequence[Doc]) -> None:  # type: ignore[override]
        raise NotImplementedError
