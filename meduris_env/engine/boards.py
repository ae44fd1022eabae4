"""Boards as data (RULES.md R3).

A board is a closed ring of building fields, listed clockwise from the first field after the great
river. Each field shows two different materials and belongs to one of 9 rune areas. Two boards
ship with the package:

* ``"2-3"`` — read off the printed 2-3 player side (32 fields);
* ``"4"`` — a **reconstruction** of the 4-player side (40 fields): the printed side was not
  available, so it is the 2-3 layout plus 8 fields with every material on 20 fields.

Users may load their own JSON file of the same shape with :func:`load_board`; a malformed file is
rejected with a :class:`BoardError` naming the problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.jsonfile import read_json_file

from .constants import MATERIALS, MAX_FIELDS, NUM_RUNE_AREAS

BUILTIN_BOARDS = {
    "2-3": "board-2-3-players.json",
    "4": "board-4-players-reconstructed.json",
}


class BoardError(InputError, ValueError):
    """A board file or dict that does not describe a valid Meduris board."""


@dataclass(frozen=True, eq=False)
class Board:
    """A validated board: static data shared by every state of a game."""

    name: str
    note: str
    rune_areas: tuple[str, ...]
    field_materials: np.ndarray  # int32 (num_fields, 2): material indices, see constants.MATERIALS
    field_area: np.ndarray  # int32 (num_fields,): index into rune_areas
    source: dict[str, Any] = field(repr=False)  # the JSON dict it was built from (for to_json)

    @property
    def num_fields(self) -> int:
        return int(self.field_area.shape[0])

    @property
    def reconstructed(self) -> bool:
        return "reconstruct" in (self.name + " " + self.note).lower()

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.source))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Board)
            and self.rune_areas == other.rune_areas
            and np.array_equal(self.field_materials, other.field_materials)
            and np.array_equal(self.field_area, other.field_area)
        )

    def __hash__(self) -> int:
        return hash((self.rune_areas, self.field_materials.tobytes(), self.field_area.tobytes()))


# what a board file may hold: the data the engine reads, and facts it states about itself
BOARD_KEYS = {"name", "note", "num_fields", "rune_areas", "fields", "druid_stone_fields",
              "druid_enters_before_field", "great_river_between", "material_totals"}
FIELD_KEYS = {"index", "materials", "rune_area"}


def _check_descriptive_keys(data: dict, mats: np.ndarray, n: int, where: str) -> None:
    """The keys that describe the board in words must say what the rules and its fields say."""
    facts = {"druid_stone_fields": 3,  # R5
             "druid_enters_before_field": 0,  # R17
             "great_river_between": [n - 1, 0]}  # R3
    for key, value in facts.items():
        if key in data and data[key] != value:
            raise BoardError(f"{where}: {key!r} is {data[key]!r}; the rules make it {value!r}")
    if "material_totals" in data:
        counts = {m: int(np.sum(mats == k)) for k, m in enumerate(MATERIALS)}
        if data["material_totals"] != counts:
            raise BoardError(f"{where}: 'material_totals' is {data['material_totals']!r} but the "
                             f"fields show {counts}")


def board_from_dict(data: Any, where: str = "board") -> Board:
    """Validate a board dict (the JSON shape of the shipped files) and build a :class:`Board`."""
    if not isinstance(data, dict):
        raise BoardError(f"{where}: expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - BOARD_KEYS)
    if unknown:
        raise BoardError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; a board has "
                         f"{', '.join(sorted(BOARD_KEYS))}")
    for key in ("name", "note"):
        if key in data and not isinstance(data[key], str):
            raise BoardError(f"{where}: {key!r} must be a string")
    areas = data.get("rune_areas")
    if not isinstance(areas, list) or not all(isinstance(a, str) for a in areas):
        raise BoardError(f"{where}: 'rune_areas' must be a list of names")
    if len(areas) != NUM_RUNE_AREAS or len(set(areas)) != NUM_RUNE_AREAS:
        raise BoardError(
            f"{where}: needs exactly {NUM_RUNE_AREAS} distinct rune areas (R3), "
            f"got {len(set(areas))}"
        )
    fields = data.get("fields")
    if not isinstance(fields, list) or not fields:
        raise BoardError(f"{where}: 'fields' must be a non-empty list")
    n = len(fields)
    if n > MAX_FIELDS:
        raise BoardError(f"{where}: {n} fields, at most {MAX_FIELDS} fit the fixed action space")
    declared = data.get("num_fields", n)
    if type(declared) is not int or declared != n:
        raise BoardError(f"{where}: 'num_fields' says {declared} but {n} fields are listed")
    mats = np.zeros((n, 2), dtype=np.int32)
    area = np.zeros(n, dtype=np.int32)
    for i, f in enumerate(fields):
        here = f"{where}: field {i}"
        if not isinstance(f, dict):
            raise BoardError(f"{here}: expected an object")
        if set(f) - FIELD_KEYS:
            raise BoardError(f"{here}: unknown key(s) {sorted(set(f) - FIELD_KEYS)}; a field has "
                             f"{', '.join(sorted(FIELD_KEYS))}")
        index = f.get("index", i)
        if type(index) is not int or index != i:
            raise BoardError(f"{here}: 'index' is {f.get('index')!r}, fields must be listed in "
                             "ring order")
        pair = f.get("materials")
        if not isinstance(pair, list) or len(pair) != 2:
            raise BoardError(f"{here}: 'materials' must list exactly two materials")
        for j, m in enumerate(pair):
            if m not in MATERIALS:
                raise BoardError(f"{here}: unknown material {m!r} (known: {', '.join(MATERIALS)})")
            mats[i, j] = MATERIALS.index(m)
        if mats[i, 0] == mats[i, 1]:
            raise BoardError(f"{here}: shows {pair[0]!r} twice; a field needs two different "
                             "materials (R3)")
        a = f.get("rune_area")
        if a not in areas:
            raise BoardError(f"{here}: unknown rune area {a!r}")
        area[i] = areas.index(a)
    unused = [a for k, a in enumerate(areas) if not np.any(area == k)]
    if unused:
        raise BoardError(f"{where}: rune area(s) {', '.join(unused)} have no field")
    _check_descriptive_keys(data, mats, n, where)
    return Board(
        name=str(data.get("name", "custom")),
        note=str(data.get("note", "")),
        rune_areas=tuple(areas),
        field_materials=mats,
        field_area=area,
        source=data,
    )


def load_board(spec: str | Path | dict | Board | None, num_players: int = 2) -> Board:
    """A board from a built-in name (``"2-3"``, ``"4"``), a JSON file path, a dict or a Board.

    ``None`` picks the board for ``num_players`` (R3): the 2-3 side, or the 4-player side.
    """
    if isinstance(spec, Board):
        return spec
    if spec is None:
        spec = "4" if num_players == 4 else "2-3"
    if isinstance(spec, dict):
        return board_from_dict(spec)
    key = str(spec)
    if key in BUILTIN_BOARDS:
        data = resources.files(__package__).joinpath("board_data", BUILTIN_BOARDS[key])
        text = data.read_text("utf-8")
        return board_from_dict(json.loads(text), where=f"built-in board {key!r}")
    path = Path(key)
    if not path.is_file():
        raise BoardError(
            f"board {key!r}: not a built-in board ({', '.join(BUILTIN_BOARDS)}) and no such file"
        )
    data = read_json_file(path, BoardError, f"board file {path} cannot be read as JSON")
    return board_from_dict(data, where=f"board file {path}")
