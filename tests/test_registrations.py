"""registrations: spaCy's registry and factory decorators with the function's type kept."""

import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from spacy.util import registry

from spacy_ctxvec.components.choices import configure_mean_pooling
from spacy_ctxvec.components.context import make_context_vectors
from spacy_ctxvec.registrations import factory, registered

ROOT = Path(__file__).resolve().parent.parent


def test_the_packages_functions_are_registered_as_they_are():
    assert registry.misc.get("spacy-ctxvec.mean_pooling.v1") is configure_mean_pooling
    assert registry.factories.get("ctxvec_context") is make_context_vectors
    assigns = Language.get_factory_meta("ctxvec_context").assigns
    assert assigns[:2] == ["doc._.ctxvec_context", "doc._.ctxvec_context_mask"] and "token._.context_vec" in assigns


def test_a_function_and_a_factory_registered_here_are_spacys_to_resolve_and_add():
    @registered("misc", "test-registrations.greeting.v1")
    def configure_greeting(word: str) -> str:
        return f"hello {word}"

    @factory("test_registrations_marker", default_config={"mark": "seen"})
    def make_marker(nlp: Language, name: str, mark: str):  # noqa: ANN201
        def marker(doc):  # noqa: ANN001, ANN202
            doc.user_data["mark"] = mark
            return doc

        return marker

    assert configure_greeting("you") == "hello you"  # the function itself, not a wrapper
    resolved = registry.resolve({"x": {"@misc": "test-registrations.greeting.v1", "word": "bank"}})
    assert resolved["x"] == "hello bank"
    nlp = spacy.blank("en")
    nlp.add_pipe("test_registrations_marker")
    assert nlp("a bank").user_data["mark"] == "seen"


@pytest.mark.slow
def test_a_type_checker_reads_registered_functions_and_factories_with_their_types(tmp_path):
    """Through spaCy's untyped decorators both read as Any: a user's typed code was not checked."""
    snippet = tmp_path / "user_code.py"
    snippet.write_text(
        "from spacy_ctxvec import make_context_vectors\n"
        "from spacy_ctxvec.components.choices import configure_mean_pooling\n"
        "reveal_type(configure_mean_pooling)\nreveal_type(make_context_vectors)\n"
        # the documented aliases for a static source and a lexicon corpus of one's own
        "from spacy_ctxvec.building.corpus import CorpusReader\n"
        "from spacy_ctxvec.static.sources import StaticSource\n"
        "def wrong_source(nlp: object) -> int:\n    return 0\n"
        "source: StaticSource = wrong_source\nreader: CorpusReader = wrong_source\n",
        encoding="utf8",
    )
    command = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports", str(snippet)]
    env = {"MYPYPATH": str(ROOT), "PATH": ""}
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    revealed = [line for line in result.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 2, result.stdout + result.stderr
    assert "def () -> def (numpy.ndarray" in revealed[0]
    assert "def (nlp: spacy.language.Language, name: str, pooling:" in revealed[1]
    assert "-> spacy_ctxvec.components.context.ContextVectors" in revealed[1]
    refused = [line for line in result.stdout.splitlines() if "Incompatible types in assignment" in line]
    assert len(refused) == 2, result.stdout
    assert "StaticVectorTable" in refused[0]
    assert "Iterator[str | Doc]" in refused[1].replace("Union[str, Doc]", "str | Doc")
