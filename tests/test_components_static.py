"""The ctxvec_static component: sources, attributes, options, serialization, odd docs."""

import pickle
import re
import warnings

import numpy as np
import pytest
import spacy
import srsly
from gensim.models import KeyedVectors
from spacy.tokens import DocBin
from spacy.util import load_config, load_model_from_config
from torch import no_grad as torch_no_grad

from spacy_ctxvec import CtxvecError, StaticVectorTable
from spacy_ctxvec.attributes import STATIC_KEY_NAMES
from spacy_ctxvec.components.static import StaticVectors

from .conftest import CONFIGS, make_trf_nlp

ODD_TEXTS = ["", "   ", "\n\n", "😀", "東京は大きい", "a 😀 b\t\tc", "Apple."]


@pytest.fixture(scope="module")
def w2v_path(tmp_path_factory):
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["apple", "Bank", "river", "."], np.arange(12, dtype=np.float32).reshape(4, 3) + 1)
    path = tmp_path_factory.mktemp("w2v") / "small.txt"
    kv.save_word2vec_format(str(path))
    return path


def file_nlp(path, **component_config):
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static", config=component_config)
    nlp.config["initialize"]["components"]["ctxvec_static"] = {
        "source": {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(path)}
    }
    nlp.initialize()
    return nlp


@pytest.fixture(scope="module")
def w2v_nlp(w2v_path):
    return file_nlp(w2v_path)


@pytest.fixture(scope="module")
def trf_static_nlp(tiny_bert_dir):
    """tiny transformer + ctxvec_static (no source: the transformer's embeddings) + ctxvec_context."""
    return make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_static", "ctxvec_context"], window=8, stride=6)


def codes(doc):
    return [token._.static_vec_key for token in doc]


def test_vectors_file_source(w2v_nlp):
    doc = w2v_nlp("The River Bank bank kiwi .")
    assert codes(doc) == ["none", "lower", "exact", "none", "none", "exact"]
    assert doc._.ctxvec_static.shape == (6, 3) and doc._.ctxvec_static.dtype == np.float32
    assert doc._.ctxvec_static_keys.dtype == np.int8
    np.testing.assert_array_equal(doc[2]._.static_vec, [4, 5, 6])
    np.testing.assert_array_equal(doc[1]._.static_vec, [7, 8, 9])
    assert not doc[0]._.has_static_vec and not doc[0]._.static_vec.any()
    np.testing.assert_allclose(doc[1:3]._.static_vec, [5.5, 6.5, 7.5])


def test_a_batch_of_docs_of_several_vocabs_reads_each_in_its_own(w2v_nlp):
    """Strings were read in the first Doc's vocab: a Doc made with another vocab failed the
    whole batch (spaCy's E018), or not, by its place in the batch."""
    foreign = spacy.blank("en").make_doc("River qzxvbnw apple")  # 'qzxvbnw': in no other vocab
    own = [w2v_nlp.make_doc("The River Bank"), w2v_nlp.make_doc("apple .")]
    static = w2v_nlp.get_pipe("ctxvec_static")
    docs = list(static.pipe([own[0], foreign, own[1]], batch_size=3))
    assert [codes(doc) for doc in docs] == [["none", "lower", "exact"], ["lower", "none", "exact"], ["exact", "exact"]]


def test_norm_lookup_per_token(w2v_nlp):
    doc = w2v_nlp("rivers and rivers")
    doc[0].norm_ = "river"  # same text, different norms: looked up separately
    w2v_nlp.get_pipe("ctxvec_static")(doc)
    assert codes(doc) == ["norm", "none", "none"]
    np.testing.assert_array_equal(doc[0]._.static_vec, [7, 8, 9])


def test_default_source_is_the_transformer_embeddings(trf_static_nlp):
    assert trf_static_nlp.pipe_names == ["transformer", "ctxvec_static", "ctxvec_context"]
    doc = trf_static_nlp("I want an unbelievable Apple pen 😀")
    assert codes(doc) == ["lower", "exact", "exact", "subwords", "lower", "exact", "none"]
    pipe = trf_static_nlp.get_pipe("transformer")
    tokenizer = pipe.model.tokenizer
    embeddings = pipe.model.transformer.get_input_embeddings().weight.detach().numpy()
    pieces = tokenizer("unbelievable", add_special_tokens=False)["input_ids"]
    np.testing.assert_allclose(doc[3]._.static_vec, embeddings[pieces].mean(axis=0), rtol=1e-5, atol=1e-7)
    assert doc[3]._.context_vec is not None  # ctxvec_context still runs after it


