"""Meduris's own kinds of agents: its rows of the agent table (:mod:`meduris_rl.agents.registry`),
named by Meduris's row in the table of games (the part ``agent_kinds``). Each builds its agent
when asked, importing it then, so listing the kinds loads no network or search."""

from __future__ import annotations

from meduris_rl.agents.base import Agent
from meduris_rl.agents.budgets import MAX_TREE_ITERATIONS
from meduris_rl.agents.registry import SEARCH, AgentKind, AgentSpec, Budget


def _greedy(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.greedy import GreedyAgent
    return GreedyAgent(str(spec))


def _mcts(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.mcts import MCTSAgent
    return MCTSAgent(str(spec), **spec.search_budget())


def _ppo(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.ppo import PPOAgent
    return PPOAgent(str(spec), spec.parameter)


def _openspiel_mcts(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.openspiel import OpenSpielMCTSAgent
    return OpenSpielMCTSAgent(str(spec), spec.budget)


def _rllib(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.rllib import RLlibAgent
    return RLlibAgent(str(spec), spec.parameter or "")  # (it names the fix for a missing one)


def _az(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.az import AZAgent
    return AZAgent(str(spec), **spec.search_budget(), path=spec.parameter)


def _az_fast(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.az_fast import AZFastAgent
    return AZFastAgent(str(spec), **spec.search_budget(), path=spec.parameter)


def _search(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.az_fast import AZFastAgent
    return AZFastAgent(str(spec), **spec.search_budget(), path=str(spec.row.shipped_model(2)))


def _gumbel(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.meduris.gumbel import GumbelAgent
    return GumbelAgent(str(spec), spec.budget, path=spec.parameter)


#: the shipped 2-player search's networks (agents/models/, ``make model-search-2p``): the
#: shipped policy's prior and a value network fitted to the search's own games
SEARCH_MODEL = "search_{players}p.pt"
# az-fast's tree holds a node per iteration
FAST_SEARCH = Budget("iterations", 200, seconds=True, maximum=MAX_TREE_ITERATIONS)
MEDURIS = ("meduris",)

#: Meduris's kinds, in the order the help and the error messages list them
KINDS: tuple[AgentKind, ...] = (
    AgentKind("greedy", "one-step lookahead on the hand-written evaluation", _greedy,
              batch="greedy", games=MEDURIS),
    AgentKind("mcts", "open-loop Monte Carlo tree search with heuristic rollouts", _mcts,
              budget=SEARCH, games=MEDURIS),
    AgentKind("ppo", "the PPO policy network: the shipped model for the game's player count, "
              "or a policy.pt", _ppo, batch="policy", file="policy.pt",
              needs=("torch", "model"), games=MEDURIS),
    AgentKind("openspiel-mcts", "OpenSpiel's MCTSBot with random rollouts", _openspiel_mcts,
              budget=Budget("simulations", 100), needs=("open_spiel",), games=MEDURIS),
    # the web server never loads files, and an RLlib agent is nothing without its checkpoint
    AgentKind("rllib", "an RLlib policy: the checkpoint folder of a "
                       "meduris_rl.train.meduris.rllib_ppo run", _rllib,
              file="checkpoint", file_required=True, needs=("torch", "model", "ray"), web=False,
              games=MEDURIS),
    AgentKind("az", "search guided by the ppo network (AlphaZero-style PUCT); a policy.pt "
              "after the budget for another network", _az, budget=SEARCH, file="policy.pt",
              needs=("torch", "model"), games=MEDURIS),
    AgentKind("az-fast", "the az search with its tree in numba arrays: the same moves' "
              "distribution, about 3x the iterations per second", _az_fast, budget=FAST_SEARCH,
              file="policy.pt", needs=("torch", "model"), web=False, games=MEDURIS),
    # (430 iterations: az:200's time per move, which it beats: docs/training.md; its file is
    # of 2 players, so a game of 3 or 4 refuses it in one line, as any 2-player policy file)
    AgentKind("search", "the shipped 2-player search: az-fast with the shipped policy's prior "
              "and a value network fitted to the search's own games (agents/models/"
              "search_2p.pt; 2 players only)", _search,
              budget=Budget("iterations", 430, seconds=True, maximum=MAX_TREE_ITERATIONS),
              needs=("torch", "model"), players=(2,), model=SEARCH_MODEL, games=MEDURIS),
    AgentKind("gumbel", "Gumbel AlphaZero search guided by the ppo network (Sequential Halving "
              "at the root, deterministic); a policy.pt after the budget for another network",
              _gumbel, budget=Budget("simulations", 32, maximum=10_000), file="policy.pt",
              needs=("torch", "model"), web=False, games=MEDURIS),
)
