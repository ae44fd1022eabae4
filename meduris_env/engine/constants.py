"""Fixed sizes, codes and the flat action space of Meduris (shared by engine, env and agents).

Everything here is a plain int or a frozen numpy array so the numba kernels can read it as a
compile-time constant.

Flat action space (the same size for every player count and board; see README "Action space"):

====================  ========  ===============================================================
ids                   count     meaning
====================  ========  ===============================================================
0-3                   4         place a worker on plain (wood, wool, copper, stone)  (R6)
4-7                   4         "+1": take 1 material                                (R9)
8-11                  4         "-1": return 1 material                              (R10)
12-59                 48        big yield: 12 + (source_plain*3 + level)*4 + dest    (R11)
60-107                48        build a hut on field f: 60 + f                       (R12)
108-155               48        build a temple on field f: 108 + f                   (R14)
156-160               5         offering: none, first, second, both, druid chip      (R19, R20)
161-240               80        exchange (manual mode): 161 + combo*4 + take         (R15)
====================  ========  ===============================================================

Chance outcomes have ids of their own, after the player actions (OpenSpiel style), so a chance
outcome applied at a decision node is recognised and refused:

====================  ========  ===============================================================
241-246               6         die face: wood, wool, copper, stone, "+1", "-1"      (R7)
247-390               144       bonus chip: 247 + field*3 + kind (+2 VP, free hut, druid)  (R4)
391-394               4         starting player (only with random_start_player)      (R6)
====================  ========  ===============================================================
"""

from __future__ import annotations

import itertools

import numpy as np

# the special current_player values (OpenSpiel's) are the kit's, for every game
from meduris_rl.kit.protocol import CHANCE, TERMINAL  # noqa: F401 (re-exported)

# --- components (R1, R2, R3, R4) ----------------------------------------------------------------
MATERIALS = ("wood", "wool", "copper", "stone")  # also the four high plains, same order
WOOD, WOOL, COPPER, STONE = 0, 1, 2, 3
NUM_MATERIALS = 4
NUM_PLAINS = 4
STACK_HEIGHT = 3  # at most 3 workers on a plain (R6, R11)
MATERIAL_TOTAL = 18  # chips of each material in the game (R2)
NUM_RUNE_AREAS = 9
MAX_PLAYERS = 4
MAX_FIELDS = 48  # largest board the fixed action space allows (printed boards: 32 and 40)
START_VP = 5
MAX_VP = 500  # a bound no game comes near (real scores stay below 150): files and spaces use it
DRUID_STONE_FIELDS = 3

WORKERS = {2: 3, 3: 2, 4: 2}  # R1
HUTS = {2: 12, 3: 8, 4: 8}  # R1
TEMPLES = 2  # R1
# the same counts indexed by the player count, for the numba kernels (0: no such game)
WORKERS_BY_PLAYERS = np.array([WORKERS.get(p, 0) for p in range(MAX_PLAYERS + 1)],
                              dtype=np.int32)
HUTS_BY_PLAYERS = np.array([HUTS.get(p, 0) for p in range(MAX_PLAYERS + 1)], dtype=np.int32)
WORKERS_BY_PLAYERS.setflags(write=False)
HUTS_BY_PLAYERS.setflags(write=False)

# board occupancy
EMPTY, HUT, TEMPLE = 0, 1, 2
OCCUPANT_NAMES = ("empty", "hut", "temple")

# bonus chips (R4, R13); 0 means no chip
CHIP_NONE, CHIP_VP, CHIP_FREE_HUT, CHIP_DRUID = 0, 1, 2, 3
CHIP_NAMES = ("none", "+2 VP", "free hut", "druid offering")
CHIP_KEYS = ("none", "vp", "free", "druid")  # short names used in strings and JSON
CHIPS_PER_KIND = 2
NUM_CHIPS = 6
CHIP_MIN_DISTANCE = 4  # at least 3 empty fields between two chips: ring distance >= 4 (R4)

# die faces (R7)
FACE_PLUS, FACE_MINUS = 4, 5
FACE_NAMES = ("wood", "wool", "copper", "stone", "+1", "-1")

# offering choices (R19, R20)
OFFER_NONE, OFFER_FIRST, OFFER_SECOND, OFFER_BOTH, OFFER_CHIP = 0, 1, 2, 3, 4
OFFER_NAMES = ("nothing", "first", "second", "both", "druid chip")

# --- exchange combos (R15): the 20 multisets of 3 materials, lexicographic ------------------------
EXCHANGE_GIVES = tuple(itertools.combinations_with_replacement(range(NUM_MATERIALS), 3))
EXCHANGE_GIVE_COUNTS = np.zeros((len(EXCHANGE_GIVES), NUM_MATERIALS), dtype=np.int32)
for _k, _combo in enumerate(EXCHANGE_GIVES):
    for _m in _combo:
        EXCHANGE_GIVE_COUNTS[_k, _m] += 1
EXCHANGE_GIVE_COUNTS.setflags(write=False)
NUM_EXCHANGE_GIVES = len(EXCHANGE_GIVES)  # 20

# --- flat action space -------------------------------------------------------------------------
A_PLACE = 0
A_TAKE = A_PLACE + NUM_PLAINS
A_RETURN = A_TAKE + NUM_MATERIALS
A_YIELD = A_RETURN + NUM_MATERIALS
A_HUT = A_YIELD + NUM_PLAINS * STACK_HEIGHT * NUM_PLAINS
A_TEMPLE = A_HUT + MAX_FIELDS
A_OFFER = A_TEMPLE + MAX_FIELDS
A_EXCHANGE = A_OFFER + 5
NUM_ACTIONS = A_EXCHANGE + NUM_EXCHANGE_GIVES * NUM_MATERIALS  # 241

C_DIE = NUM_ACTIONS
C_CHIP = C_DIE + 6
C_START = C_CHIP + MAX_FIELDS * 3
NUM_CHANCE_OUTCOMES = C_START + MAX_PLAYERS - C_DIE  # 154
NUM_IDS = NUM_ACTIONS + NUM_CHANCE_OUTCOMES

# --- decision kinds (queue entry kinds; the first five need a player's choice) -------------------
Q_NONE, Q_PLACE, Q_TAKE, Q_RETURN, Q_MAIN, Q_OFFER, Q_INTERIM = 0, 1, 2, 3, 4, 5, 6
DECISION_NAMES = ("none", "place worker", "take (+1)", "return (-1)", "turn action", "offering",
                  "rune interim scoring")

# --- phases -------------------------------------------------------------------------------------
PH_CHIPS, PH_START, PH_ROLL, PH_QUEUE, PH_TERMINAL = 0, 1, 2, 3, 4
PHASE_NAMES = ("bonus chip placement", "starting player", "die roll", "decisions", "terminal")

# what happens when the decision queue runs empty
STAGE_SETUP, STAGE_TURN, STAGE_FINAL = 0, 1, 2

# end-of-game reasons
END_NONE, END_FINALE, END_STALL, END_TRUNCATED = 0, 1, 2, 3
END_NAMES = ("not over", "finale (R22)", "no construction possible (R22 ruling)", "turn limit")
