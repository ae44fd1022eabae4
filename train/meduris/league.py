"""The training environment: the batch engine behind stable-baselines3, the network's features
as observations, and a league of opponents.

:class:`TrainingEnv` wraps :class:`~meduris_env.envs.sb3.MedurisSB3VecEnv` (``envs`` games at
once; the learner's seat drawn per game and episode). Its observations are the policy network's
inputs (:func:`meduris_rl.agents.meduris.features.batch_features`: the scaled observation, plus for
``obs+greedy`` the greedy evaluation of every action, computed for the whole batch in parallel).

The opponents form a league: every game draws each opponent seat at the start of every episode
from ``random``, ``greedy`` (batched, :class:`meduris_rl.agents.meduris.batch.BatchGreedy`) and
frozen snapshots of the learner (policy files saved during the run, played by
:class:`meduris_rl.agents.meduris.batch.BatchPolicy`), with the configuration's weights; the
snapshots' weight is shared among the last ``max_snapshots`` of them (greedy stands in until the
first exists).

**Reward shaping** (``shaping`` > 0): the learner's reward at each step gains
``gamma * phi(s') - phi(s)``, the potential of the position it now decides in minus that of
the previous one, with ``phi = shaping * tanh(margin / SHAPING_SCALE)``, the margin being the
hand-written evaluation of the learner against the best other seat
(:func:`meduris_rl.agents.meduris.heuristics.evaluate`) and ``phi`` 0 once the game is over.
Potential-based shaping (Ng, Harada and Russell, 1999) leaves the best policies as they are, since
the shaped rewards of a game sum to ``-phi`` of its first position; what changes is how soon an
action's effect shows in its reward: PPO's critic predicts the result of a game poorly (correlation
0.09 with it on the shipped 2-player policy's own positions, the evaluation 0.38), so without
the potential an action's advantage is mostly the noise of the final result.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnvWrapper

from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.envs.sb3 import MedurisSB3VecEnv
from meduris_rl.agents.meduris.batch import BatchGreedy, BatchPolicy
from meduris_rl.agents.meduris.features import FEATURE_SETS, batch_features, default_high
from meduris_rl.agents.meduris.heuristics import batch_evaluate
from meduris_rl.agents.policies.network import load_policy_file
from meduris_rl.kit.seeding import STREAM_ENV, derive_seed
from meduris_rl.train.config import ConfigError, TrainConfig

SHAPING_SCALE = 10.0  # VP-equivalents of margin per unit of tanh (as the mcts agent's values)


class TrainingEnv(VecEnvWrapper):
    """The batch environment with feature observations and the opponent league."""

    def __init__(self, cfg: TrainConfig):
        venv = MedurisSB3VecEnv(num_envs=cfg.envs, num_players=cfg.players, seat="random",
                                reward=cfg.reward, opponents="random",
                                seed=derive_seed(cfg.seed, STREAM_ENV), **cfg.options)
        super().__init__(venv, observation_space=spaces.Box(
            -1.0, 1.0, (FEATURE_SETS[cfg.features],), dtype=np.float32))
        self.vector = venv.venv
        self.feature_set = cfg.features
        self.high = default_high(self.vector.batch.game.max_turns)
        self.weights = dict(cfg.opponents)
        self.max_snapshots = cfg.max_snapshots
        self.greedy = BatchGreedy()
        self.snapshots: list[tuple[str, BatchPolicy]] = []
        self._set_league()
        self.shaping, self.gamma = float(cfg.shaping), float(cfg.gamma)
        self._potential_now = np.zeros(self.num_envs)

    # --- the league ---------------------------------------------------------------------------
    def add_snapshot(self, path: str | Path) -> None:
        """A frozen copy of the learner (a policy file) joins the league; the oldest beyond
        ``max_snapshots`` leaves it. Games take the new league from their next episode."""
        policy, _ = load_policy_file(path)
        self.snapshots.append((str(path), BatchPolicy(policy, name=f"snapshot:{Path(path).name}")))
        self.snapshots = self.snapshots[-self.max_snapshots:]
        self._set_league()

    def league(self) -> list[tuple[str, float]]:
        """The opponents and their weights now."""
        return [(getattr(o, "name", str(o)), w) for o, w in zip(*self._table(), strict=True)]

    def _table(self):
        w = self.weights
        table = ["random", self.greedy]
        weights = [w.get("random", 0.0), w.get("greedy", 0.0)]
        if self.snapshots:
            share = w.get("snapshots", 0.0) / len(self.snapshots)
            table += [policy for _, policy in self.snapshots]
            weights += [share] * len(self.snapshots)
        else:
            weights[1] += w.get("snapshots", 0.0)
        return table, weights

    def _set_league(self) -> None:
        self.vector.set_opponents(*self._table())

    # --- VecEnv -------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self._potential_now = self._potential()
        return self._features(obs)

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self._final_features(info["terminal_observation"])
        if self.shaping:
            # (a finished game's next position is the next episode's first: its potential is
            # 0, and the new one starts the next episode's count)
            potential = self._potential()
            rewards = (rewards + np.where(dones, 0.0, self.gamma * potential)
                       - self._potential_now).astype(np.float32)
            self._potential_now = potential
        return self._features(obs), rewards, dones, infos

    def _potential(self) -> np.ndarray:
        """phi of every game's position for its learner (module docstring)."""
        if not self.shaping:
            return np.zeros(self.num_envs)
        batch = self.vector.batch
        margin = np.empty(self.num_envs)
        batch_evaluate(batch.states, batch.learner.astype(np.int64), margin)
        return self.shaping * np.tanh(margin / SHAPING_SCALE)

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def _features(self, obs: np.ndarray) -> np.ndarray:
        batch = self.vector.batch
        return batch_features(obs, batch.states, batch.game.field_materials,
                              batch.game.field_areas, self.feature_set, self.high)

    def _final_features(self, obs: np.ndarray) -> np.ndarray:
        """A finished game's last observation: nothing is legal any more (greedy inputs -1)."""
        scaled = (obs / self.high).astype(np.float32)
        if self.feature_set == "obs":
            return scaled
        return np.concatenate([scaled, np.full(NUM_ACTIONS, -1.0, dtype=np.float32)])


def check_config(cfg: TrainConfig) -> None:
    """What a Meduris run cannot do, in one line (the ``train_check`` part of its row): the
    value network (``value_positions``) is fitted to games of the default rules only
    (:mod:`meduris_rl.train.meduris.value`), so a run with other options fits none."""
    if cfg.value_positions and cfg.options:
        raise ConfigError(f"value_positions: {cfg.value_positions} fits a value network to "
                          "games of the default options; with --option set it to 0 (and fit "
                          "one with meduris value)")
