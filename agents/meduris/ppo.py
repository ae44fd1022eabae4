"""Meduris's agent playing a trained MaskablePPO policy (sb3-contrib) on its observation vector.

A policy file given by path (``ppo:<file>``, ``az:<budget>:<file>``) plays only games of the
player count it was trained for (:func:`meduris_rl.agents.policies.network.check_players`; unknown
for old files not named ``ppo_<n>p.pt``): :meth:`PPOAgent.check_players` refuses another count with
one line, and the agent refuses it again at its first decision in such a game."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from meduris_env.envs.observation import observation_high
from meduris_rl.agents.base import Agent, UnknownAgentError
from meduris_rl.agents.meduris.features import batch_features, feature_set_of_size, features
from meduris_rl.agents.policies.ppo import MODELS, load_policy, load_policy_and_architecture

DEFAULT_MODEL = MODELS / "ppo_2p.pt"


def shipped_model(players: int) -> Path:
    """The shipped policy file for a player count (``agents/models/ppo_<n>p.pt``)."""
    return MODELS / f"ppo_{players}p.pt"


class PPOAgent(Agent):
    """Plays the policy's most probable legal action (deterministic given the position).

    Without a path it plays the shipped model for the game's player count (loaded at its first
    decision, :func:`shipped_model`). The network's inputs are the features it was trained on
    (:mod:`meduris_rl.agents.meduris.features`, found from the policy's input size); ``model`` may
    be given directly (a live model during training)."""

    uses_observation = True

    def __init__(self, name: str, path: str | None = None, model=None):
        super().__init__(name)
        self.path = Path(path) if path else None
        self._policies: dict[int, object] = {}  # player count -> policy (0: any count)
        self._arch: dict | None = None  # the architecture of the policy file at ``path``
        self.trained_players: int | None = None  # its player count (None: any, or unknown)
        if model is not None:
            self._policies[0] = model.policy
        elif self.path is not None:
            self._policies[0], self._arch = load_policy_and_architecture(self.path, name)
            from meduris_rl.agents.policies.network import players_of
            self.trained_players = players_of(self._arch, self.path)
        else:  # check now that the 2-player model is there; the others load when needed
            self._policies[2] = load_policy(shipped_model(2), name)
        self._high: dict[int, np.ndarray] = {}
        self._value: dict[Path, object] = {}  # policy file -> its value network or None

    def check_players(self, players: int, warn: bool = True) -> None:
        """UnknownAgentError (one line) when the policy file this agent was given was trained
        for another player count than ``players`` (module docstring); one warning line when
        its count is unknown (unless not ``warn``)."""
        if self.path is None or self.trained_players == players or (
                self.trained_players is None and not warn):
            return
        from meduris_rl.agents.policies.network import (  # (an unknown count: warned once)
            PolicyFileError,
            check_players,
        )
        try:
            check_players(self._arch, self.path, players)
        except PolicyFileError as err:
            raise UnknownAgentError(f"agent {self.name!r}: {err}") from None

    def value_network(self, players: int):
        """The value network (numpy forward, :class:`meduris_rl.agents.policies.network.NumpyValue`)
        of the policy file this agent plays in a game of ``players`` (its own file, else the shipped
        model of that count), or None when the file carries none; cached per file. The searches
        guided by this network (``az``, ``gumbel``) score positions with it."""
        from meduris_rl.agents.policies.network import (
            NumpyValue,
            PolicyFileError,
            load_value_network,
        )

        path = self.path or shipped_model(players)
        if path not in self._value:
            try:
                net = load_value_network(path)
            except PolicyFileError as err:
                raise UnknownAgentError(f"agent {self.name!r}: {err}") from None
            self._value[path] = None if net is None else NumpyValue(net)
        return self._value[path]

    def policy_for(self, players: int):
        """The network this agent plays with in a game of ``players``."""
        if 0 in self._policies:
            self.check_players(players, warn=False)
            return self._policies[0]
        if players not in self._policies:
            self._policies[players] = load_policy(shipped_model(players), self.name)
        return self._policies[players]

    def _playing(self, policy):
        if policy.training:  # a live model may have been training since the last move
            policy.set_training_mode(False)
        return policy

    @property
    def policy(self):
        return self._policies.get(0) or self._policies[min(self._policies)]

    @property
    def feature_set(self) -> str:
        return feature_set_of_size(self.policy.observation_space.shape[0])

    def inputs(self, observation, state) -> tuple[object, np.ndarray]:
        """(the policy for this game, the network inputs of ``observation`` in ``state``)."""
        policy = self._playing(self.policy_for(state.game.num_players))
        turns = state.game.max_turns
        if turns not in self._high:
            self._high[turns] = observation_high(turns)
        feature_set = feature_set_of_size(policy.observation_space.shape[0])
        return policy, features(observation["observation"], state, feature_set,
                                self._high[turns])

    def batch_inputs(self, observations: np.ndarray, states: np.ndarray, game):
        """(the policy for ``game``, the network inputs of a batch: ``observations[j]`` (the
        vectors) of the seat to move in state array ``states[j]``)."""
        policy = self._playing(self.policy_for(game.num_players))
        if game.max_turns not in self._high:
            self._high[game.max_turns] = observation_high(game.max_turns)
        feature_set = feature_set_of_size(policy.observation_space.shape[0])
        return policy, batch_features(observations, states, game.field_materials,
                                      game.field_areas, feature_set, self._high[game.max_turns])

    def act(self, observation, state) -> int:
        """The most probable legal action (as ``policy.predict(..., deterministic=True)``);
        PolicyFileError naming the file when the network's logits here are not finite or so
        large that an illegal action wins (its weights overflow), rather than an arbitrary,
        maybe illegal, action."""
        import torch

        policy, x = self.inputs(observation, state)
        mask = observation["action_mask"].astype(bool)
        obs, _ = policy.obs_to_tensor(x)
        with torch.no_grad():
            try:
                dist = policy.get_distribution(obs, action_masks=mask)
                finite = bool(torch.isfinite(dist.distribution.logits).all())
            except ValueError:  # (a distribution that validates its arguments refuses NaN)
                finite = False
            action = int(dist.get_actions(deterministic=True).reshape(-1)[0]) if finite else -1
        if not finite or not mask[action]:  # (a legal logit below sb3's mask of -1e8)
            self.non_finite(state.game.num_players)
        return action

    def non_finite(self, players: int):
        """Raise the PolicyFileError of a network whose outputs overflowed in a game."""
        from meduris_rl.agents.policies.network import PolicyFileError
        path = self.path or shipped_model(players)
        raise PolicyFileError(f"{path}: its policy computed NaN, inf or huge logits in this "
                              "position (its weights are so large that the sums overflow); "
                              "retrain or use another policy file")

    def action_probabilities(self, observation, state) -> np.ndarray:
        """The policy's probability for each of the 241 actions (illegal ones are 0)."""
        import torch

        policy, x = self.inputs(observation, state)
        obs, _ = policy.obs_to_tensor(x)
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=observation["action_mask"]
                                           .astype(bool)[None])
            return dist.distribution.probs[0].cpu().numpy()


