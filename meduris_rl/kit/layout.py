"""A game state as one flat int32 array (Meduris's and Stone Age's numba kernels): the fields'
table ``(name, shape, meaning)`` gives each field its offset, in order, with no gaps."""

from __future__ import annotations

import math


def field_offsets(fields) -> dict[str, tuple[int, tuple[int, ...]]]:
    """``{name: (offset, shape)}`` of each field of ``fields`` laid out in order, and
    ``"_size"``: ``(the array's length, ())``."""
    out: dict[str, tuple[int, tuple[int, ...]]] = {}
    pos = 0
    for name, shape, _ in fields:
        if name in out:
            raise ValueError(f"the state field {name!r} is declared twice")
        out[name] = (pos, tuple(shape))
        pos += math.prod(shape)
    out["_size"] = (pos, ())
    return out
