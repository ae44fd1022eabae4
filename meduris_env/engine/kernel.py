"""The rules of Meduris as numba kernels over the flat int32 state (see layout.py).

Every public kernel takes ``st`` (the state array), the board's ``fm`` (int32 [fields, 2]
materials) and ``fa`` (int32 [fields] rune areas). ``apply`` validates the action first and returns
a status; it never changes ``st`` when the action is not legal. Events are written into ``ev``
(rows of :data:`EV_WIDTH` ints) with the count in ``evc[0]``.

The turn is driven by a *decision queue*: die results, constructions and the druid push entries
(whose decision comes next, in the order the rules give); ``_settle`` resolves entries that need
no choice (a "+1" with an empty supply, a rune interim scoring) until a choice or a chance event
is needed. When the queue runs empty the stage says what follows (first turn, end of turn, final
scoring).

Every kernel is compiled with ``nogil=True``: it touches only the arrays it is given (no module
state), so callers in different threads run at once; each thread passes its own scratch buffers
(``State`` keeps one set per thread).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .constants import (
    A_EXCHANGE,
    A_HUT,
    A_OFFER,
    A_PLACE,
    A_RETURN,
    A_TAKE,
    A_TEMPLE,
    A_YIELD,
    C_CHIP,
    C_DIE,
    C_START,
    CHIP_DRUID,
    CHIP_FREE_HUT,
    CHIP_MIN_DISTANCE,
    CHIP_VP,
    DRUID_STONE_FIELDS,
    EMPTY,
    END_FINALE,
    END_STALL,
    END_TRUNCATED,
    EXCHANGE_GIVE_COUNTS,
    FACE_MINUS,
    FACE_PLUS,
    HUT,
    MAX_FIELDS,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_EXCHANGE_GIVES,
    NUM_RUNE_AREAS,
    OFFER_BOTH,
    OFFER_FIRST,
    OFFER_NONE,
    OFFER_SECOND,
    PH_CHIPS,
    PH_QUEUE,
    PH_ROLL,
    PH_START,
    PH_TERMINAL,
    Q_INTERIM,
    Q_MAIN,
    Q_OFFER,
    Q_PLACE,
    Q_RETURN,
    Q_TAKE,
    STAGE_FINAL,
    STAGE_SETUP,
    STAGE_TURN,
    TEMPLE,
)
from .layout import (
    O_BUILT,
    O_CHIP,
    O_CHIPLEFT,
    O_CONS,
    O_DFIELD,
    O_DIE,
    O_DSTONE,
    O_END,
    O_FCIRC,
    O_FLEFT,
    O_FSEAT,
    O_HUTS,
    O_IDLE,
    O_MANUAL,
    O_MAT,
    O_MAXT,
    O_NF,
    O_NP,
    O_OCC,
    O_OWN,
    O_PHASE,
    O_QHEAD,
    O_QLEN,
    O_QUEUE,
    O_ROLLER,
    O_RSTART,
    O_RUNE,
    O_STACK,
    O_STAGE,
    O_START,
    O_SUP,
    O_TEMPLES,
    O_TURN,
    O_VP,
    QUEUE_CAPACITY,
    QUEUE_WIDTH,
)

EV_WIDTH = 5
EV_CAPACITY = 512

# event kinds: rows are (kind, a, b, c, d); events.py names the columns
EV_CHIP_PLACED = 1  # field, chip kind
EV_START_PLAYER = 2  # seat
EV_WORKER_PLACED = 3  # seat, plain, level
EV_ROLL = 4  # seat, face
EV_YIELD = 5  # seat, material, amount, level
EV_TAKE = 6  # seat, material
EV_TAKE_NOTHING = 7  # seat
EV_RETURN = 8  # seat, material
EV_RETURN_NOTHING = 9  # seat
EV_EXCHANGE = 10  # seat, give combo, taken material, automatic
EV_MOVE_WORKER = 11  # seat, from plain, from level, to plain
EV_PAY = 12  # seat, material, count
EV_HUT = 13  # seat, field, settlement size, cost per material
EV_TEMPLE = 14  # seat, field
EV_BONUS = 15  # seat, field, chip kind, vp
EV_RUNE = 16  # seat, area, previous holder
EV_DRUID_STONE = 17  # stone field reached
EV_DRUID_WALK = 18  # from field (-1 stones), to field, crossed the river
EV_DRUID_WAITS = 19  # (no hut on the board, E7)
EV_INTERIM = 20  # seat, rune stones, vp
EV_OFFERING = 21  # seat, field, choice, vp change
EV_FINALE = 22  # seat
EV_FINAL_CIRCUIT = 23  # first field, huts to ask, reason
EV_TEMPLE_SCORE = 24  # seat, field, vp
EV_RUNE_SCORE = 25  # seat, rune stones, vp
EV_GAME_END = 26  # reason
EV_DRUID_STEP = 27  # from field, to field, crossed the river (inside a ritual, R18)

# status codes of apply() (on success it returns the next current player, >= -4)
ILLEGAL = -100
EVENT_OVERFLOW = -101


# ------------------------------------------------------------------------------------------------
# small helpers
# ------------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _emit(ev, evc, kind, a, b, c, d):
    i = evc[0]
    if i < ev.shape[0]:
        ev[i, 0] = kind
        ev[i, 1] = a
        ev[i, 2] = b
        ev[i, 3] = c
        ev[i, 4] = d
    evc[0] = i + 1


@njit(cache=True, nogil=True)
def _enqueue(st, kind, seat, field, size):
    n = st[O_QLEN]
    if n >= QUEUE_CAPACITY:
        raise RuntimeError("meduris: decision queue overflow")
    q = O_QUEUE + n * QUEUE_WIDTH
    st[q] = kind
    st[q + 1] = seat
    st[q + 2] = field
    st[q + 3] = size
    st[O_QLEN] = n + 1


@njit(cache=True, nogil=True)
def _height(st, plain):
    b = O_STACK + plain * 3
    h = 0
    while h < 3 and st[b + h] >= 0:
        h += 1
    return h


@njit(cache=True, nogil=True)
def _held(st, seat):
    b = O_MAT + seat * 4
    return st[b] + st[b + 1] + st[b + 2] + st[b + 3]


@njit(cache=True, nogil=True)
def _supply_total(st):
    return st[O_SUP] + st[O_SUP + 1] + st[O_SUP + 2] + st[O_SUP + 3]


@njit(cache=True, nogil=True)
def runes_of(st, seat):
    k = 0
    for r in range(NUM_RUNE_AREAS):
        if st[O_RUNE + r] == seat:
            k += 1
    return k


@njit(cache=True, nogil=True)
def run_size(st, f, n):
    """Huts in the settlement (maximal run of huts, R16) that contains the hut on field f."""
    size = 1
    g = f - 1 if f > 0 else n - 1
    while st[O_OCC + g] == HUT and size < n:
        size += 1
        g = g - 1 if g > 0 else n - 1
    g = f + 1 if f + 1 < n else 0
    while st[O_OCC + g] == HUT and size < n:
        size += 1
        g = g + 1 if g + 1 < n else 0
    return size


@njit(cache=True, nogil=True)
def buildings_of(st, seat):
    """Huts and temples standing for ``seat`` (the first tie-break of R26)."""
    k = 0
    for f in range(st[O_NF]):
        if st[O_OCC + f] != EMPTY and st[O_OWN + f] == seat:
            k += 1
    return k


@njit(cache=True, nogil=True)
def _ranks_before(st, t, s):
    """Whether seat t ranks before seat s by R26: VP, then buildings, then materials left."""
    if st[O_VP + t] != st[O_VP + s]:
        return st[O_VP + t] > st[O_VP + s]
    bt = buildings_of(st, t)
    bs = buildings_of(st, s)
    if bt != bs:
        return bt > bs
    return _held(st, t) > _held(st, s)


@njit(cache=True, nogil=True)
def rank_seats(st, out):
    """R26 ranking into ``out[:num_players]``: 1 + the seats ranked before each; tied seats share a
    rank, so the winners are the seats of rank 1. Mid-game it ranks the standings."""
    np_ = st[O_NP]
    for s in range(np_):
        r = 1
        for t in range(np_):
            if t != s and _ranks_before(st, t, s):
                r += 1
        out[s] = r


@njit(cache=True, nogil=True)
def win_returns(st, zero_sum, out):
    """Win/lose utility per seat into ``out[:num_players]`` (float): winners (R26) share +1;
    losers share -1 when ``zero_sum`` (so the sum is 0), else get 0. Everyone tied: 0 each
    when zero-sum, else 1/n each."""
    np_ = st[O_NP]
    ranks = np.empty(np_, dtype=np.int64)
    rank_seats(st, ranks)
    winners = 0
    for s in range(np_):
        if ranks[s] == 1:
            winners += 1
    losers = np_ - winners
    for s in range(np_):
        if losers == 0:
            out[s] = 0.0 if zero_sum else 1.0 / np_
        elif ranks[s] == 1:
            out[s] = 1.0 / winners
        else:
            out[s] = -1.0 / losers if zero_sum else 0.0


@njit(cache=True, nogil=True)
def temple_score(st, f, n):
    """R24: the temple on field f scores the settlement (or lone hut) directly to its left plus
    the one directly to its right; a temple or an empty field beside it adds nothing."""
    pts = 0
    left = (f - 1 + n) % n
    right = (f + 1) % n
    if st[O_OCC + left] == HUT:
        pts += run_size(st, left, n)
    if st[O_OCC + right] == HUT:
        pts += run_size(st, right, n)
    return pts


@njit(cache=True, nogil=True)
def _new_hut_size(st, f, n):
    """Settlement size a hut on the empty field f would belong to, after it is placed (R12).
    (Ring steps wrap by comparison, not ``%``: this runs for every field in every legal mask.)"""
    size = 1
    g = f - 1 if f > 0 else n - 1
    while st[O_OCC + g] == HUT and g != f:
        size += 1
        g = g - 1 if g > 0 else n - 1
    g = f + 1 if f + 1 < n else 0
    while st[O_OCC + g] == HUT and g != f:
        size += 1
        g = g + 1 if g + 1 < n else 0
    return size


@njit(cache=True, nogil=True)
def _can_pay(st, seat, ma, ca, mb, cb):
    """Whether seat can pay ca of ma and cb of mb, with automatic exchanges if enabled (R15)."""
    b = O_MAT + seat * 4
    ha = st[b + ma]
    hb = st[b + mb]
    da = ca - ha if ca > ha else 0
    db = cb - hb if cb > hb else 0
    if da == 0 and db == 0:
        return True
    if st[O_MANUAL] != 0:
        return False
    spare = _held(st, seat) - (ca - da) - (cb - db)
    if 3 * (da + db) > spare:
        return False
    # the chips taken come from the supply, which the returned chips never refill for ma or mb
    return st[O_SUP + ma] >= da and st[O_SUP + mb] >= db


@njit(cache=True, nogil=True)
def _combo_index(c0, c1, c2, c3):
    for k in range(NUM_EXCHANGE_GIVES):
        if (EXCHANGE_GIVE_COUNTS[k, 0] == c0 and EXCHANGE_GIVE_COUNTS[k, 1] == c1
                and EXCHANGE_GIVE_COUNTS[k, 2] == c2 and EXCHANGE_GIVE_COUNTS[k, 3] == c3):
            return k
    return -1


@njit(cache=True, nogil=True)
def _auto_exchange(st, seat, want, ma, ca, mb, cb, ev, evc):
    """One automatic exchange (R15 ruling): give 3 chips, each from the material with the most
    chips to spare beyond this payment (ties: wood, wool, copper, stone order), take ``want``."""
    b = O_MAT + seat * 4
    given = np.zeros(4, dtype=np.int32)
    for _ in range(3):
        best = -1
        best_spare = 0
        for m in range(4):
            need = 0
            if m == ma:
                need += ca
            if m == mb:
                need += cb
            spare = st[b + m] - need
            if spare > best_spare:
                best = m
                best_spare = spare
        st[b + best] -= 1
        st[O_SUP + best] += 1
        given[best] += 1
    st[b + want] += 1
    st[O_SUP + want] -= 1
    _emit(ev, evc, EV_EXCHANGE, seat, _combo_index(given[0], given[1], given[2], given[3]), want, 1)


@njit(cache=True, nogil=True)
def _pay(st, seat, ma, ca, mb, cb, ev, evc):
    """Pay ca of ma and cb of mb to the supply (R2), exchanging first where needed (R15)."""
    b = O_MAT + seat * 4
    while st[b + ma] < ca:
        _auto_exchange(st, seat, ma, ma, ca, mb, cb, ev, evc)
    while st[b + mb] < cb:
        _auto_exchange(st, seat, mb, ma, ca, mb, cb, ev, evc)
    if ca > 0:
        st[b + ma] -= ca
        st[O_SUP + ma] += ca
        _emit(ev, evc, EV_PAY, seat, ma, ca, 0)
    if cb > 0:
        st[b + mb] -= cb
        st[O_SUP + mb] += cb
        _emit(ev, evc, EV_PAY, seat, mb, cb, 0)


@njit(cache=True, nogil=True)
def _chip_field_ok(st, f, n):
    """R4: field f may take the next bonus chip: no chip there, ring distance >= 4 to every chip,
    and the remaining chips still fit with that spacing afterwards."""
    if f >= n or st[O_CHIP + f] != 0:
        return False
    # walk the chips (with f) in ring order; each gap between neighbours fits gap // 4 - 1 more
    first = -1
    prev = -1
    cap = 0
    for g in range(n):
        if st[O_CHIP + g] != 0 or g == f:
            if g != f:
                d = abs(g - f)
                if n - d < d:
                    d = n - d
                if d < CHIP_MIN_DISTANCE:
                    return False
            if prev >= 0:
                cap += _chip_gap_room(g - prev)
            else:
                first = g
            prev = g
    cap += _chip_gap_room(first + n - prev)  # the gap across the great river (n if f alone)
    remaining = st[O_CHIPLEFT] + st[O_CHIPLEFT + 1] + st[O_CHIPLEFT + 2] - 1
    return cap >= remaining


@njit(cache=True, nogil=True)
def _chip_gap_room(gap):
    extra = gap // CHIP_MIN_DISTANCE - 1
    return extra if extra > 0 else 0


@njit(cache=True, nogil=True)
def _construction_possible(st, n, np_):
    """Whether any player has a piece and an empty field it may stand on (R12, R14)."""
    for s in range(np_):
        huts = st[O_HUTS + s] > 0
        temples = st[O_TEMPLES + s] > 0
        for f in range(n):
            if st[O_OCC + f] == EMPTY and (huts or (temples and st[O_CHIP + f] == 0)):
                return True
    return False


# ------------------------------------------------------------------------------------------------
# legality
# ------------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _head(st):
    return O_QUEUE + st[O_QHEAD] * QUEUE_WIDTH


@njit(cache=True, nogil=True)
def current_player(st):
    ph = st[O_PHASE]
    if ph == PH_TERMINAL:
        return -4
    if ph != PH_QUEUE:
        return -1
    return st[_head(st) + 1]


@njit(cache=True, nogil=True)
def _legal_yield(st, seat, a):
    r = a - A_YIELD
    d = r % 4
    sl = r // 4
    s = sl // 3
    lvl = sl % 3
    return s != d and st[O_STACK + s * 3 + lvl] == seat and _height(st, d) < 3


@njit(cache=True, nogil=True)
def _legal_hut(st, fm, seat, f, n):
    if f >= n or st[O_OCC + f] != EMPTY or st[O_HUTS + seat] <= 0:
        return False
    return _hut_affordable(st, fm, seat, f, n)


@njit(cache=True, nogil=True)
def _hut_affordable(st, fm, seat, f, n):
    """A hut on the empty field f is affordable for seat (R12, R13; exchanges R15)."""
    if st[O_CHIP + f] == CHIP_FREE_HUT:
        return True  # R13: the hut costs nothing
    s = _new_hut_size(st, f, n)
    return _can_pay(st, seat, fm[f, 0], s, fm[f, 1], s)


@njit(cache=True, nogil=True)
def _legal_temple(st, fm, seat, f, n):
    if f >= n or st[O_OCC + f] != EMPTY or st[O_TEMPLES + seat] <= 0 or st[O_CHIP + f] != 0:
        return False
    return _can_pay(st, seat, fm[f, 0], 1, fm[f, 1], 1)  # R14: 1 of each, settlement ignored


@njit(cache=True, nogil=True)
def _legal_offer(st, fm, seat, f, choice):
    ma = fm[f, 0]
    mb = fm[f, 1]
    if choice == OFFER_NONE:
        return True
    if choice == OFFER_FIRST:
        return _can_pay(st, seat, ma, 1, mb, 0)
    if choice == OFFER_SECOND:
        return _can_pay(st, seat, ma, 0, mb, 1)
    if choice == OFFER_BOTH:
        return _can_pay(st, seat, ma, 1, mb, 1)
    return st[O_CHIP + f] == CHIP_DRUID  # R20


@njit(cache=True, nogil=True)
def _legal_exchange(st, seat, a):
    r = a - A_EXCHANGE
    k = r // 4
    take = r % 4
    b = O_MAT + seat * 4
    for m in range(4):
        if st[b + m] < EXCHANGE_GIVE_COUNTS[k, m]:
            return False
    return st[O_SUP + take] + EXCHANGE_GIVE_COUNTS[k, take] > 0


@njit(cache=True, nogil=True)
def is_legal(st, fm, a):
    """Whether player action ``a`` is legal for the seat to decide now."""
    if st[O_PHASE] != PH_QUEUE or a < 0 or a >= NUM_ACTIONS:
        return False
    q = _head(st)
    kind = st[q]
    seat = st[q + 1]
    if a >= A_EXCHANGE:
        return st[O_MANUAL] != 0 and _legal_exchange(st, seat, a)
    if kind == Q_PLACE:
        return A_PLACE <= a < A_TAKE and _height(st, a - A_PLACE) < 3
    if kind == Q_TAKE:
        return A_TAKE <= a < A_RETURN and st[O_SUP + a - A_TAKE] > 0
    if kind == Q_RETURN:
        return A_RETURN <= a < A_YIELD and st[O_MAT + seat * 4 + a - A_RETURN] > 0
    if kind == Q_MAIN:
        n = st[O_NF]
        if A_YIELD <= a < A_HUT:
            return _legal_yield(st, seat, a)
        if A_HUT <= a < A_TEMPLE:
            return _legal_hut(st, fm, seat, a - A_HUT, n)
        if A_TEMPLE <= a < A_OFFER:
            return _legal_temple(st, fm, seat, a - A_TEMPLE, n)
        return False
    if kind == Q_OFFER:
        return A_OFFER <= a < A_EXCHANGE and _legal_offer(st, fm, seat, st[q + 2], a - A_OFFER)
    return False


@njit(cache=True, nogil=True)
def legal_mask(st, fm, out):
    """Fill ``out`` (int8 [NUM_ACTIONS]) with the legal player actions; zeros at chance/terminal."""
    out[:] = 0
    if st[O_PHASE] != PH_QUEUE:
        return 0
    q = _head(st)
    kind = st[q]
    seat = st[q + 1]
    count = 0
    if kind == Q_PLACE:
        for p in range(4):
            if _height(st, p) < 3:
                out[A_PLACE + p] = 1
                count += 1
    elif kind == Q_TAKE:
        for m in range(4):
            if st[O_SUP + m] > 0:
                out[A_TAKE + m] = 1
                count += 1
    elif kind == Q_RETURN:
        for m in range(4):
            if st[O_MAT + seat * 4 + m] > 0:
                out[A_RETURN + m] = 1
                count += 1
    elif kind == Q_MAIN:
        n = st[O_NF]
        for src in range(4):  # R11: own workers onto another plain with room (= _legal_yield)
            for lvl in range(3):
                if st[O_STACK + src * 3 + lvl] == seat:
                    for d in range(4):
                        if d != src and _height(st, d) < 3:
                            out[A_YIELD + (src * 3 + lvl) * 4 + d] = 1
                            count += 1
        # _legal_hut / _legal_temple for every field, with their cheap tests hoisted (a call
        # per field and action costs more than the tests: this mask is the hot path)
        huts = st[O_HUTS + seat] > 0
        temples = st[O_TEMPLES + seat] > 0
        if huts or temples:
            for f in range(n):
                if st[O_OCC + f] != EMPTY:
                    continue
                if huts and _hut_affordable(st, fm, seat, f, n):
                    out[A_HUT + f] = 1
                    count += 1
                if temples and st[O_CHIP + f] == 0 and _can_pay(st, seat, fm[f, 0], 1,
                                                                fm[f, 1], 1):
                    out[A_TEMPLE + f] = 1
                    count += 1
    elif kind == Q_OFFER:
        f = st[q + 2]
        for c in range(5):
            if _legal_offer(st, fm, seat, f, c):
                out[A_OFFER + c] = 1
                count += 1
    if st[O_MANUAL] != 0:
        for a in range(A_EXCHANGE, NUM_ACTIONS):
            if _legal_exchange(st, seat, a):
                out[a] = 1
                count += 1
    return count


@njit(cache=True, nogil=True)
def chance_legal(st, a):
    ph = st[O_PHASE]
    n = st[O_NF]
    if ph == PH_ROLL:
        return C_DIE <= a < C_DIE + 6
    if ph == PH_START:
        return C_START <= a < C_START + st[O_NP]
    if ph == PH_CHIPS:
        if a < C_CHIP or a >= C_CHIP + MAX_FIELDS * 3:
            return False
        r = a - C_CHIP
        return st[O_CHIPLEFT + r % 3] > 0 and _chip_field_ok(st, r // 3, n)
    return False


@njit(cache=True, nogil=True)
def chance_mask(st, out):
    """Fill ``out`` (int8 [NUM_CHANCE_OUTCOMES], index = id - C_DIE) with possible outcomes."""
    out[:] = 0
    if st[O_PHASE] == PH_CHIPS:  # the field test is the same for the three kinds: once each
        n = st[O_NF]
        for f in range(n):
            if _chip_field_ok(st, f, n):
                for kind in range(3):
                    if st[O_CHIPLEFT + kind] > 0:
                        out[C_CHIP - C_DIE + f * 3 + kind] = 1
        return
    for i in range(NUM_CHANCE_OUTCOMES):
        if chance_legal(st, C_DIE + i):
            out[i] = 1


# ------------------------------------------------------------------------------------------------
# effects
# ------------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _give(st, seat, m, amount, level, ev, evc):
    """A worker yields up to ``amount`` of m while the supply lasts (R8, R11)."""
    got = amount if st[O_SUP + m] >= amount else st[O_SUP + m]
    st[O_SUP + m] -= got
    st[O_MAT + seat * 4 + m] += got
    _emit(ev, evc, EV_YIELD, seat, m, got, level)


@njit(cache=True, nogil=True)
def _enqueue_ritual(st, start, final):
    """R18: offerings from the hut at ``start`` to the last hut of its run; a step across the
    great river inside the run triggers rune interim scoring first (R21), except in the final
    circuit (R23)."""
    n = st[O_NF]
    size = run_size(st, start, n)
    f = start
    for _ in range(n):
        _enqueue(st, Q_OFFER, st[O_OWN + f], f, size)
        g = (f + 1) % n
        if st[O_OCC + g] != HUT or g == start:
            break
        if g == 0 and final == 0:
            _enqueue(st, Q_INTERIM, -1, f, 0)
        f = g


@njit(cache=True, nogil=True)
def _druid_moves(st, ev, evc):
    """R17: after every construction the druid steps onto a stone field, or (from the 4th
    construction on) walks clockwise to the next hut and starts a ritual there."""
    if st[O_DSTONE] < DRUID_STONE_FIELDS:
        st[O_DSTONE] += 1
        _emit(ev, evc, EV_DRUID_STONE, st[O_DSTONE], 0, 0, 0)
        return
    n = st[O_NF]
    d = st[O_DFIELD]
    target = -1
    crossed = 0
    if d < 0:
        # from the stone fields he enters the ring just before field 0: no river crossing
        for f in range(n):
            if st[O_OCC + f] == HUT:
                target = f
                break
    else:
        for k in range(1, n + 1):
            f = (d + k) % n
            if st[O_OCC + f] == HUT:
                target = f
                crossed = 1 if d + k >= n else 0
                break
    if target < 0:
        _emit(ev, evc, EV_DRUID_WAITS, d, 0, 0, 0)  # E7: no hut yet, he stays
        return
    _emit(ev, evc, EV_DRUID_WALK, d, target, crossed, 0)
    st[O_DFIELD] = target
    if crossed:
        _enqueue(st, Q_INTERIM, -1, d, 0)
    _enqueue_ritual(st, target, 0)


@njit(cache=True, nogil=True)
def _interim(st, ev, evc):
    """R21: every player scores 1 VP per rune stone held now."""
    for s in range(st[O_NP]):
        k = runes_of(st, s)
        st[O_VP + s] += k
        _emit(ev, evc, EV_INTERIM, s, k, k, 0)


@njit(cache=True, nogil=True)
def _begin_turn(st):
    st[O_PHASE] = PH_ROLL
    st[O_DIE] = -1
    st[O_BUILT] = 0


@njit(cache=True, nogil=True)
def _begin_setup(st):
    """R6: starting with the first player, clockwise, one worker at a time."""
    np_ = st[O_NP]
    workers = 3 if np_ == 2 else 2
    start = st[O_START]
    st[O_QHEAD] = 0
    st[O_QLEN] = 0
    for _ in range(workers):
        for i in range(np_):
            _enqueue(st, Q_PLACE, (start + i) % np_, -1, 0)
    st[O_STAGE] = STAGE_SETUP
    st[O_PHASE] = PH_QUEUE
    st[O_ROLLER] = start


@njit(cache=True, nogil=True)
def _start_final_circuit(st, reason, ev, evc):
    """R23: from the marked druid position, one ritual per settlement round the ring, ending with
    the settlement at the mark: every hut asked once, no interim scoring."""
    n = st[O_NF]
    st[O_FCIRC] = 1
    st[O_END] = reason
    st[O_STAGE] = STAGE_FINAL
    st[O_PHASE] = PH_QUEUE
    st[O_QHEAD] = 0
    st[O_QLEN] = 0
    d = st[O_DFIELD]
    first = 0 if d < 0 else (d + 1) % n
    asked = 0
    for k in range(n):
        f = (first + k) % n
        if st[O_OCC + f] == HUT:
            _enqueue(st, Q_OFFER, st[O_OWN + f], f, run_size(st, f, n))
            asked += 1
    _emit(ev, evc, EV_FINAL_CIRCUIT, first, asked, reason, 0)


@njit(cache=True, nogil=True)
def _final_scoring(st, ev, evc):
    """R24 temples, R25 rune stones; then the game is over."""
    n = st[O_NF]
    for f in range(n):
        if st[O_OCC + f] == TEMPLE:
            seat = st[O_OWN + f]
            pts = temple_score(st, f, n)
            st[O_VP + seat] += pts
            _emit(ev, evc, EV_TEMPLE_SCORE, seat, f, pts, 0)
    for s in range(st[O_NP]):
        k = runes_of(st, s)
        pts = k * (k + 1) // 2
        st[O_VP + s] += pts
        _emit(ev, evc, EV_RUNE_SCORE, s, k, pts, 0)
    st[O_PHASE] = PH_TERMINAL
    _emit(ev, evc, EV_GAME_END, st[O_END], 0, 0, 0)


@njit(cache=True, nogil=True)
def _end_turn(st, ev, evc):
    """Finale (R22), the no-construction ruling, the turn limit, then the next player."""
    np_ = st[O_NP]
    n = st[O_NF]
    roller = st[O_ROLLER]
    st[O_TURN] += 1
    if st[O_BUILT] != 0:
        st[O_IDLE] = 0
    elif _supply_total(st) == 0 or not _construction_possible(st, n, np_):
        st[O_IDLE] += 1
    else:
        st[O_IDLE] = 0
    if st[O_FSEAT] >= 0:
        st[O_FLEFT] -= 1
        if st[O_FLEFT] <= 0:
            _start_final_circuit(st, END_FINALE, ev, evc)
            return
    elif st[O_HUTS + roller] == 0 and st[O_TEMPLES + roller] == 0:
        st[O_FSEAT] = roller
        st[O_FLEFT] = np_ - 1
        _emit(ev, evc, EV_FINALE, roller, np_ - 1, 0, 0)
    if st[O_IDLE] >= np_:
        _start_final_circuit(st, END_STALL, ev, evc)
        return
    if st[O_MAXT] > 0 and st[O_TURN] >= st[O_MAXT]:
        st[O_END] = END_TRUNCATED
        st[O_PHASE] = PH_TERMINAL
        _emit(ev, evc, EV_GAME_END, END_TRUNCATED, 0, 0, 0)
        return
    st[O_ROLLER] = (roller + 1) % np_
    _begin_turn(st)


@njit(cache=True, nogil=True)
def _settle(st, ev, evc):
    """Resolve queue entries that need no choice until a decision or chance event is due."""
    while st[O_PHASE] == PH_QUEUE:
        h = st[O_QHEAD]
        if h >= st[O_QLEN]:
            st[O_QHEAD] = 0
            st[O_QLEN] = 0
            stage = st[O_STAGE]
            if stage == STAGE_SETUP:
                st[O_ROLLER] = st[O_START]
                st[O_STAGE] = STAGE_TURN
                _begin_turn(st)
            elif stage == STAGE_TURN:
                _end_turn(st, ev, evc)
            else:
                _final_scoring(st, ev, evc)
            continue
        q = O_QUEUE + h * QUEUE_WIDTH
        kind = st[q]
        seat = st[q + 1]
        if kind == Q_TAKE:
            if _supply_total(st) == 0:  # R9 ruling: nothing to take
                _emit(ev, evc, EV_TAKE_NOTHING, seat, 0, 0, 0)
                st[O_QHEAD] = h + 1
                continue
            return
        if kind == Q_RETURN:
            if _held(st, seat) == 0:  # R10: a player without material returns nothing
                _emit(ev, evc, EV_RETURN_NOTHING, seat, 0, 0, 0)
                st[O_QHEAD] = h + 1
                continue
            return
        if kind == Q_INTERIM:
            _interim(st, ev, evc)
            st[O_QHEAD] = h + 1
            continue
        if kind == Q_OFFER:
            d = st[O_DFIELD]
            f = st[q + 2]
            if d != f:  # the druid steps on to the hut he asks (R18, and between rituals R23)
                _emit(ev, evc, EV_DRUID_STEP, d, f, 1 if 0 <= f <= d else 0, 0)
                st[O_DFIELD] = f
        return


@njit(cache=True, nogil=True)
def _apply_chance(st, a, ev, evc):
    ph = st[O_PHASE]
    if ph == PH_CHIPS:
        r = a - C_CHIP
        f = r // 3
        kind = r % 3
        st[O_CHIP + f] = kind + 1
        st[O_CHIPLEFT + kind] -= 1
        _emit(ev, evc, EV_CHIP_PLACED, f, kind + 1, 0, 0)
        if st[O_CHIPLEFT] + st[O_CHIPLEFT + 1] + st[O_CHIPLEFT + 2] == 0:
            if st[O_RSTART] != 0:
                st[O_PHASE] = PH_START
            else:
                _emit(ev, evc, EV_START_PLAYER, st[O_START], 0, 0, 0)
                _begin_setup(st)
    elif ph == PH_START:
        st[O_START] = a - C_START
        _emit(ev, evc, EV_START_PLAYER, st[O_START], 0, 0, 0)
        _begin_setup(st)
    else:
        face = a - C_DIE
        roller = st[O_ROLLER]
        np_ = st[O_NP]
        st[O_DIE] = face
        _emit(ev, evc, EV_ROLL, roller, face, 0, 0)
        st[O_QHEAD] = 0
        st[O_QLEN] = 0
        if face < 4:
            # R8: every worker on that plain yields 1, top worker first, while the supply lasts
            for lvl in range(_height(st, face) - 1, -1, -1):
                _give(st, st[O_STACK + face * 3 + lvl], face, 1, lvl, ev, evc)
        elif face == FACE_PLUS:
            for i in range(np_):
                _enqueue(st, Q_TAKE, (roller + i) % np_, -1, 0)
        elif face == FACE_MINUS:
            for i in range(np_):
                _enqueue(st, Q_RETURN, (roller + i) % np_, -1, 0)
        _enqueue(st, Q_MAIN, roller, -1, 0)
        st[O_STAGE] = STAGE_TURN
        st[O_PHASE] = PH_QUEUE


@njit(cache=True, nogil=True)
def _big_yield(st, seat, a, ev, evc):
    """R11: move one own worker onto a different plain with < 3 workers; that plain yields."""
    r = a - A_YIELD
    dst = r % 4
    src = (r // 4) // 3
    lvl = (r // 4) % 3
    b = O_STACK + src * 3
    for i in range(lvl, 2):
        st[b + i] = st[b + i + 1]
    st[b + 2] = -1
    k = _height(st, dst) + 1
    st[O_STACK + dst * 3 + k - 1] = seat
    _emit(ev, evc, EV_MOVE_WORKER, seat, src, lvl, dst)
    for i in range(k - 1, -1, -1):  # top (moved) worker yields k, the next k-1, ...
        _give(st, st[O_STACK + dst * 3 + i], dst, i + 1, i, ev, evc)


@njit(cache=True, nogil=True)
def _build_hut(st, fm, fa, seat, f, ev, evc):
    """R12, R13: pay s of each material (unless a free-hut chip), place, rune stone, druid."""
    n = st[O_NF]
    size = _new_hut_size(st, f, n)
    chip = st[O_CHIP + f]
    cost = 0 if chip == CHIP_FREE_HUT else size
    if cost > 0:
        _pay(st, seat, fm[f, 0], cost, fm[f, 1], cost, ev, evc)
    st[O_OCC + f] = HUT
    st[O_OWN + f] = seat
    st[O_HUTS + seat] -= 1
    _emit(ev, evc, EV_HUT, seat, f, size, cost)
    if chip == CHIP_VP:
        st[O_VP + seat] += 2
        st[O_CHIP + f] = 0
        _emit(ev, evc, EV_BONUS, seat, f, chip, 2)
    elif chip == CHIP_FREE_HUT:
        st[O_CHIP + f] = 0
        _emit(ev, evc, EV_BONUS, seat, f, chip, 0)
    elif chip == CHIP_DRUID:
        _emit(ev, evc, EV_BONUS, seat, f, chip, 0)  # stays under the hut (R13, R20)
    area = fa[f]
    prev = st[O_RUNE + area]
    st[O_RUNE + area] = seat
    _emit(ev, evc, EV_RUNE, seat, area, prev, 0)
    st[O_CONS] += 1
    st[O_BUILT] = 1
    _druid_moves(st, ev, evc)


@njit(cache=True, nogil=True)
def _build_temple(st, fm, seat, f, ev, evc):
    """R14: pay 1 of each of the field's materials, place, druid moves; no rune stone."""
    _pay(st, seat, fm[f, 0], 1, fm[f, 1], 1, ev, evc)
    st[O_OCC + f] = TEMPLE
    st[O_OWN + f] = seat
    st[O_TEMPLES + seat] -= 1
    _emit(ev, evc, EV_TEMPLE, seat, f, 0, 0)
    st[O_CONS] += 1
    st[O_BUILT] = 1
    _druid_moves(st, ev, evc)


