"""building/ray_workers.py: corpus rows read on Ray workers are the local reader's
documents (texts, "words" Docs, skipped bad lines), and a worker's partial lexicon equals
shard.partial_lexicon on the same documents; on a local 1-CPU Ray."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from spacy_ctxvec.building.corpus import CorpusReport, iter_corpus
from spacy_ctxvec.building.shard import partial_lexicon
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon

from .conftest import TINY_SENTENCES

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from spacy_ctxvec.building.ray_workers import (  # noqa: E402  (needs Ray)
    KIND_DOC,
    KIND_SKIPPED,
    KIND_TEXT,
    CorpusDatasource,
    PartialLexiconWorker,
    _Rows,
    corpus_row,
    decode_rows,
    shard_entries,
)


def item_view(item):
    """A comparable view of a corpus item: the text, or a Doc's words and spaces."""
    if isinstance(item, Doc):
        return ("doc", [t.text for t in item], [bool(t.whitespace_) for t in item])
    return ("text", item)


def test_corpus_row_kinds():
    assert corpus_row("the bank\n", "a.txt", 1, ".txt", "raise") == (KIND_TEXT, b"the bank", 1)
    assert corpus_row("   \n", "a.txt", 2, ".txt", "raise") is None
    kind, payload, line = corpus_row(
        json.dumps({"words": ["a", "pen"], "spaces": [True, False]}), "b.jsonl", 3, ".jsonl", "raise"
    )
    assert (kind, line) == (KIND_DOC, 3)
    assert item_view(Doc(Vocab()).from_bytes(payload)) == ("doc", ["a", "pen"], [True, False])
    # A skipped line's payload is its reason, as the local reader records it.
    reason = b"[CTX-E212] not valid JSON (Expecting property name enclosed in double quotes at column 2)"
    assert corpus_row("{broken", "b.jsonl", 4, ".JSONL", "skip") == (KIND_SKIPPED, reason, 4)
    with pytest.raises(CtxvecError, match="E212.*b.jsonl.*4"):
        corpus_row("{broken", "b.jsonl", 4, ".jsonl", "raise")
    # over the pipeline's nlp.max_length: a bad line, skipped and reported like others (was E270, stopping the build)
    too_long = b"[CTX-E272] a document of 13 characters, over the pipeline's nlp.max_length (10)"
    assert corpus_row("the bank bank\n", "a.txt", 5, ".txt", "skip", max_length=10) == (KIND_SKIPPED, too_long, 5)
    with pytest.raises(CtxvecError, match=r"E272\] a.txt, line 5: a document of 13 characters"):
        corpus_row('{"text": "the bank bank"}', "a.txt", 5, ".jsonl", "raise", max_length=10)
    assert corpus_row("the bank bank\n", "a.txt", 5, ".txt", "raise", max_length=13) == (KIND_TEXT, b"the bank bank", 5)


def test_rows_flush_to_one_shard_row_and_decode_in_order():
    rows = _Rows("c.txt")
    rows.add(KIND_TEXT, "i have a pen".encode("utf8"), 1)
    rows.add(KIND_SKIPPED, b"why", 2)
    rows.add(KIND_DOC, Doc(Vocab(), words=["the", "bank"]).to_bytes(), 3)
    table = rows.flush()
    assert table.num_rows == 1 and len(rows) == 0
    batch = {name: np.array(table.column(name).to_pylist(), dtype=object) for name in table.column_names}
    assert [(kind, path, line) for kind, _, path, line in shard_entries(batch)] == [
        (KIND_TEXT, "c.txt", 1),
        (KIND_SKIPPED, "c.txt", 2),
        (KIND_DOC, "c.txt", 3),
    ]
    items, skipped = decode_rows(batch, Vocab())
    assert [item_view(item) for item in items] == [("text", "i have a pen"), ("doc", ["the", "bank"], [True, True])]
    assert skipped == [("c.txt", 2, "why")]


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    """A .txt with blank lines, a .jsonl with a bad line, a .spacy file, a .txt of CR line ends."""
    directory = tmp_path_factory.mktemp("ray_workers_corpus")
    lines = [TINY_SENTENCES[i % len(TINY_SENTENCES)] for i in range(8)]
    lines[2] = ""
    lines[4] += "\rstill the same document"  # a stray carriage return splits nothing
    (directory / "a.txt").write_bytes(("\n".join(lines) + "\r\n").encode("utf8"))
    (directory / "d.txt").write_bytes(b"one doc\rtwo doc\r\rthree\r")  # classic Mac line ends
    rows = [json.dumps({"text": s}) for s in TINY_SENTENCES[:3]]
    rows.insert(1, "{not json")
    rows.append(json.dumps({"words": ["we", "sat"], "spaces": [True, False]}))
    (directory / "b.jsonl").write_text("\n".join(rows) + "\n", encoding="utf8")
    vocab = Vocab()
    DocBin(docs=[Doc(vocab, words=s.split()) for s in TINY_SENTENCES[3:]]).to_disk(directory / "c.spacy")
    return directory


