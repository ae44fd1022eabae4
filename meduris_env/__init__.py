"""meduris-rl: the Meduris board game (HABA, 2016) as a fast, faithful RL environment.

Layers (each imports only those below it): :mod:`meduris_env.engine` (rules, Game/State),
:mod:`meduris_env.render` (pictures), :mod:`meduris_env.records` (game records, replays),
:mod:`meduris_env.envs` (PettingZoo and gymnasium environments). This module re-exports the
public API:

Engine (OpenSpiel-style): :class:`MedurisGame` and :class:`State`.
PettingZoo: :func:`env` (AEC, wrapped), :class:`raw_env`, :func:`parallel_env`.
Gymnasium: :class:`MedurisSingleAgentEnv` (one learning seat, for stable-baselines3).
Batch: :class:`MedurisBatch` (B games in one array, stepped by parallel kernels) and
:class:`MedurisVectorEnv` (its ``gymnasium.vector.VectorEnv``).
Game records: :class:`GameRecord` (JSON, exact replay).
"""

from .engine import (
    CHANCE,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    TERMINAL,
    Board,
    BoardError,
    Event,
    IllegalActionError,
    MedurisGame,
    State,
    StateFileError,
    derive_seed,
    load_board,
    load_state,
)
from .engine.errors import MedurisError
from .engine.scoring import score_breakdown
from .envs import (
    OBS_FIELDS,
    OBS_SIZE,
    MedurisBatch,
    MedurisSingleAgentEnv,
    MedurisVectorEnv,
    decode_observation,
    env,
    observe_state,
    parallel_env,
    raw_env,
)
from .records import GameRecord, RecordError
from .row import ROW  # Meduris's row in the table of games (registered on import)

__all__ = ["ROW", "Board", "BoardError", "CHANCE", "Event", "GameRecord", "IllegalActionError",
           "MedurisBatch", "MedurisError", "MedurisGame", "MedurisSingleAgentEnv",
           "MedurisVectorEnv", "NUM_ACTIONS", "NUM_CHANCE_OUTCOMES",
           "OBS_FIELDS", "OBS_SIZE", "RecordError", "State", "StateFileError", "TERMINAL",
           "decode_observation", "derive_seed", "env", "load_board", "load_state",
           "observe_state", "parallel_env", "raw_env", "score_breakdown"]

# gymnasium.make("meduris_env/Meduris-v0", num_players=..., opponents=...) builds the wrapper;
# gymnasium.make_vec("meduris_env/Meduris-v0", num_envs=1024, ...) the batch vector env
import gymnasium as _gymnasium  # noqa: E402

if "meduris_env/Meduris-v0" not in _gymnasium.registry:
    _gymnasium.register(id="meduris_env/Meduris-v0",
                        entry_point="meduris_env.envs.single_agent:MedurisSingleAgentEnv",
                        vector_entry_point="meduris_env.envs.vector:MedurisVectorEnv")
