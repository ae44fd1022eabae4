"""What the Druids environments share: the observation space, the one observation builder, the
text views, the reward at the end and the opponents a single-agent env accepts.

The observation is the engine's D14 vector (:func:`druids_env.engine.observation_tensor`,
``OBS_SIZE`` = 857 float32, everything ``seat`` knows now and nothing else) and the
legal-action mask over the 424 player actions (int8; all zero when ``seat`` is not to move).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from meduris_rl.kit.envs import simple
from meduris_rl.kit.envs.simple import EnvViews
from meduris_rl.kit.envs.turn_based import GameEngine
from meduris_rl.kit.envs.views import (  # noqa: F401 (the environments import them from here)
    RENDER_MODES,
    OpponentSpec,
    render_text,
)

from ..engine import play, resolve_chance
from ..engine.actions import NUM_ACTIONS
from ..engine.errors import IllegalActionError
from ..engine.game import DEFAULT_MAX_TURNS, DruidsGame
from ..engine.information import OBS_SIZE, observation_string, observation_tensor
from ..engine.state import DruidsState

# what the environments need of the Druids engine (the AEC and the single-agent env)
ENGINE = GameEngine(DruidsState, IllegalActionError, NUM_ACTIONS, play, resolve_chance)
# every feature of observation_tensor is at most this (servant counts per place <= 6, piles of
# gems / 10 <= 5.4, scores / 50 and the column's base / 30 below 10) except the turn / 100
FEATURE_HIGH = 10.0


def game_from(game: DruidsGame | None, num_players: int | None,
              max_turns: int | None = DEFAULT_MAX_TURNS, **options) -> DruidsGame:
    """``game`` itself, or a :class:`DruidsGame` built from the options (not both; the kit's
    :func:`~meduris_rl.kit.envs.simple.game_from`)."""
    return simple.game_from(DruidsGame, game, num_players, options, max_turns=max_turns)


def observation_high(game: DruidsGame) -> float:
    """The upper bound of every feature for ``game`` (inf without a turn limit)."""
    if not game.max_turns:
        return float("inf")
    return max(FEATURE_HIGH, game.max_turns / 100.0 + 1.0)


def observation_box(game: DruidsGame) -> spaces.Box:
    return spaces.Box(0.0, observation_high(game), (OBS_SIZE,), dtype=np.float32)


# the game's parts of its AEC and single-agent envs (meduris_rl.kit.envs.simple)
# (render: observation_string, the seat's own view in words: D14: never another hand)
VIEWS = EnvViews(ENGINE, "DruidsState", "druids", observation_tensor, observation_box,
                 observation_string, game_from)
observe = VIEWS.observe  # {"observation", "action_mask"} of a seat (the mask zero unless it moves)
