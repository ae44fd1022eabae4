"""The greedy agent of Stone Age (kind ``greedy`` for ``game="stone_age"``): a documented
heuristic, a sensible human's opening book, that reads only what its seat knows (rules section
3: never another seat's face-down card, never the deck's order, which no state holds).

**The horizon.** Rounds left are estimated as ``min(deck / 3, smallest stack * 2)`` (a round
takes about three cards; a stack empties in about two rounds a tile), at least 1.

**Placement (C1)**: each open location gets a value in points and the best is taken:

* a building it can pay now: the most points it can pay (S26), less the resources spent
  (a resource kept is a point at the end, S31);
* a card it can pay now: :func:`card_worth` less 0.7 points per resource (cheapest first);
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
food for the feeding; the '1' bonus unless 'all' is worth more (:func:`bonus_worth`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from meduris_rl.agents.base import Agent
from stoneage_env.engine import constants as C
from stoneage_env.engine.components import ANY_COST, BUILDINGS, CARDS, COUNT_KINDS, FIXED

FOOD_PER_HUNTER = 1.75
RESOURCE_COST = 0.7  # what a resource paid for a card costs in points


def rounds_left(st) -> float:
    n = st.game.num_players
    stacks = [int(x) for x in st.stack_size[:n]]
    return max(1.0, min(int(st.deck.sum()) / 3.0, min(stacks) * 2.0))  # (sizes: public)


def _res(st, seat: int) -> list[int]:
    return [int(x) for x in st.goods[seat, 1:]]


def cheapest(goods: list[int], k: int) -> list[int] | None:
    """The cheapest ``k`` resources of ``goods`` (wood, clay, stone, gold counts) as counts,
    or None."""
    if sum(goods) < k:
        return None
    out = [0, 0, 0, 0]
    for r in range(4):
        take = min(goods[r], k)
        out[r] = take
        k -= take
    return out


def building_payment(row: int, goods: list[int]) -> list[int] | None:
    """The payment of the most points for building ``row`` with ``goods`` (S26), or None."""
    b = BUILDINGS[row]
    kind = int(b[1])
    if kind == FIXED:
        cost = [int(x) for x in b[2:6]]
        return cost if all(g >= c for g, c in zip(goods, cost, strict=True)) else None
    best, best_vp = None, -1
    if kind == COUNT_KINDS:
        count, kinds = int(b[6]), int(b[7])
        for combo in itertools.combinations_with_replacement(range(4), count):
            pay = [combo.count(r) for r in range(4)]
            if sum(1 for p in pay if p) != kinds or any(p > g for p, g in zip(pay, goods,
                                                                              strict=True)):
                continue
            vp = sum(p * int(C.VALUE[r + 1]) for r, p in enumerate(pay))
            if vp > best_vp:
                best, best_vp = pay, vp
        return best
    pay, left = [0, 0, 0, 0], int(b[9])
    for r in (3, 2, 1, 0):  # any: the most valuable first, up to the most allowed
        pay[r] = min(goods[r], left)
        left -= pay[r]
    return pay if sum(pay) >= int(b[8]) else None


def points(pay: list[int]) -> int:
    return sum(p * int(C.VALUE[r + 1]) for r, p in enumerate(pay))


def card_worth(st, seat: int, row: int) -> float:
    """What card ``row`` is worth to ``seat`` in points: its top now and its bottom at the end
    (a new green symbol completes a bigger set; a sand card multiplies what ``seat`` has or
    will have)."""
    _, bottom, bval, top, a, b = (int(x) for x in CARDS[row])
    left = rounds_left(st)
    worth = {C.TOP_FOOD: 0.5 * a, C.TOP_RES: 0.6 * b * int(C.VALUE[a]) if top == C.TOP_RES
             else 0.0, C.TOP_DICE: 3.0, C.TOP_ROLL: 3.0, C.TOP_OUT: 0.8 * a,
             C.TOP_AGRI: min(5.0, 0.8 * left), C.TOP_TOOL: 3.0, C.TOP_CARD: 4.0,
             C.TOP_ANY: 5.0, C.TOP_VP: float(a)}[top]
    if bottom == C.GREEN:
        symbols = np.zeros(C.NUM_SYMBOLS, dtype=int)
        for c, k in enumerate(st.cards[seat].tolist()):
            if k and CARDS[c, 1] == C.GREEN:
                symbols[CARDS[c, 2]] += k
        level = int(symbols[bval])  # the set this card joins: level + 1
        size = int((symbols > level).sum())
        return worth + (size + 1) ** 2 - size ** 2
    have = {C.FARMER: max(int(st.agriculture[seat]), 4),
            C.TOOL_MAKER_CARD: max(int(st.tiles[seat].sum()), 6),
            C.HUT_BUILDER: int(st.built[seat].sum()) + 3,
            C.SHAMAN: max(int(st.figures[seat]), 7)}[bottom]
    return worth + bval * have


def bonus_worth(kind: int, a: int, b: int, left: float) -> float:
    """A Mammoth bonus in points (M10)."""
    return {C.BON_AGRI: min(5.0, 0.8 * left) * a, C.BON_RES: 0.8 * b * int(C.VALUE[a])
            if kind == C.BON_RES else 0.0, C.BON_CARD: 4.0, C.BON_TOOL: 3.0 * a,
            C.BON_ANY: 4.0 * a, C.BON_FIGURE: (2 + 0.6 * left) * a, C.BON_VP: float(a)}[kind]


class StoneAgeGreedyAgent(Agent):
    """The heuristic of the module docstring."""

    def __init__(self, name: str = "greedy"):
        super().__init__(name)
        self.plan: list[int] | None = None  # the payment (counts) being paid, for C4/C5/C8

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        mode = int(state.mode)
        seat = state.current_player()
        handler = {C.M_PLACE: self.place, C.M_CHOOSE: self.choose, C.M_TOOLS: self.tools,
                   C.M_CARD_PAY: self.pay_card, C.M_BUILD_PAY: self.pay_building,
                   C.M_SHORT: self.pay_short, C.M_PICK: self.pick, C.M_ANY_OFFER: self.gain,
                   C.M_GAIN: self.gain, C.M_MOVE: self.move, C.M_REWARD: self.reward}[mode]
        action = handler(state, seat, legal)
        return action if action in legal else legal[0]

    # --- C1 ----------------------------------------------------------------------------------
    def place(self, st, seat: int, legal: list[int]) -> int:
        options = [(self.place_value(st, seat, a), -a, a) for a in legal]
        return max(options)[2]

    def place_value(self, st, seat: int, a: int) -> float:
        left = rounds_left(st)
        goods = _res(st, seat)
        if a < C.A_SITE:  # hunting with a + 1 figures
            k = a - C.A_HUNT + 1
            short = int(st.figures[seat]) - int(st.goods[seat, C.FOOD]) - \
                int(st.agriculture[seat])
            need = math.ceil(short / FOOD_PER_HUNTER) if short > 0 else 0
            if need:
                return 12.0 - abs(k - need)
            return 0.5 + 0.1 * k
        if a < C.A_TOOL_MAKER:  # a site: cheap resources first, more figures better
            site, k = 1 + (a - C.A_SITE) // 7, (a - C.A_SITE) % 7 + 1
            return 2.0 + 0.5 * k - 0.3 * site
        if a == C.A_TOOL_MAKER:
            return 0.4 * left if st.tiles[seat].sum() < C.MAX_TOOLS else -1.0
        if a == C.A_HUT:
            return 2.0 + 0.6 * left if st.figures[seat] < C.MAX_FIGURES else -1.0
        if a == C.A_FIELD:
            return 0.8 * left if st.agriculture[seat] < C.MAX_AGRICULTURE else -1.0
        if a < C.A_STACK:
            slot = a - C.A_SLOT
            pay = cheapest(goods, slot + 1)
            if pay is None:
                return -1.0
            return card_worth(st, seat, int(st.display[slot])) - RESOURCE_COST * sum(pay) - 1.0
        pay = building_payment(int(st.stack_top[a - C.A_STACK]), goods)
        return -1.0 if pay is None else points(pay) - sum(pay)

    # --- C2 ----------------------------------------------------------------------------------
    @staticmethod
    def choose(st, seat: int, legal: list[int]) -> int:
        order = [C.TOOL_MAKER, C.HUT, C.FIELD, C.HUNT, C.FOREST, C.CLAY_PIT, C.QUARRY,
                 C.RIVER] + list(range(C.SLOT0, C.SLOT0 + 4)) + list(range(C.STACK0,
                                                                        C.STACK0 + 4))
        return next(C.A_RESOLVE + loc for loc in order if C.A_RESOLVE + loc in legal)

    # --- C3 ----------------------------------------------------------------------------------
    @staticmethod
    def tools(st, seat: int, legal: list[int]) -> int:
        d = int(C.VALUE[st.roll_goods])
        pips = int(st.roll_sum) + int(st.tool_sum)
        items = [a for a in legal if a != C.A_YIELD]  # each a tool kind (tiles may repeat)
        pool = []
        for a in items:
            v = 4 - (a - C.A_TILE) if a < C.A_ONE_USE else 4 - (a - C.A_ONE_USE)
            copies = 1 if a >= C.A_ONE_USE else sum(
                1 for t, u in zip(st.tiles[seat], st.tile_used[seat], strict=True)
                if t == v and not u)
            pool += [(v, a >= C.A_ONE_USE, a)] * copies
        best = (0, 0.0, None)  # (gain, -cost, first action)
        for size in range(1, len(pool) + 1):
            for subset in itertools.combinations(pool, size):
                total = sum(v for v, _, _ in subset)
                gain = (pips + total) // d - pips // d
                cost = total + sum(3 for _, one_use, _ in subset if one_use)
                first = min(a for _, _, a in subset)
                if gain > best[0] or (gain == best[0] and gain and -cost > best[1]):
                    best = (gain, -cost, first)
        return best[2] if best[2] is not None else C.A_YIELD

    # --- C4, C5, C8: payments ---------------------------------------------------------------
    def follow(self, st, seat: int, legal: list[int], plan: list[int]) -> int:
        paid = [int(x) for x in st.paid[1:]]
        for r in range(4):
            if paid[r] < plan[r] and C.A_PAY + r in legal:
                return C.A_PAY + r
        return C.A_TAKE

    def pay_card(self, st, seat: int, legal: list[int]) -> int:
        k = int(st.pay_need)
        if st.pay_count == 0:
            slot = int(st.loc) - C.SLOT0
            plan = cheapest(_res(st, seat), k)
            worth = card_worth(st, seat, int(st.display[slot]))
            if plan is None or worth < RESOURCE_COST * k:
                return C.A_DECLINE
        plan = cheapest([int(st.goods[seat, r + 1]) + int(st.paid[r + 1]) for r in range(4)], k)
        return self.follow(st, seat, legal, plan or [0, 0, 0, 0])

    def pay_building(self, st, seat: int, legal: list[int]) -> int:
        row = int(st.stack_top[int(st.loc) - C.STACK0])
        held = [int(st.goods[seat, r + 1]) + int(st.paid[r + 1]) for r in range(4)]
        plan = building_payment(row, held)
        if plan is None or (st.pay_count == 0 and points(plan) <= sum(plan)):
            return C.A_DECLINE if C.A_DECLINE in legal else legal[0]
        if int(BUILDINGS[row, 1]) == FIXED:
            return C.A_TAKE
        if int(BUILDINGS[row, 1]) == ANY_COST and list(map(int, st.paid[1:])) == plan:
            return C.A_TAKE
        return self.follow(st, seat, legal, plan)

    def pay_short(self, st, seat: int, legal: list[int]) -> int:
        m = int(st.pay_need)
        if st.pay_count == 0 and (m > 4 or C.A_PENALTY in legal and
                                  cheapest(_res(st, seat), m) is None):
            return C.A_PENALTY
        held = [int(st.goods[seat, r + 1]) + int(st.paid[r + 1]) for r in range(4)]
        return self.follow(st, seat, legal, cheapest(held, m) or [0, 0, 0, 0])

    # --- C6, C7, C9, C10, C11 ---------------------------------------------------------------
    @staticmethod
    def pick(st, seat: int, legal: list[int]) -> int:
        long_game = rounds_left(st) > 5
        order = ([6, 5] if long_game else []) + [4, 3, 2, 1] + ([] if long_game else [5, 6])
        return next(C.A_PICK + f - 1 for f in order if C.A_PICK + f - 1 in legal)

    @staticmethod
    def gain(st, seat: int, legal: list[int]) -> int:
        return C.A_GAIN + 3 if C.A_GAIN + 3 in legal else legal[0]

    @staticmethod
    def move(st, seat: int, legal: list[int]) -> int:
        if st.pay_count >= 2:
            return C.A_STOP
        spare = int(st.goods[seat, C.FOOD]) + int(st.agriculture[seat]) - int(st.figures[seat])
        if spare > 0 and C.A_MOVE + C.FOOD in legal:
            return C.A_MOVE + C.FOOD
        return C.A_STOP

    @staticmethod
    def reward(st, seat: int, legal: list[int]) -> int:
        row = st.game.tile_table[int(st.tile_now)]
        left = rounds_left(st)
        one = bonus_worth(*(int(x) for x in row[1:4]), left)
        every = bonus_worth(*(int(x) for x in row[4:7]), left)
        return C.A_ONE if one >= every else C.A_ALL
