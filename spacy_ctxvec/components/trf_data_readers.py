"""Which components read doc._.trf_data after a ctxvec_context, so that it frees the
transformer output only where none does: in one pipeline (``trf_data_readers_after``), in
each pipeline that holds a component shared between pipelines (``readers_in``), and from the
record of the components it was last linked with (``linked_readers``)."""

from typing import Any, Callable, List, Optional, Sequence, Tuple

from spacy.language import Language
from thinc.api import Model

TRF_DATA = "doc._.trf_data"


def has_listener_layer(pipe: Any) -> bool:
    """Whether the component's model holds a TransformerListener (reads doc._.trf_data)."""
    from spacy_transformers.layers import TransformerListener

    model = getattr(pipe, "model", None)
    return isinstance(model, Model) and any(isinstance(node, TransformerListener) for node in model.walk())


def _requires(nlp: Language, pipe_name: str) -> List[str]:
    try:
        return list(nlp.get_pipe_meta(pipe_name).requires)
    except ValueError:  # a component without factory meta
        return []


def trf_data_readers_after(nlp: Language, name: str) -> List[str]:
    """The components after ``name`` that read doc._.trf_data before another
    transformer overwrites it: listeners registered on a transformer
    (listener_map), components whose model holds a TransformerListener, and
    components that declare ``requires=["doc._.trf_data"]``."""
    from spacy_transformers import Transformer

    names = [pipe_name for pipe_name, _ in nlp.pipeline]
    if name not in names:
        return []
    listening = {
        listener for _, pipe in nlp.pipeline if isinstance(pipe, Transformer) for listener in pipe.listener_map
    }
    readers = []
    for pipe_name, pipe in nlp.pipeline[names.index(name) + 1 :]:
        if isinstance(pipe, Transformer):
            break  # it writes new trf_data: later readers read that
        if pipe_name in listening or TRF_DATA in _requires(nlp, pipe_name) or has_listener_layer(pipe):
            readers.append(pipe_name)
    return readers


def linked_readers(linked: List[Tuple[str, int, str]]) -> List[str]:
    readers = []
    for name, _, kind in linked:
        if kind == "transformer":
            break  # later components read its trf_data
        if kind == "reader":
            readers.append(name)
    return readers


def pipeline_key(nlp: Language) -> Tuple[Any, ...]:
    """What trf_data_readers depends on: the running components and the listeners
    registered on transformers (spaCy links them at initialize and load)."""
    return tuple((name, id(pipe), tuple(getattr(pipe, "listener_map", ()))) for name, pipe in nlp.pipeline)


def readers_in(
    pipelines: Sequence[Language], component: Any, *, own: Optional[Language], kind: Callable[[Any], str]
) -> List[str]:
    """``trf_data_readers_after`` ``component`` in each of ``pipelines`` (under the name it has
    there), together: a component copied into several pipelines keeps trf_data for any of them.
    In a pipeline other than its ``own``, the components after it that ``kind`` calls "reader"
    count too (those whose reading is not known are kept rather than starved, as in ``linked_readers``)."""
    readers: List[str] = []
    for nlp in pipelines:
        running = [name for name, _ in nlp.pipeline]
        for name, pipe in nlp.components:
            if pipe is not component:
                continue
            found = trf_data_readers_after(nlp, name)
            if nlp is not own and name in running:
                after = nlp.pipeline[running.index(name) + 1 :]
                found += linked_readers([(other, id(later), kind(later)) for other, later in after])
            for reader in found:
                if reader not in readers:
                    readers.append(reader)
    return readers
