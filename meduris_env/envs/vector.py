"""Thousands of games at once: :class:`MedurisBatch` (the batch engine with observations, masks
and rewards) and :class:`MedurisVectorEnv` (a ``gymnasium.vector.VectorEnv``).

>>> from meduris_env.envs.vector import MedurisBatch
>>> batch = MedurisBatch(1024, num_players=3, seed=0)
>>> batch.reset()
>>> for _ in range(1000):
...     batch.step(batch.sample_actions())     # one action per game, for its mover

**The batch.** ``batch.states`` is one ``(B, STATE_SIZE)`` int32 array: row ``i`` is game ``i``
(``batch.state(i)`` is an engine :class:`~meduris_env.engine.state.State` of it). ``step`` applies
one action per game for its current mover, resolves chance inside the kernel from each game's own
counter-based stream (:mod:`meduris_env.engine.batch`: game ``i``'s dice depend on
``(seed, i, episode)`` only, not on B or the thread count), and writes, in parallel over games,
into preallocated buffers:

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
========================  ==================  ===============================================

The observer is the mover, or the game's learning seat (:attr:`learner`, ``-1``: every seat).
With ``auto_reset`` (the default) a finished game starts its next episode in the same step
(gymnasium's "same-step" convention): the flags are set for that step only, ``obs`` is the new
game's first observation and ``final_obs`` / ``final_scores`` keep the finished one. Without
it a finished game stays over (flags set, rewards 0, its actions ignored) until ``reset``.
Rewards follow :mod:`.rewards`: "win" and "score" pay at the end of a game, "dense" pays VP
changes each step plus the "score" margin at the end; a truncated game pays no terminal reward.

An illegal action raises :class:`~meduris_env.engine.state.IllegalActionError` naming the first
offending game and changes nothing. With ``history=H`` every applied id (actions and chance
outcomes, up to H per game) is kept in ``history[i, :history_length[i]]``; it replays through
``State.apply_action`` to the same position.

**The vector env.** :class:`MedurisVectorEnv` is one learning seat per game against opponents
that act in batch (see there), or self-play (``seat="all"``), for gymnasium-style trainers;
:mod:`meduris_env.envs.sb3` adapts it to stable-baselines3.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from numba import njit, prange

from ..engine.batch import (
    AGENT_DOMAIN,
    CHUNK,
    act_row,
    draw,
    random_action,
    reset_row,
    sample_actions,
    scratch,
)
from ..engine.constants import END_TRUNCATED, MAX_PLAYERS, NUM_ACTIONS, TERMINAL
from ..engine.game import DEFAULT_MAX_TURNS, MedurisGame
from ..engine.kernel import below, current_player, legal_mask
from ..engine.layout import O_END, O_NF, O_NP, O_VP, STATE_SIZE
from ..engine.state import IllegalActionError, State
from .observation import OBS_SIZE, encode_board, encode_position, observation_high
from .rewards import DENSE, REWARD_MODES, SCORE_SCALE, check_reward_mode, terminal_reward_kernel

ALL_SEATS = -1  # learner value: every seat learns (self-play); the observer is the mover
RANDOM_SEAT = -2  # learner mode: each episode's learning seat drawn from the game's stream


class Games(NamedTuple):
    """The per-game buffers of a batch (numba takes it as a tuple of arrays)."""

    states: np.ndarray  # (B, STATE_SIZE) int32
    obs: np.ndarray  # (B, OBS_SIZE) float32
    mask: np.ndarray  # (B, NUM_ACTIONS) int8
    mover: np.ndarray  # (B,) int32
    rewards: np.ndarray  # (B, MAX_PLAYERS) float32
    terminated: np.ndarray  # (B,) bool
    truncated: np.ndarray  # (B,) bool
    final_obs: np.ndarray  # (B, OBS_SIZE) float32
    final_scores: np.ndarray  # (B, MAX_PLAYERS) int32
    learner: np.ndarray  # (B,) int32, ALL_SEATS or the learning seat
    episodes: np.ndarray  # (B,) int64
    history: np.ndarray  # (B, H) int16
    history_length: np.ndarray  # (B,) int64
    keys: np.ndarray  # (B,) uint64, the random streams' keys
    chance_ctr: np.ndarray  # (B,) uint64
    agent_ctr: np.ndarray  # (B,) uint64
    last_vp: np.ndarray  # (B, MAX_PLAYERS) int32, VP when rewards were last paid
    last_actor: np.ndarray  # (B,) int32, the seat that chose the last action
    rewarded: np.ndarray  # (B,) int32, whose reward a step reports: the finished episode's
    # learner (not the next episode's, drawn anew at the reset), or the seat that acted


class Config(NamedTuple):
    """What every game of a batch shares."""

    fm: np.ndarray  # the board's field materials
    fa: np.ndarray  # the board's rune areas
    initial: np.ndarray  # the initial state
    seed: int
    reward_mode: int  # index into REWARD_MODES
    hidden: bool  # hidden materials
    auto_reset: bool
    learner_mode: int  # ALL_SEATS, RANDOM_SEAT or a seat
    random_opponents: bool  # the built-in random opponents play inside the kernels


# The kernels take the fields of Games then of Config as flat arguments (``*games, *config``):
# numba passes a tuple by value into every call, which costs ~30% of a step here, and (0.68) it
# loses writes made directly to a tuple's array inside a prange body.
@njit(cache=True)
def _observe_row(st, fm, fa, hidden, observer, obs_row, mask_row):
    """``observer``'s observation and legal mask (zeros unless it is to move). The batch's own
    buffer rows hold the board's slices from the start: only the position is written."""
    encode_position(st, observer, hidden, obs_row)
    if current_player(st) == observer:
        legal_mask(st, fm, mask_row)
    else:
        mask_row[:] = 0


