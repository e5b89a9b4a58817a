"""Fuzz the readers of user files: static vector formats, evaluation data and saved
static tables. Valid seed files are damaged (truncated, bytes flipped or inserted,
counts made huge, re-encoded, lines duplicated or blanked); whatever comes in, the
reader returns a correct result or raises a coded CtxvecError: never another
exception, never NaN, never a hang, and never more memory than a small bound.

Deterministic (hypothesis with derandomize=True, no example database)."""

import gzip
import re
import signal
import tracemalloc
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Dict, Iterator

import numpy as np
import pytest
import srsly
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_ctxvec import CtxvecError, StaticVectorTable, load_static_vectors
from spacy_ctxvec.evaluation.readers import (
    MAX_SENSE_COUNT,
    read_scws,
    read_sense_counts,
    read_wic,
    read_word_pairs,
)
from spacy_ctxvec.evaluation.sense_sentences import read_sense_sentences
from spacy_ctxvec.static.table import FastTextNgrams

CODED = re.compile(r"^\[CTX-E\d{3}\] ")
MEMORY_LIMIT = 32 * 2**20  # bytes; every seed file is a few kilobytes
SECONDS_LIMIT = 10
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

WORDS = ["apple", "bank", "river", "naïve", "東京", "pie", "tea"]


@contextmanager
def bounded() -> Iterator[None]:
    """Fail if the block allocates more than MEMORY_LIMIT or runs over SECONDS_LIMIT."""

    def too_slow(signum, frame):
        raise TimeoutError(f"reader ran longer than {SECONDS_LIMIT} s")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(SECONDS_LIMIT)
    tracemalloc.start()
    try:
        yield
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert peak < MEMORY_LIMIT, f"peak memory {peak} bytes"


def coded_or_valid(read: Callable[[], object], check: Callable[[object], None]) -> None:
    """Run ``read`` in bounded memory and time: a coded CtxvecError, or a result that
    passes ``check``. Any other exception propagates and fails the test."""
    with bounded():
        try:
            result = read()
        except CtxvecError as err:
            assert CODED.match(str(err)), str(err)
            return
    check(result)


# Damage
@st.composite
def damaged(draw, data: bytes) -> bytes:
    """``data`` with one kind of damage."""
    kind = draw(
        st.sampled_from(
            [
                "truncate",
                "flip",
                "insert",
                "huge_number",
                "huge_int",
                "latin1",
                "utf16",
                "duplicate_line",
                "blank_line",
                "nan",
                "unicode_digit",
                "deep",
            ]
        )
    )
    position = draw(st.integers(0, max(len(data) - 1, 0)))
    if kind == "truncate":
        return data[:position]
    if kind == "flip":
        n = draw(st.integers(1, 8))
        out = bytearray(data)
        for _ in range(n):
            out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(0, 255))
        return bytes(out)
    if kind == "insert":
        return data[:position] + draw(st.binary(min_size=1, max_size=16)) + data[position:]
    if kind == "huge_number":  # a decimal number in the text made enormous (e.g. a header count)
        numbers = list(re.finditer(rb"\d+", data))
        if not numbers:
            return data
        match = numbers[draw(st.integers(0, min(len(numbers), 8) - 1))]
        value = draw(
            st.sampled_from(
                [b"999999999", b"0", b"-1", b"18446744073709551617", b"1e999", b"1" + b"0" * 23, b"9" * 5000]
            )
        )
        return data[: match.start()] + value + data[match.end() :]
    if kind == "huge_int":  # a binary int32/int64 overwritten (fastText header, .npy)
        offset = draw(st.integers(0, max(min(len(data), 160) - 8, 0)))
        value = draw(st.sampled_from([2**31 - 1, -1, 2**30, 0]))
        return data[:offset] + int(value).to_bytes(4, "little", signed=True) + data[offset + 4 :]
    if kind == "unicode_digit":  # str.isdigit() accepts these, int() does not (or reads them differently)
        digits = [m.start() for m in re.finditer(rb"\d", data)]
        if not digits:
            return data
        at = digits[draw(st.integers(0, min(len(digits), 8) - 1))]
        return data[:at] + draw(st.sampled_from(["\u00b2", "\u0663", "\u2460"])).encode("utf8") + data[at + 1 :]
    if kind == "latin1":
        try:
            return data.decode("utf8").encode("latin-1", errors="replace")
        except UnicodeDecodeError:
            return data + b"\xe9"
    if kind == "utf16":
        try:
            return data.decode("utf8").encode("utf-16")
        except UnicodeDecodeError:
            return data[::-1]
    lines = data.split(b"\n")
    index = draw(st.integers(0, len(lines) - 1))
    if kind == "deep":  # a line nested far beyond any recursion limit
        return b"\n".join(lines[:index] + [draw(st.sampled_from([b"[", b'{"a": ', b"[{"])) * 100_000] + lines[index:])
    if kind == "duplicate_line":
        return b"\n".join(lines[: index + 1] + lines[index:])
    if kind == "blank_line":
        return b"\n".join(lines[:index] + [b""] + lines[index:])
    return data.replace(b"0.", b"nan ", 1) if b"0." in data else data + b"nan"


