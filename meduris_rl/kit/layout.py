"""A game state as one flat int32 array (Meduris's and Stone Age's numba kernels): the fields'
table ``(name, shape, meaning)`` gives each field its offset, in order, with no gaps; a state
class gets one attribute per field (:func:`add_field_views`)."""

from __future__ import annotations

import math

import numpy as np


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


def field_view(offset: int, shape: tuple[int, ...], doc: str) -> property:
    """A field's attribute of a state whose array is its attribute ``_a``: a scalar
    field reads as an int (and can be set, for building positions by hand), any other as a
    numpy view of ``shape``."""
    if not shape:
        def get(self) -> int:
            return int(self._a[offset])

        def put(self, value: int) -> None:  # for building positions by hand
            self._a[offset] = value
        return property(get, put, doc=doc)
    size = math.prod(shape)

    def get_array(self) -> np.ndarray:
        return self._a[offset:offset + size].reshape(shape)
    return property(get_array, doc=f"{doc} (numpy view, shape {shape})")


def add_field_views(state_class: type, fields) -> None:
    """Give ``state_class`` one :func:`field_view` per field of the table ``fields`` (laid out
    as :func:`field_offsets` does): ``state.vp``, ``state.goods[seat, WOOD]`` …"""
    offsets = field_offsets(fields)
    for name, _, doc in fields:
        offset, shape = offsets[name]
        setattr(state_class, name, field_view(offset, shape, doc))
