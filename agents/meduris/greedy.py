"""The greedy agent of Meduris (kind ``greedy``): one step of lookahead on a hand-written
evaluation (:mod:`meduris_rl.agents.meduris.heuristics`)."""

from __future__ import annotations

from meduris_rl.agents.base import Agent
from meduris_rl.agents.meduris.heuristics import greedy_action


class GreedyAgent(Agent):
    """One-step lookahead on a hand-written evaluation
    (:mod:`meduris_rl.agents.meduris.heuristics`).

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
