"""The rules of Stone Age as numba kernels over the flat int32 state (layout.py).

Every public kernel takes ``st`` (the state array, which holds the game's parameters and its
Mammoth tile set too) and ``w``, the thread's work array (int32 [W_SIZE]: the step's events,
the legal mask and ids, the chance weights). :func:`apply` checks the action first and returns
a status; it never changes ``st`` when the action is not legal. Events are rows of
:data:`EV_WIDTH` ints at ``w[W_EV:]``, their count at ``w[W_EVC]``.

How the game moves: ``phase`` is the part of the round (S8) and ``mode`` the node inside it — a
decision of ``actor`` (C1-C11) or a chance event. An action or outcome finishes its step and
sets ``mode`` to ``M_NONE``; :func:`_advance` then runs the rules until the next node that needs
someone: :func:`_flow` starts what the phase does next (the next placer, the next location, the
next feeder, the round's end …), and a decision with a single legal action is applied at once
(the rules leave nothing to choose). Every kernel is ``nogil``: it touches only its arguments.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .components import ANY_N, BUILDINGS, CARDS
from .constants import (
    A_ALL,
    A_DECLINE,
    A_FIELD,
    A_GAIN,
    A_HUNT,
    A_HUT,
    A_KEEP,
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
    C_BACK,
    C_BUILDING,
    C_CARD,
    C_DIE,
    C_TILE,
    COUNT_KINDS,
    END_DECK,
    END_STACK,
    END_TRUNCATED,
    FIELD,
    FIXED,
    FOOD,
    GREEN,
    HUNGER_PENALTY,
    HUT,
    M_ANY_OFFER,
    M_BACK,
    M_BUILD_PAY,
    M_CARD_PAY,
    M_CHOOSE,
    M_DFA_ROLL,
    M_FILL,
    M_FLIP,
    M_GAIN,
    M_MOVE,
    M_NONE,
    M_OVER,
    M_PICK,
    M_PLACE,
    M_REVEAL,
    M_REWARD,
    M_ROLL,
    M_SECRET,
    M_SHORT,
    M_TAME_ROLL,
    M_TOOLS,
    MAX_AGRICULTURE,
    MAX_FIGURES,
    MAX_TOOLS,
    NUM_ACTIONS,
    NUM_BUILDING_ROWS,
    NUM_CARD_ROWS,
    NUM_CHANCE_OUTCOMES,
    NUM_GOODS,
    NUM_LOCATIONS,
    NUM_SLOTS,
    NUM_SOURCES,
    NUM_SYMBOLS,
    PH_ACT,
    PH_FEED,
    PH_OVER,
    PH_PLACE,
    PH_SETUP,
    PH_START,
    PH_TAME,
    SITE_CAPACITY,
    SLOT0,
    SRC_BUILDINGS,
    SRC_CARD_VP,
    SRC_FARMERS,
    SRC_GREEN,
    SRC_HUNGER,
    SRC_HUT_BUILDERS,
    SRC_MAJORITY,
    SRC_MAMMOTH_VP,
    SRC_RESOURCES,
    SRC_SHAMANS,
    SRC_TOOL_MAKERS,
    STACK0,
    TOOL_MAKER,
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
from .layout import (
    O_ACTOR,
    O_AGRI,
    O_ANY,
    O_BACK,
    O_BUILT,
    O_CARDS,
    O_CBACK,
    O_CLEFT,
    O_DECK,
    O_DFA,
    O_DFAPICKER,
    O_DISPLAY,
    O_END,
    O_FEEDI,
    O_FIG,
    O_FSLOT,
    O_GOODS,
    O_HERD,
    O_LOC,
    O_MAMMOTH,
    O_MAXR,
    O_MODE,
    O_MOVESMAX,
    O_NP,
    O_NSTACKS,
    O_NTILES,
    O_ONEUSE,
    O_ONTILE,
    O_PAID,
    O_PCOUNT,
    O_PHASE,
    O_PLACED,
    O_PLAST,
    O_PNEED,
    O_RDICE,
    O_RGOODS,
    O_RLEFT,
    O_ROUND,
    O_RSTACK,
    O_RSUM,
    O_RWI,
    O_RWN,
    O_RWSEAT,
    O_RWSTEP,
    O_RWWHICH,
    O_SCORE,
    O_SECRET,
    O_SRC,
    O_SSEAT,
    O_SSIZE,
    O_START,
    O_STOP,
    O_TAMEI,
    O_TAMELEFT,
    O_TDICE,
    O_TILES,
    O_TLAST,
    O_TNOW,
    O_TSEAT,
    O_TSET,
    O_TSTATE,
    O_TSUM,
    O_TUSED,
    O_TWIN,
    O_UNPL,
    O_UNSEEN,
    O_WON,
)

EV_WIDTH = 5
EV_CAPACITY = 1024
# the work array (int32, one per thread): the events of the step being applied, the legal
# mask, the legal ids and the chance weights; one argument instead of four (numba's call costs
# about 90 ns per array argument, paid on every action)
W_EVC = 0
W_EV = 1
W_MASK = W_EV + EV_CAPACITY * EV_WIDTH
W_IDS = W_MASK + NUM_ACTIONS
W_WEIGHTS = W_IDS + NUM_ACTIONS
W_SIZE = W_WEIGHTS + NUM_CHANCE_OUTCOMES
ILLEGAL = -100
OVERFLOW = -101

# event kinds: rows are (kind, seat, a, b, c); events.py names the columns
EV_DEAL = 1  # -, slot, card row
EV_REVEAL = 2  # -, stack, building row
EV_BACK = 3  # -, resource
EV_FLIP = 4  # -, tile, herd site
EV_ROUND = 5  # start player, round
EV_PLACE = 6  # seat, location, figures
EV_RESOLVE = 7  # seat, location
EV_DIE = 8  # seat, face, what (0 a roll, 1 dice for all, 2 taming)
EV_TOOL = 9  # seat, value, 0 tile / 1 one-use
EV_YIELD = 10  # seat, goods, amount, pips with tools
EV_TOOL_STEP = 11  # seat, tool value after, 1 if it changed anything
EV_FIGURE = 12  # seat, figures after, 1 if it changed anything
EV_AGRI = 13  # seat, level after, 1 if it changed anything
EV_PAY = 14  # seat, goods, amount
EV_CARD = 15  # seat, card row, slot
EV_DECLINE = 16  # seat, location
EV_BUILD = 17  # seat, building row, VP
EV_GAIN = 18  # seat, goods, amount
EV_VP = 19  # seat, points, source
EV_PICK = 20  # seat, face
EV_SECRET = 21  # seat, card row (private to the seat)
EV_NO_CARD = 22  # seat
EV_MOVE = 23  # seat, goods paid
EV_TAME = 24  # winner (-1 none), tile, participants
EV_REWARD = 25  # seat, tile, 1 the "1" bonus / 2 the "all" bonus
EV_FEED = 26  # seat, food eaten, food gained from agriculture
EV_SHORT = 27  # seat, food missing, 0 paid in resources / 1 penalty
EV_END = 28  # -, end reason
EV_SCORE = 29  # seat, source, points (final scoring)
EV_CLAIM = 30  # seat, resource (an ANY2 claim or a bonus of choice)
EV_KEEP = 31  # seat
EV_HERD_GONE = 32  # - (the pile is empty: no herd from now on, M3)
EV_STOP = 33  # seat, figures moved onto the tile
EV_ONE_USE = 34  # seat, value (an OUT card laid beside the board)


# --- small helpers ------------------------------------------------------------------------------

@njit(cache=True, nogil=True, inline="always")
def _ev(w, kind, seat, a, b, c):
    i = w[W_EVC]
    if i < EV_CAPACITY:
        j = W_EV + i * EV_WIDTH
        w[j] = kind
        w[j + 1] = seat
        w[j + 2] = a
        w[j + 3] = b
        w[j + 4] = c
    w[W_EVC] = i + 1


@njit(cache=True, nogil=True, inline="always")
def _g(st, p, g):
    return O_GOODS + p * NUM_GOODS + g


@njit(cache=True, nogil=True)
def _add_vp(st, p, n, source):
    st[O_SCORE + p] += n
    st[O_SRC + p * NUM_SOURCES + source] += n


@njit(cache=True, nogil=True)
def tool_value(st, p):
    """The sum of ``p``'s tool tiles (S16; one-use tools are not in it, X15)."""
    t = 0
    for i in range(3):
        t += st[O_TILES + p * 3 + i]
    return t


