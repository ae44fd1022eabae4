"""The event log of a Stone Age game: what happened, in order, as named records in the game's
words (for replays, records, tests and analysis).

The kernels write raw rows ``(kind, seat, a, b, c)``; :func:`decode` names them. Every change
of a seat's score is an event with its points (``vp``, ``points``), so the events of a seat add
up to its score (a test checks it). One event is private: ``card_drawn`` (a card drawn face
down, S24, M10) is its seat's secret (:data:`PRIVATE`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import kernel as K
from .components import bonus_text, building_name, card_name
from .constants import END_NAMES, GOODS, LOCATION_NAMES, SOURCE_NAMES

# kind code -> (name, column names for seat, a, b, c); None columns are unused
EVENT_KINDS: dict[int, tuple[str, tuple[str | None, ...]]] = {
    K.EV_DEAL: ("card_dealt", (None, "slot", "card", None)),
    K.EV_REVEAL: ("building_turned", (None, "stack", "building", None)),
    K.EV_BACK: ("mammoth_back", (None, "resource", None, None)),
    K.EV_FLIP: ("mammoth_tile", (None, "tile", "site", None)),
    K.EV_ROUND: ("round", ("seat", "round", None, None)),
    K.EV_PLACE: ("place", ("seat", "location", "figures", None)),
    K.EV_RESOLVE: ("resolve", ("seat", "location", None, None)),
    K.EV_DIE: ("die", ("seat", "face", "roll", None)),
    K.EV_TOOL: ("tool", ("seat", "value", "one_use", None)),
    K.EV_YIELD: ("yield", ("seat", "goods", "amount", "pips")),
    K.EV_TOOL_STEP: ("tool_step", ("seat", "tools", "changed", None)),
    K.EV_FIGURE: ("figure", ("seat", "figures", "changed", None)),
    K.EV_AGRI: ("agriculture", ("seat", "level", "changed", None)),
    K.EV_PAY: ("pay", ("seat", "goods", "amount", None)),
    K.EV_CARD: ("card_taken", ("seat", "card", "slot", None)),
    K.EV_DECLINE: ("decline", ("seat", "location", None, None)),
    K.EV_BUILD: ("build", ("seat", "building", "vp", None)),
    K.EV_GAIN: ("gain", ("seat", "goods", "amount", None)),
    K.EV_VP: ("vp", ("seat", "vp", "source", None)),
    K.EV_PICK: ("pick", ("seat", "face", None, None)),
    K.EV_SECRET: ("card_drawn", ("seat", "card", None, None)),
    K.EV_NO_CARD: ("no_card", ("seat", None, None, None)),
    K.EV_MOVE: ("move", ("seat", "goods", None, None)),
    K.EV_TAME: ("taming", ("seat", "tile", "participants", None)),
    K.EV_REWARD: ("reward", ("seat", "tile", "which", None)),
    K.EV_FEED: ("feed", ("seat", "food", "agriculture", None)),
    K.EV_SHORT: ("shortfall", ("seat", "missing", "penalty", None)),
    K.EV_END: ("game_end", (None, "reason", None, None)),
    K.EV_SCORE: ("final_score", ("seat", "source", "points", None)),
    K.EV_CLAIM: ("claim", ("seat", "resource", None, None)),
    K.EV_KEEP: ("keep", ("seat", None, None, None)),
    K.EV_HERD_GONE: ("herd_gone", (None, None, None, None)),
    K.EV_STOP: ("stop", ("seat", "moved", None, None)),
    K.EV_ONE_USE: ("one_use_tool", ("seat", "value", None, None)),
}
KIND_CODES = {name: code for code, (name, _) in EVENT_KINDS.items()}
PRIVATE = frozenset({"card_drawn"})  # an event only its seat may see (S24, M10)


class Event(NamedTuple):
    """One thing that happened. ``step`` is the index in ``history()`` of the action that
    caused it (-1: the start); ``data`` names the integers (seats, locations, goods, VP)."""

    step: int
    kind: str
    data: dict[str, int]

    def describe(self, tiles=None) -> str:
        return describe(self, tiles)


def decode(step: int, row: tuple[int, ...]) -> Event:
    name, cols = EVENT_KINDS[row[0]]
    values = zip(cols, row[1:], strict=True)
    return Event(step, name, {c: int(v) for c, v in values if c is not None})


SENTENCES: dict[str, str] = {
    "card_dealt": "{card} is dealt to card slot {slot} (S5, S29)",
    "building_turned": "{building} turns face up on building stack {stack} (S6, S25)",
    "mammoth_back": "the Mammoth pile's top tile shows {resource} on its back (M3)",
    "mammoth_tile": "the herd goes to the {site}; Mammoth tile {tile} turns face up (M3)",
    "round": "round {round}: seat {seat} is the start player (S8)",
    "place": "seat {seat} places {figures} on the {location} (S11)",
    "resolve": "seat {seat} resolves the {location} (S13)",
    "die": "seat {seat} rolls {face}{roll}",
    "tool": "seat {seat} adds a {one_use}tool of {value} (S15)",
    "yield": "seat {seat} takes {amount} {goods} for {pips} pips (S14)",
    "tool_step": "seat {seat} gains a tool step: {tools}{changed} (S16)",
    "figure": "seat {seat} gains a figure: {figures}{changed} (S17)",
    "agriculture": "seat {seat} gains agriculture: {level}{changed} (S18)",
    "pay": "seat {seat} pays {amount} {goods}",
    "card_taken": "seat {seat} takes {card} from slot {slot} (S19)",
    "decline": "seat {seat} declines at the {location} (S19, S25)",
    "build": "seat {seat} builds {building}: {vp:+d} VP (S25)",
    "gain": "seat {seat} takes {amount} {goods}",
    "vp": "seat {seat} scores {vp:+d} VP ({source})",
    "pick": "seat {seat} picks the die showing {face} (S21)",
    "card_drawn": "seat {seat} draws {card} face down (S24)",
    "no_card": "seat {seat} draws nothing: the deck is empty (X11)",
    "move": "seat {seat} moves a figure onto the Mammoth tile, paying 1 {goods} (M5)",
    "taming": "Mammoth taming of tile {tile} ({participants} taking part): {seat} (M7)",
    "reward": "seat {seat} takes the {which} bonus of Mammoth tile {tile}: {bonus} (M8)",
    "feed": "seat {seat} feeds: {agriculture} food from agriculture, {food} eaten (S27)",
    "shortfall": "seat {seat} is {missing} food short and {penalty} (S28)",
    "game_end": "game over: {reason}",
    "final_score": "seat {seat} scores {points:+d} VP for {source} (S31)",
    "claim": "seat {seat} takes 1 {resource} of choice (S23, M10)",
    "keep": "seat {seat} keeps the ANY2 card for later (X13)",
    "herd_gone": "the Mammoth pile is empty: no more herd (M3)",
    "stop": "seat {seat} moved {moved} figure(s) onto the Mammoth tile (M5)",
    "one_use_tool": "seat {seat} lays a one-use tool of {value} beside the board (S22)",
}


def _words(e: Event, tiles) -> dict[str, Any]:
    d: dict[str, Any] = dict(e.data)
    for key in ("goods", "resource", "site"):
        if key in d:
            d[key] = LOCATION_NAMES[d[key]] if key == "site" else GOODS[d[key]]
    if "location" in d:
        d["location"] = LOCATION_NAMES[d["location"]]
    if "card" in d:
        d["card"] = card_name(d["card"])
    if "building" in d:
        d["building"] = building_name(d["building"])
    for key in ("slot", "stack"):
        if key in d:
            d[key] += 1
    if "source" in d:
        d["source"] = SOURCE_NAMES[d["source"]]
    if "reason" in d:
        d["reason"] = END_NAMES[d["reason"]]
    if "changed" in d:
        d["changed"] = "" if d["changed"] else " (at the cap: nothing changes, X9)"
    if e.kind == "die":
        d["roll"] = ("", " (dice for all)", " (taming)")[d["roll"]]
    if e.kind == "tool":
        d["one_use"] = "one-use " if d["one_use"] else ""
    if e.kind == "taming":
        d["seat"] = f"seat {d['seat']} wins" if d["seat"] >= 0 else "no winner"
    if e.kind == "shortfall":
        d["penalty"] = "takes -10 VP" if d["penalty"] else "pays it in resources"
    if e.kind == "reward":
        which = d["which"]
        d["which"] = "'1'" if which == 1 else "'all'"
        d["bonus"] = "?"
        if tiles is not None:
            row = tiles[d["tile"]]
            base = 1 if which == 1 else 4
            d["bonus"] = bonus_text(*(int(x) for x in row[base:base + 3]))
    if "tile" in d:
        d["tile"] += 1
    return d


def describe(e: Event, tiles=None) -> str:
    """A one-line sentence for an event, in the game's words (``tiles``: the game's tile
    table, to name a Mammoth bonus)."""
    try:
        return SENTENCES[e.kind].format(**_words(e, tiles))
    except (KeyError, IndexError, ValueError, TypeError, OverflowError):  # odd hand-made data
        return e.kind.replace("_", " ") + ": " + ", ".join(f"{k}={v}" for k, v in e.data.items())
