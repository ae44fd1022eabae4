"""Druids as an OpenSpiel game: ``pyspiel.load_game("python_druids(players=3)")``.

Importing this module registers the python game ``python_druids`` with pyspiel (pyspiel is
optional, so :mod:`druids_env.envs` does not import it). It runs on the engine, so OpenSpiel's
algorithms play the same game as the rest of the project.

==============  ==================================================================================
parameter       meaning
==============  ==================================================================================
``players``     2, 3 or 4 (D2), default 2
``circles``     circles per scoring card (D12 ruling), default 5
``max_turns``   turn limit, default **100** here (the engine's default is 500; random games take
                20-40 turns, the longest of 6,000 random games 40): it bounds the information
                state tensor, see below; reaching it ends the game, scored on the standings
==============  ==================================================================================

* **Type** as data: ``SEQUENTIAL``, ``EXPLICIT_STOCHASTIC``, ``IMPERFECT_INFORMATION`` (D14),
  ``ZERO_SUM``, ``TERMINAL`` rewards; it provides all four of information state string and
  tensor, observation string and tensor.
* **Chance** is explicit: the places laid out (D3, D7), each gem dealt or drawn (D3, D10), each
  servant drawn from a seat's set (D3 ruling), every card left equally likely. OpenSpiel
  numbers outcomes from 0: outcome ``k`` is the engine's id ``424 + k``
  (``max_chance_outcomes()`` = 72).
* **Actions** are the engine's 424 player actions, legal ones ascending; **returns** the
  engine's (D13: winners share +1, the others -1; utility in [-1, 1], sum 0).
* **Observer** (``make_py_observer(iig_obs_type)``):

  - ``perfect_recall=True`` (the information state): with ``private_info=SINGLE_PLAYER`` (the
    default) the engine's :func:`~druids_env.engine.information_state_string` /
    :func:`~druids_env.engine.information_state_tensor` (every event the player saw, the fields
    hidden from it blanked: 5 floats an event, zero-padded to ``max_info_rows(game)`` events:
    9,945 floats for 4 players at ``max_turns=100``, against ~47,000 at the engine's 500);
    with ``private_info=NONE`` the same with every private field blanked (the public history).
  - ``perfect_recall=False``, ``public_info=True``, ``private_info=SINGLE_PLAYER`` (OpenSpiel's
    ``observation_tensor`` / ``observation_string``): the engine's D14 observation (857 floats).
  - other combinations are not provided (a ``ValueError`` says which are).
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

from ..engine.actions import NUM_ACTIONS, action_to_string
from ..engine.game import DEFAULT_CIRCLES, DruidsGame
from ..engine.information import (
    INFO_WIDTH,
    OBS_SIZE,
    information_state_rows,
    information_state_string,
    information_state_tensor,
    max_info_rows,
    observation_string,
    observation_tensor,
)

SHORT_NAME = "python_druids"
DEFAULT_MAX_TURNS = 100  # this game's default: see the module docstring
PARAMETERS = {"players": 2, "circles": DEFAULT_CIRCLES, "max_turns": DEFAULT_MAX_TURNS}
PUBLIC_SEAT = -1  # seen_by(-1): every private field hidden (no seat owns it)

GAME_TYPE = game_type(SHORT_NAME, "Druids (python, meduris-rl engine)",
                      pyspiel.GameType.Information.IMPERFECT_INFORMATION, PARAMETERS,
                      information_state_tensor=True)


class DruidsOpenSpielState(EngineOpenSpielState):
    """An OpenSpiel state over an engine state (``self.state``)."""

    chance_offset = NUM_ACTIONS
    engine_action_string = staticmethod(action_to_string)


class DruidsObserver:
    """OpenSpiel's PyObserver for one ``iig_obs_type`` (see the module docstring)."""

    def __init__(self, game: DruidsGame, iig_obs_type=None):
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        private = iig.private_info
        self.game = game
        self.perfect_recall = iig.perfect_recall
        self.public_only = private == pyspiel.PrivateInfoType.NONE
        supported = iig.public_info and (
            private == pyspiel.PrivateInfoType.SINGLE_PLAYER or
            (self.perfect_recall and self.public_only))
        if not supported:
            raise ValueError(
                "python_druids provides the information state (perfect_recall, public_info, "
                "private_info SINGLE_PLAYER or NONE) and the observation (public_info, "
                f"private_info SINGLE_PLAYER); got {iig}")
        if self.perfect_recall:
            self.tensor = np.zeros(max_info_rows(game) * INFO_WIDTH, np.float32)
            self.dict = {"events": self.tensor.reshape(-1, INFO_WIDTH)}
        else:
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: DruidsOpenSpielState, player: int) -> None:
        st = state.state
        if not self.perfect_recall:
            self.tensor[:] = observation_tensor(st, player)
        elif not self.public_only:
            self.tensor[:] = information_state_tensor(st, player)
        else:
            rows = information_state_rows(st, PUBLIC_SEAT).astype(np.float32).reshape(-1)
            self.tensor[:] = 0.0
            self.tensor[:rows.size] = rows

    def string_from(self, state: DruidsOpenSpielState, player: int) -> str:
        st = state.state
        if not self.perfect_recall:
            return observation_string(st, player)
        if not self.public_only:
            return information_state_string(st, player)
        return "\n".join(ev.describe(PUBLIC_SEAT) for ev in st.log_events)


class DruidsOpenSpielGame(VectorObservation, EngineOpenSpielGame):
    """The pyspiel game; ``self.game`` is the engine's :class:`DruidsGame` (always with a turn
    limit: the information state tensor needs a bound)."""

    spiel_name, obs_size = SHORT_NAME, OBS_SIZE
    state_class, observer_class = DruidsOpenSpielState, DruidsObserver

    def __init__(self, params=None):
        params = {**PARAMETERS, **dict(params or {})}
        if not params["max_turns"]:
            raise ValueError("python_druids needs a turn limit (max_turns >= 1): it bounds the "
                             "information state tensor")
        game = DruidsGame(params["players"], circles=params["circles"],
                          max_turns=params["max_turns"])
        self.start(game, GAME_TYPE, {"players": game.num_players, "circles": game.circles,
                                     "max_turns": game.max_turns})

    def information_state_tensor_shape(self):
        return [max_info_rows(self.game) * INFO_WIDTH]

    def information_state_tensor_size(self):
        return max_info_rows(self.game) * INFO_WIDTH


pyspiel.register_game(GAME_TYPE, DruidsOpenSpielGame)