@njit(cache=True, nogil=True)
def _tool_step(st, p, w):
    """S16, X8: a new value-1 tile while there are fewer than 3, else raise the lowest tile
    (an unused one first); nothing at 12."""
    changed = 0
    if tool_value(st, p) < MAX_TOOLS:
        changed = 1
        empty = -1
        for i in range(3):
            if st[O_TILES + p * 3 + i] == 0 and empty < 0:
                empty = i
        if empty >= 0:
            st[O_TILES + p * 3 + empty] = 1
            st[O_TUSED + p * 3 + empty] = 0
        else:
            best = -1
            for i in range(3):
                v = st[O_TILES + p * 3 + i]
                if best < 0:
                    best = i
                else:
                    bv = st[O_TILES + p * 3 + best]
                    if v < bv or (v == bv and st[O_TUSED + p * 3 + best] == 1
                                  and st[O_TUSED + p * 3 + i] == 0):
                        best = i
            st[O_TILES + p * 3 + best] += 1
    _ev(w, EV_TOOL_STEP, p, tool_value(st, p), changed, 0)


@njit(cache=True, nogil=True)
def _track_up(st, at, cap, kind, p, w):
    """X9: ``p``'s track ``st[at]`` +1 unless it is at ``cap``; the event ``kind`` says the
    level after and whether it changed anything."""
    changed = 0
    if st[at] < cap:
        st[at] += 1
        changed = 1
    _ev(w, kind, p, st[at], changed, 0)


@njit(cache=True, nogil=True)
def _gain_figure(st, p, w):
    """S17, X9, X22: a figure from the supply (fed this round, placed from the next)."""
    _track_up(st, O_FIG + p, MAX_FIGURES, EV_FIGURE, p, w)


@njit(cache=True, nogil=True)
def _gain_agri(st, p, w):
    """S18, X9: agriculture +1, at most 10."""
    _track_up(st, O_AGRI + p, MAX_AGRICULTURE, EV_AGRI, p, w)


@njit(cache=True, nogil=True)
def _gain(st, p, g, n, w):
    st[_g(st, p, g)] += n
    _ev(w, EV_GAIN, p, g, n, 0)


@njit(cache=True, nogil=True)
def _deck_size(st):
    t = 0
    for c in range(NUM_CARD_ROWS):
        t += st[O_DECK + c]
    return t


@njit(cache=True, nogil=True)
def _pile(st, back):
    """Mammoth tiles still in the pile (with the given back; back 0: any)."""
    t = 0
    for i in range(st[O_NTILES]):
        if st[O_TSTATE + i] == 0 and (back == 0 or st[O_TSET + i * 7] == back):
            t += 1
    return t


@njit(cache=True, nogil=True)
def _has_unused_tools(st, p):
    for i in range(3):
        if st[O_TILES + p * 3 + i] > 0 and st[O_TUSED + p * 3 + i] == 0:
            return True
    for v in range(4):
        if st[O_ONEUSE + p * 4 + v] > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def resources(st, p, first):
    """The resources of ``p`` of kinds ``first`` … gold."""
    t = 0
    for g in range(first, NUM_GOODS):
        t += st[_g(st, p, g)]
    return t


@njit(cache=True, nogil=True)
def _start_payment(st, mode, need):
    st[O_MODE] = mode
    st[O_PCOUNT] = 0
    st[O_PNEED] = need
    st[O_PLAST] = 0 if mode == M_MOVE else 1
    for g in range(NUM_GOODS):
        st[O_PAID + g] = 0


# --- placement (S9-S12, M4) --------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _location_open(st, p, loc):
    """Can ``p`` put figures on ``loc`` now (S9-S11, M4), figures permitting? Returns the
    most figures ``p`` may put there (0: closed)."""
    n = st[O_NP]
    free_figs = st[O_UNPL + p]
    if free_figs <= 0 or st[O_PLACED + loc * 4 + p] > 0:  # S11 (i), X2
        return 0
    if loc == 0:
        return free_figs
    total = 0
    others = 0
    for q in range(n):
        k = st[O_PLACED + loc * 4 + q]
        total += k
        if k > 0 and q != p:
            others += 1
    if loc <= 4:
        if n < 4 and not (st[O_MAMMOTH] == 1 and st[O_HERD] == loc):  # S10 (b), M4
            if others >= n - 1:
                return 0
        room = SITE_CAPACITY - total
        return room if room < free_figs else free_figs
    if total > 0:
        return 0
    if loc <= FIELD:
        if n < 4:  # S10 (a): two of the three village locations at most
            used = 0
            for v in range(TOOL_MAKER, FIELD + 1):
                for q in range(n):
                    if st[O_PLACED + v * 4 + q] > 0:
                        used += 1
                        break
            if used >= 2:
                return 0
        if loc == HUT:
            return 2 if free_figs >= 2 else 0  # X5
        return 1
    if loc < STACK0:
        return 1 if st[O_DISPLAY + loc - SLOT0] >= 0 else 0
    j = loc - STACK0
    if j >= st[O_NSTACKS] or st[O_SSIZE + j] == 0 or st[O_STOP + j] < 0:
        return 0
    return 1


