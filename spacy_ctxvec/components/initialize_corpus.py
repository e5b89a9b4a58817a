"""The corpus reader of ctxvec_polysemy's [initialize] block (a function of the Vocab that
yields texts or Docs, e.g. spacy-ctxvec.lexicon_corpus.v1), checked: a reader that is no
function, yields something else (bytes other than a Doc's doc.to_bytes()) or nothing is a
coded error, not a TypeError, srsly's "ExtraData" or an empty lexicon saved as a success; so is
another kind of registered function named there (a pooling, a static vectors source)."""

from typing import Any, Iterator

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..building.corpus import CorpusItem, check_tokens_read
from ..errors import CtxvecError, Errors


class InitializeCorpus:
    """The corpus reader of ctxvec_polysemy's [initialize] block (``name``: the component):
    called with the Vocab, its documents checked (E269) and counted."""

    def __init__(self, reader: Any, name: str) -> None:
        if not callable(reader):
            raise CtxvecError(Errors.E269.format(name=name, problem=f"is {type(reader).__name__}, not a function"))
        self.reader, self.name, self.n_docs = reader, name, 0

    def items(self, vocab: Vocab) -> Iterator[CorpusItem]:
        try:  # the call and iter() only: what the reader raises while it yields is its own
            documents = iter(self.reader(vocab))
        except (TypeError, AttributeError) as err:  # another registered function named here (a pooling, a source)
            problem = f"failed when called with the Vocab ({type(err).__name__}: {err})"
            # chained: where the reader itself has a bug, its traceback shows where
            raise CtxvecError(Errors.E269.format(name=self.name, problem=problem)) from err
        for item in documents:
            if isinstance(item, bytes):  # a Doc serialised with doc.to_bytes(), as nlp.pipe takes one
                item = self._doc_from_bytes(vocab, item)
            if not isinstance(item, (str, Doc)):
                problem = f"yielded {type(item).__name__} (document {self.n_docs + 1}), not a text or a Doc"
                raise CtxvecError(Errors.E269.format(name=self.name, problem=problem))
            self.n_docs += 1
            yield item

    def _doc_from_bytes(self, vocab: Vocab, data: bytes) -> Doc:
        try:
            return Doc(vocab).from_bytes(data)
        except Exception as err:  # srsly's ExtraData, a KeyError: whatever these bytes are, they are no Doc
            problem = f"yielded bytes that are not a Doc's doc.to_bytes() (document {self.n_docs + 1}: {err!r:.80})"
            raise CtxvecError(Errors.E269.format(name=self.name, problem=problem)) from err

    def check_read(self, n_tokens: int) -> None:
        """E269 where the reader yielded no document, E741 where no token got a vector."""
        if self.n_docs == 0:
            raise CtxvecError(Errors.E269.format(name=self.name, problem="yielded no document"))
        check_tokens_read(f"[initialize.components.{self.name}.corpus]", self.n_docs, n_tokens)
