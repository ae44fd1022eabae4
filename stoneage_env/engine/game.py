"""The static rules of a Stone Age game (OpenSpiel-style ``Game``): players, the Mammoth Herd
expansion and its tile set, the round limit, the start player; and the game's properties as
data.

>>> game = StoneAgeGame(num_players=3, mammoth_herd=True)
>>> state = game.new_initial_state()
>>> state.is_chance_node()   # the display is dealt first (S5)
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from meduris_rl.kit.protocol import ChanceTurnGame, ParamsGame, TableGame, ZeroSumGame
from meduris_rl.kit.values import check_int

from . import kernel as K
from .actions import action_to_string, string_to_action
from .components import BUILDINGS, CARDS, RECONSTRUCTED_TILES, TileSet, load_tiles
from .constants import (
    DEFAULT_MAX_ROUNDS,
    MAX_ROUNDS_LIMIT,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_GOODS,
    STACK_TILES,
    START_FIGURES,
    START_FOOD,
)
from .errors import StoneAgeError
from .layout import (
    O_BACK,
    O_CBACK,
    O_DECK,
    O_DFAPICKER,
    O_DISPLAY,
    O_FIG,
    O_FSLOT,
    O_GOODS,
    O_HERD,
    O_LOC,
    O_MAMMOTH,
    O_MAXR,
    O_NP,
    O_NSTACKS,
    O_NTILES,
    O_ROUND,
    O_RSTACK,
    O_SSEAT,
    O_SSIZE,
    O_START,
    O_STOP,
    O_TLAST,
    O_TNOW,
    O_TSET,
    O_TWIN,
    O_UNSEEN,
    STATE_SIZE,
)


class StoneAgeGame(ParamsGame, ChanceTurnGame, ZeroSumGame, TableGame):
    """Stone Age for ``num_players`` (2-4, S1); ``mammoth_herd`` plays the expansion (M1-M12)
    with ``tiles`` (a :class:`~stoneage_env.engine.components.TileSet`, a tile file's path,
    or None: the shipped reconstruction, rules section 7); ``max_rounds`` is the round limit
    (X20: the game is truncated after it; 0 or None: none); ``start_player`` the first round's
    start player (S7 ruling: seat 0)."""

    short_name = "stone_age"
    DISTINCT_ACTIONS, CHANCE_OUTCOMES = NUM_ACTIONS, NUM_CHANCE_OUTCOMES  # (the kit's TableGame)
    long_name = "Stone Age (Brunnhofer, 2008) with Mammoth Herd"
    information = "imperfect_information"  # a card drawn face down is its owner's (S24, M10)
    # dynamics, chance, rewards at the end, all four information forms: ChanceTurnGame's;
    # utility "zero_sum" (winners share +1, the others share -1): ZeroSumGame's

    def __init__(self, num_players: int = 2, mammoth_herd: bool = False,
                 tiles: TileSet | str | Path | None = None,
                 max_rounds: int | None = DEFAULT_MAX_ROUNDS, start_player: int = 0):
        self.num_players = check_int("num_players (S1: 2, 3 or 4)", num_players, 2, 4)
        if not isinstance(mammoth_herd, (bool, np.bool_)):
            raise StoneAgeError(f"mammoth_herd is true or false, got {mammoth_herd!r:.40}")
        self.mammoth_herd = bool(mammoth_herd)
        if tiles is None:
            tiles = RECONSTRUCTED_TILES
        elif not isinstance(tiles, TileSet):
            tiles = load_tiles(tiles)
        self.tiles = tiles
        self.tile_table = np.ascontiguousarray(tiles.table)
        self.max_rounds = 0 if max_rounds is None else check_int(
            "max_rounds (0 or None: no limit)", max_rounds, 0, MAX_ROUNDS_LIMIT)
        self.start_player = check_int(f"start_player (a seat 0-{self.num_players - 1})",
                                      start_player, 0, self.num_players - 1)
        self._initial, self.start_events = self._setup()

    # --- properties as data (OpenSpiel's GameType / Game) --------------------------------------
    def max_game_length(self) -> int:
        """A bound on ``history()`` per game: per round at most 10 placements, 16 locations
        with their dice, tools, payments and picks per seat, plus the round's chance; no bound
        (-1) without a round limit."""
        if not self.max_rounds:
            return -1
        per_seat = 10 + 16 * 4 + 10 * 6 + 8 + 10 + 12
        return 64 + self.max_rounds * (self.num_players * per_seat + 40)

    def params(self) -> dict:
        return {"num_players": self.num_players, "mammoth_herd": self.mammoth_herd,
                "max_rounds": self.max_rounds, "start_player": self.start_player}

    def tile_set_json(self) -> dict:
        return self.tiles.to_json()

    def same_parts(self, other: StoneAgeGame) -> bool:
        """The same Mammoth tiles (``==``, ``hash`` and ``repr``: the kit's ParamsGame)."""
        return np.array_equal(other.tile_table, self.tile_table)

    # --- states --------------------------------------------------------------------------------
    def _setup(self) -> tuple[np.ndarray, tuple]:
        """S3, S5, S6, M2: the position before the first chance event, and the events of
        getting there."""
        n = self.num_players
        a = np.zeros(STATE_SIZE, dtype=np.int32)
        a[O_NP] = n
        a[O_MAMMOTH] = int(self.mammoth_herd)
        a[O_MAXR] = self.max_rounds
        a[O_NSTACKS] = n  # S6: one stack per player
        a[O_NTILES] = len(self.tiles)
        a[O_ROUND] = 1
        a[O_START] = self.start_player
        for s in range(n):
            a[O_GOODS + s * NUM_GOODS] = START_FOOD
            a[O_FIG + s] = START_FIGURES
        a[O_DISPLAY:O_DISPLAY + 4] = -1
        a[O_DECK:O_DECK + len(CARDS)] = CARDS[:, 0]
        a[O_UNSEEN:O_UNSEEN + len(BUILDINGS)] = BUILDINGS[:, 0]
        a[O_SSIZE:O_SSIZE + n] = STACK_TILES
        a[O_STOP:O_STOP + 4] = -1
        for field in (O_BACK, O_HERD, O_TNOW, O_LOC, O_FSLOT, O_RSTACK, O_SSEAT, O_TWIN,
                      O_DFAPICKER, O_TLAST):
            a[field] = -1
        a[O_CBACK] = 0
        t = self.tile_table
        a[O_TSET:O_TSET + t.size] = t.ravel()
        w = np.zeros(K.W_SIZE, dtype=np.int32)
        K.start(a, w)
        a.setflags(write=False)
        rows = w[K.W_EV:K.W_EV + int(w[K.W_EVC]) * K.EV_WIDTH].reshape(-1, K.EV_WIDTH)
        return a, tuple(map(tuple, rows.tolist()))

    def new_initial_state(self):
        """The state before the setup's chance events (S5: the display is dealt first)."""
        from .state import StoneAgeState
        return StoneAgeState(self, self._initial.copy())

    def state_from_json(self, text: str | bytes):
        """The state ``StoneAgeState.to_json`` wrote, for this game;
        :class:`~stoneage_env.engine.errors.StateFileError` (one line) for anything else."""
        from .statefile import read_state
        return read_state(text, self)

    string_to_action = staticmethod(string_to_action)
    action_to_string = staticmethod(action_to_string)
