"""The vector environment as a stable-baselines3 ``VecEnv``, for sb3-contrib's MaskablePPO.

>>> from sb3_contrib import MaskablePPO
>>> from meduris_env.envs.sb3 import MedurisSB3VecEnv
>>> venv = MedurisSB3VecEnv(num_envs=256, num_players=2, opponents="random")
>>> MaskablePPO("MlpPolicy", venv).learn(100_000)

It wraps a :class:`~meduris_env.envs.vector.MedurisVectorEnv` (all its arguments are accepted,
or pass ``venv=``): observations (B, 1470), rewards and ``dones`` for the learning seats, SB3's
info conventions (``terminal_observation`` and ``TimeLimit.truncated`` for finished games, their
final ``scores``). MaskablePPO reads the legal actions through ``env_method("action_masks")``;
``action_masks()`` gives the (B, 241) array directly. ``seed(s)`` applies at the next reset.
Importing this module needs stable-baselines3 (``pip install -e .[train]``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .vector import MedurisVectorEnv


class MedurisSB3VecEnv(VecEnv):
    """A :class:`MedurisVectorEnv` behind stable-baselines3's ``VecEnv`` interface."""

    render_mode = None

    def __init__(self, venv: MedurisVectorEnv | None = None, **kwargs: Any):
        if venv is not None and kwargs:
            raise ValueError("give either venv= or the arguments of MedurisVectorEnv, not both")
        self.venv = venv if venv is not None else MedurisVectorEnv(**kwargs)
        super().__init__(self.venv.num_envs, self.venv.single_observation_space,
                         self.venv.single_action_space)
        self._next_seed: int | None = None
        self._actions: np.ndarray | None = None

    # --- VecEnv -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        obs, info = self.venv.reset(seed=self._next_seed)
        self._next_seed = None
        self.reset_infos = [{"seat": int(s)} for s in info["seat"]]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs = info["final_obs"]
            scores = info["final_info"]["scores"]
            for i in np.flatnonzero(dones):
                infos[i] = {"terminal_observation": final_obs[i],
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "scores": scores[i].tolist()}
        return obs, rewards, dones, infos

    def seed(self, seed: int | None = None) -> list[int | None]:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)  # fresh entropy, as SB3 does
        self._next_seed = int(seed)
        return [self._next_seed] * self.num_envs

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (num_envs, 241) bool."""
        return self.venv.action_masks()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._get_indices(indices)]
        value = getattr(self.venv, attr_name)  # AttributeError as SB3 expects
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"the batch's games share their settings; cannot set {attr_name!r} "
                             "per game")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"MedurisSB3VecEnv has no per-game method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