# Static vector formats
@pytest.fixture(scope="module")
def vector_seeds(tmp_path_factory) -> Dict[str, bytes]:
    from gensim.models import FastText, KeyedVectors
    from gensim.models.fasttext import save_facebook_model

    rng = np.random.default_rng(0)
    kv = KeyedVectors(vector_size=4)
    kv.add_vectors(WORDS, rng.normal(size=(len(WORDS), 4)).astype(np.float32))
    folder = tmp_path_factory.mktemp("seeds")
    kv.save_word2vec_format(str(folder / "w2v.txt"))
    kv.save_word2vec_format(str(folder / "w2v.bin"), binary=True)
    glove = "".join(" ".join([word] + [f"{x:.5f}" for x in kv[word]]) + "\n" for word in WORDS)
    sentences = [["the", "apple", "pie"], ["the", "river", "bank"]] * 10
    model = FastText(vector_size=4, min_count=1, min_n=2, max_n=3, bucket=40, seed=1, workers=1, epochs=1)
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=1)
    save_facebook_model(model, str(folder / "ft.bin"))
    np.save(folder / "m.npy", kv.vectors)
    return {
        "word2vec": (folder / "w2v.txt").read_bytes(),
        "word2vec-binary": (folder / "w2v.bin").read_bytes(),
        "glove": glove.encode("utf8"),
        "fasttext": (folder / "ft.bin").read_bytes(),
        "npy": (folder / "m.npy").read_bytes(),
        "word2vec-gz": gzip.compress((folder / "w2v.txt").read_bytes()),
        "vocab": ("\n".join(WORDS) + "\n").encode("utf8"),
    }


def check_table(table: StaticVectorTable) -> None:
    assert isinstance(table, StaticVectorTable)
    assert len(table) >= 1 and table.dim >= 1 and len(set(table.keys)) == len(table.keys)
    assert table.vectors.dtype == np.float32 and np.isfinite(np.asarray(table.vectors)).all()
    vectors, codes = table.lookup_batch(["apple", "unseen", ""] + table.keys[:3])
    assert np.isfinite(vectors).all() and vectors.shape[1] == table.dim


@pytest.mark.parametrize("format", ["word2vec", "word2vec-binary", "glove", "fasttext", "word2vec-gz"])
def test_fuzz_vector_files(tmp_path, vector_seeds, format):
    @FUZZ
    @given(data=st.data(), auto=st.booleans())
    def run(data, auto):
        name = {"word2vec-binary": "vectors.bin", "fasttext": "vectors.bin", "word2vec-gz": "vectors.txt.gz"}
        path = tmp_path / name.get(format, "vectors.txt")
        path.write_bytes(data.draw(damaged(vector_seeds[format])))
        explicit = format.replace("-gz", "")
        coded_or_valid(lambda: load_static_vectors(path, format="auto" if auto else explicit), check_table)

    run()


