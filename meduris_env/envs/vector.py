"""Thousands of games as one gymnasium ``VectorEnv``: :class:`MedurisVectorEnv`, one learning
seat per game against opponents that act in batch, or self-play (``seat="all"``), for
gymnasium-style trainers (gymnasium's next-step autoreset by default, or same-step);
:mod:`meduris_env.envs.sb3` adapts it to stable-baselines3.

>>> from meduris_env.envs.vector import MedurisVectorEnv
>>> env = MedurisVectorEnv(256, num_players=2, opponents="random", seed=0)
>>> obs, info = env.reset()
>>> obs, rewards, terminated, truncated, info = env.step(env.batch.sample_actions())

It runs on :class:`~meduris_env.envs.batch.MedurisBatch` (``env.batch``: the games, their
buffers and streams) through the batch's public methods only; the opponent protocols are in
:mod:`.opponents`.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from meduris_rl.kit.envs.opponents import (
    BatchOpponentSpec,
    Decisions,
    OpponentError,
    check_batch_opponent,
    opponent_count,
)
from meduris_rl.kit.envs.spaces import LegalMultiDiscrete, NoLegalActionError
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.seeding import STREAM_ACTION_SPACE, derive_seed
from meduris_rl.kit.values import SEED_MAX, ValueCheckError, check_int, excerpt

from ..engine.constants import NUM_ACTIONS
from ..engine.game import MedurisGame
from ..engine.state import IllegalActionError
from .batch import ALL_SEATS, RANDOM_SEAT, MedurisBatch
from .observation import observation_high

__all__ = ["AutoresetMode", "AutoresetModeError", "Decisions", "MedurisBatch",
           "MedurisVectorEnv"]  # (the batch: its old home too)

AutoresetMode = gymnasium.vector.AutoresetMode
#: the autoreset modes MedurisVectorEnv offers
AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


class AutoresetModeError(InputError, ValueError):
    """An ``autoreset_mode`` that is not one the vector env offers."""


def check_autoreset_mode(value) -> AutoresetMode:
    """``value`` (an :class:`AutoresetMode`, or its name or value as a string, any case) as
    one of :data:`AUTORESET_MODES`, else :class:`AutoresetModeError` in one line."""
    mode = value if isinstance(value, AutoresetMode) else None
    if isinstance(value, str):
        key = value.strip().upper().replace("-", "_")
        mode = next((m for m in AutoresetMode
                     if key in (m.name, m.value.upper(), m.name.replace("_", ""))), None)
    if mode not in AUTORESET_MODES:
        raise AutoresetModeError(
            "autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP (or "
            f"'NEXT_STEP' / 'SAME_STEP'), got {excerpt(value)}")
    return mode


class MedurisVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, one learning seat each, the other seats played by opponents acting
    in batch; or self-play (``seat="all"``): every seat is the learner and ``info["seat"]`` says
    whose decision each observation asks for.

    Opponents (one shared by all other seats, a list: the seats clockwise from the learner,
    or a pool drawn from per game and episode: :meth:`set_opponents`): ``"random"`` (built in,
    inside the kernel: the fastest), a callable ``f(obs, mask) -> actions`` (e.g. a frozen
    policy network over a batch of observations), or
    an object with ``act_batch(decisions)`` taking :class:`Decisions` (e.g. the batched greedy
    agent, ``meduris_rl.agents.meduris.batch.BatchGreedy``). The env advances each game through the
    opponents' decisions until its learner must decide (in rounds: each round asks every opponent
    once for all games where it is to move).

    Spaces: ``single_observation_space`` is the AEC env's vector, ``single_action_space``
    ``Discrete(241)``; ``action_masks()`` is the (B, 241) mask (also ``info["action_mask"]``).
    ``action_space.sample()`` draws a legal action for every game (from a generator seeded by
    ``seed`` and by ``reset(seed=...)``: deterministic), or raises
    :class:`~.spaces.NoLegalActionError` (before the first ``reset``).
    Rewards are the learner's (self-play: the seat that was asked, so a trainer gets every
    seat's reward in ``info["rewards"]``, shape (B, num_players)).

    Autoreset (``autoreset_mode=``, an :class:`AutoresetMode` or its name; also
    ``metadata["autoreset_mode"]``, per instance):

    * ``NEXT_STEP`` (**the default**, as gymnasium's own vector envs, so that gymnasium's vector
      wrappers such as ``NormalizeObservation`` and CleanRL-style loops work as written): the
      step that ends a game returns its last observation, reward and flags (and
      ``info["scores"]``, masked by ``info["_scores"]``; ``info["seat"]`` the seat paid); the
      next step ignores that game's action and returns the next episode's first observation
      with reward 0 and both flags False. Meanwhile ``action_masks()`` (and
      ``info["action_mask"]``) allow every action of that game, since any is accepted.
    * ``SAME_STEP``: the step that ends a game already returns the next episode's first
      observation, the finished one in ``info["final_obs"]`` / ``info["final_info"]``
      (``scores``, ``seat``). This is what stable-baselines3 expects: the SB3 adapter, the
      training league and ``meduris_rl.train.meduris.evaluate`` pass it explicitly, so training is
      unchanged.

    Both modes play the same episodes: for the same seed and the same actions within each
    episode, every game's episode lengths and returns agree (the extra next-step call plays
    nothing).

    The game: ``game=`` a :class:`~meduris_env.engine.game.MedurisGame`, or its options as
    keywords (``num_players``, ``board``, ``exchange``, ``max_turns``, ...); ``reward``,
    ``hidden_materials``, ``seed`` and ``num_threads`` as :class:`MedurisBatch`'s.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, num_players: int | None = None,
                 opponents: BatchOpponentSpec | Sequence[BatchOpponentSpec] = "random",
                 seat: int | str = "random", *, game: MedurisGame | None = None,
                 reward: str = "win", hidden_materials: bool = False, seed: int = 0,
                 num_threads: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **game_options):
        self.autoreset_mode = check_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.batch = MedurisBatch(num_envs, num_players, game=game, seed=seed, reward=reward,
                                  hidden_materials=hidden_materials, num_threads=num_threads,
                                  **game_options)
        n = self.batch.game.num_players
        if seat == "all":
            mode = ALL_SEATS
        elif seat == "random":
            mode = RANDOM_SEAT
        elif isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < n:
            mode = int(seat)
        else:
            raise ValueCheckError(f"seat must be 0..{n - 1}, 'random' or 'all', got "
                                  f"{excerpt(seat)}")
        self.self_play = mode == ALL_SEATS
        self.batch.set_learner(mode)
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
        self.action_space = LegalMultiDiscrete(np.full(self.num_envs, NUM_ACTIONS),
                                               self._sample_masks)
        self._seed_next = seed
        self._seed_action_space(self.batch.seed)
        # NEXT_STEP: games whose last step ended an episode (their next action is ignored)
        self._pending = np.zeros(self.num_envs, dtype=bool)

    def set_opponents(self, opponents: BatchOpponentSpec | Sequence[BatchOpponentSpec],
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
                raise OpponentError("a pool needs a list of opponents and as many non-negative "
                                    "weights, not all 0")
            self._weights = np.cumsum(w / w.sum())
        else:
            if table is None:
                table = [opponents] * (n - 1)
            elif len(table) != n - 1:
                raise OpponentError(f"{n} players need {opponent_count(n - 1)}, got {len(table)}")
            self._weights = None
        self._table = [check_batch_opponent(o) for o in table]
        self.opponents = self._table  # (the seat list, or the pool)
        random_opponents = not self.self_play and all(o == "random" for o in self._table)
        self.batch.set_random_opponents(random_opponents)
        self._assigned_episode[:] = -2  # every game draws (or takes its seats) anew

    # --- gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = self._seed_next = check_int("seed", seed, 0, SEED_MAX)  # numpy ints too
        if seed is not None or not self.batch.started:
            self.batch.reset(seed=self._seed_next)
            if seed is not None:
                self._seed_action_space(seed)
        else:
            self.batch.reset()
        self._pending[:] = False
        self._open_episodes()
        return self.batch.obs.copy(), self._info()

    def step(self, actions):
        acts = self.batch.check_actions(actions, self.num_envs)
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            return self._next_step(acts)
        self._advance(None, acts)
        return self._same_step_result()

    def _advance(self, games: np.ndarray | None, acts: np.ndarray) -> None:
        """Play the learners' ``acts`` in ``games`` (None: all), then the opponents until every
        game's learner decides again (finished games restart: the batch's same-step reset)."""
        batch = self.batch
        if self._opponents_in_python:
            # the learners' actions are applied before the opponents answer: keep a copy, so
            # that an opponent's illegal answer (or error) leaves every game as it was
            before = self._save()
            try:
                batch.play(games, acts, finish=False)
                self._play_opponents()
                batch.finish(games)
                self._open_episodes()  # games that restarted with an opponent to move
            except BaseException:
                self._restore(before)
                raise
        else:  # self-play or built-in random opponents: one fused kernel
            batch.play(games, acts)

    def _next_step(self, acts: np.ndarray):
        """A NEXT_STEP step: games that ended last step only show their next episode."""
        batch = self.batch
        pending = self._pending
        if pending.any():
            live = np.flatnonzero(~pending).astype(np.int64)
            if len(live):
                self._advance(live, acts[live])
        else:
            self._advance(None, acts)
        seat = self._reward_seats().astype(np.int64)
        rewards = batch.rewards[np.arange(self.num_envs), seat].astype(np.float32)
        terminated = batch.terminated & ~pending  # (unplayed games keep last step's flags)
        truncated = batch.truncated & ~pending
        done = terminated | truncated
        rewards[pending] = 0.0
        obs = batch.obs.copy()
        info = self._info()
        info["rewards"][pending] = 0.0
        if done.any():
            obs[done] = batch.final_obs[done]
            info["seat"][done] = seat[done]
            info["scores"] = batch.final_scores[:, :batch.game.num_players].copy()
            info["_scores"] = done.copy()
        self._pending = done
        info["action_mask"][done] = 1
        return obs, rewards, terminated, truncated, info

    def _same_step_result(self):
        batch = self.batch
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
        """The learners' legal actions, (num_envs, 241) bool (for MaskablePPO); with NEXT_STEP,
        every action for a game whose episode just ended (its next action is ignored)."""
        masks = self.batch.mask.astype(bool)
        masks[self._pending] = True
        return masks

    def _sample_masks(self) -> np.ndarray:
        """What ``action_space.sample()`` draws from: :meth:`action_masks`."""
        if not self.batch.started:
            raise NoLegalActionError("call reset() before action_space.sample(): no game has "
                                     "started")
        return self.action_masks()

    def close_extras(self, **kwargs) -> None:
        pass

    # --- internals ----------------------------------------------------------------------------
    def _save(self) -> tuple:
        """A copy of everything a step may change (the batch's buffers, the opponents'
        assignment), for :meth:`_restore`."""
        return (self.batch.snapshot(), self._assignment.copy(),
                self._assigned_episode.copy())

    def _restore(self, saved: tuple) -> None:
        buffers, assignment, assigned = saved
        self.batch.restore(buffers)
        self._assignment[...] = assignment
        self._assigned_episode[...] = assigned

    def _reward_seats(self) -> np.ndarray:
        """Whose reward each game's step reports (set before a finished game restarts)."""
        return self.batch.rewarded

    def _info(self) -> dict:
        batch = self.batch
        seat = batch.learner if not self.self_play else np.where(batch.mover >= 0, batch.mover,
                                                                 0)
        n = batch.game.num_players
        return {"action_mask": batch.mask.copy(), "seat": seat.astype(np.int64),
                "rewards": batch.rewards[:, :n].copy()}

    def _seed_action_space(self, seed: int) -> None:
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
        idx = idx.astype(np.int64)
        batch.rebase_rewards(idx)
        batch.update_observations(idx)

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
                        batch.play(idx, actions, masks=masks, finish=False)
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
            for k in range(n - 1):
                u = batch.draw_seeds(fresh.astype(np.int64)) / float(2**31)
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
        return not self.self_play and not self.batch.random_opponents

    def _ask(self, opponent, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The opponent's actions for games ``idx`` and the legal masks it was shown."""
        batch = self.batch
        k = len(idx)
        obs, mask = batch.observe(idx, batch.mover[idx].astype(np.int32))
        if isinstance(opponent, str):  # "random", built in
            return batch.sample_actions(games=idx, masks=mask), mask
        with batch.threads():
            if hasattr(opponent, "act_batch"):
                seeds = batch.draw_seeds(idx)
                actions = opponent.act_batch(Decisions(obs, mask, batch.states[idx], seeds,
                                                       batch.game))
            else:
                actions = opponent(obs, mask)
        actions = np.asarray(actions)
        if actions.shape != (k,):
            raise ValueError(f"opponent {opponent!r} returned actions of shape {actions.shape} "
                             f"for {k} decisions")
        try:
            return batch.check_actions(actions, k), mask
        except IllegalActionError as err:
            raise IllegalActionError(f"opponent {opponent!r}: {err}") from None


def _distinct(items: list) -> list:
    out: list = []
    for x in items:
        if not any(x is y for y in out):
            out.append(x)
    return out

