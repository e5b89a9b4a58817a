"""Do a file's target indices point at its target words? A check for WiC and sense-sentence
files (pure Python): an index counted from 1, or over another tokenisation than the
whitespace split, scores other words than the file names, with no error anywhere."""

import warnings
from pathlib import Path
from typing import List, Sequence

from ..errors import Warnings

PREFIX_LETTERS = 2
# Irregular forms ("went" for "go") are 2% of WiC train's targets and none of
# wordnet_examples'; an index off by one leaves 99% of WiC's targets unlike their word.
UNLIKE_SHARE = 0.25
N_EXAMPLES = 3
INDEX_FIX = (
    "An index counts the whitespace-separated tokens of its sentence from 0: check that the file's indices "
    "are not counted from 1 or over another tokenisation."
)


def looks_like(target: str, token: str) -> bool:
    """Whether ``token`` begins as ``target`` does (its first PREFIX_LETTERS letters, any case)."""
    return target.casefold()[:PREFIX_LETTERS] == token.casefold()[:PREFIX_LETTERS]


def unlike_targets(targets: Sequence[str], tokens: Sequence[str]) -> List[int]:
    """Positions i where ``tokens[i]``, the token a row's index points at, does not look like ``targets[i]``."""
    return [i for i, (target, token) in enumerate(zip(targets, tokens)) if not looks_like(target, token)]


def warn_if_indices_look_off(
    path: Path,
    targets: Sequence[str],
    sentences: Sequence[Sequence[str]],
    indices: Sequence[int],
    lines: Sequence[int],
    fix: str = INDEX_FIX,
) -> None:
    """W045 when more than UNLIKE_SHARE of the targets are unlike the token their index
    points at (``sentences[i][indices[i]]``); ``lines[i]`` is the file's 1-based line of
    target i; ``fix``: what to check."""
    tokens = [sentence[int(i)] for sentence, i in zip(sentences, indices)]
    unlike = unlike_targets(targets, tokens)
    if targets and len(unlike) > UNLIKE_SHARE * len(targets):
        examples = ", ".join(f"line {lines[i]}: '{tokens[i]}' for '{targets[i]}'" for i in unlike[:N_EXAMPLES])
        warnings.warn(
            Warnings.W045.format(
                path=path,
                n_unlike=len(unlike),
                n_targets=len(targets),
                letters=PREFIX_LETTERS,
                examples=examples,
                fix=fix,
            ),
            stacklevel=3,
        )
