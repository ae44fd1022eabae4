"""A person playing Druids at the terminal (``meduris play --game druids``): every game's
:class:`~meduris_rl.agents.human.TerminalHuman` (its prompt, numbers, commands and end of
input) with Druids' views, every one of them what the person's seat knows (D14;
:mod:`druids_env.text_view`).

Before each decision the person has read the events since their last one, as their seat knows
them (:meth:`DruidsHumanAgent.observe`, the play loop's observer: another seat's card drawn,
played or discarded reads "a gem" / "a servant"; chance outcomes are never printed as such,
since a card dealt to another seat is one); then the position as their seat knows it, the
decision due and the numbered legal actions in the engine's words. Input: a number, or an
action's words (``play red 7 above place 2``, ``draw a gem``); ``board``, ``help``, ``quit``
as in Meduris.
"""

from __future__ import annotations

from typing import TextIO

from druids_env.engine import action_to_string, string_to_action
from druids_env.engine.cards import PLAYER_COLOURS
from druids_env.engine.errors import IllegalActionError
from druids_env.text_view import decision_text, event_lines, seat_view
from meduris_rl.agents.human import HumanSeat, SeatHuman

HELP = ("type the number of an action, or its words as listed (e.g. 'collect place 2', 'draw "
        "a gem'); 'board' shows the table again, 'help' this text, 'quit' ends the game and "
        "saves its record.\nYou see your own cards; another player's cards in hand and face "
        "down on the table show only their backs (D14): 'a blue gem', 'a blue servant'.")


class DruidsHumanAgent(SeatHuman):
    """Reads each decision of ``seat`` from ``inp``; writes to ``out`` only what ``seat``
    knows (D14)."""

    events = staticmethod(lambda state: state.log_events)
    event_lines = staticmethod(lambda state, events, seat: event_lines(events, seat))
    view = staticmethod(seat_view)
    decision_text = staticmethod(decision_text)
    to_string = staticmethod(action_to_string)
    to_action = staticmethod(string_to_action)
    errors = (IllegalActionError,)
    help = HELP


def druids_human(inp: TextIO, out: TextIO, seat: int, labels: list[str],
                 settings: dict) -> HumanSeat:
    """The person's seat at a Druids game (its row's ``human`` part): nothing shown but what
    ``seat`` knows (D14), the end as that seat knows it (``settings``: the game's options, with
    nothing of the seat's to choose)."""
    return DruidsHumanAgent(inp, out, seat).seat_of_game(
        f"you are seat {seat} ({PLAYER_COLOURS[seat]})")
