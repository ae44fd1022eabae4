"""Fixed sizes, codes and the flat action space of Stone Age (shared by engine, envs and agents).

Everything here is a plain int or a frozen numpy array, so the numba kernels read it as a
compile-time constant. Rule numbers (S, X, M, C) are those of docs/stone_age.md.

**Goods.** One index for food and the four resources (S2): food 0, wood 1, clay 2, stone 3,
gold 4, worth 2, 3, 4, 5, 6 (the divisor of a roll, S14, and a resource's points, S26).
The four dice sites are the locations of the same index (forest 1 … river 4); the hunting
grounds are location 0 (food).

**Locations** (S9): 0 hunting grounds, 1 forest, 2 clay pit, 3 quarry, 4 river, 5 tool maker,
6 hut, 7 field, 8-11 civilization card slots 1-4, 12-15 building stacks 1-4.

**The flat action space** (the same 100 ids for every player count and option; every decision
C1-C11 is one action or a short sequence of them; payments go one resource at a time in the
order wood, clay, stone, gold, so each payment is exactly one sequence):

============  =====  ===========================================================================
ids           count  meaning
============  =====  ===========================================================================
0-9           10     place 1-10 figures on the hunting grounds                          (C1)
10-37         28     place 1-7 figures on site 1-4: 10 + (site - 1) * 7 + (count - 1)     (C1)
38, 39, 40    3      place on the tool maker (1), the hut (2 figures), the field (1)     (C1)
41-44         4      place on civilization card slot 1-4                                 (C1)
45-48         4      place on building stack 1-4                                         (C1)
49-64         16     resolve location 0-15 next                                          (C2)
65-68         4      add an unused tool tile of value 4, 3, 2, 1 to the roll             (C3)
69-72         4      add an unused one-use tool (OUT card) of value 4, 3, 2, 1           (C3)
73            1      take the roll's yield (no more tools)                               (C3)
74-77         4      pay 1 wood, clay, stone, gold                               (C4, C5, C8)
78            1      take the card or building as paid so far                        (C4, C5)
79            1      decline the card or building                                    (C4, C5)
80            1      take the -10 VP penalty instead of paying                           (C8)
81-85         5      move 1 figure onto the Mammoth tile paying food, wood … gold        (C9)
86            1      move no more figures                                                (C9)
87-92         6      pick the dice-for-all die showing 1-6                               (C6)
93-96         4      take 1 wood, clay, stone, gold (the ANY2 claim, C7; a bonus of choice, C11)
97            1      keep the ANY2 card for later                                        (C7)
98, 99        2      take the Mammoth tile's "1" bonus, its "all" bonus                 (C10)
============  =====  ===========================================================================

A decision with a single legal action is applied by the engine itself (the rules leave no
choice: the last die of the dice for all, the penalty when nothing can pay, the last location to
resolve); the others are the agents'. Chance outcomes have ids of their own after the actions
(OpenSpiel style):

============  =====  ===========================================================================
100-105       6      a die shows 1-6                                                   (S14)
106-139       34     a civilization card drawn (the card's row, 34 rows of 36 cards)    (S5)
140-161       22     a building tile turned face up (its row, 22 rows of 28 tiles)      (S6)
162-177       16     a Mammoth tile turned face up (the tile set's index)               (M3)
178-181       4      the back of the Mammoth pile's top tile: wood, clay, stone, gold   (M3)
============  =====  ===========================================================================
"""

from __future__ import annotations

import numpy as np

# the special current_player values (OpenSpiel's) are the kit's, for every game
from meduris_rl.kit.protocol import CHANCE, TERMINAL  # noqa: F401 (re-exported)

# --- goods (S2)
GOODS = ("food", "wood", "clay", "stone", "gold")
FOOD, WOOD, CLAY, STONE, GOLD = 0, 1, 2, 3, 4
NUM_GOODS = 5
VALUE = np.array([2, 3, 4, 5, 6], dtype=np.int32)  # S14 divisors, S26 points
RESOURCES = GOODS[1:]

