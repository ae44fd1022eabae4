"""The training environment: one learning seat against opponents drawn from a pool each episode.

The pool mixes ``random``, ``greedy`` and frozen snapshots of the learner (saved model files,
added during training). Each episode the learner's seat is drawn at random and every other seat
gets an opponent drawn by the pool's weights (a snapshot slot falls back to greedy until a
snapshot exists). Observations are the network features of :mod:`agents.features`.
"""

from __future__ import annotations

import random
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from agents import make_agent
from agents.features import FEATURE_SETS, default_high, features
from meduris_env import MedurisSingleAgentEnv


class SelfPlayEnv(gymnasium.Env):
    """``MedurisSingleAgentEnv`` with pool opponents and network features (see module doc)."""

    metadata = {"render_modes": []}

    def __init__(self, num_players: int = 2, feature_set: str = "obs+greedy",
                 weights: dict[str, float] | None = None, reward: str = "win",
                 max_snapshots: int = 5, seed: int = 0):
        self.weights = weights or {"greedy": 0.6, "random": 0.1, "snapshots": 0.3}
        unknown = set(self.weights) - {"greedy", "random", "snapshots"}
        if unknown:
            raise ValueError(f"opponent weights name greedy, random or snapshots, got {unknown}")
        self.feature_set = feature_set
        self.env = MedurisSingleAgentEnv(num_players=num_players, seat="random", reward=reward)
        self.high = default_high(self.env.game.max_turns)
        self.observation_space = spaces.Box(-1.0, 1.0, (FEATURE_SETS[feature_set],),
                                            dtype=np.float32)
        self.action_space = self.env.action_space
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []
        self._loaded: dict = {}  # path -> PPOAgent
        self._fixed = {"greedy": make_agent("greedy"), "random": "random"}
        self._pool_rng = random.Random(seed)

    def add_snapshot(self, path: str) -> None:
        """Make a saved model file available as an opponent (the oldest beyond the cap goes)."""
        self.snapshots.append(path)
        while len(self.snapshots) > self.max_snapshots:
            self._loaded.pop(self.snapshots.pop(0), None)

    def _draw(self):
        kinds = list(self.weights)
        kind = self._pool_rng.choices(kinds, [self.weights[k] for k in kinds])[0]
        if kind == "snapshots":
            if not self.snapshots:
                return self._fixed["greedy"]
            path = self._pool_rng.choice(self.snapshots)
            if path not in self._loaded:
                from agents.ppo import PPOAgent
                self._loaded[path] = PPOAgent(f"snapshot:{Path(path).name}", path)
            return self._loaded[path]
        return self._fixed[kind]

    def _features(self, obs: np.ndarray) -> np.ndarray:
        return features(obs, self.env.state, self.feature_set, self.high)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._pool_rng = random.Random(seed)
        n = self.env.game.num_players
        self.env.set_opponents([self._draw() for _ in range(n - 1)])
        obs, info = self.env.reset(seed=seed, options=options)
        return self._features(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._features(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()
