import re
import shutil
import subprocess
import sys

import pytest

from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.pipelines import DEFAULT_CONFIG, load_pipeline

from .conftest import CONFIGS


def test_the_package_ships_copies_of_the_top_level_configs():
    """spacy_ctxvec/configs is a folder of copies (a symbolic link was a 10-byte text file in
    a Windows clone, and the default pipeline would not load): edit both, or this fails."""
    assert DEFAULT_CONFIG.exists() and not DEFAULT_CONFIG.parent.is_symlink()
    packaged = sorted(p.name for p in DEFAULT_CONFIG.parent.glob("*.cfg"))
    assert packaged == sorted(p.name for p in CONFIGS.glob("*.cfg"))
    for name in packaged:
        assert (DEFAULT_CONFIG.parent / name).read_bytes() == (CONFIGS / name).read_bytes(), name


def test_missing_pipeline_and_missing_config_name_the_path(tmp_path):
    with pytest.raises(CtxvecError, match=r"\[CTX-E011\].*nope"):
        load_pipeline(tmp_path / "nope")
    with pytest.raises(CtxvecError, match=r"\[CTX-E011\].*missing.cfg"):
        load_pipeline(tmp_path / "missing.cfg")


def test_missing_config_named_like_a_packaged_one_points_to_the_packaged_copy(tmp_path, monkeypatch):
    """Outside a clone of the repository there is no configs/ folder: the error gives the
    installed copy's path, and that path loads nothing else than what it names."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CtxvecError, match=r"\[CTX-E011\].*configs/default.cfg does not exist") as error:
        load_pipeline("configs/default.cfg")
    assert str(DEFAULT_CONFIG) in str(error.value)
    with pytest.raises(CtxvecError) as other:
        load_pipeline("configs/not-shipped.cfg")
    assert "ships" not in str(other.value)


def test_directory_and_config_load(tiny_nlp, tmp_path):
    tiny_nlp.to_disk(tmp_path / "p")
    assert load_pipeline(tmp_path / "p").pipe_names == ["transformer", "ctxvec_context"]
    (tmp_path / "p.cfg").write_text(tiny_nlp.config.to_str())
    assert load_pipeline(tmp_path / "p.cfg").pipe_names == ["transformer", "ctxvec_context"]


def _pipeline_without_hidden_states(tiny_bert_dir, path):
    from .conftest import make_trf_nlp

    nlp = make_trf_nlp(str(tiny_bert_dir), window=8, stride=6, hidden_states=False)
    nlp.to_disk(path)
    return nlp


def _live_hidden_states(nlp):
    return nlp.get_pipe("transformer").model.transformer.config.output_hidden_states


def test_layer_switches_hidden_states_on_for_a_directory(tiny_bert_dir, tmp_path):
    from spacy_ctxvec.components.transformer import outputs_hidden_states

    _pipeline_without_hidden_states(tiny_bert_dir, tmp_path / "p")
    plain = load_pipeline(tmp_path / "p")
    assert not _live_hidden_states(plain) and not outputs_hidden_states(plain, "transformer")
    assert plain("I have a pen.")._.trf_data.model_output.get("hidden_states") is None

    nlp = load_pipeline(tmp_path / "p", layer=1)
    assert _live_hidden_states(nlp) and outputs_hidden_states(nlp, "transformer")
    # the width is known before any Doc ran: an empty first Doc, and a pipeline saved at once (a Ray
    # build's driver) have it (the saved width was dropped with the layers, and saved as null)
    width = plain("pen")._.ctxvec_context.shape[1]
    assert nlp.get_pipe("ctxvec_context").width == width and nlp("")._.ctxvec_context.shape == (0, width)
    assert nlp.config["components"]["transformer"]["model"]["transformer_config"]["output_hidden_states"] is True
    doc = nlp("I have a pen.")
    assert len(doc._.trf_data.model_output["hidden_states"]) == 3
    nlp.get_pipe("ctxvec_context").initialize(nlp=nlp)  # the E002 check agrees with the live model
    # A pipeline saved from it keeps them on (HF config and nlp.config).
    nlp.to_disk(tmp_path / "out")
    saved = load_pipeline(tmp_path / "out")
    assert _live_hidden_states(saved) and outputs_hidden_states(saved, "transformer")
    assert saved.config["components"]["ctxvec_context"]["layers"]["layers"] == [1]


def test_layer_switches_hidden_states_on_for_a_config(tiny_bert_dir, tmp_path):
    nlp = _pipeline_without_hidden_states(tiny_bert_dir, tmp_path / "p")
    (tmp_path / "p.cfg").write_text(nlp.config.to_str())
    assert not _live_hidden_states(load_pipeline(tmp_path / "p.cfg"))
    with_layer = load_pipeline(tmp_path / "p.cfg", layer=-2)  # initialize passes the E002 check
    assert _live_hidden_states(with_layer)
    assert with_layer("I have a pen.")._.ctxvec_context.shape == (5, 32)


def test_a_layer_for_a_pipeline_without_ctxvec_context_says_so(tiny_bert_dir, tmp_path):
    """build-lexicon on a transformer-only pipeline blamed its own override: "[CTX-E028] ...
    components -> ctxvec_context -> layers: not a section value that can be overridden"."""
    import spacy

    from .conftest import transformer_config

    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config=transformer_config(str(tiny_bert_dir)))
    nlp.initialize()
    nlp.to_disk(tmp_path / "p")
    (tmp_path / "p.cfg").write_text(nlp.config.to_str())
    for path in (tmp_path / "p", tmp_path / "p.cfg"):
        with pytest.raises(CtxvecError, match=r"\[CTX-E058\] Pipeline '.*p(\.cfg)?' has no ctxvec_context.*layer 2"):
            load_pipeline(path, layer=2)
        assert load_pipeline(path).pipe_names == ["transformer"]


