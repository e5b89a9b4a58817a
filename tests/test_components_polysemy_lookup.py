"""How ctxvec_polysemy looks tokens up: key tables, rows, records, and the checks that the
Doc's vectors are those of the lexicon."""

import pickle
import warnings

import numpy as np
import pytest
import spacy

from spacy_ctxvec.attributes import CONTEXT_SOURCE, POLYSEMY_DTYPE, set_doc_value
from spacy_ctxvec.building.shard import partial_lexicon
from spacy_ctxvec.components.model_inputs import pipeline_model_fingerprint
from spacy_ctxvec.components.polysemy_lookup import (
    key_table,
    label_language,
    lexicon_asked_for,
    look_up,
    polysemy_records,
    score_table,
)
from spacy_ctxvec.errors import CtxvecError, Errors
from spacy_ctxvec.lexicon.statistics import CONTEXT_VECTORS_META
from spacy_ctxvec.ops.sense_labels import ENGLISH

TEXTS = ["the bank of the river", "the bank gave a loan", "a river and a bank"]


@pytest.fixture(scope="module")
def table(tiny_nlp):
    lexicon = partial_lexicon(tiny_nlp, TEXTS, batch_size=2)
    return score_table(lexicon, None, 2, "self_similarity", None), lexicon


def test_key_table_finds_each_key_and_its_position():
    keys = ["river", "bank", "the"]
    found = key_table(keys, "made so")
    assert found["context_vectors"] == "made so"
    assert sorted(found["rows"].tolist()) == [0, 1, 2]
    assert np.all(np.diff(found["hashes"].astype(np.float64)) > 0)


def test_records_give_counts_scores_and_shifts_of_known_words(tiny_nlp, table):
    scores, lexicon = table
    doc = tiny_nlp("the bank of a zebra")
    records = polysemy_records(doc, scores, key="lower", name="ctxvec_polysemy")
    assert records.dtype == POLYSEMY_DTYPE
    assert records["count"].tolist() == [
        lexicon.counts[lexicon.index(w)] if w in lexicon else 0 for w in ["the", "bank", "of", "a", "zebra"]
    ]
    assert not records["has_score"][4] and not records["has_shift"][4]
    assert records["has_shift"][1] and 0.0 <= records["shift"][1] <= 2.0
    assert len(polysemy_records(doc, None, key="lower", name="x")) == 5


def test_the_lexicon_records_how_its_vectors_were_made_and_other_docs_are_refused(tiny_nlp, table):
    scores, lexicon = table
    made = tiny_nlp(TEXTS[0])._.ctxvec_context_source
    model = pipeline_model_fingerprint(tiny_nlp)  # the transformer before ctxvec_context
    assert lexicon.meta[CONTEXT_VECTORS_META] == made == scores["context_vectors"]
    assert made == f"the last layer, pooled by pool_mean, model {model}"
    doc = tiny_nlp("the bank")
    set_doc_value(doc, CONTEXT_SOURCE, "layer 1 of 2, pooled by pool_mean")
    with pytest.raises(CtxvecError, match=r"CTX-E043.*'ctxvec_polysemy'.*'layer 1 of 2"):
        look_up(doc, scores, key="lower", width=lexicon.width, width_error=Errors.E219, name="ctxvec_polysemy")
    set_doc_value(doc, CONTEXT_SOURCE, None)  # a Doc saved before the label existed: not checked
    vectors, mask, found, rows = look_up(
        doc, scores, key="lower", width=lexicon.width, width_error=Errors.E219, name="p"
    )
    assert found.tolist() == [True, True] and mask.all() and vectors.shape == (2, lexicon.width)
    with pytest.raises(CtxvecError, match="E219"):
        look_up(doc, scores, key="lower", width=lexicon.width + 1, width_error=Errors.E219, name="p")


