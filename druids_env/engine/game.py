"""The static rules of a Druids game (OpenSpiel-style ``Game``): players, the D12 ruling's
circles per scoring card, the turn limit; and the game's properties as data.

>>> game = DruidsGame(num_players=3)
>>> state = game.new_initial_state()
>>> state.is_chance_node()   # the places are laid out first (D3)
True
"""

from __future__ import annotations

from meduris_rl.kit.protocol import ChanceTurnGame, ParamsGame, TableGame, ZeroSumGame
from meduris_rl.kit.values import check_int

from .actions import NUM_ACTIONS, NUM_CHANCE_OUTCOMES, action_to_string, string_to_action
from .cards import HAND_LIMIT, NUM_GEMS, NUM_PLACES, ROW_SIZE, SERVANT_VALUES

PLAYER_COUNTS = (2, 3, 4)  # D2
DEFAULT_CIRCLES = 5  # D12 ruling
DEFAULT_MAX_TURNS = 500  # random games take 20-40 turns; a bound, not a rule
MAX_TURNS_LIMIT = 100_000


class DruidsGame(ParamsGame, ChanceTurnGame, ZeroSumGame, TableGame):
    """Druids for ``num_players`` (2-4, D2) with ``circles`` per scoring card (D12 ruling,
    default 5) and ``max_turns`` (a guard: reaching it ends the game as truncated; 0: none)."""

    short_name = "druids"
    DISTINCT_ACTIONS, CHANCE_OUTCOMES = NUM_ACTIONS, NUM_CHANCE_OUTCOMES  # (the kit's TableGame)
    long_name = "Druids (Colovini, 2004)"
    information = "imperfect_information"
    # dynamics, chance, rewards at the end, all four information forms: ChanceTurnGame's;
    # utility "zero_sum" (D13: winners share +1, the others share -1): ZeroSumGame's

    def __init__(self, num_players: int = 2, circles: int = DEFAULT_CIRCLES,
                 max_turns: int | None = DEFAULT_MAX_TURNS):
        self.num_players = check_int("num_players (D2: 2, 3 or 4)", num_players, 2, 4)
        self.circles = check_int("circles per scoring card (D12 ruling)", circles, 1, 100)
        self.max_turns = 0 if max_turns is None else check_int(
            "max_turns (0 or None: no limit)", max_turns, 0, MAX_TURNS_LIMIT)

    # --- properties as data (OpenSpiel's GameType / Game) ----------------------------------------

    def max_game_length(self) -> int:
        """A bound on the actions and outcomes of one game (``history()`` length): per turn at
        most a collection, a replacement place, two plays, a discard and seven draws (a choice
        and a card each); plus the setup. With no turn limit there is no bound (-1)."""
        if not self.max_turns:
            return -1
        setup = ROW_SIZE + self.num_players * 7
        return setup + self.max_turns * (1 + 1 + 2 + 1 + 2 * HAND_LIMIT)

    @staticmethod
    def cards() -> dict:
        """The card counts (D1): 54 gems, 6 servants per colour, 12 places."""
        return {"gems": NUM_GEMS, "servants_per_colour": SERVANT_VALUES, "places": NUM_PLACES}

    def params(self) -> dict:
        """The options (``==``, ``hash`` and ``repr``: the kit's ParamsGame)."""
        return {"num_players": self.num_players, "circles": self.circles,
                "max_turns": self.max_turns}

    # --- states ----------------------------------------------------------------------------------
    def new_initial_state(self):
        """The state before the setup's chance nodes (D3)."""
        from .state import DruidsState
        return DruidsState(self)

    def state_from_json(self, text: str | bytes):
        """The state ``DruidsState.to_json`` wrote, for this game (the file's parameters must
        be this game's); :class:`~druids_env.engine.errors.StateFileError` (one line) for
        anything else (:mod:`druids_env.engine.statefile`)."""
        from .statefile import read_state
        return read_state(text, self)

    string_to_action = staticmethod(string_to_action)
    action_to_string = staticmethod(action_to_string)


def state_from_json(text: str | bytes):
    """A state saved by ``DruidsState.to_json``, its game built from the parameters saved;
    every field checked (:func:`druids_env.engine.statefile.read_state`)."""
    from .statefile import read_state
    return read_state(text, new_game=DruidsGame)