@njit(cache=True, nogil=True)
def _offer(st, fm, seat, f, size, choice, ev, evc):
    """R19, R20: the owner of the hut on f answers the druid."""
    old = st[O_VP + seat]
    ma = fm[f, 0]
    mb = fm[f, 1]
    if choice == OFFER_NONE:
        if old > 0:  # never below 0
            st[O_VP + seat] = old - 1
    elif choice == OFFER_FIRST:
        _pay(st, seat, ma, 1, mb, 0, ev, evc)
        st[O_VP + seat] += 1
    elif choice == OFFER_SECOND:
        _pay(st, seat, ma, 0, mb, 1, ev, evc)
        st[O_VP + seat] += 1
    elif choice == OFFER_BOTH:
        _pay(st, seat, ma, 1, mb, 1, ev, evc)
        st[O_VP + seat] += size
    else:
        st[O_CHIP + f] = 0  # the druid chip counts as both materials, then leaves the game
        st[O_VP + seat] += size
    _emit(ev, evc, EV_OFFERING, seat, f, choice, st[O_VP + seat] - old)


@njit(cache=True, nogil=True)
def _exchange(st, seat, a, ev, evc):
    """R15 manual mode: return the 3 chips of the combo, take one."""
    r = a - A_EXCHANGE
    k = r // 4
    take = r % 4
    b = O_MAT + seat * 4
    for m in range(4):
        c = EXCHANGE_GIVE_COUNTS[k, m]
        st[b + m] -= c
        st[O_SUP + m] += c
    st[b + take] += 1
    st[O_SUP + take] -= 1
    _emit(ev, evc, EV_EXCHANGE, seat, k, take, 0)