def label_words_of(tiny_bert_dir, tmp_path, lang: str, lines) -> set:
    """Every label word of the senses a tiny pipeline of ``lang`` induces on ``lines``."""
    import spacy

    from .conftest import transformer_config

    (tmp_path / "corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf8")
    nlp = spacy.blank(lang)
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir), window=8, stride=6))
    nlp.add_pipe("ctxvec_context")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2, "senses": True})
    nlp.config["initialize"]["components"]["ctxvec_polysemy"] = {
        "corpus": {"@misc": "spacy-ctxvec.lexicon_corpus.v1", "path": str(tmp_path / "corpus.txt")},
        "sample_size": 16,
    }
    nlp.initialize()
    senses = nlp.get_pipe("ctxvec_polysemy").senses
    return {w for key in senses.keys for s in senses.senses_of(key) for w in (s.label or "").split(", ") if w}


def test_sense_labels_leave_out_the_stop_words_of_the_pipelines_language(tiny_bert_dir, tmp_path):
    """English (or no pipeline): scikit-learn's English list, as before; another language:
    spaCy's list for it, and a German pipeline's labels hold none of its stop words."""
    import spacy

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # W082 only where spaCy has no stop words for the language
        assert label_language(None) == label_language(spacy.blank("en")) == ENGLISH
    said = r"\[CTX-W082\] spaCy has no stop-word list for the language 'xx' of the pipeline, so .*der, die"
    with pytest.warns(UserWarning, match=said):
        assert not label_language(spacy.blank("xx")).stop_words
    german = label_language(spacy.blank("de"))
    assert german.stop_words is not None and {"der", "die", "das", "ist"} <= german.stop_words
    assert german.split_words is None  # words are runs of letters where spaces part them
    chinese = label_language(spacy.blank("zh"))  # spaCy's default Chinese tokenizer: one character each
    assert chinese.split_words is not None and list(chinese.split_words("去存钱")) == ["去", "存", "钱"]
    assert pickle.loads(pickle.dumps(chinese.split_words))("去存钱") == ["去", "存", "钱"]  # no local lambda
    lines = ["die bank am river ist der ort", "der hotel hat die bank", "das apple ist an der bank"] * 8
    words = label_words_of(tiny_bert_dir, tmp_path, "de", lines)
    assert words and not words & set(german.stop_words)  # 'river', 'hotel', 'apple', 'bank'... but never 'die' or 'der'


def test_a_chinese_pipelines_labels_are_words_its_tokenizer_gives(tiny_bert_dir, tmp_path):
    """Labels of a Chinese pipeline were runs of characters ('打了小', '哥哥很生'); they are the
    words of the pipeline's tokenizer now (spaCy's default Chinese one: single characters)."""
    lines = ["我 去 银行 存钱 了", "河岸 边 的 银行 很 美", "他 在 银行 取钱", "银行 的 利息 很 高"] * 6
    words = label_words_of(tiny_bert_dir, tmp_path, "zh", lines)
    assert words and all(len(w) == 1 for w in words) and not words & {"了", "的", "很"}  # Chinese stop words out


def test_a_french_pipelines_labels_hold_no_piece_of_an_elided_word(tiny_bert_dir, tmp_path):
    """Runs of letters cut "aujourd’hui" into "aujourd" and "hui" (and "presqu'île" into "presqu"); an
    eliding language's labels are its tokenizer's words: "aujourd’hui" whole, "l’" left out of "l’homme"."""
    lines = ["aujourd’hui la banque de l’homme presqu'île", "aujourd’hui le banc de l’homme presqu'île"] * 8
    words = label_words_of(tiny_bert_dir, tmp_path, "fr", lines)
    assert {"aujourd’hui", "homme"} <= words and not words & {"aujourd", "hui", "presqu", "l’homme"}, words


