"""The observation vector: one seat's view of a position, as a flat ``float32`` array.

Every entry is a count or a 0/1 flag (no scaling), so a vector decodes back into the position's
numbers exactly (:func:`decode_observation`). :data:`OBS_FIELDS` lists the slices in order; the
README's "Observation" table is generated from it. Two conventions:

* **Seats are relative** to the observer: index 0 is the observer, then the other players
  clockwise (R6 turn order). Unused seats (fewer than 4 players) are all zero, so one vector size
  serves 2, 3 and 4 players.
* **Fields are padded** to :data:`~meduris_env.engine.constants.MAX_FIELDS` (48);
  ``field_present`` marks the fields the board has.

With ``hidden_materials`` the opponents' chips behind their screens (R2) show only as
``player_material_total``; ``player_materials`` is zero for them and ``player_materials_hidden``
is 1.

The vector is written by the numba kernel :func:`encode_observation` (about a microsecond), so
observing is cheap enough for the environment's throughput bar.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import layout  # (the offsets as layout.O_*: numba folds them as constants)
from ..engine.constants import (
    HUT,
    HUTS,
    MATERIAL_TOTAL,
    MAX_FIELDS,
    MAX_PLAYERS,
    MAX_VP,
    NUM_ACTIONS,
    NUM_MATERIALS,
    NUM_PLAINS,
    NUM_RUNE_AREAS,
    PH_QUEUE,
    Q_OFFER,
    STACK_HEIGHT,
    TEMPLE,
    TEMPLES,
)

NUM_DECISION_KINDS = 5  # place worker, take (+1), return (-1), turn action, offering
MAX_SETTLEMENT = MAX_FIELDS
TURN_HIGH_NO_LIMIT = 100_000  # the bound of `turn` when the game has no turn limit

F, P = MAX_FIELDS, MAX_PLAYERS
# (name, shape, high, meaning); every low bound is 0. high=None: depends on the game's max_turns.
OBS_FIELDS: tuple[tuple[str, tuple[int, ...], int | None, str], ...] = (
    # board (R3, R4): one row per field, clockwise from the great river
    ("field_present", (F,), 1, "1 if the board has this field (boards have 32 or 40 of 48)"),
    ("field_materials", (F, NUM_MATERIALS), 1, "1 for each of the field's two materials"),
    ("field_rune_area", (F, NUM_RUNE_AREAS), 1, "one-hot rune area of the field"),
    ("field_hut", (F, P), 1, "one-hot relative owner of a hut on the field"),
    ("field_temple", (F, P), 1, "one-hot relative owner of a temple on the field"),
    ("field_bonus_chip", (F, 3), 1, "one-hot bonus chip on the field: +2 VP, free hut, druid"),
    ("field_druid", (F,), 1, "1 on the ring field where the druid stands (R17)"),
    ("field_offering", (F,), 1, "1 on the hut whose owner is asked for an offering now (R19)"),
    # rune stones (R13, R25)
    ("rune_stone_holder", (NUM_RUNE_AREAS, P), 1, "one-hot relative seat holding each area's "
     "rune stone; all 0 while it lies on the board"),
    # druid (R5, R17)
    ("druid_stone", (4,), 1, "one-hot stone fields the druid has stepped on, 0..3"),
    ("druid_on_ring", (), 1, "1 once the druid has entered the ring"),
    # workers and supply (R2, R6, R11)
    ("stack_owner", (NUM_PLAINS, STACK_HEIGHT, P), 1, "per high plain (wood, wool, copper, "
     "stone) and level (0 = bottom): one-hot relative owner of the worker there"),
    ("supply", (NUM_MATERIALS,), MATERIAL_TOTAL, "material chips on each high plain"),
    # players, relative seats
    ("player_present", (P,), 1, "1 for seats in the game"),
    ("player_materials", (P, NUM_MATERIALS), MATERIAL_TOTAL, "chips behind each screen "
     "(0 for hidden opponents)"),
    ("player_material_total", (P,), NUM_MATERIALS * MATERIAL_TOTAL, "chips behind each screen, "
     "all materials"),
    ("player_materials_hidden", (P,), 1, "1 where the materials are shown as a total only"),
    ("player_vp", (P,), MAX_VP, "victory points"),
    ("player_huts_left", (P,), max(HUTS.values()), "huts not yet built"),
    ("player_temples_left", (P,), TEMPLES, "temples not yet built"),
    ("player_rune_stones", (P,), NUM_RUNE_AREAS, "rune stones held"),
    ("player_is_roller", (P,), 1, "1 for the seat whose turn it is"),
    ("player_is_start", (P,), 1, "1 for the starting player"),
    ("player_triggered_finale", (P,), 1, "1 for the seat that triggered the finale (R22)"),
    # the decision due now and its context
    ("decision_kind", (NUM_DECISION_KINDS,), 1, "one-hot: place worker, take (+1), return (-1), "
     "turn action (A/B/C), offering; all 0 when the game is over"),
    ("decision_seat", (P,), 1, "one-hot relative seat that must decide"),
    ("die_face", (6,), 1, "one-hot face rolled this turn: wood, wool, copper, stone, +1, -1"),
    ("offering_settlement_size", (), MAX_SETTLEMENT, "size of the settlement at stake in the "
     "pending offering (R19 'both' pays this)"),
    ("constructions", (), 2 * MAX_FIELDS, "huts and temples built so far (druid, R17)"),
    ("built_this_turn", (), 1, "1 if this turn has built something"),
    ("idle_turns", (), 2 * MAX_PLAYERS, "turns in a row without construction while none was "
     "possible (R22 ruling)"),
    ("finale", (), 1, "1 once the finale is triggered (R22)"),
    ("finale_turns_left", (), MAX_PLAYERS, "extra turns still to play in the finale"),
    ("final_circuit", (), 1, "1 during the druid's final circuit (R23)"),
    ("manual_exchange", (), 1, "1 if exchanges are explicit actions (R15)"),
    ("turn", (), None, "turns completed"),
    ("turns_left", (), None, "turns until the turn limit (0 without one)"),
)


def _offsets() -> dict[str, tuple[int, tuple[int, ...]]]:
    out, pos = {}, 0
    for name, shape, _, _ in OBS_FIELDS:
        out[name] = (pos, shape)
        pos += int(np.prod(shape)) if shape else 1
    return out


OBS_OFFSETS = _offsets()
OBS_SIZE = sum(int(np.prod(s)) if s else 1 for _, s, _, _ in OBS_FIELDS)


def _o(name: str) -> int:
    return OBS_OFFSETS[name][0]


# plain-int offsets for the kernel (numba freezes module globals at compile time)
B_PRESENT, B_MAT, B_AREA = _o("field_present"), _o("field_materials"), _o("field_rune_area")
B_HUT, B_TEMPLE, B_CHIP = _o("field_hut"), _o("field_temple"), _o("field_bonus_chip")
B_DRUIDF, B_OFFERF, B_RUNE = _o("field_druid"), _o("field_offering"), _o("rune_stone_holder")
B_DSTONE, B_DRING, B_STACK = _o("druid_stone"), _o("druid_on_ring"), _o("stack_owner")
B_SUP, B_PPRES, B_PMAT = _o("supply"), _o("player_present"), _o("player_materials")
B_PTOT, B_PHID, B_PVP = _o("player_material_total"), _o("player_materials_hidden"), _o("player_vp")
B_PHUTS, B_PTEMPLES = _o("player_huts_left"), _o("player_temples_left")
B_PRUNES, B_PROLLER = _o("player_rune_stones"), _o("player_is_roller")
B_PSTART, B_PFINALE = _o("player_is_start"), _o("player_triggered_finale")
B_DKIND, B_DSEAT, B_DIE = _o("decision_kind"), _o("decision_seat"), _o("die_face")
B_SIZE, B_CONS, B_BUILT = _o("offering_settlement_size"), _o("constructions"), _o("built_this_turn")
B_IDLE, B_FINALE, B_FLEFT = _o("idle_turns"), _o("finale"), _o("finale_turns_left")
B_FCIRC, B_MANUAL, B_TURN, B_TLEFT = (_o("final_circuit"), _o("manual_exchange"), _o("turn"),
                                      _o("turns_left"))


# The board's own slices (field_present, field_materials, field_rune_area) come first and never
# change during a game: the batch engine writes them once per buffer row.
BOARD_SLICES_END = B_HUT
assert BOARD_SLICES_END == _o("field_rune_area") + MAX_FIELDS * NUM_RUNE_AREAS


@njit(cache=True, nogil=True)
def encode_observation(st, fm, fa, observer, hidden, out):
    """Write ``observer``'s view of state ``st`` into ``out`` (float32, length OBS_SIZE)."""
    encode_board(fm, fa, st[layout.O_NF], out)
    encode_position(st, observer, hidden, out)


