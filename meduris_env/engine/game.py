"""The static rules of a Meduris game (OpenSpiel-style ``Game``): player count, board, options.

>>> game = MedurisGame(num_players=3)
>>> state = game.new_initial_state()
>>> state.is_chance_node()   # bonus chips are placed first (R4)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.protocol import ParamsGame, TableGame
from meduris_rl.kit.values import check_bool, check_choice, check_int

from . import actions
from .boards import Board, BoardError, load_board
from .constants import (
    CHIP_MIN_DISTANCE,
    CHIPS_PER_KIND,
    HUTS,
    MATERIAL_TOTAL,
    MAX_FIELDS,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_CHIPS,
    NUM_MATERIALS,
    PH_CHIPS,
    STAGE_SETUP,
    START_VP,
    TEMPLES,
    WORKERS,
)
from .layout import OFFSETS, STATE_SIZE
from .state import State

DEFAULT_MAX_TURNS = 1000
MAX_TURNS_LIMIT = 2**31 - 1  # the state array holds it as an int32
PLAYER_COUNTS = (2, 3, 4)  # R1


class PlayerCountError(InputError, ValueError):
    """A player count Meduris is not played by (R1: 2, 3 or 4)."""


def check_players(num_players, what: str = "num_players") -> int:
    """``num_players`` as an int if it is a player count of the game (R1), else a clear
    :class:`PlayerCountError` (also a ``ValueError``); the one check of player counts
    (environments, agents, commands and configs ask it)."""
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
            or num_players not in PLAYER_COUNTS:
        raise PlayerCountError(f"{what} must be 2, 3 or 4 (R1), got {num_players!r}")
    return int(num_players)


def game_from(game: MedurisGame | None = None, **options) -> MedurisGame:
    """The game an environment plays: ``game`` itself, or a :class:`MedurisGame` built from the
    ``options`` (its keyword arguments). Both at once is an error: which would win?"""
    if game is None:
        return MedurisGame(**options)
    if not isinstance(game, MedurisGame):
        raise TypeError(f"game must be a MedurisGame, got {type(game).__name__}")
    if options:
        raise ValueError(f"pass either game= or the game options ({', '.join(sorted(options))}), "
                         "not both")
    return game


class MedurisGame(ParamsGame, TableGame):
    """Static rules and sizes of one Meduris configuration.

    Args:
        num_players: 2, 3 or 4 (R1).
        board: ``None`` (the board for the player count, R3), ``"2-3"``, ``"4"``, a path to a
            board JSON file, a dict, or a :class:`~meduris_env.engine.boards.Board`.
        exchange: ``"auto"`` (builds and offerings are legal when affordable after exchanges,
            which the engine makes; R15 ruling) or ``"manual"`` (exchanges are explicit actions).
        max_turns: turn limit; reaching it ends the game as *truncated* (``0``/``None``: none);
            an int up to ``MAX_TURNS_LIMIT`` (2**31 - 1, the state array's int32).
        random_start_player: make the starting player a chance event (default: seat 0, R6).
        zero_sum: how :meth:`State.returns` scores (see there).

    The flags must be real bools and ``max_turns`` an int (numpy ints accepted): anything else
    is a :class:`~meduris_rl.kit.values.ValueCheckError` (also a ``ValueError``).
    """

    DISTINCT_ACTIONS, CHANCE_OUTCOMES = NUM_ACTIONS, NUM_CHANCE_OUTCOMES  # (the kit's TableGame)

    def __init__(
        self,
        num_players: int = 2,
        board: str | Path | dict | Board | None = None,
        exchange: str = "auto",
        max_turns: int | None = DEFAULT_MAX_TURNS,
        random_start_player: bool = False,
        zero_sum: bool = True,
    ):
        num_players = check_players(num_players)
        exchange = check_choice("exchange", exchange, ("auto", "manual"), " (R15)")
        self.max_turns = 0 if max_turns is None else check_int(
            "max_turns (0 or None: no limit)", max_turns, 0, MAX_TURNS_LIMIT)
        self.random_start_player = check_bool("random_start_player", random_start_player)
        self.zero_sum = check_bool("zero_sum", zero_sum)
        self.num_players = int(num_players)
        self.board = load_board(board, self.num_players)
        self.exchange = exchange
        self.workers = WORKERS[self.num_players]
        self.huts = HUTS[self.num_players]
        n = self.board.num_fields
        need = self.num_players * (self.huts + TEMPLES)
        if n < need:
            raise BoardError(
                f"board {self.board.name!r} has {n} fields, fewer than the {need} huts and "
                f"temples {self.num_players} players must be able to build (R1, R3)")
        if n < NUM_CHIPS * CHIP_MIN_DISTANCE:
            raise BoardError(f"board {self.board.name!r} has {n} fields; the 6 bonus chips need "
                             f"{NUM_CHIPS * CHIP_MIN_DISTANCE} (R4)")
        # the board as the kernels take it (read-only: every state of this game shares them)
        self.field_materials = np.array(self.board.field_materials, dtype=np.int32)
        """int32 [num_fields, 2]: the two materials each field shows (R3), for kernels."""
        self.field_areas = np.array(self.board.field_area, dtype=np.int32)
        """int32 [num_fields]: the rune area of each field (R3, R12), for kernels."""
        self.field_materials.setflags(write=False)
        self.field_areas.setflags(write=False)
        self._fa_full = np.full(MAX_FIELDS, -1, dtype=np.int32)  # padded, for whole-board masks
        self._fa_full[:n] = self.field_areas
        self._initial = self._initial_array()

    # --- sizes ---------------------------------------------------------------------------------

    @property
    def num_fields(self) -> int:
        return self.board.num_fields

    def params(self) -> dict:
        return {"num_players": self.num_players, "exchange": self.exchange,
                "max_turns": self.max_turns, "random_start_player": self.random_start_player,
                "zero_sum": self.zero_sum}

    def same_parts(self, other: MedurisGame) -> bool:
        """The same board (``==`` and ``hash``: the kit's ParamsGame)."""
        return other.board == self.board

    def __repr__(self) -> str:
        return (f"MedurisGame(num_players={self.num_players}, board={self.board.name!r}, "
                f"exchange={self.exchange!r}, max_turns={self.max_turns})")

    # --- states --------------------------------------------------------------------------------
    def _initial_array(self) -> np.ndarray:
        a = np.zeros(STATE_SIZE, dtype=np.int32)
        p = self.num_players

        def put(name: str, value) -> None:
            start, shape = OFFSETS[name]
            size = int(np.prod(shape)) if shape else 1
            a[start:start + size] = np.broadcast_to(np.asarray(value, dtype=np.int32),
                                                    shape or (1,)).ravel()

        put("num_players", p)
        put("num_fields", self.board.num_fields)
        put("manual_exchange", 1 if self.exchange == "manual" else 0)
        put("max_turns", self.max_turns)
        put("board_owner", -1)
        put("chips_to_place", CHIPS_PER_KIND)
        put("stacks", -1)
        put("druid_field", -1)
        put("supply", MATERIAL_TOTAL - p)  # R1, R2: everyone starts with one of each
        mats = np.zeros((4, NUM_MATERIALS), dtype=np.int32)
        mats[:p] = 1
        put("materials", mats)
        put("vp", [START_VP if s < p else 0 for s in range(4)])
        put("huts_left", [self.huts if s < p else 0 for s in range(4)])
        put("temples_left", [TEMPLES if s < p else 0 for s in range(4)])
        put("rune_holder", -1)
        put("phase", PH_CHIPS)
        put("stage", STAGE_SETUP)
        put("die_face", -1)
        put("finale_seat", -1)
        put("random_start", 1 if self.random_start_player else 0)
        a.setflags(write=False)
        return a

    def new_initial_state(self, bonus_chips: Iterable[tuple[int, int | str]] | None = None
                          ) -> State:
        """The state before setup: six bonus-chip chance nodes come first (R4).

        ``bonus_chips`` places them explicitly: six ``(field, kind)`` pairs with kind 1/"vp"
        (+2 VP), 2/"free" (free hut) or 3/"druid"; they must respect the spacing rule.
        """
        state = State(self, self._initial.copy())
        if bonus_chips is not None:
            chips = list(bonus_chips)
            if len(chips) != NUM_CHIPS:
                raise ValueError(f"bonus_chips needs {NUM_CHIPS} (field, kind) pairs, "
                                 f"got {len(chips)}")
            for field, kind in chips:
                code = {"vp": 1, "free": 2, "druid": 3}.get(kind, kind) if isinstance(kind, str) \
                    else kind
                try:
                    outcome = actions.chip_outcome(int(field), int(code))
                except (TypeError, ValueError):
                    raise ValueError(f"bonus chip ({field!r}, {kind!r}): kind must be vp, free "
                                     f"or druid and field a field index") from None
                if outcome not in state.legal_actions():
                    raise ValueError(f"bonus chip ({field}, {kind}) breaks the spacing rule (R4) "
                                     "or exceeds the 2 chips of that kind")
                state.apply_action(outcome)
        return state

    def state_from_json(self, text: str) -> State:
        """Rebuild a state written by ``State.to_json()`` (the game parameters must match)."""
        from .serialize import state_from_json
        state = state_from_json(text)
        if state.game != self:
            raise ValueError(f"state file is for {state.game!r}, not {self!r}; "
                             "use meduris_env.load_state() to take the game from the file")
        return state

    # --- strings -------------------------------------------------------------------------------
    action_to_string = staticmethod(actions.action_to_string)
    string_to_action = staticmethod(actions.string_to_action)
