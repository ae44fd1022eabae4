"""Where each seat's victory points came from: the score broken down by source.

:func:`score_breakdown` reads the state's event log (every event that changes VP says so, see
:mod:`meduris_env.engine.events`) and adds each seat's VP up by the rule that gave them:

=============  ===========================================================================
``start``      the VP every player opens the game with: 5 (R1)
``bonus``      "+2 VP" bonus chips taken with a hut (R13)
``offerings``  the druid's offerings, the druid chip's included (R19, R20); may be negative
``runes``      rune stones: interim scorings (R21) and the final scoring (R25)
``temples``    the final scoring of temples (R24)
``total``      the sum of the above: the seat's score, ``state.scores()[seat]``
=============  ===========================================================================

Building a hut or a temple gives no VP by itself (R12, R14): a hut scores through offerings
and "+2 VP" chips, a temple at the end, so there is no separate "buildings" source. The
function is pure (the state is not changed) and works for finished and unfinished games: an
unfinished game simply has no final scoring yet. The state keeps the events of every action
since the initial state, so nothing needs replaying; only VP written into the array by hand
(not by an action) is not seen, and then ``total`` differs from the score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constants import START_VP

if TYPE_CHECKING:
    from .state import State

SOURCES = ("start", "bonus", "offerings", "runes", "temples")

# event kind -> the source its "vp" goes to
SOURCE_OF_EVENT = {
    "bonus_chip": "bonus",
    "offering": "offerings",
    "interim_scoring": "runes",
    "rune_scoring": "runes",
    "temple_scoring": "temples",
}


def score_breakdown(state: State) -> list[dict[str, int]]:
    """Per seat, in seat order, ``{"start", "bonus", "offerings", "runes", "temples",
    "total"}`` (VP); ``total`` equals the seat's score."""
    rows = [dict.fromkeys(SOURCES, 0) for _ in range(state.game.num_players)]
    for event in state.events():
        source = SOURCE_OF_EVENT.get(event.kind)
        if source is not None:
            rows[event.data["seat"]][source] += event.data["vp"]
    for row in rows:
        row["start"] = START_VP
        row["total"] = sum(row[s] for s in SOURCES)
    return rows
