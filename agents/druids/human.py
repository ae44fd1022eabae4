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
from meduris_rl.agents.human import HumanSeat, TerminalHuman, parse_words

HELP = ("type the number of an action, or its words as listed (e.g. 'collect place 2', 'draw "
        "a gem'); 'board' shows the table again, 'help' this text, 'quit' ends the game and "
        "saves its record.\nYou see your own cards; another player's cards in hand and face "
        "down on the table show only their backs (D14): 'a blue gem', 'a blue servant'.")


class DruidsHumanAgent(TerminalHuman):
    """Reads each decision of ``seat`` from ``inp``; writes to ``out`` only what ``seat``
    knows (D14)."""

    def __init__(self, inp: TextIO, out: TextIO, seat: int, name: str = "human"):
        super().__init__(inp, out, name)
        self.seat = seat
        self.shown = 0  # the events already written (an index into the state's event log)

    def observe(self, state, who: int, action: int) -> None:
        """The play loop's observer: write the events not yet shown, as this seat knows them
        (a turn's first line unindented, the rest under it)."""
        events = state.log_events[self.shown:]
        self.shown += len(events)
        for ev, line in zip(events, event_lines(events, self.seat), strict=True):
            self.out.write(("\n" if ev.kind == "turn" else "    ") + line + "\n")
        self.out.flush()

    def board(self, state) -> str:
        return seat_view(state, self.seat)

    def decision(self, state) -> str:
        return decision_text(state)

    def action_text(self, state, action: int) -> str:
        return action_to_string(action)

    def parse(self, line: str, legal: list[int], state) -> tuple[int | None, str]:
        return parse_words(line, legal, string_to_action, action_to_string,
                           lambda: decision_text(state), (IllegalActionError,))

    def help_text(self) -> str:
        return HELP


def druids_human(inp: TextIO, out: TextIO, seat: int, labels: list[str],
                 settings: dict) -> HumanSeat:
    """The person's seat at a Druids game (its row's ``human`` part): nothing shown but what
    ``seat`` knows (D14), the end as that seat knows it (``settings``: the game's options, with
    nothing of the seat's to choose)."""
    human = DruidsHumanAgent(inp, out, seat)
    return HumanSeat(human, human.observe, f"you are seat {seat} ({PLAYER_COLOURS[seat]})", {},
                     lambda end: "The final position, as you know it:\n" + human.board(end))
