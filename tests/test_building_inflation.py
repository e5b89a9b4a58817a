"""building/inflation: a .spacy DocBin is measured before spaCy decompresses it whole."""

import zlib

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_ctxvec.building import inflation
from spacy_ctxvec.building.corpus import iter_corpus
from spacy_ctxvec.building.inflation import check_inflation, inflates_beyond
from spacy_ctxvec.errors import CtxvecError


def test_the_inflated_size_is_measured_without_holding_it():
    zeros = zlib.compress(b"\0" * (40 * 2**20), 9)  # 40 MiB in about 40 kB
    assert inflates_beyond(zeros, 10 * 2**20) and not inflates_beyond(zeros, 40 * 2**20)
    assert not inflates_beyond(zlib.compress(b"abc"), 3) and inflates_beyond(zlib.compress(b"abcd"), 3)
    with pytest.raises(zlib.error):
        inflates_beyond(b"not zlib data", 100)


def test_a_docbin_bomb_is_e243_and_a_real_docbin_is_read(tmp_path, monkeypatch):
    """A 3 MB .spacy file holding 3 GiB of zeros made build-lexicon take 7 GB of memory (E271 now)."""
    monkeypatch.setattr(inflation, "MIN_ALLOWED_BYTES", 2**20)  # the bound of a tiny file, in miniature
    nlp = spacy.blank("en")
    real = DocBin(docs=[nlp("We sat on the river bank."), nlp("The bank lent money.")]).to_bytes()
    check_inflation(real, "real.spacy")
    (tmp_path / "real.spacy").write_bytes(real)
    assert [doc.text for doc in iter_corpus(tmp_path / "real.spacy", nlp.vocab)][1] == "The bank lent money."
    bomb = zlib.compress(zlib.decompress(real) + b"\0" * (8 * 2**20), 9)
    (tmp_path / "bomb.spacy").write_bytes(bomb)
    with pytest.raises(CtxvecError, match=r"E271.*bomb\.spacy' decompresses to more than 1 MiB.*several \.spacy"):
        list(iter_corpus(tmp_path / "bomb.spacy", nlp.vocab))
