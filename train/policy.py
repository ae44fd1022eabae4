"""The "greedy residual" policy network: the greedy agent's judgement plus a learned correction.

With the ``obs+greedy`` features (:mod:`train.features`) the last 241 inputs are the greedy
evaluation of every action relative to the best one. The features extractor passes them through
beside an MLP of the whole input; the action head is initialised to ``GREEDY_LOGIT_SCALE`` x those
241 inputs and zero for the MLP part, so the untrained policy already plays like the greedy agent
(its most probable action is greedy's choice) and training learns where to depart from it. The
value head sits on the same features.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from meduris_env.constants import NUM_ACTIONS

GREEDY_LOGIT_SCALE = 20.0  # logits per unit of relative value (1 VP-equivalent = 2 logits)


class GreedyResidualExtractor(BaseFeaturesExtractor):
    def __init__(self, observation_space: spaces.Box, hidden: int = 256):
        super().__init__(observation_space, features_dim=hidden + NUM_ACTIONS)
        n = int(observation_space.shape[0])
        self.mlp = nn.Sequential(nn.Linear(n, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU())
        self.hidden = hidden

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp(x), x[:, -NUM_ACTIONS:]], dim=1)


def residual_policy_kwargs(hidden: int = 256) -> dict:
    return {"features_extractor_class": GreedyResidualExtractor,
            "features_extractor_kwargs": {"hidden": hidden},
            "net_arch": {"pi": [], "vf": [128]}}


def init_as_greedy(model) -> None:
    """Set the action head to play like greedy: logits = scale x the greedy inputs."""
    head = model.policy.action_net
    hidden = model.policy.features_extractor.hidden
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.weight[:, hidden:] = GREEDY_LOGIT_SCALE * torch.eye(NUM_ACTIONS)