def test_missing_pipeline_message_has_no_double_period(tmp_path):
    from typer.testing import CliRunner

    from spacy_ctxvec.cli import app

    (tmp_path / "c.tsv").write_text("word\tcount\nbank\t10\n", encoding="utf8")
    result = CliRunner().invoke(app, ["evaluate", "polysemy", str(tmp_path / "nope"), str(tmp_path / "c.tsv")])
    message = " ".join(result.output.split())
    assert result.exit_code == 1 and "[CTX-E011]" in message and ".." not in message


def test_a_hugging_face_model_folder_given_as_a_pipeline_says_how_to_use_it(tiny_bert_dir):
    with pytest.raises(CtxvecError, match=r"E011.*is a Hugging Face model folder, not a spaCy pipeline: name it"):
        load_pipeline(tiny_bert_dir)


def test_an_interpolation_naming_nothing_names_the_setting(tmp_path):
    """E028 said only "Config validation error" for a ${section.value} naming no setting."""
    config = DEFAULT_CONFIG.read_text(encoding="utf8")
    path = tmp_path / "mine.cfg"
    path.write_text(re.sub(r"(?m)^batch_size = \d+$", "batch_size = ${nosuch.value}", config, count=1), encoding="utf8")
    with pytest.raises(
        CtxvecError,
        match=r"E028.*refuses: Bad value substitution: option 'batch_size' in section "
        r"'nlp' contains an interpolation key 'nosuch.value'",
    ):
        load_pipeline(path)


