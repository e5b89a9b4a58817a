"""Train word2vec vectors with gensim on a corpus (any format of the corpus reader).

Two tokenisations (``tokens``): "simple" (the default) lower-cases each document and
splits it into runs of letters and digits (regex ``[^\\W_]+``), so punctuation and
underscores drop out and "Don't" gives "don", "t"; "spacy" keeps the lower-cased tokens
of spaCy's tokenizer for ``lang`` (English by default: "mr.", "do", "n't", ","; a DocBin's own
tokens), the strings ctxvec_static looks up as ``lower``. A document longer than gensim's limit of
10,000 words per sentence is trained on in pieces of at most that many words (gensim would
silently cut it there and never train the words after). The output is word2vec text format
(binary with ``binary=True``), loadable with load_static_vectors or spacy-ctxvec.vectors_file.v1.
"""

import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterator, List

import spacy
from spacy.tokens import Doc

from ..building.bad_lines import skipped_line_warnings
from ..building.corpus import DEFAULT_ENCODING, CorpusReport, corpus_files, iter_corpus
from ..data_files import save_word2vec
from ..errors import CtxvecError, Errors
from ..terminal import stderr_printer
from ..types import PathLike

WORD_PATTERN = re.compile(r"[^\W_]+")


TOKENISATIONS = ("simple", "spacy")
# gensim's word2vec reads at most this many words of a sentence (MAX_WORDS_IN_BATCH) and drops the rest
MAX_WORDS_PER_SENTENCE = 10000


def simple_words(text: str) -> List[str]:
    """Lower-cased runs of letters and digits."""
    return WORD_PATTERN.findall(text.lower())


def spacy_words(doc: Doc) -> List[str]:
    """The Doc's tokens lower-cased (token.lower_), whitespace tokens left out."""
    return [token.lower_ for token in doc if not token.is_space]


class WordListCorpus:
    """Re-iterable stream of word lists, one per document of a corpus read by
    ``spacy_ctxvec.building.corpus.iter_corpus`` (the same formats as build-lexicon)."""

    def __init__(
        self,
        path: PathLike,
        *,
        encoding: str = DEFAULT_ENCODING,
        on_error: str = "raise",
        tokens: str = "simple",
        lang: str = "en",
    ) -> None:
        if tokens not in TOKENISATIONS:
            raise CtxvecError(Errors.E235.format(tokens=tokens, choices=", ".join(TOKENISATIONS)))
        self.path = Path(path)
        self.tokens = tokens
        # A coded error now for a missing, unsupported or binary corpus, an unknown encoding or on_error;
        # every pass (one per epoch) reads these files without listing the corpus again.
        self.files = corpus_files(self.path, encoding=encoding, on_error=on_error)
        self.encoding, self.on_error = encoding, on_error
        # The language's lexical attributes (LOWER, IS_SPACE): a bare Vocab() reads every token of a
        # DocBin or .jsonl "words" corpus as ""
        try:
            blank = spacy.blank(lang)
        except (ImportError, ValueError, KeyError) as err:  # unknown code, or a tokenizer's missing package
            raise CtxvecError(Errors.E143.format(lang=lang, error=str(err).strip().splitlines()[0])) from None
        self.vocab = blank.vocab
        self.tokenizer = blank.tokenizer if tokens == "spacy" else None
        self.report = CorpusReport()  # of the last pass: the bad lines skipped with on_error="skip"
        self.n_with_words = 0

    def __iter__(self) -> Iterator[List[str]]:
        self.report = CorpusReport()
        self.n_with_words = 0  # documents of the last pass with at least one word
        items = iter_corpus(
            self.path, self.vocab, on_error=self.on_error, report=self.report, encoding=self.encoding, files=self.files
        )
        for item in items:
            if self.tokenizer is None:
                words = simple_words(item.text if isinstance(item, Doc) else item)
            else:
                words = spacy_words(item if isinstance(item, Doc) else self.tokenizer(item))
            self.n_with_words += bool(words)
            for start in range(0, len(words), MAX_WORDS_PER_SENTENCE):
                yield words[start : start + MAX_WORDS_PER_SENTENCE]

    def check_not_empty(self) -> None:
        if next(iter(self), None) is not None:
            return
        if self.tokens == "simple" and self.report.n_docs:
            raise CtxvecError(Errors.E236.format(path=self.path, n_docs=self.report.n_docs))
        raise CtxvecError(Errors.E211.format(path=self.path))


def _progress(line: str) -> None:
    """A line on stderr as the training goes: stdout holds what the command made only."""
    print(line, file=sys.stderr, flush=True)


def _epoch_logger(n_epochs: int) -> Any:
    from gensim.models.callbacks import CallbackAny2Vec

    class EpochLogger(CallbackAny2Vec):
        """One line per finished epoch."""

        def __init__(self) -> None:
            self.epoch = 0
            self.started = time.perf_counter()

        def on_epoch_end(self, model: Any) -> None:
            self.epoch += 1
            elapsed = time.perf_counter() - self.started
            _progress(f"Epoch {self.epoch}/{n_epochs} done ({elapsed:.1f}s)")

    return EpochLogger()


def train_static_vectors(
    corpus: Path,
    output: Path,
    *,
    sg: bool = True,
    size: int = 100,
    window: int = 5,
    min_count: int = 5,
    epochs: int = 5,
    workers: int = 2,
    binary: bool = False,
    seed: int = 0,
    encoding: str = DEFAULT_ENCODING,
    on_error: str = "raise",
    tokens: str = "simple",
    lang: str = "en",
) -> Any:
    """Train gensim Word2Vec on a line corpus (decoded with ``encoding``; bad lines raise,
    or are skipped and reported with ``on_error="skip"``; ``tokens``: the tokenisation,
    module docstring, with ``lang``'s spaCy tokenizer for "spacy"), write word2vec format,
    return the KeyedVectors."""
    sentences = WordListCorpus(corpus, encoding=encoding, on_error=on_error, tokens=tokens, lang=lang)
    sentences.check_not_empty()
    from gensim.models import Word2Vec  # after the input check: gensim (and scipy) take a while to import

    model = Word2Vec(vector_size=size, window=window, min_count=min_count, sg=int(sg), workers=workers, seed=seed)
    model.build_vocab(sentences)
    if len(model.wv) == 0:
        raise CtxvecError(Errors.E122.format(path=corpus, min_count=min_count))
    read = sentences.report.n_docs  # of the vocabulary pass: lines without a word are not trained on
    documents = f"{sentences.n_with_words} documents"
    if read != sentences.n_with_words:
        documents += f" with a word (of {read} read)"
    _progress(
        stderr_printer().info(f"{documents}, {len(model.wv)} words with count >= {min_count} (--tokens {tokens})")
    )
    model.train(sentences, total_examples=model.corpus_count, epochs=epochs, callbacks=[_epoch_logger(epochs)])
    # filtered as any warning (PYTHONWARNINGS)
    for warning in skipped_line_warnings(sentences.report.skipped, encoding):
        warnings.warn(warning, stacklevel=2)
    save_word2vec(model.wv, output, binary=binary)
    return model.wv
