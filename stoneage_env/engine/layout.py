"""Layout of the flat int32 array that is one Stone Age position.

One :class:`~stoneage_env.engine.state.StoneAgeState` is one contiguous ``int32`` array, so
``clone()`` is a single copy and the numba kernels work on it without Python objects.
:data:`FIELDS` names every slice; the state exposes each as a numpy view of its shape
(``state.goods``, ``state.placed`` …; the table in docs/stone_age.md). Per-seat rows exist for 4
seats whatever the player count (the unused ones stay zero).
"""

from __future__ import annotations

from meduris_rl.kit.layout import field_offsets

from .constants import (
    MAX_MAMMOTH_TILES,
    MAX_PLAYERS,
    MAX_STACKS,
    NUM_BUILDING_ROWS,
    NUM_CARD_ROWS,
    NUM_GOODS,
    NUM_LOCATIONS,
    NUM_SLOTS,
    NUM_SOURCES,
    TOOL_TILES,
)

P = MAX_PLAYERS

# (name, shape, meaning) in array order
FIELDS: tuple[tuple[str, tuple[int, ...], str], ...] = (
    # the game's parameters (the kernels need them beside the position)
    ("num_players", (), "2, 3 or 4 (S1)"),
    ("mammoth", (), "1: the Mammoth Herd expansion is in play (M1)"),
    ("max_rounds", (), "round limit: the game is truncated after it (X20); 0 = none"),
    ("num_stacks", (), "building stacks in play: one per player (S6)"),
    ("num_tiles", (), "Mammoth tiles in the set (M1: 16)"),
    ("tile_set", (MAX_MAMMOTH_TILES, 7), "the Mammoth tiles: back, '1' bonus kind, a, b, 'all' "
                                         "bonus kind, a, b (components.py)"),
    # where the game is
    ("phase", (), "constants.PHASE_NAMES"),
    ("mode", (), "the node: a decision of actor or a chance event (constants.MODE_NAMES)"),
    ("actor", (), "the seat deciding now, -1 at a chance node or the end"),
    ("round", (), "the round being played, from 1"),
    ("start_player", (), "the round's start player (S7)"),
    ("end_reason", (), "constants.END_NAMES"),
    ("turn_seat", (), "placement: the seat to place; actions: the seat resolving (S11, S13)"),
    ("feed_i", (), "feeding: how many seats after the start player have fed (S27)"),
    # what the node is about
    ("loc", (), "the location being resolved, -1 for none"),
    ("roll_goods", (), "the goods a roll is for (0 food … 4 gold)"),
    ("roll_left", (), "dice of the roll still to roll"),
    ("roll_dice", (), "dice of the roll"),
    ("roll_sum", (), "pips rolled so far"),
    ("tool_sum", (), "tools added to the roll so far (C3)"),
    ("tool_last", (), "the last tool action added (its offset from A_TILE), -1 none (C3)"),
    ("paid", (NUM_GOODS,), "goods paid so far in this payment (C4, C5, C8, C9)"),
    ("pay_count", (), "pieces paid so far in this payment"),
    ("pay_last", (), "the goods index paid last (payments go food, wood … gold)"),
    ("pay_need", (), "pieces the payment must reach (card slot k, a shortfall m)"),
    ("moves_max", (), "figures that stood on the herd's site (C9)"),
    ("dfa_dice", (6,), "the dice for all not yet picked, per face (S21)"),
    ("dfa_picker", (), "the seat picking next (S21)"),
    ("claim_left", (), "resources still to take in a claim or bonus of choice (C7, C11)"),
    ("claim_back", (), "the node the claim returns to (constants.M_*; 0: the phase goes on)"),
    ("secret_seat", (), "the seat a face-down card is drawn for (S24, M10)"),
    ("fill_slot", (), "the display slot being filled, -1 none (S29)"),
    ("reveal_stack", (), "the stack whose top is being turned, -1 none"),
    ("reward_i", (), "Mammoth rewards: receivers done (M8)"),
    ("reward_n", (), "Mammoth rewards: receivers in all"),
    ("reward_seat", (P,), "Mammoth rewards: the receivers in order (M8 ruling)"),
    ("reward_which", (P,), "per receiver: 1 the '1' bonus, 2 the 'all' bonus, 0 not chosen"),
    ("reward_step", (), "1: the current receiver's bonus was applied and awaits its choices"),
    ("tame_winner", (), "the seat that won the taming, -1 none (M7)"),
    ("tame_i", (), "taming: participants that have rolled (in order from the start player)"),
    ("tame_left", (), "taming: dice the current participant still rolls"),
    # the players
    ("goods", (P, NUM_GOODS), "food and resources held (S2, S3)"),
    ("figures", (P,), "figures owned, 5-10 (S4, S17)"),
    ("unplaced", (P,), "figures not yet placed this round"),
    ("agriculture", (P,), "agriculture level 0-10 (S18)"),
    ("tiles", (P, TOOL_TILES), "tool tiles' values, 0 = no tile (S16)"),
    ("tile_used", (P, TOOL_TILES), "1 if the tile was used this round (S15, X8)"),
    ("one_use", (P, 4), "unused one-use tools (OUT cards) of value 1-4 (S22)"),
    ("any_unclaimed", (P,), "ANY2 cards not yet claimed (S23, X13)"),
    ("score", (P,), "victory points"),
    ("sources", (P, NUM_SOURCES), "the points per source (constants.SOURCE_NAMES)"),
    ("cards", (P, NUM_CARD_ROWS), "civilization cards held, per card row (S19)"),
    ("secret", (P, NUM_CARD_ROWS), "of these, the ones drawn face down (S24, M10): private"),
    ("built", (P, NUM_BUILDING_ROWS), "buildings owned, per building row (S25)"),
    ("tiles_won", (P,), "Mammoth tiles won (M8, M11)"),
    ("on_tile", (P,), "figures on the Mammoth tile (M5)"),
    ("tame_dice", (P, 6), "taming dice rolled, per face (M6)"),
    # the board
    ("placed", (NUM_LOCATIONS, P), "figures per location and seat (S9)"),
    ("display", (NUM_SLOTS,), "the card row in slot 1-4, -1 empty (S5)"),
    ("deck", (NUM_CARD_ROWS,), "cards still in the deck, per row (the order is nobody's)"),
    ("stack_size", (MAX_STACKS,), "tiles left in each stack, the top included (S6)"),
    ("stack_top", (MAX_STACKS,), "the face-up top tile's row, -1 none"),
    ("unseen", (NUM_BUILDING_ROWS,), "tiles never turned face up, per row (S6)"),
    ("tile_state", (MAX_MAMMOTH_TILES,), "0 in the pile, 1 this round's bonus tile, 2 left the "
                                         "game, 3 + seat won by seat (M3, M8)"),
    ("back", (), "the resource on the back of the pile's top tile, -1 none (M3)"),
    ("herd", (), "the site the herd stands on (1-4), -1 none (M3)"),
    ("tile_now", (), "this round's bonus tile, -1 none (M3)"),
)