# --- players and caps (S1, S3, S4)
MAX_PLAYERS = 4
PLAYER_COUNTS = (2, 3, 4)
START_FIGURES = 5
MAX_FIGURES = 10
MAX_AGRICULTURE = 10
TOOL_TILES = 3
MAX_TILE = 4
MAX_TOOLS = 12  # tool steps (total tile value)
START_FOOD = 12
HUNGER_PENALTY = 10  # S28

# --- locations (S9)
HUNT, FOREST, CLAY_PIT, QUARRY, RIVER = 0, 1, 2, 3, 4
TOOL_MAKER, HUT, FIELD = 5, 6, 7
SLOT0 = 8  # civilization card slot 1 is location 8 … slot 4 is 11
STACK0 = 12  # building stack 1 is location 12 … stack 4 is 15
NUM_LOCATIONS = 16
NUM_SLOTS = 4
MAX_STACKS = 4
STACK_TILES = 7
SITE_CAPACITY = 7
LOCATION_NAMES = ("hunting grounds", "forest", "clay pit", "quarry", "river", "tool maker",
                  "hut", "field", "card slot 1", "card slot 2", "card slot 3", "card slot 4",
                  "building stack 1", "building stack 2", "building stack 3",
                  "building stack 4")

# --- components (section 4 of the rules; data in data/components.json)
NUM_CARD_ROWS = 34  # 36 cards
NUM_CARDS = 36
NUM_BUILDING_ROWS = 22  # 28 tiles
NUM_BUILDINGS = 28
MAX_MAMMOTH_TILES = 16  # M1
NUM_SYMBOLS = 8  # green cards (S31)
# a card's bottom: green (its symbol) or one of the four sand categories (their figure count)
GREEN, FARMER, TOOL_MAKER_CARD, HUT_BUILDER, SHAMAN = 0, 1, 2, 3, 4
BOTTOM_NAMES = ("green", "farmer", "tool maker", "hut builder", "shaman")
SYMBOLS = ("pottery", "weaving", "time", "healing", "art", "transport", "music", "writing")
# a card's top (S20): the code and its two numbers (a, b)
# FOOD a=n, RES a=kind b=n, DICE, ROLL a=kind b=dice, OUT a=n
TOP_FOOD, TOP_RES, TOP_DICE, TOP_ROLL, TOP_OUT = 0, 1, 2, 3, 4
TOP_AGRI, TOP_TOOL, TOP_CARD, TOP_ANY, TOP_VP = 5, 6, 7, 8, 9  # a=n | a=n | - | a=n | a=n
TOP_NAMES = ("FOOD", "RES", "DICE", "ROLL", "OUT", "AGRI", "TOOL", "CARD", "ANY2", "VP")
# a building's cost (S26)
FIXED, COUNT_KINDS, ANY_COST = 0, 1, 2
# a Mammoth bonus (M10): the kind and its two numbers (a, b)
BON_AGRI, BON_RES, BON_CARD, BON_TOOL, BON_ANY, BON_FIGURE, BON_VP = 0, 1, 2, 3, 4, 5, 6
BONUS_NAMES = ("agriculture", "resource", "civ_card", "tool", "any_resources", "figure", "vp")

# --- score sources (S31; every point a player has comes from one of them)
SRC_BUILDINGS, SRC_CARD_VP, SRC_MAMMOTH_VP, SRC_HUNGER = 0, 1, 2, 3
SRC_GREEN, SRC_FARMERS, SRC_TOOL_MAKERS, SRC_HUT_BUILDERS, SRC_SHAMANS = 4, 5, 6, 7, 8
SRC_RESOURCES, SRC_MAJORITY = 9, 10
NUM_SOURCES = 11
SOURCE_NAMES = ("buildings", "card VP", "Mammoth VP", "hunger", "green cards", "farmers",
                "tool makers", "hut builders", "shamans", "resources", "Mammoth majority")

