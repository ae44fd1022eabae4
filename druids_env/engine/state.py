"""One position of a Druids game (OpenSpiel-style ``State``, the same public protocol as
:class:`meduris_env.engine.state.State`).

The position is held in plain Python lists, all public attributes (tests and tools build
positions by hand through them, then call :meth:`DruidsState.resettle`):

==================  ============================================================================
``row``             6 slots: the place id laid there, -1 for none (D3, D7)
``above``           per slot, the gems played above it: ``(card, seat)`` in play order (D8)
``under``           per slot, the servant cards played under it, in play order (D8)
``hands``           per seat, the card ids in hand
``servant_sets``    per seat, the servant cards in that seat's set (sorted; its order is hidden:
                    a draw is a chance node, D3 ruling)
``gem_deck``        the gems not yet dealt or drawn (sorted; the deck's order is hidden: a draw
                    is a chance node over them)
``place_deck``      the places not yet laid out (sorted; chance as above)
``discards``        the gems discarded face down, ``(card, seat)`` (D9)
``removed``         the gems revealed at a collection: they left the game (D7 ruling)
``collected``       the places collected, in order (D7)
``score``           per seat (D5, D6); ``base`` the circles below the column's bottom card (D12:
                    markers start beside the bottom card at 0; a score up to ``base`` plus one
                    card's circles is on the bottom card, and none is ever below it)
``phase``, ``seat`` the step of the turn (``rules.PHASE_NAMES``) and the seat whose turn it is
``drawn_at``,       per servant card, the index in ``log_events`` of the event that put it in
``played_at``       its owner's hand and of the one that played it (for ``resample_hidden``)
==================  ============================================================================

Chance is explicit: at a chance node (``current_player() == CHANCE``) the caller applies one of
``chance_outcomes()``, each card left equally likely: the places laid out at the setup and each
replacement (D3, D7), each gem dealt or drawn (D3, D10), each servant drawn from a seat's set
(D3 ruling). Every state is reached from the initial state by ``history()``.
"""

from __future__ import annotations

import json

from meduris_rl.kit.protocol import CHANCE, TurnState, ZeroSumState
from meduris_rl.kit.states import StateDunders, checked_action, illegal_reason

from . import rules
from .actions import NUM_ACTIONS, NUM_IDS, action_to_string, string_to_action
from .cards import NUM_CARDS, NUM_GEMS, NUM_PLACES, ROW_SIZE, servant
from .errors import IllegalActionError
from .events import PUBLIC, Event
from .information import render

# the position's attributes, as saved by to_json (order fixed)
POSITION = ("phase", "seat", "turn", "setup_i", "replace_slot", "played", "servant_played",
            "acted", "idle", "base", "collections", "end_reason", "row", "above", "under",
            "hands", "servant_sets", "gem_deck", "place_deck", "discards", "removed",
            "collected", "score", "drawn_at", "played_at", "reveals")
_LISTS_OF_LISTS = ("above", "under", "hands", "servant_sets")
_FLAT_LISTS = ("row", "gem_deck", "place_deck", "discards", "removed", "collected", "score",
               "drawn_at", "played_at", "reveals")