OFFSETS = field_offsets(FIELDS)
STATE_SIZE = OFFSETS["_size"][0]

# plain-int offsets for the kernels (numba reads module globals as constants)
O_NP = OFFSETS["num_players"][0]
O_MAMMOTH = OFFSETS["mammoth"][0]
O_MAXR = OFFSETS["max_rounds"][0]
O_NSTACKS = OFFSETS["num_stacks"][0]
O_NTILES = OFFSETS["num_tiles"][0]
O_TSET = OFFSETS["tile_set"][0]
O_PHASE = OFFSETS["phase"][0]
O_MODE = OFFSETS["mode"][0]
O_ACTOR = OFFSETS["actor"][0]
O_ROUND = OFFSETS["round"][0]
O_START = OFFSETS["start_player"][0]
O_END = OFFSETS["end_reason"][0]
O_TSEAT = OFFSETS["turn_seat"][0]
O_FEEDI = OFFSETS["feed_i"][0]
O_LOC = OFFSETS["loc"][0]
O_RGOODS = OFFSETS["roll_goods"][0]
O_RLEFT = OFFSETS["roll_left"][0]
O_RDICE = OFFSETS["roll_dice"][0]
O_RSUM = OFFSETS["roll_sum"][0]
O_TSUM = OFFSETS["tool_sum"][0]
O_TLAST = OFFSETS["tool_last"][0]
O_PAID = OFFSETS["paid"][0]
O_PCOUNT = OFFSETS["pay_count"][0]
O_PLAST = OFFSETS["pay_last"][0]
O_PNEED = OFFSETS["pay_need"][0]
O_MOVESMAX = OFFSETS["moves_max"][0]
O_DFA = OFFSETS["dfa_dice"][0]
O_DFAPICKER = OFFSETS["dfa_picker"][0]
O_CLEFT = OFFSETS["claim_left"][0]
O_CBACK = OFFSETS["claim_back"][0]
O_SSEAT = OFFSETS["secret_seat"][0]
O_FSLOT = OFFSETS["fill_slot"][0]
O_RSTACK = OFFSETS["reveal_stack"][0]
O_RWI = OFFSETS["reward_i"][0]
O_RWN = OFFSETS["reward_n"][0]
O_RWSEAT = OFFSETS["reward_seat"][0]
O_RWWHICH = OFFSETS["reward_which"][0]
O_RWSTEP = OFFSETS["reward_step"][0]
O_TWIN = OFFSETS["tame_winner"][0]
O_TAMEI = OFFSETS["tame_i"][0]
O_TAMELEFT = OFFSETS["tame_left"][0]
O_GOODS = OFFSETS["goods"][0]
O_FIG = OFFSETS["figures"][0]
O_UNPL = OFFSETS["unplaced"][0]
O_AGRI = OFFSETS["agriculture"][0]
O_TILES = OFFSETS["tiles"][0]
O_TUSED = OFFSETS["tile_used"][0]
O_ONEUSE = OFFSETS["one_use"][0]
O_ANY = OFFSETS["any_unclaimed"][0]
O_SCORE = OFFSETS["score"][0]
O_SRC = OFFSETS["sources"][0]
O_CARDS = OFFSETS["cards"][0]
O_SECRET = OFFSETS["secret"][0]
O_BUILT = OFFSETS["built"][0]
O_WON = OFFSETS["tiles_won"][0]
O_ONTILE = OFFSETS["on_tile"][0]
O_TDICE = OFFSETS["tame_dice"][0]
O_PLACED = OFFSETS["placed"][0]
O_DISPLAY = OFFSETS["display"][0]
O_DECK = OFFSETS["deck"][0]
O_SSIZE = OFFSETS["stack_size"][0]
O_STOP = OFFSETS["stack_top"][0]
O_UNSEEN = OFFSETS["unseen"][0]
O_TSTATE = OFFSETS["tile_state"][0]
O_BACK = OFFSETS["back"][0]
O_HERD = OFFSETS["herd"][0]
O_TNOW = OFFSETS["tile_now"][0]
