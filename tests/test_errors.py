"""The error and warning catalogue: unique codes in order, rendered with the CTX- prefix."""

import ast
import re
from pathlib import Path

import pytest

import spacy_ctxvec.errors as errors_module
from spacy_ctxvec.errors import PREFIX, CtxvecError, Errors, Warnings


def catalogue_codes(class_name: str):
    """The codes assigned in a catalogue class, in source order (duplicates kept)."""
    tree = ast.parse(Path(errors_module.__file__).read_text(encoding="utf8"))
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name).body
    return [target.id for node in body if isinstance(node, ast.Assign) for target in node.targets]


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
