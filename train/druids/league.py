"""The training environment of Druids (``meduris train --game druids``): one learner seat per
game against a league, the policy network's features as observations, on a vector of
:class:`druids_env.DruidsSingleAgentEnv` (Druids has no batch engine; sb3's ``DummyVecEnv``
steps ``envs`` games in turn).

* **Observations**: :func:`meduris_rl.agents.druids.features.features` of the learner's seat (the
D14
  observation scaled, plus the greedy heuristic's judgement of each action for ``obs+greedy``),
  so the learner, like every Druids agent, sees only what its seat knows.
* **The league** (as Meduris's, :mod:`meduris_rl.train.meduris.league`): every opponent seat draws,
at the start
  of every episode, ``random``, ``greedy``
  (:class:`meduris_rl.agents.druids.greedy.DruidsGreedyAgent`) or one of the last ``max_snapshots``
  frozen snapshots of the learner (policy files saved during the run, playing their most probable
  action), with the configuration's weights (greedy stands in for the snapshots until the first
  exists).
* **Reward**: the engine's ``returns()`` for the learner at the end (D13: winners share +1),
  plus with ``shaping`` > 0 the potential-based term ``gamma * phi(s') - phi(s)``, ``phi =
  shaping * tanh(margin / SHAPING_SCALE)``, the margin being the learner's amulets minus the
  best other seat's (public: amulets are taken openly, D6), 0 once the game is over.
* **Seeds**: game ``k`` of a run seeded ``s`` is ``derive_seed(s, STREAM_ENV, k)``; its
  opponent seats' draws and the greedy agents' tie-breaks follow from it, so a run is the same
  run for the same seed.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import DummyVecEnv

from druids_env import DruidsSingleAgentEnv
from meduris_rl.agents.base import Agent
from meduris_rl.agents.druids.features import FEATURE_SETS, features
from meduris_rl.agents.druids.greedy import DruidsGreedyAgent
from meduris_rl.agents.druids.ppo import policy_action
from meduris_rl.kit.seeding import STREAM_ENV, STREAM_EVAL, derive_seed
from meduris_rl.kit.values import excerpt
from meduris_rl.train.config import ConfigError, TrainConfig

SHAPING_SCALE = 10.0  # amulets of margin per unit of tanh


class League:
    """The opponents and their weights, shared by every game of the vector."""

    def __init__(self, weights: dict, max_snapshots: int):
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.snapshots: list[tuple[str, object, str]] = []  # (path, forward, feature set)

    def add_snapshot(self, path: str | Path) -> None:
        from meduris_rl.agents.druids.features import feature_set_of_size
        from meduris_rl.agents.policies.network import NumpyForward, load_policy_file
        policy, arch = load_policy_file(path)
        self.snapshots.append((str(path), NumpyForward(policy),
                               feature_set_of_size(arch["inputs"])))
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
        self.greedy = DruidsGreedyAgent("greedy")
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
        return policy_action(forward, feature_set, state, observation["observation"])


class DruidsLearnerEnv(gym.Env):
    """One game of the vector: the learner's features, the shaped reward, the action mask."""

    metadata = {"render_modes": []}

    def __init__(self, cfg: TrainConfig, league: League, index: int):
        seed = derive_seed(cfg.seed, STREAM_ENV, index)
        seats = [LeagueSeat(league, derive_seed(seed, k + 1)) for k in range(cfg.players - 1)]
        self.inner = DruidsSingleAgentEnv(num_players=cfg.players, opponents=seats,
                                          seat="random")
        self.first_seed = seed
        self.feature_set = cfg.features
        self.shaping, self.gamma = float(cfg.shaping), float(cfg.gamma)
        self.observation_space = spaces.Box(-1.0, 1.0, (FEATURE_SETS[cfg.features],),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self.inner.action_space.n)
        self.potential = 0.0

    def _features(self) -> np.ndarray:
        state = self.inner.state
        if state.is_terminal():  # nothing is legal any more: the greedy inputs are -1
            x = features(state, self.inner.seat, "obs")
            extra = FEATURE_SETS[self.feature_set] - len(x)
            return np.concatenate([x, np.full(extra, -1.0, dtype=np.float32)])
        return features(state, self.inner.seat, self.feature_set)

    def _phi(self) -> float:
        state = self.inner.state
        if not self.shaping or state.is_terminal():
            return 0.0
        scores = state.scores()
        me = self.inner.seat
        margin = scores[me] - max(s for k, s in enumerate(scores) if k != me)
        return self.shaping * math.tanh(margin / SHAPING_SCALE)

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


