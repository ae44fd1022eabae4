"""The event log of a Druids game: what happened, in order, in words, with who may know it.

Each :class:`Event` names its ``kind`` and its ``data`` (ints: seats, slots, card ids, values,
amulets). Some facts are private (D14): ``owner`` is the seat that knows the fields listed in
``hidden`` (the card dealt, drawn, played face down or discarded); every other seat sees them as
``None`` (:meth:`Event.seen_by`). ``step`` is the index in ``history()`` of the action or outcome
that caused the event (-1: none yet).
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import PLAYER_COLOURS, card_name, gem_name, place_name

PUBLIC = -1  # owner of an event with no private field

KINDS = (
    "place_revealed",  # slot, place (D3, D7)
    "gem_dealt",  # seat, card (private: card) (D3)
    "servant_dealt",  # seat, card (private: card) (D3)
    "turn",  # seat, turn
    "collect_nothing",  # seat (D4)
    "collect",  # seat, slot, place (D4)
    "gem_revealed",  # slot, card, amulet (0/1) (D5)
    "amulets",  # slot, amulets (D5)
    "servant_revealed",  # slot, card (D6)
    "share",  # seat, card, amulets scored, score (D6; fewer when D12 ends the game mid-share)
    "column_moved",  # bottom (the new bottom circle) (D12)
    "place_removed",  # slot, place (D7)
    "play_gem",  # seat, slot, card (private: card) (D8)
    "play_servant",  # seat, slot, card (private: card) (D8)
    "discard_nothing",  # seat (D9)
    "discard",  # seat, card (private: card) (D9)
    "draw_gem",  # seat, card (private: card) (D10)
    "draw_servant",  # seat, card (private: card) (D10)
    "game_end",  # reason
)


class Event(NamedTuple):
    """One thing that happened (see the module docstring)."""

    step: int
    kind: str
    data: dict
    owner: int = PUBLIC
    hidden: tuple = ()

    def seen_by(self, seat: int) -> dict:
        """``data`` as ``seat`` knows it: the hidden fields are ``None`` unless ``seat`` owns
        them (D14)."""
        if not self.hidden or seat == self.owner:
            return self.data
        return {k: (None if k in self.hidden else v) for k, v in self.data.items()}

    def describe(self, seat: int | None = None) -> str:
        """The event in words; with ``seat``, as that seat knows it (D14)."""
        d = self.data if seat is None else self.seen_by(seat)
        return describe(self.kind, d)


def _who(d: dict) -> str:
    return PLAYER_COLOURS[d["seat"]]


def _card(d: dict, what: str) -> str:
    return what if d.get("card") is None else card_name(d["card"])


def describe(kind: str, d: dict) -> str:
    """The words for an event of ``kind`` with data ``d`` (a hidden card reads 'a gem')."""
    slot = f"place {d['slot'] + 1}" if "slot" in d else ""
    texts = {
        "place_revealed": lambda: f"{place_name(d.get('place', 0))} is laid at {slot}",
        "gem_dealt": lambda: f"{_who(d)} is dealt {_card(d, 'a gem')}",
        "servant_dealt": lambda: f"{_who(d)} draws {_card(d, 'a servant')} from their set",
        "turn": lambda: f"turn {d['turn']}: {_who(d)} to play",
        "collect_nothing": lambda: f"{_who(d)} collects nothing",
        "collect": lambda: f"{_who(d)} collects {place_name(d['place'])} at {slot}",
        "gem_revealed": lambda: f"{gem_name(d['card'])} revealed"
                                + (" (an amulet)" if d["amulet"] else " (discarded)"),
        "amulets": lambda: f"{d['amulets']} amulets at {slot}",
        "servant_revealed": lambda: f"{card_name(d['card'])} revealed",
        "share": lambda: f"{_who(d)} takes {d['amulets']} amulets with "
                         f"{card_name(d['card'])} (score {d['score']})",
        "column_moved": lambda: f"the bottom scoring card moves to the top (the track now runs "
                                f"from {d['bottom']} to {d['top']})",
        "place_removed": lambda: f"{place_name(d['place'])} leaves {slot}",
        "play_gem": lambda: f"{_who(d)} plays {_card(d, 'a gem')} above {slot}",
        "play_servant": lambda: f"{_who(d)} plays {_card(d, 'a servant')} under {slot}",
        "discard_nothing": lambda: f"{_who(d)} discards nothing",
        "discard": lambda: f"{_who(d)} discards {_card(d, 'a gem')}",
        "draw_gem": lambda: f"{_who(d)} draws {_card(d, 'a gem')}",
        "draw_servant": lambda: f"{_who(d)} draws {_card(d, 'a servant')}",
        "game_end": lambda: f"the game ends: {d['reason']}",
    }
    return texts[kind]()
