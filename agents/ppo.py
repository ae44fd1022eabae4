"""An agent playing a trained MaskablePPO policy (sb3-contrib) on its observation vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import Agent
from .registry import UnknownAgentError

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "ppo_2p.zip"


def load_policy(path: Path, name: str = "ppo"):
    """Load a MaskablePPO model for play, or raise UnknownAgentError saying what to do."""
    if not path.is_file():
        raise UnknownAgentError(f"agent {name!r}: no trained model at {path}; train one with "
                                "`meduris train` or pass ppo:<path to model.zip>")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise UnknownAgentError(f"agent {name!r} needs sb3-contrib: pip install -e .[train]") \
            from None
    try:
        return MaskablePPO.load(str(path), device="cpu")
    except Exception as err:  # a corrupt or foreign zip: say which file and why
        raise UnknownAgentError(f"agent {name!r}: cannot load {path} as a MaskablePPO model "
                                f"({type(err).__name__}: {err})") from None


class PPOAgent(Agent):
    """Plays the policy's most probable legal action (deterministic given the position).

    The network's inputs are the features it was trained on (:mod:`train.features`, found from
    the model's input size); ``model`` may be given directly (a live model during training)."""

    uses_observation = True

    def __init__(self, name: str, path: str | None = None, model=None):
        from train.features import feature_set_of_size

        super().__init__(name)
        self.path = Path(path) if path else DEFAULT_MODEL
        self.model = model if model is not None else load_policy(self.path, name)
        self.feature_set = feature_set_of_size(self.model.observation_space.shape[0])
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
        action, _ = self.model.predict(self._features(observation, state), action_masks=mask,
                                       deterministic=True)
        return int(action)

    def action_probabilities(self, observation, state) -> np.ndarray:
        """The policy's probability for each of the 241 actions (illegal ones are 0)."""
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(self._features(observation, state))
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=observation["action_mask"]
                                           .astype(bool)[None])
            return dist.distribution.probs[0].cpu().numpy()
