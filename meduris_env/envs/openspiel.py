"""Meduris as an OpenSpiel game: ``pyspiel.load_game("python_meduris(players=3)")``.

Importing this module (or :mod:`meduris_env.openspiel`) registers the python game
``python_meduris`` with pyspiel. It runs on the engine, so OpenSpiel's algorithms (MCTSBot,
``evaluate_bots``, CFR-free tree search, ``random_sim_test``) play the same game as the rest of
the project.

==================  ==========================================================================
parameter           meaning
==================  ==========================================================================
``players``         2, 3 or 4 (R1), default 2
``exchange``        ``"auto"`` (default) or ``"manual"`` (R15)
``max_turns``       turn limit, default 1000; reaching it ends the game (0: none)
==================  ==========================================================================

* **Players and chance.** ``current_player()`` is the engine's (``CHANCE`` -1 and ``TERMINAL``
  -4 are OpenSpiel's own values). Chance is explicit (``EXPLICIT_STOCHASTIC``): bonus chips (R4),
  the die (R7) and, never by default, the starting player. OpenSpiel numbers chance outcomes from
  0, so outcome ``k`` is the engine's id ``C_DIE + k`` (``max_chance_outcomes()`` = 154).
* **Actions** are the engine's 241 ids (``num_distinct_actions()``), legal ones ascending.
* **Returns** are the engine's zero-sum result (R26): winners share +1, losers -1; a game cut
  at ``max_turns`` is scored on its standings. Utility in [-1, 1], sum 0.
* **Observations** are the environments' vector (1470 floats, :mod:`.observation`; the
  observer first, then the others clockwise); the string is the board as text. The game is
  declared perfect-information: like the environments' default, the observation shows every
  player's materials.
* **Serialisation** is OpenSpiel's default, the action history.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ..engine.actions import action_to_string
from ..engine.constants import C_DIE, NUM_ACTIONS, NUM_CHANCE_OUTCOMES
from ..engine.game import DEFAULT_MAX_TURNS, MedurisGame
from ..engine.text import render_text
from .observation import OBS_FIELDS, OBS_OFFSETS, OBS_SIZE, encode_observation

SHORT_NAME = "python_meduris"
# per turn at most: the die, a "+1"/"-1" round, the turn action, the offerings of a ring of huts,
# and between any two decisions up to 36 manual exchanges (each returns 2 chips net of 72)
_SETUP = 6 + 1 + 8
_PER_TURN_DECISIONS = 1 + 4 + 1 + 48


def _max_game_length(max_turns: int) -> int:
    turns = max_turns if max_turns > 0 else 10_000
    return _SETUP + turns * (1 + _PER_TURN_DECISIONS * 37) + 48 * 37


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Meduris (python, meduris-rl engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "exchange": "auto", "max_turns": DEFAULT_MAX_TURNS},
)


class MedurisOpenSpielGame(pyspiel.Game):
    """The pyspiel game; ``self.game`` is the engine's :class:`MedurisGame`."""

    def __init__(self, params=None):
        params = dict(params or {})
        players = int(params.get("players", 2))
        exchange = str(params.get("exchange", "auto"))
        max_turns = int(params.get("max_turns", DEFAULT_MAX_TURNS))
        self.game = MedurisGame(players, exchange=exchange, max_turns=max_turns)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_CHANCE_OUTCOMES,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=_max_game_length(self.game.max_turns))
        super().__init__(_GAME_TYPE, info, {"players": players, "exchange": exchange,
                                            "max_turns": max_turns})

    def new_initial_state(self):
        return MedurisOpenSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"python_meduris observers take no parameters, got {params}")
        return MedurisObserver(self.game)


class MedurisOpenSpielState(pyspiel.State):
    """An OpenSpiel state over an engine state (``self.state``)."""

    def __init__(self, game: MedurisOpenSpielGame, state=None):
        super().__init__(game)
        self.state = state if state is not None else game.game.new_initial_state()

    def current_player(self) -> int:
        return self.state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(a - C_DIE, p) for a, p in self.state.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        self.state.apply_action(action + C_DIE if self.state.is_chance_node() else action)

    def _action_to_string(self, player: int, action: int) -> str:
        return action_to_string(action + C_DIE if player == pyspiel.PlayerId.CHANCE else action)

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def returns(self) -> list[float]:
        return self.state.returns().tolist()

    def __str__(self) -> str:
        return render_text(self.state)


class MedurisObserver:
    """The environments' observation vector as OpenSpiel's observation tensor."""

    def __init__(self, game: MedurisGame):
        self.game = game
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {}
        for name, shape, _, _ in OBS_FIELDS:
            start = OBS_OFFSETS[name][0]
            size = int(np.prod(shape)) if shape else 1
            self.dict[name] = self.tensor[start:start + size].reshape(shape or (1,))

    def set_from(self, state: MedurisOpenSpielState, player: int) -> None:
        s = state.state
        encode_observation(s.array, self.game.field_materials, self.game.field_areas, player,
                           False, self.tensor)

    def string_from(self, state: MedurisOpenSpielState, player: int) -> str:
        return render_text(state.state)


pyspiel.register_game(_GAME_TYPE, MedurisOpenSpielGame)
