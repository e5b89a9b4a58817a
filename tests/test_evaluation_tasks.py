import numpy as np
import pytest
import spacy
from scipy.stats import spearmanr

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.evaluation.readers import (
    read_scws,
    read_sense_counts,
    read_wic,
    read_word_pairs,
)
from spacy_ctxvec.evaluation.sense_scores import ONE_PER_SENTENCE, ONE_SENSE, clustering_scores
from spacy_ctxvec.evaluation.sense_sentences import read_sense_sentences
from spacy_ctxvec.evaluation.tasks import (
    evaluate_polysemy,
    evaluate_scws,
    evaluate_senses,
    evaluate_wic,
    evaluate_word_sim,
    induced_labels,
    sense_targets,
)
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


# SCWS rows (word1, context1, word2, context2, mean rating) for tiny tests.
SCWS_TINY = [
    ("bank", "the <b> bank </b> took my money", "money", "i have <b> money </b>", 8.0),
    ("river", "we sat on the <b> river </b> bank", "pen", "a <b> pen </b> .", 1.0),
    ("bank", "i sat on the <b> bank </b> .", "bank", "a <b> bank </b> loan", 5.0),
]


def write_scws(path, rows=SCWS_TINY, n_raters=10):
    """SCWS's ratings.txt layout: id, word1, POS, word2, POS, contexts, mean, then each rater's score."""
    lines = (
        f"{i}\t{w1}\tn\t{w2}\tn\t{c1}\t{c2}\t{s}" + f"\t{s}" * n_raters + "\n"  # each rater gives the mean
        for i, (w1, c1, w2, c2, s) in enumerate(rows)
    )
    path.write_text("".join(lines), encoding="utf8")
    return path


