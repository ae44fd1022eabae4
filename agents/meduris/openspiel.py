"""OpenSpiel's own MCTS as an agent: ``openspiel-mcts:<simulations>`` (default 100).

Each decision builds the OpenSpiel view of the position (``python_meduris``,
:mod:`meduris_env.envs.openspiel`) and asks ``open_spiel.python.algorithms.mcts.MCTSBot`` (UCT,
c = 2, one random rollout per leaf, chance sampled) for its move, with a random stream seeded by
the agent's seed, so tournaments stay reproducible. It is slow (Python rollouts through pyspiel)
and meant for comparisons with the literature's baseline, not for strength.

Its numbers are checked as every search agent's (:mod:`meduris_rl.agents.budgets`): ``simulations``
an int 1..``MAX_COUNT``, ``rollouts`` an int 1..:data:`MAX_ROLLOUTS`, ``uct_c`` a finite number
0..:data:`MAX_UCT_C` (a one-line ``ValueCheckError`` otherwise). OpenSpiel's own game keeps its
length in a 32-bit int, so a game whose ``max_turns`` is beyond
:data:`meduris_env.envs.openspiel.MAX_TURNS` cannot be played by this agent (one line too).
"""

from __future__ import annotations

import numpy as np

from meduris_rl.agents.base import Agent, UnknownAgentError
from meduris_rl.agents.budgets import MAX_COUNT
from meduris_rl.kit.values import check_float, check_int

#: random rollouts per leaf, at most
MAX_ROLLOUTS = 1000
#: the UCT exploration constant, at most
MAX_UCT_C = 100.0


class OpenSpielMCTSAgent(Agent):
    def __init__(self, name: str, simulations: int = 100, rollouts: int = 1,
                 uct_c: float = 2.0):
        super().__init__(name)
        simulations = check_int("simulations", simulations, 1, MAX_COUNT)
        rollouts = check_int("rollouts", rollouts, 1, MAX_ROLLOUTS)
        uct_c = check_float("uct_c", uct_c, 0.0, MAX_UCT_C)
        try:
            import meduris_env.openspiel  # noqa: F401  (registers python_meduris)
        except ImportError:
            raise UnknownAgentError(f"agent {name!r} needs OpenSpiel: pip install -e .[bench]") \
                from None
        self.simulations, self.rollouts, self.uct_c = simulations, rollouts, uct_c
        self._games: dict = {}
        self._random = np.random.RandomState(0)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._random = np.random.RandomState(seed)

    def act(self, observation, state) -> int:
        import pyspiel
        from open_spiel.python.algorithms import mcts

        from meduris_env.envs.openspiel import MedurisOpenSpielState

        game = state.game
        key = (game.num_players, game.exchange, game.max_turns)
        if key not in self._games:
            self._games[key] = pyspiel.load_game(
                f"python_meduris(players={key[0]},exchange={key[1]},max_turns={key[2]})")
        os_game = self._games[key]
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self._random)
        bot = mcts.MCTSBot(os_game, self.uct_c, self.simulations, evaluator,
                           random_state=self._random, solve=False)
        return int(bot.step(MedurisOpenSpielState(os_game, state.clone())))
