import re

import numpy as np
import pytest
import spacy
import srsly
from spacy.tokens import Doc

from spacy_ctxvec.building.corpus import configure_lexicon_corpus
from spacy_ctxvec.building.shard import partial_lexicon
from spacy_ctxvec.components.model_inputs import pipeline_model_fingerprint
from spacy_ctxvec.components.polysemy import Polysemy
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.senses import SenseInductionSettings
from spacy_ctxvec.saved_pipeline import load_lexicon

SENSE_CORPUS = [
    # bank: money (8) and river (4)
    "She deposited her salary at the bank on Monday.",
    "The bank approved the loan for the new house.",
    "He opened a savings account at the bank downtown.",
    "The bank charged a fee for the wire transfer.",
    "Interest rates at the bank rose again this year.",
    "The robbers broke into the bank vault at night.",
    "My bank sent me a new credit card.",
    "The central bank raised interest rates.",
    "We had a picnic on the grassy bank of the river.",
    "The boat drifted towards the muddy bank.",
    "Ducks rested on the bank of the stream.",
    "Reeds grow along the river bank.",
    # play: theatre, games, music, sport
    "The children play football in the park.",
    "We went to see a play by Shakespeare.",
    "She can play the violin beautifully.",
    "Press play to start the video.",
    "The actors rehearsed the play for weeks.",
    "Let the dogs play in the garden.",
    "He likes to play chess with his father.",
    "The band will play our favourite song.",
    "There was some play in the loose steering wheel.",
    "The new policy came into play last year.",
    # hotel: one sense
    "We booked a hotel near the beach.",
    "The hotel had a lovely swimming pool.",
    "Our hotel room overlooked the harbour.",
    "The hotel staff were very friendly.",
    "They stayed at a cheap hotel in the city centre.",
    "The hotel served breakfast until ten.",
    "A new hotel opened next to the station.",
    "The hotel lobby was full of tourists.",
    "He checked into the hotel late at night.",
    "The hotel was fully booked for the festival.",
]


@pytest.fixture(scope="module")
def minilm_lexicon(default_nlp) -> Lexicon:
    return partial_lexicon(default_nlp, SENSE_CORPUS, batch_size=16)


@pytest.fixture(scope="module")
def scorer(minilm_lexicon) -> Polysemy:
    component = Polysemy(min_count=2)
    component.set_lexicon(minilm_lexicon)
    return component


def _token(doc: Doc, text: str):
    return next(t for t in doc if t.lower_ == text)


@pytest.mark.slow
def test_default_pipeline_has_the_component_with_an_empty_lexicon(default_nlp):
    assert default_nlp.pipe_names.index("ctxvec_polysemy") == default_nlp.pipe_names.index("ctxvec_context") + 1
    doc = default_nlp("The bank by the river.")
    assert all(t._.polysemy_score is None and t._.context_shift is None and t._.polysemy_count == 0 for t in doc)


@pytest.mark.slow
def test_polysemous_words_score_above_a_monosemous_one(minilm_lexicon):
    scores, valid = minilm_lexicon.polysemy_scores(min_count=5)
    score = {w: scores[minilm_lexicon.index(w)] for w in ("bank", "play", "hotel")}
    assert all(valid[minilm_lexicon.index(w)] for w in score)
    assert score["bank"] > score["hotel"]
    assert score["play"] > score["hotel"]


@pytest.mark.slow
def test_token_attributes_and_unusual_use_shifts_more(default_nlp, scorer, minilm_lexicon):
    usual = scorer(default_nlp("He paid the money into his account at the bank."))
    unusual = scorer(default_nlp("Frogs jumped off the wet bank into the river water."))
    bank_usual, bank_unusual = _token(usual, "bank"), _token(unusual, "bank")
    scores, _ = minilm_lexicon.polysemy_scores(2)
    assert bank_usual._.polysemy_score == pytest.approx(scores[minilm_lexicon.index("bank")])
    assert bank_usual._.polysemy_count == 12
    assert bank_unusual._.context_shift > bank_usual._.context_shift > 0
    unseen = _token(usual, "paid")
    assert unseen._.polysemy_score is None and unseen._.polysemy_count == 0 and unseen._.context_shift is None
    restored = Doc(default_nlp.vocab).from_bytes(usual.to_bytes())
    assert _token(restored, "bank")._.context_shift == bank_usual._.context_shift


@pytest.mark.slow
def test_serialization_round_trips(default_nlp, scorer, tmp_path):
    doc = default_nlp("The bank of the river.")
    expected = scorer(doc)._.ctxvec_polysemy.copy()
    scorer.to_disk(tmp_path / "component")
    from_disk = Polysemy(min_count=2).from_disk(tmp_path / "component")
    from_bytes = Polysemy(min_count=2).from_bytes(scorer.to_bytes())
    for component in (from_disk, from_bytes):
        assert component.lexicon == scorer.lexicon
        np.testing.assert_array_equal(component(doc)._.ctxvec_polysemy, expected)
    assert load_lexicon(tmp_path / "component" / "lexicon") == scorer.lexicon


@pytest.mark.slow
def test_lexicon_of_another_width_is_a_clear_error(default_nlp, tmp_path):
    other = Lexicon.from_occurrences(["bank", "bank"], np.random.default_rng(0).normal(size=(2, 32)))
    component = Polysemy(min_count=2)
    component.set_lexicon(other)
    with pytest.raises(CtxvecError, match="E219.*width 32.*width 384"):
        component(default_nlp("the bank"))
    other.to_disk(tmp_path / "lex32")
    with pytest.raises(CtxvecError, match="E219"):
        Polysemy(min_count=2).initialize(nlp=default_nlp, lexicon_path=tmp_path / "lex32")