def test_a_misspelt_setting_names_the_setting_not_spacys_dump(tmp_path):
    config = DEFAULT_CONFIG.read_text(encoding="utf8")
    assert "drop_trf_data = " in config
    path = tmp_path / "mine.cfg"
    path.write_text(config.replace("drop_trf_data = ", "drop_trf_dta = "), encoding="utf8")
    with pytest.raises(CtxvecError) as caught:
        load_pipeline(path)
    message = str(caught.value)
    assert "[CTX-E028]" in message and "ctxvec_context -> drop_trf_dta" in message
    assert "<spacy" not in message and "Pass a pipeline directory" not in message
    # the command the message gives names the setting ("spacy debug config" on the unfilled file did not)
    command = re.search(r"`python -m (spacy init fill-config \S+ filled\.cfg)`", message)
    assert command is not None
    run = subprocess.run(
        [sys.executable, "-m", *command.group(1).split()], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode != 0 and "ctxvec_context -> drop_trf_dta" in run.stdout + run.stderr


def test_a_refused_setting_is_named_by_its_config_section_not_its_factory(tmp_path):
    """spaCy names the section by the component's factory ("ctxvec_transformer.model.get_spans"),
    which a user looking at [components.transformer.model.get_spans] does not find."""
    config = DEFAULT_CONFIG.read_text(encoding="utf8")
    assert "\nwindow = 128\n" in config
    path = tmp_path / "mine.cfg"
    path.write_text(config.replace("\nwindow = 128\n", '\nwindow = "wide"\n'), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E028\]") as raised:
        load_pipeline(path)
    assert "components.transformer.model.get_spans -> window: " in str(raised.value)
    assert "ctxvec_transformer.model" not in str(raised.value)


def test_a_refused_setting_of_a_saved_pipeline_names_its_config_file(tiny_nlp, tmp_path):
    """E028's fill-config command named the pipeline's directory, which spaCy refuses ("is a directory")."""
    tiny_nlp.to_disk(tmp_path / "saved")
    config = tmp_path / "saved" / "config.cfg"
    text = config.read_text(encoding="utf8")
    assert "drop_trf_data = " in text
    config.write_text(text.replace("drop_trf_data = ", "drop_trf_dta = "), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E028\]") as raised:
        load_pipeline(tmp_path / "saved")
    assert f"`python -m spacy init fill-config {config} filled.cfg`" in str(raised.value)


def test_a_refused_setting_beside_a_users_function_suggests_commands_that_import_the_code(tmp_path):
    """E028's fill-config command, run as written, failed with spaCy's E893 (the --code file's
    function unknown to spaCy): it now repeats the command's --code."""
    code = tmp_path / "mine.py"
    code.write_text(
        "from spacy.util import registry\nfrom spacy_ctxvec.ops.pooling import pool_mean\n\n"
        "@registry.misc('mine.pooling.v1')\ndef configure():\n    return pool_mean\n",
        encoding="utf8",
    )
    config = DEFAULT_CONFIG.read_text(encoding="utf8").replace("drop_trf_data = ", "drop_trf_dta = ")
    config = re.sub(
        r'(?m)^(\[components\.ctxvec_context\.pooling\]\n)@misc = "[^"]+"', r'\1@misc = "mine.pooling.v1"', config
    )
    assert "mine.pooling.v1" in config
    (tmp_path / "mine.cfg").write_text(config, encoding="utf8")
    run = subprocess.run(
        [sys.executable, "-m", "spacy_ctxvec", "compare", "a", "b", "-p", "mine.cfg", "-c", str(code)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    message = " ".join(run.stderr.split())
    assert run.returncode == 1 and "[CTX-E028]" in message, message
    command = re.search(r"`python -m (spacy init fill-config mine\.cfg filled\.cfg --code (\S+))`", message)
    assert command is not None and command.group(2) == str(code.resolve()), message
    filled = subprocess.run(
        [sys.executable, "-m", *command.group(1).split()], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    said = filled.stdout + filled.stderr
    assert "ctxvec_context -> drop_trf_dta" in said and "E893" not in said, said


def test_a_section_before_its_parent_is_named(tmp_path):
    config = DEFAULT_CONFIG.read_text(encoding="utf8")
    moved = config.replace(
        "[components.ctxvec_polysemy]\n",
        '[components.ctxvec_polysemy.induction]\n@misc = "spacy-ctxvec.sense_induction.v1"\n\n'
        "[components.ctxvec_polysemy]\n",
    )
    assert moved != config
    path = tmp_path / "mine.cfg"
    path.write_text(moved, encoding="utf8")
    section = (
        r"\[components\.ctxvec_polysemy\.induction\] comes before .*sections: \[components\.ctxvec_polysemy\] before"
    )
    with pytest.raises(CtxvecError, match=r"\[CTX-E029\].*" + section):
        load_pipeline(path)
    # a deeper section moved above every [components...] section: the message names it, not "components"
    blocks = re.split(r"(?m)^(?=\[)", config)
    (model,) = [block for block in blocks if block.startswith("[components.transformer.model]\n")]
    path.write_text(blocks[0] + model + "".join(b for b in blocks[1:] if b is not model), encoding="utf8")
    placed = r"\[components\.transformer\.model\] .*sections: \[components\], \[components\.transformer\], in this"
    with pytest.raises(CtxvecError, match=placed):
        load_pipeline(path)
    # a header with a comment after it is still a section above its children (review)
    path.write_text(moved.replace("[components]\n", "[components]  # the pipes\n", 1), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E029\].*" + section):
        load_pipeline(path)
    # a parent missing altogether (confection: "Section 'components' is not defined", not a KeyError): E029, not E028
    path.write_text('[nlp]\nlang = "en"\n\n[components.transformer]\nfactory = "ctxvec_transformer"\n', encoding="utf8")
    with pytest.raises(
        CtxvecError, match=r"\[CTX-E029\].*\[components\.transformer\] .*sections: \[components\] before"
    ):
        load_pipeline(path)
    # two levels missing: both are named, in order (naming one led to a second E029 once it was added)
    path.write_text('[nlp]\nlang = "en"\n\n[components.transformer.model]\nname = "x"\n', encoding="utf8")
    both = r"E029.*\[components\.transformer\.model\] .*: \[components\], \[components\.transformer\], in this order"
    with pytest.raises(CtxvecError, match=both):
        load_pipeline(path)
    followed = '[nlp]\nlang = "en"\n\n[components]\n\n[components.transformer]\n\n[components.transformer.model]\n'
    path.write_text(followed + 'name = "x"\n', encoding="utf8")
    assert load_pipeline(path).pipe_names == []  # the advice followed: no second E029
    path.write_text(config.replace("[components.transformer]\n", "", 1), encoding="utf8")
    missing = r"\[CTX-E029\].*section \[components\.transformer\.model\] .*sections: \[components\.transformer\] before"
    with pytest.raises(CtxvecError, match=missing) as raised:
        load_pipeline(path)
    assert "misspelling" not in str(raised.value)  # no section reads like [components.transformer]
    # a misspelt section name: its parent is "missing", and the error says which section it reads like
    path.write_text(config.replace("[components.transformer.model]", "[components.transformerr.model]"), "utf8")
    with pytest.raises(CtxvecError) as raised:
        load_pipeline(path)
    misspelt = " The config has no [{}] but has [{}]: if one of those two names is misspelt, correct it."
    assert str(raised.value).endswith(misspelt.format("components.transformerr", "components.transformer"))
    path.write_text(config.replace("[components]", "[componets]"), "utf8")  # the parent misspelt, not its child
    with pytest.raises(CtxvecError) as raised:
        load_pipeline(path)
    assert str(raised.value).endswith(misspelt.format("components", "componets"))


def test_a_component_listed_without_its_block_says_to_add_the_block(tmp_path):
    config = DEFAULT_CONFIG.read_text(encoding="utf8")
    blocks = re.split(r"(?m)^(?=\[)", config)
    kept = [
        block
        for block in blocks
        if not block.startswith(("[components.ctxvec_context]", "[components.ctxvec_context."))
    ]
    assert len(kept) < len(blocks)
    path = tmp_path / "mine.cfg"
    path.write_text("".join(kept), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E011.*no \[components\.ctxvec_context\] block: add that block") as raised:
        load_pipeline(path)
    assert "Pass a pipeline directory" not in str(raised.value)


def test_an_unclosed_reference_to_a_setting_says_how_to_write_one(tmp_path):
    config = DEFAULT_CONFIG.read_text(encoding="utf8")
    path = tmp_path / "mine.cfg"
    path.write_text(config.replace("seed = 0\n", "seed = ${paths.seed\n", 1), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"E011.*interpolation syntax.*written \$\{section\.setting\}") as raised:
        load_pipeline(path)
    assert "Pass a pipeline directory" not in str(raised.value)  # the path was right


def test_a_config_assembled_in_memory_pickles_for_spawned_workers(minilm_dir):
    """nlp.pipe(n_process=2) under spawn (macOS' and Windows' default) pickles the pipeline:
    one assembled from the default config held initialize's optimizer, whose warmup
    learning rate is a generator ('cannot pickle generator object')."""
    import pickle

    nlp = load_pipeline()
    copy = pickle.loads(pickle.dumps(nlp))
    assert copy("a river bank")[2]._.context_vec.tolist() == nlp("a river bank")[2]._.context_vec.tolist()


def test_a_pooling_registered_itself_instead_of_a_function_returning_it_says_so(tiny_nlp, tmp_path):
    """spaCy asked for its 'rows' and 'lengths', and E028 said to rename or remove them."""
    import spacy

    from spacy_ctxvec.ops.pooling import pool_mean

    @spacy.registry.misc("test-ctxvec.registered_itself.v1")
    def pool_itself(rows, lengths):
        return pool_mean(rows, lengths)

    config = tiny_nlp.config.copy()
    config["components"]["ctxvec_context"]["pooling"] = {"@misc": "test-ctxvec.registered_itself.v1"}
    (tmp_path / "itself.cfg").write_text(config.to_str(), encoding="utf8")
    with pytest.raises(CtxvecError, match=r"CTX-E028.*pooling -> rows: missing required argument") as err:
        load_pipeline(tmp_path / "itself.cfg")
    assert "register a function that returns it (def configure_my_pooling(): return my_pooling)" in str(err.value)


@pytest.mark.parametrize("damaged", ["meta.json", "transformer/cfg", "vocab/strings.json", "tokenizer"])
def test_a_damaged_file_of_a_saved_pipeline_is_named(tiny_pipeline_dir, tmp_path, damaged):
    """srsly's "Expected object or value" (a damaged meta.json, a component's cfg) named no file."""
    import shutil

    copy = tmp_path / "pipeline"
    shutil.copytree(tiny_pipeline_dir, copy)
    assert (copy / damaged).is_file()
    (copy / damaged).write_text("{broken", encoding="utf8")
    with pytest.raises(CtxvecError, match=rf"\[CTX-E\d+\].*reading '{re.escape(str(copy / damaged))}'"):
        load_pipeline(copy)


@pytest.mark.parametrize(
    "text,section", [("", "nlp"), ('[nlp]\nlang = "en"\npipeline = []\n', "components"), ("[components]\n", "nlp")]
)
def test_a_config_without_its_sections_names_the_section(tmp_path, text, section):
    """spaCy's KeyError made the whole explanation "'components'"."""
    path = tmp_path / "mine.cfg"
    path.write_text(text, encoding="utf8")
    with pytest.raises(CtxvecError, match=rf"\[CTX-E063\] The config '.*mine.cfg' has no \[{section}\] section"):
        load_pipeline(path)


@pytest.mark.parametrize("kind", ["absolute", "separator", "backslash"])
def test_a_component_named_by_a_path_is_refused_before_anything_is_read_or_written(tiny_pipeline_dir, tmp_path, kind):
    """A downloaded pipeline whose component was named "/some/folder" made build-lexicon write that
    component's files into /some/folder (spaCy joins pipeline folder / name), and spacy.load read them there."""
    import shutil

    from spacy.util import load_config

    from spacy_ctxvec.saved_pipeline import load_lexicon

    victim = tmp_path / "victim"
    name = {"absolute": str(victim / "context"), "separator": "sub/context", "backslash": "sub\\context"}[kind]
    pipeline = tmp_path / "downloaded"
    shutil.copytree(tiny_pipeline_dir, pipeline)
    config = load_config(pipeline / "config.cfg", interpolate=False)
    config["nlp"]["pipeline"] = [name if pipe == "ctxvec_context" else pipe for pipe in config["nlp"]["pipeline"]]
    config["components"][name] = config["components"].pop("ctxvec_context")
    config.to_disk(pipeline / "config.cfg")
    saved = pipeline / "config.cfg"
    for loaded in (pipeline, saved):
        with pytest.raises(CtxvecError, match=r"\[CTX-E064\].*names a component .* which is a path, not a name"):
            load_pipeline(loaded)
    with pytest.raises(CtxvecError, match=r"\[CTX-E064\]"):
        load_lexicon(pipeline)
    assert not victim.exists()


def test_a_component_sourced_from_a_pipeline_with_a_path_for_a_name_is_refused(tiny_pipeline_dir, tmp_path):
    """A trusted .cfg that sources a component from a downloaded pipeline: spaCy loads that pipeline
    whole, so its path-named component was read from outside it."""
    import shutil

    from spacy.util import load_config

    victim = tmp_path / "victim"
    downloaded = tmp_path / "downloaded"
    shutil.copytree(tiny_pipeline_dir, downloaded)
    config = load_config(downloaded / "config.cfg", interpolate=False)
    config["nlp"]["pipeline"] = [
        str(victim) if pipe == "ctxvec_context" else pipe for pipe in config["nlp"]["pipeline"]
    ]
    config["components"][str(victim)] = config["components"].pop("ctxvec_context")
    config.to_disk(downloaded / "config.cfg")
    mine = load_config(tiny_pipeline_dir / "config.cfg", interpolate=False)
    mine["components"]["transformer"] = {"source": str(downloaded)}
    mine.to_disk(tmp_path / "mine.cfg")
    with pytest.raises(CtxvecError, match=r"\[CTX-E064\].*downloaded' names a component"):
        load_pipeline(tmp_path / "mine.cfg")
    mine["components"]["transformer"] = {"source": str(tiny_pipeline_dir), "component": "../transformer"}
    mine.to_disk(tmp_path / "mine.cfg")
    with pytest.raises(CtxvecError, match=r"\[CTX-E064\].*'\.\./transformer', which is a path"):
        load_pipeline(tmp_path / "mine.cfg")
    assert not victim.exists()


def test_a_section_or_setting_given_twice_is_a_coded_error(tmp_path, tiny_pipeline_dir):
    """configparser's DuplicateSectionError / DuplicateOptionError came out as a traceback."""
    config = tmp_path / "twice.cfg"
    config.write_text('[nlp]\nlang = "en"\nlang = "de"\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"\[CTX-E065\] The config '.*twice\.cfg' could not be read: line 3: option "):
        load_pipeline(config)
    config.write_text('[nlp]\nlang = "en"\n\n[nlp]\nx = 1\n', encoding="utf8")
    with pytest.raises(CtxvecError, match=r"line 4: section 'nlp' already exists\. Give each section once"):
        load_pipeline(config)
    saved = tmp_path / "saved"
    shutil.copytree(tiny_pipeline_dir, saved)
    with (saved / "config.cfg").open("a", encoding="utf8") as handle:
        handle.write("\n[nlp]\nx = 1\n")
    with pytest.raises(CtxvecError, match=r"\[CTX-E065\] The config '.*saved/config\.cfg' could not be read: line \d+"):
        load_pipeline(saved)


@pytest.mark.slow
def test_a_saved_default_pipeline_gives_the_vectors_of_the_assembled_one(default_nlp):
    """spacy-transformers loads a saved model's config through 10-decimal JSON: MiniLM's
    layer_norm_eps 1e-12 came back 0.0 (spacy-ctxvec's architecture sets it again)."""
    import numpy as np

    assembled = load_pipeline(DEFAULT_CONFIG)
    assert assembled.get_pipe("transformer").model.transformer.config.layer_norm_eps == 1e-12
    assert default_nlp.get_pipe("transformer").model.transformer.config.layer_norm_eps == 1e-12
    texts = ["The bank of the river.", "I have a pen and an apple.", "Spring came early that year in the valley."]
    for made, loaded in zip(assembled.pipe(texts), default_nlp.pipe(texts)):
        np.testing.assert_allclose([t._.context_vec for t in made], [t._.context_vec for t in loaded], atol=1e-6)
        np.testing.assert_array_equal([t._.static_vec for t in made], [t._.static_vec for t in loaded])
