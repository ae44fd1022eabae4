"""The components of Stone Age as tables for the kernels: the 36 civilization cards (34 rows),
the 28 buildings (22 rows) and the Mammoth Herd tiles (section 4 and 7 of the rules).

The data comes from ``data/components.json`` (a copy of the project's cross-checked
``stoneage-components.json``). The Mammoth tiles shipped there are a **reconstruction** (no
public source lists them, rules section 7): :func:`load_tiles` reads another tile set (a file in
the same shape, or its ``mammoth_tiles`` part) so that a player with the physical tiles can use
the true set; every field is checked and a bad file gets one line
(:class:`~stoneage_env.engine.errors.ComponentsError`).

Tables (int32 numpy arrays, read by the kernels):

* ``CARDS[row]`` = (copies, bottom, bottom value, top, top a, top b): bottom is
  ``constants.GREEN`` (value: the symbol) or a sand category (value: its figures); the top codes
  are ``constants.TOP_*`` (S20);
* ``BUILDINGS[row]`` = (copies, cost kind, wood, clay, stone, gold, count, kinds, min, max, VP):
  cost kind ``FIXED`` (the four amounts, VP printed), ``COUNT_KINDS`` (count, kinds) or
  ``ANY_COST`` (min … max); VP -1: the sum of the values paid (S26);
* a tile set: int32 [tiles, 7] = (back, "1" kind, a, b, "all" kind, a, b), kinds
  ``constants.BON_*`` (M10), a resource kind as a goods index.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from meduris_rl.kit.jsonfile import parse_json

from .constants import (
    ANY_COST,
    BON_AGRI,
    BON_ANY,
    BON_CARD,
    BON_FIGURE,
    BON_RES,
    BON_TOOL,
    BON_VP,
    BOTTOM_NAMES,
    COUNT_KINDS,
    FIXED,
    GOODS,
    GREEN,
    MAX_MAMMOTH_TILES,
    NUM_BUILDING_ROWS,
    NUM_BUILDINGS,
    NUM_CARD_ROWS,
    NUM_CARDS,
    SYMBOLS,
    TOP_AGRI,
    TOP_ANY,
    TOP_CARD,
    TOP_DICE,
    TOP_FOOD,
    TOP_OUT,
    TOP_RES,
    TOP_ROLL,
    TOP_TOOL,
    TOP_VP,
)
from .errors import ComponentsError

DATA = Path(__file__).resolve().parent / "data" / "components.json"
_RESOURCE = {name: i for i, name in enumerate(GOODS) if i > 0}
_CATEGORY = {"farmer": 1, "tool_maker": 2, "hut_builder": 3, "shaman": 4}
_TOPS = {"food": TOP_FOOD, "resource": TOP_RES, "dice_for_all": TOP_DICE, "roll": TOP_ROLL,
         "one_use_tool": TOP_OUT, "agriculture": TOP_AGRI, "tool": TOP_TOOL,
         "extra_card": TOP_CARD, "any_resources": TOP_ANY, "vp": TOP_VP}
_BONUSES = {"agriculture": BON_AGRI, "resource": BON_RES, "civ_card": BON_CARD,
            "tool": BON_TOOL, "any_resources": BON_ANY, "figure": BON_FIGURE, "vp": BON_VP}
BONUS_KEYS = {v: k for k, v in _BONUSES.items()}


def _card_row(card: dict) -> list[int]:
    bottom, top = card["bottom"], card["top"]
    if bottom["type"] == "green":
        b, bv = GREEN, SYMBOLS.index(bottom["symbol"])
    else:
        b, bv = _CATEGORY[bottom["category"]], int(bottom["n"])
    code = _TOPS[top["type"]]
    if code == TOP_RES:
        a, bb = _RESOURCE[top["kind"]], int(top["n"])
    elif code == TOP_ROLL:
        a, bb = _RESOURCE[top["kind"]], int(top["dice"])
    else:
        a, bb = int(top.get("n", 0)), 0
    return [int(card["copies"]), b, bv, code, a, bb]


def _building_row(tile: dict) -> list[int]:
    cost = tile["cost"]
    amounts = [0, 0, 0, 0]
    count = kinds = low = high = 0
    if cost["type"] == "fixed":
        kind = FIXED
        for name, n in cost["resources"].items():
            amounts[_RESOURCE[name] - 1] = int(n)
    elif cost["type"] == "count_kinds":
        kind, count, kinds = COUNT_KINDS, int(cost["count"]), int(cost["kinds"])
    else:
        kind, low, high = ANY_COST, int(cost["min"]), int(cost["max"])
    vp = -1 if tile["vp"] == "sum_of_values" else int(tile["vp"])
    return [int(tile["copies"]), kind, *amounts, count, kinds, low, high, vp]


def _load_base() -> tuple[dict, np.ndarray, np.ndarray]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    cards = np.array([_card_row(c) for c in data["cards"]], dtype=np.int32)
    buildings = np.array([_building_row(b) for b in data["buildings"]], dtype=np.int32)
    assert cards.shape == (NUM_CARD_ROWS, 6) and int(cards[:, 0].sum()) == NUM_CARDS
    assert buildings.shape == (NUM_BUILDING_ROWS, 11) and int(buildings[:, 0].sum()) == \
        NUM_BUILDINGS
    return data, cards, buildings


_DATA, CARDS, BUILDINGS = _load_base()
CARD_IDS = tuple(c["id"] for c in _DATA["cards"])  # "G1" … "S5"
BUILDING_IDS = tuple(b["id"] for b in _DATA["buildings"])  # "B01" … "B22"
CARDS.setflags(write=False)
BUILDINGS.setflags(write=False)
#: the ANY2 card's resources (S23: 2; one such card)
ANY_N = int(next(c[4] for c in CARDS if c[3] == TOP_ANY))


# --- the Mammoth tiles -------------------------------------------------------------------------
@dataclass(frozen=True)
class TileSet:
    """A set of Mammoth Herd tiles (M1, M10): ``table`` int32 [tiles, 7] as the module says,
    ``ids`` their names, ``reconstructed`` whether the set is the project's reconstruction
    (rules section 7) and ``source`` where it was read."""

    table: np.ndarray
    ids: tuple[str, ...]
    reconstructed: bool
    source: str

    def __len__(self) -> int:
        return len(self.ids)

    def to_json(self) -> dict:
        """The set in the file's shape (``load_tiles`` reads it back)."""
        def bonus(kind: int, a: int, b: int) -> dict:
            key = BONUS_KEYS[kind]
            if kind == BON_RES:
                return {"type": key, "kind": GOODS[a], "n": b}
            return {"type": key} if kind == BON_CARD else {"type": key, "n": a}
        return {"reconstructed": self.reconstructed, "tiles": [
            {"id": i, "back": GOODS[int(r[0])], "one": bonus(*map(int, r[1:4])),
             "all": bonus(*map(int, r[4:7]))} for i, r in zip(self.ids, self.table, strict=False)]}


