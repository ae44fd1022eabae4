"""Action ids <-> readable strings (the table is in constants.py and the README).

Every id (player action or chance outcome) has exactly one canonical string, and
:func:`string_to_action` parses it back (case and spacing do not matter).
"""

from __future__ import annotations

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
    CHIP_KEYS,
    EXCHANGE_GIVES,
    FACE_NAMES,
    MATERIALS,
    MAX_FIELDS,
    NUM_IDS,
    OFFER_NAMES,
)


def _name(a: int) -> str:
    if A_PLACE <= a < A_TAKE:
        return f"place worker on {MATERIALS[a - A_PLACE]}"
    if A_TAKE <= a < A_RETURN:
        return f"take {MATERIALS[a - A_TAKE]}"
    if A_RETURN <= a < A_YIELD:
        return f"return {MATERIALS[a - A_RETURN]}"
    if A_YIELD <= a < A_HUT:
        src, lvl, dst = yield_parts(a)
        return f"move worker from {MATERIALS[src]} level {lvl} to {MATERIALS[dst]}"
    if A_HUT <= a < A_TEMPLE:
        return f"build hut on field {a - A_HUT}"
    if A_TEMPLE <= a < A_OFFER:
        return f"build temple on field {a - A_TEMPLE}"
    if A_OFFER <= a < A_EXCHANGE:
        return f"offer {OFFER_NAMES[a - A_OFFER]}"
    if A_EXCHANGE <= a < C_DIE:
        k, take = divmod(a - A_EXCHANGE, 4)
        give = "+".join(MATERIALS[m] for m in EXCHANGE_GIVES[k])
        return f"exchange {give} for {MATERIALS[take]}"
    if C_DIE <= a < C_CHIP:
        return f"roll {FACE_NAMES[a - C_DIE]}"
    if C_CHIP <= a < C_START:
        f, kind = divmod(a - C_CHIP, 3)
        return f"bonus chip {CHIP_KEYS[kind + 1]} on field {f}"
    if C_START <= a < NUM_IDS:
        return f"start player {a - C_START}"
    raise ValueError(f"action id {a} is outside 0..{NUM_IDS - 1}")


def yield_parts(a: int) -> tuple[int, int, int]:
    """(source plain, source level, destination plain) of a big-yield action (R11)."""
    r = a - A_YIELD
    return (r // 4) // 3, (r // 4) % 3, r % 4


def big_yield_action(source: int, level: int, dest: int) -> int:
    return A_YIELD + (source * 3 + level) * 4 + dest


def exchange_action(give: tuple[int, int, int], take: int) -> int:
    return A_EXCHANGE + EXCHANGE_GIVES.index(tuple(sorted(give))) * 4 + take


def chip_outcome(field: int, kind: int) -> int:
    """Chance id placing a bonus chip of ``kind`` (1 +2 VP, 2 free hut, 3 druid) on ``field``."""
    if not 0 <= field < MAX_FIELDS or kind not in (1, 2, 3):
        raise ValueError(f"no bonus chip outcome for field {field}, kind {kind}")
    return C_CHIP + field * 3 + kind - 1


ACTION_STRINGS: tuple[str, ...] = tuple(_name(a) for a in range(NUM_IDS))
_BY_STRING = {s: a for a, s in enumerate(ACTION_STRINGS)}


def action_to_string(a: int) -> str:
    if not isinstance(a, int) or isinstance(a, bool):
        try:
            a = int(a)  # numpy integers
        except (TypeError, ValueError):
            raise TypeError(f"an action id is an int, got {a!r}") from None
    if not 0 <= a < NUM_IDS:
        raise ValueError(f"action id {a} is outside 0..{NUM_IDS - 1}")
    return ACTION_STRINGS[a]


def string_to_action(text: str) -> int:
    key = " ".join(str(text).lower().split())
    if key in _BY_STRING:
        return _BY_STRING[key]
    raise ValueError(f"{text!r} is not an action; examples: {ACTION_STRINGS[A_HUT + 3]!r}, "
                     f"{ACTION_STRINGS[big_yield_action(0, 0, 2)]!r}, "
                     f"{ACTION_STRINGS[A_OFFER + 3]!r}")
