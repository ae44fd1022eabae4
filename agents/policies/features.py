"""What every game's feature sets have in common (Meduris's
:mod:`meduris_rl.agents.meduris.features`, Druids' :mod:`meduris_rl.agents.druids.features`,
Stone Age's :mod:`meduris_rl.agents.stone_age.features`): two sets, ``"obs"`` (the seat's
observation, scaled) and ``"obs+greedy"`` (the same, then one input per action: the game's
greedy judgement of it), told apart by their input count, and the greedy inputs as each action's
value relative to the best legal one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


def feature_sets(obs_size: int, num_actions: int) -> dict[str, int]:
    """A game's feature sets, name -> inputs: the observation, then it and one input per
    action."""
    return {"obs": obs_size, "obs+greedy": obs_size + num_actions}


def set_of_size(sets: dict[str, int], size: int, title: str) -> str:
    """The feature set of ``sets`` (a game's, ``title`` naming it) with ``size`` inputs
    (ValueError when none has): how a policy file's input count names its features."""
    for name, n in sets.items():
        if n == size:
            return name
    raise ValueError(f"no {title} feature set has {size} inputs (known: {sets})")


def relative_to_best(rel: np.ndarray, actions: Sequence[int], values: Sequence[float],
                     spread: float) -> None:
    """``rel[a] = max(-1, (v - v_best) / spread)`` for each action ``a`` of value ``v`` (in
    place; nothing when no action is given): the greedy inputs, 0 for the best action, -1 at
    ``spread`` or more below it."""
    if not values:
        return
    best = max(values)
    for a, v in zip(actions, values, strict=True):
        rel[a] = max(-1.0, (v - best) / spread)


@dataclass(frozen=True)
class Features:
    """A game's network inputs as a function, ``features(state, seat, feature_set="obs+greedy",
    observation=None)``: the input of ``seat`` (the seat to move, for ``obs+greedy``) in
    ``state``; ``observation`` is the seat's observation tensor if already computed. A game
    says how it observes, scales and judges (module-level functions, so it pickles)."""

    observe: Callable  # (state, seat) -> the seat's observation tensor
    scale: Callable  # (state, observation) -> the scaled observation, float32
    greedy: Callable  # state -> the greedy inputs of the seat to move, float32

    def __call__(self, state, seat: int, feature_set: str = "obs+greedy",
                 observation: np.ndarray | None = None) -> np.ndarray:
        if observation is None:
            observation = self.observe(state, seat)
        scaled = self.scale(state, observation)
        if feature_set == "obs":
            return scaled.astype(np.float32)
        return np.concatenate([scaled, self.greedy(state)]).astype(np.float32)
