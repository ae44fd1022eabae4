"""What a Stone Age policy network sees: the seat's observation (rules section 3: only what the
seat knows) squashed to [-1, 1], plus (optionally) the greedy strategy's judgement of every
action.

* ``"obs"``: :func:`stoneage_env.observation_tensor` of the seat, each feature ``x`` as
  ``sign(x) log(1 + |x|) / log(1 + 1000)`` (counts of goods, points up to a few hundred and
  one-hot flags all keep their order; nothing is cut), 937 inputs.
* ``"obs+greedy"``: the same, then one input per action (100): at a placement (C1) the greedy
  strategy's value of the action (:func:`meduris_rl.agents.stone_age.policy.place_value`)
  relative to the best legal one, ``max(-1, (v - v_best) / VALUE_SPREAD)``; at every other
  decision 0 for greedy's choice and -0.5 for the other legal actions; -1 for illegal actions.
  With the residual network (:mod:`meduris_rl.agents.policies.network`) the untrained policy
  plays like greedy (the most probable action is greedy's: ties go to the lowest id, as
  greedy's) and training learns where to depart from it.
"""

from __future__ import annotations

import math

import numpy as np

from meduris_rl.agents.policies.features import (
    Features,
    feature_sets,
    relative_to_best,
    set_of_size,
)
from meduris_rl.agents.stone_age.policy import greedy_action, place_value
from stoneage_env import NUM_ACTIONS, OBS_SIZE, observation_tensor
from stoneage_env.engine.constants import M_PLACE
from stoneage_env.engine.kernel import W_IDS, W_SIZE, legal_ids

FEATURE_SETS = feature_sets(OBS_SIZE, NUM_ACTIONS)
VALUE_SPREAD = 6.0  # points of a placement's worth mapped onto [-1, 0]
SQUASH = np.float32(1.0 / math.log1p(1000.0))
_WORK = np.zeros(W_SIZE, dtype=np.int32)


def feature_set_of_size(size: int) -> str:
    """The feature set with ``size`` inputs (ValueError when none has)."""
    return set_of_size(FEATURE_SETS, size, "Stone Age")


def greedy_inputs(state) -> np.ndarray:
    """The ``obs+greedy`` part for the seat to move in ``state``: (100,) float32."""
    rel = np.full(NUM_ACTIONS, -1.0, dtype=np.float32)
    st = state.array
    cnt = legal_ids(st, _WORK)
    legal = _WORK[W_IDS:W_IDS + cnt].tolist()
    if int(state.mode) == M_PLACE:
        seat = state.current_player()
        relative_to_best(rel, legal, [place_value(st, seat, a) for a in legal], VALUE_SPREAD)
        return rel
    rel[legal] = -0.5
    rel[int(greedy_action(st, _WORK, cnt))] = 0.0
    return rel


def squashed(state, observation: np.ndarray) -> np.ndarray:
    """The ``obs`` part: each feature ``x`` as ``sign(x) log(1 + |x|) / log(1 + 1000)``."""
    x = np.asarray(observation, dtype=np.float32)
    return (np.sign(x) * np.log1p(np.abs(x)) * SQUASH).astype(np.float32)


#: ``features(state, seat, feature_set="obs+greedy", observation=None)``: the network input
features = Features(observation_tensor, squashed, greedy_inputs)
