"""The greedy agent of Stone Age (kind ``greedy`` for ``game="stone_age"``): a documented
heuristic, a sensible human's opening book, that reads only what its seat knows (rules section
3: never another seat's face-down card, never the deck's order, which no state holds). It is
compiled in :mod:`meduris_rl.agents.stone_age.policy` (one home: the searches roll out with the
same heuristic); ties go to the lowest action id.

**The horizon.** Rounds left are estimated as ``min(deck / 3, smallest stack * 2)`` (a round
takes about three cards; a stack empties in about two rounds a tile), at least 1.

**Placement (C1)**: each open location gets a value in points and the best is taken:

* a building it can pay now: the most points it can pay (S26), less the resources spent
  (a resource kept is a point at the end, S31);
* a card it can pay now: ``policy.card_worth`` less 0.7 points per resource (cheapest first);
* food security first: when the food it will have at the feeding (food + agriculture) is short
  of its figures, the hunting grounds with enough figures to cover it (1.75 food a figure),
  worth 12 (a shortfall costs up to 10 points, S28);
* the hut (a figure, S17) ``2 + 0.6 x rounds left``, the field (S18) ``0.8 x rounds left``,
  the tool maker (S16) ``0.4 x rounds left`` (none at their caps);
* the remaining figures on a resource site, wood before clay, stone and gold (a figure yields
  3.5 pips: cheap resources waste fewer of them, and every resource is a point at the end).

**Resolution (C2)**: tool maker, hut, field first, then the rolls (hunting, sites), then the
cards and buildings with what the rolls brought. **Tools (C3)**: the subset of unused tools
that reaches the next multiple of the divisor with the least value spent (tiles before
one-use tools), if any does. **Payments (C4, C5, C8)**: cards and shortfalls with the
cheapest resources; buildings with the payment of the most points (every count-kinds
payment is enumerated; any: the seven best resources). A shortfall is paid when it costs at
most 4 resources, else the 10 points are taken. **Dice for all (C6)**: agriculture and a tool
while the horizon is long, then gold, stone, clay, wood. **ANY2 (C7)** and a resource of choice
(C11): gold at once. **Mammoth (C9, C10)**: up to two figures onto the tile while it keeps
food for the feeding; the '1' bonus unless 'all' is worth more (``policy.bonus_worth``).
"""

from __future__ import annotations

import numpy as np

from meduris_rl.agents.base import Agent
from meduris_rl.agents.stone_age.policy import policy_action
from stoneage_env.engine.kernel import W_SIZE


class StoneAgeGreedyAgent(Agent):
    """The heuristic of the module docstring (deterministic: a function of the position)."""

    def __init__(self, name: str = "greedy"):
        super().__init__(name)
        self.work = np.zeros(W_SIZE, dtype=np.int32)

    def act(self, observation, state) -> int:
        return int(policy_action(state.array, self.work, 0.0))