@njit(cache=True, nogil=True)
def _place_mask(st, p, mask):
    cnt = 0
    for loc in range(NUM_LOCATIONS):
        most = _location_open(st, p, loc)
        if most == 0:
            continue
        if loc == 0:
            for c in range(most):
                mask[A_HUNT + c] = 1
            cnt += most
        elif loc <= 4:
            for c in range(most):
                mask[A_SITE + (loc - 1) * 7 + c] = 1
            cnt += most
        else:
            mask[_place_action(loc)] = 1
            cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def _place_action(loc):
    if loc == TOOL_MAKER:
        return A_TOOL_MAKER
    if loc == HUT:
        return A_HUT
    if loc == FIELD:
        return A_FIELD
    if loc < STACK0:
        return A_SLOT + loc - SLOT0
    return A_STACK + loc - STACK0


@njit(cache=True, nogil=True)
def _decode_place(a):
    """(location, figures) of a placement action."""
    if a < A_SITE:
        return 0, a - A_HUNT + 1
    if a < A_TOOL_MAKER:
        return 1 + (a - A_SITE) // 7, (a - A_SITE) % 7 + 1
    if a == A_TOOL_MAKER:
        return TOOL_MAKER, 1
    if a == A_HUT:
        return HUT, 2
    if a == A_FIELD:
        return FIELD, 1
    if a < A_STACK:
        return SLOT0 + a - A_SLOT, 1
    return STACK0 + a - A_STACK, 1


# --- payments (C4, C5, C8, C9) -----------------------------------------------------------------

@njit(cache=True, nogil=True)
def _count_kinds_open(st, p, x, n_total, k_kinds):
    """C5, S26, X19: after paying one more ``x`` can the payment still end with exactly
    ``n_total`` resources of exactly ``k_kinds`` kinds (only kinds ``x`` … gold may follow)?"""
    paid = np.zeros(5, np.int64)
    for g in range(1, NUM_GOODS):
        paid[g] = st[O_PAID + g]
    paid[x] += 1
    count = 0
    used = 0
    for g in range(1, NUM_GOODS):
        count += paid[g]
        if paid[g] > 0:
            used += 1
    if used > k_kinds or count > n_total:
        return False
    rest = n_total - count
    new_needed = k_kinds - used
    if new_needed > rest:
        return False
    capacity = 0
    cand = np.zeros(4, np.int64)
    nc = 0
    for g in range(x, NUM_GOODS):
        h = st[_g(st, p, g)] - (1 if g == x else 0)
        if paid[g] > 0:
            capacity += h
        elif h > 0:
            cand[nc] = h
            nc += 1
    if nc < new_needed:
        return False
    sorted_c = np.sort(cand[:nc])[::-1]
    for i in range(new_needed):
        capacity += sorted_c[i]
    return capacity >= rest


@njit(cache=True, nogil=True)
def _pay_toward_need(st, p, mask, count):
    """C4, C8: the resources ``p`` may pay next toward ``pay_need`` pieces (``count`` paid so
    far; kinds in order from the last paid, and enough left to reach the need); how many."""
    cnt = 0
    need = st[O_PNEED]
    for x in range(st[O_PLAST], NUM_GOODS):
        if st[_g(st, p, x)] > 0 and resources(st, p, x) >= need - count:
            mask[A_PAY + x - 1] = 1
            cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def _pay_mask(st, p, mask):
    """The payment steps of a card, a building or a shortfall (C4, C5, C8)."""
    mode = st[O_MODE]
    count = st[O_PCOUNT]
    cnt = 0
    at_start = count == 0
    if at_start and st[O_ANY + p] > 0:  # X13: the ANY2 claim's window
        for r in range(4):
            mask[A_GAIN + r] = 1
        cnt += 4
    if mode == M_SHORT:
        if at_start:
            mask[A_PENALTY] = 1
            cnt += 1
        return cnt + _pay_toward_need(st, p, mask, count)
    if at_start:
        mask[A_DECLINE] = 1
        cnt += 1
    if mode == M_CARD_PAY:
        return cnt + _pay_toward_need(st, p, mask, count)
    b = st[O_STOP + st[O_LOC] - STACK0]
    kind = BUILDINGS[b, 1]
    if kind == FIXED:
        ok = True
        for r in range(4):
            if st[_g(st, p, r + 1)] < BUILDINGS[b, 2 + r]:
                ok = False
        if ok:
            mask[A_TAKE] = 1
            cnt += 1
        return cnt
    if kind == COUNT_KINDS:
        for x in range(st[O_PLAST], NUM_GOODS):
            if st[_g(st, p, x)] > 0 and _count_kinds_open(st, p, x, BUILDINGS[b, 6],
                                                          BUILDINGS[b, 7]):
                mask[A_PAY + x - 1] = 1
                cnt += 1
        return cnt
    if count < BUILDINGS[b, 9]:
        for x in range(st[O_PLAST], NUM_GOODS):
            if st[_g(st, p, x)] > 0:
                mask[A_PAY + x - 1] = 1
                cnt += 1
    if count >= BUILDINGS[b, 8]:
        mask[A_TAKE] = 1
        cnt += 1
    return cnt


# --- the legal actions -------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def legal_mask(st, mask):
    """Fill ``mask`` (int8 [NUM_ACTIONS]) with the legal actions; return how many. All zero
    at chance nodes and the end."""
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    mode = st[O_MODE]
    p = st[O_ACTOR]
    if p < 0:
        return 0
    if mode == M_PLACE:
        return _place_mask(st, p, mask)
    if mode == M_CHOOSE:
        cnt = 0
        for loc in range(NUM_LOCATIONS):
            if st[O_PLACED + loc * 4 + p] > 0:
                mask[A_RESOLVE + loc] = 1
                cnt += 1
        return cnt
    if mode == M_TOOLS:
        return _tools_mask(st, p, mask)
    if mode == M_CARD_PAY or mode == M_BUILD_PAY or mode == M_SHORT:
        return _pay_mask(st, p, mask)
    if mode == M_MOVE:
        cnt = 1
        mask[A_STOP] = 1
        if st[O_PCOUNT] == 0 and st[O_ANY + p] > 0:
            for r in range(4):
                mask[A_GAIN + r] = 1
            cnt += 4
        if st[O_PCOUNT] < st[O_MOVESMAX]:
            for g in range(st[O_PLAST], NUM_GOODS):
                if st[_g(st, p, g)] > 0:
                    mask[A_MOVE + g] = 1
                    cnt += 1
        return cnt
    if mode == M_PICK:
        cnt = 0
        for f in range(6):
            if st[O_DFA + f] > 0:
                mask[A_PICK + f] = 1
                cnt += 1
        return cnt
    if mode == M_GAIN or mode == M_ANY_OFFER:
        for r in range(4):
            mask[A_GAIN + r] = 1
        if mode == M_ANY_OFFER:
            mask[A_KEEP] = 1
            return 5
        return 4
    if mode == M_REWARD:
        mask[A_ONE] = 1
        mask[A_ALL] = 1
        return 2
    return 0