class DruidsTrainingEnv(DummyVecEnv):
    """``envs`` games of Druids for sb3 with the league (module docstring)."""

    def __init__(self, cfg: TrainConfig):
        self.league = League(cfg.opponents, cfg.max_snapshots)
        super().__init__([lambda k=k: DruidsLearnerEnv(cfg, self.league, k)
                          for k in range(cfg.envs)])

    def add_snapshot(self, path: str | Path) -> None:
        """A frozen copy of the learner joins the league (its games from their next episode)."""
        self.league.add_snapshot(path)

    def seed(self, seed: int | None = None):
        """The games' seeds come from the run's seed (module docstring), not sb3's."""
        return [None] * self.num_envs


def evaluate_druids(policy, players: int, games: int, seed: int,
                    opponent: str = "greedy") -> float:
    """Win rate of ``policy`` (its most probable action) against ``opponent`` (an agent name
    of Druids) in every other seat: ``games`` games, the policy's seat rotated, shared wins
    counted as a share (D13)."""
    from druids_env import DruidsGame
    from meduris_rl.agents.arena.match import play_game
    from meduris_rl.agents.druids.features import feature_set_of_size
    from meduris_rl.agents.policies.network import NumpyForward
    from meduris_rl.agents.registry import make_agent

    forward = NumpyForward(policy)
    feature_set = feature_set_of_size(policy.observation_space.shape[0])
    learner = _PolicyAgent(forward, feature_set)
    game = DruidsGame(players)
    base = derive_seed(seed, STREAM_EVAL)
    others = [make_agent(opponent, game="druids") for _ in range(players - 1)]
    wins = 0.0
    for g in range(games):  # (play_game resets every agent with the game's seed)
        seat = g % players
        agents = others[:seat] + [learner] + others[seat:]
        result = play_game(game, agents, base + g)
        if seat in result.winners:
            wins += 1.0 / len(result.winners)
    return wins / games


class _PolicyAgent(Agent):
    """A network playing its most probable legal action (for the evaluation)."""

    def __init__(self, forward, feature_set: str):
        super().__init__("learner")
        self.forward, self.feature_set = forward, feature_set

    def act(self, observation, state) -> int:
        return policy_action(self.forward, self.feature_set, state)


def check_config(cfg: TrainConfig) -> None:
    """What a Druids run cannot do (Meduris-only parts of the trainer), one line each (the
    ``check`` part of the game's row)."""
    for name, meduris_only, fix in (
            ("bc_teacher", cfg.bc_teacher is not None, "null"),
            ("value_positions", cfg.value_positions != 0, "0"),
            ("reward", cfg.reward != "win", "'win' (D13's result; shaping adds the "
                                            "amulet margin)")):
        if meduris_only:
            raise ConfigError(f"{name}: {excerpt(getattr(cfg, name))} is for Meduris "
                              f"runs; with game 'druids' set it to {fix}")


def win_rate(cfg: TrainConfig, model, arch: dict, opponent: str, games: int) -> float:
    """The ``win_rate`` part of the game's row: :func:`evaluate_druids` of the
    model's policy."""
    return evaluate_druids(model.policy, cfg.players, games, cfg.seed, opponent)
