"""Compare a word's static and contextual vectors across two texts."""

import itertools
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Collection, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc, Token

from ..attributes import CONTEXT_ARRAY, CONTEXT_SOURCE, STATIC_ARRAY, stored_array, stored_values
from ..building.corpus import has_visible
from ..component_names import context_name
from ..components.context import keep_trf_data
from ..components.transformer import wordpiece_alignment
from ..components.transformer_lookup import find_transformer, marker_only_pieces, unknown_piece_of
from ..errors import CtxvecError, Errors, Warnings
from ..evaluation.token_vectors import require_context_vectors
from ..locks import forward_lock
from ..ops.alignment import only_piece
from ..ops.cosine import cosine
from ..ops.fingerprint import pooling_of, vectors_differ
from ..ops.text import UNSPACED_SCRIPTS, holds_word, printable, shorten
from ..paths import composed
from ..pipelines import load_pipeline
from ..static.table import DEFAULT_LOOKUPS

# What `ctxvec_static` looks words up in, by the registered source of its initialize block.
TRANSFORMER_TABLE = "spacy-ctxvec.transformer_embeddings.v1"
# What each static source is, with {order}: how the component's lookups find a token's row.
STATIC_SOURCES = {
    TRANSFORMER_TABLE: "the transformer's input-embedding table (a word's row, looked up {order}), standing in for "
    "word2vec's table",
    "spacy-ctxvec.vectors_file.v1": "a vectors file's table (word2vec, GloVe or fastText; a token is looked up "
    "{order})",
}
LOOKUP_WORDS = {"exact": "as written", "lower": "in lower case", "norm": "by its norm"}
SUBWORDS_WORDS = {
    TRANSFORMER_TABLE: "the mean of its wordpiece rows",
    "spacy-ctxvec.vectors_file.v1": "from its character n-grams (fastText)",
}


def lookup_order(lookups: Sequence[str], source: Optional[str]) -> str:
    """How ``lookups`` find a token's row, in words: "as written, then in lower case, else the
    mean of its wordpiece rows: 'Apple' takes the row of 'apple' where only 'apple' is one wordpiece"."""
    keys = [LOOKUP_WORDS[lookup] for lookup in lookups if lookup in LOOKUP_WORDS]
    order = ", then ".join(keys)
    if "subwords" in lookups and source in SUBWORDS_WORDS:
        order = f"{order}, else {SUBWORDS_WORDS[source]}" if order else SUBWORDS_WORDS[source]
    if "lower" in lookups and "exact" not in lookups:
        order += ": 'Apple' and 'apple' share a row"
    elif "lower" in lookups:
        where = "is one wordpiece" if source == TRANSFORMER_TABLE else "has a row"
        order += f": 'Apple' takes the row of 'apple' where only 'apple' {where}"
    return order


@dataclass(frozen=True)
class WordComparison:
    word: str
    token_a: str
    index_a: int
    token_b: str
    index_b: int
    static_cosine: Optional[float]
    context_cosine: Optional[float]
    # The transformer read the token as its unknown piece alone ([UNK]): see unknown_tokens.
    unknown_a: bool = False
    unknown_b: bool = False

    def to_dict(self) -> Dict[str, object]:
        return asdict(self)


def _words(doc: Doc, *, punct: bool = False) -> Dict[str, List[Token]]:
    """The Doc's tokens by lower-case text; punctuation only with ``punct``; spaces and
    tokens of only invisible characters (a zero-width space) never."""
    found: Dict[str, List[Token]] = {}
    for token in doc:
        if not (token.is_space or (token.is_punct and not punct) or not has_visible(token.text)):
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


HINT_TOKEN_CHARS = 20  # a whole paragraph can be one token: the message names its start


def _unsplit_hint(*docs: Doc) -> str:
    """For E012/E013: the first token of several characters of a script written without
    spaces (Chinese, Japanese, Thai...), which this tokenizer did not split into words."""
    for doc in docs:
        for token in doc:
            hint = not_split_hint(token.text, doc.lang_) if len(token.text) > 1 else ""
            if hint:  # a Chinese pipeline's words of several characters are words
                return f" '{shorten(token.text, HINT_TOKEN_CHARS)}' is one token.{hint}"
    return ""


# What a word argument is for, by command: (its role, what the command does with it, an example)
WORD_ROLES = {
    "plot word": ("to plot", "`plot word` draws the occurrences of", "spacy-ctxvec plot word bank --sentences FILE"),
    "compare": ("of --word", "`compare --word` compares", "--word bank"),
    "senses": ("to show", "`senses` shows the senses of", "spacy-ctxvec senses PIPELINE bank"),
}