def test_a_text_typed_with_combining_marks_finds_its_words(tiny_bert_dir, tmp_path):
    """build-lexicon reads corpora composed (NFC); nlp("... Ba\\u0308r ...") typed with a
    combining diaeresis found no count and no sense for the word (a German walkthrough)."""
    import unicodedata

    from .conftest import make_sense_nlp

    lines = ["der bär am river", "ein bär im hotel", "the bank of the river"] * 6
    nlp = make_sense_nlp(str(tiny_bert_dir), lines, tmp_path)
    composed = nlp("der bär am river")
    decomposed = nlp(unicodedata.normalize("NFD", "der bär am river"))
    assert decomposed[1].text != composed[1].text and composed[1]._.polysemy_count > 0
    assert decomposed[1]._.polysemy_count == composed[1]._.polysemy_count
    assert decomposed[1]._.sense == composed[1]._.sense is not None
    assert decomposed[3]._.polysemy_count == composed[3]._.polysemy_count  # the others as before
    for invisible in ("\ufeff", "\u200b", "\u00ad"):  # inside the word: corpora are read without them
        marked = nlp(f"der b{invisible}är am river")
        assert marked[1].text != composed[1].text and marked[1]._.polysemy_count == composed[1]._.polysemy_count


def test_the_initialize_setting_asking_for_a_lexicon_is_found():
    from spacy.util import load_model_from_config

    config = spacy.blank("en").config
    assert lexicon_asked_for(spacy.blank("en"), "ctxvec_polysemy") is None
    assert lexicon_asked_for(None, "ctxvec_polysemy") is None
    config["initialize"]["components"]["ctxvec_polysemy"] = {"lexicon_path": "lexicon", "corpus": None}
    nlp = load_model_from_config(config)
    assert lexicon_asked_for(nlp, "ctxvec_polysemy") == "lexicon_path"
    # spaCy's way of writing it: a variable, null unless --paths.lexicon gives one (it was taken for a request)
    config["paths"]["lexicon"] = None
    config["initialize"]["components"]["ctxvec_polysemy"] = {"lexicon_path": "${paths.lexicon}"}
    assert lexicon_asked_for(load_model_from_config(config), "ctxvec_polysemy") is None
    config["paths"]["lexicon"] = "lexicon"
    assert lexicon_asked_for(load_model_from_config(config), "ctxvec_polysemy") == "lexicon_path"
    assert lexicon_asked_for(nlp, "other") is None


def test_a_token_without_a_vector_of_its_own_gets_a_score_but_no_shift(tiny_nlp, table):
    """The mask, not the row's value, says whether a token has a vector of its own: 'bank😂'
    (the word and its glued emoji read as one [UNK]) keeps its count and score and gets no
    shift, even where its row holds a vector (ctxvec_context zeroes it, arrays set otherwise
    may not); reading the row alone gave it a shift from that vector."""
    from spacy_ctxvec.attributes import CONTEXT_ARRAY, CONTEXT_MASK, set_token_arrays, stored_array
    from spacy_ctxvec.components.polysemy import Polysemy

    _, lexicon = table
    component = Polysemy(min_count=2)
    component.set_lexicon(lexicon)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W070: the glued word
        doc = tiny_nlp("the bank😂 of the river")
    mask = stored_array(doc, CONTEXT_MASK)
    assert doc[1].text == "bank" and not mask[1] and mask[[0, 3, 4, 5]].all()
    vectors = stored_array(doc, CONTEXT_ARRAY).copy()
    vectors[1] = stored_array(tiny_nlp("the bank of the river"), CONTEXT_ARRAY)[1]  # a vector all the same
    set_token_arrays(doc, {CONTEXT_ARRAY: vectors, CONTEXT_MASK: mask})
    bank = component(doc)[1]
    assert bank._.polysemy_count == lexicon.counts[lexicon.index("bank")] and bank._.polysemy_score is not None
    assert bank._.context_shift is None and not doc._.ctxvec_polysemy["has_shift"][1]
    assert all(doc[i]._.context_shift is not None for i in (0, 4, 5))
