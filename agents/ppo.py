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
    """Plays the policy's most probable legal action (deterministic given the position)."""

    uses_observation = True

    def __init__(self, name: str, path: str | None = None):
        super().__init__(name)
        self.path = Path(path) if path else DEFAULT_MODEL
        self.model = load_policy(self.path, name)

    def act(self, observation, state) -> int:
        mask = observation["action_mask"].astype(bool)
        action, _ = self.model.predict(observation["observation"], action_masks=mask,
                                       deterministic=True)
        return int(action)

    def action_probabilities(self, observation) -> np.ndarray:
        """The policy's probability for each of the 241 actions (illegal ones are 0)."""
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observation["observation"])
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=observation["action_mask"]
                                           .astype(bool)[None])
            return dist.distribution.probs[0].cpu().numpy()