@njit(cache=True)
def _observer(st, learner, last_actor):
    """Whose view a game's buffers show: the learner, else the mover, else (game over) the seat
    that acted last."""
    if learner >= 0:
        return learner
    mover = current_player(st)
    return mover if mover >= 0 else last_actor


@njit(cache=True)
def _random_opponents(states, fm, fa, b, learner, mover, keys, chance_ctr, agent_ctr, hist,
                      hlen, ev, evc, cmask, mask):
    """The built-in random opponents play game ``b`` until its learner must decide or it ends."""
    while mover >= 0 and mover != learner:
        legal_mask(states[b], fm, mask)
        a = random_action(mask, keys, agent_ctr, b)
        mover = act_row(states, fm, fa, b, a, keys, chance_ctr, hist, hlen, ev, evc, cmask)
    return mover


@njit(cache=True)
def _start_row(states, mover, learner, episodes, hist, hlen, keys, chance_ctr, agent_ctr,
               last_vp, fm, fa, initial, seed, learner_mode, random_opponents, b, ev, evc,
               cmask, mask):
    """A new episode of game ``b``: the learner's seat for it, and the built-in random
    opponents' decisions up to the learner's first."""
    current = reset_row(states, initial, fm, fa, b, seed, episodes, keys, chance_ctr,
                        agent_ctr, hist, hlen, ev, evc, cmask)
    st = states[b]
    n = st[O_NP]
    if learner_mode == RANDOM_SEAT:
        learner[b] = below(draw(keys, agent_ctr, b, AGENT_DOMAIN), n)
    else:
        learner[b] = learner_mode
    if random_opponents and learner[b] >= 0:
        current = _random_opponents(states, fm, fa, b, learner[b], current, keys, chance_ctr,
                                    agent_ctr, hist, hlen, ev, evc, cmask, mask)
    mover[b] = current
    for s in range(MAX_PLAYERS):
        last_vp[b, s] = st[O_VP + s] if s < n else 0


@njit(cache=True)
def _finish_row(states, obs, masks, mover, rewards, terminated, truncated, final_obs,
                final_scores, learner, episodes, hist, hlen, keys, chance_ctr, agent_ctr,
                last_vp, last_actor, rewarded, fm, fa, initial, seed, reward_mode, hidden,
                auto_reset, learner_mode, random_opponents, b, ev, evc, cmask, mask, out):
    """After a step of game ``b``: rewards per seat since its last step, the end-of-game flags,
    the finished game's last observation and scores, its next episode (``auto_reset``), and the
    observer's observation and mask."""
    st = states[b]
    n = st[O_NP]
    rewarded[b] = learner[b] if learner[b] >= 0 else max(last_actor[b], 0)
    for s in range(MAX_PLAYERS):
        rewards[b, s] = 0.0
    if reward_mode == DENSE:
        for s in range(n):
            rewards[b, s] = (st[O_VP + s] - last_vp[b, s]) / SCORE_SCALE
    for s in range(n):
        last_vp[b, s] = st[O_VP + s]
    over = mover[b] == TERMINAL
    cut = over and st[O_END] == END_TRUNCATED
    terminated[b] = over and not cut
    truncated[b] = cut
    if over and not cut:
        terminal_reward_kernel(st, reward_mode, out)
        for s in range(n):
            rewards[b, s] += out[s]
    if over:
        _observe_row(st, fm, fa, hidden, _observer(st, learner[b], last_actor[b]),
                     final_obs[b], mask)
        for s in range(MAX_PLAYERS):
            final_scores[b, s] = st[O_VP + s] if s < n else 0
        if auto_reset:
            _start_row(states, mover, learner, episodes, hist, hlen, keys, chance_ctr,
                       agent_ctr, last_vp, fm, fa, initial, seed, learner_mode,
                       random_opponents, b, ev, evc, cmask, mask)
    _observe_row(st, fm, fa, hidden, _observer(st, learner[b], last_actor[b]), obs[b],
                 masks[b])