def test_placed_before_ctxvec_context_is_e218_with_or_without_a_lexicon(tiny_pipeline_dir):
    """Not None for every token while the lexicon is empty and E218 once it is built."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_polysemy")  # empty lexicon, no vectors before it
    with pytest.raises(CtxvecError, match=r"\[CTX-E218\].*'transformer' and 'ctxvec_context' before"):
        nlp("the bank")
    assert len(nlp("")) == 0  # an empty text has nothing to look up
    after = spacy.load(tiny_pipeline_dir)
    after.add_pipe("ctxvec_polysemy")  # after ctxvec_context: no lexicon, no score, no error
    assert after("the bank")[1]._.polysemy_score is None
    # placed before ctxvec_context: the message shows the pipeline's order (it said "(this Doc's pipeline)")
    before = spacy.load(tiny_pipeline_dir)
    before.add_pipe("ctxvec_polysemy", before="ctxvec_context")
    with pytest.raises(CtxvecError, match=r"E218.*pipeline \['transformer', 'ctxvec_polysemy', 'ctxvec_context'\]"):
        before("the bank")
    # ctxvec_context disabled: the message says so (it listed the enabled components only)
    with after.select_pipes(disable=["ctxvec_context"]):
        with pytest.raises(
            CtxvecError, match=r"E218.*\['transformer', 'ctxvec_polysemy'\] \(disabled: \['ctxvec_context'\]\)"
        ):
            after("the bank")
    # made outside a pipeline: "The pipeline that made this Doc needs ..." (it read "(this Doc's pipeline)")
    with pytest.raises(CtxvecError, match=r"E218\] .*The pipeline that made this Doc needs 'transformer'"):
        Polysemy(min_count=2)(after.make_doc("the bank"))


def test_key_mismatch_and_bad_settings():
    lexicon = Lexicon.from_occurrences(["a", "a"], np.ones((2, 3)), meta={"key": "text"})
    with pytest.raises(CtxvecError, match="E220"):
        Polysemy(key="lower").set_lexicon(lexicon)
    with pytest.raises(CtxvecError, match="E216"):
        Polysemy(key="shape")
    with pytest.raises(CtxvecError, match="E208"):
        Polysemy(min_count=1)
    # a config's min_count = "5" arrives as text (spaCy validates it as an int, then passes the string on):
    # read as 5, not a TypeError; text that is no number is E208 naming it
    assert Polysemy(min_count="5").min_count == 5  # type: ignore[arg-type]
    assert Polysemy(min_count=np.int64(5)).min_count == 5  # type: ignore[arg-type]  # as numpy hands it out
    with pytest.raises(CtxvecError, match=r"E208.*got 'five'"):
        Polysemy(min_count="five")  # type: ignore[arg-type]


def test_initialize_from_config_lexicon_path_and_from_corpus(tiny_bert_dir, tiny_nlp, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the bank of the river\nthe bank loan\nwe sat on the bank\n", encoding="utf8")
    lexicon = partial_lexicon(tiny_nlp, ["the bank of the river", "the bank loan", "we sat on the bank"], batch_size=8)
    lexicon.to_disk(tmp_path / "lex")
    nlp = spacy.blank("en")
    from .conftest import transformer_config

    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {"lexicon_path": str(tmp_path / "lex")}
    nlp.initialize()
    assert nlp.get_pipe("ctxvec_polysemy").lexicon == lexicon
    assert _token(nlp("the bank"), "bank")._.polysemy_count == 3
    built = Polysemy(min_count=2)
    built.initialize(nlp=nlp, corpus=configure_lexicon_corpus(str(corpus)))
    assert built.lexicon.counts[built.lexicon.index("bank")] == 3
    with pytest.raises(CtxvecError, match="E227"):
        built.initialize(nlp=nlp, lexicon_path=tmp_path / "lex", corpus=configure_lexicon_corpus(str(corpus)))
    nlp.to_disk(tmp_path / "pipeline")
    reloaded = spacy.load(tmp_path / "pipeline")
    assert reloaded.get_pipe("ctxvec_polysemy").lexicon == lexicon
    assert load_lexicon(tmp_path / "pipeline") == lexicon


def test_a_lexicon_path_of_other_layers_is_refused_at_initialize(tiny_bert_dir, tiny_nlp, tmp_path):
    """[initialize] lexicon_path naming a lexicon built from another layer passed initialize
    (and spacy assemble saved the pipeline): E043 came only at the first Doc. Now at initialize,
    disabled (frozen) components before it run for the check, and are left disabled."""
    from .conftest import transformer_config

    texts = ["the bank of the river", "the bank loan", "we sat on the bank"]
    partial_lexicon(tiny_nlp, texts, batch_size=8).to_disk(tmp_path / "last")

    def layers_of(layers):
        return {"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": layers}}

    def pipeline(layers, by_sentence=False):
        nlp = spacy.blank("en")
        if by_sentence:
            nlp.add_pipe("sentencizer")
        config = transformer_config(str(tiny_bert_dir), window=8, stride=6)
        if by_sentence:  # windows that are sentences: they need sentence starts
            config["model"]["get_spans"] = {"@span_getters": "spacy-transformers.sent_spans.v1"}
        nlp.add_pipe("transformer", config=config)
        nlp.add_pipe("ctxvec_context", config={"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": layers}})
        nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
        nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {"lexicon_path": str(tmp_path / "last")}
        return nlp

    with pytest.raises(CtxvecError, match=r"CTX-E043.*'the last layer, pooled by pool_mean, model \w+'.*'layer 1 of 2"):
        pipeline([1]).initialize()
    frozen = pipeline([1])
    frozen.disable_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"CTX-E043"):
        frozen.initialize()
    assert frozen.disabled == ["ctxvec_context"]
    same = pipeline([-1])  # the last layer, named another way
    same.initialize()
    assert _token(same("the bank"), "bank")._.polysemy_count == 3
    # a transformer whose windows are sentences (sent_spans): the probe text is one sentence
    with pytest.raises(CtxvecError, match=r"CTX-E043.*checked at initialize"):
        pipeline([1], by_sentence=True).initialize()
    pipeline([-1], by_sentence=True).initialize()
    # two contexts: the one the component reads is the last enabled one before it
    two = pipeline([-1])
    two.add_pipe("ctxvec_context", name="context_of_layer_1", before="ctxvec_polysemy", config=layers_of([1]))
    two.disable_pipe("context_of_layer_1")
    two.initialize()
    # the check runs the transformer and ctxvec_context alone: a lemma setter after ctxvec_polysemy
    # and a disabled component before it are never called before their own initialize
    for where in ("after", "disabled before"):
        around = pipeline([-1])
        around.add_pipe("test_needs_initialize", **({"before": "ctxvec_polysemy"} if where != "after" else {}))
        if where != "after":
            around.disable_pipe("test_needs_initialize")
        around.initialize()
        assert _token(around("the bank"), "bank")._.polysemy_count == 3


def test_a_kept_or_sourced_lexicon_of_other_layers_is_refused_at_initialize(tiny_bert_dir, tiny_nlp, tmp_path):
    """A lexicon set with set_lexicon, or sourced with its component, was checked only at the first
    Doc (initialize checked lexicon_path alone): now initialize checks the lexicon it keeps."""
    from .conftest import transformer_config

    lexicon = partial_lexicon(tiny_nlp, ["the bank of the river", "the bank loan", "the bank"], batch_size=8)

    def pipeline(layers, source=None):
        nlp = spacy.blank("en")
        nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
        nlp.add_pipe("ctxvec_context", config={"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": layers}})
        if source is None:
            nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2}).set_lexicon(lexicon)
        else:
            nlp.add_pipe("ctxvec_polysemy", source=source)
        return nlp

    with pytest.raises(CtxvecError, match=r"CTX-E043.*checked at initialize.*'layer 1 of 2"):
        pipeline([1]).initialize()
    same = pipeline([-1])
    same.initialize()
    assert _token(same("the bank"), "bank")._.polysemy_count == 3
    with pytest.raises(CtxvecError, match=r"CTX-E043.*checked at initialize"):
        pipeline([1], source=same).initialize()
    pipeline([-1], source=same).initialize()


def initialize_corpus_pipeline(tiny_bert_dir, tmp_path, names, configs=None):
    """blank en + tiny transformer + ``names`` (factories of the same name, or (name, factory) pairs),
    each ctxvec_polysemy building its lexicon in initialize from SENSE_LINES."""
    from .conftest import transformer_config

    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "corpus.txt").write_text("\n".join(SENSE_LINES) + "\n", encoding="utf8")
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    for entry in names:
        name, factory = entry if isinstance(entry, tuple) else (entry, entry)
        nlp.add_pipe(factory, name=name, config=(configs or {}).get(name, {}))
        if factory == "ctxvec_polysemy":
            corpus = {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(tmp_path / "corpus.txt")}
            nlp.config["initialize"]["components"][name] = {"corpus": corpus, "sample_size": 16}
    return nlp


def test_a_context_after_ctxvec_polysemy_is_not_the_one_its_width_is_checked_against(tiny_bert_dir, tmp_path):
    """A second ctxvec_context after ctxvec_polysemy (twice as wide) gave E219 at initialize: the width was
    that of the pipeline's last ctxvec_context, not of the one ctxvec_polysemy reads."""
    concat = {"layers": {"@misc": "spacy-ctxvec.concat_layers.v1", "layers": [1, 2]}}
    names = ["ctxvec_context", "ctxvec_polysemy", ("wide", "ctxvec_context")]
    nlp = initialize_corpus_pipeline(
        tiny_bert_dir, tmp_path, names, {"ctxvec_polysemy": {"min_count": 2}, "wide": concat}
    )
    nlp.initialize()
    assert _token(nlp("the bank of the river"), "bank")._.polysemy_count > 0
    assert nlp.get_pipe("wide").width == 2 * nlp.get_pipe("ctxvec_context").width


@spacy.Language.component("test_upper_lemmas", assigns=["token.lemma"])
def upper_lemmas(doc):
    for token in doc:
        token.lemma_ = token.text.upper()
    return doc


def test_a_lemma_lexicon_counts_the_lemmas_its_pipeline_reads_and_each_component_is_checked_alone(
    tiny_bert_dir, tmp_path
):
    """A lemma setter after ctxvec_polysemy ran while it built its lexicon from a corpus though one before it
    set the lemmas it reads: keys in upper case that no Doc matched. E275 looked at the first ctxvec_polysemy,
    not the one building; and at spacy train's initialize, frozen lemma setters before it were not seen."""
    from .test_building_local import strip_s_lemmas  # noqa: F401  (registers test_strip_s_lemmas)

    lemma = {"min_count": 2, "key": "lemma"}
    names = ["test_strip_s_lemmas", "ctxvec_context", "ctxvec_polysemy", "test_upper_lemmas"]
    nlp = initialize_corpus_pipeline(tiny_bert_dir, tmp_path / "a", names, {"ctxvec_polysemy": lemma})
    nlp.initialize()
    assert "bank" in nlp.get_pipe("ctxvec_polysemy").lexicon and "BANK" not in nlp.get_pipe("ctxvec_polysemy").lexicon
    with nlp.select_pipes(disable=["test_upper_lemmas"]):
        assert _token(nlp("the bank of the river"), "bank")._.polysemy_count > 0
    two = ["ctxvec_context", ("by_lower", "ctxvec_polysemy"), "test_strip_s_lemmas", ("by_lemma", "ctxvec_polysemy")]
    configs = {"by_lower": {"min_count": 2}, "by_lemma": lemma}
    nlp = initialize_corpus_pipeline(tiny_bert_dir, tmp_path / "b", two, configs)
    nlp.initialize()  # E275 named by_lower, which reads no lemmas
    assert "bank" in nlp.get_pipe("by_lemma").lexicon
    frozen = initialize_corpus_pipeline(tiny_bert_dir, tmp_path / "c", names[:3], {"ctxvec_polysemy": lemma})
    frozen.initialize()
    with frozen.select_pipes(disable=["test_strip_s_lemmas", "transformer", "ctxvec_context"]):
        frozen.initialize()  # as spacy train, its frozen components disabled: E217 said none set lemmas


class NeedsInitialize:
    """A component that fails when called before its initialize, as spaCy's lemmatizer does."""

    ready = False

    def initialize(self, get_examples=None, nlp=None):
        self.ready = True

    def __call__(self, doc):
        assert self.ready, "called before initialize"
        return doc


@spacy.Language.factory("test_needs_initialize", assigns=["token.lemma"])
def make_needs_initialize(nlp, name):
    return NeedsInitialize()


def test_build_lexicon_loads_a_cfg_without_the_lexicon_it_replaces(tiny_bert_dir, tiny_nlp, tmp_path):
    """build-lexicon on a .cfg whose [initialize] names a lexicon of other layers (or builds one
    from a corpus) stopped at E043, or built that lexicon first: it loads without it."""
    from spacy_ctxvec.pipelines import load_pipeline

    from .conftest import transformer_config

    partial_lexicon(tiny_nlp, ["the bank of the river", "the bank loan"], batch_size=8).to_disk(tmp_path / "last")
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {"lexicon_path": str(tmp_path / "last")}
    nlp.config.to_disk(tmp_path / "p.cfg")
    at_initialize = r"CTX-E043\] 'ctxvec_polysemy' is in a pipeline \(checked at initialize\).*the pipeline's"
    with pytest.raises(CtxvecError, match=at_initialize):
        load_pipeline(tmp_path / "p.cfg", layer=1)
    loaded = load_pipeline(tmp_path / "p.cfg", layer=1, initialize_lexicons=False)
    assert loaded.get_pipe("ctxvec_polysemy").lexicon is None


