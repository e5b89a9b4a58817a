"""Reader of sense-labelled sentences (JSON lines with a lemma, its words, the target's
position and a gold sense label, e.g. wordnet_examples.jsonl): pure Python + numpy, no spaCy."""

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..building.bounded_json import loads_bounded
from ..errors import CtxvecError, Errors
from ..paths import composed, composed_tokens
from ..types import PathLike
from .readers import VISIBLE_TARGET, data_lines, existing_data_file
from .target_check import warn_if_indices_look_off

SENSE_SENTENCES_FORMAT = (
    'JSON lines {"lemma": str, "words": [str, ...], "position": int, "synset" (or "sense"): str or int}'
)
SENSE_LABEL_KEYS = ("synset", "sense")


@dataclass
class SenseSentences:
    """Sentences of lemmas, each with the target's token index and its gold sense label."""

    lemmas: List[str]
    words: List[List[str]]
    positions: np.ndarray  # (n,) int64, 0-based index of the target in words
    senses: List[str]

    def __len__(self) -> int:
        return len(self.lemmas)

    def by_lemma(self, per_lemma: Optional[int] = None, min_sentences: int = 2) -> Dict[str, List[int]]:
        """Row numbers per lemma (lemmas in order of first appearance, rows in file
        order), the first ``per_lemma`` of each; lemmas with fewer than
        ``min_sentences`` rows are left out."""
        groups: Dict[str, List[int]] = {}
        for row, lemma in enumerate(self.lemmas):
            groups.setdefault(lemma, []).append(row)
        return {lemma: rows[:per_lemma] for lemma, rows in groups.items() if len(rows) >= min_sentences}


def _sense_row(path: Path, number: int, line: str) -> Tuple[str, List[str], int, str]:
    expected = 'a JSON object {"lemma": str, "words": [str, ...], "position": int, "synset" (or "sense"): str or int}'
    try:
        row = loads_bounded(line.lstrip("\ufeff"))  # a mark where files were joined with cat
    except ValueError as err:
        raise CtxvecError(
            Errors.E302.format(path=path, line=number, got=line[:200], expected=f"{expected} ({err})")
        ) from None
    label_key = next((key for key in SENSE_LABEL_KEYS if isinstance(row, dict) and key in row), None)
    if (
        not isinstance(row, dict)
        or label_key is None
        or not isinstance(row.get("lemma"), str)
        or not row["lemma"]
        or not isinstance(row.get("words"), list)
        or not row["words"]
        or not all(
            isinstance(word, str) and word.strip() and not any(c.isspace() for c in word) for word in row["words"]
        )
        or type(row.get("position")) is not int
        or isinstance(row[label_key], bool)
        or not isinstance(row[label_key], (str, int))
        or str(row[label_key]) == ""
    ):
        raise CtxvecError(Errors.E302.format(path=path, line=number, got=line[:200], expected=expected))
    position, words = row["position"], row["words"]
    if not 0 <= position < len(words):
        raise CtxvecError(
            Errors.E303.format(
                path=path,
                line=number,
                index=position,
                sentence='the row\'s "words"',
                n_tokens=len(words),
                tokens="words in the list",
            )
        )
    words, moved = composed_tokens(words, position)
    if moved is None:
        raise CtxvecError(Errors.E302.format(path=path, line=number, got=line[:200], expected=VISIBLE_TARGET))
    return composed(row["lemma"]), words, moved, composed(str(row[label_key]))


def read_sense_sentences(path: PathLike) -> SenseSentences:
    """Read sense-labelled sentences, one JSON object per line: ``lemma``, ``words``
    (tokens without whitespace), ``position`` (0-based index of the target in words) and
    the gold label ``synset`` (or ``sense``), e.g. wordnet_examples.jsonl."""
    path = existing_data_file(
        path, 'Give JSON lines {"lemma", "words", "position", "synset"}, e.g. wordnet_examples.jsonl.'
    )
    lemmas, words, positions, senses, lines = [], [], [], [], []
    for number, line in data_lines(path, compose=False):  # "position" counts the words as written
        lemma, row_words, position, sense = _sense_row(path, number, line)
        lemmas.append(lemma)
        words.append(row_words)
        positions.append(position)
        senses.append(sense)
        lines.append(number)
    if not lemmas:
        raise CtxvecError(Errors.E305.format(path=path, expected=SENSE_SENTENCES_FORMAT))
    warn_if_indices_look_off(path, lemmas, words, positions, lines)
    return SenseSentences(lemmas, words, np.array(positions, dtype=np.int64), senses)
