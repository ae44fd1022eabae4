"""The league trainer of a game without a batch engine (``meduris train --game G``): one learner
seat per game against a league, the policy network's features as observations, on a vector of
the game's single-agent env (sb3's ``DummyVecEnv`` steps ``envs`` games in turn). A game uses it
through one :class:`LeagueGame` (its single-agent env, its features and how a network plays on
them) and its row's parts ``train_env``, ``win_rate``, ``train_check``
(:mod:`meduris_rl.train.druids.league`, :mod:`meduris_rl.train.stone_age.league`). Meduris
trains on its batch engine instead (:mod:`meduris_rl.train.meduris.league`).

* **Observations**: the game's features of the learner's seat (the observation scaled, plus the
  greedy heuristic's judgement of each action for ``obs+greedy``), so the learner, like every
  agent, sees only what its seat knows.
* **The league** (as Meduris's): every opponent seat draws, at the start of every episode,
  ``random``, the game's ``greedy`` or one of the last ``max_snapshots`` frozen snapshots of the
  learner (policy files saved during the run, playing their most probable action), with the
  configuration's weights (greedy stands in for the snapshots until the first exists).
* **Reward**: the engine's ``returns()`` for the learner at the end (winners share +1), plus
  with ``shaping`` > 0 the potential-based term ``gamma * phi(s') - phi(s)``, ``phi = shaping *
  tanh(margin / margin_scale)``, the margin being the learner's score minus the best other
  seat's (public in every game), 0 once the game is over.
* **The game's options** (``options``, e.g. ``--option circles=4``): every game of the run,
  the learner's and the evaluation's, is made by the game's row with them
  (:meth:`~meduris_rl.kit.games.GameSpec.make`; the game's defaults for the rest).
* **Seeds**: game ``k`` of a run seeded ``s`` is ``derive_seed(s, STREAM_ENV, k)``; its
  opponent seats' draws and the greedy agents' tie-breaks follow from it, so a run is the same
  run for the same seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import DummyVecEnv

from meduris_rl.agents.base import Agent
from meduris_rl.agents.registry import make_agent
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.seeding import STREAM_ENV, STREAM_EVAL, derive_seed
from meduris_rl.kit.values import excerpt
from meduris_rl.train.config import ConfigError, TrainConfig


@dataclass(frozen=True)
class LeagueGame:
    """What the league trainer needs of one game."""

    name: str  # the game's row name (its games and agents are made by its row)
    single_agent_env: Callable  # (opponents=, seat="random", game=): its gymnasium env
    feature_sets: dict  # feature set name -> inputs
    features: Callable  # features(state, seat, feature_set, observation=None) -> float32 array
    feature_set_of_size: Callable  # inputs -> feature set name (ValueError when none)
    policy_action: Callable  # (forward, feature_set, state, observation=None) -> action
    margin_scale: float  # points of margin per unit of tanh in the shaping


class League:
    """The opponents and their weights, shared by every game of the vector."""

    def __init__(self, game: LeagueGame, weights: dict, max_snapshots: int):
        self.game = game
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.snapshots: list[tuple[str, object, str]] = []  # (path, forward, feature set)

    def add_snapshot(self, path: str | Path) -> None:
        from meduris_rl.agents.policies.network import NumpyForward, load_policy_file
        policy, arch = load_policy_file(path)
        self.snapshots.append((str(path), NumpyForward(policy),
                               self.game.feature_set_of_size(arch["inputs"])))
        self.snapshots = self.snapshots[-self.max_snapshots:]

    def draw(self, rng: random.Random):
        """An opponent for one seat and episode: "random", "greedy" or a snapshot."""
        w = self.weights
        table: list = ["random", "greedy"]
        weights = [w.get("random", 0.0), w.get("greedy", 0.0)]
        if self.snapshots:
            table += self.snapshots
            weights += [w.get("snapshots", 0.0) / len(self.snapshots)] * len(self.snapshots)
        else:
            weights[1] += w.get("snapshots", 0.0)
        return rng.choices(table, weights=weights)[0]


class LeagueSeat:
    """One opponent seat of one game: who plays it is drawn from the league every episode."""

    name = "league"

    def __init__(self, league: League, seed: int):
        self.league = league
        self.rng = random.Random(seed)
        self.greedy = make_agent("greedy", game=league.game.name)
        self.player = "greedy"

    def reset(self, seed: int | None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)
        self.greedy.reset(self.rng.randrange(2**62))
        self.player = self.league.draw(self.rng)

    def act(self, observation, state) -> int:
        if self.player == "random":
            legal = state.legal_actions()
            return legal[self.rng.randrange(len(legal))]
        if self.player == "greedy":
            return self.greedy.act(observation, state)
        _, forward, feature_set = self.player
        return self.league.game.policy_action(forward, feature_set, state,
                                              observation["observation"])


class LearnerEnv(gym.Env):
    """One game of the vector: the learner's features, the shaped reward, the action mask."""

    metadata = {"render_modes": []}

    def __init__(self, cfg: TrainConfig, league: League, index: int):
        game = league.game
        seed = derive_seed(cfg.seed, STREAM_ENV, index)
        seats = [LeagueSeat(league, derive_seed(seed, k + 1)) for k in range(cfg.players - 1)]
        self.inner = game.single_agent_env(
            opponents=seats, seat="random",
            game=game_spec(game.name).make(cfg.players, cfg.options))
        self.game = game
        self.first_seed = seed
        self.feature_set = cfg.features
        self.shaping, self.gamma = float(cfg.shaping), float(cfg.gamma)
        self.observation_space = spaces.Box(-1.0, 1.0, (game.feature_sets[cfg.features],),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self.inner.action_space.n)
        self.potential = 0.0

    def _features(self) -> np.ndarray:
        state = self.inner.state
        if state.is_terminal():  # nothing is legal any more: the greedy inputs are -1
            x = self.game.features(state, self.inner.seat, "obs")
            extra = self.game.feature_sets[self.feature_set] - len(x)
            return np.concatenate([x, np.full(extra, -1.0, dtype=np.float32)])
        return self.game.features(state, self.inner.seat, self.feature_set)

    def _phi(self) -> float:
        state = self.inner.state
        if not self.shaping or state.is_terminal():
            return 0.0
        scores = state.scores()
        me = self.inner.seat
        margin = scores[me] - max(s for k, s in enumerate(scores) if k != me)
        return self.shaping * math.tanh(margin / self.game.margin_scale)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is None and self.first_seed is not None:
            seed, self.first_seed = self.first_seed, None
        self.inner.reset(seed=seed, options=options)
        self.potential = self._phi()
        return self._features(), {}

    def step(self, action):
        _, reward, terminated, truncated, info = self.inner.step(int(action))
        phi = self._phi()
        reward = float(reward) + self.gamma * phi - self.potential
        self.potential = phi
        return self._features(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.inner.action_masks()


class LeagueTrainingEnv(DummyVecEnv):
    """``envs`` games of one game for sb3 with the league (module docstring)."""

    def __init__(self, game: LeagueGame, cfg: TrainConfig):
        self.league = League(game, cfg.opponents, cfg.max_snapshots)
        super().__init__([lambda k=k: LearnerEnv(cfg, self.league, k)
                          for k in range(cfg.envs)])

    def add_snapshot(self, path: str | Path) -> None:
        """A frozen copy of the learner joins the league (its games from their next episode)."""
        self.league.add_snapshot(path)

    def seed(self, seed: int | None = None):
        """The games' seeds come from the run's seed (module docstring), not sb3's."""
        return [None] * self.num_envs


class PolicyAgent(Agent):
    """A network playing its most probable legal action (for the evaluation)."""

    def __init__(self, game: LeagueGame, forward, feature_set: str):
        super().__init__("learner")
        self.game, self.forward, self.feature_set = game, forward, feature_set

    def act(self, observation, state) -> int:
        return self.game.policy_action(self.forward, self.feature_set, state)


def evaluate(game: LeagueGame, policy, players: int, games: int, seed: int,
             opponent: str = "greedy", options: dict | None = None) -> float:
    """Win rate of ``policy`` (its most probable action) against ``opponent`` (an agent name
    of the game) in every other seat: ``games`` games with the game's ``options``, the
    policy's seat rotated, shared wins counted as a share."""
    from meduris_rl.agents.arena.match import play_game
    from meduris_rl.agents.policies.network import NumpyForward

    learner = PolicyAgent(game, NumpyForward(policy),
                          game.feature_set_of_size(policy.observation_space.shape[0]))
    played = game_spec(game.name).make(players, options)
    base = derive_seed(seed, STREAM_EVAL)
    others = [make_agent(opponent, game=game.name) for _ in range(players - 1)]
    wins = 0.0
    for g in range(games):  # (play_game resets every agent with the game's seed)
        seat = g % players
        agents = others[:seat] + [learner] + others[seat:]
        result = play_game(played, agents, base + g)
        if seat in result.winners:
            wins += 1.0 / len(result.winners)
    return wins / games


def refuse_league_settings(cfg: TrainConfig, reward_fix: str) -> None:
    """What a league run cannot do, in one line (a game's ``train_check`` part calls it): its
    reward is the game's result (``win``), shaped by the score margin; the batch engine's
    ``score`` and ``dense`` rewards are not the league's. (A warm start and a value network
    are parts of a game's row: the configuration refuses them for a game without.)"""
    if cfg.reward != "win":
        raise ConfigError(f"reward: {excerpt(cfg.reward)} is not a league run's (the league "
                          f"trainer learns from the game's result); with game {cfg.game!r} "
                          f"set it to {reward_fix}")
