"""Issue 23 through the Ray engine: the corpus rules of building/corpus.py hold there too
(upper-case suffixes read, invisible-only documents never count, no token with a
vector is E741, never an empty lexicon reported as a success)."""

from pathlib import Path

import pytest
from spacy.tokens import DocBin

from spacy_ctxvec.building.local import build_lexicon_local
from spacy_ctxvec.building.ray_engine import build_lexicon_ray
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.pipelines import load_pipeline

pytestmark = pytest.mark.slow


def write_mixed_case_corpus(directory: Path, nlp) -> Path:
    directory.mkdir()
    (directory / "a.txt").write_text("the river bank\n\u200b\u200b\n", encoding="utf8")
    (directory / "B.TXT").write_text("money in the bank\n", encoding="utf8")
    (directory / "C.JSONL").write_text('{"text": "a loan"}\n{"words": [" ", "\\u200b"]}\n', encoding="utf8")
    (directory / "d.Spacy").write_bytes(DocBin(docs=[nlp("we sat on the bank")]).to_bytes())
    return directory


def test_ray_reads_upper_case_suffixes_like_the_local_engine(ray_cluster, tiny_pipeline_dir, tmp_path):
    nlp = load_pipeline(tiny_pipeline_dir)
    corpus = write_mixed_case_corpus(tmp_path / "corpus", nlp)
    local = build_lexicon_local(nlp, corpus, progress=False)
    ray = build_lexicon_ray(nlp, corpus, num_workers=2, progress=False)
    assert local.n_docs == ray.n_docs == 4
    assert ray.lexicon.keys == local.lexicon.keys and ray.n_tokens == local.n_tokens > 0


def test_ray_refuses_corpora_without_tokens(ray_cluster, tiny_pipeline_dir, tmp_path):
    nlp = load_pipeline(tiny_pipeline_dir)
    (tmp_path / "zw.TXT").write_text("\u200b\u200b\n \u200b\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E211|E740"):
        build_lexicon_ray(nlp, tmp_path / "zw.TXT", num_workers=2, progress=False)
    (tmp_path / "marks.txt").write_text("\u0301\u0302 \u0301\n", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E741.*marks\.txt': 1 documents"):
        build_lexicon_ray(nlp, tmp_path / "marks.txt", num_workers=2, progress=False)


def test_ray_skips_bad_lines_as_the_local_engine_does_sums_and_names_alike(
    ray_cluster, tiny_pipeline_dir, tmp_path, monkeypatch
):
    """A skipped line counted towards Ray's shard size (a shard holding one had a document fewer:
    the sums differed from the local engine's), and W004 named the file resolved, not as given."""
    nlp = load_pipeline(tiny_pipeline_dir)
    lines = [f"the river bank number {i} and the money bank" for i in range(9)]
    lines.insert(2, '{"broken')  # not valid JSON
    (tmp_path / "c.jsonl").write_text("".join(f'{{"text": "{line}"}}\n' for line in lines[:2]), encoding="utf8")
    with (tmp_path / "c.jsonl").open("a", encoding="utf8") as handle:
        handle.write(lines[2] + "\n" + "".join(f'{{"text": "{line}"}}\n' for line in lines[3:]))
    monkeypatch.chdir(tmp_path)
    settings = dict(shard_size=3, batch_size=3, progress=False, on_error="skip", sample_size=4)
    local = build_lexicon_local(nlp, Path("c.jsonl"), **settings)
    ray = build_lexicon_ray(nlp, Path("c.jsonl"), num_workers=1, **settings)
    assert local.n_docs == ray.n_docs == 9
    assert ray.lexicon == local.lexicon  # the same shards: the same sums, bit for bit
    assert ray.skipped_lines == local.skipped_lines and [s.path for s in ray.skipped_lines] == ["c.jsonl"]


def test_ray_names_the_skipped_lines_of_a_corpus_left_empty(ray_cluster, tiny_pipeline_dir, tmp_path):
    nlp = load_pipeline(tiny_pipeline_dir)
    (tmp_path / "latin.txt").write_bytes("caf\u00e9 au lait\n".encode("latin-1"))
    with pytest.raises(CtxvecError, match=r"E276.*1 line with text.*latin\.txt:1: \[CTX-E240\]"):
        build_lexicon_ray(nlp, tmp_path / "latin.txt", num_workers=1, on_error="skip", progress=False)