@njit(cache=True, nogil=True)
def _tools_mask(st, p, mask):
    """C3, S15, X7: tiles by falling value, then one-use tools by falling value (each set of
    tools is one sequence), and the yield."""
    mask[A_YIELD] = 1
    cnt = 1
    last = st[O_TLAST]
    for i in range(4):  # tile of value 4 - i
        if i < last:
            continue
        v = 4 - i
        for t in range(3):
            if st[O_TILES + p * 3 + t] == v and st[O_TUSED + p * 3 + t] == 0:
                mask[A_TILE + i] = 1
                cnt += 1
                break
    for i in range(4):  # one-use tool of value 4 - i
        if 4 + i < last:
            continue
        if st[O_ONEUSE + p * 4 + 3 - i] > 0:
            mask[A_ONE_USE + i] = 1
            cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def legal_ids(st, w):
    """The legal decisions' ids into ``w[W_IDS:]`` (and the mask into ``w[W_MASK:]``);
    return how many."""
    mask = w[W_MASK:W_MASK + NUM_ACTIONS]
    cnt = legal_mask(st, mask)
    k = 0
    for a in range(NUM_ACTIONS):
        if mask[a] == 1:
            w[W_IDS + k] = a
            k += 1
    return cnt


# --- chance --------------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def chance_weights(st, w):
    """The weights of this chance node's outcomes into ``w[W_WEIGHTS:]`` (indexed by id -
    C_DIE; an outcome's probability is its weight over the sum); return the sum (0: not a
    chance node). Each weight is a count of equally likely things: faces, cards left, tiles
    never seen, Mammoth tiles in the pile."""
    for i in range(NUM_CHANCE_OUTCOMES):
        w[W_WEIGHTS + i] = 0
    mode = st[O_MODE]
    total = 0
    if mode == M_ROLL or mode == M_DFA_ROLL or mode == M_TAME_ROLL:
        for f in range(6):
            w[W_WEIGHTS + f] = 1
        return 6
    if mode == M_FILL or mode == M_SECRET:
        for c in range(NUM_CARD_ROWS):
            w[W_WEIGHTS + C_CARD - C_DIE + c] = st[O_DECK + c]
            total += st[O_DECK + c]
        return total
    if mode == M_REVEAL:
        for b in range(NUM_BUILDING_ROWS):
            w[W_WEIGHTS + C_BUILDING - C_DIE + b] = st[O_UNSEEN + b]
            total += st[O_UNSEEN + b]
        return total
    if mode == M_BACK:
        for r in range(1, 5):
            k = _pile(st, r)
            w[W_WEIGHTS + C_BACK - C_DIE + r - 1] = k
            total += k
        return total
    if mode == M_FLIP:
        back = st[O_BACK]
        for i in range(st[O_NTILES]):
            if st[O_TSTATE + i] == 0 and st[O_TSET + i * 7] == back:
                w[W_WEIGHTS + C_TILE - C_DIE + i] = 1
                total += 1
        return total
    return 0


@njit(cache=True, nogil=True)
def _face_up(st, row, at_pending, at_places, at_pool, kind, w):
    """A piece of ``row`` leaves its face-down pool (per row at ``at_pool``) face up for the
    place the pending field ``at_pending`` names (places at ``at_places``), which then clears:
    a card dealt to a display slot (S29) or a building turned on its stack (S6)."""
    place = st[at_pending]
    st[at_places + place] = row
    st[at_pool + row] -= 1
    st[at_pending] = -1
    _ev(w, kind, -1, place, row, 0)


@njit(cache=True, nogil=True)
def _chance(st, a, w):
    """Apply the chance outcome ``a`` (checked possible)."""
    mode = st[O_MODE]
    if mode == M_ROLL or mode == M_DFA_ROLL or mode == M_TAME_ROLL:
        _die(st, a - C_DIE + 1, w)
        return
    if mode == M_FILL:
        _face_up(st, a - C_CARD, O_FSLOT, O_DISPLAY, O_DECK, EV_DEAL, w)
    elif mode == M_SECRET:
        c = a - C_CARD
        p = st[O_SSEAT]
        st[O_DECK + c] -= 1
        st[O_CARDS + p * NUM_CARD_ROWS + c] += 1
        st[O_SECRET + p * NUM_CARD_ROWS + c] += 1
        st[O_SSEAT] = -1
        _ev(w, EV_SECRET, p, c, 0, 0)
    elif mode == M_REVEAL:
        _face_up(st, a - C_BUILDING, O_RSTACK, O_STOP, O_UNSEEN, EV_REVEAL, w)
    elif mode == M_BACK:
        st[O_BACK] = a - C_BACK + 1
        _ev(w, EV_BACK, -1, a - C_BACK + 1, 0, 0)
    elif mode == M_FLIP:
        t = a - C_TILE
        st[O_TSTATE + t] = 1
        st[O_TNOW] = t
        st[O_HERD] = st[O_BACK]
        st[O_BACK] = -1
        _ev(w, EV_FLIP, -1, t, st[O_HERD], 0)
    st[O_MODE] = M_NONE


@njit(cache=True, nogil=True)
def _die(st, face, w):
    mode = st[O_MODE]
    if mode == M_ROLL:
        p = st[O_TSEAT]
        _ev(w, EV_DIE, p, face, 0, 0)
        st[O_RSUM] += face
        st[O_RLEFT] -= 1
        if st[O_RLEFT] == 0:
            st[O_TSUM] = 0
            st[O_TLAST] = -1
            if _has_unused_tools(st, p):
                st[O_MODE] = M_TOOLS
                st[O_ACTOR] = p
            else:
                _yield(st, p, w)
        return
    if mode == M_DFA_ROLL:
        _ev(w, EV_DIE, st[O_TSEAT], face, 1, 0)
        st[O_DFA + face - 1] += 1
        st[O_RLEFT] -= 1
        if st[O_RLEFT] == 0:
            st[O_DFAPICKER] = st[O_TSEAT]
            st[O_MODE] = M_PICK
            st[O_ACTOR] = st[O_TSEAT]
        return
    p = st[O_TSEAT]  # the participant rolling (M6)
    _ev(w, EV_DIE, p, face, 2, 0)
    st[O_TDICE + p * 6 + face - 1] += 1
    st[O_TAMELEFT] -= 1
    if st[O_TAMELEFT] == 0:
        st[O_MODE] = M_NONE


# --- resolving a location (S13-S26, M5) --------------------------------------------------------

@njit(cache=True, nogil=True)
def _location_done(st, p):
    loc = st[O_LOC]
    if loc >= 0:
        st[O_PLACED + loc * 4 + p] = 0
    st[O_LOC] = -1
    st[O_MODE] = M_NONE


@njit(cache=True, nogil=True)
def _yield(st, p, w):
    """S14: the roll's yield; then the herd's site offers the move (M5), else the location
    (or the ROLL card) is done."""
    g = st[O_RGOODS]
    total = st[O_RSUM] + st[O_TSUM]
    n = total // VALUE[g]
    st[_g(st, p, g)] += n
    _ev(w, EV_YIELD, p, g, n, total)
    loc = st[O_LOC]
    if loc >= 1 and loc <= 4 and st[O_MAMMOTH] == 1 and st[O_HERD] == loc \
            and st[O_TNOW] >= 0:
        st[O_MOVESMAX] = st[O_PLACED + loc * 4 + p]
        _start_payment(st, M_MOVE, 0)
        st[O_ACTOR] = p
        return
    _location_done(st, p)