def test_evaluate_scws_tiny(tiny_nlp, tmp_path):
    report = evaluate_scws(tiny_nlp, read_scws(write_scws(tmp_path / "ratings.txt")), "ratings.txt")
    assert (report.n_pairs, report.n_covered) == (3, 3)
    cosines = []
    for (_, first, _, second, _), (i, j) in zip(SCWS_TINY, [(1, 2), (4, 1), (4, 1)]):
        a = tiny_nlp(first.replace("<b> ", "").replace(" </b>", ""))[i]._.context_vec
        b = tiny_nlp(second.replace("<b> ", "").replace(" </b>", ""))[j]._.context_vec
        cosines.append(float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
    assert report.spearman == pytest.approx(spearmanr([8.0, 1.0, 5.0], cosines).statistic)
    assert report.details["layer_2"] == pytest.approx(report.spearman)  # the pipeline uses the last layer
    assert report.details["same_word_pairs"] == 1 and type(report.details["same_word_pairs"]) is int


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
    with pytest.raises(CtxvecError, match=r"\[CTX-E307\].*ctxvec_polysemy.*build-lexicon PIPELINE CORPUS OUTPUT"):
        evaluate_polysemy(tiny_nlp, senses)  # it said to add the component too, which build-lexicon does
    empty = spacy.blank("en")
    empty.add_pipe("ctxvec_polysemy")
    with pytest.raises(CtxvecError, match=r"\[CTX-E330\] .*'ctxvec_polysemy' component has no lexicon yet.*PIPELINE"):
        evaluate_polysemy(empty, senses)  # built in memory: no directory to name


SENSE_SENTENCES = [
    ("bank", "s1", "he cashed a check at the bank", 6),
    ("bank", "s2", "a huge bank of earth", 2),
    ("bank", "s1", "the bank lent us money", 1),
    ("bank", "s3", "he operated a bank of switches", 3),
    ("bank", "s2", "we sat on the river bank today", 5),
    ("play", "p1", "we play chess", 1),
    ("play", "p2", "the play was long", 1),
    ("play", "p1", "children play outside", 1),
    ("pen", "n1", "a pen", 1),  # one sentence: no pair, left out
]


def write_sense_sentences(path, rows=SENSE_SENTENCES, key="synset"):
    import json

    path.write_text(
        "".join(
            json.dumps({"lemma": lemma, "words": text.split(), "position": position, key: sense}) + "\n"
            for lemma, sense, text, position in rows
        ),
        encoding="utf8",
    )
    return path


def test_evaluate_senses_induced_tiny(tiny_nlp, tmp_path):
    data = read_sense_sentences(write_sense_sentences(tmp_path / "senses.jsonl"))
    report = evaluate_senses(tiny_nlp, data)
    assert (report.n_lemmas, report.n_sentences) == (2, 8)
    assert set(report.methods) == {"induced"}  # no sense inventory in this pipeline
    gold = [["s1", "s2", "s1", "s3", "s2"], ["p1", "p2", "p1"]]
    assert report.baselines[ONE_SENSE].to_dict() == clustering_scores(gold, [[0] * 5, [0] * 3]).to_dict()
    assert report.baselines[ONE_SENSE].recall == 1.0 and report.baselines[ONE_PER_SENTENCE].precision is None
    # The induced labels are those of ops.senses on the targets' own context vectors.
    rows = [0, 1, 2, 3, 4, 5, 6, 7]
    targets = sense_targets(tiny_nlp, [data.words[i] for i in rows], data.positions[rows])
    for k in rows:
        expected = tiny_nlp(" ".join(data.words[k]))[int(data.positions[k])]._.context_vec
        assert np.allclose(targets.vectors[k], expected, atol=1e-5)
    assert targets.contexts is not None and targets.contexts.shape == targets.vectors.shape
    labels, _ = induced_labels(targets.vectors, [[0, 1, 2, 3, 4], [5, 6, 7]], contexts=targets.contexts)
    assert report.details["context"].startswith("token joined to the mean vector of 5 tokens")
    assert report.methods["induced"].to_dict() == clustering_scores(gold, labels).to_dict()
    assert (report.methods["induced"].n_polysemous, report.methods["induced"].n_monosemous) == (2, 0)
    assert report.details["sense_space"] == "fitted on the file's target vectors"
    assert report.details["split_thresholds"].startswith("types split where this corpus's evidence says")
    assert report.details["split_thresholds"].endswith("(no sense inventory: the default induction settings)")
    assert report.details["lemmas_left_out"] == len(set(data.lemmas)) - 2
    assert report.details["sentences_left_out"] == len(data) - 8
    # --per-lemma: the first N sentences of each lemma.
    two = evaluate_senses(tiny_nlp, data, per_lemma=2)
    assert (two.n_lemmas, two.n_sentences) == (2, 4)
    assert two.baselines[ONE_SENSE].precision == 0.0  # both first pairs differ in gold


def test_evaluate_senses_no_pairs_is_a_coded_error(tiny_nlp, tmp_path):
    singles = [SENSE_SENTENCES[0], SENSE_SENTENCES[5], SENSE_SENTENCES[8]]  # one sentence per lemma
    data = read_sense_sentences(write_sense_sentences(tmp_path / "single.jsonl", singles, key="sense"))
    with pytest.raises(CtxvecError, match=r"\[CTX-E630\].*3 rows \(3 lemmas\)"):
        evaluate_senses(tiny_nlp, data)


SENSE_CORPUS = [
    "he cashed a check at the bank today",
    "a huge bank of earth fell",
    "the bank lent us money",
    "he operated a bank of switches",
    "we sat on the river bank",
    "the bank closed at noon",
    "we play chess",
    "the play was long",
    "children play outside",
    "they play music",
]


def build_sense_nlp(model_dir, min_tokens: int = 3):
    """Tiny transformer + ctxvec_static (its input embeddings) + ctxvec_context +
    ctxvec_polysemy with senses induced from a small corpus by the spread rule;
    split_threshold 0 so that sampled types with >= ``min_tokens`` rows split (fewer: one
    sense)."""
    from .conftest import transformer_config

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(model_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_static")
    nlp.add_pipe("ctxvec_context")
    component = nlp.add_pipe(
        "ctxvec_polysemy",
        config={
            "min_count": 3,
            "induction": {
                "split_threshold": 0.0,
                "min_tokens": min_tokens,
                "cut_distance": 0.01,
                "min_support": 1,
                "split_by_evidence": False,
            },
        },
    )
    nlp.initialize()
    component.initialize(nlp=nlp, corpus=lambda vocab: iter(SENSE_CORPUS), sample_size=16)
    assert component.senses is not None and component.senses.n_senses("bank") >= 2
    return nlp


@pytest.fixture(scope="module")
def sense_nlp(tiny_bert_dir):
    return build_sense_nlp(tiny_bert_dir)


def test_evaluate_senses_assigned_are_the_tokens_senses(sense_nlp, tmp_path):
    data = read_sense_sentences(write_sense_sentences(tmp_path / "senses.jsonl"))
    report = evaluate_senses(sense_nlp, data)
    assert set(report.methods) == {"induced", "assigned"}
    assert report.details["sense_space"] == "of the pipeline's sense inventory"
    assert report.details["split_thresholds"] == "split threshold 0 at every sample size"  # the inventory's setting
    expected_gold, expected_labels = [], []
    for rows in data.by_lemma().values():
        tokens = [sense_nlp(" ".join(data.words[i]))[int(data.positions[i])] for i in rows]
        if all(token._.sense is not None for token in tokens):
            expected_gold.append([data.senses[i] for i in rows])
            expected_labels.append([f"{token.lower_}|{token._.sense}" for token in tokens])
    assert report.details["assigned_lemmas"] == len(expected_gold) >= 1
    assert report.methods["assigned"].to_dict() == clustering_scores(expected_gold, expected_labels).to_dict()
    assert report.methods["assigned"].mean_senses > 1.0  # bank is split in this inventory


def test_evaluate_scws_sense_and_static_rows(sense_nlp, tiny_nlp, tmp_path):
    rows = [
        ("bank", "the <b> bank </b> lent us money", "bank", "we sat on the river <b> bank </b>", 3.0),
        ("bank", "he cashed a check at the <b> bank </b>", "bank", "a huge <b> bank </b> of earth", 2.0),
        ("play", "we <b> play </b> chess", "play", "the <b> play </b> was long", 6.0),
        ("play", "children <b> play </b> outside", "bank", "the <b> bank </b> closed", 1.0),
        ("pen", "a <b> pen </b>", "bank", "the <b> bank </b> closed", 4.0),
    ]
    path = tmp_path / "ratings.txt"
    path.write_text(
        "".join(f"{i}\t{w1}\tn\t{w2}\tn\t{c1}\t{c2}\t{s}\n" for i, (w1, c1, w2, c2, s) in enumerate(rows)),
        encoding="utf8",
    )
    report = evaluate_scws(sense_nlp, read_scws(path), "ratings.txt")
    cosines, static_cosines, context_cosines, covered = [], [], [], []

    def cosine(a, b):
        return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))

    for _, first, _, second, _ in rows:
        tokens = []
        for context in (first, second):
            words = context.split()
            tokens.append(sense_nlp(" ".join(w for w in words if w not in ("<b>", "</b>")))[words.index("<b>")])
        covered.append(all(t._.sense is not None for t in tokens))
        if covered[-1]:
            cosines.append(cosine(tokens[0]._.sense_vec, tokens[1]._.sense_vec))
            context_cosines.append(cosine(tokens[0]._.context_vec, tokens[1]._.context_vec))
            # Rounded: the same word's vector twice must tie at 1.0, not differ in float32 noise.
            static_cosines.append(round(cosine(tokens[0]._.static_vec, tokens[1]._.static_vec), 6))
    assert covered == [True, True, True, True, False]  # pen was never seen: no sense
    assert report.details["sense_vec_covered"] == 4 and report.details["sense_vec_coverage"] == pytest.approx(0.8)
    assert type(report.details["sense_vec_covered"]) is int and type(report.details["static_vec_covered"]) is int
    assert report.details["sense_vec"] == pytest.approx(spearmanr([3.0, 2.0, 6.0, 1.0], cosines).statistic)
    # The contextual baseline on the same four pairs (the pipeline's own token._.context_vec).
    assert report.details["context_vec_on_sense_covered"] == pytest.approx(
        spearmanr([3.0, 2.0, 6.0, 1.0], context_cosines).statistic
    )
    assert sorted(context_cosines) != sorted(cosines)  # a row of its own, not the sense vectors' again
    # The fair static baseline: static_vec on the same four pairs (all five have one).
    assert report.details["static_vec_covered"] == 5.0
    assert report.details["static_vec_on_sense_covered"] == pytest.approx(
        spearmanr([3.0, 2.0, 6.0, 1.0], static_cosines).statistic
    )
    # Without senses (tiny_nlp): no sense rows, and no static rows without ctxvec_static.
    plain = evaluate_scws(tiny_nlp, read_scws(path), "ratings.txt")
    assert "sense_vec" not in plain.details and "static_vec" not in plain.details


