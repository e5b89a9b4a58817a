"""Subword vectors of a static table, for words that are not keys: fastText
character n-grams (``FastTextNgrams``) or the mean of a transformer's wordpiece
input embeddings (``WordpieceMean``), and the transformer tokenizer's word-start
convention (``word_start_marker``). No spaCy import: strings in, arrays out."""

from typing import Any, Collection, Dict, List, Optional, Sequence, Set, Tuple, Union

import numpy as np

from ..errors import CtxvecError, Errors
from ..locks import forward_lock
from ..ops.pooling import pool_mean
from ..ops.read_only import ReadOnlyArrays, read_only

MAX_NGRAM_LENGTH = 64  # longest fastText character n-gram accepted (fastText's default maxn is 6)


class FastTextNgrams(ReadOnlyArrays):
    """fastText OOV vectors: the mean of the word's hashed character n-gram rows,
    hashed exactly like gensim's FastTextKeyedVectors (so OOV vectors agree)."""

    kind = "fasttext"

    def __init__(self, vectors_ngrams: np.ndarray, min_n: int, max_n: int, bucket: int) -> None:
        if not all(isinstance(n, (int, np.integer)) for n in (min_n, max_n, bucket)) or not (
            0 <= min_n <= MAX_NGRAM_LENGTH and 0 <= max_n <= MAX_NGRAM_LENGTH and bucket >= 0
        ):
            raise CtxvecError(Errors.E138.format(min_n=min_n, max_n=max_n, bucket=bucket, limit=MAX_NGRAM_LENGTH))
        if vectors_ngrams.ndim != 2 or vectors_ngrams.shape[0] != bucket:
            raise CtxvecError(
                Errors.E111.format(shape=vectors_ngrams.shape, bucket=bucket, dim=vectors_ngrams.shape[-1])
            )
        self.vectors_ngrams = read_only(vectors_ngrams)
        self.min_n = int(min_n)
        self.max_n = int(max_n)
        self.bucket = int(bucket)

    def vectors_for(self, texts: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """(vectors (n, dim), found (n,) bool); words without any n-gram are not found."""
        from gensim.models.fasttext import ft_ngram_hashes

        if self.bucket == 0:  # no n-gram rows: no word is found
            return np.zeros((len(texts), self.vectors_ngrams.shape[1]), dtype=np.float32), np.zeros(
                len(texts), dtype=bool
            )
        hashes = [ft_ngram_hashes(text, self.min_n, self.max_n, self.bucket) for text in texts]
        lengths = np.fromiter((len(h) for h in hashes), dtype=np.int64, count=len(hashes))
        flat = np.fromiter((h for word in hashes for h in word), dtype=np.int64, count=int(lengths.sum()))
        return pool_mean(np.asarray(self.vectors_ngrams[flat]), lengths), lengths > 0

    def cfg(self) -> Dict[str, Any]:
        return {"min_n": self.min_n, "max_n": self.max_n, "bucket": self.bucket}

    def arrays(self) -> Dict[str, np.ndarray]:
        return {"ngrams": self.vectors_ngrams}


class WordpieceMean(ReadOnlyArrays):
    """A transformer's static word vectors: the mean of the INPUT embedding rows of the
    word's wordpieces (no special tokens, no position/type embeddings). [UNK] pieces
    are left out of the mean; a word made only of [UNK] pieces is not found.

    A word is split as the model splits it in running text, after a space: byte-level
    BPE (GPT-2/RoBERTa, word-start marker "Ġ") and SentencePiece ("▁") tokenizers mark
    a word's first piece, so "bank" is read through its "Ġbank" row, not as "b an k"
    (a piece that is only the marker is left out). WordPiece tokenizers mark nothing."""

    kind = "wordpieces"

    def __init__(self, tokenizer: Any, embeddings: np.ndarray) -> None:
        self.tokenizer = tokenizer
        self.embeddings = read_only(embeddings)
        self.marker, first_word_marked = word_start_marker(tokenizer)
        # Without a marker (WordPiece) the word is tokenized as it is.
        self._prefix = "" if not self.marker or first_word_marked else " "
        self._dropped = {tokenizer.unk_token_id} | marker_only_ids(tokenizer, self.marker)

    def piece_ids(self, texts: Sequence[str]) -> List[List[int]]:
        """Wordpiece ids per text, without special tokens, [UNK] or marker-only pieces."""
        if not texts:
            return []
        texts = [self._prefix + text for text in texts] if self._prefix else list(texts)
        with forward_lock(self.tokenizer):  # it may be the transformer's own, busy in another thread
            encoded = self.tokenizer(texts, add_special_tokens=False)["input_ids"]
        dropped = self._dropped
        return [[i for i in ids if i not in dropped] for ids in encoded]

    def single_piece_words(
        self, vocab: Sequence[Tuple[str, int]], only: Optional[Collection[str]] = None
    ) -> List[Tuple[str, int]]:
        """The (word, id) pairs of the vocab entries (piece, id) that are one whole word in
        running text: the entries that tokenize to exactly themselves or, with a word-start
        marker, the marked entries' words ("Ġbank" -> "bank"). Unmarked entries there are
        word continuations ("ight"), not words. Given ``only``, just the words in it (the
        same pairs for those words; the rest of the vocab is not tokenized)."""
        if not self.marker:
            if only is not None:
                vocab = [(piece, idx) for piece, idx in vocab if piece in only]
            pieces = [piece for piece, _ in vocab]
            with forward_lock(self.tokenizer):
                encoded = self.tokenizer(pieces, add_special_tokens=False)["input_ids"] if pieces else []
            return [(piece, idx) for (piece, idx), ids in zip(vocab, encoded) if ids == [idx]]
        marked = [(piece, idx) for piece, idx in vocab if piece.startswith(self.marker)]
        words = [(piece_word(self.tokenizer, piece, self.marker), idx) for piece, idx in marked]
        words = [(word, idx) for word, idx in words if word and word == word.strip() and (only is None or word in only)]
        encoded = self.piece_ids([word for word, _ in words])
        return [(word, idx) for (word, idx), ids in zip(words, encoded) if ids == [idx]]

    def vectors_for(self, texts: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        ids = self.piece_ids(texts)
        lengths = np.fromiter((len(p) for p in ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter((i for pieces in ids for i in pieces), dtype=np.int64, count=int(lengths.sum()))
        return pool_mean(np.asarray(self.embeddings[flat]), lengths), lengths > 0

    def cfg(self) -> Dict[str, Any]:
        return {}

    def arrays(self) -> Dict[str, np.ndarray]:
        return {}  # the embeddings are the table's own vectors


Subwords = Union[FastTextNgrams, WordpieceMean]


def marker_only_ids(tokenizer: Any, marker: Optional[str] = None) -> Set[int]:
    """Ids of the vocab entries that are only the word-start ``marker`` (default: the
    tokenizer's, ``word_start_marker``), such as SentencePiece's lone "▁"; none without one."""
    marker = word_start_marker(tokenizer)[0] if marker is None else marker
    if not marker:
        return set()
    return {idx for piece, idx in tokenizer.get_vocab().items() if piece and not piece.replace(marker, "")}


def word_start_marker(tokenizer: Any) -> Tuple[str, bool]:
    """(the tokenizer's word-start marker, whether it marks the first word too), read
    from how it tokenizes "a b": "aĠb" is byte-level BPE ("Ġ", False; True with
    add_prefix_space), "▁a▁b" SentencePiece ("▁", True), "ab" WordPiece ("", False).
    A marker after the word (end-of-word suffixes) or none found gives ("", False)."""
    joined = "".join(tokenizer.tokenize("a b"))
    start = joined.find("a")
    end = joined.find("b", start + 1) if start >= 0 else -1
    if end < 0 or not joined.endswith("b"):
        return "", False
    marker = joined[start + 1 : end]
    if not marker or marker.strip() != marker or any(char.isascii() and char.isalnum() for char in marker):
        return "", False
    return marker, joined[:start] == marker


def piece_word(tokenizer: Any, piece: str, marker: str) -> str:
    """The text of a vocab entry marked with ``marker``, without its word-start space:
    "Ġbank" or "▁bank" -> "bank"; byte-level pieces are decoded, so a non-ASCII word
    gets its own text. Without a decoder the marker itself is cut off."""
    text = tokenizer.convert_tokens_to_string([piece])
    if text.startswith(marker):
        return text[len(marker) :]
    return text[1:] if text.startswith(" ") else text
