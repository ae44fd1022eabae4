"""The vector environment as a stable-baselines3 ``VecEnv``, for sb3-contrib's MaskablePPO.

>>> from sb3_contrib import MaskablePPO
>>> from meduris_env.envs.sb3 import MedurisSB3VecEnv
>>> venv = MedurisSB3VecEnv(num_envs=256, num_players=2, opponents="random")
>>> MaskablePPO("MlpPolicy", venv).learn(100_000)

It wraps a :class:`~meduris_env.envs.vector.MedurisVectorEnv` (all its arguments are accepted,
or pass ``venv=``): observations (B, 1470), rewards and ``dones`` for the learning seats, SB3's
info conventions (``terminal_observation`` and ``TimeLimit.truncated`` for finished games, their
final ``scores``). The vector env runs with ``autoreset_mode=SAME_STEP`` (SB3's convention; a
``venv=`` in another mode is refused). ``reset_infos[i]`` is game ``i``'s reset info
(``{"seat": s}``, the learning seat of its new episode) after ``reset()`` and after each automatic
reset, as SB3's ``DummyVecEnv`` fills it. ``seed(s)`` applies at the next reset. A ``venv`` that is
not a :class:`~meduris_env.envs.vector.MedurisVectorEnv` (``MedurisSB3VecEnv(4)``: the games'
number goes by name, ``num_envs=4``), or one given with the vector env's arguments as well, is a
one-line :class:`~meduris_rl.kit.values.ValueCheckError`.

``get_attr`` reads the vector env's attribute (the same for every game). ``set_attr`` and
``env_method`` reach the games where that means something, honouring ``indices``:

* per game (``indices`` chooses the games, one result each): ``env_method("action_masks")``
  (MaskablePPO reads the legal actions so; ``action_masks()`` gives the (B, 241) array
  directly), ``env_method("state")`` (the game's engine ``State``),
  ``env_method("opponent_of", seat)``;
* for the whole batch (``indices`` must name every game): ``set_attr("opponents", spec)`` and
  ``env_method("set_opponents", spec, weights=None)`` (from each game's next episode on).

Anything else raises :class:`VecEnvAttributeError` (an ``AttributeError``, as SB3 expects)
naming the attribute and what is offered. Importing this module needs stable-baselines3
(``pip install -e .[train]``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.values import ValueCheckError, excerpt

from .vector import AutoresetMode, AutoresetModeError, MedurisVectorEnv

#: per-game methods for env_method: name -> f(vector env, game index, *args, **kwargs)
PER_GAME_METHODS = {
    "action_masks": lambda venv, i: venv.action_masks()[i],
    "state": lambda venv, i: venv.batch.state(i),
    "opponent_of": lambda venv, i, seat: venv.opponent_of(i, seat),
}
#: batch-wide settings: set_attr name / env_method name -> the vector env's setter
BATCH_SETTERS = {"opponents": "set_opponents"}


class VecEnvAttributeError(InputError, AttributeError):
    """``set_attr`` / ``env_method`` of something the games do not offer (or not per game)."""


class MedurisSB3VecEnv(VecEnv):
    """A :class:`MedurisVectorEnv` behind stable-baselines3's ``VecEnv`` interface."""

    render_mode = None

    def __init__(self, venv: MedurisVectorEnv | None = None, **kwargs: Any):
        if venv is not None and not isinstance(venv, MedurisVectorEnv):
            count = isinstance(venv, (int, np.integer)) and not isinstance(venv, (bool, np.bool_))
            hint = ("; give the number of games by name: MedurisSB3VecEnv(num_envs="
                    f"{excerpt(int(venv))}, ...)" if count else "")
            raise ValueCheckError(f"venv must be a MedurisVectorEnv or None, got "
                                  f"{excerpt(venv)} ({type(venv).__name__}){hint}")
        if venv is not None and kwargs:
            raise ValueCheckError("give either venv= or the arguments of MedurisVectorEnv "
                                  f"({', '.join(sorted(kwargs))}), not both")
        if venv is None:
            kwargs.setdefault("autoreset_mode", AutoresetMode.SAME_STEP)
            venv = MedurisVectorEnv(**kwargs)
        if venv.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise AutoresetModeError(
                "MedurisSB3VecEnv needs autoreset_mode=SAME_STEP (SB3 expects the next "
                f"episode's observation at once), got {venv.autoreset_mode.name}")
        self.venv = venv
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
                self.reset_infos[i] = {"seat": int(info["seat"][i])}  # its next episode's
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
        if attr_name not in BATCH_SETTERS:
            raise VecEnvAttributeError(
                f"cannot set {excerpt(attr_name)} on the games; settable: "
                f"{', '.join(sorted(BATCH_SETTERS))}")
        self._whole_batch(attr_name, indices)
        getattr(self.venv, BATCH_SETTERS[attr_name])(value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        games = list(self._get_indices(indices))
        if method_name in PER_GAME_METHODS:
            call = PER_GAME_METHODS[method_name]
            return [call(self.venv, self._index(i), *method_args, **method_kwargs)
                    for i in games]
        if method_name in BATCH_SETTERS.values():
            self._whole_batch(method_name, indices)
            getattr(self.venv, method_name)(*method_args, **method_kwargs)
            return [None for _ in games]
        offered = sorted([*PER_GAME_METHODS, *BATCH_SETTERS.values()])
        raise VecEnvAttributeError(f"the games have no method {excerpt(method_name)}; env_method "
                                   f"offers: {', '.join(offered)}")

    def _whole_batch(self, name: str, indices) -> None:
        """Refuse a batch-wide setting for only some games."""
        chosen = {self._index(i) for i in self._get_indices(indices)}
        if chosen != set(range(self.num_envs)):
            raise VecEnvAttributeError(
                f"{excerpt(name)} is shared by all {self.num_envs} games of the batch; give "
                "indices=None (or every index), not a subset")

    def _index(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or \
                not 0 <= i < self.num_envs:
            raise VecEnvAttributeError(f"indices must be games 0..{self.num_envs - 1}, got "
                                       f"{excerpt(i)}")
        return int(i)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
