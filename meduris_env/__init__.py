"""meduris-rl: the Meduris board game (HABA, 2016) as a fast, faithful RL environment.

Engine (OpenSpiel-style): :class:`MedurisGame` and :class:`State`.
"""

from .boards import Board, BoardError, load_board
from .constants import CHANCE, NUM_ACTIONS, NUM_CHANCE_OUTCOMES, TERMINAL
from .events import Event
from .game import MedurisGame
from .serialize import StateFileError
from .state import IllegalActionError, State


def load_state(text: str) -> State:
    """A state from ``State.to_json()`` text, with the game taken from the file."""
    from .serialize import state_from_json
    return state_from_json(text)


__all__ = ["Board", "BoardError", "CHANCE", "Event", "IllegalActionError", "MedurisGame",
           "NUM_ACTIONS", "NUM_CHANCE_OUTCOMES", "State", "StateFileError", "TERMINAL",
           "load_board", "load_state"]
