"""[components.ctxvec_polysemy.induction] (spacy-ctxvec.sense_induction.v1) through
spaCy's config system, and pipelines saved with the old flat keys (W010)."""

import numpy as np
import pytest
import spacy

from spacy_ctxvec.components.induction_config import configure_sense_induction, fold_legacy_settings
from spacy_ctxvec.components.polysemy import Polysemy
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon
from spacy_ctxvec.ops.senses import SenseInductionSettings


def test_the_registered_function_builds_the_settings_with_their_one_default():
    assert configure_sense_induction() == SenseInductionSettings()
    assert configure_sense_induction(cut_distance=0.3, split_by_probe=False) == SenseInductionSettings(
        cut_distance=0.3, split_by_probe=False
    )
    with pytest.raises(CtxvecError, match="E603.*max_senses"):
        configure_sense_induction(max_senses=1)


def test_fold_legacy_settings_treats_null_as_absent_but_in_a_whole_old_config():
    default = SenseInductionSettings()
    nothing = dict.fromkeys(default.to_dict())
    assert fold_legacy_settings(default, nothing) is default  # no flat key given: no warning
    with pytest.warns(UserWarning, match="W010.*cut_distance"):
        assert fold_legacy_settings(default, {**nothing, "cut_distance": 0.3}) == default.replace(cut_distance=0.3)
    whole = {**default.to_dict(), "split_percentile": None}
    with pytest.warns(UserWarning, match="W010"):
        assert fold_legacy_settings(default, whole).split_percentile is None


def test_w010_from_a_factory_points_at_the_users_line_not_at_confection():
    """A flat key given to add_pipe or spacy.load's config warned from confection/_registry.py."""
    import spacy

    with pytest.warns(UserWarning, match="W010.*max_senses") as said:
        spacy.blank("en").add_pipe("ctxvec_polysemy", config={"max_senses": 3})
    assert [w.filename for w in said if "W010" in str(w.message)] == [__file__]


def test_induction_block_round_trips_through_the_config_and_a_saved_pipeline(tmp_path):
    import warnings

    nlp = spacy.blank("en")
    nlp.add_pipe(
        "ctxvec_polysemy", config={"min_count": 2, "induction": {"cut_distance": 0.3, "split_percentile": None}}
    )
    expected = SenseInductionSettings(cut_distance=0.3, split_percentile=None)
    assert nlp.get_pipe("ctxvec_polysemy").induction == expected
    block = nlp.config["components"]["ctxvec_polysemy"]["induction"]
    assert block["@misc"] == "spacy-ctxvec.sense_induction.v1"
    assert {name: value for name, value in block.items() if name != "@misc"} == expected.to_dict()
    assert spacy.blank("en").add_pipe("ctxvec_polysemy").induction == SenseInductionSettings()
    nlp.to_disk(tmp_path / "pipeline")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pipeline saved with the block loads without W010
        reloaded = spacy.load(tmp_path / "pipeline")
    assert reloaded.get_pipe("ctxvec_polysemy").induction == expected
    assert reloaded.config["components"]["ctxvec_polysemy"]["induction"] == block


OLD_FLAT_SETTINGS = {  # [components.ctxvec_polysemy] as spaCy filled it before the [induction] block
    "split_threshold": None,
    "cut_distance": 0.3,
    "max_senses": 5,
    "min_tokens": 4,
    "min_share": 0.1,
    "n_directions": 3,
    "context_weight": 1.0,
    "split_by_probe": False,
}


@pytest.mark.parametrize("split_percentile", [82.0, None])
def test_a_pipeline_saved_with_the_old_flat_keys_loads_with_w010(tmp_path, split_percentile):
    """The config.cfg of a pipeline saved before the [induction] block (written whole,
    as spaCy fills it) loads with its settings and warning W010."""
    from thinc.api import Config

    component = Polysemy(min_count=2)
    component.set_lexicon(Lexicon.from_occurrences(["bank", "bank"], np.ones((2, 4))))
    nlp = spacy.blank("en")
    nlp.add_pipe("ctxvec_polysemy", config={"min_count": 2})
    nlp.get_pipe("ctxvec_polysemy").set_lexicon(component.lexicon)
    nlp.to_disk(tmp_path / "pipeline")
    config = Config().from_disk(tmp_path / "pipeline" / "config.cfg", interpolate=False)
    block = config["components"]["ctxvec_polysemy"]
    del block["induction"]
    block.update(OLD_FLAT_SETTINGS, split_percentile=split_percentile)
    config.to_disk(tmp_path / "pipeline" / "config.cfg")
    written = (tmp_path / "pipeline" / "config.cfg").read_text(encoding="utf8")
    assert "induction" not in written and "cut_distance = 0.3" in written
    with pytest.warns(UserWarning, match=r"W010.*cut_distance.*ctxvec_polysemy\.induction"):
        reloaded = spacy.load(tmp_path / "pipeline")
    loaded = reloaded.get_pipe("ctxvec_polysemy")
    assert loaded.induction == SenseInductionSettings(
        cut_distance=0.3, max_senses=5, split_by_probe=False, split_percentile=split_percentile
    )
    assert loaded.lexicon == component.lexicon
    # a hand-written partial flat config: an absent split_percentile keeps its default
    with pytest.warns(UserWarning, match="W010"):
        partial = spacy.blank("en").add_pipe("ctxvec_polysemy", config={"cut_distance": 0.3})
    assert partial.induction == SenseInductionSettings(cut_distance=0.3)
    with pytest.warns(UserWarning, match="W010"), pytest.raises(CtxvecError, match="E603.*max_senses"):
        spacy.blank("en").add_pipe("ctxvec_polysemy", config={"max_senses": 1})


def test_the_factory_takes_exactly_the_flat_keys_the_config_writer_clears():
    """make_polysemy's deprecated flat arguments and induction_config's list of them name the same
    keys (a key added to one and not the other would be read but never cleared, or cleared but
    refused by the factory)."""
    import inspect

    from spacy_ctxvec.components import induction_config
    from spacy_ctxvec.components.polysemy import make_polysemy

    parameters = list(inspect.signature(make_polysemy).parameters)
    flat = parameters[parameters.index("induction") + 1 :]
    assert flat == list(induction_config._LEGACY_SETTINGS)
    assert set(flat) <= set(SenseInductionSettings.__dataclass_fields__)
