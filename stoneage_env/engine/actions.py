"""The names of Stone Age's action and chance-outcome ids (the table in
:mod:`stoneage_env.engine.constants`), both ways: ``action_to_string(41) == "place card slot
1"`` and ``string_to_action("place card slot 1") == 41``. The one decoder of ids: the text view,
the records, the terminal seat and ``cmd:`` bots all use it."""

from __future__ import annotations

from .components import BUILDING_IDS, CARD_IDS
from .constants import (
    A_DECLINE,
    A_FIELD,
    A_GAIN,
    A_HUNT,
    A_HUT,
    A_KEEP,
    A_MOVE,
    A_ONE,
    A_ONE_USE,
    A_PAY,
    A_PENALTY,
    A_PICK,
    A_RESOLVE,
    A_SITE,
    A_SLOT,
    A_STACK,
    A_STOP,
    A_TAKE,
    A_TILE,
    A_TOOL_MAKER,
    A_YIELD,
    C_BACK,
    C_BUILDING,
    C_CARD,
    C_DIE,
    C_TILE,
    GOODS,
    LOCATION_NAMES,
    MAX_MAMMOTH_TILES,
    NUM_IDS,
    RESOURCES,
)
from .errors import IllegalActionError


def _names() -> list[str]:
    out = [f"place {k} on the hunting grounds" for k in range(1, 11)]
    for site in range(1, 5):
        out += [f"place {k} on the {LOCATION_NAMES[site]}" for k in range(1, 8)]
    out += ["place on the tool maker", "place 2 on the hut", "place on the field"]
    out += [f"place on card slot {s}" for s in range(1, 5)]
    out += [f"place on building stack {j}" for j in range(1, 5)]
    out += [f"resolve the {name}" for name in LOCATION_NAMES]
    out += [f"add tool tile {v}" for v in (4, 3, 2, 1)]
    out += [f"add one-use tool {v}" for v in (4, 3, 2, 1)]
    out += ["take the yield"]
    out += [f"pay 1 {r}" for r in RESOURCES]
    out += ["take it", "decline", "take the -10 penalty"]
    out += [f"move a figure paying 1 {g}" for g in GOODS]
    out += ["move no more figures"]
    out += [f"pick the die showing {f}" for f in range(1, 7)]
    out += [f"take 1 {r}" for r in RESOURCES]
    out += ["keep the ANY2 card", "take the '1' bonus", "take the 'all' bonus"]
    out += [f"die shows {f}" for f in range(1, 7)]
    out += [f"card {c} drawn" for c in CARD_IDS]
    out += [f"building {b} turned" for b in BUILDING_IDS]
    out += [f"Mammoth tile {i + 1} turned" for i in range(MAX_MAMMOTH_TILES)]
    out += [f"Mammoth back: {r}" for r in RESOURCES]
    return out


NAMES: tuple[str, ...] = tuple(_names())
assert len(NAMES) == NUM_IDS
assert NAMES[A_HUNT] == "place 1 on the hunting grounds" and NAMES[A_SITE].endswith("forest")
assert NAMES[A_TOOL_MAKER] == "place on the tool maker" and NAMES[A_HUT].startswith("place 2")
assert NAMES[A_FIELD] == "place on the field" and NAMES[A_SLOT] == "place on card slot 1"
assert NAMES[A_STACK] == "place on building stack 1"
assert NAMES[A_RESOLVE] == "resolve the hunting grounds"
assert NAMES[A_TILE] == "add tool tile 4" and NAMES[A_ONE_USE] == "add one-use tool 4"
assert NAMES[A_YIELD] == "take the yield" and NAMES[A_PAY] == "pay 1 wood"
assert (NAMES[A_TAKE], NAMES[A_DECLINE], NAMES[A_PENALTY]) == (
    "take it", "decline", "take the -10 penalty")
assert NAMES[A_MOVE] == "move a figure paying 1 food" and NAMES[A_STOP].startswith("move no")
assert NAMES[A_PICK] == "pick the die showing 1" and NAMES[A_GAIN] == "take 1 wood"
assert NAMES[A_KEEP].startswith("keep") and NAMES[A_ONE] == "take the '1' bonus"
assert NAMES[C_DIE] == "die shows 1" and NAMES[C_CARD] == "card G1 drawn"
assert NAMES[C_BUILDING] == "building B01 turned" and NAMES[C_TILE] == "Mammoth tile 1 turned"
assert NAMES[C_BACK] == "Mammoth back: wood"
_IDS = {name: i for i, name in enumerate(NAMES)}


def action_to_string(action: int) -> str:
    """The id's name (``"action 999"`` style for an id outside the table)."""
    return NAMES[action] if 0 <= action < NUM_IDS else f"action {action}"


def string_to_action(text: str) -> int:
    """The id of a name (exactly as :func:`action_to_string` writes it, case and spaces
    aside) or of a decimal id; :class:`IllegalActionError` (one line) for anything else."""
    if not isinstance(text, str):
        raise IllegalActionError(f"an action name is text, got {type(text).__name__}")
    key = " ".join(text.split()).lower()
    if key.isdigit() and len(key) < 6 and int(key) < NUM_IDS:
        return int(key)
    for name, i in _IDS.items():
        if name.lower() == key:
            return i
    shown = key[:60] + ("..." if len(key) > 60 else "")
    raise IllegalActionError(f"no Stone Age action is called {shown!r} (e.g. 'place 2 on the "
                             "forest', 'resolve the quarry', 'pay 1 wood', 'decline')")
