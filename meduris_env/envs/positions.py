"""A pool of positions for batched tree search: :class:`PositionPool` stores positions as rows
of one array and expands, observes and scores many of them per call in parallel numba kernels,
apart from any live game.

>>> pool = PositionPool(MedurisGame(2), capacity=100_000, seed=0)
>>> roots = pool.load(batch.rows(games))            # or a sequence of engine States
>>> obs, mask = pool.observe(roots)                 # the mover's observation and legal mask
>>> children = pool.expand(roots, actions)          # one new row per (parent, action)
>>> pool.mover(children), pool.returns(children)    # seat to move (-1: over), returns

Rows are int64 ids ``0 .. size - 1``, never moved or reused until :meth:`clear`. A row is an
ordinary engine position (``pool.state(i)`` is an engine
:class:`~meduris_env.engine.state.State` of it); every stored row is a decision node or a
finished game: :meth:`load` takes decision nodes only, and :meth:`expand` settles chance.

**Chance.** ``expand`` applies the action, then resolves every chance node up to the next
decision or the end of the game (the die, R7; bonus chips only arise at setup) with the batch
engine's own kernel (:func:`~meduris_env.engine.batch.resolve_chance_row`), drawing from a
counter-based stream of the pool's own: expansion ``j`` of a call uses the key
``stream_key(seed, POOL_COUNTER_TAG, counter + j)``, where ``counter`` counts the expansions the
pool has made since it was created (:meth:`clear` keeps counting, so a cleared pool draws fresh
dice), or, with ``streams`` given, ``stream_key(seed, POOL_STREAM_TAG, streams[j])`` (the same
parent, action and stream number give the same child in any call, order or thread). A batch's
games use ``stream_key(seed, game, episode)`` with game < 10**6, so the pool never draws nor
advances a live game's stream. :meth:`applied` lists the ids that made a row from its parent
(the action, then the chance outcomes drawn): replayed through ``State.apply_action`` from the
parent they give the row exactly.

**Costs.** A row is ``STATE_SIZE`` int32 (1,912 bytes) plus ~90 bytes of bookkeeping
(:data:`ROW_BYTES`); the arrays are allocated once at creation (pages are touched as rows are
written). ``capacity`` is at most :data:`MAX_POSITIONS` rows and :data:`MAX_POOL_BYTES` bytes.
An expansion is one row copy, one ``apply`` and its chance (numba, parallel over the k rows in
chunks of 16, GIL released); an observation is the batch's observation kernel.

Threads: :meth:`expand` may be called from several threads at once (row ids are handed out
under a lock; the kernels release the GIL), as long as no call reads a row another call is
still writing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from meduris_rl.kit.values import SEED_MAX, check_bool, check_int

from ..engine.batch import COUNT_COLUMNS, HISTORY_LENGTH, STREAM_COLUMNS
from ..engine.constants import MAX_PLAYERS, NUM_ACTIONS
from ..engine.game import MedurisGame
from ..engine.layout import O_MANUAL, O_MAXT, O_NF, O_NP, STATE_SIZE
from ..engine.state import IllegalActionError, State
from . import batch_kernels as k
from .observation import OBS_SIZE

__all__ = ["MAX_POOL_BYTES", "MAX_POSITIONS", "PositionPool", "ROW_BYTES"]

#: the most rows a pool holds
MAX_POSITIONS = 10**7
#: the most memory a pool's arrays may take, in bytes (8 GiB)
MAX_POOL_BYTES = 8 * 2**30
#: the bytes of one row: the position, its stream, counts, record, mover and parent
ROW_BYTES = STATE_SIZE * 4 + STREAM_COLUMNS * 8 + COUNT_COLUMNS * 8 + k.POOL_RECORD * 2 + 1 + 8
# the fields that must agree between a loaded position and the pool's game
_PARAMS = (O_NP, O_NF, O_MANUAL, O_MAXT)


class PositionPool:
    """Up to ``capacity`` positions of ``game``, expanded and observed in batches (see the
    module docstring).

    Args:
        game: the :class:`~meduris_env.engine.game.MedurisGame` whose positions it holds.
        capacity: the most rows (at most :data:`MAX_POSITIONS` and :data:`MAX_POOL_BYTES`).
        seed: the pool's seed (its chance streams depend on it and on the expansion count).
        hidden_materials: opponents' materials as totals only in the observations (R2), as the
            batch's option.
    """

    def __init__(self, game: MedurisGame, capacity: int, seed: int = 0, *,
                 hidden_materials: bool = False):
        if not isinstance(game, MedurisGame):
            raise TypeError(f"game must be a MedurisGame, got {type(game).__name__}")
        n = self.capacity = check_int(
            f"capacity (at {ROW_BYTES:,} bytes a row, at most {MAX_POOL_BYTES >> 30} GiB)",
            check_int("capacity", capacity, 1), 1,
            min(MAX_POSITIONS, MAX_POOL_BYTES // ROW_BYTES))
        self.game = game
        self.seed = check_int("seed", seed, 0, SEED_MAX)
        self.hidden_materials = check_bool("hidden_materials", hidden_materials)
        self._fm, self._fa = game.field_materials, game.field_areas
        self._params = game.new_initial_state().array[list(_PARAMS)].copy()
        self.states = np.zeros((n, STATE_SIZE), dtype=np.int32)
        self._streams = np.zeros((n, STREAM_COLUMNS), dtype=np.uint64)
        self._counts = np.zeros((n, COUNT_COLUMNS), dtype=np.int64)
        self._record = np.zeros((n, k.POOL_RECORD), dtype=np.int16)
        self._movers = np.zeros(n, dtype=np.int8)
        self._parents = np.zeros(n, dtype=np.int64)
        self._size = 0
        self._expansions = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """Rows stored (ids ``0 .. size - 1``)."""
        return self._size

    @property
    def expansions(self) -> int:
        """Expansions drawn from the pool's counter since it was created (the next call's
        first counter value)."""
        return self._expansions

    def clear(self) -> None:
        """Forget every row (the expansion counter keeps counting)."""
        with self._lock:
            self._size = 0

    # --- adding rows --------------------------------------------------------------------------
    def load(self, states: Sequence[State] | np.ndarray) -> np.ndarray:
        """Copy positions in: engine States of this game, or a 2-D int32 array of state rows
        (``MedurisBatch.rows``). Each must be a decision node. Returns their ids (int64)."""
        rows = self._as_rows(states)
        other = (rows[:, list(_PARAMS)] != self._params).any(axis=1)
        if other.any():
            raise ValueError(f"position {int(np.flatnonzero(other)[0])} is not of this pool's "
                             f"game ({self.game!r})")
        movers = np.empty(len(rows), dtype=np.int64)
        k.row_players(rows, np.arange(len(rows), dtype=np.int64), movers)
        if (movers < 0).any():
            raise ValueError(f"position {int(np.flatnonzero(movers < 0)[0])} is not a decision "
                             "node (a chance node or a finished game); load positions where a "
                             "player must decide")
        with self._lock:
            ids = self._allocate(len(rows))
        self.states[ids] = rows
        self._streams[ids] = 0
        self._counts[ids] = 0
        self._movers[ids] = movers
        self._parents[ids] = -1
        return ids

    def expand(self, parents, actions, streams=None) -> np.ndarray:
        """New rows: row ``parents[j]`` after ``actions[j]`` for its mover, chance settled from
        the pool's stream (the module docstring), or from stream number ``streams[j]`` (int,
        >= 0) when given. Returns their ids. An illegal action raises IllegalActionError
        naming the row and the action, and adds no row."""
        parents = self._ids(parents, "parents")
        count = len(parents)
        actions = self._int_array(actions, "actions", count)
        if streams is not None:
            streams = self._int_array(streams, "streams", count)
            if count and streams.min() < 0:
                raise ValueError(f"streams must be >= 0, got {int(streams.min())}")
        self._check_legal(parents, actions)
        with self._lock:
            ids = self._allocate(count)
            if streams is None:
                values = np.arange(self._expansions, self._expansions + count, dtype=np.int64)
                self._expansions += count
        tag = k.POOL_COUNTER_TAG if streams is None else k.POOL_STREAM_TAG
        k.expand_rows(self.states, self._streams, self._counts, self._record, self._movers,
                      self._parents, self._fm, self._fa, self.seed, tag,
                      values if streams is None else streams, parents, actions, ids)
        return ids

    # --- reading rows -------------------------------------------------------------------------
    def observe(self, ids, observers=None) -> tuple[np.ndarray, np.ndarray]:
        """New arrays: row ``ids[j]`` seen by its mover (or seat ``observers[j]``; a finished
        row by seat 0), the observation (float32, OBS_SIZE) and the legal mask (int8, 241;
        zeros unless that seat is to move): the batch's vectors for the same position."""
        ids = self._ids(ids, "ids")
        if observers is None:
            seats = np.maximum(self._movers[ids], 0).astype(np.int32)
        else:
            seats = self._int_array(observers, "observers", len(ids)).astype(np.int32)
            if len(seats) and (seats.min() < 0 or seats.max() >= self.game.num_players):
                raise ValueError(f"observers must be seats 0..{self.game.num_players - 1}")
        obs = np.empty((len(ids), OBS_SIZE), dtype=np.float32)
        mask = np.empty((len(ids), NUM_ACTIONS), dtype=np.int8)
        k.observe_games(self.states, self._fm, self._fa, self.hidden_materials, ids, seats, obs,
                        mask, True)
        return obs, mask

    def mover(self, ids) -> np.ndarray:
        """The seat to move of each row (int8), -1 where the game is over."""
        return self._movers[self._ids(ids, "ids")].copy()

    def returns(self, ids) -> np.ndarray:
        """The engine's returns (``State.returns``) of each row, float32 ``(k, players)``: 0
        while the game is not over."""
        ids = self._ids(ids, "ids")
        out = np.zeros((len(ids), MAX_PLAYERS), dtype=np.float64)
        k.pool_returns(self.states, ids, self.game.zero_sum, out)
        return out[:, :self.game.num_players].astype(np.float32)

    def parent(self, ids) -> np.ndarray:
        """The row each row was expanded from (int64), -1 for loaded rows."""
        return self._parents[self._ids(ids, "ids")].copy()

    def applied(self, i: int) -> list[int]:
        """The ids that made row ``i`` from its parent: the action, then the chance outcomes
        drawn (empty for a loaded row). ValueError if more were drawn than the record keeps
        (``POOL_RECORD``)."""
        i = self._row(i)
        n = int(self._counts[i, HISTORY_LENGTH])
        if n > k.POOL_RECORD:
            raise ValueError(f"row {i} applied {n} ids; the pool records {k.POOL_RECORD}")
        return self._record[i, :n].tolist()

    def state(self, i: int) -> State:
        """Row ``i`` as an engine State (a copy; its move log holds nothing)."""
        return State(self.game, self.states[self._row(i)].copy())

    # --- helpers ------------------------------------------------------------------------------
    def _allocate(self, count: int) -> np.ndarray:
        if self._size + count > self.capacity:
            raise ValueError(f"the pool is full: {self._size} of {self.capacity} rows used, "
                             f"{count} more asked; clear() it or make a larger pool")
        ids = np.arange(self._size, self._size + count, dtype=np.int64)
        self._size += count
        return ids

    def _as_rows(self, states) -> np.ndarray:
        if isinstance(states, np.ndarray):
            if states.ndim != 2 or states.shape[1] != STATE_SIZE or states.dtype != np.int32:
                raise ValueError(f"state rows must be an int32 array (n, {STATE_SIZE}), got "
                                 f"{states.dtype} {states.shape}")
            return states
        rows = []
        for i, s in enumerate(states):
            if not isinstance(s, State) or s.game != self.game:
                raise ValueError(f"position {i} is not a State of this pool's game "
                                 f"({self.game!r})")
            rows.append(s.array)
        return np.array(rows, dtype=np.int32).reshape(len(rows), STATE_SIZE)

    def _check_legal(self, parents: np.ndarray, actions: np.ndarray) -> None:
        """The legal-mask test of every (parent, action), before anything is written."""
        bad = np.zeros(len(parents), dtype=np.int8)
        k.check_expansions(self.states, self._fm, parents, actions, bad)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            r, a = int(parents[j]), int(actions[j])
            raise IllegalActionError(f"row {r}: action {a} is not legal ({self._reason(r, a)}); "
                                     "no row was added")

    def _reason(self, r: int, action: int) -> str:
        if self._movers[r] < 0:
            return "the game is over"
        try:
            self.state(r).apply_action(action)
        except IllegalActionError as err:
            return str(err)
        return "refused by the legal mask"  # pragma: no cover - the kernel said so

    def _ids(self, ids, name: str) -> np.ndarray:
        a = np.asarray(ids)
        if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
            raise ValueError(f"{name} must be a 1-D int array of row ids, got {a.dtype} "
                             f"{a.shape}")
        a = a.astype(np.int64, copy=False)
        if a.size and (a.min() < 0 or a.max() >= self._size):
            bad = int(a[(a < 0) | (a >= self._size)][0])
            raise ValueError(f"{name}: row {bad} is not in the pool (ids 0..{self._size - 1})")
        return a

    @staticmethod
    def _int_array(values, name: str, count: int) -> np.ndarray:
        a = np.asarray(values)
        if a.shape != (count,) or (a.size and a.dtype.kind not in "iu"):
            raise ValueError(f"{name} must be an int array of shape ({count},), got {a.dtype} "
                             f"{a.shape}")
        return a.astype(np.int64, copy=False)

    def _row(self, i) -> int:
        if not self._size:
            raise ValueError("the pool is empty: no row to read")
        return check_int("row id", i, 0, self._size - 1)
