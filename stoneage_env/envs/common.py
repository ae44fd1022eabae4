"""What the Stone Age environments share: the observation space, the one observation builder,
the text views, the reward at the end and the opponents a single-agent env accepts.

The observation is the engine's vector (:func:`stoneage_env.engine.observation_tensor`,
``OBS_SIZE`` float32: everything the seat knows now, never another seat's face-down card,
rules section 3) and the legal-action mask over the 100 player actions (int8; all zero when the
seat is not to move).
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
from ..engine.constants import DEFAULT_MAX_ROUNDS, NUM_ACTIONS
from ..engine.errors import IllegalActionError
from ..engine.game import StoneAgeGame
from ..engine.information import OBS_SIZE, observation_string, observation_tensor
from ..engine.state import StoneAgeState

# what the environments need of the Stone Age engine (the AEC and the single-agent env)
ENGINE = GameEngine(StoneAgeState, IllegalActionError, NUM_ACTIONS, play, resolve_chance)


def game_from(game: StoneAgeGame | None, num_players: int | None,
              max_rounds: int | None = DEFAULT_MAX_ROUNDS, **options) -> StoneAgeGame:
    """``game`` itself, or a :class:`StoneAgeGame` built from the options (not both; the kit's
    :func:`~meduris_rl.kit.envs.simple.game_from`)."""
    return simple.game_from(StoneAgeGame, game, num_players, options, max_rounds=max_rounds)


def observation_box(game: StoneAgeGame) -> spaces.Box:
    """Scores are unbounded in both directions (S4: a score may go below zero), so the box
    is too; every other feature lies in [0, 10]."""
    return spaces.Box(-np.inf, np.inf, (OBS_SIZE,), dtype=np.float32)


# the game's parts of its AEC and single-agent envs (meduris_rl.kit.envs.simple)
# (render: observation_string, the seat's own view in words: the others' face-down cards
# counted, not named)
VIEWS = EnvViews(ENGINE, "StoneAgeState", "stone_age", observation_tensor, observation_box,
                 observation_string, game_from)
observe = VIEWS.observe  # {"observation", "action_mask"} of a seat (the mask zero unless it moves)