@njit(cache=True, nogil=True)
def _apply_decision(st, fm, fa, a, ev, evc):
    q = _head(st)
    seat = st[q + 1]
    if a >= A_EXCHANGE:
        _exchange(st, seat, a, ev, evc)  # a free action: the decision stays pending
        return
    st[O_QHEAD] += 1
    if a < A_TAKE:
        p = a - A_PLACE
        h = _height(st, p)
        st[O_STACK + p * 3 + h] = seat
        _emit(ev, evc, EV_WORKER_PLACED, seat, p, h, 0)
    elif a < A_RETURN:
        m = a - A_TAKE
        st[O_SUP + m] -= 1
        st[O_MAT + seat * 4 + m] += 1
        _emit(ev, evc, EV_TAKE, seat, m, 0, 0)
    elif a < A_YIELD:
        m = a - A_RETURN
        st[O_SUP + m] += 1
        st[O_MAT + seat * 4 + m] -= 1
        _emit(ev, evc, EV_RETURN, seat, m, 0, 0)
    elif a < A_HUT:
        _big_yield(st, seat, a, ev, evc)
    elif a < A_TEMPLE:
        _build_hut(st, fm, fa, seat, a - A_HUT, ev, evc)
    elif a < A_OFFER:
        _build_temple(st, fm, seat, a - A_TEMPLE, ev, evc)
    else:
        _offer(st, fm, seat, st[q + 2], st[q + 3], a - A_OFFER, ev, evc)