def check_word(word: str, command: str = "plot word", texts: Sequence[str] = ()) -> str:
    """The one word ``command`` (a key of WORD_ROLES) is given, without surrounding whitespace, ``composed``
    as texts are read (NFC): E414 empty, E415 several words (its example one of ``texts`` holds, if any)."""
    role, purpose, example = WORD_ROLES[command]
    check_utf8(word, f"The word {role}")
    words = word.split()
    if not words or not has_visible(word):
        what = "empty" if not word else "only whitespace" if not words else "only characters that do not show"
        raise CtxvecError(Errors.E414.format(role=role, what=what, purpose=purpose, example=example))
    if len(words) > 1:
        phrase, tokens = " ".join(words), ", ".join(words)
        example = max([w for w in words if any(holds_word(text, w) for text in texts)] or words, key=len)
        raise CtxvecError(
            Errors.E415.format(
                word=phrase, n=len(words), units="words", tokens=tokens, purpose=purpose, example=example
            )
        )
    return composed(words[0])


# Each script written without spaces: its name, and the spaCy languages whose tokenizers split it
# into words (none for some: every pipeline keeps a clause of it whole).
SCRIPT_LANGUAGES = {
    "CJK": ("Chinese or Japanese (CJK)", ("zh", "ja")),
    "HIRAGANA": ("Japanese hiragana", ("ja",)),
    "KATAKANA": ("Japanese katakana", ("ja",)),
    "THAI": ("Thai", ("th",)),
    "LAO": ("Lao", ()),
    "KHMER": ("Khmer", ()),
    "MYANMAR": ("Myanmar", ()),
}


# spaCy's Chinese tokenizer splits into characters unless told to segment words
CHINESE_WORDS = ' (for Chinese words, not characters: [nlp.tokenizer] segmenter = "jieba" or "pkuseg")'


def unspaced_word_hint(word: str, lang: str) -> str:
    """For E402: where ``word`` holds a script written without spaces that the pipeline's
    language does not split into words, why no token of the texts equals it."""
    found = unsplit_script(word, lang)
    if found is None:
        return ""
    name, use = found
    return (
        f" This pipeline's tokenizer (lang '{lang}') does not split {name} script into words, so "
        f"a clause of it is one token and '{word}' never stands alone: {use}."
    )


def not_split_hint(text: str, lang: str) -> str:
    """ " This pipeline's tokenizer (lang '...') does not split ... script into words: what to
    do." for the first script of ``text`` that ``lang`` does not split (``unsplit_script``); "" where none."""
    found = unsplit_script(text, lang)
    if found is None:
        return ""
    return f" This pipeline's tokenizer (lang '{lang}') does not split {found[0]} script into words: {found[1]}."


def unsplit_script(text: str, lang: str) -> Optional[Tuple[str, str]]:
    """(name, what to do) of the first script written without spaces in ``text`` that a
    tokenizer of language ``lang`` does not split into words; None where there is none."""
    scripts = [s for s in UNSPACED_SCRIPTS if any(unicodedata.name(c, "").startswith(s) for c in text)]
    unsplit = [s for s in scripts if lang not in SCRIPT_LANGUAGES[s][1]]
    if not unsplit:
        return None
    name, langs = SCRIPT_LANGUAGES[unsplit[0]]
    choice = " or ".join(f'"{code}"' for code in langs)
    use = (
        f"use a pipeline of that language ([nlp] lang = {choice}) with a transformer trained on it"
        + (CHINESE_WORDS if "zh" in langs else "")
        if langs
        else ("no spaCy language splits it into words: give texts with the word set apart by spaces")
    )
    return name, use


def _has_direction(vector: Optional[np.ndarray]) -> bool:
    """Whether ``vector`` is there and not all zeros (a table's zero row, W087: no cosine)."""
    return vector is not None and bool(vector.any())


def _pair(word: str, a: Token, b: Token, unknown: Tuple[Collection[int], Collection[int]]) -> WordComparison:
    static = None
    if a._.has_static_vec and b._.has_static_vec and _has_direction(a._.static_vec) and _has_direction(b._.static_vec):
        static = cosine(a._.static_vec, b._.static_vec)
    context = None
    if a._.has_context_vec and b._.has_context_vec:
        context = cosine(a._.context_vec, b._.context_vec)
    return WordComparison(word, a.text, a.i, b.text, b.i, static, context, a.i in unknown[0], b.i in unknown[1])


