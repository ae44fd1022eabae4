"""A person playing Stone Age at the terminal (``meduris play --game stone_age``): every game's
:class:`~meduris_rl.agents.human.TerminalHuman` (its prompt, numbers, commands and end of input)
with Stone Age's views, each what the person's seat knows (rules section 3): another seat's
card drawn face down reads "draws a card face down", never its name; the person's own does.

Before each decision the person has read the events since their last one, in the game's words
(:meth:`StoneAgeHumanAgent.observe`, the play loop's observer); then the position as their seat
knows it (:func:`stoneage_env.observation_string`), the decision due and the numbered legal
actions. Input: a number, or an action's words (``place 3 on the forest``, ``pay 1 wood``,
``decline``); ``board``, ``help``, ``quit`` as in the other games.
"""

from __future__ import annotations

from typing import TextIO

from meduris_rl.agents.human import HumanSeat, SeatHuman
from stoneage_env.engine import action_to_string, observation_string, string_to_action
from stoneage_env.engine.constants import LOCATION_NAMES
from stoneage_env.engine.errors import IllegalActionError
from stoneage_env.engine.information import seen_event

HELP = ("type the number of an action, or its words as listed (e.g. 'place 3 on the forest', "
        "'pay 1 wood', 'decline'); 'board' shows the position again, 'help' this text, 'quit' "
        "ends the game and saves its record.\nPayments go one resource at a time, wood before "
        "clay, stone and gold; tools one at a time, largest first, then 'take the yield'. You "
        "see your own face-down cards; another player's only as a count (S24).")


def decision_text(state) -> str:
    """The decision due, in words, with its context (the location, what a payment needs)."""
    d = state.pending_decision()
    text = d["kind"]
    if d["location"] >= 0:
        text += f" at the {LOCATION_NAMES[d['location']]}"
    if d["kind"] in ("card payment", "feeding shortfall"):
        text += f" ({d['pay_need']} to pay, {sum(d['paid'])} paid)"
    return text


def event_lines(state, events, seat: int) -> list[str]:
    """The events' lines as ``seat`` knows them: another seat's card drawn face down is a
    count, never its name (S24)."""
    tiles = state.game.tile_table
    return [f"seat {ev.data['seat']} draws a card face down (S24)"
            if seen_event(ev, seat) is not ev else ev.describe(tiles) for ev in events]


class StoneAgeHumanAgent(SeatHuman):
    """Reads each decision of ``seat`` from ``inp``; writes to ``out`` only what ``seat``
    knows."""

    turn_kind = "round"
    event_lines = staticmethod(event_lines)
    events = staticmethod(lambda state: state.events())
    view = staticmethod(observation_string)
    decision_text = staticmethod(decision_text)
    to_string = staticmethod(action_to_string)
    to_action = staticmethod(string_to_action)
    errors = (IllegalActionError,)
    help = HELP


def stone_age_human(inp: TextIO, out: TextIO, seat: int, labels: list[str],
                    settings: dict) -> HumanSeat:
    """The person's seat at a Stone Age game (its row's ``human`` part): nothing shown but
    what ``seat`` knows, the end as that seat knows it."""
    return StoneAgeHumanAgent(inp, out, seat).seat_of_game(f"you are seat {seat}")