@njit(cache=True, nogil=True)
def encode_board(fm, fa, nf, out):
    """The board's slices of an observation (``out[:BOARD_SLICES_END]``)."""
    out[:BOARD_SLICES_END] = 0.0
    for f in range(nf):
        out[B_PRESENT + f] = 1.0
        out[B_MAT + f * 4 + fm[f, 0]] = 1.0
        out[B_MAT + f * 4 + fm[f, 1]] = 1.0
        out[B_AREA + f * 9 + fa[f]] = 1.0


@njit(cache=True, nogil=True)
def encode_position(st, observer, hidden, out):
    """Everything after the board's slices (``out[BOARD_SLICES_END:]``). Relative seats come
    from a table made once: ``(seat - observer) % n`` at every seat entry (an integer division
    each) cost more than everything else here."""
    out[BOARD_SLICES_END:] = 0.0
    n = st[layout.O_NP]
    relative = np.empty(MAX_PLAYERS, dtype=np.int64)
    for s in range(MAX_PLAYERS):
        relative[s] = s - observer + (n if s < observer else 0)
    nf = st[layout.O_NF]
    for f in range(nf):
        occ = st[layout.O_OCC + f]
        if occ != 0:
            rel = relative[st[layout.O_OWN + f]]
            if occ == HUT:
                out[B_HUT + f * 4 + rel] = 1.0
            elif occ == TEMPLE:
                out[B_TEMPLE + f * 4 + rel] = 1.0
        chip = st[layout.O_CHIP + f]
        if chip > 0:
            out[B_CHIP + f * 3 + chip - 1] = 1.0
    druid = st[layout.O_DFIELD]
    if druid >= 0:
        out[B_DRUIDF + druid] = 1.0
        out[B_DRING] = 1.0
    out[B_DSTONE + st[layout.O_DSTONE]] = 1.0
    for r in range(9):
        holder = st[layout.O_RUNE + r]
        if holder >= 0:
            rel = relative[holder]
            out[B_RUNE + r * 4 + rel] = 1.0
            out[B_PRUNES + rel] += 1.0
    for p in range(4):
        out[B_SUP + p] = st[layout.O_SUP + p]
        for lv in range(3):
            w = st[layout.O_STACK + p * 3 + lv]
            if w >= 0:
                out[B_STACK + (p * 3 + lv) * 4 + relative[w]] = 1.0
    for s in range(n):
        rel = relative[s]
        out[B_PPRES + rel] = 1.0
        total = 0
        for m in range(4):
            total += st[layout.O_MAT + s * 4 + m]
        out[B_PTOT + rel] = total
        if hidden and rel != 0:
            out[B_PHID + rel] = 1.0
        else:
            for m in range(4):
                out[B_PMAT + rel * 4 + m] = st[layout.O_MAT + s * 4 + m]
        out[B_PVP + rel] = st[layout.O_VP + s]
        out[B_PHUTS + rel] = st[layout.O_HUTS + s]
        out[B_PTEMPLES + rel] = st[layout.O_TEMPLES + s]
    out[B_PROLLER + relative[st[layout.O_ROLLER]]] = 1.0
    out[B_PSTART + relative[st[layout.O_START]]] = 1.0
    if st[layout.O_FSEAT] >= 0:
        out[B_PFINALE + relative[st[layout.O_FSEAT]]] = 1.0
        out[B_FINALE] = 1.0
    if st[layout.O_PHASE] == PH_QUEUE:
        h = layout.O_QUEUE + st[layout.O_QHEAD] * 4
        kind = st[h]
        if 1 <= kind <= 5:
            out[B_DKIND + kind - 1] = 1.0
            out[B_DSEAT + relative[st[h + 1]]] = 1.0
            if kind == Q_OFFER:
                out[B_OFFERF + st[h + 2]] = 1.0
                out[B_SIZE] = st[h + 3]
    if st[layout.O_DIE] >= 0:
        out[B_DIE + st[layout.O_DIE]] = 1.0
    out[B_CONS] = st[layout.O_CONS]
    out[B_BUILT] = st[layout.O_BUILT]
    out[B_IDLE] = st[layout.O_IDLE]
    out[B_FLEFT] = st[layout.O_FLEFT]
    out[B_FCIRC] = st[layout.O_FCIRC]
    out[B_MANUAL] = st[layout.O_MANUAL]
    out[B_TURN] = st[layout.O_TURN]
    if st[layout.O_MAXT] > 0:
        out[B_TLEFT] = st[layout.O_MAXT] - st[layout.O_TURN]


