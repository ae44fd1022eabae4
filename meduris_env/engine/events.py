"""The event log: what happened, in order, as named records (for replays, tests and analysis).

The kernels write raw rows ``(kind, a, b, c, d)``; :func:`decode` names them. Every event that
changes victory points says so (``vp``), so summing the ``vp`` of a seat's events from the start
VP (5, R1) gives its score.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import kernel as K
from .constants import (
    END_NAMES,
    EXCHANGE_GIVES,
    FACE_NAMES,
    MATERIALS,
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
    values = zip(cols, row[1:], strict=False)  # event rows are wider than most events' columns
    return Event(step, name, {c: int(v) for c, v in values if c is not None})


CHIP_WORDS = ("no chip", "+2 VP", "free hut", "druid offering")  # by chip kind (CHIP_KEYS)
OFFER_WORDS = ("nothing", "the first material", "the second material", "both materials",
               "the druid chip")  # by offering choice (OFFER_NAMES)

# one sentence per kind, in the game's words; {names} are the (translated) event data
SENTENCES: dict[str, str] = {
    "chip_placed": "a bonus chip ({chip}) is placed on field {field} (R4)",
    "start_player": "seat {seat} starts (R6)",
    "worker_placed": "seat {seat} places a worker on the {plain} plain, level {level} (R6)",
    "roll": "seat {seat} rolls {face} (R7)",
    "yield": "seat {seat} gets {amount} {material} for a worker at level {level}",
    "take": "seat {seat} takes 1 {material} (R9)",
    "take_nothing": "seat {seat} takes nothing (R9)",
    "return": "seat {seat} returns 1 {material} (R10)",
    "return_nothing": "seat {seat} has nothing to return (R10)",
    "exchange": "seat {seat} exchanges {give} for 1 {take}{automatic} (R15)",
    "move_worker": "seat {seat} moves a worker from the {from_plain} plain, level {from_level}, "
                   "to the {to_plain} plain (R11)",
    "pay": "seat {seat} pays {amount} {material}",
    "build_hut": "seat {seat} builds a hut on field {field}: a settlement of {settlement_size}, "
                 "costing {cost} of each material (R12)",
    "build_temple": "seat {seat} builds a temple on field {field} (R14)",
    "bonus_chip": "seat {seat} gets the bonus chip ({chip}) on field {field}, {vp:+d} VP (R13)",
    "rune_stone": "seat {seat} takes the rune stone of area {area}{previous_holder} (R12)",
    "druid_stone": "the druid moves to stone field {stone} (R5)",
    "druid_walk": "the druid walks from {from_field} to field {to_field}{crossed_river} (R17)",
    "druid_waits": "the druid stays {field}: no hut to visit (R17)",
    "interim_scoring": ("interim scoring: seat {seat} has {rune_stones} rune stones, "
                        "{vp:+d} VP (R21)"),
    "offering": "seat {seat} offers {choice} for the hut on field {field}, {vp:+d} VP (R19)",
    "finale": "seat {seat} has built everything: {extra_turns} more turn(s), one for each other "
              "player (R22)",
    "final_circuit": "final circuit of the druid from field {first_field}: {huts} huts to visit "
                     "({reason}, R23)",
    "temple_scoring": "seat {seat}'s temple on field {field} scores {vp:+d} VP (R24)",
    "rune_scoring": "seat {seat} scores {vp:+d} VP for {rune_stones} rune stones (R25)",
    "game_end": "game over: {reason}",
    "druid_step": "the druid steps from field {from_field} to field {to_field}{crossed_river} "
                  "(R18)",
}


def _words(e: Event) -> dict[str, Any]:
    """The event's numbers as the sentence's words (IndexError etc. for numbers out of range)."""
    d: dict[str, Any] = dict(e.data)
    for key in ("material", "plain", "from_plain", "to_plain", "take"):
        if key in d:
            d[key] = MATERIALS[d[key]]
    if "chip" in d:
        d["chip"] = CHIP_WORDS[d["chip"]]
    if "area" in d:
        d["area"] = chr(ord("a") + d["area"])  # the letter the board picture shows
    if e.kind == "druid_waits":
        d["field"] = f"on field {d['field']}" if d["field"] >= 0 else "on his stone fields"
    if e.kind == "roll":
        d["face"] = FACE_NAMES[d["face"]]
    if e.kind == "offering":
        d["choice"] = OFFER_WORDS[d["choice"]]
    if e.kind == "exchange":
        d["give"] = "+".join(MATERIALS[m] for m in EXCHANGE_GIVES[d["give"]])
        d["automatic"] = " (made by the engine to pay)" if d["automatic"] else ""
    if "reason" in d:
        d["reason"] = END_NAMES[d["reason"]]
    if "crossed_river" in d:
        d["crossed_river"] = ", crossing the great river" if d["crossed_river"] else ""
    if e.kind == "druid_walk":
        d["from_field"] = "his stone fields" if d["from_field"] < 0 else f"field {d['from_field']}"
    if e.kind == "rune_stone":
        prev = d["previous_holder"]
        d["previous_holder"] = f" from seat {prev}" if prev >= 0 else ""
    return d


def describe(e: Event) -> str:
    """A one-line sentence for an event, in the game's words (for terminals and replays)."""
    try:
        return SENTENCES[e.kind].format(**_words(e))
    except (KeyError, IndexError, ValueError, TypeError, OverflowError):  # odd hand-made data
        return e.kind.replace("_", " ") + ": " + ", ".join(f"{k}={v}" for k, v in e.data.items())
