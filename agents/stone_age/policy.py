"""The greedy strategy of Stone Age, compiled (numba): one decision of the heuristic
:mod:`meduris_rl.agents.stone_age.greedy` documents (:func:`policy_action`), and playouts of
every seat playing it (:func:`playout`) for the searches. One home for the heuristic: the greedy
agent is this policy with ``epsilon = 0``; a search rolls out with it.

It reads only what the seat to move knows (the digest's section 3): its own goods, tools and
cards, the public board, the number of cards left in the deck (never their order, which no state
holds) and never another seat's face-down card. Ties go to the lowest action id, so a decision is
a function of the position (and of numba's stream only when ``epsilon > 0``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stoneage_env.engine.components import ANY_COST, BUILDINGS, CARDS, FIXED
from stoneage_env.engine.constants import (
    A_ALL,
    A_DECLINE,
    A_FIELD,
    A_GAIN,
    A_HUNT,
    A_HUT,
    A_MOVE,
    A_ONE,
    A_ONE_USE,
    A_PAY,
    A_PENALTY,
    A_PICK,
    A_RESOLVE,
    A_SITE,
    A_SLOT,
    A_STACK,
    A_STOP,
    A_TAKE,
    A_TILE,
    A_TOOL_MAKER,
    A_YIELD,
    BON_AGRI,
    BON_ANY,
    BON_CARD,
    BON_FIGURE,
    BON_RES,
    BON_TOOL,
    BON_VP,
    FARMER,
    GREEN,
    HUT_BUILDER,
    M_ANY_OFFER,
    M_BUILD_PAY,
    M_CARD_PAY,
    M_CHOOSE,
    M_GAIN,
    M_MOVE,
    M_PICK,
    M_PLACE,
    M_REWARD,
    M_SHORT,
    M_TOOLS,
    MAX_AGRICULTURE,
    MAX_FIGURES,
    MAX_TOOLS,
    NUM_ACTIONS,
    NUM_BUILDING_ROWS,
    NUM_CARD_ROWS,
    NUM_SYMBOLS,
    SLOT0,
    STACK0,
    TOOL_MAKER_CARD,
    TOP_AGRI,
    TOP_ANY,
    TOP_CARD,
    TOP_DICE,
    TOP_FOOD,
    TOP_OUT,
    TOP_RES,
    TOP_ROLL,
    TOP_TOOL,
    TOP_VP,
    VALUE,
)
from stoneage_env.engine.kernel import (
    W_IDS,
    W_MASK,
    apply,
    current_player,
    legal_ids,
    sample_outcome,
    tool_value,
)
from stoneage_env.engine.layout import (
    O_ACTOR,
    O_AGRI,
    O_BUILT,
    O_CARDS,
    O_DECK,
    O_DISPLAY,
    O_FIG,
    O_GOODS,
    O_LOC,
    O_MODE,
    O_NP,
    O_ONEUSE,
    O_PAID,
    O_PCOUNT,
    O_PNEED,
    O_RGOODS,
    O_RSUM,
    O_SSIZE,
    O_STOP,
    O_TILES,
    O_TNOW,
    O_TSET,
    O_TSUM,
    O_TUSED,
)

FOOD_PER_HUNTER = 1.75  # a hunter's expected food (3.5 pips / 2)
RESOURCE_COST = 0.7  # what a resource paid for a card costs in points
# C2: the village first (its gains are certain), then the rolls, then the cards and buildings
# with what the rolls brought: tool maker, hut, field, hunting, forest … river, slots, stacks
RESOLVE_ORDER = np.array([5, 6, 7, 0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15], dtype=np.int64)
NO_PLAN = -1


@njit(cache=True, nogil=True)
def rounds_left(st):
    """The horizon: ``min(deck / 3, smallest stack * 2)``, at least 1 (a round takes about three
    cards; a stack empties in about two rounds a tile)."""
    deck = 0
    for c in range(NUM_CARD_ROWS):
        deck += st[O_DECK + c]
    low = 7
    for j in range(st[O_NP]):
        low = min(low, st[O_SSIZE + j])
    return max(1.0, min(deck / 3.0, low * 2.0))


@njit(cache=True, nogil=True)
def held(st, p, with_paid):
    """``p``'s wood … gold (plus what it has paid so far when ``with_paid``)."""
    out = np.zeros(4, np.int64)
    for r in range(4):
        out[r] = st[O_GOODS + p * 5 + 1 + r] + (st[O_PAID + 1 + r] if with_paid else 0)
    return out


@njit(cache=True, nogil=True)
def cheapest(goods, k, plan):
    """The cheapest ``k`` resources of ``goods`` into ``plan``; False if there are fewer."""
    if goods.sum() < k:
        return False
    for r in range(4):
        plan[r] = min(goods[r], k)
        k -= plan[r]
    return True