@njit(cache=True)
def _scratch():
    ev, evc, cmask, mask = scratch()
    return ev, evc, cmask, mask, np.zeros(MAX_PLAYERS)


@njit(cache=True, parallel=True)
def start_games(states, obs, masks, mover, rewards, terminated, truncated, final_obs,
                final_scores, learner, episodes, hist, hlen, keys, chance_ctr, agent_ctr,
                last_vp, last_actor, rewarded, fm, fa, initial, seed, reward_mode, hidden,
                auto_reset, learner_mode, random_opponents, games):
    """New episodes of the games in ``games`` (their observations are written separately)."""
    n = games.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, mask, _ = _scratch()
        for j in range(k * CHUNK, min(n, (k + 1) * CHUNK)):
            _start_row(states, mover, learner, episodes, hist, hlen, keys, chance_ctr,
                       agent_ctr, last_vp, fm, fa, initial, seed, learner_mode,
                       random_opponents, games[j], ev, evc, cmask, mask)


@njit(cache=True)
def _play_row(states, mover, learner, hist, hlen, keys, chance_ctr, agent_ctr, last_actor, fm,
              fa, random_opponents, b, action, ev, evc, cmask, mask):
    """Apply ``action`` (checked legal before) to game ``b`` for its mover; with a learner and
    the built-in random opponents, then their decisions up to the learner's next."""
    last_actor[b] = mover[b]
    current = act_row(states, fm, fa, b, action, keys, chance_ctr, hist, hlen, ev, evc, cmask)
    if random_opponents and learner[b] >= 0:
        current = _random_opponents(states, fm, fa, b, learner[b], current, keys, chance_ctr,
                                    agent_ctr, hist, hlen, ev, evc, cmask, mask)
    mover[b] = current


@njit(cache=True, parallel=True)
def play_games(states, obs, masks, mover, rewards, terminated, truncated, final_obs,
               final_scores, learner, episodes, hist, hlen, keys, chance_ctr, agent_ctr,
               last_vp, last_actor, rewarded, fm, fa, initial, seed, reward_mode, hidden,
               auto_reset, learner_mode, random_opponents, games, actions, finish):
    """:func:`_play_row` for game ``games[j]`` with ``actions[j]``, for every j; with ``finish``
    each game's :func:`_finish_row` follows at once (its buffers are still in cache)."""
    n = games.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, mask, out = _scratch()
        for j in range(k * CHUNK, min(n, (k + 1) * CHUNK)):
            b = games[j]
            _play_row(states, mover, learner, hist, hlen, keys, chance_ctr, agent_ctr,
                      last_actor, fm, fa, random_opponents, b, actions[j], ev, evc, cmask, mask)
            if finish:
                _finish_row(states, obs, masks, mover, rewards, terminated, truncated,
                            final_obs, final_scores, learner, episodes, hist, hlen, keys,
                            chance_ctr, agent_ctr, last_vp, last_actor, rewarded, fm, fa,
                            initial, seed, reward_mode, hidden, auto_reset, learner_mode,
                            random_opponents, b,
                            ev, evc, cmask, mask, out)


@njit(cache=True, parallel=True)
def finish_games(states, obs, masks, mover, rewards, terminated, truncated, final_obs,
                 final_scores, learner, episodes, hist, hlen, keys, chance_ctr, agent_ctr,
                 last_vp, last_actor, rewarded, fm, fa, initial, seed, reward_mode, hidden,
                 auto_reset, learner_mode, random_opponents, games):
    """:func:`_finish_row` for every game in ``games``."""
    n = games.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, mask, out = _scratch()
        for j in range(k * CHUNK, min(n, (k + 1) * CHUNK)):
            _finish_row(states, obs, masks, mover, rewards, terminated, truncated, final_obs,
                        final_scores, learner, episodes, hist, hlen, keys, chance_ctr,
                        agent_ctr, last_vp, last_actor, rewarded, fm, fa, initial, seed,
                        reward_mode, hidden, auto_reset, learner_mode, random_opponents,
                        games[j], ev, evc,
                        cmask, mask, out)