def compare_docs(
    doc_a: Doc,
    doc_b: Doc,
    word: Optional[str] = None,
    *,
    unknown: Tuple[Collection[int], Collection[int]] = ((), ()),
    max_rows: Optional[int] = None,
) -> List[WordComparison]:
    """One row per pair of occurrences (one in each Doc) of each shared word, or of ``word``,
    grouped by word in order of text A.

    Words match case-insensitively, one token each; punctuation is compared only when it
    is ``word``. Tokens without a vector get None, not NaN. ``unknown``: the indices of
    each Doc's tokens that the model read as its unknown piece (``unknown_tokens``), which
    the rows flag. ``max_rows``: at most that many rows (``count_pairs`` gives how many
    there are), each word's first pair kept before any word's further pairs.
    """
    check_max_rows(max_rows)
    check_comparable(doc_a, doc_b)
    words_a, words_b, shared = _shared_words(doc_a, doc_b, word)
    return [_pair(w, a, b, unknown) for w, a, b in _first_pairs(words_a, words_b, shared, max_rows)]


def check_comparable(doc_a: Doc, doc_b: Doc) -> None:
    """E061 where the two Docs' vectors of one kind were made differently: contextual vectors
    of other layers, pooling or model (as doc._.ctxvec_context_source names them), or vectors
    of another width."""
    made = [stored_values(doc, CONTEXT_SOURCE) for doc in (doc_a, doc_b)]
    for a, b in itertools.product(*made):
        if a is not None and b is not None and vectors_differ(a, b):
            raise CtxvecError(Errors.E061.format(what="contextual", a=a, b=b))
    for what, name in (("contextual", CONTEXT_ARRAY), ("static", STATIC_ARRAY)):
        arrays = [stored_array(doc, name) for doc in (doc_a, doc_b)]
        widths = [array.shape[1] for array in arrays if array is not None and array.ndim == 2 and len(array)]
        if len(set(widths)) == 2:
            raise CtxvecError(Errors.E061.format(what=what, a=f"width {widths[0]}", b=f"width {widths[1]}"))


def check_max_rows(max_rows: Optional[int]) -> None:
    """E228 for a ``max_rows`` below 0 (None: every row)."""
    if max_rows is not None and max_rows < 0:
        raise CtxvecError(Errors.E228.format(setting="max_rows", requirement="None or at least 0", value=max_rows))


def count_pairs(doc_a: Doc, doc_b: Doc, word: Optional[str] = None) -> int:
    """How many rows ``compare_docs`` gives without ``max_rows``: pairs of occurrences."""
    words_a, words_b, shared = _shared_words(doc_a, doc_b, word)
    return sum(len(words_a[w]) * len(words_b[w]) for w in shared)


def _first_pairs(
    words_a: Dict[str, List[Token]], words_b: Dict[str, List[Token]], shared: List[str], max_rows: Optional[int]
) -> Iterator[Tuple[str, Token, Token]]:
    """The pairs of ``shared`` words, grouped by word; with ``max_rows``, the first pair of
    each word (of the first max_rows words) and then further pairs while rows are left."""
    kept = shared if max_rows is None else shared[:max_rows]
    spare = None if max_rows is None else max_rows - len(kept)
    for w in kept:
        pairs = itertools.product(words_a[w], words_b[w])
        a, b = next(pairs)
        yield w, a, b
        for a, b in pairs if spare is None else itertools.islice(pairs, spare):
            spare = None if spare is None else spare - 1
            yield w, a, b


def _shared_words(
    doc_a: Doc, doc_b: Doc, word: Optional[str]
) -> Tuple[Dict[str, List[Token]], Dict[str, List[Token]], List[str]]:
    """Each Doc's tokens by lower-case text, and the words to compare (E012 / E013 when none)."""
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
    return words_a, words_b, shared


def static_source_name(nlp: Language) -> Optional[str]:
    """The registered source ``ctxvec_static`` was initialised from, or None if the config does not say."""
    try:
        source = nlp.config["initialize"]["components"]["ctxvec_static"]["source"]
    except (KeyError, TypeError):
        return None
    return source.get("@misc") if isinstance(source, dict) else None


def static_lookups(nlp: Language) -> Sequence[str]:
    """The lookups ctxvec_static's config names (its defaults where it names none)."""
    try:
        return tuple(nlp.config["components"]["ctxvec_static"]["lookups"])
    except (KeyError, TypeError):
        return DEFAULT_LOOKUPS