@njit(cache=True, nogil=True)
def building_payment(row, goods, plan):
    """The payment of the most points for building ``row`` with ``goods`` into ``plan`` (S26);
    its points, or NO_PLAN."""
    kind = BUILDINGS[row, 1]
    if kind == FIXED:
        for r in range(4):
            if goods[r] < BUILDINGS[row, 2 + r]:
                return NO_PLAN
            plan[r] = BUILDINGS[row, 2 + r]
        return BUILDINGS[row, 10]
    if kind == ANY_COST:  # the most valuable first, up to the most allowed
        left = BUILDINGS[row, 9]
        pts = 0
        for r in range(3, -1, -1):
            plan[r] = min(goods[r], left)
            left -= plan[r]
            pts += plan[r] * VALUE[r + 1]
        return pts if BUILDINGS[row, 9] - left >= BUILDINGS[row, 8] else NO_PLAN
    count = BUILDINGS[row, 6]
    kinds = BUILDINGS[row, 7]
    best = NO_PLAN
    for w0 in range(count + 1):  # every count-of-kinds payment (C5)
        for c0 in range(count + 1 - w0):
            for s0 in range(count + 1 - w0 - c0):
                g0 = count - w0 - c0 - s0
                if w0 > goods[0] or c0 > goods[1] or s0 > goods[2] or g0 > goods[3]:
                    continue
                k = (w0 > 0) + (c0 > 0) + (s0 > 0) + (g0 > 0)
                pts = w0 * 3 + c0 * 4 + s0 * 5 + g0 * 6
                if k == kinds and pts > best:
                    best = pts
                    plan[0], plan[1], plan[2], plan[3] = w0, c0, s0, g0
    return best


@njit(cache=True, nogil=True)
def card_worth(st, p, row):
    """What card ``row`` is worth to ``p`` in points: its top now and its bottom at the end (a
    new green symbol completes a bigger set; a sand card multiplies what ``p`` has or will
    have)."""
    top, a, b = CARDS[row, 3], CARDS[row, 4], CARDS[row, 5]
    worth = 0.0
    if top == TOP_FOOD:
        worth = 0.5 * a
    elif top == TOP_RES:
        worth = 0.6 * b * VALUE[a]
    elif top == TOP_DICE or top == TOP_ROLL or top == TOP_TOOL:
        worth = 3.0
    elif top == TOP_OUT:
        worth = 0.8 * a
    elif top == TOP_AGRI:
        worth = min(5.0, 0.8 * rounds_left(st))
    elif top == TOP_CARD:
        worth = 4.0
    elif top == TOP_ANY:
        worth = 5.0
    elif top == TOP_VP:
        worth = 1.0 * a
    bottom = CARDS[row, 1]
    if bottom == GREEN:
        symbols = np.zeros(NUM_SYMBOLS, np.int64)
        for c in range(NUM_CARD_ROWS):
            k = st[O_CARDS + p * NUM_CARD_ROWS + c]
            if k and CARDS[c, 1] == GREEN:
                symbols[CARDS[c, 2]] += k
        level = symbols[CARDS[row, 2]]  # the set this card joins: level + 1
        size = 0
        for s in range(NUM_SYMBOLS):
            if symbols[s] > level:
                size += 1
        return worth + (size + 1) ** 2 - size ** 2
    if bottom == FARMER:
        have = max(st[O_AGRI + p], 4)
    elif bottom == TOOL_MAKER_CARD:
        have = max(tool_value(st, p), 6)
    elif bottom == HUT_BUILDER:
        have = 3
        for r in range(NUM_BUILDING_ROWS):
            have += st[O_BUILT + p * NUM_BUILDING_ROWS + r]
    else:
        have = max(st[O_FIG + p], 7)
    return worth + CARDS[row, 2] * have


@njit(cache=True, nogil=True)
def bonus_worth(kind, a, b, left):
    """A Mammoth bonus in points (M10)."""
    if kind == BON_AGRI:
        return min(5.0, 0.8 * left) * a
    if kind == BON_RES:
        return 0.8 * b * VALUE[a]
    if kind == BON_CARD:
        return 4.0
    if kind == BON_TOOL:
        return 3.0 * a
    if kind == BON_ANY:
        return 4.0 * a
    if kind == BON_FIGURE:
        return (2 + 0.6 * left) * a
    if kind == BON_VP:
        return 1.0 * a
    return 0.0


