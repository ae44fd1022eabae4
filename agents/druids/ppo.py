"""The ``ppo`` agent of Druids: a trained MaskablePPO policy (``meduris train --game druids``)
playing its most probable legal action on the seat's features
(:mod:`meduris_rl.agents.druids.features`, so it reads only what its seat knows, D14): the
game-neutral :class:`~meduris_rl.agents.policies.game_ppo.GamePPOAgent` with Druids' features.

``ppo`` plays the shipped model for the game's player count (``agents/models/
druids_ppo_<n>p.pt``; 2 players ship); ``ppo:<policy.pt>`` another policy file of a Druids run.
"""

from __future__ import annotations

from pathlib import Path

from meduris_rl.agents.druids.features import feature_set_of_size, features
from meduris_rl.agents.policies.game_ppo import GamePPOAgent, PolicyGame, network_action

DRUIDS = PolicyGame("druids", "Druids", "druids_ppo", features, feature_set_of_size)


def shipped_model(players: int) -> Path:
    """The shipped Druids policy for a player count (``agents/models/druids_ppo_<n>p.pt``)."""
    return DRUIDS.shipped_model(players)


class DruidsPPOAgent(GamePPOAgent):
    """Plays the policy's most probable legal action (deterministic given the position)."""

    game = DRUIDS


def policy_action(forward, feature_set: str, state, observation=None) -> int:
    """The most probable legal action of a Druids policy network for the seat to move."""
    return network_action(DRUIDS, forward, feature_set, state, observation)