def test_induced_labels_use_the_inventorys_own_split_thresholds():
    from spacy_ctxvec.ops.senses import SenseSpace

    rng = np.random.default_rng(3)
    # two tight groups of 5: each a sense of at least min_support (3) occurrences
    vectors = np.vstack([0.1 * rng.normal(size=(5, 8)) + np.eye(8)[0], 0.1 * rng.normal(size=(5, 8)) + np.eye(8)[1]])
    space = SenseSpace(np.zeros(8), np.zeros((0, 8)))
    groups = [list(range(10))]
    spread = {"split_rule": "spread", "split_threshold": None}
    never, _ = induced_labels(vectors, groups, space, {**spread, "split_thresholds": [[4, 2.0], [64, 2.0]]})
    always, _ = induced_labels(vectors, groups, space, {**spread, "split_thresholds": [[4, 0.0], [64, 0.0]]})
    assert len(set(never[0].tolist())) == 1 and len(set(always[0].tolist())) >= 2
    fixed, _ = induced_labels(vectors, groups, space, {**spread, "split_threshold": 2.0, "split_thresholds": None})
    assert len(set(fixed[0].tolist())) == 1


def test_induced_labels_follow_the_evidence_rule_by_default():
    """Settings that record the evidence rule, or no rule (the default), split each group
    on its own evidence: two tight groups of 5 split along them, one tight group does not."""
    from spacy_ctxvec.ops.senses import SenseSpace

    rng = np.random.default_rng(3)
    two = np.vstack([0.1 * rng.normal(size=(5, 8)) + np.eye(8)[0], 0.1 * rng.normal(size=(5, 8)) + np.eye(8)[1]])
    one = 0.1 * rng.normal(size=(10, 8)) + np.eye(8)[2]
    vectors, space = np.vstack([two, one]), SenseSpace(np.zeros(8), np.zeros((0, 8)))
    groups = [list(range(10)), list(range(10, 20))]
    for settings in ({}, {"split_rule": "evidence"}):
        labels, _ = induced_labels(vectors, groups, space, settings)
        assert sorted(labels[0].tolist()) == [0] * 5 + [1] * 5 and len(set(labels[0][:5].tolist())) == 1
        assert set(labels[1].tolist()) == {0}