@njit(cache=True, nogil=True)
def _start_roll(st, goods, dice):
    """A roll of ``dice`` dice for ``goods`` (0 food … 4 gold) begins: chance rolls them one
    by one (S12, S20)."""
    st[O_RGOODS] = goods
    st[O_RDICE] = dice
    st[O_RLEFT] = dice
    st[O_RSUM] = 0
    st[O_MODE] = M_ROLL
    st[O_ACTOR] = -1


@njit(cache=True, nogil=True)
def _resolve(st, p, loc, w):
    """C2: start resolving ``loc``."""
    st[O_LOC] = loc
    _ev(w, EV_RESOLVE, p, loc, 0, 0)
    if loc <= 4:
        _start_roll(st, loc, st[O_PLACED + loc * 4 + p])
        return
    if loc == TOOL_MAKER:
        _tool_step(st, p, w)
    elif loc == HUT:
        _gain_figure(st, p, w)
    elif loc == FIELD:
        _gain_agri(st, p, w)
    elif loc < STACK0:
        _start_payment(st, M_CARD_PAY, loc - SLOT0 + 1)  # S19, X17: slot k costs k
        return
    else:
        _start_payment(st, M_BUILD_PAY, 0)
        return
    _location_done(st, p)


@njit(cache=True, nogil=True)
def _take_card(st, p, w):
    """S19, S20: the card is the player's; its top applies at once."""
    slot = st[O_LOC] - SLOT0
    c = st[O_DISPLAY + slot]
    st[O_DISPLAY + slot] = -1
    st[O_CARDS + p * NUM_CARD_ROWS + c] += 1
    _ev(w, EV_CARD, p, c, slot, 0)
    _location_done(st, p)  # the figure goes home; the top may still ask for more
    code = CARDS[c, 3]
    a = CARDS[c, 4]
    b = CARDS[c, 5]
    if code == TOP_FOOD:
        _gain(st, p, FOOD, a, w)
    elif code == TOP_RES:
        _gain(st, p, a, b, w)
    elif code == TOP_DICE:  # S21: one die per player
        for f in range(6):
            st[O_DFA + f] = 0
        st[O_RLEFT] = st[O_NP]
        st[O_MODE] = M_DFA_ROLL
        st[O_ACTOR] = -1
    elif code == TOP_ROLL:  # S20: 2 dice, tools allowed
        _start_roll(st, a, b)
    elif code == TOP_OUT:  # S22
        st[O_ONEUSE + p * 4 + a - 1] += 1
        _ev(w, EV_ONE_USE, p, a, 0, 0)
    elif code == TOP_AGRI:
        for _ in range(a):
            _gain_agri(st, p, w)
    elif code == TOP_TOOL:
        for _ in range(a):
            _tool_step(st, p, w)
    elif code == TOP_CARD:  # S24, X11
        _draw_secret(st, p, w)
    elif code == TOP_ANY:  # S23, X13: claim now or keep
        st[O_ANY + p] += 1
        st[O_MODE] = M_ANY_OFFER
        st[O_ACTOR] = p
    elif code == TOP_VP:
        _add_vp(st, p, a, SRC_CARD_VP)
        _ev(w, EV_VP, p, a, SRC_CARD_VP, 0)


@njit(cache=True, nogil=True)
def _draw_secret(st, p, w):
    """S24, M10, X11: the deck's top card, face down, for ``p`` (nothing from an empty deck)."""
    if _deck_size(st) == 0:
        _ev(w, EV_NO_CARD, p, 0, 0, 0)
        return
    st[O_SSEAT] = p
    st[O_MODE] = M_SECRET
    st[O_ACTOR] = -1


@njit(cache=True, nogil=True)
def _build(st, p, w):
    """S25, S26: the tile is the player's, its VP scored; the stack's next tile turns."""
    j = st[O_LOC] - STACK0
    b = st[O_STOP + j]
    vp = BUILDINGS[b, 10]
    if BUILDINGS[b, 1] == FIXED:
        for r in range(4):
            n = BUILDINGS[b, 2 + r]
            if n > 0:
                st[_g(st, p, r + 1)] -= n
                _ev(w, EV_PAY, p, r + 1, n, 0)
    else:
        vp = 0
        for g in range(1, NUM_GOODS):
            vp += st[O_PAID + g] * VALUE[g]
    st[O_BUILT + p * NUM_BUILDING_ROWS + b] += 1
    st[O_SSIZE + j] -= 1
    st[O_STOP + j] = -1
    _add_vp(st, p, vp, SRC_BUILDINGS)
    _ev(w, EV_BUILD, p, b, vp, 0)
    _location_done(st, p)
    if st[O_SSIZE + j] > 0:
        st[O_RSTACK] = j
        st[O_MODE] = M_REVEAL
        st[O_ACTOR] = -1


@njit(cache=True, nogil=True)
def _paid_one(st, p, x, w):
    """One resource paid in a card, building or shortfall payment; completes it when the
    amount is reached (cards, count-kinds tiles, shortfalls)."""
    st[_g(st, p, x)] -= 1
    st[O_PAID + x] += 1
    st[O_PCOUNT] += 1
    st[O_PLAST] = x
    _ev(w, EV_PAY, p, x, 1, 0)
    mode = st[O_MODE]
    count = st[O_PCOUNT]
    if mode == M_CARD_PAY:
        if count == st[O_PNEED]:
            _take_card(st, p, w)
    elif mode == M_SHORT:
        if count == st[O_PNEED]:
            _ev(w, EV_SHORT, p, count, 0, 0)
            _fed(st)
    else:
        b = st[O_STOP + st[O_LOC] - STACK0]
        if BUILDINGS[b, 1] == COUNT_KINDS and count == BUILDINGS[b, 6]:
            _build(st, p, w)