def test_fuzz_npy_and_vocab(tmp_path, vector_seeds):
    @FUZZ
    @given(data=st.data(), target=st.sampled_from(["npy", "vocab"]))
    def run(data, target):
        (tmp_path / "m.npy").write_bytes(vector_seeds["npy"])
        (tmp_path / "m.vocab.txt").write_bytes(vector_seeds["vocab"])
        path = tmp_path / ("m.npy" if target == "npy" else "m.vocab.txt")
        path.write_bytes(data.draw(damaged(vector_seeds[target])))
        coded_or_valid(lambda: load_static_vectors(tmp_path / "m.npy"), check_table)

    run()


def test_fuzz_huge_headers_cost_nothing(tmp_path):
    @FUZZ
    @given(rows=st.integers(0, 10**12), dim=st.integers(0, 10**12), binary=st.booleans())
    def run(rows, dim, binary):
        path = tmp_path / "liar.bin"
        body = (
            b"".join(w.encode() + b" " + np.ones(3, "<f4").tobytes() for w in ("a", "b", "c"))
            if binary
            else b"a 1 2 3\nb 4 5 6\nc 7 8 9\n"
        )
        path.write_bytes(f"{rows} {dim}\n".encode() + body)
        format = "word2vec-binary" if binary else "word2vec"
        coded_or_valid(lambda: load_static_vectors(path, format=format), check_table)

    run()


# Evaluation data
EVALUATION_SEEDS = {
    "wic": (
        "train.data.txt",
        b"carry\tV\t2-1\tYou must carry your gear .\tSound carries well .\n"
        b"bank\tN\t0-4\tbank of the river\tI went to the bank\n",
    ),
    "wic-gold": ("train.gold.txt", b"F\nT\n"),
    "pairs": ("pairs.txt", b"word1\tword2\tSimLex999\ncar\tautomobile\t9.1\nold\tnew\t1.58\n"),
    "scws": (
        "ratings.txt",
        b"1\tbank\tn\triver\tn\tthe <b> bank </b> of\ta <b> river </b> .\t5.5\t1\t2\n"
        b"2\tcaf\xc3\xa9\tn\ttea\tn\ta <b> caf\xc3\xa9 </b>\t<b> tea </b> time\t7\t3\n",
    ),
    "senses": ("senses.tsv", b"lemma\ttotal\tn\nbank\t18\t10\nrun\t57\t16\n"),
    "sentences": (
        "sentences.jsonl",
        b'{"lemma": "bank", "words": ["the", "bank", "lends"], "position": 1, "synset": "bank.n.02"}\n'
        b'{"lemma": "bank", "words": ["river", "bank"], "position": 1, "sense": 3}\n',
    ),
}


def check_evaluation(result) -> None:
    if isinstance(result, dict):  # sense counts
        assert result and all(isinstance(k, str) and isinstance(v, int) for k, v in result.items())
        assert all(0 <= v <= MAX_SENSE_COUNT for v in result.values()), result
        return
    if hasattr(result, "positions"):  # sense-labelled sentences
        assert len(result) >= 1 and all(0 <= p < len(w) for w, p in zip(result.words, result.positions))
        assert all(isinstance(s, str) and s for s in result.senses)
        return
    assert len(result) >= 1
    for name in ("scores", "index1", "index2", "labels"):
        array = getattr(result, name, None)
        if array is not None:
            assert len(array) == len(result) and np.isfinite(np.asarray(array, dtype=np.float64)).all()
    for words, index in (
        (getattr(result, "words1", None), getattr(result, "index1", None)),
        (getattr(result, "words2", None), getattr(result, "index2", None)),
    ):
        if index is not None:
            assert all(0 <= i < len(w) for w, i in zip(words, index))