def test_evaluate_senses_splits_as_the_probe_decides_where_the_inventory_did(sense_nlp, tmp_path):
    import copy

    from spacy_ctxvec.lexicon.polysemy_probe import PolysemyProbe, probe_features

    nlp = copy.deepcopy(sense_nlp)
    component = nlp.get_pipe("ctxvec_polysemy")
    lexicon = component.lexicon
    features, valid = probe_features(lexicon, component.min_count)
    wanted = np.array([np.log(9.0) if key == "play" else 0.0 for key in lexicon.keys])  # play: 9 senses, the rest 1
    weights, *_ = np.linalg.lstsq(features[valid], wanted[valid], rcond=None)
    component.set_probe(PolysemyProbe(weights, 0.0, {"width": lexicon.width, "key": "lower", "split_senses": 3.0}))
    inventory = component.build_senses()
    assert inventory.settings["split_rule"] == "probe"
    assert inventory.n_senses("bank") == 1 and inventory.n_senses("play") >= 2
    data = read_sense_sentences(write_sense_sentences(tmp_path / "senses.jsonl"))
    report = evaluate_senses(nlp, data)
    assert report.details["split_by_probe_lemmas"] == 2
    assert report.details["split_thresholds"].startswith(
        "types split where the polysemy probe estimates more than 3.00"
    )
    rows = sorted(row for group in data.by_lemma().values() for row in group)
    targets = sense_targets(nlp, [data.words[i] for i in rows], data.positions[rows])
    labels, _ = induced_labels(
        targets.vectors,
        [[0, 1, 2, 3, 4], [5, 6, 7]],
        inventory.space,
        inventory.settings,
        contexts=targets.contexts,
        context_space=inventory.context_space,
        split_decisions=[False, True],
    )
    assert (labels[0] == 0).all()  # bank: the probe says one sense, whatever the spread
    gold = [["s1", "s2", "s1", "s3", "s2"], ["p1", "p2", "p1"]]
    assert report.methods["induced"].to_dict() == clustering_scores(gold, labels).to_dict()


