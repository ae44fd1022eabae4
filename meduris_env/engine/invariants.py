"""The invariants every position keeps: the one checker, a numba kernel for a state or a batch.

:func:`violations` returns a bit set, 0 when all hold; :func:`first_problem` names the first
broken invariant in words (a state file that breaks one is refused with it, see
:func:`~meduris_env.engine.serialize.check_consistency`). The property tests and the soak
benchmark (``benchmarks/soak.py``) check every position with :func:`batch_violations`.

==========  ================================================================================
bit         invariant
==========  ================================================================================
1           the 72 materials are conserved: supply + holdings = 18 of each (R2)
2           every supply count is within 0..18 (R2)
4           nobody holds a negative number of chips
8           nobody has fewer than 0 VP (R19: refusing an offering never goes below 0)
16          pieces: huts left within 0..R1's count, temples left within 0..2, and the pieces
            on the board plus those left make the player's set (R1)
32          every rune stone is held by a seat that owns a hut in its area, or by nobody (R12)
64          the druid is on his stones (0..3) or on a ring field (R5, R17)
128         seats that do not play hold no materials
256         VP at most MAX_VP, and none for seats that do not play
512         the board holds nothing but empty fields, huts and temples, on its fields only
1024        a field has an owner exactly when a hut or temple stands on it, and it is a seat
2048        bonus chips are of the three kinds; only druid chips lie under huts, none under
            temples (R13, R14)
4096        at most 2 bonus chips of a kind, placed or still to place (R4)
8192        each high plain's stack is seats from the bottom up, then empty (R6, R11)
16384       every seat has its workers on the plains (R1, R6; fewer while they are placed)
32768       the druid stands on the ring only after his stone fields, and only at a hut (R17)
65536       phase and stage are known codes
131072      the turn is within 0..max_turns
262144      the flags are 0 or 1, the end reason a known code
524288      the construction count is the huts and temples on the board (R17)
1048576     idle turns and finale turns left are within range (R22)
2097152     the roller and the starting player are seats
4194304     the die face is a face or none, the finale's seat a seat or none
8388608     the decision queue's head and length are within its capacity
16777216    every queued decision is a known kind, of a seat (rune interim scoring: of none)
33554432    every queued offering is at a hut of the seat asked (R18, R19)
67108864    in the decision phase a decision is due
134217728   num_players is 2..4 and num_fields 1..48 (nothing else is checked without them)
==========  ================================================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import layout  # (the offsets as layout.O_*: numba folds them as constants)
from .constants import (
    CHIP_DRUID,
    CHIP_FREE_HUT,
    CHIP_NONE,
    CHIP_VP,
    CHIPS_PER_KIND,
    DRUID_STONE_FIELDS,
    EMPTY,
    END_TRUNCATED,
    FACE_MINUS,
    HUT,
    HUTS,
    HUTS_BY_PLAYERS,
    MATERIAL_TOTAL,
    MAX_FIELDS,
    MAX_PLAYERS,
    MAX_VP,
    NUM_MATERIALS,
    NUM_PLAINS,
    NUM_RUNE_AREAS,
    PH_CHIPS,
    PH_QUEUE,
    PH_START,
    PH_TERMINAL,
    Q_INTERIM,
    Q_OFFER,
    STACK_HEIGHT,
    STAGE_FINAL,
    STAGE_SETUP,
    TEMPLE,
    TEMPLES,
    WORKERS,
    WORKERS_BY_PLAYERS,
)
from .layout import QUEUE_CAPACITY, QUEUE_WIDTH

(MATERIALS_CONSERVED, SUPPLY_RANGE, HOLDINGS, VP_FLOOR, PIECES, RUNES, DRUID, IDLE_MATERIALS,
 VP_RANGE, OCCUPANTS, OWNERS, CHIP_PLACES, CHIP_COUNT, STACKS, WORKERS_PLACED, DRUID_RING,
 PHASE, TURN, FLAGS, CONSTRUCTIONS, IDLE_TURNS, SEATS, DIE, QUEUE_RANGE, QUEUE_ENTRY,
 QUEUE_OFFER, QUEUE_EMPTY, PARAMS) = (1 << i for i in range(28))
NUM_BITS = 28

NAMES = {MATERIALS_CONSERVED: "materials conserved (R2)", SUPPLY_RANGE: "supply 0..18 (R2)",
         HOLDINGS: "no negative holdings", VP_FLOOR: "VP >= 0 (R19)",
         PIECES: "pieces add up (R1)", RUNES: "rune stones held by a hut owner (R12)",
         DRUID: "druid on his stones or the ring (R5, R17)",
         IDLE_MATERIALS: "no materials for seats that do not play",
         VP_RANGE: f"VP <= {MAX_VP}, none for seats that do not play",
         OCCUPANTS: "board occupants on the board's fields only",
         OWNERS: "owners exactly where pieces stand", CHIP_PLACES: "bonus chips (R13, R14)",
         CHIP_COUNT: "2 bonus chips of a kind (R4)", STACKS: "worker stacks (R6, R11)",
         WORKERS_PLACED: "workers on the plains (R1, R6)",
         DRUID_RING: "druid on the ring at a hut (R17)", PHASE: "phase / stage codes",
         TURN: "turn within max_turns", FLAGS: "flags and end reason",
         CONSTRUCTIONS: "construction count (R17)", IDLE_TURNS: "idle / finale turns (R22)",
         SEATS: "roller / start player", DIE: "die face / finale seat",
         QUEUE_RANGE: "queue bounds", QUEUE_ENTRY: "queued decisions",
         QUEUE_OFFER: "queued offerings (R18, R19)", QUEUE_EMPTY: "a decision is due",
         PARAMS: "num_players / num_fields"}


@njit(cache=True, nogil=True)
def _mark(where, bit_index, detail):
    """The bit of invariant ``bit_index``; the first ``detail`` (a seat, plain, field, rune
    area or queue row) goes into ``where`` so the message can name it."""
    if where is not None:  # (None: compiled away, violations keeps no places)
        if where[bit_index] < 0:
            where[bit_index] = detail
    return 1 << bit_index


@njit(cache=True, nogil=True)
def _materials_and_vp(st, np_, where):
    bad = 0
    for m in range(NUM_MATERIALS):
        total = st[layout.O_SUP + m]
        if total < 0 or total > MATERIAL_TOTAL:
            bad |= _mark(where, 1, m)  # SUPPLY_RANGE
        for s in range(MAX_PLAYERS):
            c = st[layout.O_MAT + s * NUM_MATERIALS + m]
            if c < 0:
                bad |= _mark(where, 2, s)  # HOLDINGS
            if s >= np_ and c != 0:
                bad |= _mark(where, 7, s)  # IDLE_MATERIALS
            total += c
        if total != MATERIAL_TOTAL:
            bad |= _mark(where, 0, m)  # MATERIALS_CONSERVED
    for s in range(MAX_PLAYERS):
        vp = st[layout.O_VP + s]
        if s < np_ and vp < 0:
            bad |= _mark(where, 3, s)  # VP_FLOOR
        if (s < np_ and vp > MAX_VP) or (s >= np_ and vp != 0):
            bad |= _mark(where, 8, s)  # VP_RANGE
    return bad


@njit(cache=True, nogil=True)
def _board(st, np_, n, where):
    bad = 0
    placed_vp = placed_free = placed_druid = 0
    built = 0
    for f in range(MAX_FIELDS):
        occ, own, chip = st[layout.O_OCC + f], st[layout.O_OWN + f], st[layout.O_CHIP + f]
        if occ < EMPTY or occ > TEMPLE or (f >= n and (occ != EMPTY or chip != CHIP_NONE)):
            bad |= _mark(where, 9, f)  # OCCUPANTS
        if (occ == EMPTY) != (own == -1) or own >= np_ or own < -1:
            bad |= _mark(where, 10, f)  # OWNERS
        if (chip < CHIP_NONE or chip > CHIP_DRUID or (chip != CHIP_NONE and occ == TEMPLE)
                or (CHIP_NONE < chip < CHIP_DRUID and occ == HUT)):
            bad |= _mark(where, 11, f)  # CHIP_PLACES
        elif chip == CHIP_VP:
            placed_vp += 1
        elif chip == CHIP_FREE_HUT:
            placed_free += 1
        elif chip == CHIP_DRUID:
            placed_druid += 1
        if occ > EMPTY:
            built += 1
    for k, placed in ((CHIP_VP, placed_vp), (CHIP_FREE_HUT, placed_free),
                      (CHIP_DRUID, placed_druid)):
        left = st[layout.O_CHIPLEFT + k - CHIP_VP]
        if left < 0 or placed + left > CHIPS_PER_KIND:
            bad |= _mark(where, 12, k)  # CHIP_COUNT
    cons = st[layout.O_CONS]
    if not 0 <= cons <= n or cons != built:
        bad |= _mark(where, 19, cons)  # CONSTRUCTIONS
    return bad


@njit(cache=True, nogil=True)
def _pieces_and_workers(st, np_, n, where):
    bad = 0
    huts_each, workers_each = HUTS_BY_PLAYERS[np_], WORKERS_BY_PLAYERS[np_]
    for s in range(np_):
        huts = temples = 0
        for f in range(n):
            if st[layout.O_OWN + f] == s:
                if st[layout.O_OCC + f] == HUT:
                    huts += 1
                elif st[layout.O_OCC + f] == TEMPLE:
                    temples += 1
        left_h, left_t = st[layout.O_HUTS + s], st[layout.O_TEMPLES + s]
        if not (0 <= left_h <= huts_each and 0 <= left_t <= TEMPLES
                and huts + left_h == huts_each and temples + left_t == TEMPLES):
            bad |= _mark(where, 4, s)  # PIECES
    for plain in range(NUM_PLAINS):
        empty_below = False
        for level in range(STACK_HEIGHT):
            owner = st[layout.O_STACK + plain * STACK_HEIGHT + level]
            if owner == -1:
                empty_below = True
            elif owner < 0 or owner >= np_ or empty_below:
                bad |= _mark(where, 13, plain)  # STACKS
    phase = st[layout.O_PHASE]
    in_setup = phase == PH_CHIPS or phase == PH_START or (phase == PH_QUEUE
                                                         and st[layout.O_STAGE] == STAGE_SETUP)
    for s in range(np_):
        w = 0
        for i in range(NUM_PLAINS * STACK_HEIGHT):
            if st[layout.O_STACK + i] == s:
                w += 1
        if w > workers_each or (not in_setup and w != workers_each):
            bad |= _mark(where, 14, s)  # WORKERS_PLACED
    return bad


@njit(cache=True, nogil=True)
def _runes_and_druid(st, fa, np_, n, where):
    bad = 0
    for r in range(NUM_RUNE_AREAS):
        holder = st[layout.O_RUNE + r]
        if holder == -1:
            continue
        owns = False
        for f in range(n):
            if fa[f] == r and st[layout.O_OCC + f] == HUT and st[layout.O_OWN + f] == holder:
                owns = True
        if not (0 <= holder < np_) or not owns:
            bad |= _mark(where, 5, r)  # RUNES
    stone, field = st[layout.O_DSTONE], st[layout.O_DFIELD]
    if not (0 <= stone <= DRUID_STONE_FIELDS) or not (-1 <= field < n):
        bad |= _mark(where, 6, field)  # DRUID
    elif field >= 0 and (stone != DRUID_STONE_FIELDS or st[layout.O_OCC + field] != HUT):
        bad |= _mark(where, 15, field)  # DRUID_RING
    return bad


@njit(cache=True, nogil=True)
def _turn(st, np_, where):
    bad = 0
    if not 0 <= st[layout.O_PHASE] <= PH_TERMINAL or not 0 <= st[layout.O_STAGE] <= STAGE_FINAL:
        bad |= _mark(where, 16, st[layout.O_PHASE])  # PHASE
    turn, max_turns = st[layout.O_TURN], st[layout.O_MAXT]
    if turn < 0 or (max_turns != 0 and turn > max_turns):
        bad |= _mark(where, 17, turn)  # TURN
    for flag in (st[layout.O_BUILT], st[layout.O_FCIRC], st[layout.O_RSTART]):
        if flag != 0 and flag != 1:
            bad |= _mark(where, 18, flag)  # FLAGS
    if not 0 <= st[layout.O_END] <= END_TRUNCATED:
        bad |= _mark(where, 18, st[layout.O_END])  # FLAGS
    if not 0 <= st[layout.O_IDLE] <= np_ or not 0 <= st[layout.O_FLEFT] <= np_ - 1:
        bad |= _mark(where, 20, st[layout.O_IDLE])  # IDLE_TURNS
    if not 0 <= st[layout.O_ROLLER] < np_ or not 0 <= st[layout.O_START] < np_:
        bad |= _mark(where, 21, st[layout.O_ROLLER])  # SEATS
    if not -1 <= st[layout.O_DIE] <= FACE_MINUS or not -1 <= st[layout.O_FSEAT] < np_:
        bad |= _mark(where, 22, st[layout.O_DIE])  # DIE
    return bad


@njit(cache=True, nogil=True)
def _queue(st, np_, n, where):
    head, length = st[layout.O_QHEAD], st[layout.O_QLEN]
    if not 0 <= head <= length <= QUEUE_CAPACITY:
        return _mark(where, 23, head)  # QUEUE_RANGE: the rows cannot be read
    bad = 0
    for i in range(head, length):
        row = layout.O_QUEUE + i * QUEUE_WIDTH
        kind, seat, field = st[row], st[row + 1], st[row + 2]
        if not 1 <= kind <= Q_INTERIM or (kind != Q_INTERIM and not 0 <= seat < np_):
            bad |= _mark(where, 24, i)  # QUEUE_ENTRY
        elif kind == Q_OFFER and (not 0 <= field < n or st[layout.O_OCC + field] != HUT
                                  or st[layout.O_OWN + field] != seat):
            bad |= _mark(where, 25, i)  # QUEUE_OFFER
    if st[layout.O_PHASE] == PH_QUEUE and head >= length:
        bad |= _mark(where, 26, head)  # QUEUE_EMPTY
    return bad


@njit(cache=True, nogil=True)
def check(st, fa, where):
    """The invariants ``st`` breaks, as a bit set (0: none), with the first place each one is
    broken in ``where`` (``NUM_BITS`` int64, -1 where none); ``fa``: the board's rune areas."""
    np_, n = st[layout.O_NP], st[layout.O_NF]
    if not 2 <= np_ <= MAX_PLAYERS or not 0 < n <= MAX_FIELDS:
        return _mark(where, 27, np_)  # PARAMS: nothing else can be read safely
    return (_materials_and_vp(st, np_, where) | _board(st, np_, n, where)
            | _pieces_and_workers(st, np_, n, where) | _runes_and_druid(st, fa, np_, n, where)
            | _turn(st, np_, where) | _queue(st, np_, n, where))


