"""One position of a Stone Age game (OpenSpiel-style ``State``, the kit's protocol).

The position is one flat ``int32`` numpy array (layout in :mod:`stoneage_env.engine.layout`);
each named part is a numpy view (``state.goods[seat, WOOD]``, ``state.placed[location, seat]``,
``state.display`` … the table in docs/stone_age.md); ``state.array`` is the array itself. The
rules run in numba kernels (:mod:`stoneage_env.engine.kernel`).

Chance is explicit: at a chance node (``current_player() == CHANCE``) the caller applies one of
``chance_outcomes()``: a die (six faces, 1/6 each: every die of every roll is its own node,
S14, S21, M6), a civilization card drawn (each card left in the deck equally likely: the deck's
order is nobody's, so a card is drawn when it is turned, S5, S24, S29), a building tile turned
(each tile never seen equally likely: the stacks' contents below their tops and the stacks
left out are nobody's, S6), the back of the Mammoth pile's top tile and then its front (M2,
M3). A decision with a single legal action is taken by the engine (an event, not part of
``history()``).

The move log and the event log are persistent linked lists, so ``clone()`` costs one array
copy whatever the game's length. States may be used from several threads at once (one state
per thread at a time): the kernels' scratch buffers are per thread.
"""

from __future__ import annotations

import random
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from meduris_rl.kit.layout import add_field_views
from meduris_rl.kit.protocol import TurnState, ZeroSumState
from meduris_rl.kit.states import StateDunders, checked_action, illegal_reason

from . import kernel as K
from .actions import action_to_string, string_to_action
from .constants import (
    C_DIE,
    CHANCE,
    END_TRUNCATED,
    M_DFA_ROLL,
    M_ROLL,
    M_TAME_ROLL,
    MODE_NAMES,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_IDS,
)
from .errors import IllegalActionError
from .events import Event, decode
from .layout import FIELDS
from .text import render_text

if TYPE_CHECKING:
    from .game import StoneAgeGame

_DICE_MODES = (M_ROLL, M_DFA_ROLL, M_TAME_ROLL)
_EV, _MASK, _IDS, _WEIGHTS = K.W_EV, K.W_MASK, K.W_IDS, K.W_WEIGHTS
_DICE_OUTCOMES = tuple((C_DIE + f, 1.0 / 6.0) for f in range(6))


def _rows(raw: bytes) -> list[tuple[int, ...]]:
    """The event rows a step logged (kept as the bytes of the kernel's int32 rows: one copy
    per step, decoded only when asked)."""
    return [tuple(r) for r in np.frombuffer(raw, dtype=np.int32).reshape(-1, K.EV_WIDTH).tolist()]


class _Scratch(threading.local):
    """The kernels' work array (``kernel.W_SIZE`` int32: a step's events, the legal mask and
    ids, the chance weights), one per thread: not per state, which ``clone()`` would copy;
    not module-wide, which two threads would share."""

    def __init__(self) -> None:
        self.work = np.zeros(K.W_SIZE, dtype=np.int32)


_SCRATCH = _Scratch()