def legend(nlp: Language, doc: Optional[Doc] = None) -> List[str]:
    """Lines saying what the columns of a comparison table mean for this pipeline; with
    ``doc``, which layer its contextual vectors are (ctxvec_context's record on it)."""
    name = static_source_name(nlp)
    lookups = static_lookups(nlp)
    source = STATIC_SOURCES.get(name or "", "the pipeline's static lookup table").format(
        order=lookup_order(lookups, name)
    )
    made = doc._.get(CONTEXT_SOURCE) if doc is not None and Doc.has_extension(CONTEXT_SOURCE) else None
    how = f" ({pooling_of(made)})" if isinstance(made, str) and made else ""
    static = (
        f"static: {source}: one vector per word form, whatever the context "
        "(n/a: the table has no vector for the token, or an all-zero one)."
        if "ctxvec_static" in nlp.pipe_names
        else "static: n/a: this pipeline has no ctxvec_static component."
    )
    return [
        "(#N): the token's position in its text, counting from 0.",
        static,
        f"contextual: pooled from the transformer's output for this text{how}; it changes with the context "
        "(other layers give other cosines).",
    ]


# Pairs of words that a transformer's tokenizer may read as one: what it normalises away.
NORMALISED_PAIRS = (("lower-cased", "Apple", "apple"), ("without accents", "café", "cafe"))


def model_reading(nlp: Language) -> List[str]:
    """A legend line where the transformer that feeds ctxvec_context reads text lower-cased
    or without accents, so that both columns see such words as one (tokenizer_reading)."""
    pipe: Any = nlp.get_pipe(find_transformer(nlp, context_name(nlp)))
    tokenizer = getattr(pipe.model, "tokenizer", None)
    if tokenizer is None or not callable(tokenizer):
        return []
    # the static column reads the same table only where it is the transformer's own
    static_too = "ctxvec_static" in nlp.pipe_names and static_source_name(nlp) == TRANSFORMER_TABLE
    return tokenizer_reading(tokenizer, "in both columns" if static_too else "in the contextual column")


def tokenizer_reading(tokenizer: Any, columns: str = "in both columns") -> List[str]:
    """The legend line saying what a Hugging Face ``tokenizer`` normalises away (found by
    asking it: NORMALISED_PAIRS it reads as the same pieces), ``columns`` (which of compare's
    columns it holds for); [] where it reads text as written."""
    with forward_lock(tokenizer):
        same = [
            (how, a, b)
            for how, a, b in NORMALISED_PAIRS
            if tokenizer(a, add_special_tokens=False)["input_ids"]
            == tokenizer(b, add_special_tokens=False)["input_ids"]
        ]
    if not same:
        return []
    hows, pairs = " and ".join(how for how, _, _ in same), ", ".join(f"'{a}' and '{b}'" for _, a, b in same)
    return [f"This model reads text {hows}: {pairs} are one word to it, {columns}."]


# compare: texts are checked before the pipeline loads, echoed short, and run with their
# wordpieces kept, so that tokens the model cannot read (read as [UNK]) are flagged.
ECHO_CHARS = 200  # a longer text is echoed as its first ECHO_CHARS characters and its length


def echo(text: str, limit: int = ECHO_CHARS) -> str:
    """How compare shows a text: whole up to ``limit`` characters; else its first
    ``limit`` characters on one line (line breaks and runs of spaces as one space), "…"
    and its length, e.g. "We sat on … (61,440 characters)"; controls as escapes (``printable``)."""
    if len(text) <= limit:
        return printable(text)
    return f"{printable(' '.join(text[:limit].split()))}… ({len(text):,} characters)"


def check_texts(text_a: str, text_b: str) -> None:
    """E413 for an empty or whitespace-only text: it has no word to compare; E418 for one
    that is not UTF-8 (both checked before any model loads)."""
    for name, text in (("A", text_a), ("B", text_b)):
        if not text.strip():
            raise CtxvecError(Errors.E413.format(name=name, what="empty" if not text else "only whitespace"))
        check_utf8(text, f"Text {name}")


def check_utf8(text: str, what: str) -> None:
    """E418 where ``text`` holds a lone surrogate: a byte that was not UTF-8, as Python reads a
    command-line argument in a locale that is not UTF-8 (it cannot be hashed or tokenized)."""
    bad = next((character for character in text if "\ud800" <= character <= "\udfff"), None)
    if bad is not None:
        code = ord(bad)
        byte = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"the lone surrogate U+{code:04X}"
        raise CtxvecError(Errors.E418.format(what=what, byte=byte))


def unknown_piece(nlp: Language) -> Optional[Tuple[int, str]]:
    """(id, text) of the unknown piece of the tokenizer of the transformer that feeds
    ctxvec_context ("[UNK]" for BERT's WordPiece); None where it has none."""
    return unknown_piece_of(context_transformer(nlp))


def context_transformer(nlp: Language) -> Any:
    """The transformer component that feeds ctxvec_context."""
    return nlp.get_pipe(find_transformer(nlp, context_name(nlp)))


