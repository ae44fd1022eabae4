"""What a person playing Druids in a terminal reads (``meduris play --game druids``): the
position as one seat knows it (D14), the events in words as that seat knows them, and the
decision due.

:func:`seat_view` shows ``seat``'s own hand (gems by colour and value, servants by value), its
own servant set and discards, the row of places with the cards on them (``seat``'s own
face-down gems and servants by name, everyone else's as "a blue gem" / "a blue servant": their
owners are public, D14), the scores, the column, the decks' sizes and how many gems and
servants each other hand holds (public: the card backs, D14 ruling). It never reads a card
hidden from ``seat``: another hand's cards, a face-down gem another seat played or discarded,
the value of another seat's servant, the decks. :func:`event_lines` words events through
:meth:`~druids_env.engine.events.Event.describe` with ``seat``, so a card drawn, played or
discarded by another seat reads "a gem" / "a servant". The engine's
:func:`~druids_env.engine.information.observation_string` is the compact form of the same view
(for agents and environments); this one is laid out for a person.

No text here writes a score as a colour followed by a number ("red 12"), so that a card's
name ("red 1" is a gem) appears only where that card is shown.
"""

from __future__ import annotations

from collections.abc import Iterable

from .engine.cards import (
    PLAYER_COLOURS,
    ROW_SIZE,
    gem_name,
    is_gem,
    place_name,
    servant_owner,
    servant_value,
)
from .engine.events import Event
from .engine.rules import PHASE_NAMES, collectable


def player(seat: int, me: int | None = None) -> str:
    """``"blue (seat 1)"``, or ``"you (red)"`` for ``me``."""
    if seat == me:
        return f"you ({PLAYER_COLOURS[seat]})"
    return f"{PLAYER_COLOURS[seat]} (seat {seat})"


def hand_text(cards: Iterable[int]) -> str:
    """``"gems red 7, white 2; servants 1, 4"`` (sorted), ``"nothing"`` for no card."""
    cards = sorted(cards)
    gems = [gem_name(c) for c in cards if is_gem(c)]
    servants = [str(servant_value(c)) for c in cards if not is_gem(c)]
    parts = ([f"gems {', '.join(gems)}"] if gems else []) + \
        ([f"servants {', '.join(servants)}"] if servants else [])
    return "; ".join(parts) or "nothing"


def slot_line(st, slot: int, seat: int) -> str:
    """One place of the row as ``seat`` sees it: its own cards by name, the others' as backs."""
    if st.row[slot] < 0:
        return f"place {slot + 1}: empty"
    gems = [f"your {gem_name(c)}" if who == seat else f"a {PLAYER_COLOURS[who]} gem"
            for c, who in st.above[slot]]
    servants = [f"your servant {servant_value(c)}" if servant_owner(c) == seat
                else f"a {PLAYER_COLOURS[servant_owner(c)]} servant" for c in st.under[slot]]
    cards = len(gems) + len(servants)
    if not cards:
        return f"place {slot + 1}: {place_name(st.row[slot])}, no cards"
    ready = ", collectable (D4)" if collectable(st, slot) else ""
    return (f"place {slot + 1}: {place_name(st.row[slot])}, {cards} card"
            f"{'' if cards == 1 else 's'}{ready}\n"
            f"    above: {', '.join(gems) or '-'}\n    under: {', '.join(servants) or '-'}")


def seat_view(st, seat: int) -> str:
    """The position in words as ``seat`` knows it (D14; see the module docstring)."""
    n = st.game.num_players
    top = st.base + 6 * st.game.circles
    lines = [f"turn {st.turn}, {PHASE_NAMES[st.phase]}; you are {player(seat)}",
             "scores (amulets): " + ", ".join(f"{player(q, seat)}: {st.score[q]}"
                                              for q in range(n))
             + f"; the column runs from {st.base + 1} to {top} (D12)",
             f"gem deck: {len(st.gem_deck)} cards; place deck: {len(st.place_deck)}; "
             f"collections: {st.collections} of 11 (D11)"]
    lines += [slot_line(st, s, seat) for s in range(ROW_SIZE)]
    for q in range(n):
        if q == seat:
            continue
        g = sum(1 for c in st.hands[q] if is_gem(c))
        lines.append(f"{player(q)}: {g} gem{'' if g == 1 else 's'} and "
                     f"{len(st.hands[q]) - g} servant{'' if len(st.hands[q]) - g == 1 else 's'}"
                     f" in hand, {len(st.servant_sets[q])} in their servant set")
    own_set = ", ".join(str(servant_value(c)) for c in st.servant_sets[seat]) or "none"
    mine = ", ".join(gem_name(c) for c, who in st.discards if who == seat) or "none"
    lines += [f"your hand: {hand_text(st.hands[seat])}",
              f"your servant set: {own_set}; your discards: {mine}"]
    return "\n".join(lines)


def event_lines(events: Iterable[Event], seat: int) -> list[str]:
    """The events in words as ``seat`` knows them (D14: another seat's hidden card reads
    "a gem" / "a servant")."""
    return [ev.describe(seat) for ev in events]


DECISIONS = {  # what the phase asks of the player, with its rule
    "collect (D4)": "collect the amulets of a place, or nothing (D4-D7)",
    "play (D8)": "play a card face down: a gem above a place, a servant under one (D8)",
    "discard (D9)": "discard a gem face down, or nothing (D9)",
    "draw (D10)": "draw a card: from the gem deck or from your servant set (D10)",
}


def decision_text(st) -> str:
    """The decision due, in words with its rule (the phase name for any other)."""
    name = PHASE_NAMES[st.phase]
    return DECISIONS.get(name, name)