@njit(cache=True, parallel=True)
def observe_games(states, fm, fa, hidden, games, observers, obs, masks, board):
    """Row ``j`` of ``obs`` / ``masks``: game ``games[j]`` seen by seat ``observers[j]`` (with
    ``board``, the board's slices too)."""
    for j in prange(games.shape[0]):
        st = states[games[j]]
        if board:
            encode_board(fm, fa, st[O_NF], obs[j])
        _observe_row(st, fm, fa, hidden, observers[j], obs[j], masks[j])


@njit(cache=True, parallel=True)
def draw_seeds(games, keys, agent_ctr, out):
    """A 31-bit seed per game from its agent stream (for opponents that act in batch)."""
    for j in prange(games.shape[0]):
        out[j] = draw(keys, agent_ctr, games[j], AGENT_DOMAIN) >> 1


# --- the batch ----------------------------------------------------------------------------------
def _count(name: str, value, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an int {span}, got {value!r}")
    return int(value)


class MedurisBatch:
    """B games of one configuration in one array, stepped together (see the module docstring).

    Args:
        num_games: B, the number of games.
        num_players, board, exchange, max_turns: as :class:`~meduris_env.engine.game.MedurisGame`.
        seed: the batch seed (game ``i``'s randomness depends on ``(seed, i, episode)``).
        reward: ``"win"``, ``"score"`` or ``"dense"`` (:mod:`.rewards`).
        hidden_materials: opponents' materials as totals only in the observations (R2).
        auto_reset: start a finished game's next episode in the same step.
        history: keep up to this many applied ids per game (0: none).
        num_threads: threads for the kernels (default: numba's, one per core).
    """

    def __init__(self, num_games: int, num_players: int = 2, board=None, exchange: str = "auto",
                 max_turns: int | None = DEFAULT_MAX_TURNS, seed: int = 0, reward: str = "win",
                 hidden_materials: bool = False, auto_reset: bool = True, history: int = 0,
                 num_threads: int | None = None):
        b = self.num_games = _count("num_games", num_games, 1)
        self.game = MedurisGame(num_players, board=board, exchange=exchange, max_turns=max_turns)
        self.reward_mode = check_reward_mode(reward)
        self.num_threads = None if num_threads is None else _count(
            "num_threads", num_threads, 1, numba.config.NUMBA_NUM_THREADS)
        self._g = Games(
            states=np.zeros((b, STATE_SIZE), dtype=np.int32),
            obs=np.zeros((b, OBS_SIZE), dtype=np.float32),
            mask=np.zeros((b, NUM_ACTIONS), dtype=np.int8),
            mover=np.full(b, TERMINAL, dtype=np.int32),
            rewards=np.zeros((b, MAX_PLAYERS), dtype=np.float32),
            terminated=np.zeros(b, dtype=bool), truncated=np.zeros(b, dtype=bool),
            final_obs=np.zeros((b, OBS_SIZE), dtype=np.float32),
            final_scores=np.zeros((b, MAX_PLAYERS), dtype=np.int32),
            learner=np.full(b, ALL_SEATS, dtype=np.int32),
            episodes=np.full(b, -1, dtype=np.int64),
            history=np.zeros((b, _count("history", history, 0)), dtype=np.int16),
            history_length=np.zeros(b, dtype=np.int64),
            keys=np.zeros(b, dtype=np.uint64), chance_ctr=np.zeros(b, dtype=np.uint64),
            agent_ctr=np.zeros(b, dtype=np.uint64),
            last_vp=np.zeros((b, MAX_PLAYERS), dtype=np.int32),
            last_actor=np.zeros(b, dtype=np.int32), rewarded=np.zeros(b, dtype=np.int32))
        for name in ("states", "obs", "mask", "mover", "rewards", "terminated", "truncated",
                     "final_obs", "final_scores", "learner", "episodes", "history",
                     "history_length"):
            setattr(self, name, getattr(self._g, name))  # the public buffers (see the table)
        self._c = Config(fm=self.game.field_materials, fa=self.game.field_areas,
                         initial=self.game.new_initial_state().array.copy(),
                         seed=_count("seed", seed, 0, 2**63 - 1),
                         reward_mode=REWARD_MODES.index(self.reward_mode),
                         hidden=bool(hidden_materials), auto_reset=bool(auto_reset),
                         learner_mode=ALL_SEATS, random_opponents=False)
        self._all = np.arange(b, dtype=np.int64)
        board = np.zeros(OBS_SIZE, dtype=np.float32)  # the board's slices, the same every step
        encode_board(self._c.fm, self._c.fa, self.game.num_fields, board)
        self.obs[:] = board
        self.final_obs[:] = board
        self._started = False

    @property
    def seed(self) -> int:
        return self._c.seed

    @property
    def hidden_materials(self) -> bool:
        return self._c.hidden

    @property
    def auto_reset(self) -> bool:
        return self._c.auto_reset

    # --- stepping ---------------------------------------------------------------------------
    def reset(self, games: Sequence[int] | np.ndarray | None = None, seed: int | None = None
              ) -> None:
        """Start new episodes: of every game (with ``seed``: under a new batch seed, episodes
        counted from 0 again), or of the chosen ``games``."""
        if seed is not None:
            self._c = self._c._replace(seed=_count("seed", seed, 0, 2**63 - 1))
            self.episodes[:] = -1
        idx = self._all if games is None else self._games(games)
        with self._threads():
            start_games(*self._g, *self._c, idx)
        self._started = True
        self.terminated[idx] = False
        self.truncated[idx] = False
        self.rewards[idx] = 0.0
        self._observe(idx)

    def step(self, actions: np.ndarray) -> None:
        """One action per game (an int array of length B) for its mover; finished games (with
        ``auto_reset=False``) ignore theirs. Raises IllegalActionError naming the first game
        whose action is not legal, and then changes nothing."""
        self._step_games(self._all, self._actions(actions, self.num_games))

    def _step_games(self, idx: np.ndarray, actions: np.ndarray, finish: bool = True,
                    masks: np.ndarray | None = None) -> None:
        """Apply ``actions`` to games ``idx`` (``masks``: their movers' legal masks, by default
        the batch's own ``mask`` rows), then with ``finish`` rewards, flags and observations."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
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
        idx, actions = played, acts
        with self._threads():
            play_games(*self._g, *self._c, idx, actions, finish)

    def _finish(self, idx: np.ndarray) -> None:
        with self._threads():
            finish_games(*self._g, *self._c, idx)

    def sample_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """The batched random sampler: a uniformly random legal action per game (from its mask
        row, drawn from the game's own agent stream); -1 for finished games."""
        out = np.empty(self.num_games, dtype=np.int64) if out is None else out
        with self._threads():
            sample_actions(self.mask, self._all, self._g.keys, self._g.agent_ctr, out)
        return out

    # --- reading ----------------------------------------------------------------------------
    def state(self, i: int) -> State:
        """Game ``i`` as an engine State (a copy; its move log holds nothing)."""
        b = self._game(i)
        return State(self.game, self.states[b].copy())

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

    # --- helpers ----------------------------------------------------------------------------
    def _observers(self, idx: np.ndarray) -> np.ndarray:
        learner, mover = self.learner[idx], self.mover[idx]
        return np.where(learner >= 0, learner, np.where(mover >= 0, mover, 0)).astype(np.int32)

    def _observe(self, idx: np.ndarray, observers: np.ndarray | None = None):
        """The observations and masks of games ``idx`` (by default from their observers'
        view, written into ``obs`` / ``mask``; with ``observers``, returned instead)."""
        view = observers is not None
        observers = self._observers(idx) if observers is None else observers
        if idx is self._all and not view:
            obs, mask = self.obs, self.mask
        else:
            obs = np.empty((len(idx), OBS_SIZE), dtype=np.float32)
            mask = np.empty((len(idx), NUM_ACTIONS), dtype=np.int8)
        with self._threads():
            observe_games(self.states, self._c.fm, self._c.fa, self._c.hidden, idx, observers,
                          obs, mask, obs is not self.obs)  # new arrays need the board slices
        if view:
            return obs, mask
        if obs is not self.obs:
            self.obs[idx], self.mask[idx] = obs, mask
        return None

    def _threads(self):
        return _Threads(self.num_threads)

    def _game(self, i) -> int:
        return _count("game index", i, 0, self.num_games - 1)

    def _games(self, games) -> np.ndarray:
        idx = np.asarray(games)
        if idx.ndim != 1 or idx.dtype.kind not in "iu" or (idx.size and (
                idx.min() < 0 or idx.max() >= self.num_games)):
            raise ValueError(f"games must be indices 0..{self.num_games - 1}, got {games!r}")
        return np.unique(idx).astype(np.int64)

    @staticmethod
    def _actions(actions, n: int) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (n,) or a.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be an int array of shape ({n},), got "
                                     f"{a.dtype} {a.shape}")
        return a.astype(np.int64, copy=False)

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


# --- opponents that act in batch ----------------------------------------------------------------
class Decisions(NamedTuple):
    """What an opponent acting in batch is shown: one row per game where it must decide."""

    obs: np.ndarray  # (k, OBS_SIZE) float32, each from the deciding seat's view
    mask: np.ndarray  # (k, NUM_ACTIONS) int8, the legal actions
    states: np.ndarray  # (k, STATE_SIZE) int32 copies of the games' states
    seeds: np.ndarray  # (k,) int64, one per decision from each game's own stream
    game: MedurisGame


BatchOpponent = Any  # "random", f(obs, mask) -> actions, or an object with act_batch(Decisions)


def _check_batch_opponent(spec: BatchOpponent) -> BatchOpponent:
    if isinstance(spec, str):
        if spec == "random":
            return spec
        raise ValueError(f"opponent {spec!r}: a vector environment takes 'random' (built in), a "
                         f"callable f(obs, mask) -> actions or an object with act_batch("
                         f"decisions), not names; e.g. agents.batch.make_batch_opponent({spec!r})")
    if hasattr(spec, "act_batch") or callable(spec):
        return spec
    raise TypeError(f"a batch opponent is 'random', a callable f(obs, mask) -> actions or an "
                    f"object with act_batch(decisions); got {spec!r}")


class MedurisVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, one learning seat each, the other seats played by opponents acting
    in batch; or self-play (``seat="all"``): every seat is the learner and ``info["seat"]`` says
    whose decision each observation asks for.

    Opponents (one shared by all other seats, a list: the seats clockwise from the learner,
    or a pool drawn from per game and episode: :meth:`set_opponents`): ``"random"`` (built in,
    inside the kernel: the fastest), a callable ``f(obs, mask) -> actions`` (e.g. a frozen
    policy network over a batch of observations), or
    an object with ``act_batch(decisions)`` taking :class:`Decisions` (e.g. the batched greedy
    agent, ``agents.batch.BatchGreedy``). The env advances each game through the opponents'
    decisions until its learner must decide (in rounds: each round asks every opponent once
    for all games where it is to move).

    Spaces: ``single_observation_space`` is the AEC env's vector, ``single_action_space``
    ``Discrete(241)``; ``action_masks()`` is the (B, 241) mask (also ``info["action_mask"]``).
    Rewards are the learner's (self-play: the seat that was asked, so a trainer gets every
    seat's reward in ``info["rewards"]``, shape (B, num_players)). Autoreset: same-step
    (``info["final_obs"]`` / ``info["final_info"]["scores"]`` for finished games).
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, num_players: int = 2,
                 opponents: BatchOpponent | Sequence[BatchOpponent] = "random",
                 seat: int | str = "random", board=None, exchange: str = "auto",
                 reward: str = "win", max_turns: int | None = DEFAULT_MAX_TURNS,
                 hidden_materials: bool = False, seed: int = 0,
                 num_threads: int | None = None):
        self.batch = MedurisBatch(num_envs, num_players, board=board, exchange=exchange,
                                  max_turns=max_turns, seed=seed, reward=reward,
                                  hidden_materials=hidden_materials, num_threads=num_threads)
        n = self.batch.game.num_players
        if seat == "all":
            mode = ALL_SEATS
        elif seat == "random":
            mode = RANDOM_SEAT
        elif isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < n:
            mode = int(seat)
        else:
            raise ValueError(f"seat must be 0..{n - 1}, 'random' or 'all', got {seat!r}")
        self.self_play = mode == ALL_SEATS
        self.batch._c = self.batch._c._replace(learner_mode=mode)
        self.num_envs = self.batch.num_games
        # table[assignment[b, k]] plays the k-th seat clockwise from game b's learner
        self._assignment = np.zeros((self.num_envs, n - 1), dtype=np.int64)
        self._assigned_episode = np.full(self.num_envs, -2, dtype=np.int64)
        self._weights: np.ndarray | None = None
        self.set_opponents(opponents)
        self.single_observation_space = spaces.Box(
            0.0, observation_high(self.batch.game.max_turns), dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space,
                                                               self.num_envs)
        self._seed_next = seed

    def set_opponents(self, opponents: BatchOpponent | Sequence[BatchOpponent],
                      weights: Sequence[float] | None = None) -> None:
        """The opponents, from each game's next episode on. Without ``weights``: one opponent
        for every other seat, or a list of one per seat clockwise from the learner. With
        ``weights`` (one per opponent in the list): a **pool**, from which each game draws an
        opponent for each other seat at the start of every episode, from its own stream (a
        league of frozen snapshots, greedy and random, for instance)."""
        n = self.batch.game.num_players
        table = list(opponents) if isinstance(opponents, (list, tuple)) else None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            if table is None or len(w) != len(table) or not len(w) or (w < 0).any() or \
                    not w.sum() > 0:
                raise ValueError("a pool needs a list of opponents and as many non-negative "
                                 "weights, not all 0")
            self._weights = np.cumsum(w / w.sum())
        else:
            if table is None:
                table = [opponents] * (n - 1)
            elif len(table) != n - 1:
                raise ValueError(f"{n} players need {n - 1} opponents, got {len(table)}")
            self._weights = None
        self._table = [_check_batch_opponent(o) for o in table]
        self.opponents = self._table  # (the seat list, or the pool)
        random_opponents = not self.self_play and all(o == "random" for o in self._table)
        self.batch._c = self.batch._c._replace(random_opponents=random_opponents)
        self._assigned_episode[:] = -2  # every game draws (or takes its seats) anew

    # --- gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seed_next = seed
        if seed is not None or not self.batch._started:
            self.batch.reset(seed=self._seed_next)
            if seed is not None:
                self._seed_action_space(seed)
        else:
            self.batch.reset()
        self._open_episodes()
        return self.batch.obs.copy(), self._info()

    def step(self, actions):
        batch = self.batch
        acts = batch._actions(actions, self.num_envs)
        if self._opponents_in_python:
            # the learners' actions are applied before the opponents answer: keep a copy, so
            # that an opponent's illegal answer (or error) leaves every game as it was
            before = self._save()
            try:
                batch._step_games(batch._all, acts, finish=False)
                self._play_opponents()
                batch._finish(batch._all)
                self._open_episodes()  # games that restarted with an opponent to move
            except BaseException:
                self._restore(before)
                raise
        else:  # self-play or built-in random opponents: one fused kernel
            batch._step_games(batch._all, acts)
        seat = self._reward_seats()
        rewards = batch.rewards[np.arange(self.num_envs), seat].astype(np.float32)
        info = self._info()
        done = batch.terminated | batch.truncated
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(done):
                final_obs[i] = batch.final_obs[i].copy()
            n = batch.game.num_players
            info["final_obs"], info["_final_obs"] = final_obs, done.copy()
            info["final_info"] = {"scores": batch.final_scores[:, :n].copy(),
                                  "_scores": done.copy(),
                                  "seat": seat.astype(np.int64), "_seat": done.copy()}
            info["_final_info"] = done.copy()
        return (batch.obs.copy(), rewards, batch.terminated.copy(), batch.truncated.copy(),
                info)

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (num_envs, 241) bool (for MaskablePPO)."""
        return self.batch.mask.astype(bool)

    def close_extras(self, **kwargs) -> None:
        pass

    # --- internals ----------------------------------------------------------------------------
    def _save(self) -> tuple:
        """A copy of everything a step may change (the batch's buffers, the opponents'
        assignment), for :meth:`_restore`."""
        return (tuple(a.copy() for a in self.batch._g), self._assignment.copy(),
                self._assigned_episode.copy())

    def _restore(self, saved: tuple) -> None:
        buffers, assignment, assigned = saved
        for a, b in zip(self.batch._g, buffers, strict=True):
            a[...] = b
        self._assignment[...] = assignment
        self._assigned_episode[...] = assigned

    def _reward_seats(self) -> np.ndarray:
        """Whose reward each game's step reports (set before a finished game restarts)."""
        return self.batch._g.rewarded

    def _info(self) -> dict:
        batch = self.batch
        seat = batch.learner if not self.self_play else np.where(batch.mover >= 0, batch.mover,
                                                                 0)
        n = batch.game.num_players
        return {"action_mask": batch.mask.copy(), "seat": seat.astype(np.int64),
                "rewards": batch.rewards[:, :n].copy()}

    def _seed_action_space(self, seed: int) -> None:
        from ..engine.seeding import STREAM_ACTION_SPACE, derive_seed
        self.action_space.seed(derive_seed(seed, STREAM_ACTION_SPACE))
        self.single_action_space.seed(derive_seed(seed, STREAM_ACTION_SPACE, 1))

    def _open_episodes(self) -> None:
        """New episodes where an opponent moves first: its decisions (and the others') up to
        the learner's first, which are not the learner's to be rewarded for (as in the
        single-agent env); then the learner's observation."""
        batch = self.batch
        idx = np.flatnonzero((batch.mover >= 0) & (batch.mover != batch.learner))
        if not self._opponents_in_python or not len(idx):
            return
        self._play_opponents()
        n = batch.game.num_players
        batch._g.last_vp[idx, :n] = batch.states[idx, O_VP:O_VP + n]
        batch._observe(idx.astype(np.int64))

    def _play_opponents(self) -> bool:
        """Rounds of batched opponent decisions until every game's learner must decide or the
        game is over (the built-in random opponents alone play inside the kernels instead).
        Returns whether any opponent decided."""
        batch = self.batch
        if not self._opponents_in_python:
            return False
        n = batch.game.num_players
        self._assign()
        rows = np.arange(self.num_envs)
        played = False
        while True:
            waiting = (batch.mover >= 0) & (batch.mover != batch.learner)
            if not waiting.any():
                return played
            played = True
            k = (batch.mover - batch.learner) % n - 1  # the k-th seat clockwise from learner
            entry = self._assignment[rows, np.clip(k, 0, n - 2)]
            for opponent in _distinct(self._table):
                ids = [i for i, o in enumerate(self._table) if o is opponent]
                idx = np.flatnonzero(waiting & np.isin(entry, ids)).astype(np.int64)
                if len(idx):
                    actions, masks = self._ask(opponent, idx)
                    try:
                        batch._step_games(idx, actions, finish=False, masks=masks)
                    except IllegalActionError as err:
                        raise IllegalActionError(f"opponent {opponent!r}: {err}") from None

    def _assign(self) -> None:
        """Games in a new episode take their opponents: the seat list, or draws from the pool
        (by weight, from each game's agent stream)."""
        batch = self.batch
        fresh = np.flatnonzero(self._assigned_episode != batch.episodes)
        if not len(fresh):
            return
        n = batch.game.num_players
        if self._weights is None:
            self._assignment[fresh] = np.arange(n - 1)
        else:
            draws = np.empty(len(fresh), dtype=np.int64)
            for k in range(n - 1):
                draw_seeds(fresh.astype(np.int64), batch._g.keys, batch._g.agent_ctr, draws)
                u = draws / float(2**31)
                self._assignment[fresh, k] = np.minimum(
                    np.searchsorted(self._weights, u, side="right"), len(self._table) - 1)
        self._assigned_episode[fresh] = batch.episodes[fresh]

    def opponent_of(self, game: int, seat: int):
        """The opponent playing ``seat`` of game ``game`` in its current episode (None: the
        learner's own seat, or every seat in self-play)."""
        batch = self.batch
        learner = int(batch.learner[game])
        if self.self_play or seat == learner:
            return None
        self._assign()
        k = (seat - learner) % batch.game.num_players - 1
        return self._table[int(self._assignment[game, k])]

    @property
    def _opponents_in_python(self) -> bool:
        return not self.self_play and not self.batch._c.random_opponents

    def _ask(self, opponent, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The opponent's actions for games ``idx`` and the legal masks it was shown."""
        batch = self.batch
        k = len(idx)
        obs, mask = batch._observe(idx, batch.mover[idx].astype(np.int32))
        with batch._threads():
            if isinstance(opponent, str):  # "random", built in
                out = np.empty(k, dtype=np.int64)
                sample_actions(mask, idx, batch._g.keys, batch._g.agent_ctr, out)
                return out, mask
            if hasattr(opponent, "act_batch"):
                seeds = np.empty(k, dtype=np.int64)
                draw_seeds(idx, batch._g.keys, batch._g.agent_ctr, seeds)
                actions = opponent.act_batch(Decisions(obs, mask, batch.states[idx], seeds,
                                                       batch.game))
            else:
                actions = opponent(obs, mask)
        actions = np.asarray(actions)
        if actions.shape != (k,):
            raise ValueError(f"opponent {opponent!r} returned actions of shape {actions.shape} "
                             f"for {k} decisions")
        try:
            return batch._actions(actions, k), mask
        except IllegalActionError as err:
            raise IllegalActionError(f"opponent {opponent!r}: {err}") from None


def _distinct(items: list) -> list:
    out: list = []
    for x in items:
        if not any(x is y for y in out):
            out.append(x)
    return out