# Loading damaged or incomplete saved state (issue 12)
def saved_component(tmp_path):
    component = Polysemy(min_count=2)
    component.set_lexicon(
        Lexicon.from_occurrences(["bank", "bank", "river"], np.random.default_rng(0).normal(size=(3, 4)))
    )
    component.to_disk(tmp_path / "component")
    return component, tmp_path / "component"


def test_deleted_lexicon_directory_is_an_error_not_an_empty_lexicon(tmp_path):
    import shutil

    component, path = saved_component(tmp_path)
    assert Polysemy(min_count=2).from_disk(path).lexicon == component.lexicon
    shutil.rmtree(path / "lexicon")
    with pytest.raises(CtxvecError, match=r"E249.*ctxvec_polysemy.*lexicon.*missing"):
        Polysemy(min_count=2).from_disk(path)
    (path / "cfg.json").write_text("{not json", encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E249.*cfg\.json is damaged"):
        Polysemy(min_count=2).from_disk(path)
    Polysemy(min_count=2).to_disk(tmp_path / "without")  # saved without a lexicon: loads without one
    assert Polysemy(min_count=2).from_disk(tmp_path / "without").lexicon is None


def test_deleted_lexicon_directory_fails_spacy_load(tiny_nlp, tmp_path):
    import copy
    import shutil

    from spacy_ctxvec.components.polysemy import ensure_polysemy_component

    nlp = copy.deepcopy(tiny_nlp)
    component = ensure_polysemy_component(nlp, "lower", 2)
    component.set_lexicon(partial_lexicon(nlp, ["the bank of the river", "the bank"], batch_size=8))
    nlp.to_disk(tmp_path / "pipeline")
    assert spacy.load(tmp_path / "pipeline").get_pipe("ctxvec_polysemy").lexicon == component.lexicon
    shutil.rmtree(tmp_path / "pipeline" / "ctxvec_polysemy" / "lexicon")
    with pytest.raises(CtxvecError, match="E249"):
        spacy.load(tmp_path / "pipeline")


def test_a_new_min_count_keeps_the_components_other_settings(tiny_nlp):
    """build-lexicon --min-count on a pipeline whose ctxvec_polysemy has its own score,
    senses and induction settings: only key and min_count change."""
    import copy

    from spacy_ctxvec.components.polysemy import ensure_polysemy_component

    nlp = copy.deepcopy(tiny_nlp)
    settings = {"min_count": 5, "score": "self_similarity", "induction": {"cut_distance": 0.3, "max_senses": 3}}
    nlp.add_pipe("ctxvec_polysemy", config=settings)
    component = ensure_polysemy_component(nlp, "lower", 2)
    assert component is nlp.get_pipe("ctxvec_polysemy") and component.min_count == 2
    assert component.score_definition == "self_similarity"
    assert (component.induction.cut_distance, component.induction.max_senses) == (0.3, 3)
    assert nlp.config["components"]["ctxvec_polysemy"]["score"] == "self_similarity"


@pytest.mark.parametrize(
    "file,damage,problem",
    [
        ("counts.npy", lambda data: data[:-4], "counts.npy is truncated"),
        ("unit_sums.npy", lambda data: b"", "unit_sums.npy is truncated"),
        ("keys.json", lambda data: data[:-2], "keys.json is not valid JSON"),
        ("keys.json", lambda data: b'["bank", 3]', "keys.json is not a list of strings"),
        ("keys.json", lambda data: b'["bank"]', "Lexicon arrays disagree"),
        ("lexicon.json", lambda data: b'{"format_version": 1, "unit_scale_bits": 30}', "no integer 'width'"),
    ],
)
def test_damaged_saved_lexicon_is_a_coded_error_naming_the_path(tmp_path, file, damage, problem):
    _, path = saved_component(tmp_path)
    target = path / "lexicon" / file
    target.write_bytes(damage(target.read_bytes()))
    with pytest.raises(CtxvecError, match=r"E207.*component/lexicon.*" + problem):
        Polysemy(min_count=2).from_disk(path)


def test_damaged_bytes_are_a_coded_error():
    component = Polysemy(min_count=2)
    component.set_lexicon(Lexicon.from_occurrences(["a", "a"], np.ones((2, 3))))
    data = component.to_bytes()
    for damaged in (data[: len(data) // 2], data[:-1], b"\x00garbage", b""):
        with pytest.raises(CtxvecError, match="E207"):
            Polysemy(min_count=2).from_bytes(damaged)


def test_exclude_lexicon_in_serialization(tmp_path):
    lexicon = Lexicon.from_occurrences(
        ["a", "a", "b"], np.arange(9, dtype=np.float64).reshape(3, 3) + 1, meta={"key": "lower"}
    )
    component = Polysemy(key="lower")
    component.set_lexicon(lexicon)
    assert Polysemy(key="lower").from_bytes(component.to_bytes(exclude=["lexicon"])).lexicon is None
    assert Polysemy(key="lower").from_bytes(component.to_bytes()).lexicon == lexicon
    other = Polysemy(key="lower")
    assert other.from_bytes(component.to_bytes(), exclude=["lexicon"]).lexicon is None
    component.to_disk(tmp_path / "without", exclude=["lexicon"])
    assert Polysemy(key="lower").from_disk(tmp_path / "without").lexicon is None
    component.to_disk(tmp_path / "with")
    assert Polysemy(key="lower").from_disk(tmp_path / "with").lexicon == lexicon
    kept = Polysemy(key="lower")
    kept.set_lexicon(lexicon)
    assert kept.from_disk(tmp_path / "without", exclude=["lexicon"]).lexicon is lexicon


# Senses (issue 11): induced per type from the lexicon's sample, assigned on every token
SENSE_LINES = [
    "we sat on the river bank",
    "the bank of the river",
    "the river bank and the hotel",
    "i took out a loan from the bank",
    "the bank gave us money",
    "we want money from the bank",
    "the apple and the pen",
    "we eat an apple",
] * 3


def test_a_frozen_polysemy_whose_initialize_lexicon_was_never_built_is_e273(tiny_nlp, tmp_path):
    """As `spacy train` does: init_nlp skips frozen components, so the lexicon [initialize] asks
    for was never built, and every score was silently None in the trained and saved pipeline."""
    from spacy.tokens import DocBin
    from spacy.training.initialize import init_nlp

    tiny_nlp.to_disk(tmp_path / "tiny")
    nlp = spacy.load(tmp_path / "tiny")  # not sourced from tiny_nlp: that would share its components
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    DocBin(docs=[nlp.make_doc("the river bank")]).to_disk(tmp_path / "train.spacy")
    (tmp_path / "corpus.txt").write_text("the river bank\nthe bank lends money\n", encoding="utf8")
    config = nlp.config.copy()
    config["paths"]["train"] = config["paths"]["dev"] = str(tmp_path / "train.spacy")
    config["training"]["frozen_components"] = ["transformer", "ctxvec_context", "ctxvec_polysemy"]
    config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(tmp_path / "corpus.txt")}
    }
    for source in ("transformer", "ctxvec_context"):
        config["components"][source] = {"source": str(tmp_path / "tiny")}
    trained = init_nlp(config)
    with pytest.raises(CtxvecError, match=r"\[CTX-E273\] .*'ctxvec_polysemy' has an empty lexicon.*\(corpus\).*frozen"):
        trained("the river bank")
    trained.to_disk(tmp_path / "saved")
    with pytest.raises(CtxvecError, match=r"\[CTX-E273\]"):
        spacy.load(tmp_path / "saved")("the river bank")
    config["training"]["frozen_components"] = ["transformer", "ctxvec_context"]
    assert init_nlp(config)("the river bank")[2]._.polysemy_count == 2
    del config["initialize"]["components"]["ctxvec_polysemy"]["corpus"]  # an empty lexicon asked for by nobody
    config["training"]["frozen_components"] = ["transformer", "ctxvec_context", "ctxvec_polysemy"]
    assert init_nlp(config)("the river bank")[2]._.polysemy_score is None


def test_a_second_polysemy_component_warns_at_initialize(sense_nlp, tiny_pipeline_dir, tmp_path):
    """A second ctxvec_polysemy (sourced, or with another lexicon) silently replaced the first's
    scores and senses in nlp(text): W074, as W065 says it of two ctxvec_context."""
    import warnings

    sense_nlp.to_disk(tmp_path / "senses")
    nlp = spacy.load(tiny_pipeline_dir)
    nlp.add_pipe("ctxvec_polysemy", name="empty")
    nlp.add_pipe("ctxvec_polysemy", name="banks", source=spacy.load(tmp_path / "senses"))
    with pytest.warns(UserWarning, match=r"\[CTX-W074\].*2 ctxvec_polysemy components \(empty, banks\)"):
        nlp.get_pipe("banks").initialize(nlp=nlp)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp.get_pipe("empty").initialize(nlp=nlp)  # said once, by the last
    assert nlp("the bank")[1]._.sense is not None  # the later one's senses, as W074 says
    nlp.disable_pipe("banks")
    with pytest.warns(UserWarning, match=r"\[CTX-W074\]"):
        nlp.get_pipe("empty").initialize(nlp=nlp)


@pytest.fixture(scope="module")
def sense_nlp(tiny_bert_dir, tmp_path_factory):
    """tiny BERT + ctxvec_context + ctxvec_polysemy whose lexicon (with a 16-row
    sample) and senses are built in initialize from a river/money bank corpus."""
    from .conftest import make_sense_nlp

    return make_sense_nlp(str(tiny_bert_dir), SENSE_LINES, tmp_path_factory.mktemp("sense_corpus"))


def test_a_min_count_raised_at_load_leaves_the_rarer_words_without_senses(sense_nlp, tmp_path):
    """min_count overridden at spacy.load: words seen fewer times get no score and no
    senses (the senses were induced with the lower min_count; were still set)."""
    sense_nlp.to_disk(tmp_path / "pipeline")
    nlp = spacy.load(tmp_path / "pipeline", config={"components": {"ctxvec_polysemy": {"min_count": 7}}})
    lexicon = nlp.get_pipe("ctxvec_polysemy").lexicon
    doc = nlp("we eat an apple by the river bank")
    apple, bank = doc[3], doc[7]
    assert lexicon.count_of("apple") == 6 and sense_nlp("an apple")[1]._.sense is not None
    assert apple._.polysemy_score is None and apple._.sense is None and apple._.n_senses == 0
    assert apple._.sense_label is None and apple._.sense_score is None
    assert lexicon.count_of("bank") >= 7 and bank._.polysemy_score is not None and bank._.sense is not None


def test_lexicon_path_of_a_pipeline_names_its_lexicon_folder_and_brings_senses(sense_nlp, tiny_bert_dir, tmp_path):
    """[initialize] lexicon_path: a whole saved pipeline is E237 naming its lexicon folder
    (was E207 "missing lexicon.json ... save it again"); that folder, with its occurrence
    sample, gives senses under the default senses = true (were none, silently)."""
    from .conftest import transformer_config

    sense_nlp.to_disk(tmp_path / "built")
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "induction": {"cut_distance": 0.3}})
    settings = nlp.config["initialize"]["components"]
    settings["ctxvec_polysemy"] = {"lexicon_path": str(tmp_path / "built")}
    with pytest.raises(CtxvecError, match=r"\[CTX-E237\].*is a saved pipeline.*built/ctxvec_polysemy/lexicon'"):
        nlp.initialize()
    settings["ctxvec_polysemy"] = {"lexicon_path": str(tmp_path / "built" / "ctxvec_polysemy" / "lexicon")}
    nlp.initialize()
    component = nlp.get_pipe("ctxvec_polysemy")
    assert component.senses is not None and component.senses.keys == sense_nlp.get_pipe("ctxvec_polysemy").senses.keys
    assert nlp("the river bank")[2]._.n_senses >= 1


