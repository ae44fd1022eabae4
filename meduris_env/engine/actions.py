"""Action ids <-> typed records <-> readable strings (the table is in constants.py and the README).

:func:`decode_action` is the one place an id (player action or chance outcome) is decoded by
its range: it returns an :class:`Action`, the kind in the game's words and the numbers it names
(the view's click targets, the terminal's and the web's words all read it). Every id has exactly
one canonical string, and :func:`string_to_action` parses it back (case and spacing do not
matter). Ids outside ``0..NUM_IDS - 1`` raise ``ValueError``; a non-integer raises
``TypeError``.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from .constants import (
    A_EXCHANGE,
    A_HUT,
    A_OFFER,
    A_PLACE,
    A_RETURN,
    A_TAKE,
    A_TEMPLE,
    A_YIELD,
    C_CHIP,
    C_DIE,
    C_START,
    CHIP_DRUID,
    CHIP_FREE_HUT,
    CHIP_KEYS,
    CHIP_VP,
    EXCHANGE_GIVES,
    FACE_NAMES,
    MATERIALS,
    MAX_FIELDS,
    NUM_ACTIONS,
    NUM_IDS,
    NUM_MATERIALS,
    NUM_PLAINS,
    OFFER_NAMES,
    STACK_HEIGHT,
)

# chip kinds in chance ids, in order (R4): field*3 + kind - 1
_CHIP_KINDS = CHIP_DRUID - CHIP_VP + 1


class Action(NamedTuple):
    """One decoded id. ``kind`` names it in the game's words: the player actions ``place``
    (R6), ``take`` (+1, R9), ``return`` (-1, R10), ``move`` (big yield, R11), ``hut`` (R12),
    ``temple`` (R14), ``offer`` (R19, R20), ``exchange`` (R15); the chance outcomes ``roll``
    (R7), ``chip`` (R4), ``start`` (R6). The fields a kind does not name are ``None``."""

    id: int
    kind: str
    plain: int | None = None  # place: the high plain; move: the worker's plain
    level: int | None = None  # move: the worker's level on its plain (0 = bottom)
    to: int | None = None  # move: the destination plain
    material: int | None = None  # take, return: the material; exchange: the one taken
    give: tuple[int, ...] | None = None  # exchange: the three materials given, sorted
    field: int | None = None  # hut, temple, chip: the building field
    choice: int | None = None  # offer: OFFER_NONE .. OFFER_CHIP
    face: int | None = None  # roll: the die face (FACE_NAMES)
    chip: int | None = None  # chip: CHIP_VP, CHIP_FREE_HUT or CHIP_DRUID
    seat: int | None = None  # start: the starting player

    @property
    def is_chance(self) -> bool:
        return self.id >= NUM_ACTIONS


# (first id, kind) in id order; an id belongs to the last range starting at or below it
_RANGES = ((A_PLACE, "place"), (A_TAKE, "take"), (A_RETURN, "return"), (A_YIELD, "move"),
           (A_HUT, "hut"), (A_TEMPLE, "temple"), (A_OFFER, "offer"), (A_EXCHANGE, "exchange"),
           (C_DIE, "roll"), (C_CHIP, "chip"), (C_START, "start"))
_STARTS = tuple(start for start, _ in _RANGES)
KINDS = tuple(kind for _, kind in _RANGES)


def _decode(a: int) -> Action:
    i = bisect_right(_STARTS, a) - 1
    start, kind = _RANGES[i]
    r = a - start
    if kind == "place":
        return Action(a, kind, plain=r)
    if kind in ("take", "return"):
        return Action(a, kind, material=r)
    if kind == "move":
        src, level, dst = yield_parts(a)
        return Action(a, kind, plain=src, level=level, to=dst)
    if kind in ("hut", "temple"):
        return Action(a, kind, field=r)
    if kind == "offer":
        return Action(a, kind, choice=r)
    if kind == "exchange":
        k, take = divmod(r, NUM_MATERIALS)
        return Action(a, kind, material=take, give=EXCHANGE_GIVES[k])
    if kind == "roll":
        return Action(a, kind, face=r)
    if kind == "chip":
        f, k = divmod(r, _CHIP_KINDS)
        return Action(a, kind, field=f, chip=CHIP_VP + k)
    return Action(a, kind, seat=r)


def _as_id(a) -> int:
    """``a`` as an id in 0..NUM_IDS - 1 (numpy integers too), or TypeError / ValueError."""
    if not isinstance(a, int) or isinstance(a, bool):
        try:
            a = int(a)  # numpy integers
        except (TypeError, ValueError):
            raise TypeError(f"an action id is an int, got {a!r}") from None
    if not 0 <= a < NUM_IDS:
        raise ValueError(f"action id {a} is outside 0..{NUM_IDS - 1}")
    return a


def decode_action(a) -> Action:
    """The :class:`Action` of id ``a`` (a player action or a chance outcome)."""
    return ACTIONS[_as_id(a)]


def _name(act: Action) -> str:
    k = act.kind
    if k == "place":
        return f"place worker on {MATERIALS[act.plain]}"
    if k in ("take", "return"):
        return f"{k} {MATERIALS[act.material]}"
    if k == "move":
        return (f"move worker from {MATERIALS[act.plain]} level {act.level} to "
                f"{MATERIALS[act.to]}")
    if k in ("hut", "temple"):
        return f"build {k} on field {act.field}"
    if k == "offer":
        return f"offer {OFFER_NAMES[act.choice]}"
    if k == "exchange":
        give = "+".join(MATERIALS[m] for m in act.give)
        return f"exchange {give} for {MATERIALS[act.material]}"
    if k == "roll":
        return f"roll {FACE_NAMES[act.face]}"
    if k == "chip":
        return f"bonus chip {CHIP_KEYS[act.chip]} on field {act.field}"
    return f"start player {act.seat}"


def yield_parts(a: int) -> tuple[int, int, int]:
    """(source plain, source level, destination plain) of a big-yield action (R11)."""
    source_level, dest = divmod(a - A_YIELD, NUM_PLAINS)
    source, level = divmod(source_level, STACK_HEIGHT)
    return source, level, dest


def big_yield_action(source: int, level: int, dest: int) -> int:
    return A_YIELD + (source * STACK_HEIGHT + level) * NUM_PLAINS + dest


def exchange_action(give: tuple[int, int, int], take: int) -> int:
    return A_EXCHANGE + EXCHANGE_GIVES.index(tuple(sorted(give))) * NUM_MATERIALS + take


def chip_outcome(field: int, kind: int) -> int:
    """Chance id placing a bonus chip of ``kind`` (1 +2 VP, 2 free hut, 3 druid) on ``field``."""
    if not 0 <= field < MAX_FIELDS or kind not in (CHIP_VP, CHIP_FREE_HUT, CHIP_DRUID):
        raise ValueError(f"no bonus chip outcome for field {field}, kind {kind}")
    return C_CHIP + field * _CHIP_KINDS + kind - CHIP_VP


ACTIONS: tuple[Action, ...] = tuple(_decode(a) for a in range(NUM_IDS))
ACTION_STRINGS: tuple[str, ...] = tuple(_name(act) for act in ACTIONS)
_BY_STRING = {s: a for a, s in enumerate(ACTION_STRINGS)}


def action_to_string(a: int) -> str:
    return ACTION_STRINGS[_as_id(a)]


def string_to_action(text: str) -> int:
    key = " ".join(str(text).lower().split())
    if key in _BY_STRING:
        return _BY_STRING[key]
    raise ValueError(f"{text!r} is not an action; examples: {ACTION_STRINGS[A_HUT + 3]!r}, "
                     f"{ACTION_STRINGS[big_yield_action(0, 0, 2)]!r}, "
                     f"{ACTION_STRINGS[A_OFFER + 3]!r}")
