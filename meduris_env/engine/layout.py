"""Layout of the flat int32 state array.

One :class:`~meduris_env.engine.state.State` is one contiguous ``int32`` array, so ``clone()`` is
a single copy and the numba kernels work on it without Python objects. :data:`FIELDS` names every
slice; ``State`` exposes each as a numpy view of the given shape (``state.board_occupant`` …).
"""

from __future__ import annotations

from meduris_rl.kit.layout import field_offsets

from .constants import (
    MAX_FIELDS,
    MAX_PLAYERS,
    NUM_MATERIALS,
    NUM_PLAINS,
    NUM_RUNE_AREAS,
    STACK_HEIGHT,
)

QUEUE_CAPACITY = MAX_FIELDS + 16
QUEUE_WIDTH = 4  # kind, seat, field, settlement size

# (name, shape, meaning) in array order
FIELDS: tuple[tuple[str, tuple[int, ...], str], ...] = (
    # static copies of the game's parameters (kernels need them next to the position)
    ("num_players", (), "2, 3 or 4 (R1)"),
    ("num_fields", (), "fields on the ring (R3)"),
    ("manual_exchange", (), "1: exchanges are explicit actions; 0: automatic (R15)"),
    ("max_turns", (), "turn limit (truncation), 0 = none"),
    # board (R3, R4)
    ("board_occupant", (MAX_FIELDS,), "per field: 0 empty, 1 hut, 2 temple"),
    ("board_owner", (MAX_FIELDS,), "per field: owning seat, -1 if empty"),
    ("bonus_chip", (MAX_FIELDS,), "per field: 0 none, 1 +2 VP, 2 free hut, 3 druid offering"),
    ("chips_to_place", (3,), "face-down chips of each kind still to place (setup, R4)"),
    # workers (R6, R11): stacks[plain, level] = owning seat, level 0 = bottom, -1 = no worker
    ("stacks", (NUM_PLAINS, STACK_HEIGHT), "worker owner per plain and level (0 = bottom)"),
    # druid (R5, R17)
    ("druid_stone", (), "stone fields stepped on, 0 (on his temple) .. 3"),
    ("druid_field", (), "ring field the druid stands on, -1 while on his stones"),
    # materials (R2)
    ("supply", (NUM_MATERIALS,), "chips on each high plain"),
    ("materials", (MAX_PLAYERS, NUM_MATERIALS), "chips behind each player's screen"),
    # players
    ("vp", (MAX_PLAYERS,), "victory points"),
    ("huts_left", (MAX_PLAYERS,), "huts not yet built"),
    ("temples_left", (MAX_PLAYERS,), "temples not yet built"),
    ("rune_holder", (NUM_RUNE_AREAS,), "seat holding each area's rune stone, -1 = not taken"),
    # turn
    ("phase", (), "0 chip placement, 1 starting player, 2 die roll, 3 decisions, 4 terminal"),
    ("stage", (), "what follows an empty queue: 0 setup, 1 turn end, 2 final scoring"),
    ("start_player", (), "seat that started the game"),
    ("roller", (), "seat whose turn it is"),
    ("turn", (), "turns completed"),
    ("die_face", (), "face rolled this turn, -1 before the roll"),
    ("constructions", (), "huts and temples built in the game (R17)"),
    ("built_this_turn", (), "1 if the current turn built something"),
    ("idle_turns", (), "consecutive turns without construction while none was possible (R22)"),
    ("finale_seat", (), "seat that triggered the finale (R22), -1 before"),
    ("finale_turns_left", (), "extra turns still to play in the finale"),
    ("final_circuit", (), "1 during the druid's final circuit (R23)"),
    ("end_reason", (), "0 running, 1 finale, 2 no construction possible, 3 turn limit"),
    ("random_start", (), "1 if the starting player is a chance event"),
    # pending-decision queue: rows of (kind, seat, field, settlement size); head..len-1 pending
    ("queue_head", (), "index of the pending decision"),
    ("queue_len", (), "entries in the queue"),
    ("queue", (QUEUE_CAPACITY, QUEUE_WIDTH), "kind, seat, field, settlement size"),
)


OFFSETS = field_offsets(FIELDS)
STATE_SIZE = OFFSETS["_size"][0]

# plain-int offsets for the kernels (numba reads module globals as constants)
O_NP = OFFSETS["num_players"][0]
O_NF = OFFSETS["num_fields"][0]
O_MANUAL = OFFSETS["manual_exchange"][0]
O_MAXT = OFFSETS["max_turns"][0]
O_OCC = OFFSETS["board_occupant"][0]
O_OWN = OFFSETS["board_owner"][0]
O_CHIP = OFFSETS["bonus_chip"][0]
O_CHIPLEFT = OFFSETS["chips_to_place"][0]
O_STACK = OFFSETS["stacks"][0]
O_DSTONE = OFFSETS["druid_stone"][0]
O_DFIELD = OFFSETS["druid_field"][0]
O_SUP = OFFSETS["supply"][0]
O_MAT = OFFSETS["materials"][0]
O_VP = OFFSETS["vp"][0]
O_HUTS = OFFSETS["huts_left"][0]
O_TEMPLES = OFFSETS["temples_left"][0]
O_RUNE = OFFSETS["rune_holder"][0]
O_PHASE = OFFSETS["phase"][0]
O_STAGE = OFFSETS["stage"][0]
O_START = OFFSETS["start_player"][0]
O_ROLLER = OFFSETS["roller"][0]
O_TURN = OFFSETS["turn"][0]
O_DIE = OFFSETS["die_face"][0]
O_CONS = OFFSETS["constructions"][0]
O_BUILT = OFFSETS["built_this_turn"][0]
O_IDLE = OFFSETS["idle_turns"][0]
O_FSEAT = OFFSETS["finale_seat"][0]
O_FLEFT = OFFSETS["finale_turns_left"][0]
O_FCIRC = OFFSETS["final_circuit"][0]
O_END = OFFSETS["end_reason"][0]
O_RSTART = OFFSETS["random_start"][0]
O_QHEAD = OFFSETS["queue_head"][0]
O_QLEN = OFFSETS["queue_len"][0]
O_QUEUE = OFFSETS["queue"][0]