# --- decisions ---------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _decide(st, a, w):
    """Apply the legal decision ``a`` of the actor."""
    p = st[O_ACTOR]
    mode = st[O_MODE]
    if mode == M_PLACE:
        loc, k = _decode_place(a)
        st[O_PLACED + loc * 4 + p] += k
        st[O_UNPL + p] -= k
        _ev(w, EV_PLACE, p, loc, k, 0)
        st[O_TSEAT] = (p + 1) % st[O_NP]
        st[O_MODE] = M_NONE
    elif mode == M_CHOOSE:
        _resolve(st, p, a - A_RESOLVE, w)
    elif mode == M_TOOLS:
        _tool_decision(st, p, a, w)
    elif a >= A_GAIN and a < A_GAIN + 4:
        _claim(st, p, a - A_GAIN + 1, w)
    elif mode == M_ANY_OFFER:  # A_KEEP
        _ev(w, EV_KEEP, p, 0, 0, 0)
        st[O_MODE] = M_NONE
    elif mode == M_PICK:
        _pick(st, p, a - A_PICK + 1, w)
    elif mode == M_MOVE:
        if a == A_STOP:
            _ev(w, EV_STOP, p, st[O_PCOUNT], 0, 0)
            _location_done(st, p)
        else:
            g = a - A_MOVE
            st[_g(st, p, g)] -= 1
            st[O_PCOUNT] += 1
            st[O_PLAST] = g
            st[O_ONTILE + p] += 1
            st[O_PLACED + st[O_LOC] * 4 + p] -= 1  # the figure leaves the site for the tile
            _ev(w, EV_MOVE, p, g, 0, 0)
    elif mode == M_REWARD:
        st[O_RWWHICH] = 1 if a == A_ONE else 2
        st[O_MODE] = M_NONE
    elif a == A_DECLINE:
        _ev(w, EV_DECLINE, p, st[O_LOC], 0, 0)
        _location_done(st, p)
    elif a == A_PENALTY:
        _add_vp(st, p, -HUNGER_PENALTY, SRC_HUNGER)
        _ev(w, EV_SHORT, p, st[O_PNEED], 1, 0)
        _fed(st)
    elif a == A_TAKE:
        _build(st, p, w)
    else:
        _paid_one(st, p, a - A_PAY + 1, w)


@njit(cache=True, nogil=True)
def _tool_decision(st, p, a, w):
    if a == A_YIELD:
        _yield(st, p, w)
        return
    if a < A_ONE_USE:
        i = a - A_TILE
        v = 4 - i
        for t in range(3):
            if st[O_TILES + p * 3 + t] == v and st[O_TUSED + p * 3 + t] == 0:
                st[O_TUSED + p * 3 + t] = 1
                break
        _ev(w, EV_TOOL, p, v, 0, 0)
    else:
        i = 4 + a - A_ONE_USE
        v = 8 - i
        st[O_ONEUSE + p * 4 + v - 1] -= 1
        _ev(w, EV_TOOL, p, v, 1, 0)
    st[O_TSUM] += v
    st[O_TLAST] = i
    if not _has_unused_tools_after(st, p, i):
        _yield(st, p, w)


@njit(cache=True, nogil=True)
def _has_unused_tools_after(st, p, last):
    """Is there a tool the canonical order still allows after ``last``?"""
    for i in range(last, 4):
        for t in range(3):
            if st[O_TILES + p * 3 + t] == 4 - i and st[O_TUSED + p * 3 + t] == 0:
                return True
    for i in range(4):
        if 4 + i >= last and st[O_ONEUSE + p * 4 + 3 - i] > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _claim(st, p, r, w):
    """C7 / C11: take one resource ``r`` of a claim; the first one of an ANY2 claim starts
    it (X13), at the card's taking or at a payment's window."""
    mode = st[O_MODE]
    if mode != M_GAIN:  # an ANY2 claim starts (M_ANY_OFFER or a payment's window)
        st[O_ANY + p] -= 1
        st[O_CLEFT] = ANY_N
        st[O_CBACK] = M_NONE if mode == M_ANY_OFFER else mode
    st[_g(st, p, r)] += 1
    _ev(w, EV_CLAIM, p, r, 0, 0)
    st[O_CLEFT] -= 1
    if st[O_CLEFT] > 0:
        st[O_MODE] = M_GAIN
    else:
        st[O_MODE] = st[O_CBACK]
        st[O_CBACK] = M_NONE


@njit(cache=True, nogil=True)
def _pick(st, p, face, w):
    """S21, X10: ``p`` takes a die showing ``face``."""
    st[O_DFA + face - 1] -= 1
    _ev(w, EV_PICK, p, face, 0, 0)
    if face <= 4:
        _gain(st, p, face, 1, w)
    elif face == 5:
        _tool_step(st, p, w)
    else:
        _gain_agri(st, p, w)
    left = 0
    for f in range(6):
        left += st[O_DFA + f]
    if left == 0:
        st[O_MODE] = M_NONE
        st[O_ACTOR] = st[O_TSEAT]
    else:
        nxt = (p + 1) % st[O_NP]
        st[O_DFAPICKER] = nxt
        st[O_ACTOR] = nxt


# --- the flow of a round (S8) ------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _flow(st, w):
    """Start the phase's next step (``mode`` is M_NONE)."""
    phase = st[O_PHASE]
    if phase == PH_SETUP or phase == PH_START:
        _flow_start(st, w)
    elif phase == PH_PLACE:
        _flow_place(st)
    elif phase == PH_ACT:
        _flow_act(st, w)
    elif phase == PH_TAME:
        _flow_tame(st, w)
    elif phase == PH_FEED:
        _flow_feed(st, w)


@njit(cache=True, nogil=True)
def _flow_start(st, w):
    """S5, S6, M2 (setup) and S29, M3 (a round's start): deal, turn, flip, then placement."""
    for s in range(NUM_SLOTS):
        if st[O_DISPLAY + s] < 0:
            st[O_FSLOT] = s
            st[O_MODE] = M_FILL
            st[O_ACTOR] = -1
            return
    for j in range(st[O_NSTACKS]):
        if st[O_STOP + j] < 0 and st[O_SSIZE + j] > 0:
            st[O_RSTACK] = j
            st[O_MODE] = M_REVEAL
            st[O_ACTOR] = -1
            return
    if st[O_MAMMOTH] == 1:
        if st[O_PHASE] == PH_SETUP:
            if st[O_BACK] < 0 and _pile(st, 0) > 0:  # M2: the pile's top back shows
                st[O_MODE] = M_BACK
                st[O_ACTOR] = -1
                return
            st[O_PHASE] = PH_START
        if st[O_TNOW] < 0 and st[O_BACK] > 0:  # M3: the herd moves, the tile turns
            st[O_MODE] = M_FLIP
            st[O_ACTOR] = -1
            return
        if st[O_TNOW] >= 0 and st[O_BACK] < 0 and _pile(st, 0) > 0:
            st[O_MODE] = M_BACK
            st[O_ACTOR] = -1
            return
        if st[O_TNOW] < 0 and st[O_HERD] >= 0:  # M3: the pile is empty
            st[O_HERD] = -1
            _ev(w, EV_HERD_GONE, -1, 0, 0, 0)
    st[O_PHASE] = PH_PLACE
    st[O_TSEAT] = st[O_START]
    for p in range(st[O_NP]):
        st[O_UNPL + p] = st[O_FIG + p]
    _ev(w, EV_ROUND, st[O_START], st[O_ROUND], 0, 0)


@njit(cache=True, nogil=True)
def _flow_place(st):
    """S11, S12: the next seat (clockwise) with a legal placement places; none: actions."""
    n = st[O_NP]
    for i in range(n):
        p = (st[O_TSEAT] + i) % n
        if st[O_UNPL + p] > 0 and _can_place(st, p):
            st[O_ACTOR] = p
            st[O_MODE] = M_PLACE
            return
    st[O_PHASE] = PH_ACT
    st[O_TSEAT] = st[O_START]
    st[O_FEEDI] = 0


