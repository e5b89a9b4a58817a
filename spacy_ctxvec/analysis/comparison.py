"""Compare a word's static and contextual vectors across two texts."""

import unicodedata
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional

from spacy.language import Language
from spacy.tokens import Doc, Token

from ..errors import CtxvecError, Errors
from ..ops.cosine import cosine
from ..ops.text import shorten

# What `ctxvec_static` looks words up in, by the registered source of its initialize block.
STATIC_SOURCES = {
    "spacy-ctxvec.transformer_embeddings.v1": (
        "the transformer's input-embedding table (mean of the word's wordpiece rows; an uncased model lowercases "
        "first, so 'Apple' and 'apple' share a row), standing in for word2vec's table"
    ),
    "spacy-ctxvec.vectors_file.v1": "a vectors file's table (word2vec, GloVe or fastText)",
}


@dataclass(frozen=True)
class WordComparison:
    word: str
    token_a: str
    index_a: int
    token_b: str
    index_b: int
    static_cosine: Optional[float]
    context_cosine: Optional[float]

    def to_dict(self) -> Dict[str, object]:
        return asdict(self)


def _words(doc: Doc, *, punct: bool = False) -> Dict[str, List[Token]]:
    """The Doc's tokens by lower-case text; punctuation only with ``punct``, spaces never."""
    found: Dict[str, List[Token]] = {}
    for token in doc:
        if not (token.is_space or (token.is_punct and not punct)):
            found.setdefault(token.lower_, []).append(token)
    return found


def _occurs(doc: Doc, words: Dict[str, List[Token]], key: str) -> str:
    """How ``key`` occurs in ``doc``, for E012: "yes", "no", or the tokens spaCy split it into."""
    if key in words:
        return "yes"
    start = doc.text.lower().find(key)
    span = doc.char_span(start, start + len(key), alignment_mode="expand") if start >= 0 and key.strip() else None
    if span is not None and len(span) > 1:
        return "only split into the tokens " + " + ".join(f"'{token.text}'" for token in span)
    return "no"


# Scripts written without spaces between words: a tokenizer that splits at spaces keeps a
# whole clause of them as one token.
UNSPACED_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR")
HINT_TOKEN_CHARS = 20  # a whole paragraph can be one token: the message names its start


def _unsplit_hint(*docs: Doc) -> str:
    """For E012/E013: the first token of several characters of a script written without
    spaces (Chinese, Japanese, Thai...), which this tokenizer did not split into words."""
    for doc in docs:
        for token in doc:
            if len(token.text) > 1 and any(unicodedata.name(c, "").startswith(UNSPACED_SCRIPTS) for c in token.text):
                return (
                    f" '{shorten(token.text, HINT_TOKEN_CHARS)}' is one token: this pipeline's tokenizer "
                    f"(lang '{doc.lang_}') splits words at "
                    "spaces and punctuation. For Chinese, Japanese or Thai, use a pipeline of that language "
                    '([nlp] lang = "zh", "ja" or "th") with a transformer trained on it.'
                )
    return ""


def _pair(word: str, a: Token, b: Token) -> WordComparison:
    static = None
    if a._.static_vec is not None and b._.static_vec is not None and a._.has_static_vec and b._.has_static_vec:
        static = cosine(a._.static_vec, b._.static_vec)
    context = None
    if a._.has_context_vec and b._.has_context_vec:
        context = cosine(a._.context_vec, b._.context_vec)
    return WordComparison(word, a.text, a.i, b.text, b.i, static, context)


def compare_docs(doc_a: Doc, doc_b: Doc, word: Optional[str] = None) -> List[WordComparison]:
    """One row per pair of occurrences (one in each Doc) of each shared word, or of ``word``.

    Words match case-insensitively, one token each; punctuation is compared only when it
    is ``word``. Tokens without a vector get None, not NaN.
    """
    words_a, words_b = _words(doc_a, punct=word is not None), _words(doc_b, punct=word is not None)
    if word is not None:
        key = word.lower()
        if key not in words_a or key not in words_b:
            found = f"in text A: {_occurs(doc_a, words_a, key)}; in text B: {_occurs(doc_b, words_b, key)}"
            raise CtxvecError(Errors.E012.format(word=word, found=found, hint=_unsplit_hint(doc_a, doc_b)))
        shared = [key]
    else:
        shared = [w for w in words_a if w in words_b]
        if not shared:
            raise CtxvecError(Errors.E013.format(hint=_unsplit_hint(doc_a, doc_b)))
    return [_pair(w, a, b) for w in shared for a in words_a[w] for b in words_b[w]]


def static_source_name(nlp: Language) -> Optional[str]:
    """The registered source ``ctxvec_static`` was initialised from, or None if the config does not say."""
    try:
        source = nlp.config["initialize"]["components"]["ctxvec_static"]["source"]
    except (KeyError, TypeError):
        return None
    return source.get("@misc") if isinstance(source, dict) else None


def legend(nlp: Language) -> List[str]:
    """Lines saying what the columns of a comparison table mean for this pipeline."""
    source = STATIC_SOURCES.get(static_source_name(nlp) or "", "the pipeline's static lookup table")
    return [
        "(#N): the token's position in its text, counting from 0.",
        f"static: {source}: one vector per word form, whatever the context "
        "(n/a: the table has no vector for the token).",
        "contextual: pooled from the transformer's output for this text; it changes with the context.",
    ]
