"""The error and warning catalogue: unique codes in order, rendered with the CTX- prefix."""

import ast
import re
from pathlib import Path

import pytest

import spacy_ctxvec.errors as errors_module
from spacy_ctxvec.catalogue import command_errors, lexicon_errors, pipeline_errors
from spacy_ctxvec.errors import PREFIX, CtxvecError, Errors, Warnings

CATALOGUE_FILES = {  # where each catalogue's codes are assigned, in code order
    "Errors": [pipeline_errors, lexicon_errors, command_errors],
    "Warnings": [errors_module],
}


def catalogue_codes(class_name: str):
    """The codes assigned in a catalogue, in source order across its files (duplicates kept)."""
    codes = []
    for module in CATALOGUE_FILES[class_name]:
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and (node.name == class_name or module is not errors_module):
                codes += [target.id for item in node.body if isinstance(item, ast.Assign) for target in item.targets]
    return codes


def test_every_error_class_of_the_catalogue_is_in_errors():
    from spacy_ctxvec.errors import Errors

    assert [base.__name__ for base in Errors.__bases__] == [
        "PipelineErrors",
        "LexiconErrors",
        "CommandErrors",
    ]


@pytest.mark.parametrize("class_name,letter", [("Errors", "E"), ("Warnings", "W")])
def test_codes_are_unique_well_formed_and_in_order(class_name, letter):
    codes = catalogue_codes(class_name)
    assert codes, class_name
    assert all(re.fullmatch(letter + r"\d{3}", code) for code in codes), codes
    assert len(set(codes)) == len(codes), [code for code in codes if codes.count(code) > 1]
    assert codes == sorted(codes)


def test_messages_carry_the_prefixed_code():
    assert Errors.E523.startswith(f"[{PREFIX}E523] ")
    assert Warnings.W001.startswith(f"[{PREFIX}W001] ")
    assert not Errors.E001.startswith("[E001]")  # never mistaken for spaCy's own codes


def test_ctxvec_error_is_a_value_error():
    with pytest.raises(ValueError, match=r"\[CTX-E004\]"):
        raise CtxvecError(Errors.E004)


def test_an_error_carries_its_code_for_callers_that_branch_on_it():
    """A typed caller read the code out of the message with a regex; ``code`` holds it."""
    from spacy_ctxvec import load_static_vectors

    with pytest.raises(CtxvecError) as caught:
        load_static_vectors("/nonexistent/vectors.txt")
    assert caught.value.code is not None and str(caught.value).startswith(f"[{PREFIX}{caught.value.code}] ")
    assert CtxvecError(Errors.E004).code == "E004"
    assert CtxvecError("a message without a code").code is None
    assert CtxvecError(f"see [{PREFIX}E004] later").code is None  # only a code the message begins with
