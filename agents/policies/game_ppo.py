"""The PPO agent of a game that plays a policy network on its own features (Druids', Stone
Age's; Meduris's has its batch forms, :mod:`meduris_rl.agents.meduris.ppo`): the most probable
legal action of a trained MaskablePPO policy, deterministic given the position, reading only
what the seat's features hold.

``ppo`` plays the shipped model for the game's player count (``agents/models/<prefix>_<n>p.pt``);
``ppo:<policy.pt>`` another policy file of a run of that game. A policy file of another game, of
another player count, or a missing shipped model is one line
(:class:`~meduris_rl.agents.base.UnknownAgentError`) when the agent is built or, for a player
count only known at the first decision, then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from meduris_rl.agents.base import Agent, UnknownAgentError
from meduris_rl.agents.policies.ppo import MODELS, load_policy_and_architecture


@dataclass(frozen=True)
class PolicyGame:
    """What the agent needs of a game: its names, its shipped models' prefix, its features."""

    name: str  # the row's name, e.g. "druids"
    title: str  # in messages, e.g. "Druids"
    prefix: str  # shipped models are agents/models/<prefix>_<n>p.pt
    features: Callable  # features(state, seat, feature_set, observation=None)
    feature_set_of_size: Callable  # inputs -> feature set name

    def shipped_model(self, players: int) -> Path:
        return MODELS / f"{self.prefix}_{players}p.pt"


def network_action(game: PolicyGame, forward, feature_set: str, state, observation=None) -> int:
    """The most probable legal action of a policy network (``forward``: its
    :class:`~meduris_rl.agents.policies.network.NumpyForward`, on ``feature_set`` inputs) for
    the seat to move in ``state`` (``observation``: that seat's observation tensor, if already
    computed)."""
    x = game.features(state, state.current_player(), feature_set, observation)
    logits = forward.logits(x[None])[0]
    return int(np.argmax(np.where(state.legal_action_mask().astype(bool), logits, -np.inf)))


class GamePPOAgent(Agent):
    """Plays the policy's most probable legal action (see the module docstring)."""

    game: PolicyGame  # set by each game's subclass

    def __init__(self, name: str, path: str | None = None):
        super().__init__(name)
        self.path = Path(path) if path else None
        self._forward: dict[int, tuple] = {}  # player count (0: the file's) -> (forward, set)
        if self.path is not None:
            self._forward[0] = self._load(self.path)
        else:  # the 2-player model ships: check now that it is there (the others when asked)
            self._forward[2] = self._load(self.game.shipped_model(2), 2)

    def _load(self, path: Path, players: int | None = None) -> tuple:
        from meduris_rl.agents.policies.network import NumpyForward, PolicyFileError, check_players
        if self.path is None and not path.is_file():
            raise UnknownAgentError(f"agent {self.name!r}: no shipped {self.game.title} model "
                                    f"for {players} players ({path.name}); train one with "
                                    f"`meduris train --game {self.game.name} --players "
                                    f"{players}` and play it as ppo:<run>/best.pt")
        policy, arch = load_policy_and_architecture(path, self.name, self.game.name)
        try:
            if players is not None:
                check_players(arch, path, players)
        except PolicyFileError as err:
            raise UnknownAgentError(f"agent {self.name!r}: {err}") from None
        return NumpyForward(policy), self.game.feature_set_of_size(arch["inputs"]), arch

    def check_players(self, players: int) -> None:
        """UnknownAgentError (one line) when this agent cannot play ``players`` players."""
        self._for(players)

    def _for(self, players: int) -> tuple:
        if 0 in self._forward:
            forward, feature_set, arch = self._forward[0]
            from meduris_rl.agents.policies.network import PolicyFileError, check_players
            try:
                check_players(arch, self.path, players)
            except PolicyFileError as err:
                raise UnknownAgentError(f"agent {self.name!r}: {err}") from None
            return forward, feature_set
        if players not in self._forward:
            self._forward[players] = self._load(self.game.shipped_model(players), players)
        forward, feature_set, _ = self._forward[players]
        return forward, feature_set

    def act(self, observation, state) -> int:
        forward, feature_set = self._for(state.game.num_players)
        return network_action(self.game, forward, feature_set, state,
                              None if observation is None else observation["observation"])
