"""The Stone Age engine: rules (numba kernels over one int32 array), game and state
(OpenSpiel-style), components, events, information and state files. docs/stone_age.md is the
rules text with its numbers S1-S32, X1-X22, M1-M12 and E1-E6."""

from meduris_rl.kit.loop import play, random_decide, resolve_chance
from meduris_rl.kit.protocol import CHANCE, TERMINAL

from .actions import action_to_string, string_to_action
from .components import RECONSTRUCTED_TILES, TileSet, load_tiles, tile_set
from .constants import NUM_ACTIONS, NUM_CHANCE_OUTCOMES, PLAYER_COUNTS
from .errors import ComponentsError, IllegalActionError, StateFileError, StoneAgeError
from .game import StoneAgeGame
from .information import (
    OBS_SIZE,
    information_state_string,
    information_state_tensor,
    observation_string,
    observation_tensor,
    resample_hidden,
    seat_state,
)
from .invariants import violations
from .state import StoneAgeState
from .statefile import state_from_json

__all__ = ["CHANCE", "TERMINAL", "play", "random_decide", "resolve_chance", "NUM_ACTIONS",
           "NUM_CHANCE_OUTCOMES", "OBS_SIZE", "PLAYER_COUNTS",
           "RECONSTRUCTED_TILES", "ComponentsError", "IllegalActionError", "StateFileError",
           "StoneAgeError", "StoneAgeGame", "StoneAgeState", "TileSet", "action_to_string",
           "information_state_string", "information_state_tensor", "load_tiles",
           "observation_string", "observation_tensor", "resample_hidden", "seat_state",
           "state_from_json", "string_to_action", "tile_set", "violations"]
