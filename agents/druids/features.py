"""What a Druids policy network sees: the seat's D14 observation scaled to [0, 1], plus
(optionally) the greedy heuristic's judgement of every action.

* ``"obs"``: :func:`druids_env.observation_tensor` of the seat divided by the observation
  space's ``high`` (857 inputs).
* ``"obs+greedy"``: the same, then one input per action (424): the heuristic's score of the
  action (:func:`meduris_rl.agents.druids.greedy.action_values`) relative to the best legal action,
  ``max(-1, (v - v_best) / VALUE_SPREAD)``, and -1 for illegal actions. With the residual
  network (:mod:`meduris_rl.agents.policies.network`) the untrained policy plays like the greedy
  agent and training learns where to depart from it, as for Meduris
  (:mod:`meduris_rl.agents.meduris.features`).

Both read only what the seat knows (D14): the observation does, and so does the heuristic.
"""

from __future__ import annotations

import numpy as np

from druids_env import NUM_ACTIONS, OBS_SIZE, observation_tensor
from druids_env.envs.common import observation_high
from meduris_rl.agents.druids.greedy import action_values
from meduris_rl.agents.policies.features import (
    Features,
    feature_sets,
    relative_to_best,
    set_of_size,
)

FEATURE_SETS = feature_sets(OBS_SIZE, NUM_ACTIONS)
VALUE_SPREAD = 4.0  # amulets of worth mapped onto [-1, 0]


def feature_set_of_size(size: int) -> str:
    """The feature set with ``size`` inputs (ValueError when none has)."""
    return set_of_size(FEATURE_SETS, size, "Druids")


def greedy_inputs(state) -> np.ndarray:
    """The ``obs+greedy`` part for the seat to move in ``state``: (424,) float32."""
    rel = np.full(NUM_ACTIONS, -1.0, dtype=np.float32)
    values = action_values(state)
    relative_to_best(rel, list(values), list(values.values()), VALUE_SPREAD)
    return rel


def scaled(state, observation: np.ndarray) -> np.ndarray:
    """The ``obs`` part: the observation divided by the observation space's ``high``."""
    high = observation_high(state.game)
    return (np.asarray(observation, dtype=np.float32) / np.float32(high)
            if np.isfinite(high) else np.asarray(observation, dtype=np.float32))


#: ``features(state, seat, feature_set="obs+greedy", observation=None)``: the network input
features = Features(observation_tensor, scaled, greedy_inputs)
