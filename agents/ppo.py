"""An agent playing a trained MaskablePPO policy (sb3-contrib) on its observation vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from meduris_env.envs.observation import observation_high

from .base import Agent, UnknownAgentError
from .features import feature_set_of_size, features

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "ppo_2p.pt"


def load_policy(path: Path, name: str = "ppo"):
    """The policy network in ``path``, a weights-only policy file (``out/policy.pt`` of
    ``meduris train``, what ships; :mod:`agents.network`). Raises UnknownAgentError saying what
    to do when the file is missing or not a policy file. Full training checkpoints (``.zip``)
    are pickles that can run code when loaded: the agent refuses them; only ``--resume`` of
    one's own run loads them."""
    if path.suffix == ".zip":
        raise UnknownAgentError(f"agent {name!r}: {path} is a full training checkpoint (a pickle, "
                                "which can run code when loaded); agents load policy files: "
                                "use the run's policy.pt")
    if not path.is_file():
        raise UnknownAgentError(f"agent {name!r}: no trained model at {path}; train one with "
                                "`meduris train` or pass ppo:<path to a policy.pt>")
    try:
        from .network import PolicyFileError, load_policy_file
    except ImportError:
        raise UnknownAgentError(f"agent {name!r} needs sb3-contrib: pip install -e .[train]") \
            from None
    try:
        return load_policy_file(path)[0]
    except PolicyFileError as err:
        raise UnknownAgentError(f"agent {name!r}: {err}") from None


class PPOAgent(Agent):
    """Plays the policy's most probable legal action (deterministic given the position).

    The network's inputs are the features it was trained on (:mod:`agents.features`, found from
    the policy's input size); ``model`` may be given directly (a live model during training)."""

    uses_observation = True

    def __init__(self, name: str, path: str | None = None, model=None):
        super().__init__(name)
        self.path = Path(path) if path else DEFAULT_MODEL
        self.policy = model.policy if model is not None else load_policy(self.path, name)
        self.policy.set_training_mode(False)
        self.feature_set = feature_set_of_size(self.policy.observation_space.shape[0])
        self._high: dict[int, np.ndarray] = {}

    def _features(self, observation, state) -> np.ndarray:
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