class NetworkGuided:
    """What the searches guided by a policy file's networks (``az``, ``gumbel``) share: the
    file loaded and checked when the agent is built (a :class:`PPOAgent`, whose player count and
    value network they take) and its numpy forward passes, built once per policy."""

    def load_networks(self, name: str, path: str | None) -> None:
        """Load the networks of ``path`` (None: the shipped models) and check them now."""
        self.network = PPOAgent(name, path)  # loads (and checks) the policy now
        self._forward: dict[int, object] = {}  # policy id -> its numpy forward pass
        self.value_network(2)  # (checked now, as the policy is)

    def check_players(self, players: int) -> None:
        """As :meth:`PPOAgent.check_players`: the policy file's player count."""
        self.network.check_players(players)

    def value_network(self, players: int):
        """The value network of the policy file (:meth:`PPOAgent.value_network`), or None when
        the file carries none."""
        return self.network.value_network(players)

    def forward_passes(self, policy, n: int):
        """(the policy's numpy forward pass, the value network's or None) for ``n`` players,
        built once per policy."""
        from meduris_rl.agents.policies.network import NumpyForward

        forward = self._forward.get(id(policy))
        if forward is None:
            forward = self._forward[id(policy)] = NumpyForward(policy)
        return forward, self.value_network(n)