SENSE_TEXTS = ["the bank of the river gave money", "we took a loan from the bank", "the phone and the hotel"]


def same_sentence_and_paragraph(a, b) -> bool:
    """Whether no sentence start (where set) and no run of two line breaks lies between ``a`` and ``b``."""
    doc, (first, last) = a.doc, sorted((a.i, b.i))
    if doc.has_annotation("SENT_START") and any(doc[i].is_sent_start for i in range(first + 1, last + 1)):
        return False
    return not any(doc[i].is_space and doc[i].text.count("\n") >= 2 for i in range(first, last + 1))


def assert_senses_consistent(nlp, docs):
    inventory = nlp.get_pipe("ctxvec_polysemy").senses
    for doc in docs:
        for token in doc:
            n = inventory.n_senses(token.lower_)
            assert token._.n_senses == n
            if n:  # issue 21: the type's corpus evidence, whether or not this token has a sense
                assert token._.corpus_polysemy == pytest.approx(inventory.corpus_polysemy_of(token.lower_), abs=1e-5)
            if n == 0 or not token._.has_context_vec:
                assert token._.sense is None and token._.sense_vec is None
                assert token._.sense_score is None and token._.sense_label is None
                continue
            sense = token._.sense
            assert isinstance(sense, int) and 0 <= sense < n
            context = None
            if inventory.context_space is not None:  # the mean vector of the tokens around it, by hand
                around = [
                    t
                    for t in doc[max(0, token.i - inventory.context_window) : token.i + inventory.context_window + 1]
                    if t.i != token.i and t._.has_context_vec and same_sentence_and_paragraph(t, token)
                ]
                context = (
                    np.mean([t._.context_vec for t in around], axis=0)[None, :]
                    if around
                    else np.zeros((1, doc._.ctxvec_context.shape[1]))
                )
            expected = inventory.assign(inventory.type_rows([token.lower_]), token._.context_vec[None, :], context)[0]
            assert sense == expected
            np.testing.assert_array_equal(token._.sense_vec, inventory.senses_of(token.lower_)[sense].vector)
            score = inventory.assign_scored(inventory.type_rows([token.lower_]), token._.context_vec[None, :], context)
            assert token._.sense_score == pytest.approx(score[1][0], abs=1e-5) and 0.0 <= token._.sense_score <= 1.0
            assert token._.sense_label == inventory.senses_of(token.lower_)[sense].label
        defined = [t._.sense_vec for t in doc if t._.sense is not None]
        np.testing.assert_allclose(doc._.sense_vec, np.mean(defined, axis=0), atol=1e-6)
        np.testing.assert_allclose(
            doc[0:2]._.sense_vec, np.mean([t._.sense_vec for t in doc[0:2] if t._.sense is not None], axis=0), atol=1e-6
        )


def test_initialize_from_a_sampled_corpus_induces_senses_and_tokens_get_them(sense_nlp):
    component = sense_nlp.get_pipe("ctxvec_polysemy")
    inventory = component.senses
    assert inventory is not None and {"bank", "river", "the", "money"} <= set(inventory.keys)
    assert inventory.settings["min_count"] == 2 and inventory.settings["cut_distance"] == 0.3
    assert inventory.width == component.lexicon.width == 32
    docs = [sense_nlp(text) for text in SENSE_TEXTS]
    assert_senses_consistent(sense_nlp, docs)
    phone = docs[2][1]
    assert phone.text == "phone" and phone._.n_senses == 0 and phone._.sense is None and phone._.sense_vec is None
    assert docs[0]._.ctxvec_sense_vec.dtype == np.float32 and docs[0]._.ctxvec_sense_vec.shape == (len(docs[0]), 32)
    assert (docs[0]._.ctxvec_sense_vec[docs[0]._.ctxvec_sense["sense"] < 0] == 0).all()


def test_what_the_component_hands_out_cannot_change_later_docs(sense_nlp):
    """A Sense's vector, the inventory's, lexicon's and sample's arrays and the Doc's labels
    could be written in place: the river bank moved to another sense on every later Doc."""
    component = sense_nlp.get_pipe("ctxvec_polysemy")
    inventory, lexicon = component.senses, component.lexicon
    before = sense_nlp(SENSE_TEXTS[0])
    bank = inventory.senses_of("bank")[0]
    writable = [bank.vector, bank.centroid, inventory.vectors, inventory.centroids, inventory.shares]
    writable += [inventory.offsets, inventory.corpus_polysemy, inventory.space.mean, lexicon.counts]
    writable += [lexicon.unit_sums, lexicon.sample.vectors, lexicon.sample.contexts, lexicon.sample.offsets]
    for array in writable:
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    with pytest.raises(TypeError):
        before._.ctxvec_sense_label[0] = "changed"
    after = sense_nlp(SENSE_TEXTS[0])
    assert [t._.sense for t in after] == [t._.sense for t in before]
    assert [t._.sense_label for t in after] == [t._.sense_label for t in before]


def test_the_read_only_arrays_stay_read_only_in_a_pickled_or_copied_component(sense_nlp):
    """numpy drops the read-only flag in a pickle: an n_process or Ray worker's copy, or
    copy.deepcopy(nlp), handed out writable arrays again."""
    import copy
    import pickle

    component = sense_nlp.get_pipe("ctxvec_polysemy")
    for restored in (pickle.loads(pickle.dumps(component)), copy.deepcopy(component)):
        inventory, lexicon = restored.senses, restored.lexicon
        arrays = [inventory.vectors, inventory.space.mean, inventory.senses_of("bank")[0].vector, lexicon.counts]
        arrays += [lexicon.sample.vectors]
        for array in arrays:
            with pytest.raises(ValueError, match="read-only"):
                array[...] = 0
        assert inventory.senses_of("bank")[0].label == component.senses.senses_of("bank")[0].label


def test_a_tokens_context_stays_in_its_sentence_and_paragraph(sense_nlp):
    texts = ["the bank of the river . we took a loan from the bank", "the river bank\n\nmoney and a loan from the bank"]
    docs = [sense_nlp(text) for text in texts]
    assert not docs[1].has_annotation("SENT_START")  # paragraphs bound the window without sentences
    assert_senses_consistent(sense_nlp, docs)
    sense_nlp.add_pipe("sentencizer", first=True)
    try:
        split = [sense_nlp(text) for text in texts]
        assert len(list(split[0].sents)) == 2
        assert_senses_consistent(sense_nlp, split)
        scores = [[t._.sense_score for t in doc if t.text == "bank"] for doc in (docs[0], split[0])]
        assert scores[0] != scores[1]  # the first "bank" no longer reads "we took a loan"
    finally:
        sense_nlp.remove_pipe("sentencizer")