@njit(cache=True, nogil=True)
def apply(st, fm, fa, a, ev, evc):
    """Apply player action or chance outcome ``a``. Returns the next current player, ILLEGAL (state
    untouched) or EVENT_OVERFLOW (events lost; cannot happen with EV_CAPACITY for boards up to
    MAX_FIELDS)."""
    evc[0] = 0
    ph = st[O_PHASE]
    if ph == PH_TERMINAL:
        return ILLEGAL
    if ph == PH_QUEUE:
        if not is_legal(st, fm, a):
            return ILLEGAL
    elif not chance_legal(st, a):
        return ILLEGAL
    return apply_legal(st, fm, fa, a, ev, evc)


@njit(cache=True, nogil=True)
def apply_legal(st, fm, fa, a, ev, evc):
    """:func:`apply` without the legality test, for callers that know ``a`` is legal (the batch
    engine tests actions against the legal masks it wrote, and draws chance outcomes from
    :func:`chance_outcome`). An illegal ``a`` here corrupts the state."""
    evc[0] = 0
    if st[O_PHASE] == PH_QUEUE:
        _apply_decision(st, fm, fa, a, ev, evc)
    else:
        _apply_chance(st, a, ev, evc)
    _settle(st, ev, evc)
    if evc[0] > ev.shape[0]:
        return EVENT_OVERFLOW
    return current_player(st)