@pytest.mark.parametrize("kind", sorted(EVALUATION_SEEDS))
def test_fuzz_evaluation_files(tmp_path, kind):
    readers = {
        "wic": lambda path: read_wic(path.parent, "train"),
        "wic-gold": lambda path: read_wic(path.parent, "train"),
        "pairs": read_word_pairs,
        "scws": read_scws,
        "senses": read_sense_counts,
        "sentences": read_sense_sentences,
    }

    @FUZZ
    @given(data=st.data())
    def run(data):
        for name, seed in (EVALUATION_SEEDS["wic"], EVALUATION_SEEDS["wic-gold"]):
            (tmp_path / name).write_bytes(seed)
        name, seed = EVALUATION_SEEDS[kind]
        path = tmp_path / name
        path.write_bytes(data.draw(damaged(seed)))
        coded_or_valid(lambda: readers[kind](path), check_evaluation)

    run()


# Saved static tables
@pytest.fixture(scope="module")
def saved_tables(tmp_path_factory) -> Dict[str, Path]:
    rng = np.random.default_rng(1)
    plain = StaticVectorTable(["apple", "bank", "river"], rng.normal(size=(3, 4)).astype(np.float32))
    rows = StaticVectorTable(["apple", "bank"], rng.normal(size=(3, 4)).astype(np.float32), rows=np.array([2, 0]))
    fasttext = StaticVectorTable(
        ["apple", "bank"],
        rng.normal(size=(2, 4)).astype(np.float32),
        subwords=FastTextNgrams(rng.normal(size=(10, 4)).astype(np.float32), 2, 3, 10),
    )
    paths = {}
    for name, table in (("plain", plain), ("rows", rows), ("fasttext", fasttext)):
        paths[name] = tmp_path_factory.mktemp(name)
        table.to_disk(paths[name])
    return paths


@pytest.mark.parametrize("kind", ["plain", "rows", "fasttext"])
def test_fuzz_saved_static_table(tmp_path, saved_tables, kind):
    seeds = {path.name: path.read_bytes() for path in saved_tables[kind].iterdir()}

    @FUZZ
    @given(data=st.data(), target=st.sampled_from(sorted(seeds)), mmap=st.booleans())
    def run(data, target, mmap):
        for name, seed in seeds.items():
            (tmp_path / name).write_bytes(seed)
        (tmp_path / target).write_bytes(data.draw(damaged(seeds[target])))
        coded_or_valid(lambda: StaticVectorTable.from_disk(tmp_path, mmap=mmap), check_table)

    run()


def test_fuzz_static_table_bytes(saved_tables):
    seed = StaticVectorTable.from_disk(saved_tables["fasttext"]).to_bytes()

    @FUZZ
    @given(data=st.data())
    def run(data):
        damaged_bytes = data.draw(damaged(seed))
        coded_or_valid(lambda: StaticVectorTable.from_bytes(damaged_bytes), check_table)

    run()


def test_every_bad_cfg_value_of_a_saved_table(tmp_path, saved_tables):
    """Exhaustive: each cfg.json field of a saved fastText table set to each odd value."""
    seeds = {path.name: path.read_bytes() for path in saved_tables["fasttext"].iterdir()}
    values = [None, True, -1, 0, 1, 3, 10, 65, 2**40, 2.5, "plain", "x", [1], {"a": 1}]
    for key in ["kind", "dim", "n_rows", "n_keys", "min_n", "max_n", "bucket"]:
        for value in values:
            for name, seed in seeds.items():
                (tmp_path / name).write_bytes(seed)
            cfg = srsly.read_json(tmp_path / "cfg.json")
            cfg[key] = value
            srsly.write_json(tmp_path / "cfg.json", cfg)
            coded_or_valid(lambda: StaticVectorTable.from_disk(tmp_path), check_table)
