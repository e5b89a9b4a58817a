"""building/engines.py: engines by name, imported only when asked for, all taking the
options build-lexicon passes; an unknown name is a coded error listing the engines."""

import inspect

import pytest

from spacy_ctxvec.building.engines import ENGINES, BuildResult, get_engine
from spacy_ctxvec.building.local import build_lexicon_local
from spacy_ctxvec.errors import CtxvecError
from spacy_ctxvec.lexicon.statistics import Lexicon

from .conftest import python_output

# What the build-lexicon workflow passes to whichever engine it runs.
COMMON_OPTIONS = (
    "key",
    "batch_size",
    "n_process",
    "shard_size",
    "checkpoint_dir",
    "resume",
    "on_error",
    "progress",
    "max_docs",
    "encoding",
    "sample_size",
    "sample_contexts",
)


def test_local_engine_by_name():
    assert get_engine("local") is build_lexicon_local


def test_ray_engine_by_name():
    from spacy_ctxvec.building.ray_engine import build_lexicon_ray

    assert get_engine("ray") is build_lexicon_ray


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_engine_takes_the_pipeline_the_corpus_and_the_common_options(name):
    parameters = inspect.signature(get_engine(name)).parameters
    first, second = list(parameters)[:2]
    assert parameters[first].kind is parameters[second].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    missing = [option for option in COMMON_OPTIONS if parameters.get(option, None) is None]
    assert missing == []
    assert all(parameters[option].kind is inspect.Parameter.KEYWORD_ONLY for option in COMMON_OPTIONS)


@pytest.mark.parametrize("name", ["Local", "spark", "", "local "])
def test_an_unknown_engine_is_a_coded_error_naming_the_choices(name):
    with pytest.raises(CtxvecError, match=f"E223.*'{name}'.*local, ray"):
        get_engine(name)


def test_build_result_defaults_are_not_shared(tiny_nlp, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank of the river\n\ni have an apple\n", encoding="utf8")
    result = get_engine("local")(tiny_nlp, corpus, shard_size=1, progress=False)
    assert isinstance(result, BuildResult) and isinstance(result.lexicon, Lexicon)
    assert (result.n_docs, result.n_tokens, result.resumed_from, result.skipped_lines) == (2, 9, 0, [])
    assert result.seconds > 0
    other = BuildResult(result.lexicon, 0, 0, 0.0)
    other.skipped_lines.append(("x.txt", 1))
    assert result.skipped_lines == [] and BuildResult(result.lexicon, 0, 0, 0.0).skipped_lines == []


@pytest.mark.slow
def test_the_local_engine_does_not_import_ray():
    script = (
        "import sys\n"
        "from spacy_ctxvec.building.engines import get_engine\n"
        "get_engine('local')\n"
        "ray_modules = ('ray', 'spacy_ctxvec.building.ray_engine', 'spacy_ctxvec.building.ray_workers')\n"
        "loaded = sorted(m for m in sys.modules if m in ray_modules)\n"
        "print(loaded)\n"
    )
    assert python_output(script).strip() == "[]"