def test_saved_pipeline_keeps_senses_and_a_deleted_senses_directory_is_an_error(sense_nlp, tmp_path):
    import shutil

    from spacy_ctxvec.saved_pipeline import load_senses

    inventory = sense_nlp.get_pipe("ctxvec_polysemy").senses
    sense_nlp.to_disk(tmp_path / "pipeline")
    assert (tmp_path / "pipeline" / "ctxvec_polysemy" / "senses" / "senses.json").is_file()
    assert load_senses(tmp_path / "pipeline") == inventory
    assert load_senses(tmp_path / "pipeline" / "ctxvec_polysemy" / "senses") == inventory
    reloaded = spacy.load(tmp_path / "pipeline")
    assert reloaded.get_pipe("ctxvec_polysemy").senses == inventory
    for text in SENSE_TEXTS:
        a, b = sense_nlp(text), reloaded(text)
        np.testing.assert_array_equal(a._.ctxvec_sense, b._.ctxvec_sense)
        np.testing.assert_array_equal(a._.ctxvec_sense_vec, b._.ctxvec_sense_vec)
    shutil.rmtree(tmp_path / "pipeline" / "ctxvec_polysemy" / "senses")
    with pytest.raises(CtxvecError, match=r"E249.*senses were saved.*missing"):
        spacy.load(tmp_path / "pipeline")
    with pytest.raises(CtxvecError, match=r"E249.*senses were saved.*missing"):  # the reader refuses as spacy.load does
        load_senses(tmp_path / "pipeline")
    (tmp_path / "pipeline" / "ctxvec_polysemy" / "cfg.json").write_text(
        '{"has_lexicon": true, "has_senses": false, "has_probe": false, "has_inputs": false}', encoding="utf8"
    )
    with pytest.raises(CtxvecError, match="E606") as no_senses:  # saved without senses
        load_senses(tmp_path / "pipeline")
    # its lexicon keeps the sample: build_senses() makes them without counting a corpus again
    assert "no corpus is needed" in str(no_senses.value) and "get_pipe('ctxvec_polysemy').build_senses()" in str(
        no_senses.value
    )


def test_doc_arrays_survive_to_bytes_and_docbin(sense_nlp):
    from spacy.tokens import DocBin

    docs = [sense_nlp(text) for text in SENSE_TEXTS]
    restored = list(DocBin(store_user_data=True, docs=docs).get_docs(sense_nlp.vocab))
    restored.append(Doc(sense_nlp.vocab).from_bytes(docs[0].to_bytes()))
    for original, copy in zip(docs + docs[:1], restored):
        np.testing.assert_array_equal(original._.ctxvec_sense, copy._.ctxvec_sense)
        np.testing.assert_array_equal(original._.ctxvec_sense_vec, copy._.ctxvec_sense_vec)
        assert [t._.sense for t in original] == [t._.sense for t in copy]
        assert [t._.n_senses for t in original] == [t._.n_senses for t in copy]
        # a tuple, as stored: Doc.from_bytes read the labels back as a list anyone could change
        assert copy._.ctxvec_sense_label == original._.ctxvec_sense_label and isinstance(
            copy._.ctxvec_sense_label, tuple
        )


@pytest.mark.slow
def test_n_process_2_gives_the_same_senses(sense_nlp, tmp_path):
    import subprocess
    import sys

    sense_nlp.to_disk(tmp_path / "pipeline")
    script = (
        "import numpy as np, spacy, sys\n"
        "nlp = spacy.load(sys.argv[1])\n"
        f"texts = {SENSE_TEXTS!r} * 2\n"
        "multi = list(nlp.pipe(texts, n_process=2, batch_size=1))\n"
        "single = [nlp(t) for t in texts]\n"
        "fields = ('sense', 'n_senses', 'has_score', 'corpus_polysemy', 'has_corpus_polysemy')\n"
        "pairs = [(a._.ctxvec_sense, b._.ctxvec_sense) for a, b in zip(multi, single)]\n"
        "assert all((a[f] == b[f]).all() for a, b in pairs for f in fields)\n"
        "assert all(np.allclose(a['score'], b['score'], atol=1e-4) for a, b in pairs)  # the processes' BLAS\n"
        "assert all(np.array_equal(a._.ctxvec_sense_vec, b._.ctxvec_sense_vec) for a, b in zip(multi, single))\n"
        "assert [t._.sense for t in multi[0]] == [t._.sense for t in single[0]]\n"
        "print('OK', len(multi))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "pipeline")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "OK 6" in proc.stdout


def test_component_bytes_round_trip_exclude_and_set_lexicon_drops_senses(sense_nlp):
    component = sense_nlp.get_pipe("ctxvec_polysemy")
    data = component.to_bytes()
    restored = Polysemy(min_count=2, induction=SenseInductionSettings(cut_distance=0.3)).from_bytes(data)
    assert restored.senses == component.senses and restored.lexicon == component.lexicon
    doc = sense_nlp.make_doc("the bank of the river")
    for _name, proc in sense_nlp.pipeline[:-1]:
        doc = proc(doc)
    np.testing.assert_array_equal(restored(doc)._.ctxvec_sense, component(doc)._.ctxvec_sense)
    without = Polysemy(min_count=2).from_bytes(component.to_bytes(exclude=["senses"]))
    assert without.senses is None and without.lexicon == component.lexicon
    assert Polysemy(min_count=2).from_bytes(data, exclude=["senses"]).senses is None
    # exclude keeps what the component has, as spaCy's exclude means (the lexicon read again dropped them)
    current = restored.senses
    assert restored.from_bytes(component.to_bytes(exclude=["senses"]), exclude=["senses"]).senses is current
    np.testing.assert_array_equal(restored(doc)._.ctxvec_sense, component(doc)._.ctxvec_sense)
    restored.set_lexicon(component.lexicon)
    assert restored.senses is None
    assert restored.build_senses() == component.senses  # deterministic, from the same lexicon and settings


def corpus_nlp(tiny_bert_dir, corpus, config, **initialize):
    """tiny BERT + ctxvec_context + ctxvec_polysemy (``config``) whose initialize reads
    ``corpus`` with the settings ``initialize``."""
    from .conftest import transformer_config

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config=config)
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(corpus)},
        **initialize,
    }
    return nlp


def test_senses_off_give_no_senses_and_senses_without_a_sample_are_e602_as_in_build_lexicon(tiny_bert_dir, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENSE_LINES[:8]) + "\n", encoding="utf8")
    nlp = corpus_nlp(tiny_bert_dir, corpus, {"min_count": 2, "senses": False}, sample_size=8)
    nlp.initialize()
    component = nlp.get_pipe("ctxvec_polysemy")
    assert component.lexicon is not None and component.lexicon.sample is not None and component.senses is None
    bank = _token(nlp("the bank"), "bank")
    assert bank._.n_senses == 0 and bank._.sense is None and bank._.sense_vec is None
    assert bank._.polysemy_count > 0
    with pytest.raises(CtxvecError, match="E602"):
        Polysemy(min_count=2).build_senses()
    # senses = true (the default) with no sample: the same coded error as build-lexicon --senses --sample-size 0
    with pytest.raises(CtxvecError, match="E602.*sample_size > 0"):
        corpus_nlp(tiny_bert_dir, corpus, {"min_count": 2}, sample_size=0).initialize()
    no_sample = corpus_nlp(tiny_bert_dir, corpus, {"min_count": 2, "senses": False}, sample_size=0)
    no_sample.initialize()
    assert no_sample.get_pipe("ctxvec_polysemy").lexicon.sample is None


def test_initialize_samples_by_default_as_build_lexicon_does(tiny_bert_dir, tmp_path):
    from spacy_ctxvec.cli.build_lexicon import DEFAULT_SAMPLE_SIZE as CLI_SAMPLE_SIZE
    from spacy_ctxvec.ops.senses import DEFAULT_SAMPLE_SIZE

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENSE_LINES) + "\n", encoding="utf8")
    nlp = corpus_nlp(tiny_bert_dir, corpus, {"min_count": 2})
    nlp.initialize()
    component = nlp.get_pipe("ctxvec_polysemy")
    assert CLI_SAMPLE_SIZE == DEFAULT_SAMPLE_SIZE == component.lexicon.sample.k == 64
    assert component.senses is not None and "bank" in component.senses


def test_sense_key_width_and_setting_errors(sense_nlp):
    inventory = sense_nlp.get_pipe("ctxvec_polysemy").senses
    with pytest.raises(CtxvecError, match="E605"):
        Polysemy(key="text").set_senses(inventory)
    with pytest.raises(CtxvecError, match="E603.*max_senses"):
        spacy.blank("en").add_pipe("ctxvec_polysemy", config={"induction": {"max_senses": 1}})
    with pytest.raises(CtxvecError, match="E603.*induction"):
        Polysemy(induction={"max_senses": 3})
    with pytest.raises(CtxvecError, match="E604.*width 32.*width 384"):
        component = Polysemy(min_count=2)
        component.set_senses(inventory)
        component.check_width(384)


