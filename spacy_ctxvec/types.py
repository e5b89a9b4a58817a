"""Type aliases shared by registered functions and components."""
from typing import Callable, Sequence

import numpy as np

# rows (n_pieces, width), lengths (n_tokens,) -> (n_tokens, out_width)
PoolingFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
# per-layer row arrays (each (n_pieces, width)) -> (n_pieces, out_width)
LayerCombineFn = Callable[[Sequence[np.ndarray]], np.ndarray]
