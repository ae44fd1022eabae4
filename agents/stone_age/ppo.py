"""The ``ppo`` agent of Stone Age: a trained MaskablePPO policy (``meduris train --game
stone_age``) playing its most probable legal action on the seat's features
(:mod:`meduris_rl.agents.stone_age.features`: it reads only what its seat knows): the
game-neutral :class:`~meduris_rl.agents.policies.game_ppo.GamePPOAgent`. ``ppo`` plays the
shipped model for the game's player count (``agents/models/stone_age_ppo_<n>p.pt``; 2 players
ship); ``ppo:<policy.pt>`` another policy file of a Stone Age run.
"""

from __future__ import annotations

from meduris_rl.agents.policies.game_ppo import GamePPOAgent, PolicyGame, network_action
from meduris_rl.agents.stone_age.features import feature_set_of_size, features

STONE_AGE = PolicyGame("stone_age", "Stone Age", "stone_age_ppo", features, feature_set_of_size)


class StoneAgePPOAgent(GamePPOAgent):
    """Plays the policy's most probable legal action (deterministic given the position)."""

    game = STONE_AGE


def policy_action(forward, feature_set: str, state, observation=None) -> int:
    """The most probable legal action of a Stone Age policy network for the seat to move."""
    return network_action(STONE_AGE, forward, feature_set, state, observation)