class StoneAgeState(StateDunders, ZeroSumState, TurnState):
    """A Stone Age position. Create with ``StoneAgeGame.new_initial_state()``."""

    __slots__ = ("game", "_a", "_log", "to_move")
    TRUNCATED_END = END_TRUNCATED  # (is_chance_node, is_terminal, is_truncated: the kit's)
    SAME = ("_a",)  # == and deepcopy: the kit's StateDunders

    def __init__(self, game: StoneAgeGame, array: np.ndarray, log: Any = None,
                 to_move: int | None = None):
        self.game = game
        self._a = array
        self._log = log  # None or (previous_log, action, events tuple)
        self.to_move = int(K.current_player(array)) if to_move is None else to_move

    @property
    def array(self) -> np.ndarray:
        """The position itself (live, not a copy)."""
        return self._a

    # --- OpenSpiel-style core --------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """The legal decisions (ids < NUM_ACTIONS), or the possible outcome ids at a chance
        node."""
        if self.to_move >= 0:
            w = _SCRATCH.work
            return w[_IDS:_IDS + K.legal_ids(self._a, w)].tolist()
        if self.to_move == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return []

    def legal_action_mask(self) -> np.ndarray:
        """int8 mask over the NUM_ACTIONS decisions (all zero at chance and terminal nodes)."""
        if self.to_move < 0:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        w = _SCRATCH.work
        K.legal_ids(self._a, w)
        return w[_MASK:_MASK + NUM_ACTIONS].astype(np.int8)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome id, probability) pairs at a chance node; empty elsewhere."""
        if self.to_move != CHANCE:
            return []
        if self._a[K.O_MODE] in _DICE_MODES:
            return list(_DICE_OUTCOMES)
        w = _SCRATCH.work
        total = K.chance_weights(self._a, w)
        weights = w[_WEIGHTS:_WEIGHTS + NUM_CHANCE_OUTCOMES].tolist()
        return [(C_DIE + i, k / total) for i, k in enumerate(weights) if k]

    def sample_chance(self, rng: random.Random) -> int:
        """One outcome id of this chance node drawn from ``rng`` (a ``random.Random``) with
        the rules' probabilities (the kit's play loop asks every game's state this)."""
        if self._a[K.O_MODE] in _DICE_MODES:
            return C_DIE + rng.randrange(6)
        outcomes = self.chance_outcomes()
        u = rng.random()
        for a, p in outcomes:
            u -= p
            if u < 0:
                return a
        return outcomes[-1][0]

    def apply_action(self, action: int, player: int | None = None) -> None:
        """Apply a decision (at a decision node) or a chance outcome (at a chance node).

        ``player``, if given, must be the seat to move (``CHANCE`` for outcomes). Raises
        :class:`IllegalActionError` (a ``ValueError``) and leaves the state unchanged when the
        action is not legal now."""
        a = action  # (a Python int id in range from the seat to move needs no more checks)
        if type(a) is not int or not 0 <= a < NUM_IDS or (
                player is not None and player != self.to_move):
            a = checked_action(action, player, self.to_move, NUM_IDS, IllegalActionError)
        w = _SCRATCH.work
        cur = K.apply(self._a, w, a)
        if cur < -4:
            if cur == K.ILLEGAL:
                raise IllegalActionError(self._illegal_reason(a))
            raise RuntimeError(f"event buffer overflow applying {a}")  # pragma: no cover
        n = w[0]  # (kernel.W_EVC)
        self._log = (self._log, a, w[_EV:_EV + n * K.EV_WIDTH].tobytes() if n else b"")
        self.to_move = cur

    def clone(self) -> StoneAgeState:
        """An independent copy (the logs are shared immutably, the position is copied)."""
        return StoneAgeState(self.game, self._a.copy(), self._log, self.to_move)

    # --- results ---------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """VP per seat."""
        return self.score[: self.game.num_players].tolist()

    def tie_break(self) -> list[int]:
        """S32: agriculture + tool-tile total + figures, per seat."""
        n = self.game.num_players
        return [int(self.agriculture[s] + self.tiles[s].sum() + self.figures[s])
                for s in range(n)]

    def ranks(self) -> list[int]:
        """S32 rank per seat, 1 = best: most VP, ties by :meth:`tie_break`, seats still tied
        share a rank (X16). A truncated game ranks the scores alone (X20 ruling)."""
        n = self.game.num_players
        score = self.scores()
        tb = self.tie_break() if self.end_reason != END_TRUNCATED else [0] * n
        keys = [(score[s], tb[s]) for s in range(n)]
        return [1 + sum(1 for k in keys if k > keys[s]) for s in range(n)]

    def winners(self) -> list[int]:
        """The seats of rank 1 (several on a shared win, X16)."""
        return [s for s, r in enumerate(self.ranks()) if r == 1]

    # returns (winners share +1, the others -1; a truncated game ranks its scores, X20):
    # ZeroSumState's

    # --- logs ------------------------------------------------------------------------------------
    def _entries(self) -> list[tuple[int, tuple]]:
        out = []
        node = self._log
        while node is not None:
            node, a, raw = node
            out.append((a, _rows(raw)))
        out.reverse()
        return out

    def log_entries(self) -> list[tuple[int, tuple]]:
        """(action or outcome id, its raw event rows) per step, in order."""
        return self._entries()

    def history(self) -> list[int]:
        """Every decision and chance outcome applied since the initial state, in order (forced
        decisions, taken by the engine, are events, not part of it)."""
        return [a for a, _ in self._entries()]

    def events(self) -> list[Event]:
        """Every event, in order; ``Event.step`` indexes ``history()`` (-1: the start)."""
        out = [decode(-1, row) for row in self.game.start_events]
        out += [decode(i, row) for i, (_, rows) in enumerate(self._entries()) for row in rows]
        return out

    def last_events(self) -> list[Event]:
        """The events caused by the most recent action."""
        if self._log is None:
            return []
        steps = len(self._entries()) - 1
        return [decode(steps, row) for row in _rows(self._log[2])]

    def resettle(self) -> list[Event]:
        """Re-derive who is to move after a position was edited by hand (tests, tools): runs
        the rules from the node as the engine would and returns their events (not part of
        ``history()``)."""
        w = _SCRATCH.work
        self.to_move = int(K.start(self._a, w))
        rows = w[_EV:_EV + int(w[0]) * K.EV_WIDTH].reshape(-1, K.EV_WIDTH).tolist()
        return [decode(-1, tuple(r)) for r in rows]

    @property
    def turn(self) -> int:
        """The round being played (from 1; the last one at the end): what the shared tools
        count as a game's turns."""
        return int(self._a[K.O_ROUND])

    def pending_decision(self) -> dict[str, Any]:
        """The decision now due, in words and numbers: ``kind`` (``MODE_NAMES``: "placement",
        "card payment" ...), ``seat``, and ``location`` (the location being resolved, -1
        none), ``pay_need`` (pieces a card or shortfall asks) and ``paid`` (per goods) of a
        payment. At chance and terminal nodes the kind names the event ("die", "game over")."""
        return {"kind": MODE_NAMES[self.mode], "seat": self.to_move, "location": self.loc,
                "pay_need": self.pay_need, "paid": self.paid.tolist()}

    def decision(self) -> str:
        """What the node is, in words (``MODE_NAMES``): ``"placement"``, ``"card payment"`` …"""
        return MODE_NAMES[self.mode]

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    def to_json(self) -> str:
        from .statefile import state_to_json
        return state_to_json(self)

    def __reduce__(self):
        from .statefile import state_from_json  # pickled as its JSON text, checked when read
        return state_from_json, (self.to_json(),)

    def _illegal_reason(self, a: int) -> str:
        kind = MODE_NAMES[self.mode]
        return illegal_reason(self, a, kind, f"seat {self.to_move} must decide: {kind}",
                              NUM_ACTIONS, action_to_string)

    def __str__(self) -> str:
        return render_text(self)

    def __repr__(self) -> str:
        return (f"<Stone Age state: {self.game.num_players} players, round {self.round}, "
                f"{MODE_NAMES[self.mode]}, current player {self.to_move}>")


add_field_views(StoneAgeState, FIELDS)