@pytest.mark.slow
def test_minilm_river_and_money_bank_never_share_a_sense(default_nlp):
    """Observed with MiniLM (last layer) on SENSE_CORPUS: 'bank' splits, no sense mixes
    river and money occurrences, and new river / money sentences go to a river / money
    sense. (The number of senses is not asserted: the spread cut makes many small ones.)
    The default support floor (3 occurrences per sense) leaves no sense smaller than that,
    and the default split rule (this corpus's evidence) gives 'bank' two senses, one holding
    every river occurrence and at most two of the 8 money ones (with every occurrence
    sampled, the bank as a place: "broke into the bank vault", "at the bank downtown"; a
    sample of 32 that left out 8 of the 40 "the" rows moved the sense space enough to keep
    one of them out); the strict river / money check runs with the spread rule and
    min_support 1, as before the floor existed. The sample keeps every occurrence (no
    type is seen more than 64 times), so which rows a priority picks does not matter."""
    lexicon = partial_lexicon(default_nlp, SENSE_CORPUS, batch_size=16, sample_size=64).prune_sample(2)
    assert (lexicon.sample.counts() == lexicon.counts[[lexicon.index(key) for key in lexicon.sample.keys]]).all()
    floored = Polysemy(min_count=2)
    floored.set_lexicon(lexicon)
    default = floored.build_senses()
    for key in default.keys:  # a split never leaves a sense of fewer than 3 occurrences
        n, senses = lexicon.counts[lexicon.index(key)], default.senses_of(key)
        assert len(senses) == 1 or all(sense.share * n >= 3 - 1e-9 for sense in senses), key
    assert default.settings["split_rule"] == "evidence" and default.n_senses("bank") == 2
    bank_rows, bank_snippets = lexicon.sample.rows_of("bank")
    bank_start = int(lexicon.sample.offsets[lexicon.sample.index("bank")])
    by_evidence = default.assign(
        default.type_rows(["bank"] * len(bank_rows)),
        bank_rows.astype(np.float32),
        lexicon.sample.contexts[bank_start : bank_start + len(bank_rows)].astype(np.float32),
    )
    river_mask = np.array([any(w in s for w in ("river", "stream", "muddy", "Reeds")) for s in bank_snippets])
    (river_sense,) = set(by_evidence[river_mask].tolist())
    assert (by_evidence[~river_mask] == river_sense).sum() <= 2
    component = Polysemy(min_count=2, induction=SenseInductionSettings(min_support=1, split_by_evidence=False))
    component.set_lexicon(lexicon)
    inventory = component.build_senses()
    assert inventory.n_senses("bank") > 1
    rows, snippets = lexicon.sample.rows_of("bank")
    assert len(rows) == 12
    river_words = ("river", "stream", "muddy", "Reeds")
    is_river = np.array([any(w in s for w in river_words) for s in snippets])
    assert is_river.sum() == 4
    start = int(lexicon.sample.offsets[lexicon.sample.index("bank")])
    contexts = lexicon.sample.contexts[start : start + len(rows)]
    assert inventory.context_space is not None
    senses = inventory.assign(
        inventory.type_rows(["bank"] * len(rows)), rows.astype(np.float32), contexts.astype(np.float32)
    )
    river_senses, money_senses = set(senses[is_river].tolist()), set(senses[~is_river].tolist())
    assert river_senses.isdisjoint(money_senses)
    river = ["Frogs jumped off the wet bank into the river water.", "The fisherman sat on the bank of the river."]
    money = ["He paid the money into his account at the bank.", "The bank lent them money to buy a house."]
    for texts, expected in ((river, river_senses), (money, money_senses)):
        for text in texts:
            bank = _token(component(default_nlp(text)), "bank")
            assert bank._.sense in expected, text
            np.testing.assert_array_equal(bank._.sense_vec, inventory.senses_of("bank")[bank._.sense].vector)


# Polysemy probe (issue 11): polysemy_score fitted on dictionary sense counts
PROBE_LINES = [
    "the bank of the river",
    "we took out a loan at the bank",
    "i have an apple",
    "the hotel and the phone",
    "we want money",
    "we eat an apple and a pen",
    "the river and the hotel",
    "we sat on the bank",
] * 3


def probe_parts(tiny_nlp):
    from spacy_ctxvec.lexicon.polysemy_probe import fit_probe

    lexicon = partial_lexicon(tiny_nlp, PROBE_LINES, batch_size=8)
    counts = {key: 1 + len(key) % 4 for key in lexicon.keys}
    probe = fit_probe(lexicon, counts, min_count=2, model="tiny", trained_on="word lengths")
    return lexicon, probe


def test_probe_scores_tokens_survives_serialisation_and_new_lexicons(tiny_nlp, tmp_path):
    import shutil

    lexicon, probe = probe_parts(tiny_nlp)
    component = Polysemy(min_count=2)
    component.set_lexicon(lexicon)
    assert component.score_source == "self_similarity"
    component.set_probe(probe)
    assert component.score_source == "probe"
    expected, _ = probe.scores(lexicon, 2)
    doc = component(tiny_nlp("the bank of the river"))
    for token in doc:
        assert token._.polysemy_score == pytest.approx(expected[lexicon.index(token.lower_)])
    component.to_disk(tmp_path / "component")
    assert (tmp_path / "component" / "probe" / "probe.json").exists()
    for loaded in (
        Polysemy(min_count=2).from_disk(tmp_path / "component"),
        Polysemy(min_count=2).from_bytes(component.to_bytes()),
    ):
        assert loaded.score_source == "probe" and loaded.probe.meta == probe.meta
        np.testing.assert_array_equal(
            loaded(tiny_nlp("the bank"))._.ctxvec_polysemy, component(tiny_nlp("the bank"))._.ctxvec_polysemy
        )
    assert Polysemy(min_count=2).from_bytes(component.to_bytes(exclude=["probe"])).probe is None
    component.set_lexicon(partial_lexicon(tiny_nlp, PROBE_LINES[:8] * 2, batch_size=8))
    assert component.probe is probe and component.score_source == "probe"  # kept: it fits the new lexicon too
    shutil.rmtree(tmp_path / "component" / "probe")
    with pytest.raises(CtxvecError, match=r"E249.*probe.*missing"):
        Polysemy(min_count=2).from_disk(tmp_path / "component")


def test_score_setting_chooses_the_definition(tiny_nlp):
    lexicon, probe = probe_parts(tiny_nlp)
    forced = Polysemy(min_count=2, score="self_similarity")
    forced.set_probe(probe)
    forced.set_lexicon(lexicon)
    assert forced.score_source == "self_similarity"
    self_similarity, _ = lexicon.polysemy_scores(2)
    bank = _token(forced(tiny_nlp("the bank")), "bank")
    assert bank._.polysemy_score == pytest.approx(self_similarity[lexicon.index("bank")])
    needs_probe = Polysemy(min_count=2, score="probe")
    with pytest.raises(CtxvecError, match="E651"):
        needs_probe.set_lexicon(lexicon)
    with pytest.raises(CtxvecError, match="E654"):
        Polysemy(score="entropy")
    # not E651, whose fix (score = "auto" or "self_similarity") changes nothing here
    with pytest.raises(CtxvecError, match=r"E656.*keyed by 'lower'.*keys them by 'text'.*fit-polysemy"):
        Polysemy(key="text", score="self_similarity").set_probe(probe)
    assert spacy.blank("en").add_pipe("ctxvec_polysemy").score_definition == "auto"


def test_nlp_evaluate_runs_with_the_component(tiny_nlp):
    """spaCy's Scorer calls every component's score(examples): the score setting must
    not shadow it (before, nlp.evaluate raised TypeError: 'str' object is not callable)."""
    import copy

    from spacy.training import Example

    from spacy_ctxvec.components.polysemy import ensure_polysemy_component

    nlp = copy.deepcopy(tiny_nlp)
    component = ensure_polysemy_component(nlp, "lower", 2)
    component.set_lexicon(partial_lexicon(nlp, PROBE_LINES, batch_size=8))
    doc = nlp.make_doc("the bank of the river")
    assert isinstance(nlp.evaluate([Example(doc, doc.copy())]), dict)


@pytest.mark.slow
def test_minilm_at_layer_5_gets_the_shipped_probe_in_initialize(minilm_dir, tmp_path):
    from spacy_ctxvec.lexicon.polysemy_probe import PolysemyProbe, shipped_probe_dirs
    from spacy_ctxvec.pipelines import load_pipeline

    from .conftest import CONFIGS

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENSE_CORPUS) + "\n", encoding="utf8")
    nlp = load_pipeline(CONFIGS / "default.cfg", layer=-2)
    component = nlp.get_pipe("ctxvec_polysemy")
    component.initialize(nlp=nlp, corpus=configure_lexicon_corpus(path=str(corpus)))
    shipped = PolysemyProbe.from_disk(shipped_probe_dirs()[0])
    assert component.score_source == "probe" and component.probe.meta == shipped.meta
    doc = nlp("We went to see a play at the hotel.")
    # WordNet: play 52 senses, hotel 1. "play" is in the half the probe was fitted on, so this
    # checks that the probe is applied to the tokens; its accuracy is measured on held-out
    # words in benchmarks/quality/SENSES.md.
    assert _token(doc, "play")._.polysemy_score > 2 * _token(doc, "hotel")._.polysemy_score
    strict = Polysemy(score="probe")  # "probe" is satisfiable as soon as the shipped probe is chosen
    strict.set_lexicon(component.lexicon, nlp=nlp)
    assert strict.score_source == "probe" and strict.probe.meta == shipped.meta
    layer_5 = load_pipeline(CONFIGS / "default.cfg", layer=5)  # the same layer counted from the front
    by_number = layer_5.get_pipe("ctxvec_polysemy")
    by_number.initialize(nlp=layer_5, corpus=configure_lexicon_corpus(path=str(corpus)))
    # the lexicon names the model too (ctxvec_transformer marks it); the probe, fitted before, does not
    assert shipped.meta["context_vectors"] == "layer 5 of 6, pooled by pool_mean"
    assert by_number.lexicon.meta["context_vectors"] == f"layer 5 of 6, pooled by pool_mean, model {shipped.model}"
    assert by_number.score_source == "probe" and by_number.probe.meta == shipped.meta
    assert component.induction_warnings() == [] and by_number.induction_warnings() == []  # no W033
    last_layer = load_pipeline(CONFIGS / "default.cfg")  # layer 6: the shipped probe is for layer 5
    other = last_layer.get_pipe("ctxvec_polysemy")
    other.initialize(nlp=last_layer, corpus=configure_lexicon_corpus(path=str(corpus)))
    assert other.score_source == "self_similarity" and other.probe is None
    (found,) = other.induction_warnings()
    assert "W033" in found and "another model" not in found


