"""Which transformer component a ctxvec component reads (the last spacy-transformers
Transformer before it, enabled or not), and what to tell a user whose pipeline has none
there: one to add, one to move, or one of another library (spacy-curated-transformers)
that spacy-ctxvec cannot read."""

from typing import Any, FrozenSet, Iterable, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..attributes import CONTEXT_SOURCE
from ..errors import CtxvecError, Errors, Warnings, warn_at_user_line
from ..static.subwords import marker_only_ids


def last_transformer(pipeline: Iterable[Tuple[str, bool]], before: str) -> Optional[str]:
    """The last name flagged as a transformer in (name, is_transformer) pairs listed
    before ``before`` (all of them when ``before`` is not listed), or None."""
    found = None
    for pipe_name, is_transformer in pipeline:
        if pipe_name == before:
            break
        if is_transformer:
            found = pipe_name
    return found


def find_transformer(nlp: Language, before: str) -> str:
    """The name of the last transformer component before ``before`` (enabled or not)."""
    # Disabled ones too: spacy train initializes with its frozen components disabled.
    found = last_transformer(((name, _is_transformer(pipe)) for name, pipe in nlp.components), before)
    if found is None:
        raise CtxvecError(
            Errors.E008.format(name=before, pipe_names=nlp.pipe_names, fix=no_transformer_fix(nlp, before))
        )
    return found


def check_loaded(nlp: Language, transformer: str, reader: str) -> None:
    """E069 where ``transformer`` is disabled and has no model loaded (spaCy did not initialize it):
    E044/E117 said to call nlp.initialize() or to reorder the pipeline, which would not help."""
    model = getattr(nlp.get_pipe(transformer), "model", None)
    if transformer in nlp.disabled and getattr(model, "transformer", None) is None:
        raise CtxvecError(Errors.E069.format(transformer=transformer, name=f"'{reader}'"))


def no_transformer_fix(nlp: Language, before: str) -> str:
    """How to give ``before`` a transformer: move it after the one after it, replace
    spacy-curated-transformers' by spacy-transformers', or add one (under another name
    where "transformer" is taken)."""
    names = nlp.component_names  # disabled ones too
    position = names.index(before) if before in names else len(names)
    after = [name for name in names[position + 1 :] if _is_transformer(nlp.get_pipe(name))]
    if after:
        disabled = " and enable it (it is disabled)" if after[0] in nlp.disabled else ""
        return f"The transformer '{after[0]}' comes after it: move '{before}' after '{after[0]}'{disabled}."
    curated = [f"'{name}'" for name in names[:position] if _is_curated(type(nlp.get_pipe(name)))]
    if curated:
        return (
            f"{', '.join(curated)} is spacy-curated-transformers', whose output spacy-ctxvec cannot read: it reads "
            f"spacy-transformers' 'transformer' (or 'ctxvec_transformer') only. Add one of those before '{before}'."
        )
    if "transformer" in names:
        return (
            f"The component named 'transformer' is not spacy-transformers' Transformer: add one under another "
            f'name, nlp.add_pipe("ctxvec_transformer", name="trf", before="{before}").'
        )
    return (
        f'Add one with nlp.add_pipe("ctxvec_transformer", name="transformer", before="{before}") (the offline '
        'default model; spacy-transformers\' own "transformer" defaults to roberta-base from the Hugging Face hub), '
        f'or in a config list "transformer" before "{before}" in [nlp] pipeline, with its [components.transformer] '
        'block (factory = "ctxvec_transformer", as configs/default.cfg has).'
    )


def missing_trf_data_error(doc: Doc, nlp: Optional[Language], name: str) -> CtxvecError:
    """E066 for a Doc that has contextual vectors but no transformer output left (freed by
    drop_trf_data, or not kept by DocBin / to_bytes); else E001 with ``missing_trf_data_fix``."""
    if len(doc) and doc._.get(CONTEXT_SOURCE) is not None:
        return CtxvecError(Errors.E066.format(name=name))
    return CtxvecError(Errors.E001.format(name=name, fix=missing_trf_data_fix(nlp, name)))


def missing_trf_data_fix(nlp: Optional[Language], name: str) -> str:
    """E001's fix for component ``name`` running in ``nlp`` (None: a pipeline not known here,
    one it was sourced into, or none)."""
    if nlp is None:
        return (
            f'Run it through nlp(text) in a pipeline with a transformer before it (nlp.add_pipe("ctxvec_transformer", '
            f'name="transformer", before="{name}"), or add_pipe("transformer", source=...) where it was sourced as '
            "well); if that "
            "transformer is frozen during `spacy train`, add it to [training] annotating_components."
        )
    try:
        transformer = find_transformer(nlp, name)
    except CtxvecError:
        return no_transformer_fix(nlp, name)
    if transformer in nlp.disabled:
        return (
            f"The pipeline's transformer '{transformer}' is disabled: enable it (nlp.enable_pipe('{transformer}'), "
            f"or leave it out of disable=[...] in spacy.load), or disable '{name}' and the components after it as well."
        )
    return (
        f"The pipeline has the transformer '{transformer}', which did not run on this Doc: where a call left it out "
        f"(nlp.pipe(texts, disable=['{transformer}'])), leave '{name}' and the components after it out too, or "
        f"keep the transformer in; if it is frozen during `spacy train`, add it to [training] annotating_components "
        f"so that its output reaches '{name}'. Outside a pipeline, run nlp(text), not the component alone."
    )


def _is_transformer(pipe: Any) -> bool:
    from spacy_transformers import Transformer

    return isinstance(pipe, Transformer)


def _is_curated(kind: type) -> bool:
    """A component class of spacy-curated-transformers (its doc._.trf_data is its own kind)."""
    return kind.__module__.split(".")[0] in ("spacy_curated_transformers", "curated_transformers")


def unknown_piece_of(transformer: Any) -> Optional[Tuple[int, str]]:
    """(id, text) of the unknown piece of a transformer component's tokenizer ("[UNK]" for
    BERT's WordPiece); None where it has none (byte-level BPE reads every character)."""
    tokenizer = getattr(getattr(transformer, "model", None), "tokenizer", None)
    unk_id = getattr(tokenizer, "unk_token_id", None)
    return None if unk_id is None else (int(unk_id), str(getattr(tokenizer, "unk_token", "")))


def marker_only_pieces(transformer: Any) -> FrozenSet[int]:
    """Ids of the pieces of a transformer component's tokenizer that are only its word-start
    marker (SentencePiece's "▁", which it puts before an unknown character: "▁" + <unk>);
    none for a tokenizer without a marker (WordPiece) or without a tokenizer."""
    tokenizer = getattr(getattr(transformer, "model", None), "tokenizer", None)
    return frozenset() if tokenizer is None else frozenset(marker_only_ids(tokenizer))


def warn_if_not_thread_safe(nlp: Optional[Language], transformer_name: Optional[str], component: str) -> None:
    """W088 where the transformer ``component`` reads in ``nlp`` has spacy-transformers' own
    model, whose forward calls from two threads at once can run with dropout on (each
    switches the shared model to eval mode and back); the bucketed model runs them one at a time."""
    from .batching import BucketedTransformerModel

    if nlp is None or transformer_name not in nlp.component_names:
        return
    model = getattr(nlp.get_pipe(transformer_name), "model", None)
    if model is not None and not isinstance(model, BucketedTransformerModel):
        configured = nlp.config["components"].get(transformer_name, {}).get("model", {})
        architecture = configured.get("@architectures", type(model).__name__)
        warn_at_user_line(Warnings.W088.format(name=component, transformer=transformer_name, model=architecture))