@njit(cache=True, nogil=True)
def _can_place(st, p):
    for loc in range(NUM_LOCATIONS):
        if _location_open(st, p, loc) > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _flow_act(st, w):
    """S13: each seat from the start player resolves all its locations, then the next."""
    n = st[O_NP]
    while st[O_FEEDI] < n:
        p = (st[O_START] + st[O_FEEDI]) % n
        st[O_TSEAT] = p
        for loc in range(NUM_LOCATIONS):
            if st[O_PLACED + loc * 4 + p] > 0:
                st[O_ACTOR] = p
                st[O_MODE] = M_CHOOSE
                return
        st[O_FEEDI] += 1
    st[O_FEEDI] = 0
    if st[O_MAMMOTH] == 1 and st[O_TNOW] >= 0:
        st[O_PHASE] = PH_TAME
        st[O_TAMEI] = 0
        st[O_RWN] = -1
        st[O_TWIN] = -1
    else:
        st[O_PHASE] = PH_FEED


@njit(cache=True, nogil=True)
def _flow_tame(st, w):
    """M6-M9: the participants roll (from the start player), the winner chooses, the bonuses
    go winner first (no winner: from the start player), the figures go home."""
    n = st[O_NP]
    while st[O_TAMEI] < n:  # M6: each participant's dice
        p = (st[O_START] + st[O_TAMEI]) % n
        st[O_TAMEI] += 1
        if st[O_ONTILE + p] > 0:
            st[O_TAMELEFT] = st[O_ONTILE + p]
            st[O_TSEAT] = p
            st[O_MODE] = M_TAME_ROLL
            return
    t = st[O_TNOW]
    if st[O_RWN] < 0:  # M7, M8: the comparison and the order of the rewards
        _tame_order(st, w)
        if st[O_TWIN] >= 0:
            st[O_ACTOR] = st[O_TWIN]
            st[O_MODE] = M_REWARD
            return
    while True:
        if st[O_RWSTEP] == 1:
            st[O_RWSTEP] = 0
            st[O_RWI] += 1
        i = st[O_RWI]
        if i >= st[O_RWN]:
            break
        q = st[O_RWSEAT + i]
        which = st[O_RWWHICH] if i == 0 and st[O_TWIN] >= 0 else 2
        st[O_RWSTEP] = 1
        _ev(w, EV_REWARD, q, t, which, 0)
        base = 1 if which == 1 else 4
        _bonus(st, q, st[O_TSET + t * 7 + base], st[O_TSET + t * 7 + base + 1],
               st[O_TSET + t * 7 + base + 2], w)
        if st[O_MODE] != M_NONE:
            return
    # M8, M9: the tile is kept or leaves; the figures go home
    w = st[O_TWIN]
    if w >= 0:
        st[O_TSTATE + t] = 3 + w
        st[O_WON + w] += 1
    else:
        st[O_TSTATE + t] = 2
    for p in range(n):
        st[O_ONTILE + p] = 0
        for f in range(6):
            st[O_TDICE + p * 6 + f] = 0
    st[O_TNOW] = -1  # (the herd stays where it is until the next round start moves it, M3)
    st[O_RWN] = 0
    st[O_RWI] = 0
    st[O_RWWHICH] = 0
    st[O_TWIN] = -1
    st[O_PHASE] = PH_FEED
    st[O_FEEDI] = 0


@njit(cache=True, nogil=True)
def _tame_order(st, w):
    """M7: the winner (the largest dice list, compared from the highest die; tied: none);
    M8 ruling: the receivers, winner first then clockwise, else from the start player."""
    n = st[O_NP]
    best = -1
    tied = False
    parts = 0
    for i in range(n):
        p = (st[O_START] + i) % n
        if st[O_ONTILE + p] == 0:
            continue
        parts += 1
        if best < 0:
            best = p
            continue
        cmp = 0
        for f in range(5, -1, -1):
            a = st[O_TDICE + p * 6 + f]
            b = st[O_TDICE + best * 6 + f]
            if a != b:
                cmp = 1 if a > b else -1
                break
        if cmp > 0:
            best = p
            tied = False
        elif cmp == 0:
            tied = True
    winner = -1 if tied or best < 0 else best
    st[O_TWIN] = winner
    _ev(w, EV_TAME, winner, st[O_TNOW], parts, 0)
    first = winner if winner >= 0 else st[O_START]
    k = 0
    for i in range(n):
        p = (first + i) % n
        if st[O_ONTILE + p] > 0:
            st[O_RWSEAT + k] = p
            k += 1
    st[O_RWN] = k
    st[O_RWI] = 0
    st[O_RWSTEP] = 0
    st[O_RWWHICH] = 0


@njit(cache=True, nogil=True)
def _bonus(st, q, kind, a, b, w):
    """M10: one bonus for seat ``q`` (X9 caps)."""
    if kind == BON_AGRI:
        for _ in range(a):
            _gain_agri(st, q, w)
    elif kind == BON_RES:
        _gain(st, q, a, b, w)
    elif kind == BON_CARD:
        _draw_secret(st, q, w)
    elif kind == BON_TOOL:
        for _ in range(a):
            _tool_step(st, q, w)
    elif kind == BON_ANY:
        st[O_CLEFT] = a
        st[O_CBACK] = M_NONE
        st[O_ACTOR] = q
        st[O_MODE] = M_GAIN
    elif kind == BON_FIGURE:
        for _ in range(a):
            _gain_figure(st, q, w)
    elif kind == BON_VP:
        _add_vp(st, q, a, SRC_MAMMOTH_VP)
        _ev(w, EV_VP, q, a, SRC_MAMMOTH_VP, 0)


@njit(cache=True, nogil=True)
def _fed(st):
    st[O_FEEDI] += 1
    st[O_MODE] = M_NONE


@njit(cache=True, nogil=True)
def _flow_feed(st, w):
    """S27, S28: from the start player, food from agriculture, then one per figure; a
    shortfall is the player's decision (C8)."""
    n = st[O_NP]
    while st[O_FEEDI] < n:
        p = (st[O_START] + st[O_FEEDI]) % n
        gained = st[O_AGRI + p]
        food = st[_g(st, p, FOOD)] + gained
        need = st[O_FIG + p]
        if food >= need:
            st[_g(st, p, FOOD)] = food - need
            _ev(w, EV_FEED, p, need, gained, 0)
            st[O_FEEDI] += 1
            continue
        st[_g(st, p, FOOD)] = 0  # S28: all the food goes, the rest is missing
        _ev(w, EV_FEED, p, food, gained, 0)
        st[O_ACTOR] = p
        _start_payment(st, M_SHORT, need - food)
        return
    _end_round(st, w)


