"""A person playing Meduris at the terminal (Meduris's row's ``human`` part,
:func:`meduris_human`): the board each turn, the legal actions numbered and in Meduris's words,
every move printed as it is made, the screens lifted at the end. The reading of input is every
game's (:mod:`meduris_rl.agents.human`).
"""

from __future__ import annotations

from typing import TextIO

from meduris_env.engine.actions import action_to_string, decode_action, string_to_action
from meduris_env.engine.constants import MATERIALS
from meduris_env.engine.text import LEGEND, render_text
from meduris_env.render import view
from meduris_rl.agents.human import HumanSeat, TerminalHuman, parse_words

HELP = ("type the number of an action, or its words (e.g. 'take wood'); 'board' shows the "
        "board, 'help' this text, 'quit' ends the game and saves its record")

def describe_action(state, action: int) -> str:
    """An action in the game's words, with what an offering would give in this position: the
    web's words (:func:`meduris_env.render.view.describe_action`), except that the terminal
    has always listed a temple without its field's materials (kept: transcripts stay the
    same)."""
    if decode_action(action).kind == "temple":
        return action_to_string(action)
    return view.describe_action(state, action)


def describe_decision(state) -> str:
    d = state.pending_decision()
    if d["kind"] == "offering":
        a, b = (MATERIALS[m] for m in state.game.board.field_materials[d["field"]])
        return (f"the druid asks for an offering at your hut on field {d['field']} ({a}/{b}), "
                f"settlement of {d['size']} (R18, R19)")
    return d["kind"]


class HumanAgent(TerminalHuman):
    """A person playing Meduris at the terminal: the board (the others' materials as totals,
    behind their screens, unless ``open_screens``), the decision due and every action in
    Meduris's words."""

    def __init__(self, inp: TextIO, out: TextIO, name: str = "human", open_screens: bool = False):
        super().__init__(inp, out, name)
        self.open_screens = open_screens  # False: others' materials show as totals only

    def board(self, state) -> str:
        return render_text(state, None if self.open_screens else state.current_player())

    def decision(self, state) -> str:
        return describe_decision(state)

    def action_text(self, state, action: int) -> str:
        return describe_action(state, action)

    def parse(self, line: str, legal: list[int], state) -> tuple[int | None, str]:
        return parse_choice(line, legal, state)

    def help_text(self) -> str:
        return HELP + "\n" + LEGEND


def parse_choice(line: str, legal: list[int], state) -> tuple[int | None, str]:
    """(action, "") for a valid choice, else (None, reason) - or a command word as reason."""
    return parse_words(line, legal, string_to_action, action_to_string,
                       lambda: describe_decision(state))


def meduris_human(inp: TextIO, out: TextIO, seat: int, labels: list[str],
                  settings: dict) -> HumanSeat:
    """The person's seat at a Meduris game (its row's ``human`` part; ``settings``: the game's
    options and the seat's, each with its value): every move printed as it is made, the screens
    lifted at the end (or all along with ``open_screens``)."""
    return HumanSeat(HumanAgent(inp, out, open_screens=settings["open_screens"]),
                     meduris_observer(out, seat, labels), f"you are seat {seat}",
                     {"exchange": settings["exchange"], "open_screens": settings["open_screens"]},
                     lambda end: "The screens are lifted:\n" + render_text(end))


def meduris_observer(out: TextIO, seat: int, labels: list[str]):
    """Meduris's observer: each move and its events as they are made (Meduris hides nothing
    in a move: the materials behind the screens are shown as totals by the board)."""
    def observer(state, who: int, action: int) -> None:
        name = "chance" if who < 0 else ("you" if who == seat else f"seat {who} ({labels[who]})")
        out.write(f"{name}: {state.action_to_string(action)}\n")
        for e in state.last_events():
            out.write(f"    {e.describe()}\n")
    return observer
