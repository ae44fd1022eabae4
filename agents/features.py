"""What the policy network sees: the observation scaled to [0, 1], plus (optionally) the greedy
evaluation of every action.

* ``"obs"``: the observer's observation vector divided by its space's ``high`` (1470 inputs).
* ``"obs+greedy"``: the same, then one input per action (241): the hand-written evaluation
  (:func:`agents.heuristics.action_values`) of the position after that action relative to the best
  legal action, ``max(-1, (v - v_best) / 10)``, and -1 for illegal actions. The network starts
  from what the greedy agent knows and can learn where to depart from it.

The PPO agent reads the feature set back from the model's input size, so a model always sees the
features it was trained on.
"""

from __future__ import annotations

import numpy as np

from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.envs.observation import OBS_SIZE, observation_high

from .heuristics import batch_action_values

FEATURE_SETS = {"obs": OBS_SIZE, "obs+greedy": OBS_SIZE + NUM_ACTIONS}
VALUE_SPREAD = 10.0  # VP-equivalents mapped onto [-1, 0]


def feature_set_of_size(size: int) -> str:
    for name, n in FEATURE_SETS.items():
        if n == size:
            return name
    raise ValueError(f"no feature set has {size} inputs (known: {FEATURE_SETS})")


def features(observation: np.ndarray, state, feature_set: str, high: np.ndarray) -> np.ndarray:
    """The network input for ``observation`` (the vector) of the seat to move in ``state``."""
    game = state.game
    return batch_features(observation[None], state.array[None], game.field_materials,
                          game.field_areas, feature_set, high)[0]


def batch_features(observations: np.ndarray, states: np.ndarray, fm: np.ndarray,
                   fa: np.ndarray, feature_set: str, high: np.ndarray) -> np.ndarray:
    """The network inputs of a batch: row ``j`` for ``observations[j]`` of the seat to move in
    ``states[j]`` (the game's board arrays ``fm``, ``fa``)."""
    scaled = (observations / high).astype(np.float32)
    if feature_set == "obs":
        return scaled
    vals = np.empty((len(states), NUM_ACTIONS), dtype=np.float64)
    batch_action_values(np.ascontiguousarray(states), fm, fa, vals)
    legal = np.isfinite(vals)
    best = np.where(legal, vals, -np.inf).max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):  # rows without a legal action stay -1
        rel = np.where(legal, np.maximum(-1.0, (vals - best) / VALUE_SPREAD), -1.0)
    return np.concatenate([scaled, rel.astype(np.float32)], axis=1)


def default_high(max_turns: int = 1000) -> np.ndarray:
    return observation_high(max_turns)