@njit(cache=True, nogil=True)
def violations(st, fa):
    """The invariants ``st`` breaks, as a bit set (0: none); ``fa`` is the board's rune areas."""
    return check(st, fa, None)


@njit(cache=True, nogil=True, parallel=True)
def batch_violations(states, fa, out):
    """:func:`violations` of every row into ``out``; returns how many rows break any."""
    count = 0
    for b in prange(states.shape[0]):
        v = violations(states[b], fa)
        out[b] = v
        count += 1 if v else 0
    return count


def describe(bits: int) -> str:
    """The invariants a bit set names, in words."""
    return ", ".join(name for bit, name in NAMES.items() if bits & bit) or "none"


# the order problems are reported in (a state file names its first one)
ORDER = (PARAMS, HOLDINGS, SUPPLY_RANGE, IDLE_MATERIALS, MATERIALS_CONSERVED, VP_FLOOR,
         OCCUPANTS, OWNERS, CHIP_PLACES, CHIP_COUNT, PIECES, STACKS, WORKERS_PLACED, RUNES,
         DRUID, DRUID_RING, PHASE, VP_RANGE, TURN, FLAGS, CONSTRUCTIONS, IDLE_TURNS, SEATS, DIE,
         QUEUE_RANGE, QUEUE_ENTRY, QUEUE_OFFER, QUEUE_EMPTY)

