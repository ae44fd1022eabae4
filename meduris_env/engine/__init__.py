"""The rules engine: a Meduris position is one flat int32 numpy array, the rules are numba
kernels over it, and :class:`MedurisGame` / :class:`State` wrap them OpenSpiel-style.

Modules, lowest first: ``constants`` (sizes, codes, the action space), ``layout`` (the state
array's named slices), ``kernel`` (the rules), ``events``, ``actions`` (ids <-> words),
``boards`` (+ ``board_data/``), ``state``, ``game``, ``chance`` (sampling), ``loop`` (the one
play-a-game loop), ``seeding`` (the one seed scheme), ``serialize`` (JSON), ``text`` (the board
as text). Nothing here imports the environments, agents or training.
"""

from meduris_rl.kit.loop import play, resolve_chance
from meduris_rl.kit.seeding import derive_seed

from .boards import Board, BoardError, load_board
from .chance import sample_chance
from .constants import CHANCE, NUM_ACTIONS, NUM_CHANCE_OUTCOMES, TERMINAL
from .events import Event
from .game import DEFAULT_MAX_TURNS, MedurisGame
from .layout import FIELDS, STATE_SIZE
from .serialize import StateFileError, load_state
from .state import IllegalActionError, State
from .text import render_text

__all__ = ["Board", "BoardError", "CHANCE", "DEFAULT_MAX_TURNS", "Event", "FIELDS",
           "IllegalActionError", "MedurisGame", "NUM_ACTIONS", "NUM_CHANCE_OUTCOMES",
           "STATE_SIZE", "State", "StateFileError", "TERMINAL", "derive_seed", "load_board",
           "load_state", "play", "render_text", "resolve_chance", "sample_chance"]
