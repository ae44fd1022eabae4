"""What must hold in every Stone Age position (the rules' invariants), checked from the public
views of a state: :func:`violations` lists the ones broken (empty: all hold). The soak test plays
thousands of random games and checks every position (tests/test_stone_age_soak.py).

Checked: figures 5-10 (S4), agriculture 0-10 (S4), tools (S16: at most 3 tiles of 1-4, at most
12 in all, as even as possible), no negative goods (S2), the 36 cards and 28 buildings where
they can be (deck, display, hands; never seen, face up, owned), the stacks (S6), the capacities
and the two- and three-player closures during placement (S9, S10, M4), the figures placed (S11),
the scores (every point from a source, constants.SOURCE_NAMES) and the Mammoth tiles (M3, M8).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .components import BUILDINGS, CARDS
from .constants import (
    FIELD,
    HUT,
    MAX_AGRICULTURE,
    MAX_FIGURES,
    MAX_TOOLS,
    NUM_BUILDING_ROWS,
    NUM_CARD_ROWS,
    NUM_LOCATIONS,
    NUM_SOURCES,
    PH_PLACE,
    PH_SETUP,
    SITE_CAPACITY,
    STACK_TILES,
    START_FIGURES,
    TOOL_MAKER,
)
from .layout import (
    O_AGRI,
    O_BUILT,
    O_CARDS,
    O_DECK,
    O_DISPLAY,
    O_FIG,
    O_GOODS,
    O_HERD,
    O_MAMMOTH,
    O_NP,
    O_NTILES,
    O_ONTILE,
    O_PHASE,
    O_PLACED,
    O_RSTACK,
    O_SCORE,
    O_SECRET,
    O_SRC,
    O_SSIZE,
    O_STOP,
    O_TILES,
    O_TNOW,
    O_TSTATE,
    O_UNPL,
    O_UNSEEN,
    O_WON,
)


def violations(state) -> list[str]:
    """The invariants ``state`` breaks, in words (empty: none)."""
    out: list[str] = []
    for check in (_players, _cards, _buildings, _locations, _mammoth):
        out += check(state)
    return out


def _players(s) -> list[str]:
    out = []
    for p in range(s.game.num_players):
        if not START_FIGURES <= s.figures[p] <= MAX_FIGURES:
            out.append(f"seat {p} has {s.figures[p]} figures (S4: 5-10)")
        if not 0 <= s.agriculture[p] <= MAX_AGRICULTURE:
            out.append(f"seat {p} has agriculture {s.agriculture[p]} (S4: 0-10)")
        tiles = [int(t) for t in s.tiles[p] if t > 0]
        total = sum(tiles)
        if any(t > 4 for t in tiles) or total > MAX_TOOLS or (s.tiles[p] < 0).any():
            out.append(f"seat {p} has tool tiles {s.tiles[p].tolist()} (S16)")
        elif len(tiles) != min(total, 3) or (tiles and max(tiles) - min(tiles) > 1):
            out.append(f"seat {p}'s tool tiles {s.tiles[p].tolist()} are not as even as "
                       "S16 makes them")
        if (s.goods[p] < 0).any():
            out.append(f"seat {p} has negative goods {s.goods[p].tolist()} (S2)")
        if s.score[p] != s.sources[p].sum():
            out.append(f"seat {p}'s score {s.score[p]} is not the sum of its sources "
                       f"{s.sources[p].tolist()}")
        if (s.secret[p] > s.cards[p]).any():
            out.append(f"seat {p} has more secret cards than cards")
        if s.one_use[p].sum() > 3 or s.any_unclaimed[p] > 1:
            out.append(f"seat {p} has unused one-use/ANY2 cards it cannot have")
    return out


def _cards(s) -> list[str]:
    where = s.deck + s.cards.sum(axis=0)
    for c in s.display:
        if c >= 0:
            where[c] += 1
    if not np.array_equal(where, CARDS[:, 0]):
        return [f"the 36 civilization cards are not conserved: {where.sum()} found"]
    return []


def _buildings(s) -> list[str]:
    out = []
    n = s.game.num_players
    where = s.unseen + s.built.sum(axis=0)
    for j in range(4):
        if s.stack_top[j] >= 0:
            where[s.stack_top[j]] += 1
    if not np.array_equal(where, BUILDINGS[:, 0]):
        out.append(f"the 28 buildings are not conserved: {where.sum()} found")
    if s.stack_size[:n].sum() + s.built.sum() != STACK_TILES * n or s.stack_size[n:].any():
        out.append(f"the stacks {s.stack_size.tolist()} and {s.built.sum()} buildings built "
                   f"are not the {STACK_TILES * n} tiles of S6")
    for j in range(n if s.phase != PH_SETUP else 0):
        turning = s.reveal_stack == j
        if (s.stack_top[j] >= 0) != (s.stack_size[j] > 0) and not turning:
            out.append(f"stack {j + 1} has {s.stack_size[j]} tiles and top "
                       f"{s.stack_top[j]} (S6, S25)")
    return out


def _locations(s) -> list[str]:
    out = []
    n = s.game.num_players
    placed = s.placed
    for p in range(n):
        if placed[:, p].sum() + s.unplaced[p] + s.on_tile[p] > s.figures[p]:
            out.append(f"seat {p} has more figures out than it owns")
    for loc in range(1, 5):
        if placed[loc].sum() > SITE_CAPACITY:
            out.append(f"location {loc} holds {placed[loc].sum()} figures (S9: 7)")
    for loc in range(TOOL_MAKER, NUM_LOCATIONS):
        most = 2 if loc == HUT else 1
        if placed[loc].sum() > most or (loc == HUT and placed[loc].max() not in (0, 2)):
            out.append(f"location {loc} holds {placed[loc].tolist()} (S9)")
    if s.phase != PH_PLACE or n == 4:
        return out
    village = sum(1 for loc in range(TOOL_MAKER, FIELD + 1) if placed[loc].any())
    if village > 2:
        out.append("three village locations are occupied with fewer than 4 players (S10a)")
    for loc in range(1, 5):
        if s.mammoth and s.herd == loc:
            continue  # M4
        if np.count_nonzero(placed[loc][:n]) > n - 1:  # 2 players: 1; 3 players: 2
            out.append(f"site {loc} holds the figures of too many players (S10b)")
    return out


def _mammoth(s) -> list[str]:
    out = []
    n = s.game.num_players
    states = s.tile_state[: s.num_tiles]
    for p in range(n):
        if s.tiles_won[p] != int(np.count_nonzero(states == 3 + p)):
            out.append(f"seat {p}'s Mammoth tiles won {s.tiles_won[p]} do not match the tiles")
    if np.count_nonzero(states == 1) > 1 or (np.count_nonzero(states == 1) == 1) != (
            s.tile_now >= 0):
        out.append("the round's Mammoth tile is not the one face-up tile (M3)")
    if s.herd >= 0 and not 1 <= s.herd <= 4:
        out.append(f"the herd stands on location {s.herd} (M3: a site)")
    if not s.mammoth and (s.herd >= 0 or states.any()):
        out.append("Mammoth Herd material in a game without the expansion")
    return out


# --- the same checks compiled, for the soak's millions of positions --------------------------
PROBLEMS = ("figures out of 5-10 (S4)", "agriculture out of 0-10 (S4)", "tools (S16)",
            "negative goods (S2)", "score is not the sum of its sources", "cards not conserved",
            "buildings not conserved", "stacks (S6)", "capacity (S9)", "S10a", "S10b",
            "figures out", "Mammoth tiles (M3, M8)")


def first_problem(state) -> str | None:
    """The first invariant ``state`` breaks, by the compiled check (None: none); the soak's
    fast path (:func:`violations` says the same in full words)."""
    code = check_compiled(state.array, _CARD_COPIES, _BUILDING_COPIES)
    return None if code == 0 else PROBLEMS[code - 1]


_CARD_COPIES = np.ascontiguousarray(CARDS[:, 0])
_BUILDING_COPIES = np.ascontiguousarray(BUILDINGS[:, 0])


@njit(cache=True, nogil=True)
def _owned(st, at, rows, row):
    """The copies of ``row`` the four seats hold in the per-seat table at ``at`` (``rows``
    rows a seat): cards or buildings owned."""
    n = 0
    for p in range(4):
        n += st[at + p * rows + row]
    return n


@njit(cache=True, nogil=True)
def _shown(st, at, row):
    """How many of the four places at ``at`` show ``row``: the display's slots or the stacks'
    tops."""
    n = 0
    for j in range(4):
        if st[at + j] == row:
            n += 1
    return n


@njit(cache=True, nogil=True)
def check_compiled(st, card_copies, building_copies):  # noqa: C901 (one pass, one code each)
    """0, or 1 + the index in PROBLEMS of the first invariant ``st`` breaks."""
    n = st[O_NP]
    for p in range(n):
        if st[O_FIG + p] < START_FIGURES or st[O_FIG + p] > MAX_FIGURES:
            return 1
        if st[O_AGRI + p] < 0 or st[O_AGRI + p] > MAX_AGRICULTURE:
            return 2
        total = 0
        count = 0
        low = 99
        high = 0
        for t in range(3):
            v = st[O_TILES + p * 3 + t]
            if v < 0 or v > 4:
                return 3
            if v > 0:
                total += v
                count += 1
                low = min(low, v)
                high = max(high, v)
        if total > MAX_TOOLS or count != min(total, 3) or (count and high - low > 1):
            return 3
        src = 0
        for g in range(5):
            if st[O_GOODS + p * 5 + g] < 0:
                return 4
        for k in range(NUM_SOURCES):
            src += st[O_SRC + p * NUM_SOURCES + k]
        if src != st[O_SCORE + p]:
            return 5
        out = st[O_UNPL + p] + st[O_ONTILE + p]
        for loc in range(NUM_LOCATIONS):
            out += st[O_PLACED + loc * 4 + p]
        if out > st[O_FIG + p]:
            return 12
    for c in range(NUM_CARD_ROWS):
        for p in range(4):
            if st[O_SECRET + p * NUM_CARD_ROWS + c] > st[O_CARDS + p * NUM_CARD_ROWS + c]:
                return 6
        where = st[O_DECK + c] + _owned(st, O_CARDS, NUM_CARD_ROWS, c) + _shown(st, O_DISPLAY, c)
        if where != card_copies[c]:
            return 6
    built_total = 0
    for b in range(NUM_BUILDING_ROWS):
        owned = _owned(st, O_BUILT, NUM_BUILDING_ROWS, b)
        built_total += owned
        if st[O_UNSEEN + b] + owned + _shown(st, O_STOP, b) != building_copies[b]:
            return 7
    sizes = 0
    for j in range(4):
        sizes += st[O_SSIZE + j]
        if j >= n and st[O_SSIZE + j] != 0:
            return 8
        if j < n and st[O_PHASE] != PH_SETUP and st[O_RSTACK] != j and \
                (st[O_STOP + j] >= 0) != (st[O_SSIZE + j] > 0):
            return 8
    if sizes + built_total != STACK_TILES * n:
        return 8
    for loc in range(1, 5):
        total = 0
        players = 0
        for p in range(4):
            total += st[O_PLACED + loc * 4 + p]
            if st[O_PLACED + loc * 4 + p] > 0:
                players += 1
        if total > SITE_CAPACITY:
            return 9
        herd = st[O_MAMMOTH] == 1 and st[O_HERD] == loc
        if st[O_PHASE] == PH_PLACE and n < 4 and not herd and players > n - 1:
            return 11
    village = 0
    for loc in range(TOOL_MAKER, NUM_LOCATIONS):
        total = 0
        for p in range(4):
            k = st[O_PLACED + loc * 4 + p]
            total += k
            if loc == HUT and k != 0 and k != 2:
                return 9
        if total > (2 if loc == HUT else 1):
            return 9
        if loc <= FIELD and total > 0:
            village += 1
    if st[O_PHASE] == PH_PLACE and n < 4 and village > 2:
        return 10
    faceup = 0
    for i in range(st[O_NTILES]):
        t = st[O_TSTATE + i]
        if t == 1:
            faceup += 1
    if faceup > 1 or (faceup == 1) != (st[O_TNOW] >= 0):
        return 13
    for p in range(n):
        won = 0
        for i in range(st[O_NTILES]):
            if st[O_TSTATE + i] == 3 + p:
                won += 1
        if won != st[O_WON + p]:
            return 13
    return 0
