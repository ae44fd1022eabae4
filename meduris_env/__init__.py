"""meduris-rl: the Meduris board game (HABA, 2016) as a fast, faithful RL environment.

Engine (OpenSpiel-style): :class:`MedurisGame` and :class:`State`.
PettingZoo: :func:`env` (AEC, wrapped), :class:`raw_env`, :func:`parallel_env`.
Gymnasium: :class:`MedurisSingleAgentEnv` (one learning seat, for stable-baselines3).
Game records: :class:`GameRecord` (JSON, exact replay).
"""

from .aec import env, raw_env
from .boards import Board, BoardError, load_board
from .constants import CHANCE, NUM_ACTIONS, NUM_CHANCE_OUTCOMES, TERMINAL
from .events import Event
from .game import MedurisGame
from .observation import OBS_FIELDS, OBS_SIZE, decode_observation, observe_state
from .parallel import parallel_env
from .record import GameRecord, RecordError
from .serialize import StateFileError
from .single_agent import MedurisSingleAgentEnv
from .state import IllegalActionError, State


def load_state(text: str) -> State:
    """A state from ``State.to_json()`` text, with the game taken from the file."""
    from .serialize import state_from_json
    return state_from_json(text)


__all__ = ["Board", "BoardError", "CHANCE", "Event", "GameRecord", "IllegalActionError",
           "MedurisGame", "MedurisSingleAgentEnv", "NUM_ACTIONS", "NUM_CHANCE_OUTCOMES",
           "OBS_FIELDS", "OBS_SIZE", "RecordError", "State", "StateFileError", "TERMINAL",
           "decode_observation", "env", "load_board", "load_state", "observe_state",
           "parallel_env", "raw_env"]

# gymnasium.make("meduris_env/Meduris-v0", num_players=..., opponents=...) builds the wrapper
import gymnasium as _gymnasium  # noqa: E402

if "meduris_env/Meduris-v0" not in _gymnasium.registry:
    _gymnasium.register(id="meduris_env/Meduris-v0",
                        entry_point="meduris_env.single_agent:MedurisSingleAgentEnv")
