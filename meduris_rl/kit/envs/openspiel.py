"""The game-generic part of an OpenSpiel python game over one of the project's engines.

:class:`EngineOpenSpielState` is a ``pyspiel.State`` over an engine state (``self.state``):
OpenSpiel's players, legal actions, terminal test and returns are the engine's; chance outcomes
are numbered from 0 (outcome ``k`` is the engine's id ``chance_offset + k``).
:class:`EngineOpenSpielGame` builds the ``pyspiel.GameInfo`` of a zero-sum game with utility in
[-1, 1] and makes its states and observers; :func:`game_type` the ``pyspiel.GameType`` both
games share but for names, information and parameters. Meduris
(:mod:`meduris_env.envs.openspiel`) and Druids (:mod:`druids_env.envs.openspiel`) supply their
parameters, game type, string forms and observers. Importing this module registers no game
(it needs ``open_spiel``).

The engine state must offer ``current_player()``, ``legal_actions()``, ``chance_outcomes()``
(engine ids with probabilities), ``is_chance_node()``, ``apply_action(action)``,
``is_terminal()`` and ``returns()``.
"""

from __future__ import annotations

from collections.abc import Callable

import pyspiel


def game_type(short_name: str, long_name: str, information, parameters: dict, *,
              information_state_tensor: bool) -> pyspiel.GameType:
    """The type of a sequential, explicitly stochastic, zero-sum game of 2-4 players with
    terminal rewards that provides the information state string and both observation forms
    (and the information state tensor if ``information_state_tensor``)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=information_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def zero_sum_game_info(num_actions: int, num_chance_outcomes: int, num_players: int,
                       max_game_length: int) -> pyspiel.GameInfo:
    """OpenSpiel's game info of a zero-sum game with utility in [-1, 1]."""
    return pyspiel.GameInfo(
        num_distinct_actions=num_actions, max_chance_outcomes=num_chance_outcomes,
        num_players=num_players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
        max_game_length=max_game_length)


class EngineOpenSpielGame(pyspiel.Game):
    """A pyspiel game over an engine game (``self.game``); subclasses set ``state_class``,
    ``spiel_name`` and ``observer_class`` (made as ``observer_class(game, iig_obs_type)``) or
    implement :meth:`new_observer` (``make_py_observer`` without parameters)."""

    state_class: type
    observer_class: type
    spiel_name = "python_game"

    def start(self, game, game_type: pyspiel.GameType, params: dict) -> None:
        """``self.game = game`` and pyspiel's ``__init__`` (once, from the subclass's): the
        :func:`zero_sum_game_info` of the engine game's sizes and length, ``params`` the
        parameters pyspiel reports."""
        self.game = game
        info = zero_sum_game_info(game.num_distinct_actions(), game.max_chance_outcomes(),
                                  game.num_players, game.max_game_length())
        super().__init__(game_type, info, params)

    def new_initial_state(self):
        return self.state_class(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{self.spiel_name} observers take no parameters, got {params}")
        return self.new_observer(iig_obs_type)

    def new_observer(self, iig_obs_type):
        return self.observer_class(self.game, iig_obs_type)


class VectorObservation:
    """OpenSpiel's observation tensor shape of a game whose observation is one vector of
    ``obs_size`` floats (a base class beside :class:`EngineOpenSpielGame`)."""

    obs_size: int

    def observation_tensor_shape(self) -> list[int]:
        return [self.obs_size]

    def observation_tensor_size(self) -> int:
        return self.obs_size


class EngineOpenSpielState(pyspiel.State):
    """An OpenSpiel state over an engine state (``self.state``); subclasses set
    ``chance_offset`` (the engine id of chance outcome 0) and ``engine_action_string`` (the
    engine's, as a static method)."""

    chance_offset = 0
    engine_action_string: Callable[[int], str]

    def __init__(self, game: EngineOpenSpielGame, state=None):
        super().__init__(game)
        self.state = state if state is not None else game.game.new_initial_state()

    def current_player(self) -> int:
        return self.state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(a - self.chance_offset, p) for a, p in self.state.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        chance = self.state.is_chance_node()
        self.state.apply_action(action + self.chance_offset if chance else action)

    def _action_to_string(self, player: int, action: int) -> str:
        chance = player == pyspiel.PlayerId.CHANCE
        return self.engine_action_string(action + self.chance_offset if chance else action)

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.state.returns()]

    def __str__(self) -> str:
        return str(self.state)  # every card shown (OpenSpiel's convention for a state)