_MESSAGES = {
    PARAMS: f"num_players must be 2..{MAX_PLAYERS} and num_fields 1..{MAX_FIELDS}",
    HOLDINGS: f"materials must be >= 0 and each supply in 0..{MATERIAL_TOTAL} (R2)",
    SUPPLY_RANGE: f"materials must be >= 0 and each supply in 0..{MATERIAL_TOTAL} (R2)",
    IDLE_MATERIALS: "seats beyond num_players hold materials",
    VP_FLOOR: "VP below 0 (R19)",
    OCCUPANTS: "board_occupant must be 0/1/2 on the board's fields only",
    OWNERS: "board_owner must be a seat exactly where a hut or temple stands",
    CHIP_PLACES: "bonus chips: only druid chips may lie under huts, none under temples "
                 "(R13, R14)",
    CHIP_COUNT: f"more than {CHIPS_PER_KIND} bonus chips of a kind (R4)",
    STACKS: "stack on plain {where} must be seats from the bottom up, then -1",
    DRUID: "druid position out of range (R5, R17)",
    DRUID_RING: "the druid stands on the ring only after his stone fields, and only at a hut "
                "(R17)",
    PHASE: "phase / stage out of range",
    VP_RANGE: f"VP beyond {MAX_VP}, or VP for seats that do not play",
    FLAGS: "built_this_turn / final_circuit / random_start must be 0 or 1, end_reason "
           f"0..{END_TRUNCATED}",
    CONSTRUCTIONS: "constructions must count the huts and temples on the board (R17)",
    IDLE_TURNS: "idle_turns / finale_turns_left out of range (R22)",
    SEATS: "roller / start_player out of range",
    DIE: "die_face / finale_seat out of range",
    QUEUE_RANGE: "queue_head / queue_len out of range",
    QUEUE_EMPTY: "decision phase with an empty queue",
}


