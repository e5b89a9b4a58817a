"""What an evaluation measured: the pipeline as given, its transformer model, how its
contextual vectors were made and where its static vectors come from, for every
`evaluate` report (JSON ``"pipeline"``, one line in the text output)."""

from importlib.metadata import PackageNotFoundError, version
from typing import Any, Dict, Optional

from spacy.language import Language

from ..component_names import context_name

# nlp.meta (meta.json) key of build-lexicon's record of how a pipeline's lexicon was built.
BUILD_META = "spacy_ctxvec_build"


def interpolated_config(nlp: Language) -> Any:
    """nlp.config with its variables filled in (``${paths.static_vectors}`` -> the path it
    names), for a record of what the pipeline reads; as it is where they cannot be filled."""
    try:
        return nlp.config.interpolate()
    except Exception:  # a variable without a value: the record shows it unfilled
        return nlp.config


def model_name(nlp: Language) -> Optional[str]:
    """[components.transformer.model.name]: a Hugging Face name or a folder (None without one)."""
    name = interpolated_config(nlp)["components"].get("transformer", {}).get("model", {}).get("name")
    if isinstance(name, dict):  # spacy-ctxvec.model_name.v1 {"name": ...}
        name = name.get("name")
    return None if name is None else str(name)


def static_source(nlp: Language) -> Optional[str]:
    """The registered source ctxvec_static was initialised from, with its file where it has
    one ("spacy-ctxvec.vectors_file.v1 vectors.txt"); None where the config does not say."""
    try:
        source = interpolated_config(nlp)["initialize"]["components"]["ctxvec_static"]["source"]
    except (KeyError, TypeError):
        return None
    if not isinstance(source, dict) or "@misc" not in source:
        return None
    path = source.get("path")
    return str(source["@misc"]) + ("" if path is None else f" {path}")


def pipeline_record(nlp: Language, given: str) -> Dict[str, Any]:
    """``given`` (the PIPELINE argument), the model, the contextual vectors' making (that of
    the last batch ctxvec_context ran: call after the evaluation), the static source, this
    package's version and build-lexicon's record of the lexicon (None without one)."""
    name = context_name(nlp)
    context = nlp.get_pipe(name) if name in nlp.pipe_names else None
    return {
        "pipeline": given,
        "model": model_name(nlp),
        "context_vectors": getattr(context, "vectors_label", None),
        "static_vectors": static_source(nlp),
        "spacy_ctxvec": installed_version("spacy-ctxvec"),
        "lexicon_build": nlp.meta.get(BUILD_META),
    }


def installed_version(distribution: str) -> Optional[str]:
    """The installed version of ``distribution`` (None: not installed, e.g. a source tree)."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def describe_record(record: Dict[str, Any]) -> str:
    """One line of a pipeline_record, the parts it knows."""
    names = (("model", "model"), ("context_vectors", "contextual"), ("static_vectors", "static"))
    parts = [f"{label}: {record[key]}" for key, label in names if record.get(key)]
    return f"Pipeline {record['pipeline']}" + (f" ({'; '.join(parts)})" if parts else "")
