import numpy as np
import pytest
import spacy
from scipy.stats import spearmanr

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.evaluation.readers import read_scws, read_sense_counts, read_wic, read_word_pairs
from spacy_ctxvec.evaluation.tasks import evaluate_polysemy, evaluate_scws, evaluate_wic, evaluate_word_sim
from spacy_ctxvec.lexicon.statistics import Lexicon

WIC_TRAIN = [
    ("bank", "N", "4-1", "i sat on the bank .", "the bank took my money", "F"),
    ("bank", "N", "1-1", "the bank took a loan", "a bank of money", "T"),
    ("play", "V", "1-1", "we play .", "i play !", "T"),
    ("play", "N", "3-1", "we sat on a play", "a play in the hotel", "F"),
    ("pen", "N", "3-1", "i have a pen", "a pen and an apple", "T"),
    ("eat", "V", "1-3", "we eat an apple", "i want to eat", "F"),
]
# "Same sense" pairs repeat one sentence, so every cosine feature is 1.0 for them: any
# fitted decision must get every dev pair right.
SEPARABLE_TRAIN = [
    ("bank", "N", "1-1", "the bank took a loan", "the bank took a loan", "T"),
    ("bank", "N", "4-1", "i sat on the bank .", "the bank took my money", "F"),
    ("play", "V", "1-1", "we play .", "we play .", "T"),
    ("play", "N", "3-1", "we sat on a play", "a play in the hotel", "F"),
    ("pen", "N", "3-1", "i have a pen", "i have a pen", "T"),
    ("eat", "V", "1-3", "we eat an apple", "i want to eat", "F"),
]
SEPARABLE_DEV = [
    ("phone", "N", "1-1", "buy a phone .", "buy a phone .", "T"),
    ("river", "N", "3-1", "we sat on river", "a river bank", "F"),
    ("apple", "N", "1-0", "an apple", "apple pie", "F"),
    ("hotel", "N", "1-1", "a hotel room", "a hotel room", "T"),
]
WIC_DEV = [
    ("phone", "N", "2-1", "buy a phone .", "the phone is out", "T"),
    ("river", "N", "3-1", "we sat on river", "a river bank", "F"),
]


def write_wic(directory, rows, split):
    (directory / f"{split}.data.txt").write_text("".join("\t".join(r[:5]) + "\n" for r in rows), encoding="utf8")
    (directory / f"{split}.gold.txt").write_text("".join(r[5] + "\n" for r in rows), encoding="utf8")


@pytest.fixture
def wic_dir(tmp_path):
    write_wic(tmp_path, WIC_TRAIN, "train")
    write_wic(tmp_path, WIC_DEV, "dev")
    return tmp_path


def test_evaluate_wic_tiny(tiny_nlp, wic_dir):
    train, dev = read_wic(wic_dir, "train"), read_wic(wic_dir, "dev")
    report, n_missing = evaluate_wic(tiny_nlp, train, dev, "dev")
    assert (report.split, report.n_examples, report.n_train, n_missing) == ("dev", 2, 6, 0)
    assert report.chosen in report.settings
    assert set(report.per_family("shift")) == {"layer_0", "layer_1", "layer_2"}
    target_only, _ = evaluate_wic(tiny_nlp, train, dev, "dev", families=("cosine", "shift"))
    assert not any("context" in name or "whitened" in name for name in target_only.settings)


def test_evaluate_wic_separable_pairs_are_all_right(tiny_nlp, tmp_path):
    write_wic(tmp_path, SEPARABLE_TRAIN, "train")
    write_wic(tmp_path, SEPARABLE_DEV, "dev")
    report, _ = evaluate_wic(tiny_nlp, read_wic(tmp_path, "train"), read_wic(tmp_path, "dev"), "dev")
    assert report.n_examples == 4 and report.accuracy == 1.0


def test_evaluate_scws_tiny(tiny_nlp, tmp_path):
    rows = [("bank", "the <b> bank </b> took my money", "money", "i have <b> money </b>", 8.0),
            ("river", "we sat on the <b> river </b> bank", "pen", "a <b> pen </b> .", 1.0),
            ("bank", "i sat on the <b> bank </b> .", "bank", "a <b> bank </b> loan", 5.0)]
    path = tmp_path / "ratings.txt"
    path.write_text("".join(f"{i}\t{w1}\tn\t{w2}\tn\t{c1}\t{c2}\t{s}\t" + "\t".join(["1"] * 10) + "\n"
                            for i, (w1, c1, w2, c2, s) in enumerate(rows)), encoding="utf8")
    report = evaluate_scws(tiny_nlp, read_scws(path), "ratings.txt")
    assert (report.n_pairs, report.n_covered) == (3, 3)
    cosines = []
    for (_, first, _, second, _), (i, j) in zip(rows, [(1, 2), (4, 1), (4, 1)]):
        a = tiny_nlp(first.replace("<b> ", "").replace(" </b>", ""))[i]._.context_vec
        b = tiny_nlp(second.replace("<b> ", "").replace(" </b>", ""))[j]._.context_vec
        cosines.append(float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
    assert report.spearman == pytest.approx(spearmanr([8.0, 1.0, 5.0], cosines).statistic)
    assert report.details["layer_2"] == pytest.approx(report.spearman)  # the pipeline uses the last layer
    assert report.details["same_word_pairs"] == 1.0


@pytest.mark.slow
def test_evaluate_word_sim_default_pipeline(default_nlp, tmp_path):
    path = tmp_path / "pairs.txt"
    path.write_text("car\tautomobile\t9.0\ncar\tbanana\t0.5\nriver\tstream\t8.0\n", encoding="utf8")
    report = evaluate_word_sim(default_nlp, read_word_pairs(path), "pairs.txt")
    assert (report.name, report.n_pairs, report.n_covered) == ("pairs.txt", 3, 3)
    cosines = []
    for first, second in (("car", "automobile"), ("car", "banana"), ("river", "stream")):
        a, b = default_nlp(first)[0]._.static_vec, default_nlp(second)[0]._.static_vec
        cosines.append(float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
    assert report.spearman == pytest.approx(spearmanr([9.0, 0.5, 8.0], cosines).statistic)


def polysemy_nlp():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    rng = np.random.default_rng(0)
    keys = ["bank"] * 4 + ["run"] * 4 + ["dog"] * 4
    centre = rng.normal(size=8)
    spreads = np.repeat([1.0, 3.0, 0.1], 4)[:, None]  # run varies most, dog least
    component.set_lexicon(Lexicon.from_occurrences(keys, centre + spreads * rng.normal(size=(12, 8))))
    return nlp


def test_evaluate_polysemy(tmp_path, tiny_nlp):
    senses = tmp_path / "senses.tsv"
    senses.write_text("lemma\ttotal\nbank\t18\nrun\t57\ndog\t8\n", encoding="utf8")
    senses = read_sense_counts(senses)
    report = evaluate_polysemy(polysemy_nlp(), senses)
    assert (report.n_types, report.n_covered) == (3, 3)
    assert report.spearman == pytest.approx(1.0)
    with pytest.raises(CtxvecError, match=r"\[CTX-E307\].*ctxvec_polysemy"):
        evaluate_polysemy(tiny_nlp, senses)
    empty = spacy.blank("en")
    empty.add_pipe("ctxvec_polysemy")
    with pytest.raises(CtxvecError, match=r"\[CTX-E307\].*lexicon"):
        evaluate_polysemy(empty, senses)
