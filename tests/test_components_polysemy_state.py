"""What a ctxvec_polysemy component saves (components.polysemy_state): cfg.json and
one directory per part through spaCy's serializer dicts with ``exclude``, the same in
bytes; damaged bytes and parts that disagree are coded errors (issues 20 and 23)."""

import pytest

from spacy_ctxvec.building.shard import partial_lexicon
from spacy_ctxvec.components.polysemy import Polysemy
from spacy_ctxvec.errors import CtxvecError

from .test_components_polysemy import PROBE_LINES


def probe_reading_inputs(tiny_nlp):
    """A component whose probe reads the types' input embeddings, with them computed."""
    from spacy_ctxvec.lexicon.polysemy_probe import fit_probe

    lexicon = partial_lexicon(tiny_nlp, PROBE_LINES, batch_size=8)
    component = Polysemy(min_count=2)
    component.set_lexicon(lexicon)
    component.set_type_inputs(tiny_nlp)
    counts = {key: 1 + len(key) % 4 for key in lexicon.keys}
    component.set_probe(fit_probe(lexicon, counts, min_count=2, inputs=[component.type_inputs]))
    assert component.score_source == "probe"
    return component


def test_cfg_json_records_each_saved_part_and_exclude_leaves_parts_out(tiny_nlp, tmp_path):
    import json

    component = probe_reading_inputs(tiny_nlp)
    for exclude, saved in (
        ((), {"lexicon", "probe", "inputs"}),
        (("probe",), {"lexicon"}),  # the input embeddings go with the probe that reads them
        (("inputs",), {"lexicon", "probe"}),
        (("senses",), {"lexicon", "probe", "inputs"}),
    ):
        path = tmp_path / "-".join(exclude or ("all",))
        component.to_disk(path, exclude=exclude)
        cfg = json.loads((path / "cfg.json").read_text(encoding="utf8"))
        assert cfg == {f"has_{part}": part in saved for part in ("lexicon", "senses", "probe", "inputs")}
        assert {p.name for p in path.iterdir() if p.is_dir()} == saved
        for loaded in (
            Polysemy(min_count=2).from_disk(path),
            Polysemy(min_count=2).from_bytes(component.to_bytes(exclude=exclude)),
        ):
            assert loaded.lexicon == component.lexicon
            assert (loaded.probe is not None) == ("probe" in saved)
            assert (loaded.type_inputs is not None) == ("inputs" in saved)
            assert loaded.score_source == ("probe" if {"probe", "inputs"} <= saved else "self_similarity")
    kept = probe_reading_inputs(tiny_nlp)
    kept.from_disk(tmp_path / "probe", exclude=["probe"])  # keeps its own probe; the saved one is not read
    assert kept.probe is not None and kept.lexicon == component.lexicon


def test_saved_input_embeddings_of_another_width_than_the_probe_reads_are_e660(tiny_nlp, tmp_path):
    """Before: they loaded, and polysemy_score silently switched from the probe to self-similarity."""
    from spacy_ctxvec.lexicon.type_inputs import TypeInputs

    component = probe_reading_inputs(tiny_nlp)
    component.to_disk(tmp_path / "component")
    inputs = TypeInputs.from_disk(tmp_path / "component" / "inputs")
    TypeInputs(inputs.vectors[:, :-1], inputs.digest).to_disk(tmp_path / "component" / "inputs")  # one column short
    with pytest.raises(CtxvecError, match=r"E660.*input embeddings have width 31 and the probe reads 32"):
        Polysemy(min_count=2).from_disk(tmp_path / "component")
    # in bytes too
    import srsly

    message = srsly.msgpack_loads(component.to_bytes())
    message["inputs"] = TypeInputs(inputs.vectors[:, :-1], inputs.digest).to_bytes()
    with pytest.raises(CtxvecError, match="E660"):
        Polysemy(min_count=2).from_bytes(srsly.msgpack_dumps(message))
    # the component never saves such a pair: input embeddings of another width stay in memory only
    component.type_inputs = component.type_inputs[:, :-1]
    component.to_disk(tmp_path / "mismatched")
    assert not (tmp_path / "mismatched" / "inputs").exists()
    assert Polysemy(min_count=2).from_disk(tmp_path / "mismatched").score_source == "self_similarity"


def test_damaged_component_bytes_and_missing_parts_are_coded_errors(tiny_nlp):
    import srsly

    component = probe_reading_inputs(tiny_nlp)
    message = srsly.msgpack_loads(component.to_bytes())
    assert message["cfg"] == {"has_lexicon": True, "has_senses": False, "has_probe": True, "has_inputs": True}
    for damage, code in (
        ({"probe": None}, r"E207.*probe listed as saved but absent"),
        ({"cfg": {"has_lexicon": "yes"}}, r"E207.*cfg entry is damaged"),
        ({"probe": 3}, r"E652.*probe part is int"),
        ({"senses": "x", "cfg": {**message["cfg"], "has_senses": True}}, r"E601.*senses part is str"),
        ({"lexicon": [1]}, r"E207.*lexicon part is list"),
    ):
        with pytest.raises(CtxvecError, match=code):
            Polysemy(min_count=2).from_bytes(srsly.msgpack_dumps({**message, **damage}))
    with pytest.raises(CtxvecError, match=r"E207.*not the bytes of a ctxvec_polysemy component"):
        Polysemy(min_count=2).from_bytes(srsly.msgpack_dumps({"something": b"else"}))
    legacy = {"lexicon": component.lexicon.to_bytes(), "senses": None, "probe": None, "inputs": None}  # older bytes
    assert Polysemy(min_count=2).from_bytes(srsly.msgpack_dumps(legacy)).lexicon == component.lexicon


def test_senses_not_induced_from_the_saved_lexicon_are_e660(tiny_nlp, tiny_bert_dir, tmp_path):
    """A senses folder copied from another build, or a word renamed in its keys.json, loaded
    silently: those words got no sense in the pipeline while `spacy-ctxvec senses` listed them."""
    import json
    import shutil

    from .test_evaluation_tasks import build_sense_nlp

    component = build_sense_nlp(tiny_bert_dir, min_tokens=4).get_pipe("ctxvec_polysemy")
    component.to_disk(tmp_path / "own")
    assert len(Polysemy(min_count=2).from_disk(tmp_path / "own").senses) == len(component.senses)
    shutil.copytree(tmp_path / "own", tmp_path / "other")
    shutil.rmtree(tmp_path / "other" / "lexicon")
    partial_lexicon(tiny_nlp, PROBE_LINES, batch_size=8).to_disk(tmp_path / "other" / "lexicon")
    with pytest.raises(CtxvecError, match=r"\[CTX-E660\].*of the senses' \d+ words are not in the lexicon \('"):
        Polysemy(min_count=2).from_disk(tmp_path / "other")
    header = json.loads((tmp_path / "own" / "senses" / "senses.json").read_text(encoding="utf8"))
    header["settings"]["key"] = "text"
    (tmp_path / "own" / "senses" / "senses.json").write_text(json.dumps(header), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E660\].*the senses have key mode 'text' and the lexicon 'lower'"):
        Polysemy(min_count=2).from_disk(tmp_path / "own")