def test_type_inputs_are_the_transformers_input_embeddings_and_travel_with_the_lexicon(tiny_nlp, tmp_path):
    import shutil

    from spacy_ctxvec.components.model_inputs import type_input_embeddings
    from spacy_ctxvec.lexicon.polysemy_probe import fit_probe
    from spacy_ctxvec.static.sources import transformer_embedding_table

    lexicon = partial_lexicon(tiny_nlp, PROBE_LINES, batch_size=8)
    inputs = type_input_embeddings(tiny_nlp, lexicon.keys)
    expected, _ = transformer_embedding_table(tiny_nlp).lookup_batch(lexicon.keys)
    np.testing.assert_allclose(inputs, expected, atol=1e-3)  # float16
    counts = {key: 1 + len(key) % 4 for key in lexicon.keys}
    probe = fit_probe(lexicon, counts, min_count=2, inputs=[inputs])
    component = Polysemy(min_count=2)
    component.set_lexicon(lexicon)
    component.set_probe(probe)
    assert component.score_source == "self_similarity"  # the probe reads inputs the component has not computed
    component.set_type_inputs(tiny_nlp)
    assert component.score_source == "probe"
    bank = _token(component(tiny_nlp("the bank")), "bank")
    assert bank._.polysemy_score == pytest.approx(probe.scores(lexicon, 2, inputs)[0][lexicon.index("bank")])
    component.to_disk(tmp_path / "component")
    for loaded in (
        Polysemy(min_count=2).from_disk(tmp_path / "component"),
        Polysemy(min_count=2).from_bytes(component.to_bytes()),
    ):
        np.testing.assert_array_equal(loaded.type_inputs, component.type_inputs)
        assert loaded.score_source == "probe"
    component.set_lexicon(partial_lexicon(tiny_nlp, PROBE_LINES[:2], batch_size=8))  # other keys: the inputs go
    assert component.type_inputs is None and component.score_source == "self_similarity"
    other = tmp_path / "other"
    shutil.copytree(tmp_path / "component", other)
    shutil.rmtree(other / "inputs")
    with pytest.raises(CtxvecError, match=r"E249.*input embeddings.*missing"):
        Polysemy(min_count=2).from_disk(other)
    shutil.copytree(tmp_path / "component" / "inputs", other / "inputs")
    n_types = len(lexicon)
    (other / "inputs" / "inputs.json").write_text(f'{{"n_types": {n_types}, "keys_digest": "x"}}', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E652.*other lexicon keys"):
        Polysemy(min_count=2).from_disk(other)
    (other / "inputs" / "inputs.json").write_text('{"n_types": 1, "keys_digest": "x"}', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E652.*declares 1 types, the array holds"):
        Polysemy(min_count=2).from_disk(other)


def test_senses_of_another_width_than_the_lexicon_are_e660(sense_nlp, tmp_path):
    component = sense_nlp.get_pipe("ctxvec_polysemy")
    component.to_disk(tmp_path / "component")
    narrow = Lexicon.from_occurrences(["bank", "bank"], np.ones((2, 4)), meta={"key": "lower"})
    narrow.to_disk(tmp_path / "component" / "lexicon")
    with pytest.raises(CtxvecError, match=r"E660.*senses have width 32 and the lexicon 4"):
        Polysemy(min_count=2).from_disk(tmp_path / "component")


def test_initialize_from_a_corpus_without_tokens_is_e741_not_an_empty_lexicon(tiny_nlp, tmp_path):
    corpus = tmp_path / "marks.txt"
    corpus.write_text("\u0301\u0302 \u0301\n\u0301\u0302 \u0301\n", encoding="utf8")
    component = Polysemy(min_count=2, senses=False)
    with pytest.raises(CtxvecError, match=r"E741.*initialize.*2 documents"):
        component.initialize(nlp=tiny_nlp, corpus=configure_lexicon_corpus(str(corpus)), sample_size=0)
    assert component.lexicon is None


def test_a_sourced_polysemy_refuses_vectors_of_other_layers_than_its_lexicon(sense_nlp, tmp_path):
    """ctxvec_polysemy sourced (from a saved pipeline) into a pipeline whose ctxvec_context
    reads another layer: E043 naming both, not senses read against the wrong vectors. The
    same layer named another way (-1 for the last) is accepted and gives the same senses."""
    sense_nlp.to_disk(tmp_path / "built")
    built = spacy.load(tmp_path / "built")
    text = SENSE_TEXTS[0]
    model = pipeline_model_fingerprint(built)
    assert built.get_pipe("ctxvec_polysemy").lexicon.meta["context_vectors"] == (
        f"the last layer, pooled by pool_mean, model {model}"
    )

    def sourced_into(layers):
        nlp = spacy.blank("en")
        nlp.add_pipe("transformer", source=built)
        nlp.add_pipe("ctxvec_context", config={"layers": {"@misc": "spacy-ctxvec.mean_layers.v1", "layers": layers}})
        nlp.add_pipe("ctxvec_polysemy", source=built)
        return nlp

    same = sourced_into([-1])(text)
    assert [t._.sense for t in same] == [t._.sense for t in built(text)]
    assert any(t._.sense is not None for t in same)
    with pytest.raises(
        CtxvecError, match=rf"CTX-E043.*'the last layer, pooled by pool_mean, model {model}'.*'layer 1 of 2, pooled"
    ):
        sourced_into([1])(text)


def test_a_sourced_polysemy_placed_first_names_the_pipeline_it_was_initialized_in(sense_nlp, tmp_path):
    """A component sourced into another pipeline kept its first pipeline's reference, so
    E218 said "(this Doc's pipeline)"; nlp.initialize() (spacy train, assemble) gives it
    the pipeline it runs in, and says so there (spacy assemble saved such a pipeline, which
    failed at its first Doc); the Doc still names it where a pipeline skipped initialize."""
    sense_nlp.to_disk(tmp_path / "built")
    built = spacy.load(tmp_path / "built")
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", source=built)
    nlp.add_pipe("ctxvec_polysemy", source=built)
    nlp.add_pipe("ctxvec_context", source=built)
    order = r"E218.*pipeline \['transformer', 'ctxvec_polysemy', 'ctxvec_context'\]"
    with pytest.raises(CtxvecError, match=order):
        nlp.initialize()
    with pytest.raises(CtxvecError, match=order):
        nlp(SENSE_TEXTS[0])
    nlp.remove_pipe("ctxvec_context")
    with pytest.raises(CtxvecError, match=r"E218.*pipeline \['transformer', 'ctxvec_polysemy'\] needs"):
        nlp.initialize()


def test_evidence_thresholds_on_other_vectors_than_they_were_measured_on_warn(sense_nlp):
    """The evidence rule's thresholds were measured on MiniLM layer 5: on the tiny model's
    last layer, inducing senses warns (W033) and names the vectors; under the spread test,
    which calibrates on the corpus, it does not."""
    import warnings

    lexicon = sense_nlp.get_pipe("ctxvec_polysemy").lexicon
    component = Polysemy(min_count=2)
    component.set_lexicon(lexicon, nlp=sense_nlp)
    with pytest.warns(
        UserWarning,
        match=r"W033.*'layer 5 of 6.*'the last layer, pooled by pool_mean, model \w+' of another model \(or of "
        r"all-MiniLM-L6-v2 with other weights, e.g. fine-tuned\)",
    ):
        component.build_senses()
    spread = Polysemy(min_count=2, induction=SenseInductionSettings().replace(split_by_evidence=False))
    spread.set_lexicon(lexicon, nlp=sense_nlp)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spread.build_senses()
    assert spread.induction_warnings() == [] and component.induction_warnings() != []


def test_evidence_thresholds_at_another_context_weight_warn(sense_nlp):
    """The evidence rule's thresholds were measured at context_weight 1: another weight warns
    (W060, beside W033 for the tiny model's vectors), naming both weights and the fixes; the
    spread test, and a sample without context rows (the weight has nothing to weigh), do not."""
    import copy

    lexicon = sense_nlp.get_pipe("ctxvec_polysemy").lexicon
    assert lexicon.sample is not None and lexicon.sample.contexts is not None
    heavier = Polysemy(min_count=2, induction=SenseInductionSettings().replace(context_weight=1.5))
    heavier.set_lexicon(lexicon, nlp=sense_nlp)
    message = " ".join(heavier.induction_warnings())
    assert "W033" in message
    assert re.search(
        r"W060.*measured with context_weight = 1\.0; these settings give 1\.5.*split_by_evidence = false", message
    )
    with pytest.warns(UserWarning, match="W060"):
        heavier.build_senses()
    default = Polysemy(min_count=2)
    default.set_lexicon(lexicon, nlp=sense_nlp)
    assert not any("W060" in found for found in default.induction_warnings())
    spread = Polysemy(min_count=2, induction=heavier.induction.replace(split_by_evidence=False))
    spread.set_lexicon(lexicon, nlp=sense_nlp)
    assert spread.induction_warnings() == []
    without_contexts = copy.deepcopy(lexicon)
    without_contexts.sample.contexts = None
    heavier.set_lexicon(without_contexts, nlp=sense_nlp)
    assert not any("W060" in found for found in heavier.induction_warnings())


def test_a_lexicon_built_in_initialize_runs_only_the_components_before_it(tiny_bert_dir, tmp_path):
    """An NER listener after ctxvec_polysemy is not initialized yet when ctxvec_polysemy
    builds its lexicon in initialize: the corpus goes through the components before it
    only (it ran the NER and failed: Parameter 'W' ... has not been allocated yet)."""
    import warnings

    from .conftest import LISTENER_NER, transformer_config

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENSE_LINES) + "\n", encoding="utf8")
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    nlp.add_pipe("ner", config=LISTENER_NER).add_label("PERSON")
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(corpus)},
        "sample_size": 16,
    }
    with pytest.warns(UserWarning, match=r"W037.*'transformer'.*its listeners \('ner'\) fine-tune it") as shown:
        nlp.initialize()  # training would fine-tune the vectors the lexicon counted
    assert {w.filename for w in shown if "W037" in str(w.message)} == {__file__}  # the user's line, not spaCy's
    doc = nlp("the bank of the river")
    assert doc.has_annotation("ENT_IOB") and doc[1]._.polysemy_count > 0
    component = nlp.get_pipe("ctxvec_polysemy")
    component.lexicon.to_disk(tmp_path / "lexicon")  # a lexicon given by lexicon_path fits these vectors too
    with pytest.warns(UserWarning, match=r"W037.*was given a lexicon \(lexicon_path\) made from the vectors"):
        component.initialize(nlp=nlp, lexicon_path=tmp_path / "lexicon")
    for node in nlp.get_pipe("ner").model.walk():
        if "grad_factor" in node.attrs:
            node.attrs["grad_factor"] = 0.0  # the listener passes no gradient to the transformer
    assert nlp.config["training"]["optimizer"]["L2"] == 0.01  # spaCy's default weight decay
    with pytest.warns(UserWarning, match=r"W037.*grad_factor = 0.0 and \[training.optimizer\] L2 = 0.0"):
        component.initialize(nlp=nlp, corpus=configure_lexicon_corpus(path=str(corpus)))  # decay still trains it
    nlp.config["training"]["optimizer"]["L2"] = 0.0
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r"\[CTX-W037\]")  # the vectors stay: no warning
        component.initialize(nlp=nlp, corpus=configure_lexicon_corpus(path=str(corpus)))
        nlp.config["training"]["frozen_components"] = ["transformer"]
        for node in nlp.get_pipe("ner").model.walk():
            if "grad_factor" in node.attrs:
                node.attrs["grad_factor"] = 1.0
        component.initialize(nlp=nlp, corpus=configure_lexicon_corpus(path=str(corpus)))  # frozen


