"""Meduris as an OpenSpiel game: ``pyspiel.load_game("python_meduris(players=3)")``.

Importing this module (or :mod:`meduris_env.openspiel`) registers the python game
``python_meduris`` with pyspiel. It runs on the engine, so OpenSpiel's algorithms (MCTSBot,
``evaluate_bots``, CFR-free tree search, ``random_sim_test``) play the same game as the rest of
the project.

====================  ========================================================================
parameter             meaning
====================  ========================================================================
``players``           2, 3 or 4 (R1), default 2
``exchange``          ``"auto"`` (default) or ``"manual"`` (R15)
``max_turns``         turn limit, default 1000, at most :data:`MAX_TURNS`; reaching it ends the
                      game (0: none)
``hidden_materials``  default ``False``; ``True``: an opponent's split of chips is private (R2)
====================  ========================================================================

* **Players and chance.** ``current_player()`` is the engine's (``CHANCE`` -1 and ``TERMINAL``
  -4 are OpenSpiel's own values). Chance is explicit (``EXPLICIT_STOCHASTIC``): bonus chips (R4),
  the die (R7) and, never by default, the starting player. OpenSpiel numbers chance outcomes from
  0, so outcome ``k`` is the engine's id ``C_DIE + k`` (``max_chance_outcomes()`` = 154).
* **Actions** are the engine's 241 ids (``num_distinct_actions()``), legal ones ascending.
* **Returns** are the engine's zero-sum result (R26): winners share +1 and losers share -1 (with
  3-4 players each loser gets -1 divided by the number of losers); a game cut
  at ``max_turns`` is scored on its standings (``State.returns()``; the environments pay nothing
  at a cut unless ``truncation_reward="standings"``, see :mod:`.rewards`). Utility in [-1, 1],
  sum 0.
* **Information.** Every action and chance outcome is seen by every player. With
  ``hidden_materials=False`` (default) the game is ``PERFECT_INFORMATION``, as the environments'
  default: every observation shows every player's chips. With ``hidden_materials=True`` it is
  declared ``IMPERFECT_INFORMATION``: an observation shows each opponent's chips only as a total,
  as the environments do with the same option (one encoder, :mod:`.observation`). A player with
  perfect recall can still work every split out of the public history (takes, payments and
  exchanges are public), so hidden materials model a player who sees only the table.
* **Observer** (``make_py_observer(iig_obs_type)``, pyspiel's ``IIGObservationType``), as
  OpenSpiel's own python games do (``tic_tac_toe.py``, ``kuhn_poker.py``, ``observation.py``):

  - ``perfect_recall=True`` (the information state): the string is the public action history
    (``history_str()``) when ``public_info``, else ``""`` (all information is public or, hidden
    chips, follows from it); no tensor, so ``provides_information_state_tensor`` is False.
  - ``perfect_recall=False``, ``public_info=True`` (the default observation, OpenSpiel's
    ``observation_tensor``/``observation_string``): the environments' vector (1470 floats,
    observer first, then the others clockwise) and the board as text. Whose chips are shown by
    kind: ``private_info=SINGLE_PLAYER`` (default) the observer's, and every player's unless
    ``hidden_materials``; ``ALL_PLAYERS`` every player's; ``NONE`` with ``hidden_materials``
    nobody's (only totals), without it every player's (they are public then).
  - ``perfect_recall=False``, ``public_info=False`` (private information only): with
    ``hidden_materials`` the shown chips' split (``SINGLE_PLAYER``: the observer's, a 4-float
    tensor; ``ALL_PLAYERS``: every seat's, 4 x 4, observer first; ``NONE``: nothing); without
    it nothing is private (an empty tensor and string).
* **Serialisation** is OpenSpiel's default, the action history.
* **Parameters** are checked before the game is made, each a one-line ``ValueCheckError`` (or
  ``PlayerCountError``): ``max_turns`` at most :data:`MAX_TURNS`, since OpenSpiel keeps the
  game's length (:func:`_max_game_length`) in a 32-bit int. A number beyond 32 bits, such as
  ``{"max_turns": 10**12}`` given to ``pyspiel.load_game``, is refused by pybind11 itself while
  converting the dict to OpenSpiel's ``GameParameter`` (a ``RuntimeError``, "Unable to cast"),
  before this module sees it: nothing here can reword it. Give such numbers to
  :class:`MedurisOpenSpielGame` directly to get the one-line error.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from meduris_rl.kit.envs.openspiel import (
    EngineOpenSpielGame,
    EngineOpenSpielState,
    game_type,
    zero_sum_game_info,
)
from meduris_rl.kit.values import ValueCheckError, check_bool, check_int, excerpt

from ..engine.actions import action_to_string
from ..engine.constants import (
    C_DIE,
    MATERIALS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    NUM_MATERIALS,
)
from ..engine.game import DEFAULT_MAX_TURNS, MedurisGame
from ..engine.text import render_text
from .observation import OBS_FIELDS, OBS_OFFSETS, OBS_SIZE, observation_vector

SHORT_NAME = "python_meduris"
# per turn at most: the die, a "+1"/"-1" round, the turn action, the offerings of a ring of huts,
# and between any two decisions up to 36 manual exchanges (each returns 2 chips net of 72)
_SETUP = 6 + 1 + 8
#: the longest turn limit: the game's length bound (:func:`_max_game_length`) stays a 32-bit int
MAX_TURNS = 1_000_000
_PER_TURN_DECISIONS = 1 + 4 + 1 + 48
_PARAMETERS = {"players": 2, "exchange": "auto", "max_turns": DEFAULT_MAX_TURNS,
               "hidden_materials": False}
_PRIVATE = pyspiel.PrivateInfoType
# as OpenSpiel's C++ games without one (a python game would silently return [])
_NO_INFO_STATE_TENSOR = ("python_meduris has no information state tensor "
                         "(provides_information_state_tensor is False); use "
                         "information_state_string or observation_tensor")


def _max_game_length(max_turns: int) -> int:
    turns = max_turns if max_turns > 0 else 10_000
    return _SETUP + turns * (1 + _PER_TURN_DECISIONS * 37) + 48 * 37


def _game_type(information) -> pyspiel.GameType:
    return game_type(SHORT_NAME, "Meduris (python, meduris-rl engine)", information,
                     _PARAMETERS, information_state_tensor=False)


_GAME_TYPE = _game_type(pyspiel.GameType.Information.PERFECT_INFORMATION)
_GAME_TYPE_HIDDEN = _game_type(pyspiel.GameType.Information.IMPERFECT_INFORMATION)


class MedurisOpenSpielState(EngineOpenSpielState):
    """An OpenSpiel state over an engine state (``self.state``)."""

    chance_offset = C_DIE
    engine_action_string = staticmethod(action_to_string)

    def information_state_tensor(self, player=None):
        raise pyspiel.SpielError(_NO_INFO_STATE_TENSOR)

    def __str__(self) -> str:
        return render_text(self.state)


class MedurisOpenSpielGame(EngineOpenSpielGame):
    """The pyspiel game; ``self.game`` is the engine's :class:`MedurisGame` and
    ``self.hidden_materials`` whether opponents' splits are private."""

    spiel_name = SHORT_NAME
    state_class = MedurisOpenSpielState

    def __init__(self, params=None):
        params = {**_PARAMETERS, **dict(params or {})}
        unknown = sorted(set(params) - set(_PARAMETERS), key=str)
        if unknown:
            raise ValueCheckError(f"{SHORT_NAME} has no parameter {excerpt(unknown[0])} "
                                  f"(its parameters: {', '.join(_PARAMETERS)})")
        max_turns = params["max_turns"]
        if max_turns is not None:
            max_turns = check_int("max_turns (0: no limit)", max_turns, 0, MAX_TURNS)
        self.game = MedurisGame(params["players"], exchange=params["exchange"],
                                max_turns=max_turns)
        self.hidden_materials = check_bool("hidden_materials", params["hidden_materials"])
        info = zero_sum_game_info(NUM_ACTIONS, NUM_CHANCE_OUTCOMES, self.game.num_players,
                                  _max_game_length(self.game.max_turns))
        game_type = _GAME_TYPE_HIDDEN if self.hidden_materials else _GAME_TYPE
        super().__init__(game_type, info, {
            "players": self.game.num_players, "exchange": self.game.exchange,
            "max_turns": self.game.max_turns, "hidden_materials": self.hidden_materials})

    def information_state_tensor_shape(self):
        raise pyspiel.SpielError(_NO_INFO_STATE_TENSOR)

    def information_state_tensor_size(self):
        raise pyspiel.SpielError(_NO_INFO_STATE_TENSOR)

    def new_observer(self, iig_obs_type):
        return MedurisObserver(self.game, self.hidden_materials, iig_obs_type)


