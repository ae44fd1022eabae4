"""A compiled default policy for Stone Age and playouts with it: what a search rolls out with
(numba, no Python per step; :func:`policy_action`, :func:`playout`).

The policy is a light heuristic of one decision, reading only the seat's own goods and the
public board (never a face-down card): **placement** — hunting when the food at the next feeding
falls short of the figures, else a building it can pay, the card it can pay that is worth most
(:func:`card_worth`, the greedy agent's reckoning) if it is worth more than its resources, the
hut, the field, the tool maker while the game is young, else the cheapest site with all its
figures; **resolution** — village first, then rolls, then cards and buildings; **tools** — the
largest unused tool while the roll is short of the next multiple of the divisor and the tools
can reach it; **payments** — cards and shortfalls (of at most 4) paid cheapest first,
buildings with the payment of the most points (:func:`best_payment`); **dice for all** — the
highest face; **ANY2 and choices** — gold; **Mammoth** — no move, the "1" bonus. With
probability ``epsilon`` a decision is uniform instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .components import BUILDINGS, CARDS
from .constants import (
    A_FIELD,
    A_GAIN,
    A_HUNT,
    A_HUT,
    A_ONE,
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
    ANY_COST,
    COUNT_KINDS,
    FIXED,
    GREEN,
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
    NUM_ACTIONS,
    NUM_CARD_ROWS,
    NUM_SYMBOLS,
    STACK0,
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
from .kernel import (
    W_IDS,
    W_MASK,
    apply,
    current_player,
    legal_ids,
    resources,
    sample_outcome,
)
from .layout import (
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
    O_PNEED,
    O_RGOODS,
    O_RSUM,
    O_SSIZE,
    O_STOP,
    O_TILES,
    O_TSUM,
    O_TUSED,
    O_UNPL,
)

RESOLVE_ORDER = np.array([5, 6, 7, 0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15], dtype=np.int64)


@njit(cache=True, nogil=True)
def _can_build(st, p, row):
    kind = BUILDINGS[row, 1]
    if kind == FIXED:
        for r in range(4):
            if st[O_GOODS + p * 5 + 1 + r] < BUILDINGS[row, 2 + r]:
                return False
        return True
    kinds = 0
    for r in range(4):
        if st[O_GOODS + p * 5 + 1 + r] > 0:
            kinds += 1
    if kind == COUNT_KINDS:
        return resources(st, p, 1) >= BUILDINGS[row, 6] and kinds >= BUILDINGS[row, 7]
    return resources(st, p, 1) >= 1


@njit(cache=True, nogil=True)
def _rounds_left(st):
    deck = 0
    for c in range(NUM_CARD_ROWS):
        deck += st[O_DECK + c]
    low = 7
    for j in range(st[O_NP]):
        low = min(low, st[O_SSIZE + j])
    return max(1.0, min(deck / 3.0, low * 2.0))


@njit(cache=True, nogil=True)
def card_worth(st, p, row):
    """The card's worth to ``p`` in points (its top now, its bottom at the end), as the
    greedy agent reckons it (agents/stone_age/greedy.py)."""
    top = CARDS[row, 3]
    a = CARDS[row, 4]
    b = CARDS[row, 5]
    left = _rounds_left(st)
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
        worth = min(5.0, 0.8 * left)
    elif top == TOP_CARD:
        worth = 4.0
    elif top == TOP_ANY:
        worth = 5.0
    elif top == TOP_VP:
        worth = 1.0 * a
    if CARDS[row, 1] == GREEN:
        symbols = np.zeros(NUM_SYMBOLS, np.int64)
        for c in range(NUM_CARD_ROWS):
            k = st[O_CARDS + p * NUM_CARD_ROWS + c]
            if k and CARDS[c, 1] == GREEN:
                symbols[CARDS[c, 2]] += k
        level = symbols[CARDS[row, 2]]
        size = 0
        for s in range(NUM_SYMBOLS):
            if symbols[s] > level:
                size += 1
        return worth + (size + 1) ** 2 - size ** 2
    bottom = CARDS[row, 1]
    if bottom == 1:
        have = max(st[O_AGRI + p], 4)
    elif bottom == 2:
        have = max(st[O_TILES + p * 3] + st[O_TILES + p * 3 + 1] + st[O_TILES + p * 3 + 2], 6)
    elif bottom == 3:
        have = 3
        for r in range(22):
            have += st[O_BUILT + p * 22 + r]
    else:
        have = max(st[O_FIG + p], 7)
    return worth + CARDS[row, 2] * have


@njit(cache=True, nogil=True)
def best_payment(st, p, row, plan):
    """The payment of the most points for building ``row`` with what ``p`` holds and has
    paid so far, into ``plan`` (4 counts); its points (-1: none)."""
    held = np.zeros(4, np.int64)
    for r in range(4):
        held[r] = st[O_GOODS + p * 5 + 1 + r] + st[O_PAID + 1 + r]
    kind = BUILDINGS[row, 1]
    if kind == FIXED:
        for r in range(4):
            if held[r] < BUILDINGS[row, 2 + r]:
                return -1
            plan[r] = BUILDINGS[row, 2 + r]
        return BUILDINGS[row, 10]
    if kind == ANY_COST:
        left = BUILDINGS[row, 9]
        pts = 0
        for r in range(3, -1, -1):
            plan[r] = min(held[r], left)
            left -= plan[r]
            pts += plan[r] * VALUE[r + 1]
        return pts if BUILDINGS[row, 9] - left >= BUILDINGS[row, 8] else -1
    count = BUILDINGS[row, 6]
    kinds = BUILDINGS[row, 7]
    best = -1
    for w0 in range(count + 1):
        for c0 in range(count + 1 - w0):
            for s0 in range(count + 1 - w0 - c0):
                g0 = count - w0 - c0 - s0
                if w0 > held[0] or c0 > held[1] or s0 > held[2] or g0 > held[3]:
                    continue
                k = (w0 > 0) + (c0 > 0) + (s0 > 0) + (g0 > 0)
                pts = w0 * 3 + c0 * 4 + s0 * 5 + g0 * 6
                if k == kinds and pts > best:
                    best = pts
                    plan[0] = w0
                    plan[1] = c0
                    plan[2] = s0
                    plan[3] = g0
    return best


@njit(cache=True, nogil=True)
def _place(st, mask, p):
    deck = 0
    for c in range(NUM_CARD_ROWS):
        deck += st[O_DECK + c]
    short = st[O_FIG + p] - st[O_GOODS + p * 5] - st[O_AGRI + p]
    if short > 0:
        k = min(st[O_UNPL + p], (short * 4 + 6) // 7)
        for c in range(k, 0, -1):
            if mask[A_HUNT + c - 1] == 1:
                return A_HUNT + c - 1
    for j in range(4):
        if mask[A_STACK + j] == 1 and _can_build(st, p, st[O_STOP + j]):
            return A_STACK + j
    best = -1
    best_worth = 1.0
    for s in range(4):
        if mask[A_SLOT + s] == 1 and resources(st, p, 1) >= s + 1:
            worth = card_worth(st, p, st[O_DISPLAY + s]) - 0.7 * (s + 1)
            if worth > best_worth:
                best, best_worth = s, worth
    if best >= 0:
        return A_SLOT + best
    if mask[A_HUT] == 1 and st[O_FIG + p] < 10 and deck > 12:
        return A_HUT
    if mask[A_FIELD] == 1 and st[O_AGRI + p] < 10 and deck > 8:
        return A_FIELD
    tools = st[O_TILES + p * 3] + st[O_TILES + p * 3 + 1] + st[O_TILES + p * 3 + 2]
    if mask[A_TOOL_MAKER] == 1 and tools < 9 and deck > 12:
        return A_TOOL_MAKER
    for site in range(4):
        for c in range(7, 0, -1):
            if mask[A_SITE + site * 7 + c - 1] == 1:
                return A_SITE + site * 7 + c - 1
    return -1


@njit(cache=True, nogil=True)
def _tools(st, mask, p):
    d = VALUE[st[O_RGOODS]]
    pips = st[O_RSUM] + st[O_TSUM]
    need = d - pips % d
    if need == d:
        return A_YIELD
    left = 0
    for t in range(3):
        if st[O_TUSED + p * 3 + t] == 0:
            left += st[O_TILES + p * 3 + t]
    for v in range(4):
        left += (v + 1) * st[O_ONEUSE + p * 4 + v]
    if left < need:
        return A_YIELD
    for a in range(A_TILE, A_YIELD):
        if mask[a] == 1:
            return a
    return A_YIELD


@njit(cache=True, nogil=True)
def _pay_building(st, mask, p):
    """Follow the payment of the most points; take the tile when it is paid."""
    plan = np.zeros(4, np.int64)
    row = st[O_STOP + st[O_LOC] - STACK0]
    if best_payment(st, p, row, plan) < 0:
        return -1
    if mask[A_TAKE] == 1 and BUILDINGS[row, 1] == FIXED:
        return A_TAKE
    for r in range(4):
        if st[O_PAID + 1 + r] < plan[r] and mask[A_PAY + r] == 1:
            return A_PAY + r
    return A_TAKE


@njit(cache=True, nogil=True)
def policy_action(st, w, epsilon):
    """The policy's decision at ``st`` (a decision node); the legal ids are in ``w``."""
    cnt = legal_ids(st, w)
    if cnt == 1:
        return w[W_IDS]
    if np.random.random() < epsilon:
        return w[W_IDS + np.random.randint(cnt)]
    mask = w[W_MASK:W_MASK + NUM_ACTIONS]
    mode = st[O_MODE]
    p = st[O_ACTOR]
    a = -1
    if mode == M_PLACE:
        a = _place(st, mask, p)
    elif mode == M_CHOOSE:
        for i in range(16):
            if mask[A_RESOLVE + RESOLVE_ORDER[i]] == 1:
                a = A_RESOLVE + RESOLVE_ORDER[i]
                break
    elif mode == M_TOOLS:
        a = _tools(st, mask, p)
    elif mode == M_BUILD_PAY:
        a = _pay_building(st, mask, p)
    elif mode == M_CARD_PAY:
        for r in range(4):
            if mask[A_PAY + r] == 1:
                a = A_PAY + r
                break
    elif mode == M_SHORT:
        if st[O_PNEED] > 4 and mask[A_PENALTY] == 1:
            a = A_PENALTY
        else:
            for r in range(4):
                if mask[A_PAY + r] == 1:
                    a = A_PAY + r
                    break
    elif mode == M_PICK:
        for f in range(5, -1, -1):
            if mask[A_PICK + f] == 1:
                a = A_PICK + f
                break
    elif mode == M_ANY_OFFER or mode == M_GAIN:
        a = A_GAIN + 3
    elif mode == M_MOVE:
        a = A_STOP
    elif mode == M_REWARD:
        a = A_ONE
    if a < 0 or mask[a] == 0:
        a = w[W_IDS + np.random.randint(cnt)]
    return a


@njit(cache=True, nogil=True)
def playout(st, w, seed, epsilon, max_steps):
    """Play ``st`` on with the policy (chance by the rules) until the end or ``max_steps``
    actions; return the actions applied (-1: an error)."""
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
