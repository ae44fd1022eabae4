"""One position of a Meduris game (OpenSpiel-style ``State``).

The position is a single flat ``int32`` numpy array (layout in
:mod:`meduris_env.engine.layout`); each named part is available as a numpy view
(``state.board_occupant``, ``state.stacks``, ``state.materials`` …, see the state table in
docs/engine.md). ``state.array`` is the array itself, for kernels and batch code. The rules run
in numba kernels (:mod:`meduris_env.engine.kernel`).

Chance is explicit: at a chance node (``current_player() == CHANCE``) the caller applies one of
``chance_outcomes()``. The distributions:

* die (R7): six faces, 1/6 each;
* bonus chips (R4 ruling): six chance nodes, one chip each; the field is uniform among the fields
  that keep ring distance >= 4 to every chip placed and leave room for the chips still to come;
  the kind is drawn from the face-down chips left (probability proportional to their count);
* starting player (R6 ruling, only with ``random_start_player=True``): uniform over the seats.

The move log and the event log are persistent (shared) linked lists, so ``clone()`` costs one
array copy whatever the game length.

Threads: states may be used from several threads at once (one state per thread at a time; a
state itself is not locked). The kernels' scratch buffers (events, masks) are per thread
(:class:`_Scratch`), and the kernels release the GIL (``nogil``), so games in different threads
run side by side and each plays exactly as it would alone.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from meduris_rl.kit.errors import IllegalActionError
from meduris_rl.kit.layout import add_field_views
from meduris_rl.kit.protocol import TurnState
from meduris_rl.kit.states import StateDunders, checked_action, illegal_reason

from . import chance
from . import kernel as K
from .actions import ACTIONS, action_to_string, string_to_action
from .constants import (
    C_DIE,
    C_START,
    CHANCE,
    CHIP_VP,
    DECISION_NAMES,
    END_TRUNCATED,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_IDS,
    PH_CHIPS,
    PH_QUEUE,
    PH_START,
    PHASE_NAMES,
)
from .events import Event, decode
from .layout import FIELDS, QUEUE_WIDTH
from .text import render_text

if TYPE_CHECKING:
    from .game import MedurisGame



class _Scratch(threading.local):
    """The kernels' work buffers, one set per thread: the events of the action being applied
    (``events``: the ``ev`` rows and their count ``evc``, one attribute because a thread-local
    lookup costs ~60 ns, paid on every action) and the legal and chance masks. Per thread, not
    per state: a state would carry 10 kB more, copied by every ``clone()`` (MCTS clones
    thousands of times a move); and not module-wide, where two threads would write one buffer
    at once."""

    def __init__(self) -> None:
        self.events = (np.zeros((K.EV_CAPACITY, K.EV_WIDTH), dtype=np.int32),
                       np.zeros(1, dtype=np.int64))
        self.mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self.cmask = np.zeros(NUM_CHANCE_OUTCOMES, dtype=np.int8)


_SCRATCH = _Scratch()


class State(StateDunders, TurnState):
    """A Meduris position. Create with ``MedurisGame.new_initial_state()``."""

    __slots__ = ("game", "_a", "_log", "to_move")
    TRUNCATED_END = END_TRUNCATED  # (is_chance_node, is_terminal, is_truncated: the kit's)
    SAME = ("_a",)  # == and deepcopy: the kit's StateDunders

    def __init__(self, game: MedurisGame, array: np.ndarray, log: Any = None):
        self.game = game
        self._a = array
        self._log = log  # None or (previous_log, action, events tuple)
        self.to_move = int(K.current_player(array))

    @property
    def array(self) -> np.ndarray:
        """The position itself: the flat int32 array the kernels work on (layout in
        :data:`~meduris_env.engine.layout.FIELDS`). It is live, not a copy: code that edits it
        by hand calls :meth:`resettle` afterwards."""
        return self._a

    # --- OpenSpiel-style core ------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """Legal player actions (ids < NUM_ACTIONS), or the possible outcome ids at a chance
        node."""
        if self.to_move >= 0:
            mask = _SCRATCH.mask
            K.legal_mask(self._a, self.game.field_materials, mask)
            return np.flatnonzero(mask).tolist()
        if self.to_move == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return []

    def legal_action_mask(self) -> np.ndarray:
        """int8 mask over the NUM_ACTIONS player actions (all zero at chance and terminal nodes)."""
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
        K.legal_mask(self._a, self.game.field_materials, out)
        return out

    def sample_chance(self, rng) -> int:
        """One outcome id of this chance node drawn from ``rng`` (a ``random.Random``) with the
        rules' probabilities: :func:`meduris_env.engine.chance.sample_chance` exactly (the
        shared play loop, :mod:`meduris_rl.kit.loop`, asks every game's state this)."""
        return chance.sample_chance(self, rng)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome id, probability) pairs at a chance node; empty elsewhere."""
        if self.to_move != CHANCE:
            return []
        phase = self.phase
        if phase == PH_START:
            n = self.game.num_players
            return [(C_START + s, 1.0 / n) for s in range(n)]
        if phase != PH_CHIPS:
            return [(C_DIE + f, 1.0 / 6.0) for f in range(6)]
        cmask = _SCRATCH.cmask
        K.chance_mask(self._a, cmask)
        ids = np.flatnonzero(cmask) + C_DIE
        chips = [ACTIONS[a] for a in ids.tolist()]  # (field, chip kind) each: the decoder's table
        fields = {c.field for c in chips}
        left = self.chips_to_place  # indexed by chip kind - CHIP_VP
        total = int(left.sum())
        return [(c.id, (1.0 / len(fields)) * (int(left[c.chip - CHIP_VP]) / total))
                for c in chips]

    def apply_action(self, action: int, player: int | None = None) -> None:
        """Apply a player action (at a decision node) or a chance outcome (at a chance node).

        ``player``, if given, must be the seat to move (``CHANCE`` for outcomes). Raises
        :class:`IllegalActionError` (a ``ValueError``) and leaves the state unchanged when the
        action is not legal now.
        """
        a = action  # (a Python int id in range from the seat to move needs no more checks)
        if type(a) is not int or not 0 <= a < NUM_IDS or (
                player is not None and player != self.to_move):
            a = checked_action(action, player, self.to_move, NUM_IDS)
        game = self.game
        ev, evc = _SCRATCH.events
        cur = K.apply(self._a, game.field_materials, game.field_areas, a, ev, evc)
        if cur < -4:
            if cur == K.ILLEGAL:
                raise IllegalActionError(self._illegal_reason(a))
            raise RuntimeError(f"event buffer overflow applying {a}")  # pragma: no cover
        n = int(evc[0])
        self._log = (self._log, a, tuple(map(tuple, ev[:n].tolist())) if n else ())
        self.to_move = cur

    def clone(self) -> State:
        """An independent copy (the logs are shared immutably, the position is copied)."""
        new = State.__new__(State)
        new.game = self.game
        new._a = self._a.copy()
        new._log = self._log
        new.to_move = self.to_move
        return new

    # --- results -------------------------------------------------------------------------------
    def scores(self) -> np.ndarray:
        """VP per seat (int array of length num_players)."""
        return self.vp[: self.game.num_players].copy()

    def buildings_built(self) -> np.ndarray:
        """Huts and temples standing per seat (int array of length num_players)."""
        return np.array([K.buildings_of(self._a, s) for s in range(self.game.num_players)])

    def ranks(self) -> np.ndarray:
        """R26 rank per seat, 1 = best: most VP, ties by most buildings (huts + temples), then
        most materials left; seats still tied share a rank. Meaningful at the end; mid-game it
        ranks the standings."""
        out = np.empty(self.game.num_players, dtype=np.int64)
        K.rank_seats(self._a, out)
        return out

    def winners(self) -> list[int]:
        """The seats of rank 1 (R26): several on a shared win."""
        return np.flatnonzero(self.ranks() == 1).tolist()

    def returns(self) -> np.ndarray:
        """Utility per seat. With ``zero_sum=True`` (the game's default) winners share +1 and
        losers share -1, so the sum is 0 (all tied: all 0). With ``zero_sum=False`` winners
        share +1 and losers get 0 (all tied: 1/n each). Zeros until the game is terminal
        (truncated games are scored on the standings at the turn limit)."""
        out = np.zeros(self.game.num_players, dtype=np.float64)
        if self.is_terminal():
            K.win_returns(self._a, self.game.zero_sum, out)
        return out

    # --- decisions and logs --------------------------------------------------------------------
    def pending_decision(self) -> dict[str, Any]:
        """The decision now due: kind, seat, and for an offering the hut's field and settlement
        size; ``None`` kind at chance and terminal nodes."""
        if self.phase != PH_QUEUE:
            return {"kind": PHASE_NAMES[self.phase], "seat": self.to_move, "field": -1, "size": 0}
        row = self.queue[self.queue_head]
        return {"kind": DECISION_NAMES[row[0]], "seat": int(row[1]), "field": int(row[2]),
                "size": int(row[3])}

    def upcoming_decisions(self) -> list[dict[str, Any]]:
        """The queued entries from the pending one on (this turn's known future)."""
        if self.phase != PH_QUEUE:
            return []
        rows = self.queue[self.queue_head:self.queue_len]
        return [{"kind": DECISION_NAMES[r[0]], "seat": int(r[1]), "field": int(r[2]),
                 "size": int(r[3])} for r in rows]

    def _entries(self) -> list[tuple[int, tuple]]:
        out = []
        node = self._log
        while node is not None:
            node, a, rows = node
            out.append((a, rows))
        out.reverse()
        return out

    def log_entries(self) -> list[tuple[int, tuple]]:
        """(action or outcome id, its raw event rows) per step, in order (state files save it)."""
        return self._entries()

    def history(self) -> list[int]:
        """Every action and chance outcome applied since the initial state, in order."""
        return [a for a, _ in self._entries()]

    def events(self) -> list[Event]:
        """Every event, in order; ``Event.step`` indexes ``history()``."""
        return [decode(i, row) for i, (_, rows) in enumerate(self._entries()) for row in rows]

    def last_events(self) -> list[Event]:
        """The events caused by the most recent action."""
        if self._log is None:
            return []
        steps = self._history_length() - 1
        return [decode(steps, row) for row in self._log[2]]

    def _history_length(self) -> int:
        n = 0
        node = self._log
        while node is not None:
            node = node[0]
            n += 1
        return n

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    def to_json(self) -> str:
        from .serialize import state_to_json
        return state_to_json(self)

    def __reduce__(self):
        from .serialize import state_from_json  # pickled as its JSON text, checked when read
        return state_from_json, (self.to_json(),)

    def __str__(self) -> str:
        return render_text(self)

    def resettle(self) -> list[Event]:
        """Re-derive whose decision is due after a position was edited by hand (tests, tools):
        resolves automatic queue entries exactly as the engine would and returns their events
        (they are not part of ``history()``, which holds applied actions only)."""
        ev, evc = _SCRATCH.events
        K.settle(self._a, ev, evc)
        n = int(evc[0])
        self.to_move = int(K.current_player(self._a))
        return [decode(-1, tuple(row)) for row in ev[:n].tolist()]

    def _illegal_reason(self, a: int) -> str:
        decision = ""
        if self.to_move >= 0:
            d = self.pending_decision()
            decision = f"seat {d['seat']} must decide: {d['kind']}"
            if d["kind"] == "offering":
                decision += f" for the hut on field {d['field']} (settlement of {d['size']})"
        return illegal_reason(self, a, PHASE_NAMES[self.phase], decision, NUM_ACTIONS,
                              action_to_string)

    def __repr__(self) -> str:
        return (f"<meduris State: {self.game.num_players} players, turn {self.turn}, "
                f"{PHASE_NAMES[self.phase]}, current player {self.to_move}>")


add_field_views(State, FIELDS)

QUEUE_FIELDS = ("kind", "seat", "field", "size")
assert len(QUEUE_FIELDS) == QUEUE_WIDTH
