"""What the policy network sees: the observation scaled to [0, 1], plus (optionally) the greedy
evaluation of every action.

* ``"obs"``: the observer's observation vector divided by its space's ``high`` (1470 inputs).
* ``"obs+greedy"``: the same, then one input per action (241): the hand-written evaluation
  (:func:`meduris_rl.agents.meduris.heuristics.action_values`) of the position after that action
  relative to the best legal action, ``max(-1, (v - v_best) / 10)``, and -1 for illegal actions. The
  network starts from what the greedy agent knows and can learn where to depart from it.

The PPO agent reads the feature set back from the model's input size, so a model always sees the
features it was trained on.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.engine.game import DEFAULT_MAX_TURNS
from meduris_env.envs.observation import OBS_SIZE, observation_high
from meduris_rl.agents.meduris.heuristics import PARALLEL_ROWS, action_values
from meduris_rl.agents.policies.features import feature_sets, set_of_size

FEATURE_SETS = feature_sets(OBS_SIZE, NUM_ACTIONS)
VALUE_SPREAD = 10.0  # VP-equivalents mapped onto [-1, 0]


def feature_set_of_size(size: int) -> str:
    """The feature set with ``size`` inputs (ValueError when none has)."""
    return set_of_size(FEATURE_SETS, size, "Meduris")


def features(observation: np.ndarray, state, feature_set: str, high: np.ndarray) -> np.ndarray:
    """The network input for ``observation`` (the vector) of the seat to move in ``state``."""
    game = state.game
    return batch_features(observation[None], state.array[None], game.field_materials,
                          game.field_areas, feature_set, high)[0]


def batch_features(observations: np.ndarray, states: np.ndarray, fm: np.ndarray,
                   fa: np.ndarray, feature_set: str, high: np.ndarray) -> np.ndarray:
    """The network inputs of a batch: row ``j`` for ``observations[j]`` of the seat to move in
    ``states[j]`` (the game's board arrays ``fm``, ``fa``)."""
    if feature_set == "obs":
        return (observations / high).astype(np.float32)
    out = np.empty((len(states), OBS_SIZE + NUM_ACTIONS), dtype=np.float32)
    kernel = _greedy_features_parallel if len(states) >= PARALLEL_ROWS else _greedy_features
    kernel(np.ascontiguousarray(observations, dtype=np.float32), high.astype(np.float32),
           np.ascontiguousarray(states), fm, fa, out)
    return out


@njit(cache=True, nogil=True)
def _greedy_row(obs, high, st, fm, fa, out):
    """One row of ``"obs+greedy"`` (module docstring) into ``out``; a row without a legal
    action gets -1 for every action."""
    for i in range(obs.shape[0]):
        out[i] = obs[i] / high[i]  # float32 / float32, as numpy divides the two arrays
    vals = action_values(st, fm, fa)
    best = -np.inf
    for a in range(vals.shape[0]):
        if np.isfinite(vals[a]) and vals[a] > best:
            best = vals[a]
    base = obs.shape[0]
    for a in range(vals.shape[0]):
        out[base + a] = max(-1.0, (vals[a] - best) / VALUE_SPREAD) if np.isfinite(vals[a]) \
            else -1.0


@njit(cache=True, nogil=True)
def _greedy_features(observations, high, states, fm, fa, out):
    for j in range(states.shape[0]):
        _greedy_row(observations[j], high, states[j], fm, fa, out[j])


@njit(cache=True, parallel=True)
def _greedy_features_parallel(observations, high, states, fm, fa, out):
    for j in prange(states.shape[0]):
        _greedy_row(observations[j], high, states[j], fm, fa, out[j])


def default_high(max_turns: int = DEFAULT_MAX_TURNS) -> np.ndarray:
    return observation_high(max_turns)
