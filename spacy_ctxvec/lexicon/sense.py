"""One induced sense of a type (``SenseInventory.senses_of``): a frozen record, printed
short (its word, index, share and label; the vectors by shape only); what is wrong with an
inventory's parts (``InventoryProblem``)."""

from dataclasses import dataclass, field
from typing import List, Tuple

import numpy as np

from ..errors import CtxvecError, Errors
from ..ops.sense_labels import format_label


@dataclass(frozen=True, eq=False)
class Sense:
    """One sense of a type: its index within the type (0 = largest), share of the
    type's sample, static vector (mean raw contextual vector of its members), unit
    centroid in the sense space, example snippets (word in [brackets]) and
    ``label_words``: distinctive context words of its sampled occurrences (c-TF-IDF,
    ``ops.sense_labels``; [] for inventories saved without labels); ``word``: the
    inventory key it is a sense of ("" where not given; not compared). Two Senses are equal
    where all else is, the vectors value by value."""

    index: int
    share: float
    vector: np.ndarray
    centroid: np.ndarray
    examples: List[str]
    label_words: List[str] = field(default_factory=list)
    word: str = ""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sense):
            return NotImplemented
        same = (self.index, self.share, self.examples, self.label_words)
        return same == (other.index, other.share, other.examples, other.label_words) and all(
            np.array_equal(mine, theirs)
            for mine, theirs in ((self.vector, other.vector), (self.centroid, other.centroid))
        )

    __hash__ = None  # type: ignore[assignment]  # its vectors are arrays (as a dataclass with eq would be)

    @property
    def label(self) -> str:
        """The label words as one string: "river, water, side" ("" without words)."""
        return format_label(self.label_words)

    def __repr__(self) -> str:
        word = f"word={self.word!r}, " if self.word else ""
        return (
            f"Sense({word}index={self.index}, share={self.share:.3f}, label={self.label!r}, "
            f"examples={len(self.examples)}, vector=<{_shape(self.vector)}>, centroid=<{_shape(self.centroid)}>)"
        )


def _shape(array: np.ndarray) -> str:
    return f"{np.shape(array)} {getattr(array, 'dtype', '')}".strip()


class InventoryProblem(CtxvecError):
    """E600: what is wrong with a SenseInventory's parts (``problem``, for E601 on reading)."""

    def __init__(self, problem: str) -> None:
        super().__init__(Errors.E600.format(problem=problem))
        self.problem = problem

    def __reduce__(self) -> Tuple[type, Tuple[str]]:  # pickled (a worker process's error): the problem alone
        return type(self), (self.problem,)
