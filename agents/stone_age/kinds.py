"""Stone Age's own kinds of agents: its rows of the agent table
(:mod:`meduris_rl.agents.registry`), named by Stone Age's row in the table of games (the part
``agent_kinds``)."""

from __future__ import annotations

from meduris_rl.agents.base import Agent
from meduris_rl.agents.registry import SEARCH, AgentKind, AgentSpec


def _greedy(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.stone_age.greedy import StoneAgeGreedyAgent
    return StoneAgeGreedyAgent(str(spec))


def _ismcts(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.stone_age.search import StoneAgeISMCTSAgent
    return StoneAgeISMCTSAgent(str(spec), **spec.search_budget())


def _ppo(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.stone_age.ppo import StoneAgePPOAgent
    return StoneAgePPOAgent(str(spec), spec.parameter)


def _rollout(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.stone_age.search import StoneAgeRolloutAgent
    return StoneAgeRolloutAgent(str(spec), **spec.search_budget())


STONE_AGE = ("stone_age",)

#: Stone Age's kinds, in the order the help and the error messages list them
KINDS: tuple[AgentKind, ...] = (
    AgentKind("greedy", "the documented Stone Age heuristic: food first, then buildings and "
              "cards it can pay, huts, fields, tools (agents/stone_age/greedy.py)", _greedy,
              games=STONE_AGE),
    AgentKind("ppo", "the Stone Age PPO policy (meduris train --game stone_age): the shipped "
              "model for the player count, or a policy.pt", _ppo,
              file="policy.pt", needs=("torch", "model"), games=STONE_AGE,
              model="stone_age_ppo_{players}p.pt"),
    AgentKind("ismcts", "information-set MCTS: others' face-down cards dealt again per "
              "iteration, rollouts of the compiled greedy strategy "
              "(agents/stone_age/search.py)", _ismcts, budget=SEARCH, games=STONE_AGE,
              web=False),
    AgentKind("rollout", "greedy improved by rollouts: each of greedy's best placements played "
              "out with greedy at every seat, the others' face-down cards dealt again "
              "(agents/stone_age/search.py)", _rollout, budget=SEARCH, games=STONE_AGE,
              web=False),
)
