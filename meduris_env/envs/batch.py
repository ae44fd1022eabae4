"""Thousands of games at once: :class:`MedurisBatch`, the batch engine with observations, masks
and rewards (the parallel kernels are in :mod:`.batch_kernels`; :class:`~.vector.MedurisVectorEnv`
is the gymnasium vector env over it).

>>> from meduris_env.envs.batch import MedurisBatch
>>> batch = MedurisBatch(1024, num_players=3, seed=0)
>>> batch.reset()
>>> for _ in range(1000):
...     batch.step(batch.sample_actions())     # one action per game, for its mover

``batch.states`` is one ``(B, STATE_SIZE)`` int32 array: row ``i`` is game ``i``
(``batch.state(i)`` is an engine :class:`~meduris_env.engine.state.State` of it). ``step`` applies
one action per game for its current mover, resolves chance inside the kernel from each game's own
counter-based stream (:mod:`meduris_env.engine.batch`: game ``i``'s dice depend on
``(seed, i, episode)`` only, not on B or the thread count), and writes, in parallel over games,
into preallocated buffers (read them, do not write them):

========================  ==================  ===============================================
buffer                    shape, dtype        meaning
========================  ==================  ===============================================
``obs``                   (B, 1470) float32   the observer's observation (the AEC env's vector)
``mask``                  (B, 241) int8       the observer's legal actions (0 if not to move)
``mover``                 (B,) int32          seat to move (``TERMINAL`` -4 once over)
``rewards``               (B, 4) float32      reward per seat for this step ("win"/"score"/"dense")
``terminated``            (B,) bool           the game has ended by the rules
``truncated``             (B,) bool           the game has reached ``max_turns``
``final_obs``             (B, 1470) float32   the observer's last observation of a finished game
``final_scores``          (B, 4) int32        VP at the end of a finished game
``learner``               (B,) int32          the learning seat (``-1``: every seat)
``rewarded``              (B,) int32          whose reward the last step reports
``episodes``              (B,) int64          episodes started per game (-1 before the first)
``history``               (B, H) int16        applied ids (``history=H``), replayable
``history_length``        (B,) int64          ids applied this episode
========================  ==================  ===============================================

The observer is the mover, or the game's learning seat (:meth:`set_learner`).
With ``auto_reset`` (the default) a finished game starts its next episode in the same step
(gymnasium's "same-step" convention): the flags are set for that step only, ``obs`` is the new
game's first observation and ``final_obs`` / ``final_scores`` keep the finished one. Without
it a finished game stays over (flags set, rewards 0, its actions ignored) until ``reset``.
Rewards follow :mod:`.rewards`: "win" and "score" pay at the end of a game, "dense" pays VP
changes each step plus the "score" margin at the end; a truncated game pays no terminal reward.

**Bounds.** The buffers are allocated at once, so the sizes are bounded before anything is
allocated (a one-line :class:`~meduris_rl.kit.values.ValueCheckError`, never a MemoryError
or a swapping machine): ``num_games`` <= :data:`MAX_GAMES` (1,000,000), ``history`` <=
:data:`MAX_HISTORY` (100,000 ids a game), and all buffers together <= :data:`MAX_BATCH_BYTES`
(8 GiB; :func:`batch_bytes` is the estimate, about 14 KB a game without history).

An illegal action raises :class:`~meduris_env.engine.state.IllegalActionError` naming the first
offending game and changes nothing. With ``history=H`` every applied id (actions and chance
outcomes, up to H per game) is kept in ``history[i, :history_length[i]]``; it replays through
``State.apply_action`` to the same position (:meth:`replay`).

**Subsets and opponents.** :meth:`play` applies actions to a chosen subset of games (with the
legal masks the deciders were shown), :meth:`finish` then pays rewards and writes observations,
:meth:`observe` shows chosen games from chosen seats, :meth:`sample_actions` and
:meth:`draw_seeds` draw from the games' own agent streams. :meth:`set_learner` fixes the
learning seat (or draws one per episode) and :meth:`set_random_opponents` lets the built-in random
opponents play every other seat inside the kernels. :meth:`snapshot` / :meth:`restore` undo
a step. This is everything :class:`~.vector.MedurisVectorEnv` and the training league use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from meduris_rl.kit.values import SEED_MAX, check_bool, check_int

from ..engine.batch import COUNT_COLUMNS, EPISODE, HISTORY_LENGTH, STREAM_COLUMNS
from ..engine.constants import MAX_PLAYERS, NUM_ACTIONS, TERMINAL
from ..engine.game import MedurisGame, game_from
from ..engine.layout import O_VP, STATE_SIZE
from ..engine.state import IllegalActionError, State
from . import batch_kernels as k
from .batch_kernels import ALL_SEATS, RANDOM_SEAT, Games
from .observation import OBS_SIZE, encode_board
from .positions import PositionPool
from .rewards import REWARD_MODES, check_reward_mode

__all__ = ["ALL_SEATS", "RANDOM_SEAT", "MAX_BATCH_BYTES", "MAX_GAMES", "MAX_HISTORY",
           "MedurisBatch", "batch_bytes"]

#: the most games one batch holds
MAX_GAMES = 1_000_000
#: the most applied ids a batch keeps per game (``history=``)
MAX_HISTORY = 100_000
#: the most memory a batch's buffers may take, in bytes (8 GiB)
MAX_BATCH_BYTES = 8 * 2**30


def batch_bytes(num_games: int, history: int = 0) -> int:
    """The bytes of a batch's per-game buffers (the module docstring's table)."""
    per_game = (STATE_SIZE * 4 + 2 * OBS_SIZE * 4 + NUM_ACTIONS + k.SEAT_COLUMNS * 4
                + MAX_PLAYERS * 4 + 2 + COUNT_COLUMNS * 8 + STREAM_COLUMNS * 8 + history * 2)
    return num_games * per_game


class MedurisBatch:
    """B games of one configuration in one array, stepped together (see the module docstring).

    Args:
        num_games: B, the number of games (at most :data:`MAX_GAMES`, and the buffers at most
            :data:`MAX_BATCH_BYTES`).
        num_players: the player count (a game option, as :class:`MedurisGame`'s).
        game: the :class:`~meduris_env.engine.game.MedurisGame` to play; or, instead, its
            options as keywords (``board``, ``exchange``, ``max_turns``, ...).
        seed: the batch seed (game ``i``'s randomness depends on ``(seed, i, episode)``).
        reward: ``"win"``, ``"score"`` or ``"dense"`` (:mod:`.rewards`).
        hidden_materials: opponents' materials as totals only in the observations (R2).
        auto_reset: start a finished game's next episode in the same step.
        history: keep up to this many applied ids per game (0: none; at most
            :data:`MAX_HISTORY`).
        num_threads: threads for the kernels (default: numba's, one per core).
    """

    def __init__(self, num_games: int, num_players: int | None = None, *,
                 game: MedurisGame | None = None, seed: int = 0, reward: str = "win",
                 hidden_materials: bool = False, auto_reset: bool = True, history: int = 0,
                 num_threads: int | None = None, **game_options):
        history = check_int("history", history, 0, MAX_HISTORY)
        per_game = batch_bytes(1, history)
        b = self.num_games = check_int(  # (first the type, then the bound and its reason)
            f"num_games (at {per_game:,} bytes a game, at most {MAX_BATCH_BYTES >> 30} GiB in all)",
            check_int("num_games", num_games, 1), 1, min(MAX_GAMES, MAX_BATCH_BYTES // per_game))
        if num_players is not None:
            game_options["num_players"] = num_players
        self.game = game_from(game, **game_options)
        self.reward_mode = check_reward_mode(reward)
        self.num_threads = None if num_threads is None else check_int(
            "num_threads", num_threads, 1, numba.config.NUMBA_NUM_THREADS)
        self._games_buffers = Games(
            states=np.zeros((b, STATE_SIZE), dtype=np.int32),
            obs=np.zeros((b, OBS_SIZE), dtype=np.float32),
            final_obs=np.zeros((b, OBS_SIZE), dtype=np.float32),
            mask=np.zeros((b, NUM_ACTIONS), dtype=np.int8),
            seats=np.zeros((b, k.SEAT_COLUMNS), dtype=np.int32),
            rewards=np.zeros((b, MAX_PLAYERS), dtype=np.float32),
            flags=np.zeros((b, 2), dtype=bool),
            counts=np.zeros((b, COUNT_COLUMNS), dtype=np.int64),
            streams=np.zeros((b, STREAM_COLUMNS), dtype=np.uint64),
            history=np.zeros((b, history), dtype=np.int16))
        g = self._games_buffers
        g.seats[:, k.MOVER] = TERMINAL
        g.seats[:, k.LEARNER] = ALL_SEATS
        g.counts[:, EPISODE] = -1
        self._fm, self._fa = self.game.field_materials, self.game.field_areas
        self._initial = self.game.new_initial_state().array.copy()
        self._settings = np.zeros(k.SETTINGS, dtype=np.int64)
        self._settings[k.SEED] = check_int("seed", seed, 0, SEED_MAX)
        self._settings[k.REWARD_MODE] = REWARD_MODES.index(self.reward_mode)
        self._settings[k.HIDDEN] = check_bool("hidden_materials", hidden_materials)
        self._settings[k.AUTO_RESET] = check_bool("auto_reset", auto_reset)
        self._settings[k.LEARNER_MODE] = ALL_SEATS
        self._all = np.arange(b, dtype=np.int64)
        board = np.zeros(OBS_SIZE, dtype=np.float32)  # the board's slices, the same every step
        encode_board(self._fm, self._fa, self.game.num_fields, board)
        g.obs[:] = board
        g.final_obs[:] = board
        self._started = False
        self._expose(g)

    def _expose(self, g: Games) -> None:
        """The public buffers (see the module docstring's table): the arrays, or views of
        their columns."""
        self.states, self.obs, self.mask, self.final_obs = g.states, g.obs, g.mask, g.final_obs
        self.rewards, self.history = g.rewards, g.history
        self.mover, self.learner = g.seats[:, k.MOVER], g.seats[:, k.LEARNER]
        self.rewarded = g.seats[:, k.REWARDED]
        self.final_scores = g.seats[:, k.FINAL_SCORES:k.FINAL_SCORES + MAX_PLAYERS]
        self.terminated, self.truncated = g.flags[:, k.TERMINATED], g.flags[:, k.TRUNCATED]
        self.episodes, self.history_length = g.counts[:, EPISODE], g.counts[:, HISTORY_LENGTH]

    # --- settings ---------------------------------------------------------------------------
    @property
    def seed(self) -> int:
        return int(self._settings[k.SEED])

    @property
    def hidden_materials(self) -> bool:
        return bool(self._settings[k.HIDDEN])

    @property
    def auto_reset(self) -> bool:
        return bool(self._settings[k.AUTO_RESET])

    @property
    def started(self) -> bool:
        """Whether :meth:`reset` has been called."""
        return self._started

    @property
    def learner_mode(self) -> int:
        """``ALL_SEATS`` (-1), ``RANDOM_SEAT`` (-2) or the learning seat."""
        return int(self._settings[k.LEARNER_MODE])

    def set_learner(self, mode: int) -> None:
        """The learning seat of each game from its next episode on: a seat, ``ALL_SEATS``
        (every seat learns; the observer is the mover) or ``RANDOM_SEAT`` (drawn per episode
        from the game's stream)."""
        n = self.game.num_players
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) or not (
                mode in (ALL_SEATS, RANDOM_SEAT) or 0 <= mode < n):
            raise ValueError(f"learner must be a seat 0..{n - 1}, ALL_SEATS or RANDOM_SEAT, "
                             f"got {mode!r}")
        self._settings[k.LEARNER_MODE] = int(mode)

    @property
    def random_opponents(self) -> bool:
        """Whether the built-in random opponents play the non-learning seats inside the
        kernels (only with a learning seat)."""
        return bool(self._settings[k.RANDOM_OPPONENTS])

    def set_random_opponents(self, on: bool) -> None:
        self._settings[k.RANDOM_OPPONENTS] = bool(on)

    # --- stepping ---------------------------------------------------------------------------
    def _kernel_args(self) -> tuple:
        return (*self._games_buffers, self._fm, self._fa, self._initial, self._settings)

    def reset(self, games: Sequence[int] | np.ndarray | None = None, seed: int | None = None
              ) -> None:
        """Start new episodes: of every game (with ``seed``: under a new batch seed, episodes
        counted from 0 again), or of the chosen ``games``."""
        if seed is not None:
            self._settings[k.SEED] = check_int("seed", seed, 0, SEED_MAX)
            self.episodes[:] = -1
        idx = self._all if games is None else self._games(games)
        with self.threads():
            k.start_games(*self._kernel_args(), idx)
        self._started = True
        self.terminated[idx] = False
        self.truncated[idx] = False
        self.rewards[idx] = 0.0
        self.update_observations(idx)

    def step(self, actions: np.ndarray) -> None:
        """One action per game (an int array of length B) for its mover; finished games (with
        ``auto_reset=False``) ignore theirs. Raises IllegalActionError naming the first game
        whose action is not legal, and then changes nothing."""
        self.play(None, self.check_actions(actions, self.num_games))

    def play(self, games: np.ndarray | None, actions: np.ndarray, masks: np.ndarray | None = None,
             finish: bool = True) -> None:
        """Apply ``actions`` (int64) to ``games`` (int64 indices; None: all) for their movers.
        ``masks`` are the legal masks the deciders were shown (by default the batch's own
        ``mask`` rows). With ``finish`` rewards, flags and observations follow (else call
        :meth:`finish`). Finished games (``auto_reset`` off) ignore theirs. A refused step
        (IllegalActionError naming the game) changes nothing."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        idx = self._all if games is None else games
        live = self.mover[idx] >= 0
        everyone = live.all()
        played, acts = (idx, actions) if everyone else (idx[live], actions[live])
        if masks is None:
            masks = self.mask if played is self._all else self.mask[played]
        elif not everyone:
            masks = masks[live]
        # the legal masks this batch wrote are the test (the kernels then apply unchecked);
        # checked before anything is written, so that a refused step changes nothing
        inside = (acts >= 0) & (acts < NUM_ACTIONS)
        legal = inside & (masks[np.arange(len(played)), np.where(inside, acts, 0)] != 0)
        if not legal.all():
            j = int(np.flatnonzero(~legal)[0])
            b = int(played[j])
            raise IllegalActionError(f"game {b}: {self._illegal_reason(b, acts[j])}; "
                                     "no game of the batch was changed")
        if not everyone:  # finished games (auto_reset off) keep their flags, earn nothing
            self.rewards[idx[~live]] = 0.0
        with self.threads():
            k.step_games(*self._kernel_args(), played, acts, True, finish)

    def finish(self, games: np.ndarray | None = None) -> None:
        """After :meth:`play` without ``finish``: rewards since each game's last finish, flags,
        final observations, the next episodes (``auto_reset``) and observations."""
        idx = self._all if games is None else games
        with self.threads():  # (no actions to play: the indices stand in for them)
            k.step_games(*self._kernel_args(), idx, idx, False, True)

    def rebase_rewards(self, games: np.ndarray) -> None:
        """Count the next dense rewards of ``games`` from their VP now (moves made so far in
        the episode are not the learner's to be rewarded for)."""
        n = self.game.num_players
        self._games_buffers.seats[games, k.LAST_VP:k.LAST_VP + n] = \
            self.states[games, O_VP:O_VP + n]

    def sample_actions(self, out: np.ndarray | None = None, games: np.ndarray | None = None,
                       masks: np.ndarray | None = None) -> np.ndarray:
        """The batched random sampler: a uniformly random legal action per game (from its mask
        row, or row j of ``masks`` for ``games[j]``, drawn from the game's own agent stream);
        -1 for finished games."""
        idx = self._all if games is None else games
        masks = self.mask if masks is None else masks
        out = np.empty(len(idx), dtype=np.int64) if out is None else out
        with self.threads():
            k.sample_actions(masks, idx, self._games_buffers.streams, out)
        return out

    def draw_seeds(self, games: np.ndarray) -> np.ndarray:
        """A 31-bit seed per game in ``games`` from its agent stream (int64)."""
        out = np.empty(len(games), dtype=np.int64)
        with self.threads():
            k.draw_seeds(games, self._games_buffers.streams, out)
        return out

    # --- observing --------------------------------------------------------------------------
    def observers(self, games: np.ndarray) -> np.ndarray:
        """Whose view each game's buffers show: its learner, else its mover (0 once over)."""
        learner, mover = self.learner[games], self.mover[games]
        return np.where(learner >= 0, learner, np.where(mover >= 0, mover, 0)).astype(np.int32)

    def observe(self, games: np.ndarray, observers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """New arrays: game ``games[j]`` seen by seat ``observers[j]`` (int32), its
        observation and legal mask (zeros unless that seat is to move)."""
        obs = np.empty((len(games), OBS_SIZE), dtype=np.float32)
        mask = np.empty((len(games), NUM_ACTIONS), dtype=np.int8)
        with self.threads():
            k.observe_games(self.states, self._fm, self._fa, self.hidden_materials, games,
                            observers, obs, mask, True)
        return obs, mask

    def update_observations(self, games: np.ndarray) -> None:
        """Rewrite ``obs`` / ``mask`` of ``games`` from their observers' view."""
        observers = self.observers(games)
        if games is self._all:  # in place: the buffers already hold the board's slices
            with self.threads():
                k.observe_games(self.states, self._fm, self._fa, self.hidden_materials, games,
                                observers, self.obs, self.mask, False)
        else:
            self.obs[games], self.mask[games] = self.observe(games, observers)

    # --- undo -------------------------------------------------------------------------------
    def snapshot(self) -> tuple[np.ndarray, ...]:
        """A copy of every per-game buffer, for :meth:`restore`."""
        return tuple(a.copy() for a in self._games_buffers)

    def restore(self, snapshot: tuple[np.ndarray, ...]) -> None:
        """Every game as it was at :meth:`snapshot`."""
        for a, saved in zip(self._games_buffers, snapshot, strict=True):
            a[...] = saved

    # --- reading ----------------------------------------------------------------------------
    def state(self, i: int) -> State:
        """Game ``i`` as an engine State (a copy; its move log holds nothing)."""
        b = self._game(i)
        return State(self.game, self.states[b].copy())

    def rows(self, games: Sequence[int] | np.ndarray) -> np.ndarray:
        """Copies of the chosen games' state rows (int32 ``(k, STATE_SIZE)``), e.g. for
        :meth:`PositionPool.load <meduris_env.envs.positions.PositionPool.load>`."""
        return self.states[self._indices(games)].copy()

    def position_pool(self, capacity: int, seed: int | None = None) -> PositionPool:
        """A :class:`~meduris_env.envs.positions.PositionPool` of this batch's game (its
        observation option too), seeded with ``seed`` (default: the batch seed); it never
        touches the batch's games or streams."""
        return PositionPool(self.game, capacity, self.seed if seed is None else seed,
                            hidden_materials=self.hidden_materials)

    def replay(self, i: int) -> State:
        """Game ``i`` rebuilt by the scalar engine from its history (``history`` must be on and
        large enough)."""
        b = self._game(i)
        n = int(self.history_length[b])
        if n > self.history.shape[1]:
            raise ValueError(f"game {b} has {n} applied ids but history keeps "
                             f"{self.history.shape[1]}; make the batch with a larger history")
        state = self.game.new_initial_state()
        for a in self.history[b, :n].tolist():
            state.apply_action(a)
        return state

    def threads(self) -> _Threads:
        """A context in which numba runs this batch's number of threads."""
        return _Threads(self.num_threads)

    @staticmethod
    def check_actions(actions, n: int) -> np.ndarray:
        """``actions`` as an int64 array of shape (n,), else IllegalActionError."""
        a = np.asarray(actions)
        if a.shape != (n,) or a.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be an int array of shape ({n},), got "
                                     f"{a.dtype} {a.shape}")
        return a.astype(np.int64, copy=False)

    # --- helpers ----------------------------------------------------------------------------
    def _game(self, i) -> int:
        return check_int("game index", i, 0, self.num_games - 1)

    def _games(self, games) -> np.ndarray:
        idx = np.asarray(games)
        if idx.ndim != 1 or idx.dtype.kind not in "iu" or (idx.size and (
                idx.min() < 0 or idx.max() >= self.num_games)):
            raise ValueError(f"games must be indices 0..{self.num_games - 1}, got {games!r}")
        return np.unique(idx).astype(np.int64)

    def _indices(self, games) -> np.ndarray:
        """``games`` as int64 indices, in the given order (repeats kept)."""
        idx = np.asarray(games)
        if idx.ndim != 1 or (idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0
                                           or idx.max() >= self.num_games)):
            raise ValueError(f"games must be indices 0..{self.num_games - 1}, got {games!r}")
        return idx.astype(np.int64)

    def _illegal_reason(self, b: int, action: int) -> str:
        state = self.state(b)
        try:
            state.apply_action(int(action))
        except IllegalActionError as err:
            return str(err)
        return f"action {action} is not legal"  # pragma: no cover - the kernel said so


class _Threads:
    """Run the kernels with a given number of threads, then restore numba's setting."""

    def __init__(self, n: int | None):
        self.n = n

    def __enter__(self):
        if self.n is not None:
            self.before = numba.get_num_threads()
            numba.set_num_threads(self.n)

    def __exit__(self, *exc):
        if self.n is not None:
            numba.set_num_threads(self.before)