def test_a_pipeline_that_retokenizes_after_ctxvec_context_is_refused(tiny_bert_dir):
    """evaluate reads the target at its position in the given words: after a merge the
    position names another token, so E042 instead of another token's vector."""
    from spacy.language import Language

    from .conftest import make_trf_nlp

    @Language.component("test_merge_first_two_for_evaluate")
    def merge_first_two(doc):
        with doc.retokenize() as retokenizer:
            retokenizer.merge(doc[0:2])
        return doc

    components = ["ctxvec_context", "test_merge_first_two_for_evaluate"]
    nlp = make_trf_nlp(str(tiny_bert_dir), components=components, window=8, stride=6)
    with pytest.raises(CtxvecError, match=r"CTX-E042.*'evaluate'"):
        sense_targets(nlp, [["the", "river", "bank"]], np.array([2]))


def test_evaluate_senses_without_an_inventory_induces_with_the_pipelines_own_induction_settings(
    tiny_bert_dir, tmp_path
):
    """A pipeline whose ctxvec_polysemy has no senses yet: its [induction] block decides
    (it was ignored: the report named a rule that did not run)."""
    import spacy

    from spacy_ctxvec.ops.senses import SenseInductionSettings

    from .conftest import transformer_config

    data = read_sense_sentences(write_sense_sentences(tmp_path / "senses.jsonl"))
    rows, groups = [0, 1, 2, 3, 4, 5, 6, 7], [[0, 1, 2, 3, 4], [5, 6, 7]]
    gold = [["s1", "s2", "s1", "s3", "s2"], ["p1", "p2", "p1"]]
    reports, expected = {}, {}
    for evidence in (True, False):
        nlp = spacy.blank("en")
        nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
        nlp.add_pipe("ctxvec_context")
        induction = {"split_by_evidence": evidence, "context_weight": 0.0, "split_threshold": 0.0}
        induction.update(min_support=1, min_share=0.0, min_tokens=3)
        nlp.add_pipe("ctxvec_polysemy", config={"induction": induction})
        nlp.initialize()
        reports[evidence] = evaluate_senses(nlp, data)
        # the labels the block's own settings give, induced directly on the same targets
        settings = {**SenseInductionSettings(**induction).to_dict(), "split_rule": "evidence" if evidence else "spread"}
        targets = sense_targets(nlp, [data.words[i] for i in rows], data.positions[rows])
        expected[evidence] = clustering_scores(gold, induced_labels(targets.vectors, groups, None, settings)[0])
    spread, evidence_rule = reports[False].details, reports[True].details
    assert spread["split_thresholds"] == (
        "split threshold 0 at every sample size (no sense inventory: the settings of "
        "[components.ctxvec_polysemy.induction])"
    )
    assert evidence_rule["split_thresholds"].startswith("types split where this corpus's evidence says")
    assert spread["context"] == evidence_rule["context"] == "none (token vectors alone)"  # context_weight 0
    # each rule's own labels (how many senses each gives depends on the random model's vectors)
    for evidence in (True, False):
        assert reports[evidence].methods["induced"].to_dict() == expected[evidence].to_dict()
    assert expected[True].to_dict() != expected[False].to_dict()  # the two rules label these targets apart