def test_matches_table_lookup(trf_static_nlp):
    doc = trf_static_nlp("The bank of the river and the Bank loan")
    table = trf_static_nlp.get_pipe("ctxvec_static").table
    vectors, keys = table.lookup_batch([t.text for t in doc], [t.lower_ for t in doc], [t.norm_ for t in doc])
    np.testing.assert_array_equal(doc._.ctxvec_static, vectors)
    np.testing.assert_array_equal(doc._.ctxvec_static_keys, keys)


def test_options_dtype_and_lookups(w2v_path):
    nlp = file_nlp(w2v_path, dtype="float16", lookups=["exact"])
    doc = nlp("Bank bank")
    assert doc._.ctxvec_static.dtype == np.float16
    assert codes(doc) == ["exact", "none"]
    with pytest.raises(CtxvecError, match="E005"):
        spacy.blank("en").add_pipe("ctxvec_static", config={"dtype": "int8"})
    with pytest.raises(CtxvecError, match="E112"):
        spacy.blank("en").add_pipe("ctxvec_static", config={"lookups": ["exact", "lemma"]})
    with pytest.raises(CtxvecError, match="E120"):  # not every token silently zero
        spacy.blank("en").add_pipe("ctxvec_static", config={"lookups": []})


def test_the_default_tables_embeddings_cannot_be_changed_in_place(trf_static_nlp):
    """table.vectors was read-only, but the same memory was writable as subwords.embeddings:
    every later 'bank' read the values written there."""
    table = trf_static_nlp.get_pipe("ctxvec_static").table
    before = trf_static_nlp("bank")._.ctxvec_static.copy()
    for array in (table.vectors, table.subwords.embeddings):
        with pytest.raises(ValueError, match="read-only"):
            array[:] = 3.0
    np.testing.assert_array_equal(trf_static_nlp("bank")._.ctxvec_static, before)
    import pickle

    restored = pickle.loads(pickle.dumps(table))  # as an n_process worker gets it: still read-only
    for array in (restored.vectors, restored.subwords.embeddings):
        with pytest.raises(ValueError, match="read-only"):
            array[:] = 3.0
    np.testing.assert_array_equal(restored.lookup("bank")[0], table.lookup("bank")[0])


def test_two_static_components_warn_at_initialize(w2v_path):
    """A second ctxvec_static (lookups ["exact"]) silently replaced the first's vectors: "Banks"
    read key 'none' and a zero vector. W081, as W065 says it of two ctxvec_context."""
    nlp = spacy.blank("en")
    source = {"source": {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(w2v_path)}}
    for name, config in (("ctxvec_static", {}), ("exact_static", {"lookups": ["exact"]})):
        nlp.add_pipe("ctxvec_static", name=name, config=config)
        nlp.config["initialize"]["components"][name] = source
    with pytest.warns(UserWarning, match=r"\[CTX-W081\].*2 ctxvec_static components \(ctxvec_static, exact_static\)"):
        nlp.initialize()
    assert codes(nlp("bank")) == ["none"]  # the later one's lookups: what the warning says


def test_values_beyond_float16_are_e139_not_inf(tmp_path):
    """float16 holds +-65504: a larger value would read inf, and a Doc's mean NaN."""
    path = tmp_path / "big.txt"
    path.write_text("2 4\nfoo 1e6 2 3 4\nbar -70000 1 1 4\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E139\].*1e\+06 \(key 'foo'\).*dtype = \"float32\""):
        file_nlp(path, dtype="float16")
    wide = file_nlp(path)  # float32 holds them
    doc = wide("foo bar")
    assert np.isfinite(doc._.static_vec).all() and doc[0]._.static_vec[0] == 1e6
    wide.to_disk(tmp_path / "saved")
    with pytest.raises(CtxvecError, match=r"\[CTX-E139\]"):
        spacy.load(tmp_path / "saved", config={"components": {"ctxvec_static": {"dtype": "float16"}}})