@njit(cache=True, nogil=True)
def place_value(st, p, a):
    """C1: what placing on ``a`` is worth to ``p`` in points (the greedy module's table)."""
    left = rounds_left(st)
    plan = np.zeros(4, np.int64)
    if a < A_SITE:  # hunting with a + 1 figures: enough to feed the figures, worth 12
        k = a - A_HUNT + 1
        short = st[O_FIG + p] - st[O_GOODS + p * 5] - st[O_AGRI + p]
        need = int(np.ceil(short / FOOD_PER_HUNTER)) if short > 0 else 0
        if need:
            return 12.0 - abs(k - need)
        return 0.5 + 0.1 * k
    if a < A_TOOL_MAKER:  # a site: cheap resources first, more figures better
        site, k = 1 + (a - A_SITE) // 7, (a - A_SITE) % 7 + 1
        return 2.0 + 0.5 * k - 0.3 * site
    if a == A_TOOL_MAKER:
        return 0.4 * left if tool_value(st, p) < MAX_TOOLS else -1.0
    if a == A_HUT:
        return 2.0 + 0.6 * left if st[O_FIG + p] < MAX_FIGURES else -1.0
    if a == A_FIELD:
        return 0.8 * left if st[O_AGRI + p] < MAX_AGRICULTURE else -1.0
    if a < A_STACK:
        slot = a - A_SLOT
        if not cheapest(held(st, p, False), slot + 1, plan):
            return -1.0
        return card_worth(st, p, st[O_DISPLAY + slot]) - RESOURCE_COST * (slot + 1) - 1.0
    pts = building_payment(st[O_STOP + a - A_STACK], held(st, p, False), plan)
    return -1.0 if pts == NO_PLAN else pts - plan.sum()


@njit(cache=True, nogil=True)
def _place(st, w, cnt, p):
    best, best_value = w[W_IDS], -1e9
    for i in range(cnt):  # (ids ascending: a tie keeps the lowest)
        v = place_value(st, p, w[W_IDS + i])
        if v > best_value:
            best, best_value = w[W_IDS + i], v
    return best


@njit(cache=True, nogil=True)
def _tools(st, mask, p):
    """C3: the first tool of the subset of unused tools that reaches the next multiple of the
    divisor with the least value spent (a one-use tool costs 3 more), if one does."""
    d = VALUE[st[O_RGOODS]]
    pips = st[O_RSUM] + st[O_TSUM]
    values = np.zeros(16, np.int64)
    actions = np.zeros(16, np.int64)
    n = 0
    for t in range(3):  # tiles (a tile's action is its value's)
        v = st[O_TILES + p * 3 + t]
        if v and st[O_TUSED + p * 3 + t] == 0 and mask[A_TILE + 4 - v] == 1:
            values[n], actions[n] = v, A_TILE + 4 - v
            n += 1
    for v in range(4, 0, -1):
        if st[O_ONEUSE + p * 4 + v - 1] and mask[A_ONE_USE + 4 - v] == 1:
            values[n], actions[n] = v, A_ONE_USE + 4 - v
            n += 1
    best_gain, best_cost, first = 0, 0, A_YIELD
    for subset in range(1, 1 << n):
        total, cost, lowest = 0, 0, NUM_ACTIONS
        for i in range(n):
            if subset >> i & 1:
                total += values[i]
                cost += values[i] + (3 if actions[i] >= A_ONE_USE else 0)
                lowest = min(lowest, actions[i])
        gain = (pips + total) // d - pips // d
        if gain > best_gain or (gain == best_gain and gain > 0 and cost < best_cost):
            best_gain, best_cost, first = gain, cost, lowest
    return first


@njit(cache=True, nogil=True)
def _follow(st, mask, plan):
    """Pay the next resource of ``plan`` not paid yet, else take."""
    for r in range(4):
        if st[O_PAID + 1 + r] < plan[r] and mask[A_PAY + r] == 1:
            return A_PAY + r
    return A_TAKE


@njit(cache=True, nogil=True)
def _pay_card(st, mask, p):
    """C4: the cheapest resources, or decline a card worth less than them."""
    k = st[O_PNEED]
    plan = np.zeros(4, np.int64)
    if st[O_PCOUNT] == 0:
        worth = card_worth(st, p, st[O_DISPLAY + st[O_LOC] - SLOT0])
        if not cheapest(held(st, p, False), k, plan) or worth < RESOURCE_COST * k:
            return A_DECLINE
    plan[:] = 0
    cheapest(held(st, p, True), k, plan)
    return _follow(st, mask, plan)


@njit(cache=True, nogil=True)
def _pay_building(st, mask, p):
    """C5: the payment of the most points, declined when it is worth no more than spent."""
    row = st[O_STOP + st[O_LOC] - STACK0]
    plan = np.zeros(4, np.int64)
    pts = building_payment(row, held(st, p, True), plan)
    if pts == NO_PLAN or (st[O_PCOUNT] == 0 and pts <= plan.sum()):
        return A_DECLINE
    if BUILDINGS[row, 1] == FIXED:
        return A_TAKE
    if BUILDINGS[row, 1] == ANY_COST:
        same = True
        for r in range(4):
            same = same and st[O_PAID + 1 + r] == plan[r]
        if same:
            return A_TAKE
    return _follow(st, mask, plan)


