"""Type aliases shared across the package (no spaCy import: a corpus document, text or
Doc, is ``building.corpus.CorpusItem``)."""

from pathlib import Path
from typing import Callable, Sequence, Union

import numpy as np

PathLike = Union[str, Path]
# rows (n_pieces, width), lengths (n_tokens,) -> (n_tokens, out_width)
PoolingFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
# per-layer row arrays (each (n_pieces, width)) -> (n_pieces, out_width)
LayerCombineFn = Callable[[Sequence[np.ndarray]], np.ndarray]
