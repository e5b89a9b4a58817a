"""Registered static-vector sources: vectors_file.v1 and transformer_embeddings.v1."""

import numpy as np
import pytest
import spacy
from gensim.models import KeyedVectors
from spacy.util import registry

from spacy_ctxvec import CtxvecError, StaticVectorTable
from spacy_ctxvec.static.sources import transformer_embedding_table

from .conftest import transformer_config


@pytest.fixture
def w2v_path(tmp_path):
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["apple", "bank"], np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    path = tmp_path / "small.txt"
    kv.save_word2vec_format(str(path))
    return path, kv


def resolve_source(**settings):
    return registry.resolve({"source": settings})["source"]


def test_vectors_file_source_from_config(w2v_path):
    path, kv = w2v_path
    source = resolve_source(**{"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(path)})
    table = source(spacy.blank("en"))
    assert isinstance(table, StaticVectorTable)
    assert table.keys == ["apple", "bank"]
    np.testing.assert_array_equal(table.vectors, kv.vectors)


def test_vectors_file_source_passes_format_and_allow_pickle(tmp_path, w2v_path):
    _, kv = w2v_path
    pickled = tmp_path / "small.kv"
    kv.save(str(pickled))
    refused = resolve_source(**{"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(pickled)})
    with pytest.raises(CtxvecError, match="E105"):
        refused(spacy.blank("en"))
    allowed = resolve_source(**{"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(pickled), "allow_pickle": True})
    assert allowed(spacy.blank("en")).keys == ["apple", "bank"]
    wrong_format = resolve_source(**{"@misc": "spacy-ctxvec.vectors_file.v1", "path": str(pickled), "format": "glove"})
    with pytest.raises(CtxvecError, match=r"E10[34].*small\.kv"):
        wrong_format(spacy.blank("en"))


def test_vectors_file_source_without_path():
    source = resolve_source(**{"@misc": "spacy-ctxvec.vectors_file.v1", "path": None})
    with pytest.raises(CtxvecError, match=r"E101.*paths\.static_vectors"):
        source(spacy.blank("en"))


def test_transformer_embeddings_reads_the_pipes_model_and_tokenizer(tiny_nlp):
    source = resolve_source(**{"@misc": "spacy-ctxvec.transformer_embeddings.v1"})
    table = source(tiny_nlp)
    pipe = tiny_nlp.get_pipe("transformer")
    embeddings = pipe.model.transformer.get_input_embeddings().weight.detach().numpy()
    np.testing.assert_array_equal(table.vectors, embeddings)
    assert table.kind == "wordpieces" and table.subwords.tokenizer is pipe.model.tokenizer
    apple_id = pipe.model.tokenizer.convert_tokens_to_ids("apple")
    np.testing.assert_array_equal(table.get("apple"), embeddings[apple_id])


def test_transformer_embeddings_errors(tiny_bert_dir, tiny_nlp):
    with pytest.raises(CtxvecError, match=r"E116.*'encoder'"):
        transformer_embedding_table(tiny_nlp, "encoder")
    with pytest.raises(CtxvecError, match=r"E116.*'ctxvec_context'"):
        transformer_embedding_table(tiny_nlp, "ctxvec_context")
    uninitialized = spacy.blank("en")
    uninitialized.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    with pytest.raises(CtxvecError, match=r"E117.*'transformer'"):
        transformer_embedding_table(uninitialized, "transformer")
    # disabled while initialize ran (spacy assemble --nlp.disabled, select_pipes): E117 said to reorder
    uninitialized.add_pipe("ctxvec_static")
    uninitialized.add_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"E069\] The transformer 'transformer' that the static source reads is dis"):
        with uninitialized.select_pipes(disable=["transformer"]):
            uninitialized.initialize()
    uninitialized.remove_pipe("ctxvec_static")
    with pytest.raises(CtxvecError, match=r"E069\] The transformer 'transformer' that 'ctxvec_context' reads is dis"):
        with uninitialized.select_pipes(disable=["transformer"]):
            uninitialized.initialize()
