"""Type aliases shared across the package."""

from pathlib import Path
from typing import Callable, Sequence, Union

import numpy as np
from spacy.tokens import Doc

PathLike = Union[str, Path]
# One corpus document: a text, or a Doc whose tokens are kept as given.
CorpusItem = Union[str, Doc]
# rows (n_pieces, width), lengths (n_tokens,) -> (n_tokens, out_width)
PoolingFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
# per-layer row arrays (each (n_pieces, width)) -> (n_pieces, out_width)
LayerCombineFn = Callable[[Sequence[np.ndarray]], np.ndarray]
