"""Druids' own kinds of agents: its rows of the agent table (:mod:`meduris_rl.agents.registry`),
named by Druids' row in the table of games (the part ``agent_kinds``)."""

from __future__ import annotations

from meduris_rl.agents.base import Agent
from meduris_rl.agents.registry import SEARCH, AgentKind, AgentSpec


def _greedy(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.druids.greedy import DruidsGreedyAgent
    return DruidsGreedyAgent(str(spec))


def _ppo(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.druids.ppo import DruidsPPOAgent
    return DruidsPPOAgent(str(spec), spec.parameter)


def _ismcts(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.druids.ismcts import DruidsISMCTSAgent
    return DruidsISMCTSAgent(str(spec), **spec.search_budget())


DRUIDS = ("druids",)

#: Druids' kinds, in the order the help and the error messages list them
KINDS: tuple[AgentKind, ...] = (
    AgentKind("greedy", "the documented Druids heuristic: collect where its servants take the "
              "most, feed its own places (agents/druids/greedy.py)", _greedy, batch="greedy",
              games=DRUIDS),
    AgentKind("ppo", "the Druids PPO policy (meduris train --game druids): the shipped model "
              "for the player count, or a policy.pt", _ppo, batch="policy", file="policy.pt",
              needs=("torch", "model"), games=DRUIDS, model="druids_ppo_{players}p.pt"),
    AgentKind("ismcts", "information-set MCTS: hidden cards dealt again per iteration as the "
              "seat knows them, heuristic rollouts (agents/druids/ismcts.py)", _ismcts,
              budget=SEARCH, games=DRUIDS, web=False),
)
