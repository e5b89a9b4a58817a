"""Compare a word's static and contextual vectors across two texts."""

from dataclasses import asdict, dataclass
from typing import Dict, List, Optional

from spacy.language import Language
from spacy.tokens import Doc, Token

from ..errors import CtxvecError, Errors
from ..ops.cosine import cosine

# What `ctxvec_static` looks words up in, by the registered source of its initialize block.
STATIC_SOURCES = {
    "spacy-ctxvec.transformer_embeddings.v1": (
        "the transformer's input-embedding table (mean of the word's wordpiece rows), standing in for word2vec's table"
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


def _words(doc: Doc) -> Dict[str, List[Token]]:
    found: Dict[str, List[Token]] = {}
    for token in doc:
        if not (token.is_punct or token.is_space):
            found.setdefault(token.lower_, []).append(token)
    return found


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

    Words match case-insensitively; tokens without a vector get None, not NaN.
    """
    words_a, words_b = _words(doc_a), _words(doc_b)
    if word is not None:
        key = word.lower()
        if key not in words_a or key not in words_b:
            found = f"in text A: {key in words_a}, in text B: {key in words_b}"
            raise CtxvecError(Errors.E012.format(word=word, found=found))
        shared = [key]
    else:
        shared = [w for w in words_a if w in words_b]
        if not shared:
            raise CtxvecError(Errors.E013)
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
        f"static: {source}: one vector per word form, whatever the context.",
        "contextual: pooled from the transformer's output for this text; it changes with the context.",
    ]
