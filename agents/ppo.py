"""An agent playing a trained MaskablePPO policy (sb3-contrib) on its observation vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import Agent
from .registry import UnknownAgentError

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "ppo_2p.pt"


def load_policy(path: Path, name: str = "ppo"):
    """The policy network in ``path``: a policy file (``out/policy.pt`` of ``meduris train``,
    what ships) or a whole MaskablePPO model or checkpoint (``.zip``). Raises
    UnknownAgentError saying what to do when the file is missing or not a policy."""
    if not path.is_file():
        raise UnknownAgentError(f"agent {name!r}: no trained model at {path}; train one with "
                                "`meduris train` or pass ppo:<path to policy.pt or model.zip>")
    try:
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:
        raise UnknownAgentError(f"agent {name!r} needs sb3-contrib: pip install -e .[train]") \
            from None
    errors = []
    try:
        return MaskableActorCriticPolicy.load(str(path), device="cpu")
    except Exception as err:
        errors.append(f"{type(err).__name__}: {err}")
    try:
        return MaskablePPO.load(str(path), device="cpu").policy
    except Exception as err:  # a corrupt or foreign file: say which and why
        errors.append(f"{type(err).__name__}: {err}")
    raise UnknownAgentError(f"agent {name!r}: cannot load {path} as a MaskablePPO model or "
                            f"policy ({errors[-1]})")


class PPOAgent(Agent):
    """Plays the policy's most probable legal action (deterministic given the position).

    The network's inputs are the features it was trained on (:mod:`train.features`, found from
    the policy's input size); ``model`` may be given directly (a live model during training)."""

    uses_observation = True

    def __init__(self, name: str, path: str | None = None, model=None):
        from train.features import feature_set_of_size

        super().__init__(name)
        self.path = Path(path) if path else DEFAULT_MODEL
        self.policy = model.policy if model is not None else load_policy(self.path, name)
        self.policy.set_training_mode(False)
        self.feature_set = feature_set_of_size(self.policy.observation_space.shape[0])
        self._high: dict[int, np.ndarray] = {}

    def _features(self, observation, state) -> np.ndarray:
        from meduris_env.observation import observation_high
        from train.features import features

        turns = state.game.max_turns
        if turns not in self._high:
            self._high[turns] = observation_high(turns)
        return features(observation["observation"], state, self.feature_set, self._high[turns])

    def act(self, observation, state) -> int:
        mask = observation["action_mask"].astype(bool)
        action, _ = self.policy.predict(self._features(observation, state), action_masks=mask,
                                        deterministic=True)
        return int(action)

    def action_probabilities(self, observation, state) -> np.ndarray:
        """The policy's probability for each of the 241 actions (illegal ones are 0)."""
        import torch

        policy = self.policy
        obs, _ = policy.obs_to_tensor(self._features(observation, state))
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=observation["action_mask"]
                                           .astype(bool)[None])
            return dist.distribution.probs[0].cpu().numpy()