def unknown_tokens(doc: Doc, unk_id: int, ignored: Collection[int] = ()) -> List[int]:
    """Indices of the tokens whose every wordpiece, as the transformer read this Doc, is
    the unknown piece ``unk_id`` (or one of ``ignored``, the pieces that are only the
    word-start marker, but not only those) and that have a contextual vector: the model's vocabulary
    has nothing for them (an emoji, for BERT's WordPiece), so their vectors come from the
    context alone (a word read with a glued emoji as one such piece has none: CTX-W070).
    Read from doc._.trf_data; [] where it was dropped (run the pipeline in keep_trf_data)."""
    trf_data = doc._.get("trf_data") if Doc.has_extension("trf_data") else None
    if trf_data is None or trf_data.wordpieces is None or len(trf_data.align.lengths) != len(doc):
        return []
    pieces = wordpiece_alignment(trf_data)
    if pieces is None:
        return []
    flags = only_piece(*pieces, unk_id, ignored)
    return [i for i in np.flatnonzero(flags).tolist() if doc[i]._.has_context_vec]


@dataclass(frozen=True)
class Comparison:
    """What `spacy-ctxvec compare` prints: the rows, the legend, and the tokens of each
    text that the model read as its unknown piece (``unk``, e.g. "[UNK]")."""

    rows: List[WordComparison]
    legend: List[str]
    has_static: bool
    unk: str = ""
    unknown_a: List[str] = field(default_factory=list)
    unknown_b: List[str] = field(default_factory=list)
    total_pairs: int = 0  # rows without max_rows: more than len(rows) where they were cut
    # How the vectors were made: doc._.ctxvec_context_source, and ctxvec_static's registered source
    context_source: Optional[str] = None
    static_source: Optional[str] = None

    def to_dict(self, text_a: str, text_b: str) -> Dict[str, Any]:
        """What `compare --json` prints for the two texts."""
        return {
            "text_a": text_a,
            "text_b": text_b,
            "rows": [row.to_dict() for row in self.rows],
            "total_pairs": self.total_pairs,
            "context_source": self.context_source,
            "static_source": self.static_source,
            "unknown_tokens": {"text_a": self.unknown_a, "text_b": self.unknown_b},
        }

    def unknown_warning(self) -> Optional[str]:
        """W040 naming each token the model read as its unknown piece (once per text), or None."""
        tokens = [f"'{printable(t)}' (text A)" for t in dict.fromkeys(self.unknown_a)]
        tokens += [f"'{printable(t)}' (text B)" for t in dict.fromkeys(self.unknown_b)]
        return Warnings.W040.format(tokens=", ".join(tokens), unk=self.unk) if tokens else None


def compare_texts(
    text_a: str,
    text_b: str,
    word: Optional[str] = None,
    pipeline: Optional[Union[str, Path, Language]] = None,
    max_rows: Optional[int] = None,
) -> Comparison:
    """compare_docs of two texts run through ``pipeline`` (a loaded pipeline, or load_pipeline's argument),
    with the tokens the model read as [UNK] flagged, at most ``max_rows`` rows (None:
    all); the texts and ``word`` (one word, surrounding whitespace dropped) are checked first."""
    check_texts(text_a, text_b)
    check_max_rows(max_rows)  # before the pipeline loads
    word = None if word is None else check_word(word, "compare", (text_a, text_b))
    text_a, text_b = composed(text_a), composed(text_b)  # "ä" typed as "a" + U+0308 in one is "ä" in the other
    nlp = pipeline if isinstance(pipeline, Language) else load_pipeline(pipeline)
    require_context_vectors(nlp)
    with keep_trf_data(nlp, hidden_states=False):
        doc_a, doc_b = nlp(text_a), nlp(text_b)
    transformer = context_transformer(nlp)
    unk = unknown_piece_of(transformer)
    markers = marker_only_pieces(transformer) if unk else frozenset()
    unknown = (unknown_tokens(doc_a, unk[0], markers), unknown_tokens(doc_b, unk[0], markers)) if unk else ([], [])
    rows = compare_docs(doc_a, doc_b, word, unknown=unknown, max_rows=max_rows)
    return Comparison(
        rows,
        legend(nlp, doc_a) + model_reading(nlp),
        "ctxvec_static" in nlp.pipe_names,
        unk[1] if unk else "",
        [doc_a[i].text for i in unknown[0]],
        [doc_b[i].text for i in unknown[1]],
        count_pairs(doc_a, doc_b, word),
        doc_a._.get(CONTEXT_SOURCE),
        static_source_name(nlp),
    )