def test_a_loaded_pipeline_saved_back_into_its_own_folder_stays_whole(tiny_bert_dir, tmp_path):
    """spacy.load(P) maps its .npy files; nlp.to_disk(P) wrote into the files it was reading
    (np.save truncates first): 'OSError: 112128 requested and 496 written', and P no longer
    loaded (E207, truncated). Arrays are now written beside and renamed into place."""
    from .conftest import make_sense_nlp

    (tmp_path / "corpus_dir").mkdir()
    built = make_sense_nlp(
        str(tiny_bert_dir), SENSE_LINES, tmp_path / "corpus_dir", components=["ctxvec_static", "ctxvec_context"]
    )
    built.to_disk(tmp_path / "P")
    nlp = spacy.load(tmp_path / "P")
    text = SENSE_TEXTS[0]
    before = [(t._.polysemy_score, t._.sense, t._.static_vec.tolist()) for t in nlp(text)]
    nlp.to_disk(tmp_path / "P")
    again = spacy.load(tmp_path / "P")
    assert [(t._.polysemy_score, t._.sense, t._.static_vec.tolist()) for t in again(text)] == before
    assert not [p.name for p in (tmp_path / "P").rglob(".*tmp*")]  # no temporaries left


def test_settings_changed_after_the_senses_were_induced_warn_and_build_senses_keeps_the_config(sense_nlp, tmp_path):
    """A config override at spacy.load that the saved senses were not induced with warns
    W062 (the saved senses are used as they are); build_senses induces with it and writes
    the settings into the pipeline's config, so the saved pipeline loads without W062."""
    import warnings

    sense_nlp.to_disk(tmp_path / "saved")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spacy.load(tmp_path / "saved")
    assert not any("W062" in str(warning.message) for warning in caught)
    override = {"components.ctxvec_polysemy.induction.max_senses": 2}
    with pytest.warns(UserWarning, match=r"W062.*\(max_senses: 7 -> 2; .*build_senses\(\)") as said:
        nlp = spacy.load(tmp_path / "saved", config=override)
    assert [w.filename for w in said if "W062" in str(w.message)] == [__file__]  # the user's line, not spaCy's
    component = nlp.get_pipe("ctxvec_polysemy")
    assert component.senses.settings["max_senses"] == 7  # used as saved
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W033 / W061: the tiny model's vectors, the fixture's cut_distance
        component.build_senses()
    assert component.senses.settings["max_senses"] == 2
    assert nlp.config["components"]["ctxvec_polysemy"]["induction"]["max_senses"] == 2
    component.induction = component.induction.replace(min_support=2)  # set on the component, then induced
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        component.build_senses()
    nlp.to_disk(tmp_path / "again")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reloaded = spacy.load(tmp_path / "again")
    assert not any("W062" in str(warning.message) for warning in caught)
    induction = reloaded.get_pipe("ctxvec_polysemy").induction
    assert (induction.max_senses, induction.min_support) == (2, 2)
    assert reloaded.get_pipe("ctxvec_polysemy").senses.settings["min_support"] == 2


def test_a_warning_at_loading_an_installed_pipeline_package_points_at_the_users_line(sense_nlp, tmp_path, monkeypatch):
    """Loaded as a pipeline package (spacy package's __init__.py, which calls load_model_from_init_py),
    W062 pointed at the package's __init__.py, not at the user's spacy.load line."""
    import importlib
    import shutil

    saved = tmp_path / "saved"
    sense_nlp.to_disk(saved)
    meta = srsly.read_json(saved / "meta.json")
    package = tmp_path / "site" / "en_ctxvec_test_pkg"
    shutil.copytree(saved, package / f"{meta['lang']}_{meta['name']}-{meta['version']}")
    shutil.copy(saved / "meta.json", package / "meta.json")
    (package / "__init__.py").write_text(
        "from spacy.util import load_model_from_init_py\n\n\n"
        "def load(**overrides):\n    return load_model_from_init_py(__file__, **overrides)\n",
        encoding="utf8",
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    override = {"components.ctxvec_polysemy.induction.max_senses": 2}
    with pytest.warns(UserWarning, match=r"W062") as said:
        importlib.import_module("en_ctxvec_test_pkg").load(config=override)
    assert [w.filename for w in said if "W062" in str(w.message)] == [__file__]


def test_the_saved_senses_readers_warn_as_spacy_load_does_where_the_config_was_edited(sense_nlp, tmp_path):
    """`spacy-ctxvec senses`, rank and export-static read the saved senses without spacy.load:
    a config.cfg edited after the senses were induced warns W062 there too."""
    import warnings

    from spacy_ctxvec.saved_pipeline import load_senses_and_lexicon

    sense_nlp.to_disk(tmp_path / "saved")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_senses_and_lexicon(tmp_path / "saved")
    assert not any("W062" in str(warning.message) for warning in caught)
    config_path = tmp_path / "saved" / "config.cfg"
    config = spacy.util.load_config(config_path, interpolate=False)
    config["components"]["ctxvec_polysemy"]["induction"]["max_senses"] = 2
    config.to_disk(config_path)
    with pytest.warns(UserWarning, match=r"W062.*\(max_senses: 7 -> 2; "):
        inventory, _ = load_senses_and_lexicon(tmp_path / "saved")
    assert inventory.settings["max_senses"] == 7  # used as saved
    config["components"]["ctxvec_polysemy"]["induction"]["max_senses"] = "${nowhere.max}"  # spacy.load's to judge
    config.to_disk(config_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_senses_and_lexicon(tmp_path / "saved")
    assert not any("W062" in str(warning.message) for warning in caught)


def test_a_pipeline_loaded_to_build_its_lexicon_again_does_not_warn_of_its_old_senses(sense_nlp, tmp_path):
    """build-lexicon induces the senses again: W062 about the saved ones would be noise there."""
    import warnings

    from spacy_ctxvec.pipelines import load_pipeline

    sense_nlp.to_disk(tmp_path / "saved")
    config_path = tmp_path / "saved" / "config.cfg"
    config = spacy.util.load_config(config_path, interpolate=False)
    config["components"]["ctxvec_polysemy"]["induction"]["max_senses"] = 2
    config.to_disk(config_path)
    with pytest.warns(UserWarning, match="W062"):
        load_pipeline(tmp_path / "saved")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_pipeline(tmp_path / "saved", initialize_lexicons=False)
    assert not any("W062" in str(warning.message) for warning in caught)


def test_a_service_can_run_requests_in_spacys_memory_zone(sense_nlp):
    """A long-running service keeps spaCy's vocabulary from growing with every new string by
    running each request inside nlp.memory_zone() (docs/reference.md): every attribute is read there."""
    texts = ["the river bank was wet", "a bank loan of money", "zorblax quimbly frandle"]
    expected = [
        [(t._.sense, t._.polysemy_score, t._.context_vec.tolist()) for t in doc] for doc in sense_nlp.pipe(texts)
    ]
    n_strings = len(sense_nlp.vocab.strings)
    for _ in range(2):
        with sense_nlp.memory_zone():
            docs = list(sense_nlp.pipe(texts))
            seen = [[(t._.sense, t._.polysemy_score, t._.context_vec.tolist()) for t in doc] for doc in docs]
            assert [t._.sense_label for t in docs[0]] == [t._.sense_label for t in sense_nlp(texts[0])]
        assert seen == expected
    assert len(sense_nlp.vocab.strings) == n_strings  # the new strings were freed with the zone
