"""How ctxvec_polysemy looks a Doc's tokens up: its lexicon's (or senses') types in one
table by string hash, each token's row found at once, and the POLYSEMY_DTYPE records of
one Doc. The Doc's contextual vectors must be those the lexicon was built from: the same
width (E219 / E604) and, where both record it, the same layers, pooling and model (E043)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from spacy.attrs import LEMMA
from spacy.language import Language
from spacy.strings import get_string_id
from spacy.tokens import Doc

from ..attributes import (
    CONTEXT_ARRAY,
    CONTEXT_MASK,
    CONTEXT_SOURCE,
    POLYSEMY_DTYPE,
    check_same_tokens,
    stored_array,
    stored_values,
)
from ..building.shard import KEY_ATTRS
from ..component_names import context_name, context_names
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..lexicon.polysemy_probe import PolysemyProbe, type_polysemy_scores
from ..lexicon.statistics import CONTEXT_VECTORS_META, Lexicon
from ..ops.cosine import cosine_shift
from ..ops.fingerprint import vectors_differ
from ..ops.sense_labels import ENGLISH, LabelLanguage
from ..paths import composed as read_as_corpora
from .transformer import trained_listeners
from .transformer_lookup import find_transformer

# spaCy's languages written without spaces between words: their labels are read with the
# pipeline's tokenizer (a run of letters is a clause there, not a word).
UNSPACED_LANGUAGES = ("zh", "ja", "th")
# Languages that join an elided word to the next with an apostrophe ("l'homme", "aujourd'hui"): runs
# of letters cut "aujourd" out of "aujourd'hui"; their tokenizers part "l'" from "homme" and keep "aujourd'hui".
ELIDING_LANGUAGES = ("fr", "it", "ca")


def label_language(nlp: Optional[Language]) -> LabelLanguage:
    """The language of sense labels: English (scikit-learn's stop words) for English or a
    component outside a pipeline; else the pipeline's language: spaCy's stop words for it and,
    for a language written without spaces or with elisions, its tokenizer to split snippets into words (W082 for a
    language without stop words)."""
    if nlp is None or nlp.lang == "en":
        return ENGLISH
    split = TokenTexts(nlp.tokenizer) if nlp.lang in UNSPACED_LANGUAGES + ELIDING_LANGUAGES else None
    if not nlp.Defaults.stop_words:
        names = ", ".join(nlp.pipe_names)
        where = f"the pipeline ({names})" if names else "the pipeline"
        effect = "sense labels may be function words (der, die, das)"
        warn_at_user_line(Warnings.W082.format(lang=nlp.lang, where=where, effect=effect))
    return LabelLanguage(set(nlp.Defaults.stop_words), split)


class TokenTexts:
    """A pipeline tokenizer's token texts of a text (a class, not a closure: picklable)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> List[str]:
        """The token texts but an elided word the tokenizer did not keep whole: "presqu'" at the end of
        a snippet is split as "presqu" + "'", and "presqu" is no word."""
        tokens = list(self.tokenizer(text))
        return [
            token.text
            for token, after in zip(tokens, [*tokens[1:], None])
            if after is None or token.whitespace_ or after.text not in ("'", "\u2019")
        ]


def key_table(keys: Sequence[str], context_vectors: Optional[str] = None) -> Dict[str, Any]:
    """The string-store hashes of ``keys``, sorted, and each one's position in ``keys``;
    ``context_vectors``: how the vectors the keys' statistics come from were made (the
    lexicon's CONTEXT_VECTORS_META), checked against each Doc's (None: not checked)."""
    hashes = np.array([get_string_id(key) for key in keys], dtype=np.uint64)
    order = np.argsort(hashes)
    return {"hashes": hashes[order], "rows": order.astype(np.int64), "context_vectors": context_vectors}


def score_table(
    lexicon: Lexicon,
    probe: Optional[PolysemyProbe],
    min_count: int,
    score_definition: str,
    type_inputs: Optional[np.ndarray],
) -> Dict[str, Any]:
    """key_table of the lexicon's types with their scores (by ``score_definition``),
    counts and unit centroids: what polysemy_records reads."""
    scores, valid, source = type_polysemy_scores(lexicon, probe, min_count, score_definition, type_inputs)
    return {
        **key_table(lexicon.keys, lexicon.meta.get(CONTEXT_VECTORS_META)),
        "source": source,
        "scores": scores,
        "valid": valid,
        "counts": np.asarray(lexicon.counts),
        "unit_centroids": lexicon.unit_centroids(),
    }


# E218's pipeline where the component does not know its own (made outside a pipeline).
UNKNOWN_PIPELINE = "that made this Doc"


def pipeline_order(nlp: Optional[Language]) -> str:
    """E218's pipeline: its enabled components in order, and the disabled ones."""
    if nlp is None:
        return UNKNOWN_PIPELINE
    return str(nlp.pipe_names) + (f" (disabled: {nlp.disabled})" if nlp.disabled else "")


def check_context_before(nlp: Language, name: str) -> None:
    """E218 where no ctxvec_context comes before ``name`` in ``nlp`` (checked at initialize; disabled
    components count: spacy train initializes with its frozen ones disabled)."""
    names = nlp.component_names
    before = names[: names.index(name)] if name in names else []
    if name in names and not set(before) & set(context_names(nlp)):
        raise CtxvecError(Errors.E218.format(pipe_names=pipeline_order(nlp), name=name))


def checked_min_count(min_count: Any) -> int:
    """``min_count`` as a number ("5" as a config may pass it on: 5); E208 below 2 or not a number."""
    if isinstance(min_count, str) and min_count.strip().isdecimal():
        min_count = int(min_count)
    if isinstance(min_count, np.integer):
        min_count = int(min_count)
    if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 2:
        raise CtxvecError(Errors.E208.format(min_count=repr(min_count)))
    return min_count


def look_up(
    doc: Doc,
    table: Dict[str, Any],
    *,
    key: str,
    width: int,
    width_error: str,
    name: str,
    pipe_names: Any = UNKNOWN_PIPELINE,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(contextual vectors, mask, found, rows): each token's type looked up in ``table``
    (key_table) by ``key``. E218 without ctxvec_context's vectors, E042 when they were set
    for other tokens, ``width_error`` (E219 / E604) when their width is not ``width``,
    E043 when they were made from other layers, pooling or model than the table's."""
    vectors, mask = stored_array(doc, CONTEXT_ARRAY), stored_array(doc, CONTEXT_MASK)
    if vectors is None or mask is None:
        raise CtxvecError(Errors.E218.format(pipe_names=pipe_names, name=name))
    check_same_tokens(doc, name)
    if vectors.shape[1] != width:
        raise CtxvecError(width_error.format(lexicon_width=width, senses_width=width, pipeline_width=vectors.shape[1]))
    for made in stored_values(doc, CONTEXT_SOURCE):  # each part's, for a Doc joined by from_docs
        check_made_alike(table.get("context_vectors"), made, name)
    ids = doc.to_array(KEY_ATTRS[key]).astype(np.uint64)
    positions, found = _positions(table["hashes"], ids)
    if not found.all():  # "Tu\u0308r" typed with a combining mark: looked up composed, as corpora are read
        composed = composed_where_missing(doc, key, ids, ~found)
        if (composed != ids).any():
            positions, found = _positions(table["hashes"], composed)
    return vectors, np.asarray(mask, dtype=bool), found, table["rows"][positions]


def check_made_alike(expected: Optional[str], made: Optional[str], name: str, *, at_initialize: bool = False) -> None:
    """E043 where a lexicon's vectors (``expected``: its CONTEXT_VECTORS_META) were made from
    other layers, pooling or model than a Doc's (``made``: its ctxvec_context_source; with
    ``at_initialize``, those of pipeline_vectors_source); None: not known."""
    if expected is not None and made is not None and vectors_differ(expected, made):
        got = "is in a pipeline (checked at initialize) with" if at_initialize else "got a Doc with"
        whose = "the pipeline's" if at_initialize else "this Doc's"
        raise CtxvecError(Errors.E043.format(name=name, got=got, whose=whose, lexicon=expected, doc=made))


def check_pipeline_made_alike(nlp: Language, lexicon: Lexicon, name: str) -> None:
    """E043 at initialize where ``lexicon``'s vectors were made another way than those the
    pipeline gives component ``name`` (pipeline_vectors_source; not known: the first Doc checks)."""
    check_made_alike(
        lexicon.meta.get(CONTEXT_VECTORS_META), pipeline_vectors_source(nlp, name), name, at_initialize=True
    )


def warn_of_training(nlp: Language, name: str, *, built: bool) -> None:
    """W037 where training will change the transformer whose vectors the lexicon of ``name`` fits (``built``
    in initialize from a corpus, else given as lexicon_path): a listener fine-tunes it, or weight decay."""
    transformer, listeners = trained_listeners(nlp, context_name(nlp, name))
    if listeners:  # at the user's initialize() or spacy train, not inside spaCy
        how = "built its lexicon in initialize" if built else "was given a lexicon (lexicon_path) made"
        named = ", ".join(f"'{listener}'" for listener in listeners)
        warn_at_user_line(Warnings.W037.format(name=name, how=how, transformer=transformer, listeners=named))


def pipeline_vectors_source(nlp: Language, name: str) -> Optional[str]:
    """How the pipeline makes the contextual vectors ``name`` reads (doc._.ctxvec_context_source),
    from one short probe text (one sentence, for span getters that read sentences) run through
    the last enabled ctxvec_context before ``name`` (else the last disabled one: spacy train
    initializes with its frozen ones disabled) and the transformer it reads, alone: no other
    component runs, so none is called before it is initialized. None where that cannot run:
    the first Doc is checked still."""
    names, context = nlp.component_names, context_name(nlp, name)
    if name not in names or context not in names[: names.index(name)]:
        return None
    try:
        doc = nlp.make_doc("width probe")
        for token in doc:
            token.is_sent_start = token.i == 0
        for step in (find_transformer(nlp, context), context):
            doc = nlp.get_pipe(step)(doc)
    except Exception:  # noqa: BLE001 - a best-effort early check; the Docs are checked anyway
        return None
    made = stored_array(doc, CONTEXT_SOURCE)
    return made if isinstance(made, str) else None


def _positions(hashes: np.ndarray, ids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(each id's position in the sorted ``hashes``, clipped; whether it is there)."""
    positions = np.minimum(np.searchsorted(hashes, ids), len(hashes) - 1)
    return positions, hashes[positions] == ids


# The token attribute holding the string of each key mode (KEY_ATTRS holds its id).
KEY_TEXT = {"lower": "lower_", "text": "text", "lemma": "lemma_"}


def composed_where_missing(doc: Doc, key: str, ids: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """``ids``, with the id of the token's key as build-lexicon reads its corpora
    (``paths.composed``: NFC, invisible characters such as U+FEFF and U+200B dropped) where
    ``missing``: a text typed with combining marks, or with such a character inside a word,
    finds its words."""
    composed = ids.copy()
    for i in np.flatnonzero(missing).tolist():
        text = getattr(doc[i], KEY_TEXT[key])
        if not text.isascii():  # ASCII is as read already
            composed[i] = get_string_id(read_as_corpora(text))
    return composed


def polysemy_records(
    doc: Doc, table: Optional[Dict[str, Any]], *, key: str, name: str, pipe_names: Any = UNKNOWN_PIPELINE
) -> np.ndarray:
    """One POLYSEMY_DTYPE record per token of ``doc``: its type's score and count from
    ``table`` (score_table; None: nothing defined) and its shift from the type's centroid.
    ``pipe_names``: the component's pipeline, for E218."""
    records = np.zeros(len(doc), dtype=POLYSEMY_DTYPE)
    if len(doc) == 0:
        return records
    if table is None:  # nothing to look up, but a component placed before ctxvec_context says so now
        if stored_array(doc, CONTEXT_ARRAY) is None:
            raise CtxvecError(Errors.E218.format(pipe_names=pipe_names, name=name))
        return records
    width = table["unit_centroids"].shape[1]
    vectors, mask, found, rows = look_up(
        doc, table, key=key, width=width, width_error=Errors.E219, name=name, pipe_names=pipe_names
    )
    if key == "lemma" and (doc.to_array(LEMMA)[mask] == 0).any():  # no lemmatizer ran (once per Doc, here)
        warn_at_user_line(Warnings.W071.format(name=name))
    records["count"][found] = table["counts"][rows[found]]
    scored = found & table["valid"][rows]
    records["score"][scored] = table["scores"][rows[scored]]
    records["has_score"] = scored
    with_vector = scored & mask
    shift, defined = cosine_shift(vectors[with_vector], table["unit_centroids"][rows[with_vector]])
    records["shift"][with_vector] = shift
    records["has_shift"][with_vector] = defined
    return records


def lexicon_asked_for(nlp: Optional[Language], name: str) -> Optional[str]:
    """The setting of [initialize.components.NAME] that asks for a lexicon ("corpus" or
    "lexicon_path"), None where none does (a ${paths.lexicon} that is null asks for none): a
    frozen component's is never built (E273)."""
    if nlp is None:
        return None
    try:
        config = nlp.config.interpolate()
    except Exception:  # a variable confection cannot fill: the settings as written
        config = nlp.config
    asked = config.get("initialize", {}).get("components", {}).get(name, {})
    return next((setting for setting in ("corpus", "lexicon_path") if asked.get(setting)), None)