@njit(cache=True, nogil=True)
def settle(st, ev, evc):
    """Resolve automatic entries (used after loading or building a position by hand)."""
    evc[0] = 0
    _settle(st, ev, evc)


@njit(cache=True, nogil=True)
def random_playout(st, fm, fa, seed, max_steps):
    """Play uniformly random legal actions and chance outcomes (by their probabilities) to the
    end inside numba. Used by benchmarks and MCTS rollouts; returns the number of steps."""
    np.random.seed(seed)
    ev = np.zeros((EV_CAPACITY, EV_WIDTH), dtype=np.int32)
    evc = np.zeros(1, dtype=np.int64)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    cmask = np.zeros(NUM_CHANCE_OUTCOMES, dtype=np.int8)
    steps = 0
    while st[O_PHASE] != PH_TERMINAL and steps < max_steps:
        if st[O_PHASE] == PH_QUEUE:
            a = random_legal_action(st, fm, mask)
        else:
            a = sample_chance_outcome(st, cmask)
        apply(st, fm, fa, a, ev, evc)
        steps += 1
    return steps


@njit(cache=True, nogil=True)
def random_legal_action(st, fm, mask):
    """A uniformly random legal action at a decision node (np.random seeded by the caller)."""
    legal_mask(st, fm, mask)
    return masked_choice(mask, np.random.randint(0, 1 << 32))


