"""The event log: what happened, in order, as named records (for replays, tests and analysis).

The kernels write raw rows ``(kind, a, b, c, d)``; :func:`decode` names them. Every event that
changes victory points says so (``vp``), so summing the ``vp`` of a seat's events from the start
VP (5, R1) gives its score.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import kernel as K
from .constants import (
    CHIP_KEYS,
    END_NAMES,
    EXCHANGE_GIVES,
    FACE_NAMES,
    MATERIALS,
    OFFER_NAMES,
)

# kind code -> (name, column names for a, b, c, d); None columns are unused
EVENT_KINDS: dict[int, tuple[str, tuple[str | None, ...]]] = {
    K.EV_CHIP_PLACED: ("chip_placed", ("field", "chip", None, None)),
    K.EV_START_PLAYER: ("start_player", ("seat", None, None, None)),
    K.EV_WORKER_PLACED: ("worker_placed", ("seat", "plain", "level", None)),
    K.EV_ROLL: ("roll", ("seat", "face", None, None)),
    K.EV_YIELD: ("yield", ("seat", "material", "amount", "level")),
    K.EV_TAKE: ("take", ("seat", "material", None, None)),
    K.EV_TAKE_NOTHING: ("take_nothing", ("seat", None, None, None)),
    K.EV_RETURN: ("return", ("seat", "material", None, None)),
    K.EV_RETURN_NOTHING: ("return_nothing", ("seat", None, None, None)),
    K.EV_EXCHANGE: ("exchange", ("seat", "give", "take", "automatic")),
    K.EV_MOVE_WORKER: ("move_worker", ("seat", "from_plain", "from_level", "to_plain")),
    K.EV_PAY: ("pay", ("seat", "material", "amount", None)),
    K.EV_HUT: ("build_hut", ("seat", "field", "settlement_size", "cost")),
    K.EV_TEMPLE: ("build_temple", ("seat", "field", None, None)),
    K.EV_BONUS: ("bonus_chip", ("seat", "field", "chip", "vp")),
    K.EV_RUNE: ("rune_stone", ("seat", "area", "previous_holder", None)),
    K.EV_DRUID_STONE: ("druid_stone", ("stone", None, None, None)),
    K.EV_DRUID_WALK: ("druid_walk", ("from_field", "to_field", "crossed_river", None)),
    K.EV_DRUID_WAITS: ("druid_waits", ("field", None, None, None)),
    K.EV_INTERIM: ("interim_scoring", ("seat", "rune_stones", "vp", None)),
    K.EV_OFFERING: ("offering", ("seat", "field", "choice", "vp")),
    K.EV_FINALE: ("finale", ("seat", "extra_turns", None, None)),
    K.EV_FINAL_CIRCUIT: ("final_circuit", ("first_field", "huts", "reason", None)),
    K.EV_TEMPLE_SCORE: ("temple_scoring", ("seat", "field", "vp", None)),
    K.EV_RUNE_SCORE: ("rune_scoring", ("seat", "rune_stones", "vp", None)),
    K.EV_GAME_END: ("game_end", ("reason", None, None, None)),
    K.EV_DRUID_STEP: ("druid_step", ("from_field", "to_field", "crossed_river", None)),
}
KIND_CODES = {name: code for code, (name, _) in EVENT_KINDS.items()}


class Event(NamedTuple):
    """One thing that happened. ``step`` is the index of the action (in ``history()``) that
    caused it; ``data`` names the integers (seats, fields, material indices, VP)."""

    step: int
    kind: str
    data: dict[str, int]

    def describe(self) -> str:
        return describe(self)


def decode(step: int, row: tuple[int, ...]) -> Event:
    name, cols = EVENT_KINDS[row[0]]
    return Event(step, name, {c: int(v) for c, v in zip(cols, row[1:]) if c is not None})


def describe(e: Event) -> str:
    """A one-line English description of an event (for terminals and replays)."""
    d: dict[str, Any] = dict(e.data)
    for key in ("material", "plain", "from_plain", "to_plain", "take"):
        if key in d:
            d[key] = MATERIALS[d[key]]
    if "chip" in d:
        d["chip"] = CHIP_KEYS[d["chip"]]
    if e.kind == "roll":
        d["face"] = FACE_NAMES[d["face"]]
    if e.kind == "offering":
        d["choice"] = OFFER_NAMES[d["choice"]]
    if e.kind == "exchange":
        d["give"] = "+".join(MATERIALS[m] for m in EXCHANGE_GIVES[d["give"]])
    if "reason" in d:
        d["reason"] = END_NAMES[d["reason"]]
    return e.kind.replace("_", " ") + ": " + ", ".join(f"{k}={v}" for k, v in d.items())
