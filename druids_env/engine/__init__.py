"""The Druids rules engine (a pure game module, pgx / OpenSpiel style): :class:`DruidsGame`,
:class:`DruidsState`, the action texts, the information functions (D14) and the one position
checker. Games are played by the shared loop (:func:`meduris_rl.kit.loop.play`,
re-exported here with ``resolve_chance`` and ``random_decide``). Nothing here imports
environments, agents or training."""

from meduris_rl.kit.loop import play, random_decide, resolve_chance
from meduris_rl.kit.protocol import CHANCE, TERMINAL

from .actions import (
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_IDS,
    action_to_string,
    string_to_action,
)
from .errors import DruidsError, IllegalActionError, StateFileError
from .events import Event
from .game import DEFAULT_CIRCLES, PLAYER_COUNTS, DruidsGame, state_from_json
from .information import (
    OBS_SIZE,
    information_state_string,
    information_state_tensor,
    observation_string,
    observation_tensor,
    resample_hidden,
)
from .invariants import check
from .state import DruidsState

__all__ = ["CHANCE", "TERMINAL", "NUM_ACTIONS", "NUM_CHANCE_OUTCOMES", "NUM_IDS",
           "action_to_string", "string_to_action", "DruidsError", "IllegalActionError",
           "StateFileError", "Event", "DEFAULT_CIRCLES", "PLAYER_COUNTS", "DruidsGame",
           "state_from_json", "OBS_SIZE", "information_state_string", "information_state_tensor",
           "observation_string", "observation_tensor", "resample_hidden", "check", "play",
           "random_decide", "resolve_chance", "DruidsState"]