# --- the action space
A_HUNT = 0  # + count - 1
A_SITE = 10  # + (site - 1) * 7 + count - 1
A_TOOL_MAKER, A_HUT, A_FIELD = 38, 39, 40
A_SLOT = 41  # + slot (0-3)
A_STACK = 45  # + stack (0-3)
A_RESOLVE = 49  # + location
A_TILE = 65  # + (4 - value): tiles of value 4, 3, 2, 1
A_ONE_USE = 69  # + (4 - value)
A_YIELD = 73
A_PAY = 74  # + resource - 1 (wood … gold)
A_TAKE, A_DECLINE, A_PENALTY = 78, 79, 80
A_MOVE = 81  # + goods index (food … gold)
A_STOP = 86
A_PICK = 87  # + face - 1
A_GAIN = 93  # + resource - 1
A_KEEP = 97
A_ONE, A_ALL = 98, 99
NUM_ACTIONS = 100

C_DIE = NUM_ACTIONS  # + face - 1
C_CARD = C_DIE + 6  # + card row
C_BUILDING = C_CARD + NUM_CARD_ROWS  # + building row
C_TILE = C_BUILDING + NUM_BUILDING_ROWS  # + tile index
C_BACK = C_TILE + MAX_MAMMOTH_TILES  # + resource - 1
NUM_CHANCE_OUTCOMES = C_BACK + 4 - C_DIE  # 82
NUM_IDS = NUM_ACTIONS + NUM_CHANCE_OUTCOMES  # 182

# --- phases and the node inside a phase
PH_SETUP, PH_START, PH_PLACE, PH_ACT, PH_TAME, PH_FEED, PH_OVER = 0, 1, 2, 3, 4, 5, 6
PHASE_NAMES = ("setup", "round start", "placement", "actions", "Mammoth taming", "feeding",
               "game over")
# what the node is (the "mode"): a decision of ``actor`` or a chance event
M_NONE = 0
M_PLACE = 1  # C1
M_CHOOSE = 2  # C2
M_TOOLS = 3  # C3
M_CARD_PAY = 4  # C4
M_BUILD_PAY = 5  # C5
M_PICK = 6  # C6
M_ANY_OFFER = 7  # C7 when the ANY2 card is taken
M_GAIN = 8  # C7 (the claim's resources), C11
M_SHORT = 9  # C8
M_MOVE = 10  # C9
M_REWARD = 11  # C10
# chance nodes
M_FILL = 12  # a card dealt to a display slot (S5, S29)
M_REVEAL = 13  # a building stack's top turned face up (S6, S25)
M_BACK = 14  # the Mammoth pile's top back seen (M2, M3)
M_FLIP = 15  # the Mammoth tile turned face up (M3)
M_ROLL = 16  # a die of a roll: hunting, site, ROLL card (S14, S20)
M_DFA_ROLL = 17  # a die of the dice for all (S21)
M_SECRET = 18  # a card drawn face down by CARD or the Mammoth civ-card bonus (S24, M10)
M_TAME_ROLL = 19  # a die of the Mammoth taming (M6)
M_OVER = 20
MODE_NAMES = ("none", "placement", "location to resolve", "tools", "card payment",
              "building payment", "dice-for-all pick", "ANY2 claim", "resource of choice",
              "feeding shortfall", "Mammoth move", "Mammoth reward", "card dealt",
              "building turned", "Mammoth back", "Mammoth tile turned", "die", "dice for all",
              "card drawn face down", "taming die", "game over")
FIRST_CHANCE_MODE = M_FILL

# --- how a game ended (X20)
END_NONE, END_STACK, END_DECK, END_TRUNCATED = 0, 1, 2, 3
END_NAMES = ("running", "a building stack is empty (S30a)",
             "the deck cannot fill the display (S30b)", "round limit (truncated, X20)")

DEFAULT_MAX_ROUNDS = 100  # a bound, not a rule (X20): random games end by a rule long before
MAX_ROUNDS_LIMIT = 10_000