class DruidsState(StateDunders, ZeroSumState, TurnState):
    """A Druids position. Create with ``DruidsGame.new_initial_state()``."""

    TRUNCATED_END = rules.END_TRUNCATED  # (is_chance_node, is_terminal, is_truncated: the kit's)
    # == and deepcopy: the kit's StateDunders
    SAME = ("to_move", *POSITION, "log_actions", "log_events")

    def __init__(self, game):
        n = game.num_players
        self.game = game
        self.schedule = rules.setup_schedule(n)
        self.phase, self.seat, self.turn, self.setup_i = rules.P_SETUP_PLACE, 0, 0, 0
        self.replace_slot, self.played, self.servant_played = -1, 0, False
        self.acted, self.idle, self.base, self.collections = False, 0, 0, 0
        self.end_reason = rules.END_NONE
        self.row = [-1] * ROW_SIZE
        self.above = [[] for _ in range(ROW_SIZE)]
        self.under = [[] for _ in range(ROW_SIZE)]
        self.hands = [[] for _ in range(n)]
        self.servant_sets = [[servant(s, v) for v in range(1, 7)] for s in range(n)]
        self.gem_deck = list(range(NUM_GEMS))
        self.place_deck = list(range(NUM_PLACES))
        self.discards, self.removed, self.collected = [], [], []
        self.score = [0] * n
        self.drawn_at = [-1] * NUM_CARDS
        self.played_at = [-1] * NUM_CARDS
        self.reveals = []  # (event index, servant card) of each servant revealed (D6)
        self.log_actions: list[int] = []
        self.log_events: list[Event] = []
        self.to_move = CHANCE

    def emit(self, kind: str, data: dict, owner: int = PUBLIC, hidden: tuple = ()) -> None:
        """Log an event of the action being applied (see :mod:`druids_env.engine.events`)."""
        self.log_events.append(Event(len(self.log_actions) - 1, kind, data, owner, hidden))

    # --- OpenSpiel-style core ----------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """Legal player actions (ids < NUM_ACTIONS), or the possible outcome ids at a chance
        node."""
        if self.to_move >= 0:
            return rules.legal(self)
        if self.to_move == CHANCE:
            return rules.chance_ids(self)
        return []

    def legal_action_mask(self):
        """int8 numpy mask over the NUM_ACTIONS player actions (all zero at chance and terminal
        nodes)."""
        import numpy as np
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.to_move >= 0:
            out[rules.legal(self)] = 1
        return out

    def sample_chance(self, rng) -> int:
        """One outcome id of this chance node drawn from ``rng`` (a ``random.Random``), each
        card left equally likely (one ``randrange``): what the shared play loop
        (:func:`meduris_rl.kit.loop.play`) asks at a chance node."""
        ids = rules.chance_ids(self)
        return ids[rng.randrange(len(ids))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome id, probability) pairs at a chance node (each card left equally likely);
        empty elsewhere."""
        if self.to_move != CHANCE:
            return []
        ids = rules.chance_ids(self)
        p = 1.0 / len(ids)
        return [(a, p) for a in ids]

    def apply_action(self, action: int, player: int | None = None) -> None:
        """Apply a player action (at a decision node) or a chance outcome (at a chance node).

        ``player``, if given, must be the seat to move (``CHANCE`` for outcomes). Raises
        :class:`IllegalActionError` and leaves the state unchanged when the action is not
        legal now."""
        a = action  # (a Python int id in range from the seat to move needs no more checks)
        if type(a) is not int or not 0 <= a < NUM_IDS or (
                player is not None and player != self.to_move):
            a = checked_action(action, player, self.to_move, NUM_IDS, IllegalActionError)
        if a not in self.legal_actions():
            raise IllegalActionError(self.illegal_reason(a))
        self.apply_legal(a)

    def apply_legal(self, a: int) -> None:
        """``apply_action(a)`` for an ``a`` known legal now (no check: searches that drew it
        from ``legal_actions()`` skip the cost; anything else breaks the state)."""
        self.log_actions.append(a)
        if self.to_move == CHANCE:
            rules.apply_chance(self, a)
        else:
            rules.decide(self, a)
        self.to_move = rules.advance(self)

    def illegal_reason(self, a: int) -> str:
        kind = rules.PHASE_NAMES[self.phase]
        return illegal_reason(self, a, kind, f"seat {self.seat} must decide: {kind}",
                              NUM_ACTIONS, action_to_string, shown=6)

    def clone(self) -> DruidsState:
        """An independent copy (events are immutable and shared)."""
        new = DruidsState.__new__(DruidsState)
        d = self.__dict__.copy()
        for name in _LISTS_OF_LISTS:
            d[name] = [list(x) for x in d[name]]
        for name in _FLAT_LISTS + ("log_actions", "log_events"):
            d[name] = list(d[name])
        new.__dict__.update(d)
        return new

    def resettle(self) -> None:
        """Re-derive who is to move after a position was edited by hand (tests, tools):
        applies forced decisions as the engine would."""
        self.to_move = rules.advance(self)

    # --- results -----------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """The score per seat: the amulets shared out to it (D5, D6)."""
        return list(self.score)

    def ranks(self) -> list[int]:
        """Rank per seat, 1 = best: the highest score wins, level scores share (D11, D13)."""
        return [1 + sum(1 for t in self.score if t > s) for s in self.score]

    def winners(self) -> list[int]:
        """The seats of rank 1 (D13 ruling: several on a shared win; at the end by the moving
        column, D12, the one who passed the top, alone past it)."""
        best = max(self.score)
        return [s for s, v in enumerate(self.score) if v == best]

    # returns (D13 ruling, as Meduris: winners share +1, the others -1): ZeroSumState's

    # --- logs --------------------------------------------------------------------------------
    def history(self) -> list[int]:
        """Every action and chance outcome applied since the initial state, in order (forced
        decisions, taken automatically, are not in it: they are events)."""
        return list(self.log_actions)

    def events(self) -> list[Event]:
        """Every event, in order; ``Event.step`` indexes ``history()``."""
        return list(self.log_events)

    def last_events(self) -> list[Event]:
        """The events caused by the most recent action (and the forced ones after it)."""
        last = len(self.log_actions) - 1
        out = []
        for ev in reversed(self.log_events):
            if ev.step != last:
                break
            out.append(ev)
        return out[::-1]

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    def pending_decision(self) -> dict:
        """The step now due: ``kind`` (a phase name) and ``seat``."""
        return {"kind": rules.PHASE_NAMES[self.phase], "seat": self.to_move}

    # --- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> str:
        """The whole state (position, history and events) as JSON; :meth:`from_json` reads it
        back to an equal state."""
        doc = {"game": "druids", "params": self.game.params(), "to_move": self.to_move,
               "position": {k: getattr(self, k) for k in POSITION},
               "history": self.log_actions,
               "events": [[e.step, e.kind, e.data, e.owner, list(e.hidden)]
                          for e in self.log_events]}
        return json.dumps(doc, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes, game) -> DruidsState:
        """The state saved by :meth:`to_json`, for ``game`` (its parameters must match). Every
        field is checked (:func:`druids_env.engine.statefile.read_state`, through the game's
        reader): an impossible position is a ``StateFileError`` of one line naming the first
        problem."""
        return game.state_from_json(text)

    def __reduce__(self):
        from .game import state_from_json  # pickled as its JSON text
        return state_from_json, (self.to_json(),)

    def __str__(self) -> str:
        return render(self)  # every card shown

    def __repr__(self) -> str:
        return (f"<druids State: {self.game.num_players} players, turn {self.turn}, "
                f"{rules.PHASE_NAMES[self.phase]}, current player {self.to_move}>")


assert NUM_IDS > NUM_ACTIONS