@njit(cache=True, nogil=True)
def masked_choice(mask, r):
    """The action picked uniformly among the nonzero entries of ``mask`` by the uniform 32-bit
    number ``r``; -1 when there is none."""
    count = 0
    for i in range(mask.shape[0]):
        if mask[i] != 0:
            count += 1
    if count == 0:
        return -1
    pick = below(r, count)
    for i in range(mask.shape[0]):
        if mask[i] != 0:
            if pick == 0:
                return i
            pick -= 1
    return -1


@njit(cache=True, nogil=True)
def below(r, n):
    """A uniform int in [0, n) from a uniform 32-bit number ``r`` (multiply-shift: no modulo
    bias beyond n / 2**32)."""
    return np.int64((np.uint64(r) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nogil=True)
def chance_outcome(st, cmask, r1, r2):
    """The outcome id of the chance node ``st`` picked by two uniform 32-bit numbers, with the
    documented distributions (state.py): a die face (R7) or a starting seat (R6) from ``r1``; a
    bonus chip's field uniformly among the allowed ones from ``r1`` and its kind by the chips
    left of each kind from ``r2`` (R4). ``cmask`` is scratch (int8 [NUM_CHANCE_OUTCOMES]). Every
    sampler of the project (numba playouts, the batch engine) draws through this function."""
    ph = st[O_PHASE]
    if ph == PH_ROLL:
        return C_DIE + below(r1, 6)
    if ph == PH_START:
        return C_START + below(r1, st[O_NP])
    chance_mask(st, cmask)
    nfields = 0
    for f in range(MAX_FIELDS):
        for kind in range(3):
            if cmask[C_CHIP - C_DIE + f * 3 + kind] != 0:
                nfields += 1
                break
    pick = below(r1, nfields)
    field = -1
    for f in range(MAX_FIELDS):
        ok = False
        for kind in range(3):
            if cmask[C_CHIP - C_DIE + f * 3 + kind] != 0:
                ok = True
        if ok:
            if pick == 0:
                field = f
                break
            pick -= 1
    left = st[O_CHIPLEFT] + st[O_CHIPLEFT + 1] + st[O_CHIPLEFT + 2]
    r = below(r2, left)
    kind = 0
    while r >= st[O_CHIPLEFT + kind]:
        r -= st[O_CHIPLEFT + kind]
        kind += 1
    return C_CHIP + field * 3 + kind


@njit(cache=True, nogil=True)
def sample_chance_outcome(st, cmask):
    """An outcome id of the chance node ``st`` with the documented probabilities, drawn from
    numba's ``np.random`` (seeded by the caller)."""
    return chance_outcome(st, cmask, np.random.randint(0, 1 << 32), np.random.randint(0, 1 << 32))