def first_problem(state) -> str | None:
    """The first invariant ``state`` (a :class:`~meduris_env.engine.state.State`) breaks, in
    one line naming where; ``None`` when every invariant holds."""
    where = np.full(NUM_BITS, -1, dtype=np.int64)
    bits = check(state.array, state.game.field_areas, where)
    for bit in ORDER:
        if bits & bit:
            return _message(state, bit, int(where[bit.bit_length() - 1]))
    return None


def _message(state, bit: int, where: int) -> str:
    """The words for broken invariant ``bit``, first broken at ``where`` (see :func:`check`)."""
    p = int(state.num_players)
    if bit == MATERIALS_CONSERVED:
        totals = state.supply + state.materials.sum(axis=0)
        return (f"materials not conserved: supply + players = {totals.tolist()}, expected "
                f"{MATERIAL_TOTAL} each (R2)")
    if bit == PIECES:
        return (f"seat {where}: huts/temples on the board plus those left do not make "
                f"{HUTS[p]} huts and {TEMPLES} temples (R1)")
    if bit == WORKERS_PLACED:
        w = int(np.sum(state.stacks == where))
        return f"seat {where} has {w} workers on the plains, expected {WORKERS[p]} (R1, R6)"
    if bit == RUNES:
        return (f"rune stone {state.game.board.rune_areas[where]!r} is held by seat "
                f"{int(state.rune_holder[where])}, who has no hut in that area (R12)")
    if bit == TURN:
        return f"turn {int(state.turn)} outside 0..max_turns ({int(state.max_turns)})"
    if bit in (QUEUE_ENTRY, QUEUE_OFFER):
        kind, seat, field, _size = (int(x) for x in state.queue[where])
        if bit == QUEUE_ENTRY:
            return f"queue entry ({kind}, {seat}) is not a decision of a seat"
        return f"queued offering at field {field} is not a hut of seat {seat}"
    return _MESSAGES[bit].format(where=where)
