"""Read-only views: what a table object hands out cannot change the table."""

from typing import Any, Optional

import numpy as np


def read_only(values: Any, dtype: Any = None) -> np.ndarray:
    """``np.asanyarray(values, dtype)`` as a view that cannot be written through (an array
    given keeps its own flags).

    Objects that own arrays (sense inventories, samples, probes, vector tables, lexicons)
    keep such views, so that ``inventory.vectors[:] = 0`` or a Sense's ``vector`` changed
    in place is a ValueError instead of silently changing every later Doc."""
    view = np.asanyarray(values, dtype=dtype).view()  # a memory map stays one
    view.flags.writeable = False
    return view


def read_only_or_none(values: Any, dtype: Any = None) -> Optional[np.ndarray]:
    """``read_only(values, dtype)``; None for None (an array an older save did not have)."""
    return None if values is None else read_only(values, dtype)