def test_rows_too_small_for_float16_are_e142_not_zero_vectors(tmp_path):
    """A row of values below float16's smallest (about 3e-8) became a zero vector that was
    still found ('exact', has_static_vec True): its cosines went to 0 without a word."""
    path = tmp_path / "small.txt"
    path.write_text("3 2\nfoo 1 2\ntiny 2e-8 -1e-8\nsmall 1e-6 1e-6\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E142\].*float16.*1 row\(s\).*key 'tiny', largest value 2e-08"):
        file_nlp(path, dtype="float16")
    doc = file_nlp(path)("tiny small")
    assert doc[0]._.static_vec.any() and doc[1]._.has_static_vec


def test_errors_before_and_during_initialize(tmp_path, monkeypatch):
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    with pytest.raises(CtxvecError, match=r"E114.*initialize\.components\.ctxvec_static\.source") as raised:
        nlp("no table yet")
    # its advice, run as printed (it said initialize(nlp=nlp), which takes the transformer's embeddings, not a file)
    advice = re.search(r"`(nlp\.get_pipe.*?)`", str(raised.value))[1]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vectors.txt").write_text("1 2\nyet 0.5 0.25\n", encoding="utf8")
    exec(advice, {"nlp": nlp, "spacy": spacy})  # noqa: S102 - the message's own code
    assert nlp("no table yet")[2]._.static_vec.tolist() == [0.5, 0.25]
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    with pytest.raises(CtxvecError, match=r"\[CTX-E008\].*source"):
        nlp.initialize()
    with pytest.raises(CtxvecError, match=r"E118.*returned str"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=lambda nlp: "not a table")
    with pytest.raises(CtxvecError, match=r"E118\] The static vectors source for 'ctxvec_static' is list, not a"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=["not", "a", "source"])  # a bare TypeError
    from spacy_ctxvec.ops.pooling import pool_mean

    with pytest.raises(CtxvecError, match=r"E118\] .* raised TypeError when called with nlp \(pool_mean\(\) missing"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=pool_mean)  # a pooling named as the source

    def source_with_a_bug(nlp):
        return [[1.0, 0.0]].T  # a user's own source: its error is kept as the cause, traceback and all

    with pytest.raises(CtxvecError, match=r"E118\] .* raised AttributeError") as raised:
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=source_with_a_bug)
    assert isinstance(raised.value.__cause__, AttributeError)
    keyed = KeyedVectors(vector_size=2)
    keyed.add_vectors(["apple"], [[1.0, 0.0]])
    with pytest.raises(CtxvecError, match=r"returned KeyedVectors.*StaticVectorTable.from_keyed_vectors\(kv\)"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=lambda nlp: keyed)


@spacy.registry.misc("test-ctxvec.nan_source.v1")
def nan_source():
    """A user's static source whose file held a NaN (a bad row of a hand-made table)."""

    def source(nlp):
        return StaticVectorTable(["apple", "pear"], np.array([[1.0, 0.0], [np.nan, 1.0]], dtype=np.float32))

    return source