@pytest.fixture(scope="module")
def local_ray():
    """A local 1-CPU Ray for this module, shut down whatever happens."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def restore_torch_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.slow
def test_datasource_rows_are_the_local_readers_documents_in_shards(local_ray, corpus_dir):
    files = sorted(str(p) for p in corpus_dir.iterdir())
    dataset = local_ray.data.read_datasource(
        CorpusDatasource(files, shard_size=2, on_error="skip"), override_num_blocks=len(files)
    )
    vocab = Vocab()
    read = {path: [] for path in files}
    shards = {path: [] for path in files}
    skipped = []
    for batch in dataset.iter_batches(batch_size=1, batch_format="numpy"):
        items, bad = decode_rows(batch, vocab)
        read[str(batch["path"][0])].extend(repr(item_view(item)) for item in items)
        shards[str(batch["path"][0])].append(len(items))
        skipped.extend(bad)
    # shard_size documents a shard, as the local engine cuts them: a skipped line is not one (a shard
    # holding one had a document fewer, and the sums differed from the local engine's)
    assert [sorted(sizes, reverse=True) for sizes in shards.values()] == [[2, 2, 2, 1], [2, 2], [2, 1], [2, 1]]
    expected_skipped = []
    for path in files:
        report = CorpusReport()
        expected = [repr(item_view(item)) for item in iter_corpus(path, vocab, on_error="skip", report=report)]
        assert sorted(read[path]) == sorted(expected), path
        expected_skipped.extend(report.skipped)
    assert [len(read[path]) for path in files] == [7, 4, 3, 3]
    assert skipped == expected_skipped  # the same lines, with the same reasons
    assert [(path, line) for path, line, _ in skipped] == [(files[1], 2)] and "E212" in skipped[0].reason


@pytest.mark.slow
def test_worker_lexicon_equals_the_partial_lexicon_of_its_shard(local_ray, tiny_nlp, restore_torch_threads):
    rows = _Rows("d.txt")
    for line, sentence in enumerate(TINY_SENTENCES, start=1):
        rows.add(KIND_TEXT, sentence.encode("utf8"), line)
    rows.add(KIND_SKIPPED, b"why", 7)
    rows.add(KIND_DOC, Doc(Vocab(), words=["the", "pen", "bank"]).to_bytes(), 8)
    table = rows.flush()
    batch = {name: np.array(table.column(name).to_pylist(), dtype=object) for name in table.column_names}
    pipeline = local_ray.put((tiny_nlp.config.to_str(), tiny_nlp.to_bytes(), tiny_nlp.max_length))
    worker = PartialLexiconWorker(pipeline, "lower", 4, False, 1, sample_size=3)
    out = worker(batch)
    assert sorted(out) == ["lexicon", "n_docs", "skipped"] and all(len(column) == 1 for column in out.values())
    assert int(out["n_docs"][0]) == 7 and json.loads(out["skipped"][0]) == [["d.txt", 7, "why"]]
    items, _ = decode_rows(batch, tiny_nlp.vocab)
    # same thread count as the worker (1), so the sums agree bit for bit
    expected = partial_lexicon(tiny_nlp, items, key="lower", batch_size=4, sample_size=3)
    assert Lexicon.from_bytes(out["lexicon"][0]) == expected
    assert expected.n_occurrences == sum(len(s.split()) for s in TINY_SENTENCES) + 3
