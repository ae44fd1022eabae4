"""Stone Age as an OpenSpiel game: ``pyspiel.load_game("python_stone_age(players=3)")``.

Importing this module registers the python game ``python_stone_age`` with pyspiel (pyspiel is
optional, so :mod:`stoneage_env.envs` does not import it). It runs on the engine, so
OpenSpiel's algorithms play the same game as the rest of the project.

================  ================================================================================
parameter         meaning
================  ================================================================================
``players``       2, 3 or 4 (S1), default 2
``mammoth_herd``  the expansion (M1-M12, the shipped reconstructed tiles), default false
``max_rounds``    round limit (X20), default 100: a truncated game is ranked on its scores
================  ================================================================================

* **Type** as data: ``SEQUENTIAL``, ``EXPLICIT_STOCHASTIC``, ``IMPERFECT_INFORMATION`` (a card
  drawn face down is its owner's secret, S24, M10), ``ZERO_SUM``, ``TERMINAL`` rewards; it
  provides the information state string and the observation string and tensor. It does not
  provide an information state tensor: a fixed-length perfect-recall tensor of a game of up to
  100 rounds of up to 4 players would be about a million floats; the observation tensor is
  already a function of the player's knowledge alone.
* **Chance** is explicit: every die (S14, S21, M6), each card dealt or drawn, each building
  turned, the Mammoth pile's backs and fronts (M3), the things left equally likely. OpenSpiel
  numbers outcomes from 0: outcome ``k`` is the engine's id ``100 + k``
  (``max_chance_outcomes()`` = 82).
* **Actions** are the engine's 100 player actions, legal ones ascending; **returns** the
  engine's (winners share +1, the others -1).
* **Observer** (``make_py_observer(iig_obs_type)``): ``perfect_recall=True``,
  ``private_info=SINGLE_PLAYER``: the information state string (every event the player saw,
  another player's face-down card blanked); ``perfect_recall=False``, ``public_info=True``,
  ``private_info=SINGLE_PLAYER``: the observation tensor and string. Other combinations raise a
  ``ValueError`` saying which exist.
* **Serialisation** is OpenSpiel's default, the action history.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from meduris_rl.kit.envs.openspiel import (
    EngineOpenSpielGame,
    EngineOpenSpielState,
    VectorObservation,
    game_type,
)

from ..engine.actions import action_to_string
from ..engine.constants import DEFAULT_MAX_ROUNDS, NUM_ACTIONS
from ..engine.game import StoneAgeGame
from ..engine.information import (
    OBS_SIZE,
    information_state_string,
    observation_string,
    observation_tensor,
)

SHORT_NAME = "python_stone_age"
PARAMETERS = {"players": 2, "mammoth_herd": False, "max_rounds": DEFAULT_MAX_ROUNDS}

GAME_TYPE = game_type(SHORT_NAME, "Stone Age (python, meduris-rl engine)",
                      pyspiel.GameType.Information.IMPERFECT_INFORMATION, PARAMETERS,
                      information_state_tensor=False)


class StoneAgeOpenSpielState(EngineOpenSpielState):
    """An OpenSpiel state over an engine state (``self.state``)."""

    chance_offset = NUM_ACTIONS
    engine_action_string = staticmethod(action_to_string)


class StoneAgeObserver:
    """OpenSpiel's PyObserver for one ``iig_obs_type`` (see the module docstring)."""

    def __init__(self, game: StoneAgeGame, iig_obs_type=None):
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        self.game = game
        self.perfect_recall = iig.perfect_recall
        if not (iig.public_info and iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("python_stone_age provides the information state string "
                             "(perfect_recall, public_info, private_info SINGLE_PLAYER) and the "
                             f"observation (public_info, private_info SINGLE_PLAYER); got {iig}")
        size = 0 if self.perfect_recall else OBS_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict = {} if self.perfect_recall else {"observation": self.tensor}

    def set_from(self, state: StoneAgeOpenSpielState, player: int) -> None:
        if not self.perfect_recall:
            self.tensor[:] = observation_tensor(state.state, player)

    def string_from(self, state: StoneAgeOpenSpielState, player: int) -> str:
        if self.perfect_recall:
            return information_state_string(state.state, player)
        return observation_string(state.state, player)


class StoneAgeOpenSpielGame(VectorObservation, EngineOpenSpielGame):
    """The pyspiel game; ``self.game`` is the engine's :class:`StoneAgeGame` (always with a
    round limit: OpenSpiel wants a bound on the game's length)."""

    spiel_name, obs_size = SHORT_NAME, OBS_SIZE
    state_class, observer_class = StoneAgeOpenSpielState, StoneAgeObserver

    def __init__(self, params=None):
        params = {**PARAMETERS, **dict(params or {})}
        if not params["max_rounds"]:
            raise ValueError("python_stone_age needs a round limit (max_rounds >= 1): "
                             "OpenSpiel bounds a game's length")
        game = StoneAgeGame(params["players"], mammoth_herd=bool(params["mammoth_herd"]),
                            max_rounds=params["max_rounds"])
        self.start(game, GAME_TYPE, {"players": game.num_players,
                                     "mammoth_herd": game.mammoth_herd,
                                     "max_rounds": game.max_rounds})


pyspiel.register_game(GAME_TYPE, StoneAgeOpenSpielGame)