def observation_high(max_turns: int) -> np.ndarray:
    """Upper bounds of every entry (lower bounds are 0) for a game with this turn limit."""
    turn_high = max_turns if max_turns > 0 else TURN_HIGH_NO_LIMIT
    high = np.empty(OBS_SIZE, dtype=np.float32)
    for name, shape, h, _ in OBS_FIELDS:
        start = OBS_OFFSETS[name][0]
        size = int(np.prod(shape)) if shape else 1
        high[start:start + size] = turn_high if h is None else h
    return high


def decode_observation(vector) -> dict[str, np.ndarray | int]:
    """Split an observation vector (or the ``"observation"`` entry of an env observation) into
    its named parts, reshaped, as ints: ``decode_observation(obs)["player_vp"][0]`` is the
    observer's VP."""
    if isinstance(vector, dict):
        vector = vector["observation"]
    v = np.asarray(vector)
    if v.shape != (OBS_SIZE,):
        raise ValueError(f"an observation vector has shape ({OBS_SIZE},), got {v.shape}")
    out: dict[str, np.ndarray | int] = {}
    for name, shape, _, _ in OBS_FIELDS:
        start = OBS_OFFSETS[name][0]
        size = int(np.prod(shape)) if shape else 1
        part = np.rint(v[start:start + size]).astype(np.int64)
        out[name] = int(part[0]) if not shape else part.reshape(shape)
    return out


def observation_vector(state, seat: int, hidden_materials: bool = False) -> np.ndarray:
    """``seat``'s observation vector of an engine state (float32, length OBS_SIZE)."""
    game = state.game
    obs = np.empty(OBS_SIZE, dtype=np.float32)
    encode_observation(state.array, game.field_materials, game.field_areas, seat,
                       hidden_materials, obs)
    return obs


def observe_state(state, seat: int, hidden_materials: bool = False) -> dict[str, np.ndarray]:
    """``seat``'s environment observation of an engine state: ``{"observation", "action_mask"}``
    (the mask is all zero unless ``seat`` is to move)."""
    if seat == state.current_player():
        mask = state.legal_action_mask()
    else:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    return {"observation": observation_vector(state, seat, hidden_materials), "action_mask": mask}
