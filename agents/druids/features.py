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

FEATURE_SETS = {"obs": OBS_SIZE, "obs+greedy": OBS_SIZE + NUM_ACTIONS}
VALUE_SPREAD = 4.0  # amulets of worth mapped onto [-1, 0]


def feature_set_of_size(size: int) -> str:
    """The feature set with ``size`` inputs (ValueError when none has)."""
    for name, n in FEATURE_SETS.items():
        if n == size:
            return name
    raise ValueError(f"no Druids feature set has {size} inputs (known: {FEATURE_SETS})")


def greedy_inputs(state) -> np.ndarray:
    """The ``obs+greedy`` part for the seat to move in ``state``: (424,) float32."""
    rel = np.full(NUM_ACTIONS, -1.0, dtype=np.float32)
    values = action_values(state)
    if values:
        best = max(values.values())
        for a, v in values.items():
            rel[a] = max(-1.0, (v - best) / VALUE_SPREAD)
    return rel


def features(state, seat: int, feature_set: str = "obs+greedy",
             observation: np.ndarray | None = None) -> np.ndarray:
    """The network input of ``seat`` (the seat to move, for ``obs+greedy``) in ``state``;
    ``observation`` is the seat's observation tensor if already computed."""
    if observation is None:
        observation = observation_tensor(state, seat)
    high = observation_high(state.game)
    scaled = (np.asarray(observation, dtype=np.float32) / np.float32(high)
              if np.isfinite(high) else np.asarray(observation, dtype=np.float32))
    if feature_set == "obs":
        return scaled.astype(np.float32)
    return np.concatenate([scaled, greedy_inputs(state)]).astype(np.float32)
