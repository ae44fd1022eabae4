"""A person at the terminal as an agent, in any game: the position each turn, legal actions
numbered and written in the game's words, and input read until it names a legal action.

Input: a number from the list, or an action's words (Meduris's ``build hut on field 12``);
``board`` shows the position again, ``help`` the commands, ``quit`` ends the game (the record is
still saved). Anything else is refused with the reason and asked again. The end of input counts
as ``quit``, and so does no input at all (stdin closed or unreadable:
:meth:`TerminalHuman.read_line`).

What the agent shows and how it reads an action's words are a game's subclass's methods
(``board``, ``decision``, ``action_text``, ``parse``, ``help_text``: Meduris's in
:mod:`meduris_rl.agents.meduris.human`, Druids' in :mod:`meduris_rl.agents.druids.human`); the
commands, the numbers and the end of input are the same in every game (:func:`parse_common`).
A game's row names its ``human`` part: a function making the person's :class:`HumanSeat`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TextIO

from meduris_rl.agents.base import Agent, GameAbandoned
from meduris_rl.kit.values import ValueCheckError, excerpt, parse_int

#: the longest line read at the prompt; the rest of a longer line is skipped (it names nothing)
MAX_LINE = 4096


class HumanSeat(NamedTuple):
    """A person's seat at a game in the terminal (a game's ``human`` part):
    the agent reading their decisions, the play loop's observer writing what they see, how the
    first line names them, what the record's meta adds, and the text of the end (the final
    position as they may see it)."""

    agent: Any  # a HumanAgent
    observer: Callable
    words: str
    meta: dict
    final: Callable[[Any], str]


class TerminalHuman(Agent):
    """Reads each decision from ``inp`` and writes the position and choices to ``out``; a
    game's subclass says what it shows and how it reads an action's words."""

    def __init__(self, inp: TextIO, out: TextIO, name: str = "human"):
        super().__init__(name)
        self.inp = inp
        self.out = out
        self.input_ended = False

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def read_line(self) -> str:
        """The next line of input; "quit" on Ctrl-C (the record is kept), and "" (the end of
        input) when there is no input to read: stdin closed (``inp`` None, as Python makes
        ``sys.stdin`` for a closed descriptor, ``<&-``), a closed file, or a read error."""
        if self.inp is None or getattr(self.inp, "closed", False):
            return ""
        try:
            return self._bounded_line()
        except KeyboardInterrupt:  # Ctrl-C at the prompt: quit, but keep the record
            return "quit"
        except UnicodeDecodeError:  # bytes that are no text: a line that is refused
            return "\ufffd\n"
        except (OSError, ValueError):  # a descriptor that cannot be read is the end of input
            return ""

    def _bounded_line(self) -> str:
        """The next line cut to :data:`MAX_LINE` characters, the rest of it read and dropped in
        pieces (a huge line never sits in memory whole)."""
        line = self.inp.readline(MAX_LINE)
        if len(line) < MAX_LINE or line.endswith("\n"):
            return line
        while True:
            rest = self.inp.readline(MAX_LINE)
            if not rest or rest.endswith("\n"):
                return line + "\n"

    # what a game shows and reads: each game's own subclass (Meduris's, Druids')
    def board(self, state) -> str:
        raise NotImplementedError

    def decision(self, state) -> str:
        raise NotImplementedError

    def action_text(self, state, action: int) -> str:
        raise NotImplementedError

    def parse(self, line: str, legal: list[int], state) -> tuple[int | None, str]:
        raise NotImplementedError

    def help_text(self) -> str:
        raise NotImplementedError

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        seat = state.current_player()
        self.say("\n" + self.board(state))
        self.say(f"\nYour move, seat {seat}: {self.decision(state)}")
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>3}. {self.action_text(state, a)}")
        while True:
            self.out.write(f"choose 1-{len(legal)} > ")
            self.out.flush()
            line = self.read_line()
            if not line:
                self.say("\n(input ended)")
                self.input_ended = True
                raise GameAbandoned("input ended")
            choice, reason = self.parse(line, legal, state)
            if choice is not None:
                return choice
            if reason == "quit":
                raise GameAbandoned("quit")
            if reason == "board":
                self.say(self.board(state))
            elif reason == "help":
                self.say(self.help_text())
            else:
                self.say(f"not accepted: {reason}; type a number 1-{len(legal)}, an action's "
                         "words, or 'help'")


def parse_words(line: str, legal: list[int], to_action, to_string, due,
                errors: tuple[type[Exception], ...] = (ValueError,)
                ) -> tuple[int | None, str]:
    """:func:`parse_common`, else the line as an action's words in a game's own language
    (``to_action`` raising one of ``errors`` for words that name no action; ``to_string`` its
    inverse; ``due()`` the decision due, named when the action is not legal now)."""
    common = parse_common(line, legal)
    if common is not None:
        return common
    text = line.strip()
    try:
        a = to_action(text)
    except errors:
        return None, f"{excerpt(text)} is neither a number nor an action"
    if a not in legal:
        return None, f"'{to_string(a)}' is not legal now ({due()} is due)"
    return a, ""


def parse_common(line: str, legal: list[int]) -> tuple[int | None, str] | None:
    """What every game reads alike: a command word (as the reason), empty input, a number from
    the list; None for any other line (the game reads it as an action's words)."""
    text = line.strip()
    low = text.lower()
    if low in ("quit", "q", "exit"):
        return None, "quit"
    if low in ("board", "b"):
        return None, "board"
    if low in ("help", "h", "?"):
        return None, "help"
    if not text:
        return None, "empty input"
    if text.lstrip("-").isdigit():  # any digits, even '²' or 5000 of them: the strict parser
        try:
            return legal[parse_int("a choice", text, 1, len(legal)) - 1], ""
        except ValueCheckError:
            cut = "+" if len(text) >= MAX_LINE - 1 else ""  # the rest of the line was skipped
            shown = text if len(text) <= 24 else f"{text[:12]}... ({len(text):,}{cut} digits)"
            return None, f"{shown} is not on the list (1-{len(legal)})"
    return None


class SeatHuman(TerminalHuman):
    """A person at one seat of a game whose views are functions of the seat (Druids', Stone
    Age's): before each decision, the events since the last one as the seat knows them (the
    play loop's observer, :meth:`observe`: a turn's first line unindented, the rest under it),
    then the seat's view, the decision due and the legal actions in the game's words. A game's
    subclass names its functions (static methods): ``events(state)`` (the event log),
    ``event_lines(state, events, seat)`` (their lines as the seat knows them),
    ``view(state, seat)``, ``decision_text(state)``, ``to_string(action)`` /
    ``to_action(words)`` (raising one of ``errors``), and its ``turn_kind`` (the event that
    starts a turn) and ``help`` text."""

    turn_kind = "turn"
    help = ""
    errors: tuple[type[Exception], ...] = (ValueError,)

    def __init__(self, inp: TextIO, out: TextIO, seat: int, name: str = "human"):
        super().__init__(inp, out, name)
        self.seat = seat
        self.shown = 0  # the events already written (an index into the state's event log)

    def observe(self, state, who: int, action: int) -> None:
        """The play loop's observer: write the events not yet shown, as this seat knows them."""
        events = self.events(state)[self.shown:]
        self.shown += len(events)
        for ev, line in zip(events, self.event_lines(state, events, self.seat), strict=True):
            self.out.write(("\n" if ev.kind == self.turn_kind else "    ") + line + "\n")
        self.out.flush()

    def board(self, state) -> str:
        return self.view(state, self.seat)

    def decision(self, state) -> str:
        return self.decision_text(state)

    def action_text(self, state, action: int) -> str:
        return self.to_string(action)

    def parse(self, line: str, legal: list[int], state) -> tuple[int | None, str]:
        return parse_words(line, legal, self.to_action, self.to_string,
                           lambda: self.decision_text(state), self.errors)

    def help_text(self) -> str:
        return self.help

    def seat_of_game(self, words: str) -> HumanSeat:
        """The person's :class:`HumanSeat` (``words``: how the first line names them): the
        end shown as the seat knows it."""
        return HumanSeat(self, self.observe, words, {},
                         lambda end: "The final position, as you know it:\n" + self.board(end))
