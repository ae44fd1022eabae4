"""The random agent: uniform over the legal actions of any game."""

from __future__ import annotations

from meduris_rl.agents.base import Agent


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]