_PMAT_START = OBS_OFFSETS["player_materials"][0]
_PHID_START = OBS_OFFSETS["player_materials_hidden"][0]


class MedurisObserver:
    """OpenSpiel's PyObserver for one ``iig_obs_type`` (see the module docstring): ``tensor``
    (or ``None``), ``dict`` its named views, ``set_from`` / ``string_from``."""

    def __init__(self, game: MedurisGame, hidden_materials: bool, iig_obs_type=None):
        self.game = game
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        self.perfect_recall = iig.perfect_recall
        self.public = iig.public_info
        # whose split of chips is shown: "all", "own" (the observer's) or "none"
        if not hidden_materials or iig.private_info == _PRIVATE.ALL_PLAYERS:
            self.shown = "all"
        else:
            self.shown = "own" if iig.private_info == _PRIVATE.SINGLE_PLAYER else "none"
        self.private_only = not self.perfect_recall and not self.public
        self.dict = {}
        if self.perfect_recall:
            self.tensor = None
        elif self.public:
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            for name, shape, _, _ in OBS_FIELDS:
                start = OBS_OFFSETS[name][0]
                size = int(np.prod(shape)) if shape else 1
                self.dict[name] = self.tensor[start:start + size].reshape(shape or (1,))
        else:
            rows = {"all": MAX_PLAYERS, "own": 1, "none": 0}[self.shown] if hidden_materials else 0
            self.tensor = np.zeros(rows * NUM_MATERIALS, np.float32)
            self.dict["player_materials"] = self.tensor.reshape(rows, NUM_MATERIALS)

    def set_from(self, state: MedurisOpenSpielState, player: int) -> None:
        if self.tensor is None:
            return
        vector = observation_vector(state.state, player, self.shown != "all")
        if self.shown == "none":  # the observer's own split hidden as well
            vector[_PMAT_START:_PMAT_START + NUM_MATERIALS] = 0.0
            vector[_PHID_START] = 1.0
        if self.public:
            self.tensor[:] = vector
        else:
            self.tensor[:] = vector[_PMAT_START:_PMAT_START + self.tensor.size]

    def string_from(self, state: MedurisOpenSpielState, player: int) -> str:
        if self.perfect_recall:
            return state.history_str() if self.public else ""
        viewer = {"all": None, "own": player, "none": -1}[self.shown]
        if self.public:
            return render_text(state.state, viewer)
        if self.tensor.size == 0:
            return ""
        rows = self.dict["player_materials"]
        return " ".join(
            f"p{(player + r) % self.game.num_players}:" + ",".join(
                f"{name} {int(k)}" for name, k in zip(MATERIALS, row, strict=True))
            for r, row in enumerate(rows[:self.game.num_players]))


pyspiel.register_game(_GAME_TYPE, MedurisOpenSpielGame)