@njit(cache=True, nogil=True)
def _end_round(st, w):
    """S30 (a); the start player passes (S7); S29 and S30 (b); the round limit (X20)."""
    n = st[O_NP]
    for j in range(st[O_NSTACKS]):
        if st[O_SSIZE + j] == 0:
            _game_over(st, END_STACK, w)
            return
    st[O_START] = (st[O_START] + 1) % n
    # S29: the cards left slide right, keeping their order
    k = 0
    for s in range(NUM_SLOTS):
        c = st[O_DISPLAY + s]
        if c >= 0:
            st[O_DISPLAY + s] = -1
            st[O_DISPLAY + k] = c
            k += 1
    if NUM_SLOTS - k > _deck_size(st):
        _game_over(st, END_DECK, w)
        return
    if st[O_MAXR] > 0 and st[O_ROUND] >= st[O_MAXR]:
        st[O_END] = END_TRUNCATED
        st[O_PHASE] = PH_OVER
        st[O_MODE] = M_OVER
        st[O_ACTOR] = -1
        _ev(w, EV_END, -1, END_TRUNCATED, 0, 0)
        return
    st[O_ROUND] += 1
    for p in range(n):
        for t in range(3):
            st[O_TUSED + p * 3 + t] = 0
    st[O_PHASE] = PH_START
    st[O_MODE] = M_NONE


@njit(cache=True, nogil=True)
def _game_over(st, reason, w):
    st[O_END] = reason
    st[O_PHASE] = PH_OVER
    st[O_MODE] = M_OVER
    st[O_ACTOR] = -1
    _ev(w, EV_END, -1, reason, 0, 0)
    _final_scoring(st, w)


@njit(cache=True, nogil=True)
def _final_scoring(st, w):
    """S31 (M11 first, X13's automatic claim)."""
    n = st[O_NP]
    most = 0
    for p in range(n):
        if st[O_WON + p] > most:
            most = st[O_WON + p]
    for p in range(n):
        pts = np.zeros(NUM_SOURCES, np.int64)
        if most > 0 and st[O_WON + p] == most:  # M11 and its ruling
            pts[SRC_MAJORITY] = 10
        symbols = np.zeros(NUM_SYMBOLS, np.int64)
        sand = np.zeros(5, np.int64)
        for c in range(NUM_CARD_ROWS):
            k = st[O_CARDS + p * NUM_CARD_ROWS + c]
            if k == 0:
                continue
            if CARDS[c, 1] == GREEN:
                symbols[CARDS[c, 2]] += k
            else:
                sand[CARDS[c, 1]] += k * CARDS[c, 2]
        while True:  # green sets: n distinct symbols score n squared
            distinct = 0
            for s in range(NUM_SYMBOLS):
                if symbols[s] > 0:
                    distinct += 1
                    symbols[s] -= 1
            if distinct == 0:
                break
            pts[SRC_GREEN] += distinct * distinct
        buildings = 0
        for b in range(NUM_BUILDING_ROWS):
            buildings += st[O_BUILT + p * NUM_BUILDING_ROWS + b]
        pts[SRC_FARMERS] = sand[1] * st[O_AGRI + p]
        pts[SRC_TOOL_MAKERS] = sand[2] * tool_value(st, p)
        pts[SRC_HUT_BUILDERS] = sand[3] * buildings
        pts[SRC_SHAMANS] = sand[4] * st[O_FIG + p]
        pts[SRC_RESOURCES] = resources(st, p, 1) + ANY_N * st[O_ANY + p]
        for src in range(NUM_SOURCES):
            if pts[src] != 0:
                _add_vp(st, p, pts[src], src)
                _ev(w, EV_SCORE, p, src, pts[src], 0)


# --- driving -------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _advance(st, w):
    """Run the rules until a chance node, a real decision or the end; return who is to move
    (a seat, -1 chance, -4 over) or OVERFLOW."""
    mask = w[W_MASK:W_MASK + NUM_ACTIONS]
    while True:
        if w[W_EVC] > EV_CAPACITY:
            return OVERFLOW
        mode = st[O_MODE]
        if mode == M_OVER:
            return -4
        if mode >= M_FILL:
            st[O_ACTOR] = -1
            return -1
        if mode == M_NONE:
            _flow(st, w)
            continue
        cnt = legal_mask(st, mask)
        if cnt > 1:
            return st[O_ACTOR]
        if cnt == 0:
            if mode == M_PLACE:  # (a position edited by hand: the placer has nothing left)
                st[O_MODE] = M_NONE
                continue
            return ILLEGAL  # pragma: no cover (a rules bug: a decision without a choice)
        for a in range(NUM_ACTIONS):
            if mask[a] == 1:
                _decide(st, a, w)
                break


@njit(cache=True, nogil=True)
def apply(st, w, a):
    """Apply ``a`` (a decision id or a chance outcome id) if legal now; return who is to move
    next (a seat, -1 chance, -4 over), or ILLEGAL (``st`` unchanged). The step's events are
    in ``w`` (their count at ``w[W_EVC]``)."""
    w[W_EVC] = 0
    mode = st[O_MODE]
    if mode == M_OVER:
        return ILLEGAL
    if mode >= M_FILL:
        if a < C_DIE or a >= C_DIE + NUM_CHANCE_OUTCOMES:
            return ILLEGAL
        chance_weights(st, w)
        if w[W_WEIGHTS + a - C_DIE] <= 0:
            return ILLEGAL
        _chance(st, a, w)
    else:
        if a < 0 or a >= NUM_ACTIONS:
            return ILLEGAL
        mask = w[W_MASK:W_MASK + NUM_ACTIONS]
        legal_mask(st, mask)
        if mask[a] == 0:
            return ILLEGAL
        _decide(st, a, w)
    return _advance(st, w)


@njit(cache=True, nogil=True)
def start(st, w):
    """Run a fresh state (setup values written) to its first node."""
    w[W_EVC] = 0
    return _advance(st, w)


@njit(cache=True, nogil=True)
def current_player(st):
    mode = st[O_MODE]
    if mode == M_OVER:
        return -4
    if mode >= M_FILL:
        return -1
    return st[O_ACTOR]


@njit(cache=True, nogil=True)
def sample_outcome(st, w):
    """A chance outcome of ``st`` drawn with the rules' weights (numba's stream): the one
    sampler of the compiled playouts."""
    total = chance_weights(st, w)
    u = np.random.randint(total)
    for i in range(NUM_CHANCE_OUTCOMES):
        u -= w[W_WEIGHTS + i]
        if u < 0:
            return C_DIE + i
    return C_DIE


@njit(cache=True, nogil=True)
def random_playout(st, w, seed):
    """Play ``st`` to the end with uniform legal decisions and the rules' chance; return the
    number of decisions (a compiled playout for search and benchmarks), -1 on an error."""
    np.random.seed(seed)
    decisions = 0
    cur = current_player(st)
    while cur != -4:
        if cur == -1:
            cur = apply(st, w, sample_outcome(st, w))
        else:
            cnt = legal_ids(st, w)
            cur = apply(st, w, w[W_IDS + np.random.randint(cnt)])
            decisions += 1
        if cur < -4:
            return -1
    return decisions