@njit(cache=True, nogil=True)
def _pay_short(st, mask, p):
    """C8: a shortfall of at most 4 paid with the cheapest resources, else the 10 points."""
    m = st[O_PNEED]
    plan = np.zeros(4, np.int64)
    if st[O_PCOUNT] == 0 and (m > 4 or (mask[A_PENALTY] == 1 and
                                        not cheapest(held(st, p, False), m, plan))):
        return A_PENALTY
    plan[:] = 0
    cheapest(held(st, p, True), m, plan)
    return _follow(st, mask, plan)


@njit(cache=True, nogil=True)
def _pick(st, mask):
    """C6: agriculture and a tool while the game is long, then gold, stone, clay, wood."""
    if rounds_left(st) > 5:
        order = (6, 5, 4, 3, 2, 1)
    else:
        order = (4, 3, 2, 1, 5, 6)
    for f in order:
        if mask[A_PICK + f - 1] == 1:
            return A_PICK + f - 1
    return -1


@njit(cache=True, nogil=True)
def _move(st, mask, p):
    """C9: up to two figures onto the tile while food for the feeding is spare."""
    if st[O_PCOUNT] >= 2:
        return A_STOP
    if st[O_GOODS + p * 5] + st[O_AGRI + p] - st[O_FIG + p] > 0 and mask[A_MOVE] == 1:
        return A_MOVE
    return A_STOP


@njit(cache=True, nogil=True)
def _reward(st):
    """C10: the '1' bonus unless 'all' is worth more."""
    t = O_TSET + st[O_TNOW] * 7
    left = rounds_left(st)
    one = bonus_worth(st[t + 1], st[t + 2], st[t + 3], left)
    every = bonus_worth(st[t + 4], st[t + 5], st[t + 6], left)
    return A_ONE if one >= every else A_ALL


@njit(cache=True, nogil=True)
def greedy_action(st, w, cnt):
    """The greedy decision at ``st`` (a decision node; its ``cnt`` legal ids already in
    ``w``)."""
    mask = w[W_MASK:W_MASK + NUM_ACTIONS]
    mode = st[O_MODE]
    p = st[O_ACTOR]
    a = -1
    if mode == M_PLACE:
        a = _place(st, w, cnt, p)
    elif mode == M_CHOOSE:
        for i in range(16):
            if mask[A_RESOLVE + RESOLVE_ORDER[i]] == 1:
                a = A_RESOLVE + RESOLVE_ORDER[i]
                break
    elif mode == M_TOOLS:
        a = _tools(st, mask, p)
    elif mode == M_CARD_PAY:
        a = _pay_card(st, mask, p)
    elif mode == M_BUILD_PAY:
        a = _pay_building(st, mask, p)
    elif mode == M_SHORT:
        a = _pay_short(st, mask, p)
    elif mode == M_PICK:
        a = _pick(st, mask)
    elif mode == M_ANY_OFFER or mode == M_GAIN:
        a = A_GAIN + 3  # gold (C7, C11)
    elif mode == M_MOVE:
        a = _move(st, mask, p)
    elif mode == M_REWARD:
        a = _reward(st)
    if a < 0 or mask[a] == 0:
        a = w[W_IDS]
    return a


@njit(cache=True, nogil=True)
def policy_action(st, w, epsilon):
    """The policy's decision at ``st`` (a decision node): greedy's, or with probability
    ``epsilon`` a uniform legal one (numba's stream)."""
    cnt = legal_ids(st, w)
    if cnt == 1:
        return w[W_IDS]
    if epsilon > 0 and np.random.random() < epsilon:
        return w[W_IDS + np.random.randint(cnt)]
    return greedy_action(st, w, cnt)


@njit(cache=True, nogil=True)
def playout(st, w, seed, epsilon, max_steps):
    """Play ``st`` on with the policy at every seat (chance by the rules) until the end or
    ``max_steps`` actions; return the actions applied (-1: an error)."""
    np.random.seed(seed)
    steps = 0
    cur = current_player(st)
    while cur != -4 and steps < max_steps:
        if cur == -1:
            a = sample_outcome(st, w)
        else:
            a = policy_action(st, w, epsilon)
        cur = apply(st, w, a)
        steps += 1
        if cur < -4:
            return -1
    return steps


@njit(cache=True, nogil=True)
def seed_numba(seed):
    np.random.seed(seed)


def place_of(a: int) -> int:
    """The location a placement ``a`` puts figures on (hunting 0, sites 1-4, then the village,
    slots and stacks as their locations): what a search's shortlist counts per place."""
    if a < A_SITE:
        return 0
    if a < A_TOOL_MAKER:
        return 1 + (a - A_SITE) // 7
    return 5 + a - A_TOOL_MAKER