def test_a_source_returning_nan_is_refused_at_initialize_naming_it(tmp_path):
    """It was saved with NaN static vectors, and the saved pipeline then failed to load as
    "damaged" (E134, whose advice to save it again changed nothing)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    nlp.config["initialize"]["components"]["ctxvec_static"] = {"source": {"@misc": "test-ctxvec.nan_source.v1"}}
    with pytest.raises(
        CtxvecError, match=r"E141\].*\(nan_source.<locals>.source; \[initialize.*names test-ctxvec.nan_source.v1\)"
    ):
        nlp.initialize()
    with pytest.raises(CtxvecError, match=r"\[CTX-E141\]"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=lambda nlp: nan_source()(nlp))


def test_a_source_table_no_token_can_use_is_refused_and_a_subwords_only_lookup_warned():
    """A source of one's own got no check the file readers make: an empty table or one of width 0
    was saved and every token got "none" (or a vector of shape (0,) marked found); bytes keys became
    "b'apple'"; lookups = ["subwords"] on a table without subwords gave every token "none", silently."""
    nlp = spacy.blank("en")
    component = nlp.add_pipe("ctxvec_static")
    for keys, vectors, problem in [([], np.zeros((0, 3)), "of no words"), (["apple"], np.zeros((1, 0)), "of width 0")]:
        with pytest.raises(CtxvecError, match=rf"\[CTX-E146\].*returned a table {problem}"):
            table = StaticVectorTable(keys, vectors)
            component.initialize(nlp=nlp, source=lambda nlp: table)  # noqa: B023  # called here, in the loop
    component.initialize(nlp=nlp, source=lambda nlp: StaticVectorTable([b"apple"], [[1.0, 2.0]]))  # rows as a list
    assert nlp("apple")[0]._.static_vec.tolist() == [1.0, 2.0]
    only_subwords = spacy.blank("en")
    only_subwords.add_pipe("ctxvec_static", config={"lookups": ["subwords"]})
    with pytest.warns(UserWarning, match=r"\[CTX-W089\].*looks tokens up by \['subwords'\] only") as said:
        only_subwords.get_pipe("ctxvec_static").initialize(
            nlp=only_subwords, source=lambda nlp: StaticVectorTable(["apple"], np.ones((1, 2)))
        )
    assert [w.filename for w in said if "W089" in str(w.message)] == [__file__]
    assert only_subwords("apple")[0]._.static_vec_key == "none"


def test_a_table_of_sense_vectors_warns_that_no_token_can_find_its_keys(tmp_path):
    """export-static --senses's file (keys 'bank|0') given as static vectors: every token got "none",
    with no word said."""
    from spacy_ctxvec.static.sources import configure_vectors_file

    senses, words = tmp_path / "senses.txt", tmp_path / "words.txt"
    senses.write_text("2 2\nbank|0 1 2\nbank|1 3 4\n", encoding="utf8")
    words.write_text("2 2\nbank 1 2\nriver|side 3 4\n", encoding="utf8")  # a word with '|' is a word
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    with pytest.warns(UserWarning, match=r"\[CTX-W093\] The table of 'ctxvec_static' holds sense vectors.*'bank\|0'"):
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=configure_vectors_file(senses))
    assert nlp("bank")[0]._.static_vec_key == "none"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp.get_pipe("ctxvec_static").initialize(nlp=nlp, source=configure_vectors_file(words))
    assert nlp("bank")[0]._.static_vec_key == "exact"


def test_a_warning_under_spacy_assemble_points_at_the_command_not_at_typer(tmp_path):
    """W089 (and every warning at the user's line) under `spacy assemble` named typer/main.py."""
    import subprocess
    import sys

    (tmp_path / "v.txt").write_text("2 2\napple 1 2\npear 3 4\n", encoding="utf8")
    config = spacy.blank("en").config
    config["nlp"]["pipeline"] = ["ctxvec_static"]
    config["components"] = {"ctxvec_static": {"factory": "ctxvec_static", "lookups": ["subwords"]}}
    source = {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(tmp_path / "v.txt")}
    config["initialize"]["components"] = {"ctxvec_static": {"source": source}}
    config.to_disk(tmp_path / "config.cfg")
    command = [sys.executable, "-m", "spacy", "assemble", str(tmp_path / "config.cfg"), str(tmp_path / "out")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    (warned,) = [line for line in done.stderr.splitlines() if "[CTX-W089]" in line]
    assert done.returncode == 0 and "typer" not in warned and "click" not in warned, warned


def test_odd_docs(w2v_nlp, trf_static_nlp):
    for nlp in (w2v_nlp, trf_static_nlp):
        for text in ODD_TEXTS:
            doc = nlp(text)
            vectors = doc._.ctxvec_static
            assert vectors.shape[0] == len(doc) and np.isfinite(vectors).all()
            for token in doc:
                if token.is_space or token.text == "😀":
                    assert token._.static_vec_key == "none" and not token._.static_vec.any()
    assert [d._.ctxvec_static.shape for d in trf_static_nlp.pipe(["", "a b"])] == [(0, 32), (2, 32)]


def pipeline_round_trip(nlp, tmp_path):
    nlp.to_disk(tmp_path / "pipeline")
    from_disk = spacy.load(tmp_path / "pipeline")
    from_bytes = spacy.blank("en")
    for name in nlp.pipe_names:
        config = {key: value for key, value in nlp.config["components"][name].items() if key != "factory"}
        from_bytes.add_pipe(nlp.get_pipe_meta(name).factory, name=name, config=config)
    from_bytes.from_bytes(nlp.to_bytes())
    return from_disk, from_bytes


@pytest.mark.parametrize("which", ["w2v_nlp", "trf_static_nlp"])
def test_pipeline_disk_and_bytes_round_trips(request, tmp_path, which):
    nlp = request.getfixturevalue(which)
    text = "The river Bank unbelievable 東京 😀 ."
    expected = nlp(text)
    for loaded in pipeline_round_trip(nlp, tmp_path):
        doc = loaded(text)
        np.testing.assert_array_equal(doc._.ctxvec_static, expected._.ctxvec_static)
        np.testing.assert_array_equal(doc._.ctxvec_static_keys, expected._.ctxvec_static_keys)
    data_dir = tmp_path / "pipeline" / "ctxvec_static"
    table = spacy.load(tmp_path / "pipeline").get_pipe("ctxvec_static").table
    # A vectors file is memory-mapped; the transformer's embeddings are read from the loaded transformer.
    assert isinstance(table.vectors, np.memmap) == (which == "w2v_nlp")
    assert all(not f.read_bytes().startswith(b"\x80") for f in data_dir.rglob("*") if f.is_file())
    assert {f.suffix for f in data_dir.rglob("*") if f.is_file()} <= {".npy", ".json", ".txt"}


def test_transformer_embeddings_are_saved_once(trf_static_nlp, tmp_path):
    trf_static_nlp.to_disk(tmp_path / "pipeline")
    saved = tmp_path / "pipeline" / "ctxvec_static"
    assert srsly.read_json(saved / "cfg.json")["table_from_transformer"]["transformer"] == "transformer"
    assert not (saved / "table" / "vectors.npy").exists() and not (saved / "table" / "tokenizer").exists()
    loaded = spacy.load(tmp_path / "pipeline")
    table, transformer = loaded.get_pipe("ctxvec_static").table, loaded.get_pipe("transformer").model
    np.testing.assert_array_equal(table.vectors, transformer.transformer.get_input_embeddings().weight.detach().numpy())
    assert table.subwords.tokenizer is transformer.tokenizer
    loaded.to_disk(tmp_path / "again")  # still the transformer's: still saved once
    assert not (tmp_path / "again" / "ctxvec_static" / "table" / "vectors.npy").exists()
    text = "The river Bank unbelievable"
    static_only = spacy.load(tmp_path / "pipeline", disable=["transformer", "ctxvec_context"])
    np.testing.assert_array_equal(static_only(text)._.ctxvec_static, trf_static_nlp(text)._.ctxvec_static)
    with pytest.raises(CtxvecError, match=r"E140.*disable=\['transformer', 'ctxvec_context'\]"):
        spacy.load(tmp_path / "pipeline", exclude=["transformer"])  # the advice is the load above, which works
    # to_bytes too (nlp.to_bytes, build-lexicon --n-process): the transformer's bytes hold them
    data = trf_static_nlp.get_pipe("ctxvec_static").to_bytes()
    assert len(data) < table.vectors.nbytes / 4 and "table_from_transformer" in srsly.msgpack_loads(data)
    (tmp_path / "bytes").mkdir()
    _, from_bytes = pipeline_round_trip(trf_static_nlp, tmp_path / "bytes")
    np.testing.assert_array_equal(from_bytes(text)._.ctxvec_static, trf_static_nlp(text)._.ctxvec_static)
    with pytest.raises(CtxvecError, match="E140.*outside a pipeline"):
        StaticVectors().from_bytes(data)


def test_table_that_differs_from_the_transformer_is_saved_whole(tiny_bert_dir, tmp_path):
    nlp = make_trf_nlp(str(tiny_bert_dir), components=["ctxvec_static"], window=8, stride=6)
    before = nlp("unbelievable river")._.ctxvec_static.copy()
    weight = nlp.get_pipe("transformer").model.transformer.get_input_embeddings().weight
    with torch_no_grad():
        weight += 1.0  # the transformer moves on (e.g. training); the static table stays as initialized
    nlp.to_disk(tmp_path / "pipeline")
    assert (tmp_path / "pipeline" / "ctxvec_static" / "table" / "vectors.npy").exists()
    np.testing.assert_array_equal(spacy.load(tmp_path / "pipeline")("unbelievable river")._.ctxvec_static, before)


def test_transformer_that_is_not_the_saved_one_is_e140(trf_static_nlp, tmp_path):
    trf_static_nlp.to_disk(tmp_path / "pipeline")
    saved = tmp_path / "pipeline" / "ctxvec_static"
    cfg = srsly.read_json(saved / "cfg.json")
    with pytest.raises(CtxvecError, match="E140.*outside a pipeline"):
        StaticVectors().from_disk(saved)
    cfg["table_from_transformer"]["fingerprint"] = "0" * 16
    srsly.write_json(saved / "cfg.json", cfg)
    with pytest.raises(CtxvecError, match="E140.*not the ones saved with it"):
        spacy.load(tmp_path / "pipeline")


def test_uninitialized_component_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    nlp.to_disk(tmp_path / "empty")
    loaded = spacy.load(tmp_path / "empty")
    assert loaded.get_pipe("ctxvec_static").table is None
    reloaded = spacy.blank("en")
    reloaded.add_pipe("ctxvec_static").from_bytes(nlp.get_pipe("ctxvec_static").to_bytes())
    assert reloaded.get_pipe("ctxvec_static").table is None


def test_doc_pickle_and_docbin_keep_static_vectors(w2v_nlp):
    docs = list(w2v_nlp.pipe(["The river Bank", "bank . kiwi", ""]))
    for doc in docs:
        unpickled = pickle.loads(pickle.dumps(doc))
        np.testing.assert_array_equal(unpickled._.ctxvec_static, doc._.ctxvec_static)
        assert codes(unpickled) == codes(doc)
    doc_bin = DocBin(store_user_data=True, docs=docs)
    restored = list(DocBin().from_bytes(doc_bin.to_bytes()).get_docs(w2v_nlp.vocab))
    for doc, back in zip(docs, restored):
        np.testing.assert_array_equal(back._.ctxvec_static, doc._.ctxvec_static)
        np.testing.assert_array_equal(back._.ctxvec_static_keys, doc._.ctxvec_static_keys)
        assert [t._.static_vec_key for t in back] == codes(doc)


def test_word2vec_config_assembles_and_loads(tmp_path, tiny_bert_dir, w2v_path):
    config = load_config(CONFIGS / "word2vec.cfg", overrides={"paths.static_vectors": str(w2v_path)})
    model = config["components"]["transformer"]["model"]
    model["name"] = str(tiny_bert_dir)
    model["get_spans"].update({"window": 8, "stride": 6})
    nlp = load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    assert nlp.pipe_names == ["transformer", "ctxvec_static", "ctxvec_context"]
    nlp.to_disk(tmp_path / "w2v_pipeline")
    doc = spacy.load(tmp_path / "w2v_pipeline")("The river Bank")
    assert codes(doc) == ["none", "exact", "exact"]
    assert doc._.ctxvec_static.shape == (3, 3) and doc._.ctxvec_context.shape == (3, 32)
    from spacy_ctxvec.evaluation.provenance import static_source

    # evaluate's record names the file, not the variable (was "... ${paths.static_vectors}")
    assert static_source(spacy.load(tmp_path / "w2v_pipeline")) == f"spacy-ctxvec.vectors_file.v1 {w2v_path}"


@pytest.mark.slow
def test_default_pipeline_static_vectors_are_context_free(default_nlp):
    names = default_nlp.pipe_names
    assert names.index("transformer") < names.index("ctxvec_static") < names.index("ctxvec_context")
    first = default_nlp("I ate an apple with my lunch.")
    second = default_nlp("Apple shares and apple pie rose sharply on Monday.")
    a, b, c = first[3], second[0], second[3]
    assert [a._.static_vec_key, b._.static_vec_key, c._.static_vec_key] == ["exact", "lower", "exact"]
    np.testing.assert_array_equal(a._.static_vec, c._.static_vec)
    np.testing.assert_array_equal(a._.static_vec, b._.static_vec)  # uncased model
    cosine = a._.static_vec @ c._.static_vec / (np.linalg.norm(a._.static_vec) * np.linalg.norm(c._.static_vec))
    assert cosine == pytest.approx(1.0, abs=1e-6)
    assert not np.allclose(a._.context_vec, c._.context_vec)


@pytest.mark.slow
def test_default_pipeline_multi_piece_word_is_mean_of_input_embeddings(default_nlp):
    import torch

    pipe = default_nlp.get_pipe("transformer")
    tokenizer = pipe.model.tokenizer
    ids = tokenizer("pineapples", add_special_tokens=False)["input_ids"]
    assert len(ids) > 1
    with torch.no_grad():
        expected = pipe.model.transformer.get_input_embeddings()(torch.tensor(ids)).mean(dim=0).numpy()
    doc = default_nlp("We bought pineapples.")
    assert doc[2]._.static_vec_key == "subwords"
    np.testing.assert_allclose(doc[2]._.static_vec, expected, rtol=1e-5, atol=1e-6)
    assert isinstance(default_nlp.get_pipe("ctxvec_static").table, StaticVectorTable)
    assert [STATIC_KEY_NAMES[int(code)] for code in doc._.ctxvec_static_keys] == ["lower", "exact", "subwords", "exact"]


def test_exclude_table_in_serialization(w2v_nlp, tmp_path):
    component = w2v_nlp.get_pipe("ctxvec_static")
    blank = spacy.blank("en").add_pipe("ctxvec_static")
    assert blank.from_bytes(component.to_bytes(exclude=["table"])).table is None
    assert blank.from_bytes(component.to_bytes(), exclude=["table"]).table is None
    assert blank.from_bytes(component.to_bytes()).table is not None
    component.to_disk(tmp_path / "no_table", exclude=["table"])
    assert not (tmp_path / "no_table" / "table").exists()
    component.to_disk(tmp_path / "with_table")
    kept = blank.table
    assert blank.from_disk(tmp_path / "no_table", exclude=["table"]).table is kept
    assert spacy.blank("en").add_pipe("ctxvec_static").from_disk(tmp_path / "with_table").table is not None


def test_frozen_static_names_frozen_components_not_initialize(tmp_path, w2v_path):
    """As `spacy train` does: init_nlp skips frozen components, so the table is missing."""
    from spacy.training.initialize import init_nlp

    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static")
    DocBin(docs=[nlp.make_doc("the river bank")]).to_disk(tmp_path / "train.spacy")
    config = nlp.config.copy()
    config["paths"]["train"] = config["paths"]["dev"] = str(tmp_path / "train.spacy")
    config["training"]["frozen_components"] = ["ctxvec_static"]
    config["initialize"]["components"]["ctxvec_static"] = {
        "source": {"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(w2v_path)}
    }
    trained = init_nlp(config)
    with pytest.raises(CtxvecError, match=r"\[CTX-E023\].*frozen_components.*source"):
        trained("the river bank")
    config["training"]["frozen_components"] = []
    assert init_nlp(config)("the river bank")[1]._.has_static_vec


def test_word2vec_config_without_static_vectors_path_names_the_setting(tiny_bert_dir):
    config = load_config(CONFIGS / "word2vec.cfg")
    model = config["components"]["transformer"]["model"]
    model["name"] = str(tiny_bert_dir)
    model["get_spans"].update({"window": 8, "stride": 6})
    nlp = load_model_from_config(config, auto_fill=True)
    with pytest.raises(CtxvecError, match=r"\[CTX-E024\] Component 'ctxvec_static' .*--paths.static_vectors"):
        nlp.initialize()


@pytest.mark.parametrize("damage", ["not json {", "[1, 2]", '{"has_table": "yes"}', "{}"])
def test_damaged_cfg_json_is_a_coded_error(w2v_nlp, tmp_path, damage):
    w2v_nlp.to_disk(tmp_path / "pipeline")
    (tmp_path / "pipeline" / "ctxvec_static" / "cfg.json").write_text(damage, encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E134\].*cfg\.json"):
        spacy.load(tmp_path / "pipeline")


@pytest.mark.parametrize("data", [b"\xc1 not msgpack", srsly.msgpack_dumps([1, 2]), srsly.msgpack_dumps({"table": 3})])
def test_damaged_component_bytes_are_a_coded_error(data):
    nlp = spacy.blank("en")
    with pytest.raises(CtxvecError, match=r"\[CTX-E134\]"):
        nlp.add_pipe("ctxvec_static").from_bytes(data)


@pytest.mark.parametrize("case", ["renamed transformer", "another model's transformer"])
def test_a_static_copied_into_another_pipeline_saves_what_that_pipeline_loads(trf_static_nlp, tmp_path, case):
    """Copied with add_pipe(source=...), ctxvec_static saved "the table is transformer
    'transformer''s", checked against the pipeline it came from: a pipeline whose transformer
    is named otherwise, or is another model, saved without the table and failed to load (E140)."""
    import gc

    from .conftest import build_tiny_bert

    copied = spacy.blank("en")
    if case == "renamed transformer":
        copied.add_pipe("transformer", name="trf", source=trf_static_nlp)
    else:
        other = make_trf_nlp(str(build_tiny_bert(tmp_path / "other", seed=7)), window=8, stride=6)
        copied.add_pipe("transformer", source=other)
    copied.add_pipe("ctxvec_static", source=trf_static_nlp)
    text = "The river Bank unbelievable"
    expected = trf_static_nlp(text)._.ctxvec_static.copy()
    for nlp, name in ((copied, "copied"), (trf_static_nlp, "original")):  # either may be the one saved
        nlp.to_disk(tmp_path / name)
        np.testing.assert_array_equal(spacy.load(tmp_path / name)(text)._.ctxvec_static, expected)
    del copied
    gc.collect()
    trf_static_nlp.to_disk(tmp_path / "alone again")  # its pipeline's alone: saved once again
    assert not (tmp_path / "alone again" / "ctxvec_static" / "table" / "vectors.npy").exists()


def test_values_beyond_the_dtype_are_refused_without_numpys_overflow_warning():
    """numpy's "RuntimeWarning: overflow encountered in cast" printed just before E139 and E141."""
    import warnings

    nlp = spacy.blank("en")
    component = nlp.add_pipe("ctxvec_static", config={"dtype": "float16"})
    for rows, code in (([[1e5, 0.0]], "E139"), (np.array([[1e300, 0.0]]), "E141")):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            table = StaticVectorTable(["a"], rows)
            with pytest.raises(CtxvecError, match=code):
                component.initialize(nlp=nlp, source=lambda nlp: table)  # noqa: B023  # called here


def test_a_component_directory_left_out_of_a_saved_pipeline_is_e068(tmp_path):
    """nlp.to_disk(exclude=[...]) or a lost folder: ctxvec_polysemy loaded with no lexicon (every score
    None, no warning) and ctxvec_static blamed a damaged cfg.json (E134)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_static").initialize(nlp=nlp, source=lambda nlp: StaticVectorTable(["apple"], np.ones((1, 2))))
    nlp.add_pipe("ctxvec_polysemy")
    nlp.to_disk(tmp_path / "saved", exclude=["ctxvec_static", "ctxvec_polysemy"])
    for name, other in (("ctxvec_static", "ctxvec_polysemy"), ("ctxvec_polysemy", "ctxvec_static")):
        with pytest.raises(CtxvecError, match=rf"E068\].*'{name}'.*spacy\.load\(PATH, exclude=\[\"{name}\"\]\)"):
            spacy.load(tmp_path / "saved", exclude=[other])
    assert spacy.load(tmp_path / "saved", exclude=["ctxvec_static", "ctxvec_polysemy"]).pipe_names == []
    # the commands' readers say the same (rank, export-static and plot polysemy said E225 "not a pipeline with a
    # 'ctxvec_polysemy' component", senses E606 "no senses")
    from spacy_ctxvec.saved_pipeline import load_lexicon, load_senses

    for reader in (load_lexicon, load_senses):
        with pytest.raises(CtxvecError, match=r"E068\].*'ctxvec_polysemy'"):
            reader(tmp_path / "saved")
    nlp.to_disk(tmp_path / "whole")
    whole = spacy.load(tmp_path / "whole", exclude=["ctxvec_polysemy"])  # it needs contextual vectors to run
    assert whole("apple")[0]._.static_vec.tolist() == [1.0, 1.0]
