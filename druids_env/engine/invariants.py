"""The one position checker of Druids: :func:`check` lists what is wrong with a state (empty:
nothing). The random-simulation tests and ``benchmarks/druids_soak.py`` run it after every step.
"""

from __future__ import annotations

from collections import Counter

from .cards import (
    NUM_CARDS,
    NUM_GEMS,
    NUM_PLACES,
    ROW_SIZE,
    SCORING_CARDS,
    SERVANT_VALUES,
    gem_colour,
    gem_value,
    is_gem,
    place_colour,
    servant_owner,
)
from .rules import END_COLUMN, END_NAMES, P_END


def check(state) -> list[str]:
    """Every invariant of a position: card counts conserved (54 gems, 6 servants per colour,
    12 places), each card in one place only, servants only with or under their owner, each
    score equal to the amulets shared out to that seat, each collection's amulets shared out
    in full (D5, D6), the column (D12 ruling: no marker below it nor past its top, but the one
    that ended the game), and the hand limit (D10)."""
    return _cards(state) + _scores(state) + _sharing(state) + _shape(state)


def _cards(st) -> list[str]:
    out = []
    where = Counter()
    for hand in st.hands:
        where.update(hand)
    for s in range(ROW_SIZE):
        where.update(c for c, _ in st.above[s])
        where.update(st.under[s])
    where.update(c for c, _ in st.discards)
    where.update(st.removed)
    where.update(st.gem_deck)
    for own in st.servant_sets:
        where.update(own)
    n = st.game.num_players
    dup = sorted(c for c, k in where.items() if k > 1)
    if dup:
        out.append(f"cards in two places at once: {dup}")
    gems = sum(1 for c in where if is_gem(c))
    if gems != NUM_GEMS:
        out.append(f"{gems} gems, not {NUM_GEMS}")
    per = Counter(servant_owner(c) for c in where if not is_gem(c) and c < NUM_CARDS)
    if any(per[s] != SERVANT_VALUES for s in range(n)) or any(per[s] for s in range(n, 4)):
        out.append(f"servants per colour {dict(per)}, not {SERVANT_VALUES} for each seat")
    places = [p for p in st.row if p >= 0] + st.place_deck + st.collected
    if sorted(places) != list(range(NUM_PLACES)):
        out.append(f"places {sorted(places)}, not the {NUM_PLACES}")
    for seat, hand in enumerate(st.hands):
        if any(not is_gem(c) and servant_owner(c) != seat for c in hand):
            out.append(f"seat {seat} holds another colour's servant")
    for seat, own in enumerate(st.servant_sets):
        if any(servant_owner(c) != seat for c in own):
            out.append(f"seat {seat}'s set holds another colour's servant")
    if any(not is_gem(c) for s in range(ROW_SIZE) for c, _ in st.above[s]) or any(
            is_gem(c) for s in range(ROW_SIZE) for c in st.under[s]):
        out.append("a servant above a place or a gem under one")
    return out


def _scores(st) -> list[str]:
    shared = [0] * st.game.num_players
    for ev in st.log_events:
        if ev.kind == "share":
            shared[ev.data["seat"]] += ev.data["amulets"]
    out = []
    if shared != list(st.score):
        out.append(f"scores {st.score} are not the amulets shared out {shared}")
    return out + _column(st)


def _column(st) -> list[str]:
    """D12 ruling: the column's bottom on a card's edge; no marker below the column (once the
    column has moved, every score is above ``base``: a marker on or beside the bottom card
    blocks it); no marker past the top, except at the end by the moving column: then the one
    marker that passed the top is one circle past it (amulet by amulet) and a marker stands on
    or beside the bottom card."""
    out = []
    c = st.game.circles
    if st.base % c or st.base < 0:
        out.append(f"column bottom {st.base} is not on a card's edge")
    if not st.score:
        return out
    top = st.base + SCORING_CARDS * c
    if st.base and min(st.score) <= st.base:
        out.append(f"a marker below the column ({min(st.score)} <= {st.base}, its bottom card "
                   f"runs from {st.base + 1})")
    past = [s for s in st.score if s > top]
    if st.end_reason != END_COLUMN:
        if past:
            out.append(f"a marker past the column's top ({max(past)} > {top})")
    elif past != [top + 1] or min(st.score) > st.base + c:
        out.append(f"the moving column ended the game with scores {st.score}, the column "
                   f"from {st.base + 1} to {top}: not one marker one circle past the top with "
                   f"the bottom card occupied")
    return out


def _sharing(st) -> list[str]:
    """Each collection, read from the event log alone (not from ``score``, which
    :func:`_scores` compares with the shares, so a wrong share amount logged and scored alike
    is caught here): its amulets are the values of the revealed gems of the place's colour
    (D5), every servant revealed takes one share and the shares add up to the amulets (D6: the
    last takes all that remain), unless the moving column ended the game during the sharing
    out (D12: the servants after it take nothing), when they add up to no more."""
    out = []
    colour = expected = told = None  # of the collection being read
    shares = revealed = taken = 0
    ended = False
    for ev in st.log_events:
        kind, d = ev.kind, ev.data
        if kind == "collect":
            colour, expected, told = place_colour(d["place"]), 0, None
            shares = revealed = taken = 0
            ended = False
        elif colour is None:
            continue  # (a position built by hand may log shares with no collection)
        elif kind == "gem_revealed":
            expected += gem_value(d["card"]) if gem_colour(d["card"]) == colour else 0
        elif kind == "amulets":
            told = d["amulets"]
        elif kind == "servant_revealed":
            revealed += 1
        elif kind == "share":
            shares += 1
            taken += d["amulets"]
        elif kind == "game_end":
            ended = d["reason"] == END_NAMES[END_COLUMN]
        elif kind == "place_removed":
            full = taken == expected and shares == revealed
            if told != expected or not (full or ended and taken <= expected):
                out.append(f"collection of place {d['place']}: {expected} amulets by the gems "
                           f"(logged {told}), {taken} shared out to {shares} of {revealed} "
                           f"servants")
            colour = None
    return out


def _shape(st) -> list[str]:
    out = []
    if any(len(h) > 7 for h in st.hands):
        out.append(f"a hand over 7 cards: {[len(h) for h in st.hands]}")
    if st.collections != len(st.collected) or st.collections > NUM_PLACES - 1:
        out.append(f"{st.collections} collections, {len(st.collected)} places collected")
    if st.phase != P_END and st.setup_i >= len(st.schedule) and not any(
            p >= 0 for p in st.row):
        out.append("no place left in the row before the end")
    if st.phase == P_END and st.end_reason == 0:
        out.append("the game is over without an end reason")
    return out
