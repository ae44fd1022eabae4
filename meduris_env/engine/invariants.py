"""The invariants every position keeps, as one numba kernel for a state or a batch of rows.

:func:`violations` returns a bit set, 0 when all hold:

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
64          the druid is on his stones (0..3) or on a ring field, not both (R5, R17)
==========  ================================================================================

The property tests and the soak benchmark (``benchmarks/soak.py``) check every position with it.
"""

from __future__ import annotations

from numba import njit, prange

from .constants import HUT, MATERIAL_TOTAL, NUM_RUNE_AREAS, TEMPLE
from .layout import (
    O_DFIELD,
    O_DSTONE,
    O_HUTS,
    O_MAT,
    O_NF,
    O_NP,
    O_OCC,
    O_OWN,
    O_RUNE,
    O_SUP,
    O_TEMPLES,
    O_VP,
)

MATERIALS_CONSERVED, SUPPLY_RANGE, HOLDINGS, VP_FLOOR, PIECES, RUNES, DRUID = (
    1, 2, 4, 8, 16, 32, 64)
NAMES = {MATERIALS_CONSERVED: "materials conserved (R2)", SUPPLY_RANGE: "supply 0..18 (R2)",
         HOLDINGS: "no negative holdings", VP_FLOOR: "VP >= 0 (R19)",
         PIECES: "pieces add up (R1)", RUNES: "rune stones held by a hut owner (R12)",
         DRUID: "druid on his stones or the ring (R5, R17)"}


@njit(cache=True)
def violations(st, fa):
    """The invariants ``st`` breaks, as a bit set (0: none); ``fa`` is the board's rune areas."""
    bad = 0
    np_ = st[O_NP]
    n = st[O_NF]
    for m in range(4):
        total = st[O_SUP + m]
        if total < 0 or total > MATERIAL_TOTAL:
            bad |= SUPPLY_RANGE
        for s in range(4):
            c = st[O_MAT + s * 4 + m]
            if c < 0:
                bad |= HOLDINGS
            total += c
        if total != MATERIAL_TOTAL:
            bad |= MATERIALS_CONSERVED
    huts_each = 12 if np_ == 2 else 8
    for s in range(np_):
        if st[O_VP + s] < 0:
            bad |= VP_FLOOR
        huts = temples = 0
        for f in range(n):
            if st[O_OWN + f] == s:
                if st[O_OCC + f] == HUT:
                    huts += 1
                elif st[O_OCC + f] == TEMPLE:
                    temples += 1
        if not (0 <= st[O_HUTS + s] <= huts_each and 0 <= st[O_TEMPLES + s] <= 2
                and huts + st[O_HUTS + s] == huts_each and temples + st[O_TEMPLES + s] == 2):
            bad |= PIECES
    for r in range(NUM_RUNE_AREAS):
        holder = st[O_RUNE + r]
        if holder == -1:
            continue
        owns = False
        for f in range(n):
            if fa[f] == r and st[O_OCC + f] == HUT and st[O_OWN + f] == holder:
                owns = True
        if not (0 <= holder < np_) or not owns:
            bad |= RUNES
    stone, field = st[O_DSTONE], st[O_DFIELD]
    if not (0 <= stone <= 3) or not (-1 <= field < n) or (field >= 0 and stone != 3):
        bad |= DRUID
    return bad


@njit(cache=True, parallel=True)
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


