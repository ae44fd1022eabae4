"""The random and greedy agents."""

from __future__ import annotations

from .base import Agent
from .heuristics import greedy_action


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]


class GreedyAgent(Agent):
    """One-step lookahead on a hand-written evaluation (:mod:`agents.heuristics`).

    Every legal action is tried on a copy of the position and scored by the mover's anticipated
    final VP (VP, rune stones as scored at the end, temples' neighbouring settlements, huts'
    settlement sizes, materials, workers' plains) minus the best opponent's. In effect it builds
    huts where settlements grow and rune stones can be taken (or taken back), temples beside big
    settlements, offers both materials when the settlement pays for them (one when it does not,
    nothing only when it cannot pay), takes scarce materials and returns plentiful ones, and moves
    a worker where the big yield brings it the most. Ties are broken from the agent's seed.
    """

    def act(self, observation, state) -> int:
        game = state.game
        return int(greedy_action(state.array, game.field_materials, game.field_areas,
                                 self.rng.getrandbits(31)))