def _field(obj: dict, key: str, where: str):
    if not isinstance(obj, dict):
        raise ComponentsError(f"{where}: an object expected, got {type(obj).__name__}")
    if key not in obj:
        raise ComponentsError(f"{where}: the field {key!r} is missing")
    return obj[key]


def _count(value, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ComponentsError(f"{where}: a whole number {low}-{high} expected, got {value!r:.40}")
    return value


def _resource(value, where: str) -> int:
    if value not in _RESOURCE:
        raise ComponentsError(f"{where}: one of wood, clay, stone, gold expected, got "
                              f"{value!r:.40}")
    return _RESOURCE[value]


def _bonus(obj, where: str) -> list[int]:
    kind = _field(obj, "type", where)
    if kind not in _BONUSES:
        raise ComponentsError(f"{where}: the bonus type {kind!r:.40} is not one of "
                              f"{', '.join(_BONUSES)}")
    code = _BONUSES[kind]
    allowed = {"type", "n"} | ({"kind"} if code == BON_RES else set())
    if code == BON_CARD:
        allowed = {"type"}
    extra = set(obj) - allowed
    if extra:
        raise ComponentsError(f"{where}: unknown field {sorted(extra)[0]!r:.40} for a "
                              f"{kind} bonus")
    if code == BON_CARD:
        return [code, 1, 0]
    n = _count(_field(obj, "n", where), f"{where} n", 1, 20)
    if code == BON_RES:
        return [code, _resource(_field(obj, "kind", where), f"{where} kind"), n]
    return [code, n, 0]


def tile_set(data, source: str = "data") -> TileSet:
    """The tile set of ``data``: a components file's object (its ``mammoth_tiles``) or the
    ``mammoth_tiles`` object itself (``{"tiles": [...], "reconstructed": ...}``); 1-16 tiles,
    each ``{"id", "back", "one", "all"}`` (M1, M10)."""
    if isinstance(data, dict) and "mammoth_tiles" in data:
        data = data["mammoth_tiles"]
    tiles = _field(data, "tiles", source)
    if not isinstance(tiles, list) or not 1 <= len(tiles) <= MAX_MAMMOTH_TILES:
        raise ComponentsError(f"{source}: 'tiles' must be a list of 1-{MAX_MAMMOTH_TILES} "
                              "tiles (M1: the expansion has 16)")
    rows, ids = [], []
    for i, tile in enumerate(tiles):
        where = f"{source}: tile {i + 1}"
        name = _field(tile, "id", where)
        if not isinstance(name, str) or not name.isprintable() or not 1 <= len(name) <= 20:
            raise ComponentsError(f"{where}: 'id' must be a short printable name")
        if name in ids:
            raise ComponentsError(f"{where}: the id {name!r} is used twice")
        extra = set(tile) - {"id", "back", "one", "all", "reconstructed", "note"}
        if extra:
            raise ComponentsError(f"{where}: unknown field {sorted(extra)[0]!r:.40}")
        back = _resource(_field(tile, "back", where), f"{where} back")
        rows.append([back, *_bonus(_field(tile, "one", where), f"{where} '1' bonus"),
                     *_bonus(_field(tile, "all", where), f"{where} 'all' bonus")])
        ids.append(name)
    reconstructed = data.get("reconstructed", False)
    if not isinstance(reconstructed, bool):
        raise ComponentsError(f"{source}: 'reconstructed' must be true or false")
    table = np.array(rows, dtype=np.int32)
    table.setflags(write=False)
    return TileSet(table, tuple(ids), reconstructed, source)


def load_tiles(path: str | Path) -> TileSet:
    """The tile set in the JSON file ``path`` (:func:`tile_set`'s shapes)."""
    p = Path(path)
    try:
        text = p.read_bytes()
    except OSError as e:
        raise ComponentsError(f"cannot read the Mammoth tile file {p}: "
                              f"{e.strerror or e}") from None
    return tile_set(parse_json(text, ComponentsError, f"the Mammoth tile file {p}"), str(p))


#: the shipped set: the project's reconstruction (rules section 7)
RECONSTRUCTED_TILES = tile_set(_DATA, "the shipped reconstruction (docs/stone_age.md, 7)")


def card_name(row: int) -> str:
    """``G1 (green pottery / FOOD 7)`` style: the card's id, bottom and top."""
    c = CARDS[row]
    bottom = (f"green {SYMBOLS[c[2]]}" if c[1] == GREEN else
              f"{c[2]} {BOTTOM_NAMES[c[1]]}{'s' if c[2] > 1 else ''}")
    return f"{CARD_IDS[row]} ({bottom} / {top_text(row)})"


def top_text(row: int) -> str:
    _, _, _, code, a, b = (int(x) for x in CARDS[row])
    if code == TOP_RES:
        return f"RES {b} {GOODS[a]}"
    if code == TOP_ROLL:
        return f"ROLL {GOODS[a]}"
    return {TOP_FOOD: f"FOOD {a}", TOP_DICE: "DICE", TOP_OUT: f"OUT {a}", TOP_AGRI: "AGRI",
            TOP_TOOL: "TOOL", TOP_CARD: "CARD", TOP_ANY: f"ANY{a}", TOP_VP: f"VP {a}"}[code]


def building_name(row: int) -> str:
    """``B10 (1W 1C 1S, 12 VP)`` style."""
    r = [int(x) for x in BUILDINGS[row]]
    if r[1] == FIXED:
        cost = " ".join(f"{n}{'WCSG'[k]}" for k, n in enumerate(r[2:6]) if n)
        return f"{BUILDING_IDS[row]} ({cost}, {r[10]} VP)"
    if r[1] == COUNT_KINDS:
        return f"{BUILDING_IDS[row]} ({r[6]} resources of exactly {r[7]} kind" \
               f"{'s' if r[7] > 1 else ''})"
    return f"{BUILDING_IDS[row]} ({r[8]}-{r[9]} resources, any kinds)"


def bonus_text(kind: int, a: int, b: int) -> str:
    if kind == BON_RES:
        return f"{b} {GOODS[a]}"
    return {BON_AGRI: f"agriculture +{a}", BON_CARD: "a civilization card",
            BON_TOOL: f"{a} tool step{'s' if a > 1 else ''}",
            BON_ANY: f"{a} resource{'s' if a > 1 else ''} of choice",
            BON_FIGURE: f"{a} figure{'s' if a > 1 else ''}", BON_VP: f"{a} VP"}[kind]


__all__ = ["ANY_N", "BUILDINGS", "BUILDING_IDS", "CARDS", "CARD_IDS", "DATA",
           "RECONSTRUCTED_TILES", "TileSet", "bonus_text", "building_name", "card_name",
           "load_tiles", "tile_set", "top_text", "ANY_COST"]
