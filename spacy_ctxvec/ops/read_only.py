"""Read-only views: what a table object hands out cannot change the table."""

from dataclasses import fields, is_dataclass, replace
from typing import Any, Dict, Optional

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


def _frozen(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return read_only(value)
    if is_dataclass(value) and not isinstance(value, type):  # a record of arrays (a sense space)
        return replace(value, **{field.name: _frozen(getattr(value, field.name)) for field in fields(value)})
    return value


class ReadOnlyArrays:
    """Mixin of a class whose array attributes are read-only views: they stay so after
    pickle or copy.deepcopy (an n_process or Ray worker's copy), which numpy does not keep."""

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update({name: _frozen(value) for name, value in state.items()})
